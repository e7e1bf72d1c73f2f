#include "nsys_links.h"

#include <inttypes.h>
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

/* One table's upsert. Rows come in time order, so their keys are nearly in
 * key order: counting by upsert touches few pages and needs no sort. */
static void count_table(nsys_db *db, const char *table, bool linked, bool work,
                        const nsys_link_filter *filter, buf *sql)
{
    /* Table names come from the fixed source registry, never from input. */
    const char *is_work = work ? "(t.deviceId IS NOT NULL AND t.\"end\" >= t.start)" : "0";
    buf is_linked = {0};
    if (linked)
        linked_condition(db, table, filter, &is_linked);
    else
        buf_append_str(&is_linked, "0");
    buf_printf(sql,
               "INSERT INTO gpu_calls SELECT * FROM (SELECT t.globalPid AS gpid,"
               " t.correlationId AS corr, COALESCE(t.deviceId, -1) AS dev,"
               " CASE WHEN %s THEN t.start END AS start, CASE WHEN %s THEN t.\"end\" END AS \"end\","
               " %s AS work, %s AS linked, CASE WHEN %s THEN t.start END AS first"
               " FROM \"%s\" AS t"
               " WHERE t.globalPid IS NOT NULL AND t.correlationId IS NOT NULL)"
               " WHERE work OR linked"
               " ON CONFLICT DO UPDATE SET"
               " start = COALESCE(min(start, excluded.start), start, excluded.start),"
               " \"end\" = COALESCE(max(\"end\", excluded.\"end\"), \"end\", excluded.\"end\"),"
               " work = work + excluded.work, linked = linked + excluded.linked,"
               " first = COALESCE(min(first, excluded.first), first, excluded.first);",
               is_work, is_work, is_work, buf_cstr(&is_linked), buf_cstr(&is_linked), table);
    buf_free(&is_linked);
}

int nsys_links_build(nsys_db *db, const nsys_gpu_tables *tables, buf *err)
{
    buf sql = {0};
    buf_append_str(&sql, "CREATE TEMP TABLE gpu_calls(gpid INTEGER, corr INTEGER, dev INTEGER,"
                         " start INTEGER, \"end\" INTEGER, work INTEGER, linked INTEGER, first INTEGER,"
                         " PRIMARY KEY (gpid, corr, dev)) WITHOUT ROWID;");
    size_t header = sql.len;
    for (int list = 0; list < 2; list++) {
        const char *const *names = list ? tables->work : tables->linked;
        size_t n = list ? tables->n_work : tables->n_linked;
        for (size_t i = 0; i < n; i++) {
            bool linked = listed(names[i], tables->linked, tables->n_linked);
            bool work = listed(names[i], tables->work, tables->n_work);
            /* A table in both lists is counted once, from the first. */
            if (!countable(db, names[i]) || (list == 1 && linked))
                continue;
            count_table(db, names[i], linked, work, &tables->filter, &sql);
        }
    }
    int status = NSYSP_OK;
    if (sql.len > header)
        status = nsys_db_create(db, NSYS_GPU_CALLS_TABLE, buf_cstr(&sql), err);
    buf_free(&sql);
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
