#include "nsys_nvtx_gpu.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_keywalk.h"
#include "nsys_links.h"
#include "nsys_perfetto.h"
#include "nsys_readahead.h"
#include "common/pairmap.h"
#include "common/xalloc.h"

/* ---- The two time-ordered inputs ---------------------------------------- */

typedef struct range_row {
    int64_t tid, start, end, text_id, domain;
    const char *text;
} range_row;

typedef struct call_row {
    int64_t tid, start, corr;
} call_row;

static const nsys_column RANGE_COLUMNS[] = {
    NSYS_COL_REQ(range_row, tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(range_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(range_row, end, "end", NSYS_INT),
    NSYS_COL(range_row, text, "text", NSYS_TEXT),
    NSYS_COL(range_row, text_id, "textId", NSYS_INT),
    NSYS_COL(range_row, domain, "domainId", NSYS_INT),
};

/* Ranges that end on another thread are left out, as in NVIDIA's own
 * projection. */
static const nsys_table RANGES = {
    "NVTX_EVENTS", RANGE_COLUMNS, sizeof RANGE_COLUMNS / sizeof RANGE_COLUMNS[0],
    NSYS_ORDER_BY("start"),
    "eventType IN (59, 60, 70, 71) AND globalTid IS NOT NULL",
};
static const nsys_table RANGES_ON_ONE_THREAD = {
    "NVTX_EVENTS", RANGE_COLUMNS, sizeof RANGE_COLUMNS / sizeof RANGE_COLUMNS[0],
    NSYS_ORDER_BY("start"),
    "eventType IN (59, 60, 70, 71) AND globalTid IS NOT NULL AND endGlobalTid IS NULL",
};

static const nsys_column CALL_COLUMNS[] = {
    NSYS_COL_REQ(call_row, tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(call_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(call_row, corr, "correlationId", NSYS_INT),
};

/* An input read in time order: as stored unless known not to be (a walk
 * that finds it out of order starts again with it sorted), on a reader
 * thread when ra is given. */
static int open_in_time_order(nsys_db *db, nsys_readahead *ra, const nsys_table *t,
                              size_t row_size, nsys_rows *rows, buf *err)
{
    bool as_stored = nsys_table_checkable_order(t) && nsys_table_known_order(db, t) != 0;
    return nsys_rows_open(db, ra, t, as_stored, row_size, rows, err);
}

/* ---- Ranges open on each thread, and what they cover ------------------ */

typedef struct covered {
    int64_t device, start, end, ops;
} covered;

typedef struct open_range {
    int64_t tid, end, text_id, domain;
    char *text;              /* a copy, or NULL */
    covered *devices;
    size_t n_devices, cap_devices;
} open_range;

typedef struct thread_ranges {
    open_range *open;
    size_t n_open, cap_open;
} thread_ranges;

typedef struct projection {
    nsys_db *db;
    pairmap thread_index;    /* globalTid -> index + 1 in threads */
    thread_ranges *threads;
    size_t n_threads, cap_threads;
    nsys_keywalk *ops_of_call;   /* per device: first start, last end, count */
    sqlite3_stmt *insert;
    buf *err;
    int status;
} projection;

static thread_ranges *thread_of(projection *p, int64_t tid, bool create)
{
    uint64_t *index = create ? pairmap_upsert(&p->thread_index, tid, 0)
                             : pairmap_find(&p->thread_index, tid, 0);
    if (!index)
        return NULL;
    if (!*index) {
        p->threads = xgrow(p->threads, &p->cap_threads, p->n_threads + 1, sizeof *p->threads);
        p->threads[p->n_threads] = (thread_ranges){0};
        *index = ++p->n_threads;
    }
    return &p->threads[*index - 1];
}

static int step_error(projection *p, int rc, const char *what)
{
    p->status = nsys_db_error(p->db, rc, what, p->err);
    return -1;
}

/* Writes what a range covered, one row per device, and forgets it. */
static int close_range(projection *p, thread_ranges *t, size_t i)
{
    open_range *r = &t->open[i];
    for (size_t d = 0; d < r->n_devices; d++) {
        const covered *c = &r->devices[d];
        sqlite3_stmt *st = p->insert;
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, c->start);
        sqlite3_bind_int64(st, 2, c->end);
        sqlite3_bind_int64(st, 3, c->device);
        sqlite3_bind_int64(st, 4, c->ops);
        if (r->text)
            sqlite3_bind_text(st, 5, r->text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        const int64_t ints[] = {r->text_id, r->domain, r->tid};
        for (int k = 0; k < 3; k++)
            if (ints[k] == NSYS_NULL)
                sqlite3_bind_null(st, 6 + k);
            else
                sqlite3_bind_int64(st, 6 + k, ints[k]);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
            return step_error(p, rc, "projecting NVTX ranges");
    }
    free(r->devices);
    free(r->text);
    t->open[i] = t->open[--t->n_open];
    return 0;
}

/* Closes the thread's ranges that ended before time (or all). */
static int close_ended(projection *p, thread_ranges *t, int64_t time, bool all)
{
    for (size_t i = t->n_open; i-- > 0;)
        if ((all || t->open[i].end < time) && close_range(p, t, i) < 0)
            return -1;
    return 0;
}

/* Adds work on device to what r covers. Devices are kept in device order,
 * whatever order the work came in (the GPU work per call may be read from
 * several parts, nsys_links.h), so the rows a range writes are the same. */
static void cover(open_range *r, int64_t device, int64_t start, int64_t end, int64_t ops)
{
    size_t d = 0;
    while (d < r->n_devices && r->devices[d].device < device)
        d++;
    if (d < r->n_devices && r->devices[d].device == device) {
        covered *c = &r->devices[d];
        c->start = start < c->start ? start : c->start;
        c->end = end > c->end ? end : c->end;
        c->ops += ops;
        return;
    }
    r->devices = xgrow(r->devices, &r->cap_devices, r->n_devices + 1, sizeof *r->devices);
    memmove(r->devices + d + 1, r->devices + d, (r->n_devices - d) * sizeof *r->devices);
    r->devices[d] = (covered){device, start, end, ops};
    r->n_devices++;
}

/* A call: its GPU work counts for every range open on its thread. */
static int add_call(projection *p, const call_row *c)
{
    thread_ranges *t = thread_of(p, c->tid, false);
    if (!t)
        return 0;
    if (close_ended(p, t, c->start, false) < 0)
        return -1;
    if (!t->n_open)
        return 0;
    const int64_t *v;
    int n = nsys_keywalk_find(p->ops_of_call, c->tid - (c->tid & 16777215), c->corr, &v, p->err,
                              &p->status);
    for (int k = 0; k < n; k++, v += 4)
        for (size_t i = 0; i < t->n_open && v[3] > 0; i++) /* work of the projected tables */
            cover(&t->open[i], v[0], v[1], v[2], v[3]);
    return n < 0 ? -1 : 0;
}

static int add_range(projection *p, const range_row *r, int64_t report_end)
{
    thread_ranges *t = thread_of(p, r->tid, true);
    if (close_ended(p, t, r->start, false) < 0)
        return -1;
    t->open = xgrow(t->open, &t->cap_open, t->n_open + 1, sizeof *t->open);
    t->open[t->n_open++] = (open_range){
        .tid = r->tid,
        .end = r->end == NSYS_NULL ? report_end : r->end,
        .text_id = r->text_id,
        .domain = r->domain,
        .text = r->text ? xstrdup(r->text) : NULL,
    };
    return 0;
}

/* Walks ranges and calls together in time order (a range opening at a
 * call's start covers it; one ending there too). Returns 0, -1 on an
 * error, or NSYS_CURSOR_OUT_OF_ORDER with *unordered the input that was. */
static int walk(projection *p, nsys_rows *ranges, nsys_rows *calls, int64_t report_end,
                nsys_rows **unordered)
{
    range_row range;
    call_row call;
    int has_range = nsys_rows_next(ranges, &range, p->err, &p->status);
    int has_call = nsys_rows_next(calls, &call, p->err, &p->status);
    /* Until both end, or either fails or breaks its order. */
    while ((has_range > 0 || has_call > 0) && has_range >= 0 && has_call >= 0) {
        if (has_range > 0 && (has_call <= 0 || range.start <= call.start)) {
            if (range.start != NSYS_NULL && add_range(p, &range, report_end) < 0)
                return -1;
            has_range = nsys_rows_next(ranges, &range, p->err, &p->status);
        } else {
            if (call.start != NSYS_NULL && call.tid != NSYS_NULL && call.corr != NSYS_NULL &&
                add_call(p, &call) < 0)
                return -1;
            has_call = nsys_rows_next(calls, &call, p->err, &p->status);
        }
    }
    if (has_range == NSYS_CURSOR_OUT_OF_ORDER || has_call == NSYS_CURSOR_OUT_OF_ORDER) {
        *unordered = has_range == NSYS_CURSOR_OUT_OF_ORDER ? ranges : calls;
        return NSYS_CURSOR_OUT_OF_ORDER;
    }
    if (has_range < 0 || has_call < 0)
        return -1;
    for (size_t i = 0; i < p->n_threads; i++)
        if (close_ended(p, &p->threads[i], 0, true) < 0)
            return -1;
    return 0;
}

static void free_projection(projection *p)
{
    for (size_t i = 0; i < p->n_threads; i++) {
        for (size_t k = 0; k < p->threads[i].n_open; k++) {
            free(p->threads[i].open[k].devices);
            free(p->threads[i].open[k].text);
        }
        free(p->threads[i].open);
    }
    free(p->threads);
    pairmap_free(&p->thread_index);
    nsys_keywalk_close(p->ops_of_call);
    sqlite3_finalize(p->insert);
}

/* ---- Building ------------------------------------------------------------ */

/* The result: one row per (range, device), written as ranges close. */
static int create_result(nsys_db *db, buf *err)
{
    return nsys_db_create(db, NSYS_NVTX_GPU_TABLE,
                          "CREATE TEMP TABLE " NSYS_NVTX_GPU_TABLE "(start INTEGER,"
                          " \"end\" INTEGER, deviceId INTEGER, ops INTEGER, text TEXT,"
                          " textId INTEGER, domainId INTEGER, globalTid INTEGER);",
                          err);
}

static int prepare(projection *p, const char *sql, sqlite3_stmt **st)
{
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(p->db), sql, -1, st, NULL);
    return rc == SQLITE_OK ? 0 : step_error(p, rc, "projecting NVTX ranges");
}

/* One walk over the inputs read as open_in_time_order says; returns
 * NSYS_CURSOR_OUT_OF_ORDER, with *unordered set to the table that was, when
 * an input read as stored was not in order. */
static int project(nsys_db *db, const nsys_table *ranges_table, const nsys_table *calls_table,
                   int64_t report_end, size_t n_readers, const nsys_table **unordered, buf *err)
{
    projection p = {.db = db, .err = err, .status = NSYSP_OK};
    nsys_readahead *ra = n_readers ? nsys_readahead_new(db, n_readers) : NULL;
    nsys_rows ranges = {0}, calls = {0}, *broke = NULL;
    int rc = 0;
    if ((p.status = open_in_time_order(db, ra, ranges_table, sizeof(range_row), &ranges, err)) ==
            NSYSP_OK &&
        (p.status = open_in_time_order(db, ra, calls_table, sizeof(call_row), &calls, err)) ==
            NSYSP_OK &&
        (p.ops_of_call =
             nsys_keywalk_open(db, NSYS_GPU_CALLS_TABLE, "dev, start, \"end\", work", 4)) &&
        prepare(&p, "INSERT INTO temp." NSYS_NVTX_GPU_TABLE " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                &p.insert) == 0) {
        if (ra)
            nsys_readahead_start(ra);
        /* One transaction for all the inserts, not one each. */
        sqlite3_exec(nsys_db_sqlite(db), "BEGIN", NULL, NULL, NULL);
        rc = walk(&p, &ranges, &calls, report_end, &broke);
        sqlite3_exec(nsys_db_sqlite(db), rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    }
    if (rc == NSYS_CURSOR_OUT_OF_ORDER)
        *unordered = broke == &ranges ? ranges_table : calls_table;
    else if (rc < 0 && p.status == NSYSP_OK)
        step_error(&p, SQLITE_CORRUPT, "projecting NVTX ranges");
    nsys_readahead_free(ra);
    nsys_rows_close(&ranges);
    nsys_rows_close(&calls);
    free_projection(&p);
    return rc == NSYS_CURSOR_OUT_OF_ORDER ? rc : p.status;
}

int nsys_nvtx_gpu_build(nsys_db *db, const char *api_table, int64_t report_end, size_t n_readers,
                        buf *err)
{
    static const char *const NEEDED[] = {"start", "end", "eventType", "globalTid"};
    for (size_t i = 0; i < sizeof NEEDED / sizeof *NEEDED; i++)
        if (!nsys_db_has_column(db, "NVTX_EVENTS", NEEDED[i]))
            return NSYSP_OK;
    if (!nsys_db_has_column(db, api_table, "correlationId") ||
        !nsys_db_has_column(db, api_table, "globalTid") ||
        !nsys_db_has_table(db, NSYS_GPU_CALLS_TABLE))
        return NSYSP_OK;
    int status = create_result(db, err);
    if (status != NSYSP_OK)
        return status;
    const nsys_table calls_table = {api_table, CALL_COLUMNS,
                                    sizeof CALL_COLUMNS / sizeof CALL_COLUMNS[0],
                                    NSYS_ORDER_BY("start"), NULL};
    const nsys_table *ranges_table =
        nsys_db_has_column(db, "NVTX_EVENTS", "endGlobalTid") ? &RANGES_ON_ONE_THREAD : &RANGES;
    /* Each walk that breaks sorts one more input: at most three. */
    for (;;) {
        const nsys_table *unordered = NULL;
        status = project(db, ranges_table, &calls_table, report_end, n_readers, &unordered, err);
        if (status != NSYS_CURSOR_OUT_OF_ORDER)
            return status;
        nsys_table_mark_unordered(db, unordered);
    }
}
