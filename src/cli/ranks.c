#include "ranks.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "common/xalloc.h"
#include "tool/nsys_export.h"
#include "ranks_partial.h"
#include "tool/report_dir.h"
#include "tool/text_out.h"

enum { MAX_INPUTS = 1 << 20, DEFAULT_BINS = 100 };

const char *rank_rule_text(rank_rule rule)
{
    switch (rule) {
    case RANK_BY_MPI:
        return "MPI (MPI_RANKS of every process)";
    case RANK_BY_FILE_NAME:
        return "file name (a rank number in every report's name)";
    default:
        return "order (the reports' order, then device and pid within a report)";
    }
}

static void ranks_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto ranks [OPTIONS] DIR|REPORT...\n"
          "The reports of one distributed job (one per rank, or several ranks in one):\n"
          "per rank its GPU busy and idle time, compute, communication (NCCL kernels),\n"
          "memory, the communication compute does not hide, and step time p50/p90/max;\n"
          "then the stragglers: at each collective matched across ranks (the k-th NCCL\n"
          "kernel of every rank), who arrived last and by how much, most late first.\n"
          "A rank is each process that ran GPU work, numbered from MPI_RANKS, else from\n"
          "the reports' names (rank3, report.3.sqlite), else from their order.\n"
          "\n"
          "Options:\n"
          "      --step NAME       the NVTX range that is one step (default: found as\n"
          "                        diff finds it: ProfilerStep#N, else the most repeated\n"
          "                        top-level range that is not an op)\n"
          "      --format F        table (default), md, csv, json\n"
          "      --heatmaps PREFIX write PREFIX-utilization.svg (rank x time GPU\n"
          "                        utilization) and PREFIX-steps.svg (rank x step time)\n"
          "      --bins N          time bins of the utilization heatmap and trace\n"
          "                        (default 100)\n"
          "      --trace OUT       an overview trace: per rank its GPU utilization\n"
          "                        (binned), steps and collectives; and each report's\n"
          "                        full trace beside it\n"
          "      --no-convert      with --trace: the overview only\n"
          "      --open            with --trace: serve the overview to the Perfetto UI as\n"
          "                        --open does, stragglers noted and pinned\n"
          "      --threads N       reports read at once (default: the CPUs)\n"
          "For reports on many machines (tools/ranks_dask.py drives these):\n"
          "      --window-of REPORT   print the report's window: START END (UTC ns)\n"
          "      --partial --window START:END REPORT\n"
          "                        print the report's ranks over the job's window\n"
          "      --from-partials PART...  fold partials (in the reports' order) as a\n"
          "                        local run folds the reports\n"
          "  -h, --help            show this help\n"
          "Exit status: 0 done, 2 bad command line, 3-5 a report cannot be read, 7\n"
          "interrupted.\n",
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
    char step_name[256];
    nsysp_step_rule step_rule;
    bool phase_windows;          /* reading windows, not figures */
    int64_t *starts, *ends;      /* the reports' windows */
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
    if (nsysp_convert(sqlite, &opt, &res) != NSYSP_OK)
        fail(r, NSYSP_ERR_OUTPUT, res.message);
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
    char why[512];
    if (!path)
        return;
    if (r->phase_windows) {
        int status = nsysp_ranks_window(path, &r->starts[i], &r->ends[i], why);
        if (status != NSYSP_OK)
            fail(r, status, why);
    } else {
        nsysp_ranks got;
        int status = nsysp_measure_ranks(path, r->step, r->window_start, r->window_end,
                                         r->n_bins, &got);
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
                jr->late_total_ns += late;
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

static void build_job(reader *r, job *j)
{
    qsort(r->ranks, r->n_ranks, sizeof *r->ranks, by_key);
    long *numbers = xcalloc(r->n_ranks, sizeof *numbers);
    uint64_t *keys = xcalloc(r->n_ranks, sizeof *keys);
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
    }
    bool collectives = r->collectives.n > 0;
    j->matched_what = collectives ? "collectives" : "steps";
    blame_latest(j, collectives ? &r->collectives : &r->steps, keys);
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

static int list_inputs(char **args, size_t n_args, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < n_args; i++) {
        char **found = NULL;
        size_t n_found = 0;
        if (is_directory(args[i])) {
            if (list_reports(args[i], &found, &n_found) != 0 || !n_found) {
                text_printf(stderr, "nsys-perfetto ranks: %s: %s\n", args[i],
                            found ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                  : strerror(errno));
                free_reports(found, found ? n_found : 0);
                return NSYSP_ERR_INPUT_OPEN;
            }
        } else {
            found = xcalloc(1, sizeof *found);
            found[0] = xstrdup(args[i]);
            n_found = 1;
        }
        for (size_t k = 0; k < n_found; k++) {
            *paths = xgrow(*paths, &cap, *n + 1, sizeof **paths);
            (*paths)[(*n)++] = found[k];
        }
        free(found);
    }
    return NSYSP_OK;
}

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
typedef enum ranks_mode { MODE_LOCAL, MODE_WINDOW_OF, MODE_PARTIAL, MODE_FROM_PARTIALS } ranks_mode;

typedef struct ranks_args {
    ranks_mode mode;
    const char *step, *heatmaps, *trace;
    bool no_convert;             /* --no-convert */
    bool open;                   /* --open: the overview in the Perfetto UI */
    ranks_format format;
    long bins, threads;
    int64_t window_start, window_end; /* --window (partials) */
    char **inputs;
    size_t n_inputs;
} ranks_args;

static bool parse_window(const char *text, int64_t *start, int64_t *end)
{
    char *sep;
    errno = 0;
    long long a = strtoll(text, &sep, 10);
    if (sep == text || *sep != ':' || errno)
        return false;
    char *rest;
    long long b = strtoll(sep + 1, &rest, 10);
    if (rest == sep + 1 || *rest || errno || b < a)
        return false;
    *start = a;
    *end = b;
    return true;
}

/* Options anywhere; the other words (after "--": all) are reports. 0, 1
 * after --help, or an exit status. */
static int parse_args(int argc, char **argv, ranks_args *a)
{
    a->format = RANKS_TABLE;
    a->bins = DEFAULT_BINS;
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
    static const char *const KINDS[] = {"utilization", "steps"};
    for (size_t k = 0; a->heatmaps && k < 2 && status == NSYSP_OK; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s-%s.svg", a->heatmaps, KINDS[k]);
        FILE *f = fopen(path, "w");
        if (f) {
            (k ? ranks_heatmap_steps : ranks_heatmap_utilization)(f, &j);
            if (fclose(f) == 0) {
                text_printf(stderr, "nsys-perfetto ranks: wrote %s\n", path);
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
    for (size_t k = 0; k < r->n_ranks; k++) {
        free(r->ranks[k].figures.step_ns);
        free(r->ranks[k].figures.utilization);
        free(r->ranks[k].figures.step_start_utc);
        free(r->ranks[k].figures.collectives);
        for (size_t n = 0; n < r->ranks[k].n_names; n++)
            free(r->ranks[k].names[n]);
        free(r->ranks[k].names);
    }
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
    free(r->starts);
    free(r->ends);
    free_reports(r->paths, r->n_paths);
}

static void allocate_reports(reader *r)
{
    r->starts = xcalloc(r->n_paths, sizeof *r->starts);
    r->ends = xcalloc(r->n_paths, sizeof *r->ends);
    r->exports = xcalloc(r->n_paths, sizeof *r->exports);
}

/* Every report read here: their windows, then their figures. */
static int run_local(reader *r, const ranks_args *a)
{
    r->phase_windows = true;
    int status = read_all(r, (int)a->threads);
    if (status != NSYSP_OK)
        return status;
    /* The job's window: every report's, on the one clock (UTC). */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t k = 0; k < r->n_paths; k++)
        if (r->starts[k] < r->ends[k]) {
            lo = r->starts[k] < lo ? r->starts[k] : lo;
            hi = r->ends[k] > hi ? r->ends[k] : hi;
        }
    r->window_start = lo < hi ? lo : 0;
    r->window_end = lo < hi ? hi : 0;
    r->phase_windows = false;
    status = read_all(r, (int)a->threads);
    return status == NSYSP_OK ? report_job(r, a) : status;
}

/* One report for a driver: its window, or its partial on stdout. */
static int run_one(reader *r, const ranks_args *a)
{
    r->n_paths = 1;
    if (a->mode == MODE_WINDOW_OF) {
        r->phase_windows = true;
        read_report(r, 0);
        if (r->status == NSYSP_OK)
            printf("%lld %lld\n", (long long)r->starts[0], (long long)r->ends[0]);
        return r->status;
    }
    const char *path = readable_path(r, 0);
    if (!path)
        return r->status;
    nsysp_ranks got;
    int status = nsysp_measure_ranks(path, a->step, a->window_start, a->window_end,
                                     (size_t)a->bins, &got);
    if (status != NSYSP_OK) {
        text_printf(stderr, "nsys-perfetto ranks: %s\n", got.message);
        return status;
    }
    if (ranks_partial_write(stdout, r->paths[0], a->window_start, a->window_end,
                            (size_t)a->bins, &got) != 0 || fflush(stdout) != 0)
        status = NSYSP_ERR_OUTPUT;
    nsysp_ranks_free(&got);
    return status;
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
        if (i == 0) {
            r->window_start = p.window_start;
            r->window_end = p.window_end;
            r->n_bins = p.n_bins;
        } else if (p.window_start != r->window_start || p.window_end != r->window_end ||
                   p.n_bins != r->n_bins) {
            text_printf(stderr, "nsys-perfetto ranks: %s: another window than the first "
                                "partial's (every report of a job needs the job's window)\n",
                        r->paths[i]);
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
    if (a.mode == MODE_LOCAL) {
        status = list_inputs(a.inputs, a.n_inputs, &r.paths, &r.n_paths);
    } else {
        r.paths = xcalloc(a.n_inputs, sizeof *r.paths);
        for (size_t i = 0; i < a.n_inputs; i++)
            r.paths[r.n_paths++] = xstrdup(a.inputs[i]);
    }
    free(a.inputs);
    if (status == NSYSP_OK && r.n_paths > MAX_INPUTS)
        status = usage_error("too many reports", NULL);
    if (status == NSYSP_OK) {
        allocate_reports(&r);
        status = a.mode == MODE_LOCAL           ? run_local(&r, &a)
                 : a.mode == MODE_FROM_PARTIALS ? run_from_partials(&r, &a)
                                                : run_one(&r, &a);
    }
    free_reader(&r);
    return status;
}
