/* The utilization maps: cuda_, nccl_, mpi_ and ucx_gpu_time_util_map,
 * gpu_metric_util_map, and nic_metric_map (answered only without data).
 *
 * cuda_gpu_time_util_map cuts the job's time (from the earliest session
 * start to the latest report's end) into --bins bins and gives, per report,
 * process and GPU, the share of each bin in which a kernel ran (analysis.csv,
 * NVIDIA's analysis.parquet), as nsys 2023.4 computes it: overlapping
 * kernels merged first unless --cumulative; a bin cut by the report's
 * session start or end counted over the part inside it; bins outside the
 * session empty (NaN). A kernel's time is streamed from SQLite, sorted by
 * process, device and start; memory grows with bins, not kernels.
 * nccl_gpu_time_util_map splits those kernels into NCCL's (those the NCCL
 * NVTX domain's ranges project onto) and the others; mpi_ and
 * ucx_gpu_time_util_map bin, per process, the merged kernels, the merged
 * MPI or UCX calls and where both overlap. heatmap*.svg draw the table as
 * the recipes' notebooks do.
 *
 * The binning maps read their reports apart in two rounds: each report's
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

/* x within ±2^62 bins: far past any grid (what lies outside the bins adds
 * nothing) and still an int64 once floored. */
static double within_bins(double x)
{
    return fmax(-0x1p62, fmin(0x1p62, x));
}

static bin_span span_of(int64_t start, int64_t end, int64_t bin_ns)
{
    double s = within_bins((double)start / (double)bin_ns);
    double e = within_bins((double)end / (double)bin_ns);
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
        /* the bins between, those of the row only: a range may end ages away */
        int64_t from = b->first + 1 > 0 ? b->first + 1 : 0;
        int64_t to = b->last < (int64_t)r->n ? b->last : (int64_t)r->n;
        for (int64_t k = from; k < to; k++)
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

/* ---- The binning maps ------------------------------------------------- */

/* A heatmap of one of a map's value columns. */
typedef struct map_picture {
    const char *file, *title;
} map_picture;

/* What a binning map writes: analysis.csv's columns (their cells' kinds:
 * i integer, r real or NaN, s text; the first is the bin's start), each
 * report's rows on the job's grid, and its pictures of the whole table. */
typedef struct binned_map binned_map;
struct binned_map {
    const char *const *columns;
    const char *kinds;
    int (*rows)(const binned_map *m, nsys_db *db, const recipe_job *job, size_t i,
                const session *s, const job_grid *grid, recipe_table *t, buf *err);
    void (*draw)(const binned_map *m, const recipe_table *t, const job_grid *grid,
                 recipe_outputs *out);
    const char *const *tables;   /* mpi_, ucx_: the calls' tables, NULL-ended */
    const map_picture *pictures; /* a heatmap per value column (maps by group) */
};

/* ---- Kernels per process and GPU: cuda_ and nccl_gpu_time_util_map ----- */

/* analysis.csv's rows of one group: a row per bin, the bin's start, a
 * value per kind (the rows' shares), the process, the GPU where the map
 * has one (device not NULL), the report. */
static void append_rows(recipe_table *t, const bin_row *const *rows, size_t n_kinds,
                        const job_grid *jt, int64_t pid, const int64_t *device,
                        const char *label)
{
    for (size_t k = 0; k < jt->n_bins; k++) {
        recipe_cell *c = recipe_table_add_row(t);
        recipe_cell_set_int(&c[0], (int64_t)k * jt->bin_ns);
        for (size_t v = 0; v < n_kinds; v++)
            if (!isnan(rows[v]->share[k])) /* else NULL: NaN */
                recipe_cell_set_real(&c[1 + v], rows[v]->share[k]);
        recipe_cell_set_int(&c[1 + n_kinds], pid);
        if (device)
            recipe_cell_set_int(&c[2 + n_kinds], *device);
        recipe_cell_set_text(&c[2 + n_kinds + (device != NULL)], label);
    }
}

/* Ranges binned as they come, merged first where they overlap or touch
 * (that needs them by start) unless each counts (cumulative). */
typedef struct merged_row {
    int64_t last_start;
    bool merging;
    int64_t merged_start, merged_end;
    bin_row row;
} merged_row;

/* Adds a range: false when it starts before the last (then the caller
 * asks SQLite for them sorted). */
static bool merged_add(merged_row *m, int64_t start, int64_t end, bool cumulative, int64_t bin_ns)
{
    if (cumulative) {
        row_add_range(&m->row, start, end, bin_ns);
        return true;
    }
    if (m->merging && start < m->last_start)
        return false;
    m->last_start = start;
    if (!m->merging || start > m->merged_end) {
        if (m->merging)
            row_add_range(&m->row, m->merged_start, m->merged_end, bin_ns);
        m->merging = true;
        m->merged_start = start;
        m->merged_end = end;
    } else if (end > m->merged_end) {
        m->merged_end = end;
    }
    return true;
}

static void merged_finish(merged_row *m, const job_grid *jt, const session *s)
{
    if (m->merging)
        row_add_range(&m->row, m->merged_start, m->merged_end, jt->bin_ns);
    row_finish(&m->row, jt, s);
}

/* The kinds of kernels a map bins apart: cuda_'s one (every kernel);
 * nccl_'s All (every kernel), NCCL (those an NCCL range projects onto)
 * and Compute (the others). */
enum { K_ALL, K_NCCL, K_COMPUTE, N_KERNEL_KINDS };

/* One process's kernels on one device, binned as they come. */
typedef struct kernel_group {
    int64_t pid, device;
    merged_row kinds[N_KERNEL_KINDS];
} kernel_group;

/* The groups of a report, found by process and device. */
typedef struct kernel_groups {
    kernel_group *items;
    size_t n, cap, n_kinds;
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
        for (size_t k = 0; k < gs->n_kinds; k++)
            row_reset(&g->kinds[k].row, n_bins);
        *slot = ++gs->n;
    }
    gs->last = &gs->items[*slot - 1];
    return gs->last;
}

static void groups_free(kernel_groups *gs)
{
    for (size_t i = 0; i < gs->n; i++)
        for (size_t k = 0; k < gs->n_kinds; k++)
            row_free(&gs->items[i].kinds[k].row);
    free(gs->items);
    hmap_free(&gs->index);
    gs->items = NULL;
    gs->n = gs->cap = 0;
    gs->last = NULL;
}

/* The kernels NCCL's ranges project onto (nccl_gpu_time_util_map): each
 * projection's (start, end) in job time, and how many ranges project
 * onto it. */
typedef struct nccl_projections {
    hmap count; /* (start, end) -> ranges */
} nccl_projections;

static uint64_t projections_onto(const nccl_projections *p, int64_t start, int64_t end)
{
    const int64_t key[2] = {start, end};
    const uint64_t *n = hmap_find(&p->count, key, sizeof key);
    return n ? *n : 0;
}

/* Adds a kernel to its group's kinds. NVIDIA joins the kernels to the
 * projections on start and end, so a kernel that n ranges project onto
 * is n NCCL kernels (and n kernels in All): counted n times where kernels
 * add up (cumulative), once where they merge. */
static bool group_add_kernel(kernel_group *g, const nccl_projections *nccl, int64_t start,
                             int64_t end, bool cumulative, int64_t bin_ns)
{
    uint64_t n = nccl ? projections_onto(nccl, start, end) : 0;
    if (!cumulative && n > 1)
        n = 1; /* merging adds a range once however often it comes */
    bool ok = merged_add(&g->kinds[K_ALL], start, end, cumulative, bin_ns);
    for (uint64_t k = 1; ok && k < n; k++)
        ok = merged_add(&g->kinds[K_ALL], start, end, cumulative, bin_ns);
    for (uint64_t k = 0; ok && k < n; k++)
        ok = merged_add(&g->kinds[K_NCCL], start, end, cumulative, bin_ns);
    if (ok && nccl && !n)
        ok = merged_add(&g->kinds[K_COMPUTE], start, end, cumulative, bin_ns);
    return ok;
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

/* The window's bounds as NVIDIA filters: a range that starts by --end
 * and ends from --start on, in the report's own time. */
static int64_t window_last(const recipe_job *job)
{
    const nsysp_recipe_options *o = job->options;
    return o && o->has_end ? o->end_ns : INT64_MAX;
}

static int64_t window_first(const recipe_job *job)
{
    const nsysp_recipe_options *o = job->options;
    return o && o->has_start ? o->start_ns : INT64_MIN;
}

/* Reads the kernels of the report into gs. Fast: the table as stored, the
 * window's filter and the shifts done here; SQLITE_ABORT when a group's
 * kernels turn out of start order or a time is not an integer (SQLite
 * then compares as it does). Otherwise (sorted): SQLite filters and sorts
 * by process, device and start (table order with --cumulative).
 * SQLITE_DONE, NO_BINS, or an error. */
static int read_kernels(nsys_db *db, const recipe_job *job, int64_t offset, const job_grid *jt,
                        const nccl_projections *nccl, bool sorted, kernel_groups *gs)
{
    const nsysp_recipe_options *o = job->options;
    bool cumulative = o && o->cumulative;
    int64_t last = window_last(job), first = window_first(job);
    char *query = sorted ? sqlite3_mprintf(
                               "SELECT globalPid, deviceId, start, \"end\""
                               " FROM CUPTI_ACTIVITY_KIND_KERNEL"
                               " WHERE start <= %lld AND \"end\" >= %lld"
                               /* in the integers this code reads them as */
                               " ORDER BY (CAST(globalPid AS INTEGER) >> 24) & 16777215,"
                               " CAST(deviceId AS INTEGER), %s",
                               (long long)last, (long long)first,
                               cumulative ? "rowid" : "CAST(start AS INTEGER)")
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
        if (jt->bin_ns == 0) {
            rc = NO_BINS;
            break;
        }
        int64_t pid = (int64_t)(((uint64_t)sqlite3_column_int64(stmt, 0) >> 24) & 0xFFFFFF);
        kernel_group *g = group_for(gs, pid, sqlite3_column_int64(stmt, 1), jt->n_bins);
        if (!group_add_kernel(g, nccl, sqlite_add(start, offset), sqlite_add(end, offset),
                              cumulative, jt->bin_ns)) {
            rc = SQLITE_ABORT;
            break;
        }
    }
    sqlite3_finalize(stmt);
    return rc;
}

/* The kernels of report i (db, its session s) by process and device,
 * each group's bins appended to t, groups in that order: one kind, or
 * NCCL's three where nccl is given. One pass over the table as it is
 * stored; a second, sorted by SQLite, only for a table whose kernels are
 * out of start order within a group. */
static int kernel_group_rows(nsys_db *db, const recipe_job *job, size_t i, const session *s,
                             const job_grid *jt, const nccl_projections *nccl, recipe_table *t,
                             buf *err)
{
    int64_t offset = s->start - jt->min_start;
    kernel_groups gs = {0};
    gs.n_kinds = nccl ? N_KERNEL_KINDS : 1;
    hmap_init(&gs.index);
    int rc = read_kernels(db, job, offset, jt, nccl, false, &gs);
    if (rc == SQLITE_ABORT) {
        groups_free(&gs);
        hmap_init(&gs.index);
        rc = read_kernels(db, job, offset, jt, nccl, true, &gs);
    }
    if (rc == SQLITE_DONE) {
        if (gs.n) /* qsort of zero items still wants a pointer */
            qsort(gs.items, gs.n, sizeof *gs.items, by_process_and_device);
        for (size_t k = 0; k < gs.n; k++) {
            kernel_group *g = &gs.items[k];
            const bin_row *rows[N_KERNEL_KINDS];
            for (size_t v = 0; v < gs.n_kinds; v++) {
                merged_finish(&g->kinds[v], jt, s);
                rows[v] = &g->kinds[v].row;
            }
            append_rows(t, rows, gs.n_kinds, jt, g->pid, &g->device, job->labels[i]);
        }
    }
    int status = NSYSP_OK;
    if (rc == NO_BINS) {
        status = refuse_empty_bins(job, i, err);
    } else if (rc == SQLITE_ABORT) { /* sorted, yet out of order: times SQLite and C read apart */
        buf_printf(err, "%s: reading kernels: their times cannot be put in order",
                   nsys_db_path(db));
        status = NSYSP_ERR_INPUT_FORMAT;
    } else if (rc != SQLITE_DONE) {
        status = nsys_db_error(db, rc, "reading kernels", err);
    }
    groups_free(&gs);
    return status;
}

static int kernel_rows(const binned_map *m, nsys_db *db, const recipe_job *job, size_t i,
                       const session *s, const job_grid *jt, recipe_table *t, buf *err)
{
    (void)m;
    if (!nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        return NSYSP_OK;
    return kernel_group_rows(db, job, i, s, jt, NULL, t, err);
}


/* ---- nccl_gpu_time_util_map: NCCL's ranges projected onto kernels ------ */

/* A push/pop or start/end range of the NCCL domain, on its thread, and
 * the GPU time of the kernels launched inside it (job time). */
typedef struct nccl_range {
    int64_t tid, start, end;
    bool projected;
    bool closed; /* its end has passed: never opened again */
    int64_t gpu_start, gpu_end;
} nccl_range;

/* A range's place in the ranges by thread and start, found by thread and end. */
typedef struct range_end {
    int64_t tid, end;
    size_t at;
} range_end;

typedef struct nccl_ranges {
    nccl_range *items;
    size_t n, cap;
    range_end *by_end;
} nccl_ranges;

static int by_thread_and_start(const void *a, const void *b)
{
    const nccl_range *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int by_thread_and_end(const void *a, const void *b)
{
    const range_end *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The NCCL domain's ranges (that of the first "NCCL" domain the report
 * creates, as NVIDIA takes it), those that end on their own thread:
 * *any false when the domain has no ranges at all. */
static int read_nccl_ranges(nsys_db *db, nccl_ranges *rs, bool *any, buf *err)
{
    *any = false;
    int64_t domain;
    if (!read_first(db, "SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL'"
                        " ORDER BY rowid LIMIT 1", &domain))
        return NSYSP_OK;
    char *query = sqlite3_mprintf("SELECT globalTid, start, \"end\", endGlobalTid FROM NVTX_EVENTS"
                                  " WHERE domainId = %lld AND eventType IN (59, 60)",
                                  (long long)domain);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL);
    sqlite3_free(query);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        *any = true;
        if (sqlite3_column_type(stmt, 0) == SQLITE_NULL ||
            sqlite3_column_type(stmt, 1) == SQLITE_NULL ||
            sqlite3_column_type(stmt, 2) == SQLITE_NULL ||
            sqlite3_column_type(stmt, 3) != SQLITE_NULL)
            continue;
        rs->items = xgrow(rs->items, &rs->cap, rs->n + 1, sizeof *rs->items);
        rs->items[rs->n++] = (nccl_range){sqlite3_column_int64(stmt, 0),
                                          sqlite3_column_int64(stmt, 1),
                                          sqlite3_column_int64(stmt, 2), false, 0, 0};
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
        return nsys_db_error(db, rc, "reading NCCL's NVTX ranges", err);
    if (rs->n)
        qsort(rs->items, rs->n, sizeof *rs->items, by_thread_and_start);
    rs->by_end = xcalloc(rs->n ? rs->n : 1, sizeof *rs->by_end);
    for (size_t k = 0; k < rs->n; k++)
        rs->by_end[k] = (range_end){rs->items[k].tid, rs->items[k].end, k};
    if (rs->n)
        qsort(rs->by_end, rs->n, sizeof *rs->by_end, by_thread_and_end);
    return NSYSP_OK;
}

/* One thread's sweep over its CUDA calls by start (NVIDIA's
 * project_nvtx_onto_gpu): ranges open as their start passes, close when
 * their end is at or before the call's end; the open ones take the call's
 * kernel. */
typedef struct nccl_sweep {
    size_t lo, hi;        /* the thread's ranges */
    size_t next_start, next_end;
    bool done;            /* every range closed: later calls take nothing */
    size_t *open, n_open, cap_open;
} nccl_sweep;

static void sweep_close(nccl_sweep *w, nccl_range *r, size_t range)
{
    /* A range inside a call closes before it opened (NVIDIA fails there):
     * closed, it is not opened later to take the kernels of calls after. */
    r[range].closed = true;
    for (size_t k = 0; k < w->n_open; k++)
        if (w->open[k] == range) {
            w->open[k] = w->open[--w->n_open];
            return;
        }
}

static void sweep_call(nccl_sweep *w, nccl_ranges *rs, int64_t start, int64_t end,
                       int64_t gpu_start, int64_t gpu_end)
{
    nccl_range *r = rs->items;
    while (!w->done) {
        const range_end *closing = &rs->by_end[w->next_end];
        if (w->next_start < w->hi && r[w->next_start].start <= closing->end &&
            r[w->next_start].start <= start) {
            if (!r[w->next_start].closed) {
                w->open = xgrow(w->open, &w->cap_open, w->n_open + 1, sizeof *w->open);
                w->open[w->n_open++] = w->next_start;
            }
            w->next_start++;
        } else if (closing->end <= start || closing->end <= end) {
            sweep_close(w, r, closing->at);
            w->done = ++w->next_end == w->hi;
        } else {
            for (size_t k = 0; k < w->n_open; k++) {
                nccl_range *p = &r[w->open[k]];
                if (!p->projected || gpu_start < p->gpu_start)
                    p->gpu_start = gpu_start;
                if (!p->projected || gpu_end > p->gpu_end)
                    p->gpu_end = gpu_end;
                p->projected = true;
            }
            return;
        }
    }
}

/* Projects the ranges onto the kernels their threads launched (CUDA
 * calls joined to the kernels in the window by correlation id and
 * process, kernel times in job time) and counts the projections in p. */
static int project_nccl(nsys_db *db, const recipe_job *job, int64_t offset, nccl_ranges *rs,
                        nccl_projections *p, buf *err)
{
    char *query = sqlite3_mprintf(
        "SELECT r.globalTid, r.start, r.\"end\", k.start, k.\"end\""
        " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN CUPTI_ACTIVITY_KIND_KERNEL AS k"
        " ON k.correlationId = r.correlationId"
        " AND (k.globalPid >> 24) & 16777215 = (r.globalTid >> 24) & 16777215"
        " WHERE k.start <= %lld AND k.\"end\" >= %lld AND r.globalTid IS NOT NULL"
        " ORDER BY r.globalTid, r.start",
        (long long)window_last(job), (long long)window_first(job));
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL);
    sqlite3_free(query);
    nccl_sweep w = {0};
    bool have_thread = false;
    int64_t tid = 0;
    size_t hi = 0; /* threads come in order in both */
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int64_t call_tid = sqlite3_column_int64(stmt, 0);
        if (!have_thread || call_tid != tid) {
            have_thread = true;
            tid = call_tid;
            size_t lo = hi;
            while (lo < rs->n && rs->items[lo].tid < tid)
                lo++;
            hi = lo;
            while (hi < rs->n && rs->items[hi].tid == tid)
                hi++;
            w.lo = w.next_start = w.next_end = lo;
            w.hi = hi;
            w.done = lo == hi;
            w.n_open = 0;
        }
        if (!w.done)
            sweep_call(&w, rs, sqlite3_column_int64(stmt, 1), sqlite3_column_int64(stmt, 2),
                       sqlite_add(sqlite3_column_int64(stmt, 3), offset),
                       sqlite_add(sqlite3_column_int64(stmt, 4), offset));
    }
    sqlite3_finalize(stmt);
    free(w.open);
    if (rc != SQLITE_DONE)
        return nsys_db_error(db, rc, "projecting NCCL's ranges onto kernels", err);
    for (size_t k = 0; k < rs->n; k++)
        if (rs->items[k].projected) {
            const int64_t key[2] = {rs->items[k].gpu_start, rs->items[k].gpu_end};
            bool inserted;
            uint64_t *n = hmap_upsert(&p->count, key, sizeof key, &inserted);
            *n = inserted ? 1 : *n + 1;
        }
    return NSYSP_OK;
}

/* Report i's kernels by process and GPU, All, NCCL and Compute: nothing
 * when no NCCL range projects onto a kernel (NVIDIA finds no data). */
static int nccl_rows(const binned_map *m, nsys_db *db, const recipe_job *job, size_t i,
                     const session *s, const job_grid *jt, recipe_table *t, buf *err)
{
    (void)m;
    if (!nsys_db_has_table(db, "NVTX_EVENTS") ||
        !nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") ||
        !nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        return NSYSP_OK;
    nccl_ranges rs = {0};
    nccl_projections p;
    hmap_init(&p.count);
    bool any;
    int status = read_nccl_ranges(db, &rs, &any, err);
    if (status == NSYSP_OK && any)
        status = project_nccl(db, job, s->start - jt->min_start, &rs, &p, err);
    if (status == NSYSP_OK && p.count.count)
        status = kernel_group_rows(db, job, i, s, jt, &p, t, err);
    free(rs.items);
    free(rs.by_end);
    hmap_free(&p.count);
    return status;
}


/* ---- The order of NVIDIA's sets of processes ---------------------------- */

/* CPython's set of small non-negative ints (hash = value), as far as the
 * order it iterates in: open addressing, 9 linear probes then perturbed
 * jumps, grown at 3/5 full (CPython 3.7-3.12's setobject.c). */
typedef struct py_set {
    int64_t *keys;
    bool *used;
    size_t mask, fill;
} py_set;

enum { PY_SET_MIN = 8, PY_LINEAR_PROBES = 9, PY_PERTURB_SHIFT = 5 };

static void py_set_insert_clean(int64_t *keys, bool *used, size_t mask, int64_t key)
{
    size_t perturb = (size_t)key, i = (size_t)key & mask;
    for (;;) {
        if (!used[i])
            break;
        if (i + PY_LINEAR_PROBES <= mask) {
            size_t j = 1;
            while (j <= PY_LINEAR_PROBES && used[i + j])
                j++;
            if (j <= PY_LINEAR_PROBES) {
                i += j;
                break;
            }
        }
        perturb >>= PY_PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & mask;
    }
    keys[i] = key;
    used[i] = true;
}

static void py_set_resize(py_set *s, size_t min_used)
{
    size_t size = PY_SET_MIN;
    while (size <= min_used)
        size <<= 1;
    int64_t *keys = xcalloc(size, sizeof *keys);
    bool *used = xcalloc(size, sizeof *used);
    for (size_t i = 0; s->used && i <= s->mask; i++)
        if (s->used[i])
            py_set_insert_clean(keys, used, size - 1, s->keys[i]);
    free(s->keys);
    free(s->used);
    s->keys = keys;
    s->used = used;
    s->mask = size - 1;
}

static void py_set_init(py_set *s)
{
    memset(s, 0, sizeof *s);
    py_set_resize(s, 0);
}

static void py_set_add(py_set *s, int64_t key)
{
    size_t perturb = (size_t)key, i = (size_t)key & s->mask;
    for (;;) {
        size_t probes = i + PY_LINEAR_PROBES <= s->mask ? PY_LINEAR_PROBES : 0;
        for (size_t j = 0; j <= probes; j++, i++) {
            if (!s->used[i]) {
                s->keys[i] = key;
                s->used[i] = true;
                if (++s->fill * 5 >= s->mask * 3)
                    py_set_resize(s, s->fill > 50000 ? s->fill * 2 : s->fill * 4);
                return;
            }
            if (s->keys[i] == key)
                return;
        }
        i -= probes + 1;
        perturb >>= PY_PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & s->mask;
    }
}

static void py_set_free(py_set *s)
{
    free(s->keys);
    free(s->used);
}

/* set_merge: other's keys into s, after one resize for both. */
static void py_set_merge(py_set *s, const py_set *other)
{
    if (!other->fill)
        return;
    if ((s->fill + other->fill) * 5 >= s->mask * 3)
        py_set_resize(s, (s->fill + other->fill) * 2);
    if (!s->fill && s->mask == other->mask) {
        memcpy(s->keys, other->keys, (s->mask + 1) * sizeof *s->keys);
        memcpy(s->used, other->used, (s->mask + 1) * sizeof *s->used);
        s->fill = other->fill;
    } else if (!s->fill) {
        for (size_t i = 0; i <= other->mask; i++)
            if (other->used[i])
                py_set_insert_clean(s->keys, s->used, s->mask, other->keys[i]);
        s->fill = other->fill;
    } else {
        for (size_t i = 0; i <= other->mask; i++)
            if (other->used[i])
                py_set_add(s, other->keys[i]);
    }
}


/* ---- mpi_ and ucx_gpu_time_util_map: kernels, communication, overlap --- */

/* Ranges of a report by process and start, one at a time, in job time. */
typedef struct range_reader {
    sqlite3_stmt *stmt;
    int rc; /* SQLITE_OK while rows come, then SQLITE_DONE or an error */
    int64_t offset;
    bool has; /* a range is held */
    int64_t pid, start, end;
} range_reader;

static void reader_step(range_reader *r)
{
    r->has = r->rc == SQLITE_OK && (r->rc = sqlite3_step(r->stmt)) == SQLITE_ROW;
    if (!r->has)
        return;
    r->rc = SQLITE_OK;
    r->pid = sqlite3_column_int64(r->stmt, 0);
    r->start = sqlite_add(sqlite3_column_int64(r->stmt, 1), r->offset);
    r->end = sqlite_add(sqlite3_column_int64(r->stmt, 2), r->offset);
}

/* Opens a reader on the union of tables (each with globalTid or, for
 * kernels, globalPid as id), in the window, by process and start. Calls
 * still running when the capture stopped (end NULL) are left out: they
 * have no end to bin (nsys 2023.4 fails on them). */
static void reader_open(range_reader *r, nsys_db *db, const recipe_job *job, int64_t offset,
                        const char *const *tables, const char *id)
{
    buf from = {0};
    for (const char *const *tb = tables; *tb; tb++)
        if (nsys_db_has_table(db, *tb))
            buf_printf(&from, "%sSELECT %s AS id, start, \"end\" FROM %s",
                       from.len ? " UNION ALL " : "", id, *tb);
    memset(r, 0, sizeof *r);
    r->offset = offset;
    r->rc = SQLITE_DONE;
    if (from.len) {
        char *query = sqlite3_mprintf(
            "SELECT (id >> 24) & 16777215, start, \"end\" FROM (%s) WHERE id IS NOT NULL"
            " AND \"end\" IS NOT NULL AND start <= %lld AND \"end\" >= %lld"
            " ORDER BY 1, CAST(start AS INTEGER)", /* in the integers read below */
            buf_cstr(&from), (long long)window_last(job), (long long)window_first(job));
        r->rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &r->stmt, NULL);
        sqlite3_free(query);
    }
    buf_free(&from);
    reader_step(r);
}

/* The next of pid's ranges, merged with those after it that overlap or
 * touch it: false past pid's last. */
static bool next_merged(range_reader *r, int64_t pid, int64_t *start, int64_t *end)
{
    if (!r->has || r->pid != pid)
        return false;
    *start = r->start;
    *end = r->end;
    for (reader_step(r); r->has && r->pid == pid && r->start <= *end; reader_step(r))
        if (r->end > *end)
            *end = r->end;
    return true;
}

enum { M_KERNEL, M_COMM, M_OVERLAP, N_COMM_KINDS };

/* A process's bins: its kernels' time, its calls' time, the time of both. */
typedef struct comm_group {
    int64_t pid;
    bin_row kinds[N_COMM_KINDS];
} comm_group;

/* Bins pid's merged kernels and calls and where they overlap (both
 * merged, so their overlaps come out apart and in order). */
static void bin_process(comm_group *g, range_reader *kernels, range_reader *calls, int64_t bin_ns)
{
    int64_t ks = 0, ke = 0, cs = 0, ce = 0;
    bool k = next_merged(kernels, g->pid, &ks, &ke), c = next_merged(calls, g->pid, &cs, &ce);
    while (k || c) {
        if (k && c && (ke < ce ? ke : ce) > (ks > cs ? ks : cs))
            row_add_range(&g->kinds[M_OVERLAP], ks > cs ? ks : cs, ke < ce ? ke : ce, bin_ns);
        if (k && (!c || ke <= ce)) {
            row_add_range(&g->kinds[M_KERNEL], ks, ke, bin_ns);
            k = next_merged(kernels, g->pid, &ks, &ke);
        } else {
            row_add_range(&g->kinds[M_COMM], cs, ce, bin_ns);
            c = next_merged(calls, g->pid, &cs, &ce);
        }
    }
}

/* Where pid's group is in groups (n, in pid order, pid among them). */
static size_t group_of_pid(const comm_group *groups, size_t n, int64_t pid)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (groups[mid].pid <= pid)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Report i's processes, each with Kernel, MPI or UCX, and Overlap bins:
 * nothing unless it has both kernels and calls in the window. The
 * processes come in the order NVIDIA's Python set of them iterates
 * (those with kernels, then those with calls). */
static int comm_rows(const binned_map *m, nsys_db *db, const recipe_job *job, size_t i,
                     const session *s, const job_grid *jt, recipe_table *t, buf *err)
{
    static const char *const KERNELS[] = {"CUPTI_ACTIVITY_KIND_KERNEL", NULL};
    int64_t offset = s->start - jt->min_start;
    range_reader kernels = {0}, calls;
    reader_open(&calls, db, job, offset, m->tables, "globalTid");
    if (calls.has) /* most reports have no calls: no kernels sorted for nothing */
        reader_open(&kernels, db, job, offset, KERNELS, "globalPid");
    comm_group *groups = NULL;
    size_t n = 0, cap = 0;
    py_set kernel_pids, call_pids, pids;
    py_set_init(&kernel_pids);
    py_set_init(&call_pids);
    py_set_init(&pids);
    bool data = kernels.has && calls.has;
    int status = data && jt->bin_ns == 0 ? refuse_empty_bins(job, i, err) : NSYSP_OK;
    while (status == NSYSP_OK && data && (kernels.has || calls.has)) {
        int64_t pid = !calls.has || (kernels.has && kernels.pid < calls.pid) ? kernels.pid
                                                                             : calls.pid;
        if (kernels.has && kernels.pid == pid)
            py_set_add(&kernel_pids, pid);
        if (calls.has && calls.pid == pid)
            py_set_add(&call_pids, pid);
        groups = xgrow(groups, &cap, n + 1, sizeof *groups);
        comm_group *g = &groups[n++];
        memset(g, 0, sizeof *g);
        g->pid = pid;
        for (int v = 0; v < N_COMM_KINDS; v++)
            row_reset(&g->kinds[v], jt->n_bins);
        bin_process(g, &kernels, &calls, jt->bin_ns);
        for (int v = 0; v < N_COMM_KINDS; v++)
            row_finish(&g->kinds[v], jt, s);
    }
    if (status == NSYSP_OK && kernels.rc != SQLITE_OK && kernels.rc != SQLITE_DONE)
        status = nsys_db_error(db, kernels.rc, "reading kernels", err);
    if (status == NSYSP_OK && calls.rc != SQLITE_OK && calls.rc != SQLITE_DONE)
        status = nsys_db_error(db, calls.rc, "reading communication calls", err);
    py_set_merge(&pids, &kernel_pids);
    py_set_merge(&pids, &call_pids);
    for (size_t k = 0; status == NSYSP_OK && k <= pids.mask; k++) {
        if (!pids.used[k])
            continue;
        size_t at = group_of_pid(groups, n, pids.keys[k]);
        const bin_row *rows[N_COMM_KINDS];
        for (int v = 0; v < N_COMM_KINDS; v++)
            rows[v] = &groups[at].kinds[v];
        append_rows(t, rows, N_COMM_KINDS, jt, groups[at].pid, NULL, job->labels[i]);
    }
    for (size_t k = 0; k < n; k++)
        for (int v = 0; v < N_COMM_KINDS; v++)
            row_free(&groups[k].kinds[v]);
    free(groups);
    py_set_free(&kernel_pids);
    py_set_free(&call_pids);
    py_set_free(&pids);
    sqlite3_finalize(kernels.stmt);
    sqlite3_finalize(calls.stmt);
    return status;
}


/* ---- Pictures of the maps by group -------------------------------------- */

/* The notebooks' heatmaps of a map by group (process, GPU): one per value
 * column, a row per File/Device ID/PID (or File/PID), in table order. */
static void draw_group_heatmaps(const binned_map *m, const recipe_table *t, const job_grid *jt,
                                recipe_outputs *out)
{
    size_t n_values = 0;
    while (m->kinds[1 + n_values] == 'r')
        n_values++;
    bool has_device = strlen(m->kinds) == n_values + 4;
    size_t c_pid = 1 + n_values, c_file = c_pid + 1 + has_device;
    size_t n_rows = jt->n_bins ? t->n_rows / jt->n_bins : 0;
    char **names = xcalloc(n_rows ? n_rows : 1, sizeof *names);
    double *values = xcalloc(t->n_rows ? t->n_rows : 1, sizeof *values);
    for (size_t r = 0; r < n_rows; r++) {
        const recipe_cell *c = recipe_table_cell(t, r * jt->n_bins, 0);
        buf name = {0};
        buf_printf(&name, "%s/", c[c_file].s);
        if (has_device)
            buf_printf(&name, "%lld/", (long long)c[c_pid + 1].i);
        buf_printf(&name, "%lld", (long long)c[c_pid].i);
        names[r] = xstrdup(buf_cstr(&name));
        buf_free(&name);
    }
    for (size_t v = 0; v < n_values; v++) {
        for (size_t k = 0; k < t->n_rows; k++)
            values[k] = recipe_cell_number(recipe_table_cell(t, k, 1 + v));
        recipe_heatmap h = {m->pictures[v].title, has_device ? "File/Device ID/PID" : "File/PID",
                            "Busy (%)", "outside the session", n_rows, jt->n_bins,
                            (const char *const *)names, values, jt->bin_ns, 100};
        buf svg = {0};
        recipe_svg_heatmap(&svg, &h);
        recipe_outputs_add_text(out, m->pictures[v].file, buf_cstr(&svg));
        buf_free(&svg);
    }
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
static int metric_rows(const binned_map *map, nsys_db *db, const recipe_job *job, size_t i,
                       const session *s, const job_grid *jt, recipe_table *t, buf *err)
{
    (void)map;
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
static void draw_metric_heatmaps(const binned_map *map, const recipe_table *t, const job_grid *jt,
                                 recipe_outputs *out)
{
    (void)map;
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

static const char *const KERNEL_COLUMNS[] = {"Duration", "Kernel", "PID", "Device ID", "File"};
static const char *const NCCL_COLUMNS[] = {"Duration", "All",       "NCCL", "Compute",
                                           "PID",      "Device ID", "File"};
static const char *const MPI_COLUMNS[] = {"Duration", "Kernel", "MPI", "Overlap", "PID", "File"};
static const char *const UCX_COLUMNS[] = {"Duration", "Kernel", "UCX", "Overlap", "PID", "File"};
static const char *const METRIC_COLUMNS[] = {"Duration", "SM Active", "SM Issue",
                                             "Tensor Active", "GPU", "File"};
static const char *const MPI_TABLES_READ[] = {"MPI_P2P_EVENTS", "MPI_START_WAIT_EVENTS",
                                              "MPI_OTHER_EVENTS", "MPI_COLLECTIVES_EVENTS", NULL};
static const char *const UCX_TABLES_READ[] = {"UCP_SUBMIT_EVENTS", "UCP_PROGRESS_EVENTS",
                                              "UCP_EVENTS", NULL};
static const map_picture KERNEL_PICTURES[] = {{"heatmap.svg", "GPU time busy with kernels"}};
static const map_picture NCCL_PICTURES[] = {
    {"heatmap_all.svg", "GPU time busy with kernels"},
    {"heatmap_nccl.svg", "GPU time busy with NCCL kernels (those NCCL's NVTX ranges launch)"},
    {"heatmap_compute.svg", "GPU time busy with other kernels (compute)"}};
static const map_picture MPI_PICTURES[] = {
    {"heatmap_kernel.svg", "GPU time busy with kernels, per process"},
    {"heatmap_mpi.svg", "Time in MPI calls, per process"},
    {"heatmap_overlap.svg", "Kernels running during MPI calls, per process"}};
static const map_picture UCX_PICTURES[] = {
    {"heatmap_kernel.svg", "GPU time busy with kernels, per process"},
    {"heatmap_ucx.svg", "Time in UCX calls, per process"},
    {"heatmap_overlap.svg", "Kernels running during UCX calls, per process"}};
static const binned_map KERNEL_MAP = {KERNEL_COLUMNS, "iriis", kernel_rows, draw_group_heatmaps,
                                      NULL, KERNEL_PICTURES};
static const binned_map NCCL_MAP = {NCCL_COLUMNS, "irrriis", nccl_rows, draw_group_heatmaps,
                                    NULL, NCCL_PICTURES};
static const binned_map MPI_MAP = {MPI_COLUMNS, "irrris", comm_rows, draw_group_heatmaps,
                                   MPI_TABLES_READ, MPI_PICTURES};
static const binned_map UCX_MAP = {UCX_COLUMNS, "irrris", comm_rows, draw_group_heatmaps,
                                   UCX_TABLES_READ, UCX_PICTURES};
static const binned_map METRIC_MAP = {METRIC_COLUMNS, "irrris", metric_rows,
                                      draw_metric_heatmaps, NULL, NULL};

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
        status = m->rows(m, db, job, i, &s, &grid, &t, err);
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
        m->draw(m, &t, &g, out);
        recipe_outputs_take(out, "analysis.csv", &t);
    }
    recipe_table_free(&t);
    return status;
}

/* ---- Maps answered only without data ----------------------------------- */

/* What a map reads: a table with rows. */
typedef struct map_data {
    const char *what;  /* for the message */
    const char *query; /* a row when the report has the data */
} map_data;

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

/* The map with a no-data answer only says so in --list. The others bin
 * and survey first: their bins are the job's time cut into --bins, from
 * the earliest session start to the latest end, so a report bins its
 * ranges or samples only once every report's session is known. */
#define NO_DATA_ONLY " (answers only when no report has data)"
#define WITHOUT_DATA(data) NULL, data, map_without_data, reduce_without_data
#define BINNED(map) NULL, map, map_binned, reduce_binned, survey_session
const recipe_def RECIPES_MAPS[] = {
    {"cuda_gpu_time_util_map", "GPU time busy with kernels per time bin, process and GPU",
     BINNED(&KERNEL_MAP)},
    {"nccl_gpu_time_util_map", "GPU time busy with NCCL and with compute kernels per bin",
     BINNED(&NCCL_MAP)},
    {"mpi_gpu_time_util_map", "Kernels, MPI calls and their overlap per bin and process",
     BINNED(&MPI_MAP)},
    {"ucx_gpu_time_util_map", "Kernels, UCX calls and their overlap per bin and process",
     BINNED(&UCX_MAP)},
    {"gpu_metric_util_map", "GPU metrics (SM active, SM issue, tensor active) per bin and GPU",
     BINNED(&METRIC_MAP)},
    {"nic_metric_map", "NIC bytes and congestion per bin" NO_DATA_ONLY, WITHOUT_DATA(&NIC_DATA)},
};
const size_t N_RECIPES_MAPS = sizeof RECIPES_MAPS / sizeof *RECIPES_MAPS;
