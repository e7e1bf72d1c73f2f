#include "nsys_contexts.h"

#include "nsys_perfetto.h"

/* The (process, context, stream, device) that ran work: few rows, one per
 * stream, from one scan of each table. DISTINCT keeps a small index of
 * the keys seen, where GROUP BY would sort every row. Table names come
 * from the fixed source registry, never from input. */
static void work_per_stream(nsys_db *db, const char *const *tables, size_t n, buf *sql)
{
    buf_append_str(sql, "SELECT DISTINCT p, c, s, d FROM (");
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!nsys_db_has_column(db, tables[i], "globalPid") ||
            !nsys_db_has_column(db, tables[i], "contextId"))
            continue;
        buf_printf(sql,
                   "%sSELECT globalPid AS p, contextId AS c, streamId AS s, deviceId AS d"
                   " FROM \"%s\" WHERE deviceId IS NOT NULL",
                   any ? " UNION ALL " : "", tables[i]);
        any = true;
    }
    if (!any)
        buf_append_str(sql, "SELECT NULL AS p, NULL AS c, NULL AS s, NULL AS d WHERE 0");
    buf_append_str(sql, ")");
}

int nsys_contexts_load(nsys_db *db, const char *const *work_tables, size_t n_tables,
                       nsys_contexts *out, buf *err)
{
    pairmap_free(&out->devices);
    hmap_free(&out->busy_streams);
    hmap_init(&out->busy_streams);
    out->loaded = true;
    buf per_stream = {0}, sql = {0};
    work_per_stream(db, work_tables, n_tables, &per_stream);
    int status = NSYSP_OK;
    if (!nsys_db_has_table(db, NSYS_CONTEXT_DEVICES_TABLE)) {
        /* A context with work on several devices (never seen) goes to the
         * one most of its streams ran on, the lowest id of those on a tie.
         * SQLite takes a bare column (d) from the row holding the max(). */
        buf_printf(&sql,
                   "CREATE TEMP TABLE context_devices(p INTEGER, c INTEGER, d INTEGER,"
                   " PRIMARY KEY (p, c)) WITHOUT ROWID;"
                   "CREATE TEMP TABLE gpu_streams AS %s;"
                   "INSERT INTO context_devices SELECT p, c, d FROM"
                   " (SELECT p, c, d, max(n * 4294967296 - d) FROM (SELECT p, c, d, count(*) AS n"
                   "   FROM gpu_streams GROUP BY p, c, d) GROUP BY p, c)"
                   " WHERE p IS NOT NULL AND c IS NOT NULL;",
                   buf_cstr(&per_stream));
        status = nsys_db_create(db, NSYS_CONTEXT_DEVICES_TABLE, buf_cstr(&sql), err);
    }
    buf_free(&per_stream);
    buf_free(&sql);
    if (status != NSYSP_OK)
        return status;
    static const char *const READS[] = {
        "SELECT p, c, d FROM temp.context_devices",
        "SELECT DISTINCT p, c, s FROM temp.gpu_streams"
        " WHERE p IS NOT NULL AND c IS NOT NULL AND s IS NOT NULL",
    };
    for (size_t q = 0; q < 2; q++) {
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), READS[q], -1, &st, NULL);
        if (rc != SQLITE_OK)
            return nsys_db_error(db, rc, "reading the devices of CUDA contexts", err);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t key[3] = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                              sqlite3_column_int64(st, 2)};
            if (q == 0 && sqlite3_column_type(st, 2) == SQLITE_INTEGER)
                *pairmap_upsert(&out->devices, key[0], key[1]) = (uint64_t)key[2] + 1;
            else if (q == 1)
                hmap_upsert(&out->busy_streams, key, sizeof key, NULL);
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return nsys_db_error(db, rc, "reading the devices of CUDA contexts", err);
    }
    return NSYSP_OK;
}

void nsys_contexts_free(nsys_contexts *c)
{
    pairmap_free(&c->devices);
    hmap_free(&c->busy_streams);
    c->loaded = false;
}

int64_t nsys_context_device(const nsys_contexts *c, int64_t global_pid, int64_t context,
                            int64_t fallback)
{
    const uint64_t *d = c && c->loaded ? pairmap_find(&c->devices, global_pid, context) : NULL;
    return d ? (int64_t)(*d - 1) : fallback;
}

bool nsys_stream_ran_work(const nsys_contexts *c, int64_t global_pid, int64_t context,
                          int64_t stream)
{
    if (!c || !c->loaded)
        return true;
    int64_t key[3] = {global_pid, context, stream};
    return hmap_find(&c->busy_streams, key, sizeof key) != NULL;
}
