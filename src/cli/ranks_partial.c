/* A report's ranks as text, for ranks spread over machines (tools/ranks_dask.py):
 * a worker measures its report (ranks --partial) and the driver folds the
 * partials (ranks --from-partials) through the same code as a local run, so
 * the answers are the same. Lossless: integers as they are, utilization with
 * 17 significant digits. One item per line:
 *
 *   nsys-perfetto-ranks-partial 1
 *   report PATH
 *   window START END BINS
 *   session START_UTC NS
 *   step RULE NAME
 *   names N            then N lines "name TEXT"
 *   ranks N            then per rank: "rank PID DEVICE MPI START END BUSY COMPUTE COMM
 *                      MEMORY EXPOSED STEPS BINS COLLECTIVES", "steps S D ...",
 *                      "bins U ...", "coll NAME_INDEX START END ..."
 *   end
 *
 * A survey (ranks --window-of), the report's part of the job's first pass:
 *
 *   START END          its window in UTC (a report without a UTC session start from 0)
 *   report PATH
 *   survey SPAN_START SPAN_END UTC_KNOWN SESSION_START_UTC STEP_RULE STEPS
 *   step NAME          its own step as found ("" none) */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks_partial.h"
#include "common/xalloc.h"

#define MAGIC "nsys-perfetto-ranks-partial 1"

/* A line's text with line ends made blanks (names and paths are one line). */
static void put_line(FILE *to, const char *key, const char *text)
{
    fprintf(to, "%s ", key);
    for (const char *p = text; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, to);
    fputc('\n', to);
}

int ranks_partial_write(FILE *to, const char *report, int64_t window_start, int64_t window_end,
                        size_t n_bins, const nsysp_ranks *r)
{
    fprintf(to, MAGIC "\n");
    put_line(to, "report", report);
    fprintf(to, "window %" PRId64 " %" PRId64 " %zu\n", window_start, window_end, n_bins);
    fprintf(to, "session %" PRId64 " %" PRId64 "\n", r->session_start_utc, r->session_ns);
    fprintf(to, "step %d", (int)r->step_rule);
    put_line(to, "", r->step_name);
    fprintf(to, "names %zu\n", r->n_names);
    for (size_t i = 0; i < r->n_names; i++)
        put_line(to, "name", r->names[i]);
    fprintf(to, "ranks %zu\n", r->n_ranks);
    for (size_t i = 0; i < r->n_ranks; i++) {
        const nsysp_rank *k = &r->ranks[i];
        fprintf(to, "rank %d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                    " %" PRId64 " %" PRId64 " %" PRId64 " %zu %zu %zu\n",
                (int)k->pid, k->device, k->mpi_rank, k->start_utc, k->end_utc, k->busy_ns,
                k->compute_ns, k->comm_ns, k->memory_ns, k->exposed_comm_ns, k->n_steps,
                k->n_bins, k->n_collectives);
        fputs("steps", to);
        for (size_t s = 0; s < k->n_steps; s++)
            fprintf(to, " %" PRId64 " %" PRId64, k->step_start_utc[s], k->step_ns[s]);
        fputs("\nbins", to);
        for (size_t b = 0; b < k->n_bins; b++)
            fprintf(to, " %.17g", k->utilization[b]);
        fputs("\ncoll", to);
        for (size_t c = 0; c < k->n_collectives; c++) {
            size_t name = 0;
            while (name < r->n_names && r->names[name] != k->collectives[c].name)
                name++;
            fprintf(to, " %zu %" PRId64 " %" PRId64, name, k->collectives[c].start_utc,
                    k->collectives[c].end_utc);
        }
        fputc('\n', to);
    }
    fputs("end\n", to);
    return ferror(to) ? -1 : 0;
}

/* ---- Reading ------------------------------------------------------------ */

typedef struct line_reader {
    FILE *from;
    char *line;
    size_t cap;
    const char *at;              /* the rest of the line */
    bool bad;
} line_reader;

/* The next line, which must start with key and a blank; its rest in at. */
static bool next_line(line_reader *l, const char *key)
{
    ssize_t n = getline(&l->line, &l->cap, l->from);
    size_t k = strlen(key);
    if (n <= 0 || strncmp(l->line, key, k) != 0 ||
        (l->line[k] != ' ' && l->line[k] != '\n' && l->line[k] != '\0')) {
        l->bad = true;
        return false;
    }
    l->line[strcspn(l->line, "\n")] = '\0';
    l->at = l->line + k + (l->line[k] == ' ');
    return true;
}

static int64_t read_int(line_reader *l)
{
    char *end;
    errno = 0;
    long long v = strtoll(l->at, &end, 10);
    if (end == l->at || errno)
        l->bad = true;
    l->at = end;
    return (int64_t)v;
}

static size_t read_count(line_reader *l, size_t most)
{
    int64_t v = read_int(l);
    if (v < 0 || (uint64_t)v > most) {
        l->bad = true;
        return 0;
    }
    return (size_t)v;
}

static double read_double(line_reader *l)
{
    char *end;
    double v = strtod(l->at, &end);
    if (end == l->at)
        l->bad = true;
    l->at = end;
    return v;
}

enum { MOST_BINS = 100000 }; /* as ranks --bins */

/* A time in ns as the converter reads them, -2^62 .. 2^62 (a report
 * without a UTC session start keeps its times before 0): the difference of
 * two fits in 64 bits. */
static int64_t read_time(line_reader *l)
{
    int64_t v = read_int(l);
    if (v < -NSYSP_MAX_TIME_NS || v > NSYSP_MAX_TIME_NS)
        l->bad = true;
    return v;
}

/* A length in ns: 0 .. 2^62. */
static int64_t read_length(line_reader *l)
{
    int64_t v = read_time(l);
    if (v < 0)
        l->bad = true;
    return v;
}

/* Whether a line can hold n items of `per` numbers each (a number and its
 * blank take two bytes at least): counts are checked against the bytes
 * read, never trusted to size an allocation. */
static bool line_holds(const line_reader *l, size_t n, size_t per)
{
    return n <= strlen(l->at) / (2 * per) + 1;
}

static void read_rank(line_reader *l, nsysp_ranks *r, nsysp_rank *k, size_t window_bins)
{
    if (!next_line(l, "rank"))
        return;
    k->pid = (int32_t)read_int(l);
    k->device = read_int(l);
    k->mpi_rank = read_int(l);
    k->start_utc = read_time(l);
    k->end_utc = read_time(l);
    k->busy_ns = read_length(l);
    k->compute_ns = read_length(l);
    k->comm_ns = read_length(l);
    k->memory_ns = read_length(l);
    k->exposed_comm_ns = read_length(l);
    size_t steps = read_count(l, SIZE_MAX), bins = read_count(l, SIZE_MAX);
    size_t collectives = read_count(l, SIZE_MAX);
    if (bins != window_bins)
        l->bad = true; /* every rank is binned over the job's window */
    if (l->bad || !next_line(l, "steps") || !line_holds(l, steps, 2))
        return l->bad = true, (void)0;
    k->step_start_utc = xcalloc(steps, sizeof *k->step_start_utc);
    k->step_ns = xcalloc(steps, sizeof *k->step_ns);
    k->n_steps = steps;
    for (size_t s = 0; s < steps && !l->bad; s++) {
        k->step_start_utc[s] = read_time(l);
        k->step_ns[s] = read_length(l);
        if (k->step_start_utc[s] > NSYSP_MAX_TIME_NS - k->step_ns[s])
            l->bad = true; /* a step ends on the clock too */
    }
    if (l->bad || !next_line(l, "bins") || !line_holds(l, bins, 1))
        return l->bad = true, (void)0;
    k->utilization = xcalloc(bins, sizeof *k->utilization);
    k->n_bins = bins;
    for (size_t b = 0; b < bins && !l->bad; b++) {
        double u = read_double(l);
        if (!(u >= 0 && u <= 1)) /* NaN too */
            l->bad = true;
        k->utilization[b] = u;
    }
    if (l->bad || !next_line(l, "coll") || !line_holds(l, collectives, 3))
        return l->bad = true, (void)0;
    k->collectives = xcalloc(collectives, sizeof *k->collectives);
    k->n_collectives = collectives;
    for (size_t c = 0; c < collectives && !l->bad; c++) {
        size_t name = read_count(l, r->n_names ? r->n_names - 1 : 0);
        int64_t start = read_time(l), end = read_time(l);
        k->collectives[c] = (nsysp_collective){r->n_names ? r->names[name] : "", start, end};
    }
}

int ranks_partial_read(const char *path, ranks_partial *p, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    FILE *from = fopen(path, "r");
    if (!from) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    line_reader l = {.from = from};
    nsysp_ranks *r = &p->ranks;
    if (next_line(&l, "nsys-perfetto-ranks-partial") && strcmp(l.at, "1") == 0 &&
        next_line(&l, "report")) {
        p->report = xstrdup(l.at);
        if (next_line(&l, "window")) {
            p->window_start = read_time(&l);
            p->window_end = read_time(&l);
            p->n_bins = read_count(&l, MOST_BINS);
        }
        if (next_line(&l, "session")) {
            r->session_start_utc = read_int(&l);
            r->session_ns = read_int(&l);
        }
        if (next_line(&l, "step")) {
            r->step_rule = (nsysp_step_rule)read_count(&l, NSYSP_STEP_REPEATED);
            snprintf(r->step_name, sizeof r->step_name, "%s", *l.at == ' ' ? l.at + 1 : l.at);
        }
        /* Lists grow as their lines are read: a count is a promise to
         * check, not a size to allocate. */
        size_t cap = 0;
        size_t names = next_line(&l, "names") ? read_count(&l, SIZE_MAX) : 0;
        while (!l.bad && r->n_names < names && next_line(&l, "name")) {
            r->names = xgrow(r->names, &cap, r->n_names + 1, sizeof *r->names);
            r->names[r->n_names++] = xstrdup(l.at);
        }
        cap = 0;
        size_t ranks = !l.bad && next_line(&l, "ranks") ? read_count(&l, SIZE_MAX) : 0;
        while (!l.bad && r->n_ranks < ranks) {
            r->ranks = xgrow(r->ranks, &cap, r->n_ranks + 1, sizeof *r->ranks);
            memset(&r->ranks[r->n_ranks], 0, sizeof *r->ranks);
            read_rank(&l, r, &r->ranks[r->n_ranks++], p->n_bins);
        }
        /* Empty when no report ran GPU work: the fold then says so. */
        if (!l.bad && p->window_start > p->window_end)
            l.bad = true;
        next_line(&l, "end");
    } else {
        l.bad = true;
    }
    free(l.line);
    fclose(from);
    for (size_t i = 0; i < r->n_names && !l.bad; i++)
        l.bad = !r->names[i];
    if (l.bad || !p->report) {
        snprintf(err, err_size, "%s: not a partial of nsys-perfetto ranks (or cut short)", path);
        ranks_partial_free(p);
        return -1;
    }
    return 0;
}

int ranks_survey_write(FILE *to, const char *report, const nsysp_ranks_survey *s)
{
    fprintf(to, "%" PRId64 " %" PRId64 "\n", s->start + s->session_start_utc,
            s->end + s->session_start_utc);
    put_line(to, "report", report);
    fprintf(to, "survey %" PRId64 " %" PRId64 " %d %" PRId64 " %d %zu\n", s->start, s->end,
            s->utc_known ? 1 : 0, s->session_start_utc, (int)s->step_rule, s->n_steps);
    put_line(to, "step", s->step_name);
    return ferror(to) ? -1 : 0;
}

int ranks_survey_read(const char *path, char **report, nsysp_ranks_survey *s, char *err,
                      size_t err_size)
{
    memset(s, 0, sizeof *s);
    *report = NULL;
    FILE *from = fopen(path, "r");
    if (!from) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    line_reader l = {.from = from};
    char *first = NULL;
    size_t cap = 0;
    l.bad = getline(&first, &cap, from) <= 0; /* the UTC window, for people */
    free(first);
    if (!l.bad && next_line(&l, "report"))
        *report = xstrdup(l.at);
    if (!l.bad && next_line(&l, "survey")) {
        s->start = read_int(&l);
        s->end = read_int(&l);
        s->utc_known = (int)read_count(&l, 1);
        s->session_start_utc = read_time(&l);
        s->step_rule = (nsysp_step_rule)read_count(&l, NSYSP_STEP_REPEATED);
        s->n_steps = read_count(&l, SIZE_MAX);
        if (s->start < -NSYSP_MAX_TIME_NS || s->end > NSYSP_MAX_TIME_NS || s->start > s->end)
            l.bad = true;
    }
    if (!l.bad && next_line(&l, "step"))
        snprintf(s->step_name, sizeof s->step_name, "%s", l.at);
    free(l.line);
    fclose(from);
    if (l.bad || !*report) {
        snprintf(err, err_size, "%s: not a survey of nsys-perfetto ranks --window-of (or cut "
                                "short)", path);
        free(*report);
        *report = NULL;
        return -1;
    }
    return 0;
}

void ranks_partial_free(ranks_partial *p)
{
    free(p->report);
    nsysp_ranks_free(&p->ranks);
    memset(p, 0, sizeof *p);
}
