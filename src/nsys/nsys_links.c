#include "nsys_links.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "nsys_activity.h"
#include "nsys_cursor.h"
#include "nsys_keywalk.h"
#include "nsys_perfetto.h"
#include "../common/xalloc.h"

static bool linkable(nsys_db *db, const char *table)
{
    return nsys_db_has_column(db, table, "globalPid") &&
           nsys_db_has_column(db, table, "correlationId");
}

int nsys_links_build(nsys_db *db, const char *const *gpu_tables, size_t n_gpu_tables,
                     const nsys_link_filter *filter, buf *err)
{
    /* Table names come from the fixed source registry, never from input;
     * the filter's numbers are integers printed here, not user text. */
    buf sql = {0};
    for (size_t i = 0; i < n_gpu_tables; i++) {
        if (!linkable(db, gpu_tables[i]))
            continue;
        if (!sql.len)
            buf_printf(&sql, "CREATE TEMP TABLE flow_links(gpid INTEGER, corr INTEGER, n INTEGER,"
                             " PRIMARY KEY (gpid, corr)) WITHOUT ROWID;");
        /* Rows come in time order, so their keys are nearly in key order:
         * counting by upsert touches few pages and needs no sort. */
        buf_printf(&sql,
                   "INSERT INTO flow_links SELECT globalPid, correlationId, 1 FROM \"%s\" AS t"
                   " WHERE globalPid IS NOT NULL AND correlationId IS NOT NULL"
                   " AND t.start BETWEEN %" PRId64 " AND %" PRId64,
                   gpu_tables[i], filter->start, filter->end);
        /* Work on hidden streams or other devices is not written, so it
         * gets no flow. */
        if (nsys_db_has_table(db, NSYS_HIDDEN_STREAMS_TABLE) &&
            nsys_db_has_column(db, gpu_tables[i], "contextId"))
            buf_printf(&sql, " AND NOT EXISTS (%s)", NSYS_HIDDEN_FROM_GPU);
        if (filter->only_device >= 0)
            buf_printf(&sql, " AND t.deviceId = %" PRId64, filter->only_device);
        buf_printf(&sql, " ON CONFLICT DO UPDATE SET n = n + 1;");
    }
    int status = NSYSP_OK;
    if (sql.len)
        status = nsys_db_create(db, NSYS_LINKS_TABLE, buf_cstr(&sql), err);
    buf_free(&sql);
    return status;
}

struct nsys_links {
    nsys_keywalk *walk;
};

nsys_links *nsys_links_open(nsys_db *db)
{
    if (!nsys_db_has_table(db, NSYS_LINKS_TABLE))
        return NULL;
    nsys_links *l = xcalloc(1, sizeof *l);
    l->walk = nsys_keywalk_open(db, NSYS_LINKS_TABLE, "n", 1);
    return l;
}

void nsys_links_close(nsys_links *l)
{
    if (!l)
        return;
    nsys_keywalk_close(l->walk);
    free(l);
}

int64_t nsys_links_ops_of_call(nsys_links *l, int64_t gpid, int64_t corr, buf *err,
                               int *status)
{
    if (!l || gpid == NSYS_NULL || corr == NSYS_NULL)
        return 0;
    const int64_t *n;
    int found = nsys_keywalk_find(l->walk, gpid, corr, &n, err, status);
    return found < 0 ? -1 : found ? n[0] : 0;
}
