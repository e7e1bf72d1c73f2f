#include "summary_gpu.h"

#include <stdbool.h>

#include "nsys_perfetto.h"
#include "nsys/nsys_ids.h"

#define RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"

/* The calls' GPU work, from whichever GPU tables the report has. */
static int build_calls(nsys_db *db, buf *err)
{
    static const char *const GPU_TABLES[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                             "CUPTI_ACTIVITY_KIND_MEMCPY",
                                             "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const OP_COLUMNS[] = {"start", "end", "globalPid", "correlationId"};
    static const char *const CALL_COLUMNS[] = {"start", "end", "globalTid", "correlationId",
                                               "nameId"};
    buf ops = {0}, sql = {0};
    for (size_t i = 0; i < sizeof GPU_TABLES / sizeof *GPU_TABLES; i++)
        if (nsys_db_has_columns(db, GPU_TABLES[i], OP_COLUMNS, 4))
            buf_printf(&ops, "%sSELECT globalPid, correlationId, start, \"end\" FROM %s",
                       ops.len ? " UNION ALL " : "", GPU_TABLES[i]);
    if (ops.len && nsys_db_has_columns(db, RUNTIME, CALL_COLUMNS, 5))
        buf_printf(&sql,
                   "CREATE TEMP TABLE summary_calls AS"
                   " SELECT r.globalTid AS tid, r.start AS start, r.\"end\" AS \"end\","
                   " r.nameId AS nameId, o.first AS first, o.last AS last, o.busy AS busy"
                   " FROM " RUNTIME " AS r JOIN"
                   " (SELECT globalPid AS gpid, correlationId AS corr, min(start) AS first,"
                   " max(\"end\") AS last, sum(\"end\" - start) AS busy FROM (%s)"
                   " GROUP BY globalPid, correlationId) AS o"
                   " ON o.corr = r.correlationId AND o.gpid = (r.globalTid & " NSYS_GPID_MASK_SQL ");",
                   buf_cstr(&ops));
    else
        buf_printf(&sql, "CREATE TEMP TABLE summary_calls(tid INTEGER, start INTEGER,"
                         " \"end\" INTEGER, nameId INTEGER, first INTEGER, last INTEGER,"
                         " busy INTEGER);");
    /* Ranges and library calls look their thread's calls up by time. */
    buf_printf(&sql, "CREATE INDEX temp.summary_calls_by_thread ON summary_calls(tid, start);");
    int status = nsys_db_create(db, SUMMARY_CALLS_TABLE, buf_cstr(&sql), err);
    buf_free(&ops);
    buf_free(&sql);
    return status;
}

/* Every NVTX push/pop and start/end range as nsys stats' NVTX reports see
 * it: named "DOMAIN:text" in a named domain (the domain's first name in its
 * process), a range still open ending at the last NVTX timestamp. */
static int build_nvtx(nsys_db *db, buf *err)
{
    static const char *const RANGE_COLUMNS[] = {"start", "end", "eventType", "globalTid",
                                                "text", "textId", "domainId"};
    if (!nsys_db_has_columns(db, "NVTX_EVENTS", RANGE_COLUMNS, 7) || !nsys_db_has_table(db, "StringIds"))
        return nsys_db_create(db, SUMMARY_NVTX_VIEW,
                              "CREATE TEMP TABLE summary_nvtx(id INTEGER, tid INTEGER,"
                              " start INTEGER, \"end\" INTEGER, name TEXT,"
                              " other_thread INTEGER);",
                              err);
    bool end_tid = nsys_db_has_column(db, "NVTX_EVENTS", "endGlobalTid");
    buf sql = {0};
    buf_printf(&sql,
               "CREATE TEMP VIEW summary_nvtx AS"
               " WITH last_time AS (SELECT max(max(start), max(\"end\")) AS t FROM NVTX_EVENTS),"
               " domains AS (SELECT domainId AS id, globalTid & " NSYS_PID_MASK_SQL " AS pid,"
               " text AS name, min(start) FROM NVTX_EVENTS WHERE eventType = 75"
               " GROUP BY domainId, globalTid & " NSYS_PID_MASK_SQL ")"
               " SELECT e.rowid AS id, e.globalTid AS tid, e.start AS start,"
               " ifnull(e.\"end\", (SELECT t FROM last_time)) AS \"end\","
               " CASE WHEN coalesce(s.value, e.text) IS NULL THEN NULL"
               " ELSE coalesce(d.name || ':', '') || coalesce(s.value, e.text) END AS name,"
               " %s AS other_thread"
               " FROM NVTX_EVENTS AS e"
               " LEFT JOIN domains AS d ON d.id = e.domainId"
               " AND d.pid = (e.globalTid & " NSYS_PID_MASK_SQL ")"
               " LEFT JOIN StringIds AS s ON s.id = e.textId"
               " WHERE e.eventType IN (59, 60, 70, 71);",
               end_tid ? "e.endGlobalTid IS NOT NULL" : "0");
    int status = nsys_db_create(db, SUMMARY_NVTX_VIEW, buf_cstr(&sql), err);
    buf_free(&sql);
    return status;
}

/* One row per range that covered GPU work. (A call's start is bounded by
 * the range's end too, so that the index limits the search.) Ranges ending
 * on another thread are left out, as nvtxgpuproj does. */
static int build_ranges(nsys_db *db, buf *err)
{
    return nsys_db_create(db, SUMMARY_RANGES_TABLE,
                          "CREATE TEMP TABLE summary_ranges AS"
                          " SELECT r.name AS name, max(c.last) - min(c.first) AS proj,"
                          " sum(c.busy) AS busy"
                          " FROM " SUMMARY_NVTX_VIEW " AS r JOIN " SUMMARY_CALLS_TABLE " AS c"
                          " ON c.tid = r.tid AND c.start >= r.start AND c.start <= r.\"end\""
                          " AND c.\"end\" <= r.\"end\""
                          " WHERE NOT r.other_thread"
                          " GROUP BY r.id;",
                          err);
}

int summary_gpu_build(nsys_db *db, buf *err)
{
    int status = build_calls(db, err);
    if (status == NSYSP_OK)
        status = build_nvtx(db, err);
    return status == NSYSP_OK ? build_ranges(db, err) : status;
}
