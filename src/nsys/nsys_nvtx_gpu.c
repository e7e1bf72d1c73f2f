#include "nsys_nvtx_gpu.h"

#include <inttypes.h>
#include <stdbool.h>

#include "nsys_perfetto.h"

/* An NVTX column, or NULL for exports that lack it. */
static const char *nvtx_column(nsys_db *db, const char *column)
{
    return nsys_db_has_column(db, "NVTX_EVENTS", column) ? column : "NULL";
}

int nsys_nvtx_gpu_build(nsys_db *db, const char *api_table, const char *const *gpu_tables,
                        size_t n_gpu_tables, int64_t report_end, buf *err)
{
    static const char *const NEEDED[] = {"start", "end", "eventType", "globalTid"};
    for (size_t i = 0; i < sizeof NEEDED / sizeof *NEEDED; i++)
        if (!nsys_db_has_column(db, "NVTX_EVENTS", NEEDED[i]))
            return NSYSP_OK;
    if (!nsys_db_has_column(db, api_table, "correlationId") ||
        !nsys_db_has_column(db, api_table, "globalTid"))
        return NSYSP_OK;
    /* Table names come from the fixed source registry, never from input. */
    buf ops = {0};
    for (size_t i = 0; i < n_gpu_tables; i++) {
        if (!nsys_db_has_column(db, gpu_tables[i], "globalPid") ||
            !nsys_db_has_column(db, gpu_tables[i], "correlationId"))
            continue;
        buf_printf(&ops,
                   "%sSELECT globalPid, correlationId, deviceId, start, \"end\" FROM \"%s\""
                   " WHERE correlationId IS NOT NULL AND \"end\" >= start",
                   ops.len ? " UNION ALL " : "", gpu_tables[i]);
    }
    if (!ops.len)
        return NSYSP_OK;
    bool has_end_thread = nsys_db_has_column(db, "NVTX_EVENTS", "endGlobalTid");

    buf sql = {0};
    buf_printf(&sql,
               "CREATE TEMP TABLE nvtx_calls(tid INTEGER, start INTEGER, gpid INTEGER, corr INTEGER);"
               "INSERT INTO nvtx_calls SELECT globalTid, start, globalTid - (globalTid & 16777215),"
               " correlationId FROM \"%s\" WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL"
               " AND start IS NOT NULL;"
               "CREATE INDEX temp.nvtx_calls_by_thread ON nvtx_calls(tid, start);"
               "CREATE TEMP TABLE nvtx_ops(gpid INTEGER, corr INTEGER, dev INTEGER, start INTEGER,"
               " \"end\" INTEGER);"
               "INSERT INTO nvtx_ops %s;"
               "CREATE INDEX temp.nvtx_ops_by_call ON nvtx_ops(gpid, corr);"
               "CREATE TEMP TABLE nvtx_gpu(id INTEGER, dev INTEGER, start INTEGER, \"end\" INTEGER,"
               " ops INTEGER);"
               "INSERT INTO nvtx_gpu SELECT n.rowid, o.dev, min(o.start), max(o.\"end\"), count(*)"
               " FROM NVTX_EVENTS n"
               " JOIN nvtx_calls c ON c.tid = n.globalTid AND c.start >= n.start"
               "  AND c.start <= COALESCE(n.\"end\", %" PRId64 ")"
               " JOIN nvtx_ops o ON o.gpid = c.gpid AND o.corr = c.corr"
               " WHERE n.eventType IN (59, 60, 70, 71) AND n.start IS NOT NULL%s"
               " GROUP BY n.rowid, o.dev;"
               "DROP TABLE nvtx_calls; DROP TABLE nvtx_ops;"
               "CREATE TEMP VIEW " NSYS_NVTX_GPU_VIEW " AS SELECT g.start AS start,"
               " g.\"end\" AS \"end\", g.dev AS deviceId, g.ops AS ops, n.text AS text,"
               " n.%s AS textId, n.%s AS domainId, n.globalTid AS globalTid, n.%s AS color,"
               " n.%s AS category FROM nvtx_gpu g JOIN NVTX_EVENTS n ON n.rowid = g.id;",
               api_table, buf_cstr(&ops), report_end,
               has_end_thread ? " AND n.endGlobalTid IS NULL" : "", nvtx_column(db, "textId"),
               nvtx_column(db, "domainId"), nvtx_column(db, "color"),
               nvtx_column(db, "category"));
    int status = nsys_db_create(db, NSYS_NVTX_GPU_VIEW, buf_cstr(&sql), err);
    buf_free(&ops);
    buf_free(&sql);
    return status;
}
