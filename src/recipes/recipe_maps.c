/* The utilization maps: cuda_gpu_time_util_map, and the maps this project
 * answers only without data so far (nccl_, mpi_, ucx_gpu_time_util_map,
 * gpu_metric_util_map, nic_metric_map).
 *
 * cuda_gpu_time_util_map cuts the job's time (from the earliest session
 * start to the latest report's end) into --bins bins and gives, per report,
 * process and GPU, the share of each bin in which a kernel ran (analysis.csv,
 * NVIDIA's analysis.parquet), as nsys 2023.4 computes it: overlapping
 * kernels merged first unless --cumulative; a bin cut by the report's
 * session start or end counted over the part inside it; bins outside the
 * session empty (NaN). A kernel's time is streamed from SQLite, sorted by
 * process, device and start; memory grows with bins, not kernels.
 * heatmap.svg draws the table as the recipe's notebook does.
 *
 * Both binning maps read their reports apart in two rounds: each report's
 * session first (the survey), folded into the job's window (recipe.c),
 * then each report's rows on the job's grid (the map), put one after
 * another in job order (the reduce). A local run is the same steps. */
#include "recipe.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe_svg.h"
#include "common/hmap.h"
#include "common/xalloc.h"

enum { DEFAULT_BINS = 30 };

/* ---- The job's grid --------------------------------------------------- */

/* A report's session: its duration and its start (UTC ns). */
typedef struct session {
    bool known;
    int64_t duration, start;
} session;

static bool read_first(nsys_db *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *stmt = NULL;
    bool ok = sqlite3_prepare_v2(nsys_db_sqlite(db), sql, -1, &stmt, NULL) == SQLITE_OK &&
              sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL;
    if (ok)
        *out = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return ok;
}

static session read_session(nsys_db *db)
{
    session s = {false, 0, 0};
    if (nsys_db_has_table(db, "ANALYSIS_DETAILS") &&
        nsys_db_has_table(db, "TARGET_INFO_SESSION_START_TIME"))
        s.known = read_first(db, "SELECT duration FROM ANALYSIS_DETAILS", &s.duration) &&
                  read_first(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", &s.start);
    return s;
}

/* The first round (recipe_def.survey): report i's session as the
 * "session" table, Start and End (UTC ns); nothing without one. */
static int survey_session(const recipe_def *recipe, const recipe_job *job, size_t i,
                          recipe_outputs *survey, buf *err)
{
    (void)recipe;
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    session s = read_session(db);
    nsys_db_close(db);
    if (s.known) {
        static const char *const COLUMNS[] = {"Start", "End"};
        recipe_table t;
        recipe_table_init(&t, COLUMNS, 2);
        recipe_cell *c = recipe_table_add_row(&t);
        recipe_cell_set_int(&c[0], s.start);
        recipe_cell_set_int(&c[1], s.start + s.duration);
        recipe_outputs_take(survey, "session", &t);
    }
    return NSYSP_OK;
}

/* The job's bins: its window (the earliest session start to the latest
 * end, folded from the surveys) cut into n_bins, each report's session
 * placed after the window's start. */
typedef struct job_grid {
    int64_t min_start, max_end, bin_ns;
    size_t n_bins;
} job_grid;

static job_grid grid_of(int64_t min_start, int64_t max_end, size_t n_bins)
{
    job_grid g = {min_start, max_end, 0, n_bins};
    int64_t span = max_end > min_start ? max_end - min_start : 0;
    g.bin_ns = (int64_t)ceil((double)span / (double)n_bins);
    return g;
}

static size_t bins_of(const recipe_job *job)
{
    const nsysp_recipe_options *o = job->options;
    return o && o->bins > 0 ? (size_t)o->bins : DEFAULT_BINS;
}

/* Bins 0 ns wide (every session of the job lasts 0 ns) hold nothing:
 * refused once a report has data to bin, where nsys 2023.4 crashes; a
 * report without data is no data, as nsys finds. */
static int refuse_empty_bins(const recipe_job *job, size_t i, buf *err)
{
    buf_printf(err, "%s: every session of the job lasts 0 ns: no time to cut into bins",
               job->paths[i]);
    return NSYSP_ERR_NOT_NSYS;
}

/* ---- A row of bins ------------------------------------------------------ */

/* A range's place in the bins: its first and last bin and the parts of
 * them it covers (0..1), from its ends scaled to bins, as numpy computes. */
typedef struct bin_span {
    int64_t first, last;
    double first_part, last_part;
} bin_span;

static bin_span span_of(int64_t start, int64_t end, int64_t bin_ns)
{
    double s = (double)start / (double)bin_ns, e = (double)end / (double)bin_ns;
    bin_span b = {(int64_t)floor(s), (int64_t)floor(e), 0, 0};
    b.first_part = fmin(ceil(s), e) - s;
    b.last_part = e - fmax(floor(e), s);
    return b;
}

/* The busy share of each bin: ranges within one bin summed first, then
 * the ranges over several bins, in order (NVIDIA adds them in this order,
 * and floating point remembers it). */
typedef struct bin_row {
    size_t n;
    double *share;
    bin_span *spread; /* ranges over several bins */
    size_t n_spread, cap_spread;
} bin_row;

static void row_reset(bin_row *r, size_t n_bins)
{
    if (r->n != n_bins) {
        free(r->share);
        r->share = xcalloc(n_bins ? n_bins : 1, sizeof *r->share);
        r->n = n_bins;
    }
    memset(r->share, 0, n_bins * sizeof *r->share);
    r->n_spread = 0;
}

static void row_free(bin_row *r)
{
    free(r->share);
    free(r->spread);
}

/* A range past the job's bins (a kernel after the session's end) adds
 * nothing there. */
static void row_add(bin_row *r, int64_t bin, double part)
{
    if (bin >= 0 && (size_t)bin < r->n)
        r->share[bin] += part;
}

static void row_add_range(bin_row *r, int64_t start, int64_t end, int64_t bin_ns)
{
    bin_span b = span_of(start, end, bin_ns);
    if (b.first == b.last) {
        row_add(r, b.first, b.first_part);
        return;
    }
    if (r->n_spread == r->cap_spread) {
        r->cap_spread = r->cap_spread ? 2 * r->cap_spread : 64;
        r->spread = xrealloc(r->spread, r->cap_spread * sizeof *r->spread);
    }
    r->spread[r->n_spread++] = b;
}

/* Shares in percent, to 0.1, of the session's part of each bin; NaN
 * outside the session. */
static void row_finish(bin_row *r, const job_grid *t, const session *s)
{
    for (size_t i = 0; i < r->n_spread; i++) {
        const bin_span *b = &r->spread[i];
        row_add(r, b->last, b->last_part);
        row_add(r, b->first, b->first_part);
        for (int64_t k = b->first + 1; k < b->last; k++)
            row_add(r, k, 1.0);
    }
    int64_t offset = s->start - t->min_start;
    bin_span in = span_of(offset, s->duration + offset, t->bin_ns);
    if (in.first_part != 0 && in.first >= 0 && (size_t)in.first < r->n)
        r->share[in.first] /= in.first_part;
    if (in.last_part != 0 && in.first != in.last && in.last >= 0 && (size_t)in.last < r->n)
        r->share[in.last] /= in.last_part;
    for (size_t k = 0; k < r->n; k++) {
        if ((int64_t)k < in.first || (int64_t)k > in.last)
            r->share[k] = NAN;
        else
            r->share[k] = recipe_round1(r->share[k] * 100);
    }
}

/* ---- cuda_gpu_time_util_map ------------------------------------------- */

enum { C_DURATION, C_KERNEL, C_PID, C_DEVICE, C_FILE, N_COLUMNS };

static void append_rows(recipe_table *t, const bin_row *r, const job_grid *jt, int64_t pid,
                        int64_t device, const char *label)
{
    for (size_t k = 0; k < r->n; k++) {
        recipe_cell *c = recipe_table_add_row(t);
        recipe_cell_set_int(&c[C_DURATION], (int64_t)k * jt->bin_ns);
        if (!isnan(r->share[k])) /* else NULL: NaN */
            recipe_cell_set_real(&c[C_KERNEL], r->share[k]);
        recipe_cell_set_int(&c[C_PID], pid);
        recipe_cell_set_int(&c[C_DEVICE], device);
        recipe_cell_set_text(&c[C_FILE], label);
    }
}

/* One process's kernels on one device, binned as they come. */
typedef struct kernel_group {
    int64_t pid, device;
    int64_t last_start;
    bool merging;
    int64_t merged_start, merged_end;
    bin_row row;
} kernel_group;

/* The groups of a report, found by process and device. */
typedef struct kernel_groups {
    kernel_group *items;
    size_t n, cap;
    hmap index; /* (pid, device) -> its place + 1 */
    kernel_group *last; /* the group found last */
} kernel_groups;

static kernel_group *group_for(kernel_groups *gs, int64_t pid, int64_t device, size_t n_bins)
{
    if (gs->last && gs->last->pid == pid && gs->last->device == device)
        return gs->last; /* kernels mostly come in runs of one GPU's */
    const int64_t key[2] = {pid, device};
    bool inserted;
    uint64_t *slot = hmap_upsert(&gs->index, key, sizeof key, &inserted);
    if (inserted) {
        gs->items = xgrow(gs->items, &gs->cap, gs->n + 1, sizeof *gs->items);
        kernel_group *g = &gs->items[gs->n];
        memset(g, 0, sizeof *g);
        g->pid = pid;
        g->device = device;
        row_reset(&g->row, n_bins);
        *slot = ++gs->n;
    }
    gs->last = &gs->items[*slot - 1];
    return gs->last;
}

static void groups_free(kernel_groups *gs)
{
    for (size_t k = 0; k < gs->n; k++)
        row_free(&gs->items[k].row);
    free(gs->items);
    hmap_free(&gs->index);
    memset(gs, 0, sizeof *gs);
}

/* Adds a kernel to its group. Kernels that overlap or touch count once,
 * as one range: that needs them by start, which the table mostly is;
 * false when this one starts before the last (the caller then asks SQLite
 * for them sorted). --cumulative adds each kernel, in table order. */
static bool group_add_kernel(kernel_group *g, int64_t start, int64_t end, bool cumulative,
                             int64_t bin_ns)
{
    if (cumulative) {
        row_add_range(&g->row, start, end, bin_ns);
        return true;
    }
    if (g->merging && start < g->last_start)
        return false;
    g->last_start = start;
    if (!g->merging || start > g->merged_end) {
        if (g->merging)
            row_add_range(&g->row, g->merged_start, g->merged_end, bin_ns);
        g->merging = true;
        g->merged_start = start;
        g->merged_end = end;
    } else if (end > g->merged_end) {
        g->merged_end = end;
    }
    return true;
}

static int by_process_and_device(const void *a, const void *b)
{
    const kernel_group *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->device < y->device ? -1 : x->device > y->device;
}

/* a + b as SQLite's + gives it, read back as an integer: past int64 it
 * is a REAL, which reads back as the nearest int64. */
static int64_t sqlite_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (!__builtin_add_overflow(a, b, &sum))
        return sum;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/* What read_kernels returns for a kernel to bin into bins 0 ns wide. */
enum { NO_BINS = -1 };

/* Reads the kernels of the report into gs. Fast: the table as stored, the
 * window's filter and the shifts done here; SQLITE_ABORT when a group's
 * kernels turn out of start order or a time is not an integer (SQLite
 * then compares as it does). Otherwise (sorted): SQLite filters and sorts
 * by process, device and start (table order with --cumulative).
 * SQLITE_DONE, NO_BINS, or an error. */
static int read_kernels(nsys_db *db, const recipe_job *job, int64_t offset, size_t n_bins,
                        int64_t bin_ns, bool sorted, kernel_groups *gs)
{
    const nsysp_recipe_options *o = job->options;
    bool cumulative = o && o->cumulative;
    /* As NVIDIA filters: a kernel that starts by --end and ends from
     * --start on, in the report's own time. */
    int64_t last = o && o->has_end ? o->end_ns : INT64_MAX;
    int64_t first = o && o->has_start ? o->start_ns : INT64_MIN;
    char *query = sorted ? sqlite3_mprintf(
                               "SELECT globalPid, deviceId, start, \"end\""
                               " FROM CUPTI_ACTIVITY_KIND_KERNEL"
                               " WHERE start <= %lld AND \"end\" >= %lld"
                               " ORDER BY (globalPid >> 24) & 16777215, deviceId, %s",
                               (long long)last, (long long)first, cumulative ? "rowid" : "start")
                         : sqlite3_mprintf("SELECT globalPid, deviceId, start, \"end\""
                                           " FROM CUPTI_ACTIVITY_KIND_KERNEL");
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL);
    sqlite3_free(query);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (!sorted && (sqlite3_column_type(stmt, 2) != SQLITE_INTEGER ||
                        sqlite3_column_type(stmt, 3) != SQLITE_INTEGER)) {
            rc = SQLITE_ABORT;
            break;
        }
        int64_t start = sqlite3_column_int64(stmt, 2), end = sqlite3_column_int64(stmt, 3);
        if (!sorted && (start > last || end < first))
            continue;
        if (bin_ns == 0) {
            rc = NO_BINS;
            break;
        }
        int64_t pid = (int64_t)(((uint64_t)sqlite3_column_int64(stmt, 0) >> 24) & 0xFFFFFF);
        kernel_group *g = group_for(gs, pid, sqlite3_column_int64(stmt, 1), n_bins);
        if (!group_add_kernel(g, sqlite_add(start, offset), sqlite_add(end, offset), cumulative,
                              bin_ns)) {
            rc = SQLITE_ABORT;
            break;
        }
    }
    sqlite3_finalize(stmt);
    return rc;
}

/* The kernels of report i (db, its session s) by process and device,
 * each group's bins appended to t, groups in that order. One pass over
 * the table as it is stored; a second, sorted by SQLite, only for a table
 * whose kernels are out of start order within a group. */
static int kernel_rows(nsys_db *db, const recipe_job *job, size_t i, const session *s,
                       const job_grid *jt, recipe_table *t, buf *err)
{
    if (!nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        return NSYSP_OK;
    int64_t offset = s->start - jt->min_start;
    kernel_groups gs = {0};
    hmap_init(&gs.index);
    int rc = read_kernels(db, job, offset, jt->n_bins, jt->bin_ns, false, &gs);
    if (rc == SQLITE_ABORT) {
        groups_free(&gs);
        hmap_init(&gs.index);
        rc = read_kernels(db, job, offset, jt->n_bins, jt->bin_ns, true, &gs);
    }
    if (rc == SQLITE_DONE) {
        if (gs.n) /* qsort of zero items still wants a pointer */
            qsort(gs.items, gs.n, sizeof *gs.items, by_process_and_device);
        for (size_t k = 0; k < gs.n; k++) {
            kernel_group *g = &gs.items[k];
            if (g->merging)
                row_add_range(&g->row, g->merged_start, g->merged_end, jt->bin_ns);
            row_finish(&g->row, jt, s);
            append_rows(t, &g->row, jt, g->pid, g->device, job->labels[i]);
        }
    }
    int status = rc == SQLITE_DONE ? NSYSP_OK
                 : rc == NO_BINS   ? refuse_empty_bins(job, i, err)
                                   : nsys_db_error(db, rc, "reading kernels", err);
    groups_free(&gs);
    return status;
}

/* The notebook's heatmap: a row per File/Device ID/PID, in table order. */
static void draw_kernel_heatmap(const recipe_table *t, const job_grid *jt, recipe_outputs *out)
{
    size_t n_rows = jt->n_bins ? t->n_rows / jt->n_bins : 0;
    char **names = xcalloc(n_rows ? n_rows : 1, sizeof *names);
    double *values = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *values);
    for (size_t r = 0; r < n_rows; r++) {
        const recipe_cell *c = recipe_table_cell(t, r * jt->n_bins, 0);
        buf name = {0};
        buf_printf(&name, "%s/%lld/%lld", c[C_FILE].s, (long long)c[C_DEVICE].i,
                   (long long)c[C_PID].i);
        names[r] = xstrdup(buf_cstr(&name));
        buf_free(&name);
    }
    for (size_t k = 0; k < t->n_rows; k++)
        values[k] = recipe_cell_number(recipe_table_cell(t, k, C_KERNEL));
    recipe_heatmap h = {"GPU time busy with kernels", "File/Device ID/PID", "Busy (%)",
                        "outside the session", n_rows, jt->n_bins,
                        (const char *const *)names, values, jt->bin_ns, 100};
    buf svg = {0};
    recipe_svg_heatmap(&svg, &h);
    recipe_outputs_add_text(out, "heatmap.svg", buf_cstr(&svg));
    buf_free(&svg);
    for (size_t r = 0; r < n_rows; r++)
        free(names[r]);
    free(names);
    free(values);
}

/* ---- gpu_metric_util_map ---------------------------------------------- */

/* The GPU metrics NVIDIA's map averages, from each sample's JSON. */
static const char *const METRICS[] = {"SM Active", "SM Issue", "Tensor Active"};
enum { N_METRICS = 3, N_GPUS = 256 };

/* A GPU's samples per bin: pandas' groupby mean, a Kahan sum in row order. */
typedef struct metric_bins {
    int64_t *count;
    double *sum, *compensation; /* n_bins * N_METRICS */
} metric_bins;

static void metric_add(metric_bins *m, size_t at, double v)
{
    double y = v - m->compensation[at], t = m->sum[at] + y;
    m->compensation[at] = t - m->sum[at] - y;
    m->sum[at] = t;
}

/* The samples of report i in the session, per GPU (the type's low byte)
 * and bin (a sample at a bin's end belongs to it, as pandas.cut puts
 * it), appended to t. Samples without the three metrics are other
 * generic events, left out. */
static int metric_rows(nsys_db *db, const recipe_job *job, size_t i, const session *s,
                       const job_grid *jt, recipe_table *t, buf *err)
{
    if (!nsys_db_has_table(db, "GENERIC_EVENTS"))
        return NSYSP_OK;
    const nsysp_recipe_options *o = job->options;
    int64_t offset = s->start - jt->min_start;
    char *query = sqlite3_mprintf(
        "SELECT typeId & 255, rawTimestamp + %lld, json_extract(data, '$.\"%w\"'),"
        " json_extract(data, '$.\"%w\"'), json_extract(data, '$.\"%w\"') FROM GENERIC_EVENTS"
        " WHERE rawTimestamp <= %lld AND rawTimestamp >= %lld",
        (long long)offset, METRICS[0], METRICS[1], METRICS[2],
        (long long)(o && o->has_end ? o->end_ns : INT64_MAX),
        (long long)(o && o->has_start ? o->start_ns : INT64_MIN));
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL);
    sqlite3_free(query);
    metric_bins gpus[N_GPUS] = {{0}};
    int64_t last = (int64_t)jt->n_bins * jt->bin_ns;
    int status = NSYSP_OK;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (jt->bin_ns == 0) {
            status = refuse_empty_bins(job, i, err);
            break;
        }
        rc = SQLITE_OK;
        int64_t gpu = sqlite3_column_int64(stmt, 0), at = sqlite3_column_int64(stmt, 1);
        if (at < offset || at > s->duration + offset || at <= 0 || at > last)
            continue;
        bool metrics = true;
        for (int k = 0; k < N_METRICS; k++)
            metrics = metrics && sqlite3_column_type(stmt, 2 + k) != SQLITE_NULL;
        if (!metrics)
            continue;
        metric_bins *m = &gpus[gpu];
        if (!m->count) {
            m->count = xcalloc(jt->n_bins, sizeof *m->count);
            m->sum = xcalloc(jt->n_bins * N_METRICS, sizeof *m->sum);
            m->compensation = xcalloc(jt->n_bins * N_METRICS, sizeof *m->compensation);
        }
        size_t bin = (size_t)((at - 1) / jt->bin_ns);
        m->count[bin]++;
        for (int k = 0; k < N_METRICS; k++)
            metric_add(m, bin * N_METRICS + (size_t)k, (double)sqlite3_column_int64(stmt, 2 + k));
    }
    if (status == NSYSP_OK && rc != SQLITE_DONE)
        status = nsys_db_error(db, rc, "reading GPU metrics", err);
    for (int gpu = 0; gpu < N_GPUS; gpu++) {
        metric_bins *m = &gpus[gpu];
        for (size_t b = 0; status == NSYSP_OK && m->count && b < jt->n_bins; b++) {
            if (!m->count[b])
                continue;
            recipe_cell *c = recipe_table_add_row(t);
            recipe_cell_set_int(&c[0], (int64_t)b * jt->bin_ns);
            for (int k = 0; k < N_METRICS; k++)
                recipe_cell_set_real(&c[1 + k], recipe_round1(m->sum[b * N_METRICS + (size_t)k] /
                                                              (double)m->count[b]));
            recipe_cell_set_int(&c[1 + N_METRICS], gpu);
            recipe_cell_set_text(&c[2 + N_METRICS], job->labels[i]);
        }
        free(m->count);
        free(m->sum);
        free(m->compensation);
    }
    sqlite3_finalize(stmt);
    return status;
}

/* A heatmap per metric: a row per File/GPU, bins without samples empty. */
static void draw_metric_heatmaps(const recipe_table *t, const job_grid *jt, recipe_outputs *out)
{
    size_t n_rows = 0;
    char **names = NULL;
    double *values = NULL;
    for (int k = 0; k < N_METRICS; k++) {
        n_rows = 0;
        for (size_t r = 0; r < t->n_rows; r++) {
            const recipe_cell *c = recipe_table_cell(t, r, 0);
            buf name = {0};
            buf_printf(&name, "%s/%lld", c[2 + N_METRICS].s, (long long)c[1 + N_METRICS].i);
            if (!n_rows || strcmp(names[n_rows - 1], buf_cstr(&name)) != 0) {
                names = xrealloc(names, (n_rows + 1) * sizeof *names);
                values = xrealloc(values, (n_rows + 1) * jt->n_bins * sizeof *values);
                names[n_rows] = xstrdup(buf_cstr(&name));
                for (size_t b = 0; b < jt->n_bins; b++)
                    values[n_rows * jt->n_bins + b] = NAN;
                n_rows++;
            }
            buf_free(&name);
            size_t bin = (size_t)(c[0].i / jt->bin_ns);
            values[(n_rows - 1) * jt->n_bins + bin] = c[1 + k].r;
        }
        char title[128], file[64];
        snprintf(title, sizeof title, "GPU metric %s, mean per bin", METRICS[k]);
        snprintf(file, sizeof file, "heatmap_%s.svg",
                 k == 0 ? "sm_active" : k == 1 ? "sm_issue" : "tensor_active");
        recipe_heatmap h = {title, "File/GPU", "Mean (%)", "no samples", n_rows, jt->n_bins,
                            (const char *const *)names, values, jt->bin_ns, 100};
        buf svg = {0};
        recipe_svg_heatmap(&svg, &h);
        recipe_outputs_add_text(out, file, buf_cstr(&svg));
        buf_free(&svg);
        for (size_t r = 0; r < n_rows; r++)
            free(names[r]);
    }
    free(names);
    free(values);
}

/* ---- The binning maps, report by report -------------------------------- */

/* What a binning map writes: analysis.csv's columns (their cells' kinds:
 * i integer, r real or NaN, s text; the first is the bin's start), each
 * report's rows on the job's grid, and its pictures of the whole table. */
typedef struct binned_map {
    const char *const *columns;
    const char *kinds;
    int (*rows)(nsys_db *db, const recipe_job *job, size_t i, const session *s,
                const job_grid *grid, recipe_table *t, buf *err);
    void (*draw)(const recipe_table *t, const job_grid *grid, recipe_outputs *out);
} binned_map;

static const char *const KERNEL_COLUMNS[] = {"Duration", "Kernel", "PID", "Device ID", "File"};
static const char *const METRIC_COLUMNS[] = {"Duration", "SM Active", "SM Issue",
                                             "Tensor Active", "GPU", "File"};
static const binned_map KERNEL_MAP = {KERNEL_COLUMNS, "iriis", kernel_rows, draw_kernel_heatmap};
static const binned_map METRIC_MAP = {METRIC_COLUMNS, "irrris", metric_rows,
                                      draw_metric_heatmaps};

/* The grid a partial was binned on: its "grid" table, Start, End and Bins. */
static const char *const GRID_COLUMNS[] = {"Start", "End", "Bins"};

/* Report i's rows on the job's grid: nothing when it has no session (it
 * is left out, as NVIDIA leaves it out), else the grid and the rows. */
static int map_binned(const recipe_def *recipe, const recipe_job *job, size_t i,
                      recipe_outputs *partial, buf *err)
{
    const binned_map *m = recipe->family;
    const nsysp_recipe_options *o = job->options;
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    session s = read_session(db);
    if (s.known && !(o && o->has_job_window)) {
        buf_printf(err, "%s: %s: its bins need the job's window first (--job-window START:END, "
                        "from --plan)", job->paths[i], recipe->name);
        status = NSYSP_ERR_USAGE;
    } else if (s.known && (s.start < o->job_start_ns || s.start + s.duration > o->job_end_ns)) {
        buf_printf(err, "%s: its session is outside the job's window %lld:%lld (a plan of "
                        "another job)", job->paths[i], (long long)o->job_start_ns,
                   (long long)o->job_end_ns);
        status = NSYSP_ERR_USAGE;
    } else if (s.known) {
        size_t n_bins = bins_of(job);
        job_grid grid = grid_of(o->job_start_ns, o->job_end_ns, n_bins);
        recipe_table g, t;
        recipe_table_init(&g, GRID_COLUMNS, 3);
        recipe_cell *c = recipe_table_add_row(&g);
        recipe_cell_set_int(&c[0], grid.min_start);
        recipe_cell_set_int(&c[1], grid.max_end);
        recipe_cell_set_int(&c[2], (int64_t)n_bins);
        recipe_table_init(&t, m->columns, strlen(m->kinds));
        status = m->rows(db, job, i, &s, &grid, &t, err);
        recipe_outputs_take(partial, "grid", &g);
        recipe_outputs_take(partial, "analysis.csv", &t);
    }
    nsys_db_close(db);
    return status;
}

/* Whether a partial's grid and rows are a binning map's: the grid's three
 * integers, and rows of the recipe's columns and kinds, each in a bin. */
static bool is_binned_partial(const binned_map *m, const recipe_outputs *p)
{
    if (p->n != 2 || strcmp(p->items[0].file, "grid") != 0 ||
        strcmp(p->items[1].file, "analysis.csv") != 0)
        return false;
    const recipe_table *g = &p->items[0].table, *t = &p->items[1].table;
    const recipe_cell *c = g->n_rows == 1 && g->n_columns == 3 ? recipe_table_cell(g, 0, 0) : NULL;
    if (!c || c[0].kind != RECIPE_INT || c[1].kind != RECIPE_INT || c[2].kind != RECIPE_INT ||
        c[2].i < 1 || c[2].i > 1000000 || t->n_columns != strlen(m->kinds))
        return false;
    job_grid grid = grid_of(c[0].i, c[1].i, (size_t)c[2].i);
    for (size_t r = 0; r < t->n_rows; r++) {
        const recipe_cell *row = recipe_table_cell(t, r, 0);
        for (size_t k = 0; k < t->n_columns; k++) {
            char want = m->kinds[k];
            recipe_cell_kind kind = row[k].kind;
            if (!(want == 'i' && kind == RECIPE_INT) && !(want == 's' && kind == RECIPE_TEXT) &&
                !(want == 'r' && (kind == RECIPE_REAL || kind == RECIPE_NULL)))
                return false;
        }
        if (grid.bin_ns <= 0 || row[0].i < 0 || row[0].i % grid.bin_ns != 0 ||
            (size_t)(row[0].i / grid.bin_ns) >= grid.n_bins)
            return false;
    }
    return true;
}

/* The reports' rows in job order, and the pictures, on the grid every
 * partial was binned on (the same for all, and --bins'). */
static int reduce_binned(const recipe_def *recipe, const recipe_job *job,
                         const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    const binned_map *m = recipe->family;
    recipe_table t;
    recipe_table_init(&t, m->columns, strlen(m->kinds));
    const recipe_cell *grid = NULL;
    int status = NSYSP_OK;
    for (size_t i = 0; i < job->n && status == NSYSP_OK; i++) {
        if (partials[i].n == 0)
            continue; /* no session */
        const recipe_cell *g = NULL;
        if (!is_binned_partial(m, &partials[i])) {
            buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
            status = NSYSP_ERR_INPUT_FORMAT;
        } else if (g = recipe_table_cell(&partials[i].items[0].table, 0, 0),
                   (size_t)g[2].i != bins_of(job)) {
            buf_printf(err, "%s: its partial was binned in %lld bins, not %zu (--bins)",
                       job->paths[i], (long long)g[2].i, bins_of(job));
            status = NSYSP_ERR_INPUT_FORMAT;
        } else if (grid && (g[0].i != grid[0].i || g[1].i != grid[1].i)) {
            buf_printf(err, "%s: its partial was binned over the window %lld:%lld, not %lld:%lld "
                            "as the first's", job->paths[i], (long long)g[0].i,
                       (long long)g[1].i, (long long)grid[0].i, (long long)grid[1].i);
            status = NSYSP_ERR_INPUT_FORMAT;
        } else {
            grid = g;
            recipe_table_append(&t, &partials[i].items[1].table);
        }
    }
    if (status == NSYSP_OK && t.n_rows == 0) {
        buf_printf(err, "%s: no report has the data it reads", recipe->name);
        status = RECIPE_NO_DATA;
    }
    if (status == NSYSP_OK) {
        job_grid g = grid_of(grid[0].i, grid[1].i, (size_t)grid[2].i);
        m->draw(&t, &g, out);
        recipe_outputs_take(out, "analysis.csv", &t);
    }
    recipe_table_free(&t);
    return status;
}

/* ---- Maps answered only without data ----------------------------------- */

/* What a map reads: a table with rows, or (NCCL) an NVTX domain; those
 * over GPU time need kernels too, as NVIDIA's find no data without. */
typedef struct map_data {
    const char *what;  /* for the message */
    const char *query; /* a row when the report has the data */
} map_data;

#define WITH_KERNELS " AND EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_KERNEL)"
static const map_data NCCL_DATA = {
    "NCCL's NVTX ranges and kernels",
    "SELECT 1 FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL'" WITH_KERNELS " LIMIT 1"};
static const map_data MPI_DATA = {
    "MPI events and kernels",
    "SELECT 1 WHERE (EXISTS (SELECT 1 FROM MPI_P2P_EVENTS) OR EXISTS (SELECT 1 FROM"
    " MPI_COLLECTIVES_EVENTS) OR EXISTS (SELECT 1 FROM MPI_START_WAIT_EVENTS) OR EXISTS"
    " (SELECT 1 FROM MPI_OTHER_EVENTS))" WITH_KERNELS};
static const map_data UCX_DATA = {
    "UCX events and kernels",
    "SELECT 1 WHERE (EXISTS (SELECT 1 FROM UCP_EVENTS) OR EXISTS (SELECT 1 FROM"
    " UCP_SUBMIT_EVENTS) OR EXISTS (SELECT 1 FROM UCP_PROGRESS_EVENTS))" WITH_KERNELS};
static const map_data NIC_DATA = {"NIC metrics", "SELECT 1 FROM NET_NIC_METRIC LIMIT 1"};

static bool has_data(nsys_db *db, const char *query)
{
    sqlite3_stmt *stmt = NULL;
    bool yes = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL) == SQLITE_OK &&
               sqlite3_step(stmt) == SQLITE_ROW;
    sqlite3_finalize(stmt);
    return yes;
}

/* No data anywhere: NVIDIA's answer. Data: refused, not guessed at. A
 * report's part is nothing (it has no data) or that refusal. */
static int map_without_data(const recipe_def *recipe, const recipe_job *job, size_t i,
                            recipe_outputs *partial, buf *err)
{
    (void)partial;
    const map_data *m = recipe->family;
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    bool yes = has_data(db, m->query);
    nsys_db_close(db);
    if (!yes)
        return NSYSP_OK;
    buf_printf(err, "%s: %s has %s, which this recipe does not read yet", recipe->name,
               job->paths[i], m->what);
    return NSYSP_ERR_NOT_NSYS;
}

static int reduce_without_data(const recipe_def *recipe, const recipe_job *job,
                               const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    (void)out;
    for (size_t i = 0; i < job->n; i++)
        if (partials[i].n) {
            buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
            return NSYSP_ERR_INPUT_FORMAT;
        }
    buf_printf(err, "%s: no report has the data it reads", recipe->name);
    return RECIPE_NO_DATA;
}

/* The maps with no-data answers only say so in --list. The two that bin
 * survey first: their bins are the job's time cut into --bins, from the
 * earliest session start to the latest end, so a report bins its kernels
 * or samples only once every report's session is known. */
#define NO_DATA_ONLY " (answers only when no report has data)"
#define WITHOUT_DATA(data) NULL, data, map_without_data, reduce_without_data
#define BINNED(map) NULL, map, map_binned, reduce_binned, survey_session
const recipe_def RECIPES_MAPS[] = {
    {"cuda_gpu_time_util_map", "GPU time busy with kernels per time bin, process and GPU",
     BINNED(&KERNEL_MAP)},
    {"nccl_gpu_time_util_map", "NCCL and compute kernels' GPU time per bin" NO_DATA_ONLY,
     WITHOUT_DATA(&NCCL_DATA)},
    {"mpi_gpu_time_util_map", "Kernels, MPI and their overlap per bin" NO_DATA_ONLY,
     WITHOUT_DATA(&MPI_DATA)},
    {"ucx_gpu_time_util_map", "Kernels, UCX and their overlap per bin" NO_DATA_ONLY,
     WITHOUT_DATA(&UCX_DATA)},
    {"gpu_metric_util_map", "GPU metrics (SM active, SM issue, tensor active) per bin and GPU",
     BINNED(&METRIC_MAP)},
    {"nic_metric_map", "NIC bytes and congestion per bin" NO_DATA_ONLY, WITHOUT_DATA(&NIC_DATA)},
};
const size_t N_RECIPES_MAPS = sizeof RECIPES_MAPS / sizeof *RECIPES_MAPS;
