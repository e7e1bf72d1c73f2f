#include "nsys_links.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_activity.h"
#include "nsys_contexts.h"
#include "nsys_cursor.h"
#include "nsys_keywalk.h"
#include "nsys_perfetto.h"
#include "common/xalloc.h"

static bool countable(nsys_db *db, const char *table)
{
    return nsys_db_has_column(db, table, "globalPid") &&
           nsys_db_has_column(db, table, "correlationId") &&
           nsys_db_has_column(db, table, "deviceId") && nsys_db_has_column(db, table, "start") &&
           nsys_db_has_column(db, table, "end");
}

static bool listed(const char *table, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], table) == 0)
            return true;
    return false;
}

/* How two rows of one key add up: in the upsert, and when parts merge. */
#define COMBINE                                                                   \
    " start = COALESCE(min(start, excluded.start), start, excluded.start),"      \
    " \"end\" = COALESCE(max(\"end\", excluded.\"end\"), \"end\", excluded.\"end\"),"      \
    " work = work + excluded.work, linked = linked + excluded.linked,"          \
    " first = COALESCE(min(first, excluded.first), first, excluded.first)"

/* Whether a row of table t gets a flow (SQL; the row's table is "t"). */
static void linked_condition(nsys_db *db, const char *table, const nsys_link_filter *f, buf *sql)
{
    /* The filter's numbers are integers printed here, not user text. */
    buf_printf(sql, "(t.start BETWEEN %" PRId64 " AND %" PRId64, f->start, f->end);
    /* Work on hidden streams or other devices is not written, so it gets
     * no flow. */
    if (nsys_db_has_table(db, NSYS_HIDDEN_STREAMS_TABLE) &&
        nsys_db_has_column(db, table, "contextId"))
        buf_printf(sql, " AND NOT EXISTS (%s)", NSYS_HIDDEN_FROM_GPU);
    /* --gpu keeps the rows placed on that device: by their context. */
    if (f->only_device >= 0)
        buf_printf(sql, " AND %s = %" PRId64,
                   nsys_db_has_table(db, NSYS_CONTEXT_DEVICES_TABLE) &&
                           nsys_db_has_column(db, table, "contextId")
                       ? NSYS_DEVICE_OF_GPU_ROW
                       : "t.deviceId",
                   f->only_device);
    buf_append_str(sql, ")");
}

/* The rows of a table that one part counts: rowids in [lo, hi), either
 * bound left open when `open_lo` / `open_hi`; `none` when another part
 * counts the whole table. */
typedef struct row_range {
    int64_t lo, hi;
    bool open_lo, open_hi, none;
} row_range;

/* A table's largest rowid when its rows can be shared out by rowid, else 0
 * (a table without rowids, or one whose "rowid" is a column of its own). */
static int64_t splittable_rows(nsys_db *db, const char *table)
{
    if (nsys_db_has_column(db, table, "rowid"))
        return 0;
    int64_t max = nsys_db_row_estimate(db, table);
    return max > 0 ? max : 0;
}

/* Part k of n of a table whose largest rowid is max: an equal share of
 * [1, max], the first part from the lowest rowid, the last to the highest
 * (rows added since max was read, or a hostile rowid, are still counted).
 * A table that cannot be shared out (max 0) is counted whole by part 0. */
static row_range part_rows(int64_t max, size_t k, size_t n)
{
    row_range r = {.open_lo = k == 0, .open_hi = k + 1 == n};
    if (max <= 0) {
        r.open_lo = r.open_hi = true;
        r.none = k > 0;
        return r;
    }
    /* max * j / n + 1 without overflow (max < 2^63, n <= 8), for the
     * bounds that are not open (j < n, so at most max). */
    int64_t step = max / (int64_t)n, rest = max % (int64_t)n;
    if (!r.open_lo)
        r.lo = step * (int64_t)k + rest * (int64_t)k / (int64_t)n + 1;
    if (!r.open_hi)
        r.hi = step * (int64_t)(k + 1) + rest * (int64_t)(k + 1) / (int64_t)n + 1;
    return r;
}

/* One table's upsert. Rows come in time order, so their keys are nearly in
 * key order: counting by upsert touches few pages and needs no sort. */
static void count_table(nsys_db *db, const char *table, bool linked, bool work,
                        const nsys_link_filter *filter, row_range rows, buf *sql)
{
    /* Table names come from the fixed source registry, never from input. */
    const char *is_work = work ? "(t.deviceId IS NOT NULL AND t.\"end\" >= t.start)" : "0";
    buf is_linked = {0}, in_part = {0};
    if (linked)
        linked_condition(db, table, filter, &is_linked);
    else
        buf_append_str(&is_linked, "0");
    if (!rows.open_lo)
        buf_printf(&in_part, " AND t.rowid >= %" PRId64, rows.lo);
    if (!rows.open_hi)
        buf_printf(&in_part, " AND t.rowid < %" PRId64, rows.hi);
    buf_printf(sql,
               "INSERT INTO gpu_calls SELECT * FROM (SELECT t.globalPid AS gpid,"
               " t.correlationId AS corr, COALESCE(t.deviceId, -1) AS dev,"
               " CASE WHEN %s THEN t.start END AS start, CASE WHEN %s THEN t.\"end\" END AS \"end\","
               " %s AS work, %s AS linked, CASE WHEN %s THEN t.start END AS first"
               " FROM \"%s\" AS t"
               " WHERE t.globalPid IS NOT NULL AND t.correlationId IS NOT NULL%s)"
               " WHERE work OR linked"
               " ON CONFLICT DO UPDATE SET" COMBINE ";",
               is_work, is_work, is_work, buf_cstr(&is_linked), buf_cstr(&is_linked), table,
               buf_cstr(&in_part));
    buf_free(&is_linked);
    buf_free(&in_part);
}

/* A table the build counts, once: what for, and how its rows share out. */
typedef struct counted_table {
    const char *name;
    bool linked, work;
    int64_t max_rowid;       /* splittable_rows */
} counted_table;

/* The tables to count, each once though it may be in both lists (from the
 * first); returns how many, into out (room for both lists). */
static size_t tables_to_count(nsys_db *db, const nsys_gpu_tables *tables, counted_table *out)
{
    size_t n = 0;
    for (int list = 0; list < 2; list++) {
        const char *const *names = list ? tables->work : tables->linked;
        size_t n_names = list ? tables->n_work : tables->n_linked;
        for (size_t i = 0; i < n_names; i++) {
            bool linked = listed(names[i], tables->linked, tables->n_linked);
            if (!countable(db, names[i]) || (list == 1 && linked))
                continue;
            out[n++] = (counted_table){names[i], linked,
                                       listed(names[i], tables->work, tables->n_work),
                                       splittable_rows(db, names[i])};
        }
    }
    return n;
}

/* The SQL that builds part k of n of the table (n = 1: all of it). */
static void part_sql(nsys_db *db, const counted_table *counted, size_t n_counted,
                     const nsys_link_filter *filter, size_t k, size_t n, buf *sql)
{
    buf_append_str(sql, "CREATE TEMP TABLE gpu_calls(gpid INTEGER, corr INTEGER, dev INTEGER,"
                        " start INTEGER, \"end\" INTEGER, work INTEGER, linked INTEGER, first INTEGER,"
                        " PRIMARY KEY (gpid, corr, dev)) WITHOUT ROWID;");
    for (size_t i = 0; i < n_counted; i++) {
        const counted_table *t = &counted[i];
        row_range rows = {.open_lo = true, .open_hi = true};
        if (n > 1)
            rows = part_rows(t->max_rowid, k, n);
        if (!rows.none)
            count_table(db, t->name, t->linked, t->work, filter, rows, sql);
    }
}

/* The rows the parts would share, roughly (to decide how many parts);
 * at most INT64_MAX, whatever the rowids. */
static int64_t rows_to_share(const counted_table *counted, size_t n_counted)
{
    int64_t rows = 0;
    for (size_t i = 0; i < n_counted; i++) {
        int64_t max = counted[i].max_rowid;
        rows = rows > INT64_MAX - max ? INT64_MAX : rows + max;
    }
    return rows;
}

/* One part built on a connection and a thread of its own. */
typedef struct part_job {
    nsys_db *db;
    buf sql;
    buf err;
    int status;
    pthread_t thread;
    bool started;
} part_job;

static void *build_part(void *arg)
{
    part_job *j = arg;
    j->status = nsys_db_create(j->db, NSYS_GPU_CALLS_TABLE, buf_cstr(&j->sql), &j->err);
    return NULL;
}

/* A connection for a part, with the small temp tables the counting reads. */
static nsys_db *open_part(nsys_db *db, buf *err, int *status)
{
    static const char *const READ[] = {NSYS_HIDDEN_STREAMS_TABLE, NSYS_CONTEXT_DEVICES_TABLE};
    nsys_db *part = nsys_db_open(nsys_db_path(db), err, status);
    if (!part)
        return NULL;
    nsys_db_set_cancel(part, nsys_db_cancel_flag(db));
    /* It reads each table once, and its part is read once more, in key
     * order, by the lookups: small caches keep memory flat at 8 parts
     * (with 512 KiB ones the 10M mix took 21 % more than the 1M at
     * --threads 8, with these 8 %; no slower). */
    sqlite3_exec(nsys_db_sqlite(part), "PRAGMA main.cache_size=-128; PRAGMA temp.cache_size=-128",
                 NULL, NULL, NULL);
    for (size_t i = 0; i < sizeof READ / sizeof *READ && *status == NSYSP_OK; i++)
        if (nsys_db_has_table(db, READ[i]))
            *status = nsys_db_copy_table(db, part, READ[i], err);
    return part;
}

/* Rows enough for a part of its own: fewer are counted faster than a
 * connection opens. The tests set NSYSP_LINK_PART_ROWS lower, so that
 * small reports are built in parts too. */
enum { ROWS_PER_PART = 100000, MAX_PARTS = 8 };

static int64_t rows_per_part(void)
{
    const char *s = getenv("NSYSP_LINK_PART_ROWS");
    long long v = s ? atoll(s) : 0;
    return v > 0 ? (int64_t)v : ROWS_PER_PART;
}

int nsys_links_build(nsys_db *db, const nsys_gpu_tables *tables, size_t threads, buf *err)
{
    counted_table *counted = xmalloc((tables->n_linked + tables->n_work + 1) * sizeof *counted);
    size_t n_counted = tables_to_count(db, tables, counted);
    int64_t shares = rows_to_share(counted, n_counted) / rows_per_part(); /* >= 0 */
    size_t n = threads < MAX_PARTS ? threads : MAX_PARTS;
    if ((uint64_t)shares < n)
        n = (size_t)shares;
    part_job jobs[MAX_PARTS] = {0};
    nsys_db *parts[MAX_PARTS];
    size_t opened = 0;
    int status = NSYSP_OK;
    /* Parts 1..n-1 on threads of their own; one that cannot start (no
     * file descriptor, no thread) leaves fewer parts, down to one. */
    for (size_t k = 1; k < n; k++) {
        int part_status = NSYSP_OK;
        nsys_db *part = open_part(db, &jobs[opened].err, &part_status);
        if (!part || part_status != NSYSP_OK) {
            nsys_db_close(part);
            buf_free(&jobs[opened].err);
            break;
        }
        jobs[opened++].db = part;
    }
    n = opened + 1;
    for (size_t k = 1; k < n; k++) {
        part_job *j = &jobs[k - 1];
        part_sql(db, counted, n_counted, &tables->filter, k, n, &j->sql);
        j->started = pthread_create(&j->thread, NULL, build_part, j) == 0;
        if (!j->started)
            j->status = nsys_db_create(j->db, NSYS_GPU_CALLS_TABLE, buf_cstr(&j->sql), &j->err);
    }
    buf sql = {0};
    part_sql(db, counted, n_counted, &tables->filter, 0, n, &sql);
    if (n_counted) /* part 0 counts some of every table */
        status = nsys_db_create(db, NSYS_GPU_CALLS_TABLE, buf_cstr(&sql), err);
    buf_free(&sql);
    free(counted);
    for (size_t k = 0; k + 1 < n; k++) {
        part_job *j = &jobs[k];
        if (j->started)
            pthread_join(j->thread, NULL);
        if (status == NSYSP_OK && j->status != NSYSP_OK) {
            buf_clear(err);
            buf_append(err, j->err.data, j->err.len);
            status = j->status;
        }
        parts[k] = j->db;
        buf_free(&j->sql);
        buf_free(&j->err);
    }
    if (status == NSYSP_OK && nsys_db_has_table(db, NSYS_GPU_CALLS_TABLE)) {
        nsys_db_set_table_parts(db, NSYS_GPU_CALLS_TABLE, parts, n - 1);
    } else {
        for (size_t k = 0; k + 1 < n; k++)
            nsys_db_close(parts[k]);
    }
    return status;
}

/* Makes the table whole on db: the other parts' rows added to its own. */
static int merge_parts(nsys_db *db, buf *err)
{
    nsys_db *const *parts;
    size_t n = nsys_db_table_parts(db, NSYS_GPU_CALLS_TABLE, &parts);
    if (!n)
        return NSYSP_OK;
    int status = NSYSP_OK;
    sqlite3_stmt *insert = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "INSERT INTO gpu_calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                                " ON CONFLICT DO UPDATE SET" COMBINE,
                                -1, &insert, NULL);
    if (rc != SQLITE_OK)
        status = nsys_db_error(db, rc, "merging links", err);
    /* One transaction for the inserts (a savepoint: it nests). */
    if (status == NSYSP_OK &&
        (rc = sqlite3_exec(nsys_db_sqlite(db), "SAVEPOINT merge_links", NULL, NULL, NULL)) !=
            SQLITE_OK)
        status = nsys_db_error(db, rc, "merging links", err);
    bool saved = status == NSYSP_OK;
    for (size_t k = 0; k < n && status == NSYSP_OK; k++) {
        sqlite3_stmt *rows = NULL;
        rc = sqlite3_prepare_v2(nsys_db_sqlite(parts[k]),
                                "SELECT gpid, corr, dev, start, \"end\", work, linked, first"
                                " FROM temp.gpu_calls", -1, &rows, NULL);
        if (rc != SQLITE_OK)
            status = nsys_db_error(parts[k], rc, "merging links", err);
        while (status == NSYSP_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
            for (int c = 0; c < 8; c++)
                sqlite3_bind_value(insert, c + 1, sqlite3_column_value(rows, c));
            int put = sqlite3_step(insert);
            sqlite3_reset(insert);
            if (put != SQLITE_DONE)
                status = nsys_db_error(db, put, "merging links", err);
        }
        if (status == NSYSP_OK && rc != SQLITE_DONE)
            status = nsys_db_error(parts[k], rc, "merging links", err);
        sqlite3_finalize(rows);
    }
    if (saved)
        sqlite3_exec(nsys_db_sqlite(db),
                     status == NSYSP_OK ? "RELEASE merge_links"
                                        : "ROLLBACK TO merge_links; RELEASE merge_links",
                     NULL, NULL, NULL);
    sqlite3_finalize(insert);
    nsys_db_set_table_parts(db, NSYS_GPU_CALLS_TABLE, NULL, 0);
    return status;
}

/* The calls whose GPU work starts before them (see nsys_links_build_early):
 * fixed SQL over the registry's CUDA API table. A call's time and filter
 * checks mirror what the CUDA API source writes, so that every call listed
 * is written. */
int nsys_links_build_early(nsys_db *db, const char *api_table, const nsys_link_filter *filter,
                           buf *err)
{
    if (!nsys_db_has_table(db, NSYS_GPU_CALLS_TABLE) || nsys_db_has_table(db, NSYS_EARLY_CALLS_TABLE))
        return NSYSP_OK;
    /* This SQL reads the table whole, on db. */
    int merged = merge_parts(db, err);
    if (merged != NSYSP_OK)
        return merged;
    buf sql = {0};
    buf_printf(&sql,
               "CREATE TEMP TABLE early_calls(gpid INTEGER, corr INTEGER, ops INTEGER,"
               " call_start INTEGER, PRIMARY KEY (gpid, corr)) WITHOUT ROWID;"
               "INSERT INTO early_calls SELECT gpid, corr, ops, call_start FROM"
               " (SELECT g.gpid, g.corr, (SELECT sum(linked) FROM gpu_calls AS a"
               "   WHERE a.gpid = g.gpid AND a.corr = g.corr) AS ops, min(r.start) AS call_start,"
               "   min(g.first) AS first"
               "  FROM \"%s\" AS r JOIN gpu_calls AS g"
               "   ON g.gpid = (r.globalTid & ~0xFFFFFF) AND g.corr = r.correlationId"
               "  WHERE r.globalTid IS NOT NULL AND r.\"end\" >= r.start"
               "   AND r.start BETWEEN %" PRId64 " AND %" PRId64 " AND g.linked > 0"
               "  GROUP BY g.gpid, g.corr)"
               " WHERE first < call_start;",
               api_table, filter->start, filter->end);
    int status = nsys_db_create(db, NSYS_EARLY_CALLS_TABLE, buf_cstr(&sql), err);
    buf_free(&sql);
    return status;
}

struct nsys_links {
    nsys_keywalk *walk;
    nsys_keywalk *early;     /* NULL without early calls */
};

nsys_links *nsys_links_open(nsys_db *db)
{
    if (!nsys_db_has_table(db, NSYS_GPU_CALLS_TABLE))
        return NULL;
    nsys_links *l = xcalloc(1, sizeof *l);
    l->walk = nsys_keywalk_open(db, NSYS_GPU_CALLS_TABLE, "linked, first", 2);
    if (nsys_db_has_table(db, NSYS_EARLY_CALLS_TABLE))
        l->early = nsys_keywalk_open(db, NSYS_EARLY_CALLS_TABLE, "ops, call_start", 2);
    return l;
}

void nsys_links_close(nsys_links *l)
{
    if (!l)
        return;
    nsys_keywalk_close(l->walk);
    nsys_keywalk_close(l->early);
    free(l);
}

int64_t nsys_links_ops_of_call(nsys_links *l, int64_t gpid, int64_t corr, int64_t *first,
                               buf *err, int *status)
{
    *first = NSYS_NULL;
    if (!l || gpid == NSYS_NULL || corr == NSYS_NULL)
        return 0;
    const int64_t *values;
    int rows = nsys_keywalk_find(l->walk, gpid, corr, &values, err, status);
    if (rows < 0)
        return -1;
    int64_t n = 0;
    for (int i = 0; i < rows; i++) { /* one row per device */
        const int64_t *row = values + 2 * i;
        n += row[0];
        if (row[1] != NSYS_NULL && (*first == NSYS_NULL || row[1] < *first))
            *first = row[1];
    }
    return n;
}

bool nsys_links_has_early(const nsys_links *l)
{
    return l && l->early;
}

int64_t nsys_links_early_call(nsys_links *l, int64_t gpid, int64_t corr, int64_t *call_start,
                              buf *err, int *status)
{
    if (!l || !l->early || gpid == NSYS_NULL || corr == NSYS_NULL)
        return 0;
    const int64_t *values;
    int rows = nsys_keywalk_find(l->early, gpid, corr, &values, err, status);
    if (rows <= 0)
        return rows;
    *call_start = values[1];
    return values[0];
}
