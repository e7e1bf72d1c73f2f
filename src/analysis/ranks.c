/* nsysp_measure_ranks: each process of a report that ran GPU work, as one
 * rank of a distributed job: its GPU time split into compute,
 * communication (NCCL kernels) and memory, the communication compute does
 * not hide, its steps, its GPU utilization over the job's window, and its
 * NCCL kernels in order, to match collectives across ranks. Fixed SQL; the
 * step's name is bound. Unions are built streaming, in start order: memory
 * grows with the processes and their NCCL kernels, not with the rows. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "common/cancel.h"
#include "common/hmap.h"
#include "common/xalloc.h"
#include "measure.h"
#include "rank_numbers.h"
#include "model/gpu_busy.h"
#include "nsys/nsys_cursor.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_ids.h"
#include "summary.h"

#define LENGTH(a) (sizeof (a) / sizeof *(a))

static int sql_error(nsys_db *db, int rc, buf *err)
{
    return nsys_db_error(db, rc, "measuring ranks", err);
}

/* ---- One rank being measured ------------------------------------------ */

enum work_kind { WORK_COMPUTE, WORK_COMM, WORK_MEMORY };

typedef struct rank_build {
    nsysp_rank *rank;
    busy_union busy, compute, comm, memory, compute_or_comm;
    size_t collectives_cap;
} rank_build;

typedef struct ranks_build {
    nsys_db *db;
    nsysp_ranks *out;
    int64_t offset;              /* the report's time zero in UTC */
    bool utc_known;              /* offset is its own session start, not the job's guess */
    int64_t unknown_clock_utc;   /* the offset when its session start is not known */
    int64_t session_start;       /* ANALYSIS_DETAILS' start, report time */
    int64_t window_start, window_end;
    size_t n_bins;
    hmap names;                  /* collective name -> index + 1 */
    size_t names_cap, ranks_cap;
    buf err;
} ranks_build;

/* A report time on the job's clock, clamped to 0 .. 2^62 as the converter
 * clamps times (and partials read them): differences of two then fit. */
static int64_t on_clock(const ranks_build *b, int64_t t)
{
    if (t > NSYS_MAX_TIME)
        t = NSYS_MAX_TIME;
    if (t < -NSYS_MAX_TIME)
        t = -NSYS_MAX_TIME;
    t += b->offset; /* both within 2^62: no overflow */
    return t < 0 ? 0 : t > NSYS_MAX_TIME ? NSYS_MAX_TIME : t;
}

/* Spreads a busy stretch (report time) over the utilization bins. */
static void add_to_bins(const ranks_build *b, nsysp_rank *r, int64_t start, int64_t end)
{
    if (!b->n_bins || b->window_end <= b->window_start)
        return;
    double width = (double)(b->window_end - b->window_start) / (double)b->n_bins;
    double s = (double)(start + b->offset - b->window_start);
    double e = (double)(end + b->offset - b->window_start);
    if (s < 0)
        s = 0;
    if (e > (double)(b->window_end - b->window_start))
        e = (double)(b->window_end - b->window_start);
    for (size_t i = s < e ? (size_t)(s / width) : b->n_bins; i < b->n_bins; i++) {
        double lo = (double)i * width, hi = lo + width;
        if (lo >= e)
            break;
        double overlap = (e < hi ? e : hi) - (s > lo ? s : lo);
        if (overlap > 0)
            r->utilization[i] += overlap / width;
    }
}

static const char *collective_name(ranks_build *b, const char *name)
{
    bool inserted;
    uint64_t *slot = hmap_upsert(&b->names, name, strlen(name), &inserted);
    if (inserted) {
        b->out->names = xgrow(b->out->names, &b->names_cap, b->out->n_names + 1,
                              sizeof *b->out->names);
        b->out->names[b->out->n_names++] = xstrdup(name);
        *slot = b->out->n_names;
    }
    return b->out->names[*slot - 1];
}

static void add_work(ranks_build *b, rank_build *rb, enum work_kind kind, int64_t start,
                     int64_t end, const char *name)
{
    nsysp_rank *r = rb->rank;
    int64_t cs, ce;
    if (busy_union_add(&rb->busy, start, end, &cs, &ce))
        add_to_bins(b, r, cs, ce);
    busy_union *of_kind = kind == WORK_COMPUTE ? &rb->compute
                             : kind == WORK_COMM  ? &rb->comm
                                                  : &rb->memory;
    busy_union_add(of_kind, start, end, &cs, &ce);
    if (kind != WORK_MEMORY)
        busy_union_add(&rb->compute_or_comm, start, end, &cs, &ce);
    if (r->start_utc == INT64_MAX)
        r->start_utc = on_clock(b, start);
    if (on_clock(b, end) > r->end_utc)
        r->end_utc = on_clock(b, end);
    if (kind == WORK_COMM) {
        r->collectives = xgrow(r->collectives, &rb->collectives_cap, r->n_collectives + 1,
                               sizeof *r->collectives);
        r->collectives[r->n_collectives++] = (nsysp_collective){
            collective_name(b, name ? name : "(unnamed)"), on_clock(b, start), on_clock(b, end)};
    }
}

static void finish_rank(const ranks_build *b, rank_build *rb)
{
    nsysp_rank *r = rb->rank;
    if (rb->busy.open)
        add_to_bins(b, r, rb->busy.start, rb->busy.end);
    r->busy_ns = busy_union_total(&rb->busy);
    r->compute_ns = busy_union_total(&rb->compute);
    r->comm_ns = busy_union_total(&rb->comm);
    r->memory_ns = busy_union_total(&rb->memory);
    r->exposed_comm_ns = busy_union_total(&rb->compute_or_comm) - r->compute_ns;
    for (size_t i = 0; i < r->n_bins; i++)
        if (r->utilization[i] > 1)
            r->utilization[i] = 1; /* rounding of the bins' edges */
}

static nsysp_rank *new_rank(ranks_build *b, int32_t pid)
{
    nsysp_ranks *out = b->out;
    out->ranks = xgrow(out->ranks, &b->ranks_cap, out->n_ranks + 1, sizeof *out->ranks);
    nsysp_rank *r = &out->ranks[out->n_ranks++];
    memset(r, 0, sizeof *r);
    r->pid = pid;
    r->device = -1;
    r->mpi_rank = -1;
    r->start_utc = INT64_MAX;
    r->end_utc = INT64_MIN;
    r->n_bins = b->n_bins;
    r->utilization = xcalloc(b->n_bins ? b->n_bins : 1, sizeof *r->utilization);
    return r;
}

static nsysp_rank *rank_of(nsysp_ranks *out, int32_t pid)
{
    for (size_t i = 0; i < out->n_ranks; i++)
        if (out->ranks[i].pid == pid)
            return &out->ranks[i];
    return NULL;
}

/* ---- The queries ------------------------------------------------------- */

/* Kernels (NCCL ones apart), copies and sets of every process, by process
 * then start; times beyond NSYS_MAX_TIME left out, as the converter does. */
static int gpu_work(ranks_build *b)
{
    static const char *const KERNEL[] = {"globalPid", "start", "end", "shortName"};
    static const char *const OTHER[] = {"globalPid", "start", "end"};
    static const char *const OTHERS[] = {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"};
    buf sql = {0};
    if (nsys_db_has_columns(b->db, "CUPTI_ACTIVITY_KIND_KERNEL", KERNEL, LENGTH(KERNEL)) &&
        nsys_db_has_table(b->db, "StringIds"))
        buf_printf(&sql, "SELECT k.globalPid AS p, k.start AS s, k.\"end\" AS e,"
                         " CASE WHEN n.value LIKE 'nccl%%' THEN %d ELSE %d END AS w, n.value AS name"
                         " FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"
                         " LEFT JOIN StringIds AS n ON n.id = k.shortName",
                   WORK_COMM, WORK_COMPUTE);
    for (size_t i = 0; i < LENGTH(OTHERS); i++)
        if (nsys_db_has_columns(b->db, OTHERS[i], OTHER, LENGTH(OTHER)))
            buf_printf(&sql, "%sSELECT globalPid AS p, start AS s, \"end\" AS e, %d AS w,"
                             " NULL AS name FROM %s",
                       sql.len ? " UNION ALL " : "", WORK_MEMORY, OTHERS[i]);
    if (!sql.len)
        return NSYSP_OK;
    buf wrapped = {0};
    buf_printf(&wrapped, "SELECT p, s, e, w, name FROM (%s) WHERE p IS NOT NULL AND e >= s"
                         " AND s >= %" PRId64 " AND e <= %" PRId64 " ORDER BY p, s",
               buf_cstr(&sql), -NSYS_MAX_TIME, NSYS_MAX_TIME);
    buf_free(&sql);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(b->db), buf_cstr(&wrapped), -1, &st, NULL);
    buf_free(&wrapped);
    if (rc != SQLITE_OK)
        return sql_error(b->db, rc, &b->err);
    rank_build rb = {0};
    int64_t gpid = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t p = sqlite3_column_int64(st, 0);
        if (!rb.rank || p != gpid) {
            if (rb.rank)
                finish_rank(b, &rb);
            memset(&rb, 0, sizeof rb);
            rb.rank = new_rank(b, nsys_pid_of(p));
            gpid = p;
        }
        add_work(b, &rb, (enum work_kind)sqlite3_column_int(st, 3), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 2), (const char *)sqlite3_column_text(st, 4));
    }
    if (rb.rank)
        finish_rank(b, &rb);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(b->db, rc, &b->err);
}

/* Runs sql (?1 bound to bound, ?2 to flag) and calls each for its rows. */
static int each_row(ranks_build *b, const char *sql, const char *bound, bool flag,
                    void (*each)(ranks_build *, sqlite3_stmt *, void *), void *ctx)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(b->db), sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(b->db, rc, &b->err);
    if (bound)
        sqlite3_bind_text(st, 1, bound, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, flag);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        each(b, st, ctx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(b->db, rc, &b->err);
}

/* (globalPid, deviceId, kernels), most kernels first: the first seen wins. */
static void on_device(ranks_build *b, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    nsysp_rank *r = rank_of(b->out, nsys_pid_of(sqlite3_column_int64(st, 0)));
    if (r && r->device < 0)
        r->device = sqlite3_column_int64(st, 1);
}

/* (globalTid, rank): a process's MPI rank, its lowest thread's. */
static void on_mpi_rank(ranks_build *b, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    nsysp_rank *r = rank_of(b->out, nsys_pid_of(sqlite3_column_int64(st, 0)));
    if (r && r->mpi_rank < 0 && sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
        sqlite3_column_int64(st, 1) >= 0)
        r->mpi_rank = sqlite3_column_int64(st, 1);
}

/* Step instances, by thread then start: each process keeps the thread with
 * the most (its main loop). */
typedef struct steps_read {
    int64_t *start, *end;
    size_t n, cap, cap2;
    int64_t tid;
    size_t from;                 /* where the current thread's instances begin */
} steps_read;

static void give_steps(ranks_build *b, steps_read *s, size_t to)
{
    nsysp_rank *r = rank_of(b->out, nsys_pid_of(s->tid));
    size_t n = to - s->from;
    if (!r || n <= r->n_steps)
        return;
    free(r->step_start_utc);
    free(r->step_ns);
    r->step_start_utc = xcalloc(n, sizeof *r->step_start_utc);
    r->step_ns = xcalloc(n, sizeof *r->step_ns);
    for (size_t i = 0; i < n; i++) {
        r->step_start_utc[i] = on_clock(b, s->start[s->from + i]);
        r->step_ns[i] = on_clock(b, s->end[s->from + i]) - r->step_start_utc[i];
    }
    r->n_steps = n;
}

static void on_step(ranks_build *b, sqlite3_stmt *st, void *ctx)
{
    steps_read *s = ctx;
    int64_t tid = sqlite3_column_int64(st, 0);
    if (s->n && tid != s->tid) {
        give_steps(b, s, s->n);
        s->from = s->n;
    }
    s->tid = tid;
    s->start = xgrow(s->start, &s->cap, s->n + 1, sizeof *s->start);
    s->end = xgrow(s->end, &s->cap2, s->n + 1, sizeof *s->end);
    s->start[s->n] = sqlite3_column_int64(st, 1);
    s->end[s->n++] = sqlite3_column_int64(st, 2);
}

#define STEP_INSTANCES                                                                         \
    "SELECT e.globalTid, e.start, e.\"end\" FROM NVTX_EVENTS AS e"                              \
    " LEFT JOIN StringIds AS s ON s.id = e.textId"                                             \
    " WHERE e.eventType IN (59, 60, 70, 71) AND e.\"end\" >= e.start"                          \
    " AND CASE WHEN ?2 THEN nsysp_range_name(coalesce(e.text, s.value)) GLOB 'ProfilerStep#*'" \
    " ELSE nsysp_range_name(coalesce(e.text, s.value)) = ?1 END"                               \
    " ORDER BY e.globalTid, e.start"

/* The ranks' steps: the job's (its name and how it was chosen), else the
 * report's own, found. */
static int steps_of_ranks(ranks_build *b, const char *job_step, nsysp_step_rule job_rule)
{
    nsysp_measures m;
    memset(&m, 0, sizeof m);
    int status = NSYSP_OK;
    if (job_step && !*job_step)
        return NSYSP_OK; /* the job has no step */
    if (job_step) {
        snprintf(m.step_name, sizeof m.step_name, "%s", job_step);
        m.step_rule = job_rule == NSYSP_STEP_NONE ? NSYSP_STEP_GIVEN : job_rule;
    } else {
        status = measure_steps(b->db, &m, NULL, &b->err);
    }
    if (status != NSYSP_OK || m.step_rule == NSYSP_STEP_NONE)
        return status;
    snprintf(b->out->step_name, sizeof b->out->step_name, "%s", m.step_name);
    b->out->step_rule = m.step_rule;
    steps_read s = {0};
    status = each_row(b, STEP_INSTANCES, m.step_name, m.step_rule == NSYSP_STEP_PROFILER,
                      on_step, &s);
    if (status == NSYSP_OK && s.n)
        give_steps(b, &s, s.n);
    free(s.start);
    free(s.end);
    return status;
}

/* The report's time zero in UTC, and its session's span. */
static int session_of(ranks_build *b)
{
    sqlite3_stmt *st;
    b->out->session_ns = -1;
    if (nsys_db_has_column(b->db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") &&
        sqlite3_prepare_v2(nsys_db_sqlite(b->db),
                           "SELECT min(utcEpochNs) FROM TARGET_INFO_SESSION_START_TIME"
                           " WHERE utcEpochNs > 0", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
            b->offset = sqlite3_column_int64(st, 0);
            b->utc_known = b->offset > 0 && b->offset < NSYS_MAX_TIME; /* plausible */
        }
        sqlite3_finalize(st);
    }
    if (!b->utc_known) /* the job's guess: its session started with the job's first */
        b->offset = b->unknown_clock_utc >= 0 && b->unknown_clock_utc < NSYS_MAX_TIME
                        ? b->unknown_clock_utc : 0;
    b->out->session_start_utc = b->offset;
    static const char *const COLUMNS[] = {"startTime", "stopTime"};
    if (nsys_db_has_columns(b->db, "ANALYSIS_DETAILS", COLUMNS, LENGTH(COLUMNS)) &&
        sqlite3_prepare_v2(nsys_db_sqlite(b->db),
                           "SELECT min(startTime), max(stopTime) FROM ANALYSIS_DETAILS"
                           " WHERE stopTime >= startTime", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
            b->session_start = sqlite3_column_int64(st, 0);
            b->out->session_ns = sqlite3_column_int64(st, 1) - b->session_start;
        }
        sqlite3_finalize(st);
    }
    return NSYSP_OK;
}

static int devices_and_mpi_ranks(ranks_build *b);

/* By device, then pid (a process with no kernel, device unknown, last): the
 * order the rank rules number a report's processes in. */
static int by_device_then_pid(const void *a, const void *b)
{
    const nsysp_rank *x = a, *y = b;
    if ((x->device < 0) != (y->device < 0))
        return x->device < 0 ? 1 : -1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static void order_ranks(nsysp_ranks *out)
{
    if (out->n_ranks > 1)
        qsort(out->ranks, out->n_ranks, sizeof *out->ranks, by_device_then_pid);
}

static int measure(ranks_build *b, const char *step, nsysp_step_rule step_rule)
{
    int status = measure_register_range_name(b->db, &b->err);
    if (status == NSYSP_OK)
        status = session_of(b);
    if (status == NSYSP_OK)
        status = gpu_work(b);
    if (status == NSYSP_OK)
        status = devices_and_mpi_ranks(b);
    static const char *const NVTX[] = {"start", "end", "eventType", "globalTid", "text",
                                       "textId"};
    if (status == NSYSP_OK && b->out->n_ranks &&
        nsys_db_has_columns(b->db, "NVTX_EVENTS", NVTX, LENGTH(NVTX)) &&
        nsys_db_has_table(b->db, "StringIds"))
        status = steps_of_ranks(b, step, step_rule);
    order_ranks(b->out);
    return status;
}

/* The processes that ran GPU work, by globalPid: the ranks gpu_work finds,
 * without their figures. */
static int gpu_processes(ranks_build *b)
{
    static const char *const TABLES[] = GPU_BUSY_TABLES;
    static const char *const COLUMNS[] = {"globalPid", "start", "end"};
    buf sql = {0};
    for (size_t i = 0; i < LENGTH(TABLES); i++)
        if (nsys_db_has_columns(b->db, TABLES[i], COLUMNS, LENGTH(COLUMNS)))
            buf_printf(&sql, "%sSELECT DISTINCT globalPid FROM %s WHERE globalPid IS NOT NULL"
                             " AND \"end\" >= start AND start >= %" PRId64 " AND \"end\" <= %" PRId64,
                       sql.len ? " UNION " : "", TABLES[i], -NSYS_MAX_TIME, NSYS_MAX_TIME);
    if (!sql.len)
        return NSYSP_OK;
    buf_append_str(&sql, " ORDER BY 1");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(b->db), buf_cstr(&sql), -1, &st, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_error(b->db, rc, &b->err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        new_rank(b, nsys_pid_of(sqlite3_column_int64(st, 0)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(b->db, rc, &b->err);
}

/* The device and MPI rank of each rank found (measure's queries). */
static int devices_and_mpi_ranks(ranks_build *b)
{
    int status = NSYSP_OK;
    static const char *const KERNEL[] = {"globalPid", "deviceId"};
    if (nsys_db_has_columns(b->db, "CUPTI_ACTIVITY_KIND_KERNEL", KERNEL, LENGTH(KERNEL)))
        status = each_row(b, "SELECT globalPid, deviceId, count(*) AS n"
                             " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId IS NOT NULL"
                             " GROUP BY globalPid, deviceId ORDER BY n DESC, deviceId",
                          NULL, false, on_device, NULL);
    static const char *const MPI[] = {"globalTid", "rank"};
    if (status == NSYSP_OK && nsys_db_has_columns(b->db, "MPI_RANKS", MPI, LENGTH(MPI)))
        status = each_row(b, "SELECT globalTid, rank FROM MPI_RANKS ORDER BY globalTid", NULL,
                          false, on_mpi_rank, NULL);
    return status;
}

/* (globalPid, count): how many NCCL kernels a process ran. */
static void on_nccl_count(ranks_build *b, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    nsysp_rank *r = rank_of(b->out, nsys_pid_of(sqlite3_column_int64(st, 0)));
    if (r)
        r->n_collectives = (size_t)sqlite3_column_int64(st, 1);
}

/* The NCCL kernels of each process, counted (as gpu_work tells them). */
static int nccl_counts(ranks_build *b)
{
    static const char *const KERNEL[] = {"globalPid", "shortName"};
    if (!nsys_db_has_columns(b->db, "CUPTI_ACTIVITY_KIND_KERNEL", KERNEL, LENGTH(KERNEL)) ||
        !nsys_db_has_table(b->db, "StringIds"))
        return NSYSP_OK;
    return each_row(b, "SELECT k.globalPid, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"
                       " JOIN StringIds AS n ON n.id = k.shortName WHERE n.value LIKE 'nccl%'"
                       " GROUP BY k.globalPid",
                    NULL, false, on_nccl_count, NULL);
}

int ranks_identify(nsys_db *db, nsysp_ranks *out, buf *err)
{
    memset(out, 0, sizeof *out);
    ranks_build b = {.db = db, .out = out};
    hmap_init(&b.names);
    int status = gpu_processes(&b);
    if (status == NSYSP_OK)
        status = devices_and_mpi_ranks(&b);
    if (status == NSYSP_OK)
        status = nccl_counts(&b);
    order_ranks(out);
    if (status != NSYSP_OK) {
        buf_append_str(err, buf_cstr(&b.err));
        nsysp_ranks_free(out);
    }
    hmap_free(&b.names);
    buf_free(&b.err);
    return status;
}

nsysp_status nsysp_measure_ranks_in_job(const char *input, const nsysp_ranks_job *job,
                                        nsysp_ranks *out)
{
    memset(out, 0, sizeof *out);
    ranks_build b = {.out = out, .window_start = job->window_start_utc,
                     .window_end = job->window_end_utc, .n_bins = job->n_bins,
                     .unknown_clock_utc = job->unknown_clock_utc};
    hmap_init(&b.names);
    int status = NSYSP_OK;
    volatile sig_atomic_t *cancel = summary_cancel_flag();
    b.db = nsys_db_open(input, &b.err, &status);
    if (b.db) {
        nsys_db_set_cancel(b.db, cancel);
        status = measure(&b, job->step_range, job->step_rule);
        nsys_db_close(b.db);
    }
    if (status == NSYSP_OK && cancel_requested(cancel)) {
        buf_printf(&b.err, "%s: interrupted", input);
        status = NSYSP_ERR_INTERRUPTED;
    }
    if (status != NSYSP_OK) {
        char message[sizeof out->message];
        snprintf(message, sizeof message, "%s", buf_cstr(&b.err));
        nsysp_ranks_free(out);
        memcpy(out->message, message, sizeof message);
    }
    hmap_free(&b.names);
    buf_free(&b.err);
    return (nsysp_status)status;
}

nsysp_status nsysp_measure_ranks(const char *input, const char *step, int64_t window_start,
                                 int64_t window_end, size_t n_bins, nsysp_ranks *out)
{
    nsysp_ranks_job job = {.step_range = step, .step_rule = NSYSP_STEP_GIVEN,
                           .window_start_utc = window_start, .window_end_utc = window_end,
                           .n_bins = n_bins};
    return nsysp_measure_ranks_in_job(input, &job, out);
}

/* The first GPU operation's start and the last one's end (report time),
 * over the rows gpu_work reads: the job's window is its GPU work's (a
 * session may start long before, and some exports' ANALYSIS_DETAILS times
 * are on another base). */
static void gpu_span(ranks_build *b, int64_t *lo, int64_t *hi)
{
    static const char *const TABLES[] = GPU_BUSY_TABLES;
    static const char *const COLUMNS[] = {"globalPid", "start", "end"};
    for (size_t i = 0; i < LENGTH(TABLES); i++) {
        if (!nsys_db_has_columns(b->db, TABLES[i], COLUMNS, LENGTH(COLUMNS)))
            continue;
        buf sql = {0};
        buf_printf(&sql, "SELECT min(start), max(\"end\") FROM %s WHERE globalPid IS NOT NULL"
                         " AND \"end\" >= start AND start >= %" PRId64 " AND \"end\" <= %" PRId64,
                   TABLES[i], -NSYS_MAX_TIME, NSYS_MAX_TIME);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(nsys_db_sqlite(b->db), buf_cstr(&sql), -1, &st, NULL) ==
            SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
                int64_t s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1);
                if (*lo >= *hi || s < *lo)
                    *lo = s;
                if (e > *hi)
                    *hi = e;
            }
            sqlite3_finalize(st);
        }
        buf_free(&sql);
    }
}

nsysp_status nsysp_ranks_survey_report(const char *input, const char *step,
                                       nsysp_ranks_survey *survey)
{
    memset(survey, 0, sizeof *survey);
    nsysp_ranks out;
    memset(&out, 0, sizeof out);
    ranks_build b = {.out = &out};
    int status = NSYSP_OK;
    b.db = nsys_db_open(input, &b.err, &status);
    if (b.db) {
        nsys_db_set_cancel(b.db, summary_cancel_flag());
        session_of(&b);
        survey->utc_known = b.utc_known;
        survey->session_start_utc = b.utc_known ? b.offset : 0;
        gpu_span(&b, &survey->start, &survey->end);
        if (survey->start >= survey->end)
            survey->start = survey->end = 0;
        nsysp_measures m;
        memset(&m, 0, sizeof m);
        if (!step && (status = measure_register_range_name(b.db, &b.err)) == NSYSP_OK &&
            (status = measure_steps(b.db, &m, NULL, &b.err)) == NSYSP_OK) {
            snprintf(survey->step_name, sizeof survey->step_name, "%s", m.step_name);
            survey->step_rule = m.step_rule;
            survey->n_steps = m.n_steps;
        }
        nsys_db_close(b.db);
    }
    if (status != NSYSP_OK)
        snprintf(survey->message, sizeof survey->message, "%s", buf_cstr(&b.err));
    buf_free(&b.err);
    return (nsysp_status)status;
}

nsysp_status nsysp_ranks_window(const char *input, int64_t *start_utc, int64_t *end_utc,
                                char message[512])
{
    nsysp_ranks_survey survey;
    int status = nsysp_ranks_survey_report(input, "", &survey);
    ranks_build clock = {.offset = survey.session_start_utc};
    *start_utc = *end_utc = 0;
    if (survey.start < survey.end) {
        *start_utc = on_clock(&clock, survey.start);
        *end_utc = on_clock(&clock, survey.end);
    }
    snprintf(message, 512, "%s", survey.message);
    return (nsysp_status)status;
}

void nsysp_ranks_free(nsysp_ranks *out)
{
    for (size_t i = 0; i < out->n_ranks; i++) {
        nsysp_rank *r = &out->ranks[i];
        free(r->step_start_utc);
        free(r->step_ns);
        free(r->utilization);
        free(r->collectives);
    }
    free(out->ranks);
    for (size_t i = 0; i < out->n_names; i++)
        free(out->names[i]);
    free(out->names);
    memset(out, 0, sizeof *out);
}
