#include "nsys_links.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "nsys_activity.h"
#include "nsys_cursor.h"
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

/* One process's cursor over its keys, in key order. */
typedef struct process_links {
    int64_t gpid;
    sqlite3_stmt *stmt;
    bool has_row;
    int64_t corr, n;         /* the row it is on */
    int64_t last_asked;
} process_links;

struct nsys_links {
    nsys_db *db;
    process_links *processes;
    size_t n_processes, cap_processes;
    size_t last;             /* index of the process asked for last */
};

nsys_links *nsys_links_open(nsys_db *db)
{
    if (!nsys_db_has_table(db, NSYS_LINKS_TABLE))
        return NULL;
    nsys_links *l = xcalloc(1, sizeof *l);
    l->db = db;
    return l;
}

void nsys_links_close(nsys_links *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_processes; i++)
        sqlite3_finalize(l->processes[i].stmt);
    free(l->processes);
    free(l);
}

static int step(nsys_links *l, process_links *p, buf *err, int *status)
{
    int rc = sqlite3_step(p->stmt);
    p->has_row = rc == SQLITE_ROW;
    if (p->has_row) {
        p->corr = sqlite3_column_int64(p->stmt, 0);
        p->n = sqlite3_column_int64(p->stmt, 1);
        return 0;
    }
    if (rc == SQLITE_DONE)
        return 0;
    *status = nsys_db_error(l->db, rc, "reading flow links", err);
    return -1;
}

/* Positions p on the first key >= corr. */
static int seek(nsys_links *l, process_links *p, int64_t corr, buf *err, int *status)
{
    sqlite3_reset(p->stmt);
    sqlite3_bind_int64(p->stmt, 1, p->gpid);
    sqlite3_bind_int64(p->stmt, 2, corr);
    return step(l, p, err, status);
}

static process_links *process_of(nsys_links *l, int64_t gpid, buf *err, int *status)
{
    if (l->last < l->n_processes && l->processes[l->last].gpid == gpid)
        return &l->processes[l->last];
    for (size_t i = 0; i < l->n_processes; i++)
        if (l->processes[i].gpid == gpid) {
            l->last = i;
            return &l->processes[i];
        }
    l->processes = xgrow(l->processes, &l->cap_processes, l->n_processes + 1,
                         sizeof *l->processes);
    process_links *p = &l->processes[l->n_processes];
    *p = (process_links){.gpid = gpid, .last_asked = INT64_MIN};
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(l->db),
                                "SELECT corr, n FROM temp.flow_links WHERE gpid = ?1"
                                " AND corr >= ?2 ORDER BY corr",
                                -1, &p->stmt, NULL);
    if (rc != SQLITE_OK) {
        *status = nsys_db_error(l->db, rc, "reading flow links", err);
        return NULL;
    }
    l->last = l->n_processes++;
    return p;
}

int64_t nsys_links_ops_of_call(nsys_links *l, int64_t gpid, int64_t corr, buf *err,
                               int *status)
{
    if (!l || gpid == NSYS_NULL || corr == NSYS_NULL)
        return 0;
    process_links *p = process_of(l, gpid, err, status);
    if (!p)
        return -1;
    if (corr < p->last_asked || p->last_asked == INT64_MIN) {
        if (seek(l, p, corr, err, status) < 0)
            return -1;
    } else {
        while (p->has_row && p->corr < corr)
            if (step(l, p, err, status) < 0)
                return -1;
    }
    p->last_asked = corr;
    return p->has_row && p->corr == corr ? p->n : 0;
}
