#include "nsys_links.h"

#include <inttypes.h>
#include <stdbool.h>

#include "nsys_activity.h"
#include "nsys_perfetto.h"

static bool linkable(nsys_db *db, const char *table, const char *process_column)
{
    return nsys_db_has_column(db, table, process_column) &&
           nsys_db_has_column(db, table, "correlationId");
}

int nsys_links_build(nsys_db *db, const char *api_table, const char *const *gpu_tables,
                     size_t n_gpu_tables, const nsys_link_filter *filter, buf *err)
{
    if (!linkable(db, api_table, "globalTid"))
        return NSYSP_OK;
    /* Table names come from the fixed source registry, never from input. */
    buf ops = {0};
    for (size_t i = 0; i < n_gpu_tables; i++) {
        if (!linkable(db, gpu_tables[i], "globalPid"))
            continue;
        buf_printf(&ops, "%sSELECT globalPid AS gpid, correlationId AS corr FROM \"%s\" AS t",
                   ops.len ? " UNION ALL " : "", gpu_tables[i]);
        /* Work on hidden streams or other devices is not written, so it
         * gets no flow. */
        bool hide = nsys_db_has_table(db, NSYS_HIDDEN_STREAMS_TABLE) &&
                    nsys_db_has_column(db, gpu_tables[i], "contextId");
        /* The filter's numbers are integers printed here, not user text. */
        buf_printf(&ops, " WHERE t.start BETWEEN %" PRId64 " AND %" PRId64, filter->start,
                   filter->end);
        if (hide)
            buf_printf(&ops, " AND NOT EXISTS (%s)", NSYS_HIDDEN_FROM_GPU);
        if (filter->only_device >= 0)
            buf_printf(&ops, " AND t.deviceId = %" PRId64, filter->only_device);
    }
    if (!ops.len)
        return NSYSP_OK;

    buf sql = {0};
    buf_printf(&sql,
               "CREATE TEMP TABLE api_keys(gpid INTEGER, corr INTEGER, PRIMARY KEY (gpid, corr))"
               " WITHOUT ROWID;"
               "INSERT OR IGNORE INTO api_keys"
               " SELECT globalTid - (globalTid & 16777215), correlationId FROM \"%s\""
               " WHERE correlationId IS NOT NULL AND globalTid IS NOT NULL"
               " AND start BETWEEN %" PRId64 " AND %" PRId64 ";"
               "CREATE TEMP TABLE flow_links(gpid INTEGER, corr INTEGER, n INTEGER,"
               " PRIMARY KEY (gpid, corr)) WITHOUT ROWID;"
               "INSERT INTO flow_links SELECT g.gpid, g.corr, count(*) FROM (%s) AS g"
               " WHERE EXISTS (SELECT 1 FROM api_keys a WHERE a.gpid = g.gpid AND a.corr = g.corr)"
               " GROUP BY g.gpid, g.corr;"
               "DROP TABLE api_keys;",
               api_table, filter->start, filter->end, buf_cstr(&ops));
    int status = nsys_db_create(db, NSYS_LINKS_TABLE, buf_cstr(&sql), err);
    buf_free(&ops);
    buf_free(&sql);
    return status;
}
