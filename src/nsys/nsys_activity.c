#include "nsys_activity.h"

#include <stdlib.h>

#include "nsys_perfetto.h"
#include "common/xalloc.h"

int nsys_stream_activity(nsys_db *db, const char *const *tables, size_t n_tables,
                         int64_t *span_ns,
                         void (*fn)(void *ctx, const nsys_stream_busy *busy), void *ctx,
                         buf *err)
{
    *span_ns = 0;
    /* Table names come from the fixed source registry, never from input. */
    buf work = {0};
    for (size_t i = 0; i < n_tables; i++) {
        if (!nsys_db_has_column(db, tables[i], "globalPid") ||
            !nsys_db_has_column(db, tables[i], "contextId"))
            continue;
        buf_printf(&work,
                   "%sSELECT deviceId AS d, globalPid AS p, contextId AS c, streamId AS s,"
                   " start, \"end\" FROM \"%s\" WHERE \"end\" >= start",
                   work.len ? " UNION ALL " : "", tables[i]);
    }
    if (!work.len)
        return NSYSP_OK;
    buf sql = {0};
    buf_printf(&sql,
               "SELECT d, p, c, s, sum(\"end\" - start), min(start), max(\"end\") FROM (%s)"
               " GROUP BY d, p, c, s",
               buf_cstr(&work));
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &st, NULL);
    buf_free(&work);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return nsys_db_error(db, rc, "measuring stream activity", err);
    int64_t first = INT64_MAX, last = INT64_MIN;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        nsys_stream_busy b = {
            .device = sqlite3_column_int64(st, 0),
            .global_pid = sqlite3_column_int64(st, 1),
            .context = sqlite3_column_int64(st, 2),
            .stream = sqlite3_column_int64(st, 3),
            .busy_ns = sqlite3_column_int64(st, 4),
        };
        int64_t lo = sqlite3_column_int64(st, 5), hi = sqlite3_column_int64(st, 6);
        first = lo < first ? lo : first;
        last = hi > last ? hi : last;
        fn(ctx, &b);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nsys_db_error(db, rc, "measuring stream activity", err);
    /* Saturates: a report with far-off times must not overflow. */
    int64_t span;
    *span_ns = last > first ? (__builtin_sub_overflow(last, first, &span) ? INT64_MAX : span) : 0;
    return NSYSP_OK;
}

typedef struct busy_list {
    nsys_stream_busy *items;
    size_t n, cap;
} busy_list;

static void collect(void *ctx, const nsys_stream_busy *b)
{
    busy_list *l = ctx;
    l->items = xgrow(l->items, &l->cap, l->n + 1, sizeof *l->items);
    l->items[l->n++] = *b;
}

int nsys_hide_idle_streams(nsys_db *db, const char *const *tables, size_t n_tables,
                           double share, int64_t span_ns, uint64_t *hidden, buf *err)
{
    *hidden = 0;
    busy_list all = {0};
    int64_t work_span;
    int status = nsys_stream_activity(db, tables, n_tables, &work_span, collect, &all, err);
    if (status == NSYSP_OK)
        status = nsys_db_create(db, NSYS_HIDDEN_STREAMS_TABLE,
                                "CREATE TEMP TABLE hidden_streams(d INTEGER, p INTEGER,"
                                " c INTEGER, s INTEGER)", err);
    if (status != NSYSP_OK) {
        free(all.items);
        return status;
    }
    double threshold = share * (double)(span_ns > 0 ? span_ns : work_span);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "INSERT INTO hidden_streams VALUES (?1, ?2, ?3, ?4)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < all.n; i++) {
        const nsys_stream_busy *b = &all.items[i];
        if ((double)b->busy_ns >= threshold)
            continue;
        sqlite3_bind_int64(st, 1, b->device);
        sqlite3_bind_int64(st, 2, b->global_pid);
        sqlite3_bind_int64(st, 3, b->context);
        sqlite3_bind_int64(st, 4, b->stream);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(nsys_db_sqlite(db));
        sqlite3_reset(st);
        (*hidden)++;
    }
    sqlite3_finalize(st);
    free(all.items);
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "hiding idle streams", err);
}
