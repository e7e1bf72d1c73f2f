#include "ranks.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "common/cancel.h"
#include "common/file_id.h"
#include "common/xalloc.h"
#include "tool/nsys_export.h"
#include "ranks_heatmap.h"
#include "ranks_job.h"
#include "ranks_output.h"
#include "ranks_partial.h"
#include "ranks_plan.h"
#include "ranks_trace.h"
#include "tool/report_dir.h"
#include "tool/text_out.h"

enum { MAX_INPUTS = 1 << 20, DEFAULT_BINS = 100 };

#define LENGTH(a) (sizeof (a) / sizeof *(a))

static void ranks_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto ranks [OPTIONS] DIR|REPORT...\n"
          "The reports of one distributed job (one per rank, or several ranks in one):\n"
          "per rank its GPU busy and idle time, compute, communication (NCCL kernels),\n"
          "memory, the communication compute does not hide, and step time p50/p90/max;\n"
          "then the stragglers: at each collective matched across ranks (the k-th NCCL\n"
          "kernel of every rank), who arrived last and by how much, most late first.\n"
          "A rank is each process that ran the job's GPU work (a process with no NCCL\n"
          "kernel beside ones that have some is a helper, left out), numbered from\n"
          "MPI_RANKS, else from the reports' names (rank3, report.3.sqlite), else from\n"
          "their order. One step and one clock (UTC session starts) for the whole job.\n"
          "\n"
          "Options:\n"
          "      --step NAME       the NVTX range that is one step (default: found as\n"
          "                        diff finds it: ProfilerStep#N, else the most repeated\n"
          "                        top-level range that is not an op)\n"
          "      --format F        table (default), md, csv, json\n"
          "      --heatmaps PREFIX write PREFIX-utilization.svg (rank x time GPU\n"
          "                        utilization) and PREFIX-steps.svg (rank x step time)\n"
          "      --bins N          time bins of the utilization heatmap and trace\n"
          "                        (default 100; a picture draws at most 65,536 cells)\n"
          "      --trace OUT       an overview trace: per rank its GPU utilization\n"
          "                        (binned), steps and collectives; and each report's\n"
          "                        full trace beside it\n"
          "      --no-convert      with --trace: the overview only\n"
          "      --open            with --trace: serve the overview to the Perfetto UI as\n"
          "                        --open does, stragglers noted and pinned\n"
          "      --threads N       reports read at once (default: the CPUs)\n"
          "For reports on many machines (tools/ranks_dask.py drives these):\n"
          "      --window-of REPORT   print the report's survey: its window START END (UTC\n"
          "                        ns), then its clock and own step, for --plan\n"
          "      --plan SURVEY...  the job's window, clock and step from the surveys (in\n"
          "                        the reports' order), as --partial's options, one a line\n"
          "      --partial --window START:END [--clock-base UTC] [--step NAME\n"
          "                        --step-rule given|profiler-step|most-repeated] REPORT\n"
          "                        print the report's ranks measured on the job's plan\n"
          "      --from-partials PART...  fold partials (in the reports' order) as a\n"
          "                        local run folds the reports\n"
          "      --list-reports DIR|REPORT...  print the reports a run reads, one a\n"
          "                        line, in its order, each once (--null: NUL after each)\n"
          "  -h, --help            show this help\n"
          "Exit status: 0 done, 2 bad command line, 3-5 a report cannot be read, 6 an\n"
          "output cannot be written (or would replace an input), 7 interrupted.\n",
          to);
}

static int usage_error(const char *what, const char *arg)
{
    text_printf(stderr, "nsys-perfetto ranks: %s%s%s\nTry 'nsys-perfetto ranks --help'.\n",
                what, arg ? ": " : "", arg ? arg : "");
    return NSYSP_ERR_USAGE;
}

/* ---- Reading the reports, concurrently --------------------------------- */

/* Per matched event (the k-th collective, or the k-th step's end): the
 * latest arrival and who, and the sum and count of all arrivals, folded
 * rank by rank as reports finish: memory grows with the events, not with
 * the ranks. */
/* Sums of a job's arrivals: 128 bits, exact and never overflowing, so the
 * answer does not depend on the order the reports finish in. */
__extension__ typedef __int128 arrival_sum;

typedef struct arrival {
    int64_t latest;
    arrival_sum sum;
    uint64_t who;                /* the latest's key (report << 20 | process) */
    size_t count;
} arrival;

typedef struct arrivals {
    arrival *at;
    size_t n, cap;
} arrivals;

/* A rank read, before it is numbered. */
typedef struct read_rank {
    uint64_t key;                /* report index << 20 | process index */
    size_t report;
    nsysp_rank figures;          /* steps and utilization kept; collectives folded */
    int64_t mpi_rank;
    size_t n_collectives;        /* its NCCL kernels (folded, or kept with --trace) */
    char **names;                /* with --trace, its report's collective names */
    size_t n_names;
} read_rank;

typedef struct reader {
    char **paths;
    size_t n_paths;
    const char *step;
    int64_t window_start, window_end;
    size_t n_bins;
    volatile sig_atomic_t *cancel;
    pthread_mutex_t lock;
    size_t next;                 /* the next report to read */
    int status;                  /* the first failure */
    read_rank *ranks;
    size_t n_ranks, cap;
    arrivals collectives, steps;
    bool keep_events;            /* --trace: each rank's steps and collectives kept */
    bool convert_each;           /* --trace without --no-convert: full traces beside */
    char step_name[256];         /* the step the ranks were measured on */
    nsysp_step_rule step_rule;
    bool phase_windows;          /* surveying the reports, not measuring */
    nsysp_ranks_survey *surveys; /* the reports' */
    ranks_plan plan;             /* the job's clock, window and step */
    struct {                     /* a .nsys-rep's export, kept for both passes */
        char *sqlite, *tmpdir;
    } *exports;
} reader;

static void fold(arrivals *a, size_t k, int64_t at, uint64_t key)
{
    if (k >= a->n) {
        a->at = xgrow(a->at, &a->cap, k + 1, sizeof *a->at);
        memset(a->at + a->n, 0, (k + 1 - a->n) * sizeof *a->at);
        a->n = k + 1;
    }
    arrival *e = &a->at[k];
    if (!e->count || at > e->latest || (at == e->latest && key < e->who)) {
        e->latest = at;
        e->who = key;
    }
    e->sum += at;
    e->count++;
}

/* Keeps one report's ranks: figures, and their arrivals folded. */
static void keep_report(reader *r, size_t report, nsysp_ranks *got)
{
    pthread_mutex_lock(&r->lock);
    if (got->step_name[0] && !r->step_name[0]) {
        snprintf(r->step_name, sizeof r->step_name, "%s", got->step_name);
        r->step_rule = got->step_rule;
    }
    for (size_t i = 0; i < got->n_ranks; i++) {
        nsysp_rank *g = &got->ranks[i];
        uint64_t key = (uint64_t)report << 20 | i;
        /* From the job's window start: sums of a thousand UTC times would
         * overflow, sums of a job's offsets cannot (2^63 ns is 292 years). */
        for (size_t k = 0; k < g->n_collectives; k++)
            fold(&r->collectives, k, g->collectives[k].start_utc - r->window_start, key);
        for (size_t k = 0; k < g->n_steps; k++)
            fold(&r->steps, k, g->step_start_utc[k] + g->step_ns[k] - r->window_start, key);
        r->ranks = xgrow(r->ranks, &r->cap, r->n_ranks + 1, sizeof *r->ranks);
        read_rank *kept = &r->ranks[r->n_ranks++];
        kept->key = key;
        kept->report = report;
        kept->mpi_rank = g->mpi_rank;
        kept->n_collectives = g->n_collectives;
        kept->figures = *g;
        kept->names = NULL;
        kept->n_names = 0;
        if (!r->keep_events) { /* folded: memory stays flat whatever the rank count */
            free(g->collectives);
            free(g->step_start_utc);
            kept->figures.collectives = NULL;
            kept->figures.n_collectives = 0;
            kept->figures.step_start_utc = NULL;
        } else if (i == 0) { /* the report's names, owned by its first rank */
            kept->names = got->names;
            kept->n_names = got->n_names;
            got->names = NULL;
            got->n_names = 0;
        }
    }
    free(got->ranks); /* its ranks' arrays now belong to r */
    got->ranks = NULL;
    got->n_ranks = 0;
    pthread_mutex_unlock(&r->lock);
    nsysp_ranks_free(got);
}

static void fail(reader *r, int status, const char *message)
{
    pthread_mutex_lock(&r->lock);
    if (r->status == NSYSP_OK) {
        r->status = status;
        text_printf(stderr, "nsys-perfetto ranks: %s\n", message);
    }
    pthread_mutex_unlock(&r->lock);
}

/* With --trace, each rank's full trace beside its report (the overview's
 * detail), one thread per report. */
static void convert_beside(reader *r, const char *given, const char *sqlite)
{
    char trace[4096];
    if (nsysp_default_output_path(given, trace, sizeof trace) != 0) {
        fail(r, NSYSP_ERR_OUTPUT, "a report's trace path is too long");
        return;
    }
    nsysp_options opt;
    nsysp_options_init(&opt);
    opt.output_path = trace;
    opt.threads = 1;
    opt.cancel = r->cancel;
    nsysp_result res;
    nsysp_status status = nsysp_convert(sqlite, &opt, &res);
    if (status != NSYSP_OK) /* its own status: an interrupt is 7, a corrupt report 4 */
        fail(r, status, res.message);
}

/* One report: its window (first phase) or its ranks (second). A .nsys-rep
 * is exported with nsys first. */
/* The SQLite file of report i: a .nsys-rep is exported with nsys once, the
 * export kept for both passes (free_reader removes it). NULL after failing. */
static const char *readable_path(reader *r, size_t i)
{
    if (!is_nsys_report(r->paths[i]))
        return r->paths[i];
    if (!r->exports[i].sqlite) {
        char sqlite[4096], tmpdir[4096], why[512];
        int status = export_nsys_report(r->paths[i], sqlite, sizeof sqlite, tmpdir,
                                        sizeof tmpdir, why, sizeof why);
        if (status != NSYSP_OK) {
            fail(r, status, why);
            return NULL;
        }
        r->exports[i].sqlite = xstrdup(sqlite);
        r->exports[i].tmpdir = xstrdup(tmpdir);
    }
    return r->exports[i].sqlite;
}

static void read_report(reader *r, size_t i)
{
    const char *path = readable_path(r, i);
    if (!path)
        return;
    if (r->phase_windows) {
        int status = nsysp_ranks_survey_report(path, r->step, &r->surveys[i]);
        if (status != NSYSP_OK)
            fail(r, status, r->surveys[i].message);
    } else {
        nsysp_ranks got;
        nsysp_ranks_job plan = {.step_range = r->plan.step, .step_rule = r->plan.step_rule,
                               .window_start_utc = r->window_start,
                               .window_end_utc = r->window_end, .n_bins = r->n_bins,
                               .unknown_clock_utc = r->plan.unknown_clock_utc};
        int status = nsysp_measure_ranks_in_job(path, &plan, &got);
        if (status != NSYSP_OK)
            fail(r, status, got.message);
        else
            keep_report(r, i, &got);
        if (status == NSYSP_OK && r->convert_each)
            convert_beside(r, r->paths[i], path);
    }
}

static void *read_reports(void *arg)
{
    reader *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        size_t i = r->next++;
        bool stop = r->status != NSYSP_OK || cancel_requested(r->cancel);
        pthread_mutex_unlock(&r->lock);
        if (stop || i >= r->n_paths)
            return NULL;
        read_report(r, i);
    }
}

static int read_all(reader *r, int threads)
{
    r->next = 0;
    pthread_t pool[64];
    int started = 0;
    for (; started < threads && started < 64; started++)
        if (pthread_create(&pool[started], NULL, read_reports, r) != 0)
            break;
    if (!started)
        read_reports(r);
    for (int t = 0; t < started; t++)
        pthread_join(pool[t], NULL);
    if (r->status == NSYSP_OK && cancel_requested(r->cancel))
        r->status = NSYSP_ERR_INTERRUPTED;
    return r->status;
}

/* The job's plan from the reports' surveys (ranks_plan.c). */
static void make_plan(reader *r)
{
    ranks_plan_make(r->surveys, r->paths, r->n_paths, r->step, &r->plan);
    r->window_start = r->plan.window_start_utc;
    r->window_end = r->plan.window_end_utc;
}

/* ---- Numbering the ranks ------------------------------------------------ */

static int by_key(const void *a, const void *b)
{
    const read_rank *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Numbers the ranks read (sorted by report, then process) by the rule
 * the Kineto JSON shares (rank_numbers.h). */
static rank_rule number_ranks(const reader *r, long *numbers)
{
    int64_t *mpi = xcalloc(r->n_ranks ? r->n_ranks : 1, sizeof *mpi);
    size_t *reports = xcalloc(r->n_ranks ? r->n_ranks : 1, sizeof *reports);
    for (size_t i = 0; i < r->n_ranks; i++) {
        mpi[i] = r->ranks[i].mpi_rank;
        reports[i] = r->ranks[i].report;
    }
    rank_rule rule = rank_numbers(mpi, reports, r->n_ranks, (const char *const *)r->paths,
                                  r->n_paths, numbers);
    free(mpi);
    free(reports);
    return rule;
}

/* ---- The job ------------------------------------------------------------ */

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile p (0..100) of sorted v[0..n). */
static int64_t percentile(const int64_t *v, size_t n, double p)
{
    size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999);
    return v[rank ? (rank > n ? n - 1 : rank - 1) : 0];
}

static void rank_figures(job_rank *jr, const read_rank *rr, const job *j)
{
    const nsysp_rank *g = &rr->figures;
    jr->pid = g->pid;
    jr->device = g->device;
    jr->span_ns = j->window_end_utc - j->window_start_utc;
    jr->busy_ns = g->busy_ns;
    jr->idle_ns = jr->span_ns > g->busy_ns ? jr->span_ns - g->busy_ns : 0;
    jr->compute_ns = g->compute_ns;
    jr->comm_ns = g->comm_ns;
    jr->memory_ns = g->memory_ns;
    jr->exposed_comm_ns = g->exposed_comm_ns;
    jr->n_steps = g->n_steps;
    jr->step_ns = g->step_ns;
    jr->utilization = g->utilization;
    jr->step_start_utc = g->step_start_utc;
    jr->collectives = g->collectives;
    jr->n_collectives = g->n_collectives;
    jr->collective_names = rr->names;
    jr->n_collective_names = rr->n_names;
    jr->step_p50_ns = jr->step_p90_ns = jr->step_max_ns = -1;
    if (g->n_steps) {
        int64_t *sorted = xcalloc(g->n_steps, sizeof *sorted);
        memcpy(sorted, g->step_ns, g->n_steps * sizeof *sorted);
        qsort(sorted, g->n_steps, sizeof *sorted, by_value);
        jr->step_p50_ns = percentile(sorted, g->n_steps, 50);
        jr->step_p90_ns = percentile(sorted, g->n_steps, 90);
        jr->step_max_ns = sorted[g->n_steps - 1];
        free(sorted);
    }
}

/* Who arrived last at each event matched on every rank, and by how much:
 * the latest arrival minus the mean of the others'. */
static void blame_latest(job *j, const arrivals *a, const uint64_t *keys)
{
    for (size_t k = 0; k < a->n; k++) {
        const arrival *e = &a->at[k];
        if (e->count != j->n_ranks || j->n_ranks < 2)
            continue;
        j->n_matched++;
        double others = (double)(e->sum - e->latest) / (double)(e->count - 1);
        /* others is within the arrivals' range: the difference fits. */
        int64_t late = e->latest - (int64_t)others;
        for (size_t i = 0; i < j->n_ranks; i++)
            if (keys[i] == e->who) {
                job_rank *jr = &j->ranks[i];
                jr->last_count++;
                /* Saturates: a sum of a job's worth of lateness is a measure,
                 * not a wrapped number, whatever the reports hold. */
                jr->late_total_ns = late > INT64_MAX - jr->late_total_ns ? INT64_MAX
                                                                           : jr->late_total_ns + late;
                if (late > jr->late_max_ns) {
                    jr->late_max_ns = late;
                    jr->late_max_at = e->latest;
                }
                break;
            }
    }
}

static const job *sorting_job;

/* Most late first: total lateness, then how often, then rank. */
static int by_lateness(const void *a, const void *b)
{
    const job_rank *x = &sorting_job->ranks[*(const size_t *)a];
    const job_rank *y = &sorting_job->ranks[*(const size_t *)b];
    if (x->late_total_ns != y->late_total_ns)
        return x->late_total_ns > y->late_total_ns ? -1 : 1;
    if (x->last_count != y->last_count)
        return x->last_count > y->last_count ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int by_rank(const void *a, const void *b)
{
    const job_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static const char *step_rule_text(nsysp_step_rule rule)
{
    switch (rule) {
    case NSYSP_STEP_GIVEN:
        return "given (--step)";
    case NSYSP_STEP_PROFILER:
        return "ProfilerStep#N ranges";
    case NSYSP_STEP_REPEATED:
        return "the most repeated top-level range that is not an op";
    default:
        return "none found";
    }
}

static void free_read_rank(read_rank *k)
{
    free(k->figures.step_ns);
    free(k->figures.utilization);
    free(k->figures.step_start_utc);
    free(k->figures.collectives);
    for (size_t n = 0; n < k->n_names; n++)
        free(k->names[n]);
    free(k->names);
}

/* What marks a process as one of the job's ranks: its NCCL kernels when
 * any process ran some, else its steps. */
static size_t rank_marks(const reader *r, const read_rank *k)
{
    return r->collectives.n ? k->n_collectives : k->figures.n_steps;
}

/* Leaves out the helpers: processes without the job's marks (no NCCL
 * kernel, say a data loader's one copy) in a report whose other processes
 * have them. A helper is not a rank: it would take a rank's number and, as
 * it is in no collective, stop every collective from being matched. A
 * report with no marked process at all keeps its processes (ranks that
 * lack the collectives, named by note_unmatched). Before ranks (by key). */
static void leave_out_helpers(reader *r)
{
    bool *marked = xcalloc(r->n_paths ? r->n_paths : 1, sizeof *marked);
    for (size_t i = 0; i < r->n_ranks; i++)
        marked[r->ranks[i].report] |= rank_marks(r, &r->ranks[i]) > 0;
    size_t kept = 0;
    for (size_t i = 0; i < r->n_ranks; i++) {
        read_rank *k = &r->ranks[i];
        if (rank_marks(r, k) || !marked[k->report]) {
            r->ranks[kept++] = *k;
            continue;
        }
        text_printf(stderr, "nsys-perfetto ranks: %s: pid %d left out, not a rank: it ran no %s,"
                            " its report's other processes did (%.3f ms of GPU work)\n",
                    r->paths[k->report], (int)k->figures.pid,
                    r->collectives.n ? "NCCL kernel" : "step", (double)k->figures.busy_ns / 1e6);
        if (k->names && i + 1 < r->n_ranks) { /* the report's names go to its next rank */
            r->ranks[i + 1].names = k->names;
            r->ranks[i + 1].n_names = k->n_names;
            k->names = NULL;
            k->n_names = 0;
        }
        free_read_rank(k);
    }
    r->n_ranks = kept;
    free(marked);
}

/* Names the ranks that lack some of the job's collectives (or steps): only
 * what every rank has is matched. */
static void note_unmatched(const reader *r, const job *j, const size_t *marks)
{
    const arrivals *a = r->collectives.n ? &r->collectives : &r->steps;
    if (j->n_ranks < 2 || j->n_matched == a->n)
        return;
    buf line = {0};
    size_t lacking = 0;
    for (size_t i = 0; i < j->n_ranks; i++)
        if (marks[i] < a->n && ++lacking <= 8)
            buf_printf(&line, "%s rank %ld (%s) has %zu", lacking > 1 ? "," : "", j->ranks[i].rank,
                       j->ranks[i].report, marks[i]);
    if (lacking > 8)
        buf_printf(&line, ", and %zu more ranks", lacking - 8);
    text_printf(stderr, "nsys-perfetto ranks: of the job's %zu %s,%s; %zu matched on every rank"
                        "\n", a->n, j->matched_what, buf_cstr(&line), j->n_matched);
    buf_free(&line);
}

static void build_job(reader *r, job *j)
{
    qsort(r->ranks, r->n_ranks, sizeof *r->ranks, by_key);
    leave_out_helpers(r);
    long *numbers = xcalloc(r->n_ranks, sizeof *numbers);
    uint64_t *keys = xcalloc(r->n_ranks, sizeof *keys);
    size_t *marks = xcalloc(r->n_ranks ? r->n_ranks : 1, sizeof *marks);
    j->ranks = xcalloc(r->n_ranks, sizeof *j->ranks);
    j->rule = number_ranks(r, numbers);
    j->n_ranks = r->n_ranks;
    j->n_reports = r->n_paths;
    snprintf(j->step_name, sizeof j->step_name, "%s", r->step_name);
    j->step_rule = step_rule_text(r->step_name[0] ? r->step_rule : NSYSP_STEP_NONE);
    for (size_t i = 0; i < r->n_ranks; i++) {
        job_rank *jr = &j->ranks[i];
        jr->rank = numbers[i];
        jr->report = r->paths[r->ranks[i].report];
        rank_figures(jr, &r->ranks[i], j);
        keys[i] = r->ranks[i].key;
        marks[i] = rank_marks(r, &r->ranks[i]);
    }
    bool collectives = r->collectives.n > 0;
    j->matched_what = collectives ? "collectives" : "steps";
    blame_latest(j, collectives ? &r->collectives : &r->steps, keys);
    note_unmatched(r, j, marks);
    free(marks);
    /* By rank from here on (keys were by report). */
    qsort(j->ranks, j->n_ranks, sizeof *j->ranks, by_rank);
    j->stragglers = xcalloc(j->n_ranks, sizeof *j->stragglers);
    for (size_t i = 0; i < j->n_ranks; i++)
        if (j->ranks[i].last_count)
            j->stragglers[j->n_stragglers++] = i;
    sorting_job = j;
    qsort(j->stragglers, j->n_stragglers, sizeof *j->stragglers, by_lateness);
    free(numbers);
    free(keys);
}

static void free_job(job *j)
{
    for (size_t i = 0; i < j->n_ranks; i++) {
        job_rank *r = &j->ranks[i];
        free(r->step_ns);
        free(r->utilization);
        free(r->step_start_utc);
        free(r->collectives);
        for (size_t k = 0; k < r->n_collective_names; k++)
            free(r->collective_names[k]);
        free(r->collective_names);
    }
    free(j->ranks);
    free(j->stragglers);
}

/* ---- The command -------------------------------------------------------- */

static bool parse_count(const char *text, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* What a run asks for: the reports' figures folded here (local), or one
 * report's window or partial for a driver elsewhere, or partials folded. */
typedef enum ranks_mode {
    MODE_LOCAL, MODE_WINDOW_OF, MODE_PLAN, MODE_PARTIAL, MODE_FROM_PARTIALS, MODE_LIST_REPORTS
} ranks_mode;

typedef struct ranks_args {
    ranks_mode mode;
    const char *step, *heatmaps, *trace;
    bool no_convert;             /* --no-convert */
    char list_end;               /* after each path of --list-reports: '\n', or '\0' (--null) */
    bool open;                   /* --open: the overview in the Perfetto UI */
    ranks_format format;
    long bins, threads;
    int64_t window_start, window_end; /* --window (partials) */
    int64_t clock_base;          /* --clock-base (partials) */
    nsysp_step_rule step_rule;   /* --step-rule (partials): how the job chose --step */
    char **inputs;
    size_t n_inputs;
} ranks_args;

/* START:END, UTC ns within 0 .. 2^62 (times as the converter reads them). */
static bool parse_window(const char *text, int64_t *start, int64_t *end)
{
    char *sep;
    errno = 0;
    long long a = strtoll(text, &sep, 10);
    if (sep == text || *sep != ':' || errno || a < 0 || a > NSYSP_MAX_TIME_NS)
        return false;
    char *rest;
    long long b = strtoll(sep + 1, &rest, 10);
    if (rest == sep + 1 || *rest || errno || b < a || b > NSYSP_MAX_TIME_NS)
        return false;
    *start = a;
    *end = b;
    return true;
}

/* --step-rule's words, by nsysp_step_rule (as diff's JSON names rules). */
static const char *const STEP_RULE_WORDS[] = {NULL, "given", "profiler-step", "most-repeated"};

/* Options anywhere; the other words (after "--": all) are reports. 0, 1
 * after --help, or an exit status. */
static int parse_args(int argc, char **argv, ranks_args *a)
{
    a->format = RANKS_TABLE;
    a->list_end = '\n';
    a->bins = DEFAULT_BINS;
    a->step_rule = NSYSP_STEP_GIVEN;
    a->threads = nsysp_default_threads();
    a->inputs = xcalloc((size_t)argc, sizeof *a->inputs);
    bool options_end = false, has_window = false;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (options_end || opt[0] != '-' || !opt[1]) {
            a->inputs[a->n_inputs++] = argv[i];
            continue;
        }
        if (strcmp(opt, "--") == 0) {
            options_end = true;
        } else if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            ranks_usage(stdout);
            return 1;
        } else if (strcmp(opt, "--window-of") == 0) {
            a->mode = MODE_WINDOW_OF;
        } else if (strcmp(opt, "--partial") == 0) {
            a->mode = MODE_PARTIAL;
        } else if (strcmp(opt, "--from-partials") == 0) {
            a->mode = MODE_FROM_PARTIALS;
        } else if (strcmp(opt, "--list-reports") == 0) {
            a->mode = MODE_LIST_REPORTS;
        } else if (strcmp(opt, "--null") == 0) {
            a->list_end = '\0';
        } else if (strcmp(opt, "--plan") == 0) {
            a->mode = MODE_PLAN;
        } else if (strcmp(opt, "--no-convert") == 0) {
            a->no_convert = true;
        } else if (strcmp(opt, "--open") == 0) {
            a->open = true;
        } else if (i + 1 >= argc) {
            return usage_error("option needs a value", opt);
        } else {
            const char *value = argv[++i];
            if (strcmp(opt, "--step") == 0) {
                a->step = value;
            } else if (strcmp(opt, "--heatmaps") == 0) {
                a->heatmaps = value;
            } else if (strcmp(opt, "--trace") == 0) {
                a->trace = value;
            } else if (strcmp(opt, "--format") == 0) {
                static const char *const NAMES[] = {"table", "md", "csv", "json"};
                size_t f = 0;
                while (f < 4 && strcmp(value, NAMES[f]) != 0)
                    f++;
                if (f == 4)
                    return usage_error("--format: expected table, md, csv or json", value);
                a->format = (ranks_format)f;
            } else if (strcmp(opt, "--bins") == 0) {
                if (!parse_count(value, 1, 100000, &a->bins))
                    return usage_error("--bins: expected 1-100000", value);
            } else if (strcmp(opt, "--threads") == 0) {
                if (!parse_count(value, 1, 64, &a->threads))
                    return usage_error("--threads: expected 1-64", value);
            } else if (strcmp(opt, "--window") == 0) {
                if (!parse_window(value, &a->window_start, &a->window_end))
                    return usage_error("--window: expected START:END (UTC ns)", value);
                has_window = true;
            } else if (strcmp(opt, "--clock-base") == 0) {
                long long base;
                char *end;
                errno = 0;
                base = strtoll(value, &end, 10);
                if (!*value || *end || errno || base < 0 || base > NSYSP_MAX_TIME_NS)
                    return usage_error("--clock-base: expected UTC ns (0 to 2^62)", value);
                a->clock_base = base;
            } else if (strcmp(opt, "--step-rule") == 0) {
                size_t rule = 0;
                while (rule < LENGTH(STEP_RULE_WORDS) &&
                       (!STEP_RULE_WORDS[rule] || strcmp(value, STEP_RULE_WORDS[rule]) != 0))
                    rule++;
                if (rule == LENGTH(STEP_RULE_WORDS))
                    return usage_error("--step-rule: expected given, profiler-step or "
                                       "most-repeated", value);
                a->step_rule = (nsysp_step_rule)rule;
            } else {
                return usage_error("unknown option", opt);
            }
        }
    }
    if (!a->n_inputs)
        return usage_error("no reports given (a directory, or reports)", NULL);
    if (a->open && (!a->trace || a->mode == MODE_WINDOW_OF || a->mode == MODE_PARTIAL))
        return usage_error("--open needs --trace OUT", NULL);
    if ((a->mode == MODE_WINDOW_OF || a->mode == MODE_PARTIAL) && a->n_inputs != 1)
        return usage_error("--window-of and --partial take one report", NULL);
    if (a->mode == MODE_PARTIAL && !has_window)
        return usage_error("--partial needs --window START:END (the job's)", NULL);
    return 0;
}

/* ---- Outputs never replace inputs --------------------------------------- */

static const char *const HEATMAP_KINDS[] = {"utilization", "steps"};

/* PREFIX-KIND.svg into out; false when it does not fit (a cut name would
 * write somewhere else than asked). */
static bool heatmap_path(const char *prefix, size_t kind, char *out, size_t size)
{
    int n = snprintf(out, size, "%s-%s.svg", prefix, HEATMAP_KINDS[kind]);
    return n >= 0 && (size_t)n < size;
}

/* A file the command reads or writes. Roles in the order a clash names
 * them: what would be lost first, then what would write over it. */
typedef enum file_role { ROLE_INPUT, ROLE_BESIDE, ROLE_OUTPUT } file_role;

typedef struct planned_file {
    file_id id;
    char *path;
    file_role role;
    const char *report;          /* a full trace's report */
} planned_file;

static int by_identity(const void *a, const void *b)
{
    const planned_file *x = a, *y = b;
    int c = file_id_compare(&x->id, &y->id);
    return c ? c : (x->role > y->role) - (x->role < y->role);
}

static void plan(planned_file *files, size_t *n, const char *path, file_role role,
                 const char *report)
{
    planned_file *f = &files[*n];
    f->path = xstrdup(path);
    f->role = role;
    f->report = report;
    /* An input that is not there is the reading's to report; an output
     * with nowhere to go, the writing's. */
    if (file_id_of(f->path, &f->id) && (role != ROLE_INPUT || !f->id.name[0]))
        (*n)++;
    else
        free(f->path);
}

/* One line and NSYSP_ERR_OUTPUT when two of the files sorted are one; a
 * report given twice, and so its trace beside it, is report_dir's to say. */
static int find_clash(const planned_file *files, size_t n)
{
    for (size_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && file_id_compare(&files[i].id, &files[end].id) == 0; end++)
            ;
        const planned_file *lost = &files[i], *writer = &files[end - 1];
        if (end - i < 2 || (writer->role == lost->role && lost->role != ROLE_OUTPUT))
            continue;
        if (lost->role == ROLE_INPUT)
            text_printf(stderr, "nsys-perfetto ranks: %s: would replace the input %s\n",
                        writer->path, lost->path);
        else if (lost->role == ROLE_BESIDE)
            text_printf(stderr, "nsys-perfetto ranks: %s: would replace the full trace of %s "
                                "written beside it\n", writer->path, lost->report);
        else
            text_printf(stderr, "nsys-perfetto ranks: %s: the same file as %s, another "
                                "output\n", writer->path, lost->path);
        return NSYSP_ERR_OUTPUT;
    }
    return NSYSP_OK;
}

/* Before anything is written: no output (the overview trace, the heatmaps,
 * standard output, the full traces converted beside the reports) is an
 * input or another output, however it is named (file_id.h), and no output
 * name is cut short. */
static int check_outputs(const reader *r, const ranks_args *a)
{
    bool beside = a->mode == MODE_LOCAL && r->convert_each;
    planned_file *files = xcalloc(r->n_paths * (beside ? 2 : 1) + 4, sizeof *files);
    size_t n = 0;
    int status = NSYSP_OK;
    for (size_t i = 0; i < r->n_paths; i++) {
        plan(files, &n, r->paths[i], ROLE_INPUT, NULL);
        char trace[4096];
        if (beside && nsysp_default_output_path(r->paths[i], trace, sizeof trace) == 0)
            plan(files, &n, trace, ROLE_BESIDE, r->paths[i]);
    }
    bool writes_files = a->mode == MODE_LOCAL || a->mode == MODE_FROM_PARTIALS;
    if (writes_files && a->trace)
        plan(files, &n, a->trace, ROLE_OUTPUT, NULL);
    for (size_t k = 0; writes_files && a->heatmaps && k < 2 && status == NSYSP_OK; k++) {
        char path[4096];
        if (heatmap_path(a->heatmaps, k, path, sizeof path)) {
            plan(files, &n, path, ROLE_OUTPUT, NULL);
        } else {
            text_printf(stderr, "nsys-perfetto ranks: --heatmaps: a PREFIX of %zu bytes is too "
                                "long for a file name\n", strlen(a->heatmaps));
            status = NSYSP_ERR_OUTPUT;
        }
    }
    file_id out;
    if (file_id_of_fd(STDOUT_FILENO, &out)) {
        files[n] = (planned_file){.id = out, .path = xstrdup("standard output"),
                                  .role = ROLE_OUTPUT};
        n++;
    }
    qsort(files, n, sizeof *files, by_identity);
    if (status == NSYSP_OK)
        status = find_clash(files, n);
    for (size_t i = 0; i < n; i++)
        free(files[i].path);
    free(files);
    return status;
}

/* The job's outputs from the ranks read. */
static int report_job(reader *r, const ranks_args *a)
{
    if (!r->n_ranks) {
        fputs("nsys-perfetto ranks: no process ran GPU work in these reports\n", stderr);
        return NSYSP_ERR_NOT_NSYS;
    }
    job j = {.window_start_utc = r->window_start, .window_end_utc = r->window_end,
             .n_bins = r->n_bins};
    build_job(r, &j);
    r->n_ranks = 0; /* their arrays now belong to the job */
    ranks_print(stdout, &j, a->format);
    int status = NSYSP_OK;
    for (size_t k = 0; a->heatmaps && k < 2 && status == NSYSP_OK; k++) {
        char path[4096];
        heatmap_path(a->heatmaps, k, path, sizeof path); /* fits: check_outputs */
        FILE *f = fopen(path, "w");
        if (f) {
            heatmap_drawn drawn = (k ? ranks_heatmap_steps : ranks_heatmap_utilization)(f, &j);
            if (fclose(f) == 0) {
                text_printf(stderr, "nsys-perfetto ranks: wrote %s", path);
                if (drawn.columns < drawn.values)
                    fprintf(stderr, " (%zu %s drawn in %zu columns, each their mean: the "
                                    "picture stays a few MB)",
                            drawn.values, k ? "steps" : "bins", drawn.columns);
                fputc('\n', stderr);
                continue;
            }
        }
        text_printf(stderr, "nsys-perfetto ranks: %s: cannot write: %s\n", path,
                    strerror(errno));
        status = NSYSP_ERR_OUTPUT;
    }
    if (a->trace && status == NSYSP_OK)
        status = ranks_write_trace(a->trace, &j);
    if (a->open && status == NSYSP_OK)
        status = ranks_open_trace(a->trace, &j, r->cancel);
    free_job(&j);
    return status;
}

static void free_reader(reader *r)
{
    for (size_t k = 0; k < r->n_ranks; k++)
        free_read_rank(&r->ranks[k]);
    free(r->ranks);
    free(r->collectives.at);
    free(r->steps.at);
    for (size_t i = 0; r->exports && i < r->n_paths; i++)
        if (r->exports[i].sqlite) {
            remove_export(r->exports[i].sqlite, r->exports[i].tmpdir);
            free(r->exports[i].sqlite);
            free(r->exports[i].tmpdir);
        }
    free(r->exports);
    free(r->surveys);
    free_reports(r->paths, r->n_paths);
}

static void allocate_reports(reader *r)
{
    r->surveys = xcalloc(r->n_paths, sizeof *r->surveys);
    r->exports = xcalloc(r->n_paths, sizeof *r->exports);
}

/* Every report read here: their windows, then their figures. */
static int run_local(reader *r, const ranks_args *a)
{
    r->phase_windows = true;
    int status = read_all(r, (int)a->threads);
    if (status != NSYSP_OK)
        return status;
    make_plan(r);
    r->phase_windows = false;
    status = read_all(r, (int)a->threads);
    return status == NSYSP_OK ? report_job(r, a) : status;
}

/* The reports a run would read, one a line (or NUL-terminated): a driver
 * elsewhere lists a directory as a local run does. */
static int print_reports(const reader *r, char end)
{
    for (size_t i = 0; i < r->n_paths; i++) {
        fputs(r->paths[i], stdout);
        putchar(end);
    }
    return fflush(stdout) != 0 || ferror(stdout) ? NSYSP_ERR_OUTPUT : NSYSP_OK;
}

/* One report for a driver: its window, or its partial on stdout. */
static int run_one(reader *r, const ranks_args *a)
{
    r->n_paths = 1;
    if (a->mode == MODE_WINDOW_OF) {
        r->phase_windows = true;
        read_report(r, 0);
        /* A failed write shows in stdout's error flag, which main checks. */
        if (r->status == NSYSP_OK)
            (void)ranks_survey_write(stdout, r->paths[0], &r->surveys[0]);
        return r->status;
    }
    const char *path = readable_path(r, 0);
    if (!path)
        return r->status;
    nsysp_ranks got;
    nsysp_ranks_job plan = {.step_range = a->step, .step_rule = a->step_rule,
                           .window_start_utc = a->window_start, .window_end_utc = a->window_end,
                           .n_bins = (size_t)a->bins, .unknown_clock_utc = a->clock_base};
    int status = nsysp_measure_ranks_in_job(path, &plan, &got);
    if (status != NSYSP_OK) {
        text_printf(stderr, "nsys-perfetto ranks: %s\n", got.message);
        return status;
    }
    /* A failed write shows in stdout's error flag, which main checks. */
    (void)ranks_partial_write(stdout, r->paths[0], a->window_start, a->window_end,
                              (size_t)a->bins, &got);
    nsysp_ranks_free(&got);
    return status;
}

/* The job's plan from the reports' surveys (ranks --window-of's, in the
 * reports' order), as run_local makes it: the options of each report's
 * `ranks --partial`, one a line. */
static int run_plan(reader *r)
{
    for (size_t i = 0; i < r->n_paths; i++) {
        char err[512], *report;
        if (ranks_survey_read(r->paths[i], &report, &r->surveys[i], err, sizeof err) != 0) {
            text_printf(stderr, "nsys-perfetto ranks: %s\n", err);
            return NSYSP_ERR_INPUT_FORMAT;
        }
        free(r->paths[i]);
        r->paths[i] = report; /* named as a local run names it */
    }
    make_plan(r);
    printf("--window\n%lld:%lld\n--clock-base\n%lld\n--step\n%s\n--step-rule\n%s\n",
           (long long)r->window_start, (long long)r->window_end,
           (long long)r->plan.unknown_clock_utc, r->plan.step,
           STEP_RULE_WORDS[r->plan.step_rule] ? STEP_RULE_WORDS[r->plan.step_rule] : "given");
    return fflush(stdout) || ferror(stdout) ? NSYSP_ERR_OUTPUT : NSYSP_OK;
}

/* Partials folded in the order given, as run_local folds the reports. */
static int run_from_partials(reader *r, const ranks_args *a)
{
    for (size_t i = 0; i < r->n_paths; i++) {
        ranks_partial p;
        char err[512];
        if (ranks_partial_read(r->paths[i], &p, err, sizeof err) != 0) {
            text_printf(stderr, "nsys-perfetto ranks: %s\n", err);
            return NSYSP_ERR_INPUT_FORMAT;
        }
        const char *unlike = NULL;
        if (i == 0) {
            r->window_start = p.window_start;
            r->window_end = p.window_end;
            r->n_bins = p.n_bins;
            snprintf(r->plan.step, sizeof r->plan.step, "%s", p.ranks.step_name);
            r->plan.step_rule = p.ranks.step_rule;
        } else if (p.window_start != r->window_start || p.window_end != r->window_end ||
                   p.n_bins != r->n_bins) {
            unlike = "window than the first partial's (every report of a job needs the job's "
                     "window)";
        } else if (p.ranks.step_rule != r->plan.step_rule ||
                   strcmp(p.ranks.step_name, r->plan.step) != 0) {
            unlike = "step than the first partial's (every report of a job is measured on the "
                     "job's step: ranks --plan)";
        }
        if (unlike) {
            text_printf(stderr, "nsys-perfetto ranks: %s: another %s\n", r->paths[i], unlike);
            ranks_partial_free(&p);
            return NSYSP_ERR_INPUT_FORMAT;
        }
        free(r->paths[i]);
        r->paths[i] = p.report; /* the report's name, as a local run shows it */
        p.report = NULL;
        keep_report(r, i, &p.ranks);
        ranks_partial_free(&p);
    }
    (void)a;
    return report_job(r, a);
}

int ranks_main(int argc, char **argv, volatile sig_atomic_t *interrupted)
{
    ranks_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status != 0) {
        free(a.inputs);
        return status == 1 ? 0 : status;
    }
    nsysp_summary_set_cancel(interrupted);
    reader r = {.step = a.step, .n_bins = (size_t)a.bins, .cancel = interrupted,
                .lock = PTHREAD_MUTEX_INITIALIZER, .keep_events = a.trace != NULL,
                .convert_each = a.trace != NULL && !a.no_convert};
    if (a.mode == MODE_LOCAL || a.mode == MODE_LIST_REPORTS) {
        status = expand_reports("nsys-perfetto ranks", a.inputs, a.n_inputs, &r.paths,
                                &r.n_paths);
    } else {
        r.paths = xcalloc(a.n_inputs, sizeof *r.paths);
        for (size_t i = 0; i < a.n_inputs; i++)
            r.paths[r.n_paths++] = xstrdup(a.inputs[i]);
    }
    free(a.inputs);
    if (status == NSYSP_OK && r.n_paths > MAX_INPUTS)
        status = usage_error("too many reports", NULL);
    if (status == NSYSP_OK && a.mode != MODE_LIST_REPORTS)
        status = check_outputs(&r, &a);
    if (status == NSYSP_OK && a.mode == MODE_LIST_REPORTS) {
        status = print_reports(&r, a.list_end);
    } else if (status == NSYSP_OK) {
        allocate_reports(&r);
        status = a.mode == MODE_LOCAL           ? run_local(&r, &a)
                 : a.mode == MODE_FROM_PARTIALS ? run_from_partials(&r, &a)
                 : a.mode == MODE_PLAN          ? run_plan(&r)
                                                : run_one(&r, &a);
    }
    free_reader(&r);
    return status;
}
