/* nsys-perfetto diff: what one report brings to a comparison. The per-name
 * totals are the library's summary (nsysp_summarize_matching); the rest is
 * read here with the library's read-only reader, by fixed SQL: GPU busy
 * time per device, the session's and the GPU work's spans, and the
 * instances of the --focus NVTX range with the kernels launched inside
 * them. No SQL text is built from user input (the focus name is bound). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_model.h"

#include "common/buf.h"
#include "nsys/nsys_db.h"
#include "nsys_export.h"

#define GPID_MASK "0xFFFFFFFFFF000000"

static int sql_error(nsys_db *db, int rc, buf *err)
{
    return nsys_db_error(db, rc, "comparing", err);
}

static bool has_columns(nsys_db *db, const char *table, const char *const *columns)
{
    for (; *columns; columns++)
        if (!nsys_db_has_column(db, table, *columns))
            return false;
    return true;
}

/* The union of each device's kernel, memcpy and memset intervals (two
 * operations that touch make one stretch), read in start order; and the
 * span from the first operation's start to the last one's end. */
static int gpu_busy(nsys_db *db, diff_run *run, buf *err)
{
    static const char *const TABLES[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                         "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const COLUMNS[] = {"deviceId", "start", "end", NULL};
    buf sql = {0};
    for (size_t i = 0; i < 3; i++)
        if (has_columns(db, TABLES[i], COLUMNS))
            buf_printf(&sql, "%sSELECT deviceId AS d, start AS s, \"end\" AS e FROM %s"
                             " WHERE \"end\" >= start AND deviceId IS NOT NULL",
                       sql.len ? " UNION ALL " : "", TABLES[i]);
    run->gpu_span_ns = -1;
    if (!sql.len)
        return NSYSP_OK;
    buf_printf(&sql, " ORDER BY s");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &st, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    int64_t open_end[DIFF_MAX_GPUS], open_start[DIFF_MAX_GPUS];
    int64_t first = INT64_MAX, last = INT64_MIN;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t device = sqlite3_column_int64(st, 0), s = sqlite3_column_int64(st, 1),
                e = sqlite3_column_int64(st, 2);
        first = s < first ? s : first;
        last = e > last ? e : last;
        size_t i = 0;
        while (i < run->n_gpus && run->gpus[i].device != device)
            i++;
        if (i == run->n_gpus) {
            if (i == DIFF_MAX_GPUS)
                continue; /* more devices than anyone has: the rest not counted */
            run->gpus[run->n_gpus++] = (diff_gpu_busy){device, 0};
            open_start[i] = s;
            open_end[i] = e;
            continue;
        }
        if (s > open_end[i]) { /* the stretch ended before this one */
            run->gpus[i].busy_ns += open_end[i] - open_start[i];
            open_start[i] = s;
            open_end[i] = e;
        } else if (e > open_end[i]) {
            open_end[i] = e;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_error(db, rc, err);
    for (size_t i = 0; i < run->n_gpus; i++)
        run->gpus[i].busy_ns += open_end[i] - open_start[i];
    if (first <= last)
        run->gpu_span_ns = last - first;
    for (size_t i = 1; i < run->n_gpus; i++) /* by device id */
        for (size_t k = i; k > 0 && run->gpus[k - 1].device > run->gpus[k].device; k--) {
            diff_gpu_busy t = run->gpus[k];
            run->gpus[k] = run->gpus[k - 1];
            run->gpus[k - 1] = t;
        }
    return NSYSP_OK;
}

static int session(nsys_db *db, diff_run *run, buf *err)
{
    static const char *const COLUMNS[] = {"startTime", "stopTime", NULL};
    run->session_ns = -1;
    if (!has_columns(db, "ANALYSIS_DETAILS", COLUMNS))
        return NSYSP_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "SELECT max(stopTime) - min(startTime) FROM ANALYSIS_DETAILS"
                                " WHERE stopTime >= startTime", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        run->session_ns = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? NSYSP_OK : sql_error(db, rc, err);
}

/* The focus range's instances, named as the summary's nvtx category names
 * ranges (the text, else the registered string). */
#define FOCUS_INSTANCES                                                                        \
    "WITH inst AS (SELECT e.globalTid AS tid, e.start AS start, e.\"end\" AS \"end\""          \
    " FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId"                       \
    " WHERE e.eventType IN (59, 60, 70, 71) AND e.\"end\" >= e.start"                          \
    " AND coalesce(e.text, s.value) = ?1)"

/* Kernels whose launching call (same process and correlation id) starts
 * and ends inside an instance, on its thread, as the summary's nvtx-gpu. */
#define FOCUS_KERNELS                                                                          \
    FOCUS_INSTANCES ", calls AS (SELECT DISTINCT r.rowid AS id,"                               \
    " r.globalTid & " GPID_MASK " AS gpid, r.correlationId AS corr"                            \
    " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN inst AS i ON r.globalTid = i.tid"             \
    " AND r.start >= i.start AND r.start <= i.\"end\" AND r.\"end\" <= i.\"end\")"             \
    " SELECT s.value, count(*), sum(k.\"end\" - k.start), min(k.\"end\" - k.start),"           \
    " max(k.\"end\" - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"                           \
    " JOIN calls AS c ON k.correlationId = c.corr AND k.globalPid = c.gpid"                    \
    " JOIN StringIds AS s ON s.id = k.shortName"                                               \
    " WHERE k.\"end\" >= k.start GROUP BY s.value"

static int focus(nsys_db *db, diff_run *run, const char *name, buf *err)
{
    static const char *const NVTX[] = {"start", "end", "eventType", "globalTid", "text",
                                       "textId", NULL};
    static const char *const RUNTIME[] = {"start", "end", "globalTid", "correlationId", NULL};
    static const char *const KERNEL[] = {"start", "end", "globalPid", "correlationId",
                                         "shortName", NULL};
    if (!has_columns(db, "NVTX_EVENTS", NVTX) || !nsys_db_has_table(db, "StringIds"))
        return NSYSP_OK;
    sqlite3 *sq = nsys_db_sqlite(db);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(sq, FOCUS_INSTANCES " SELECT \"end\" - start FROM inst", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (run->n_focus == cap) {
            cap = cap ? 2 * cap : 64;
            run->focus_ns = realloc(run->focus_ns, cap * sizeof *run->focus_ns);
            if (!run->focus_ns)
                abort();
        }
        run->focus_ns[run->n_focus++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_error(db, rc, err);
    if (run->n_focus == 0 || !has_columns(db, "CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME) ||
        !has_columns(db, "CUPTI_ACTIVITY_KIND_KERNEL", KERNEL))
        return NSYSP_OK;
    if ((rc = sqlite3_prepare_v2(sq, FOCUS_KERNELS, -1, &st, NULL)) != SQLITE_OK)
        return sql_error(db, rc, err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kernel = (const char *)sqlite3_column_text(st, 0);
        if (!kernel)
            continue;
        if (run->n_focus_kernels == cap) {
            cap = cap ? 2 * cap : 16;
            run->focus_kernels = realloc(run->focus_kernels, cap * sizeof *run->focus_kernels);
            if (!run->focus_kernels)
                abort();
        }
        run->focus_kernels[run->n_focus_kernels++] = (nsysp_summary_row){
            .category = "kernel",
            .name = strdup(kernel),
            .count = (uint64_t)sqlite3_column_int64(st, 1),
            .total_ns = sqlite3_column_int64(st, 2),
            .min_ns = sqlite3_column_int64(st, 3),
            .max_ns = sqlite3_column_int64(st, 4),
        };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(db, rc, err);
}

int diff_run_load(diff_run *run, const char *path, const char *const *match, size_t n_match,
                  const char *focus_name, volatile sig_atomic_t *cancel)
{
    memset(run, 0, sizeof *run);
    run->path = strdup(path);
    run->session_ns = run->gpu_span_ns = -1;
    int status = NSYSP_OK;
    if (is_nsys_report(path)) {
        char why[1200];
        status = export_nsys_report(path, run->sqlite, sizeof run->sqlite, run->tmpdir,
                                    sizeof run->tmpdir, why, sizeof why);
        if (status != NSYSP_OK) {
            run->sqlite[0] = run->tmpdir[0] = '\0';
            fprintf(stderr, "nsys-perfetto diff: %s\n", why);
            return status;
        }
    } else {
        snprintf(run->sqlite, sizeof run->sqlite, "%s", path);
    }
    status = nsysp_summarize_matching(run->sqlite, match, n_match, &run->sum);
    if (status != NSYSP_OK) {
        fprintf(stderr, "nsys-perfetto diff: %s\n", run->sum.message);
        return status;
    }
    buf err = {0};
    nsys_db *db = nsys_db_open(run->sqlite, &err, &status);
    if (db) {
        nsys_db_set_cancel(db, cancel);
        status = gpu_busy(db, run, &err);
        if (status == NSYSP_OK)
            status = session(db, run, &err);
        if (status == NSYSP_OK && focus_name)
            status = focus(db, run, focus_name, &err);
        nsys_db_close(db);
    }
    if (status != NSYSP_OK)
        fprintf(stderr, "nsys-perfetto diff: %s\n", buf_cstr(&err));
    buf_free(&err);
    return status;
}

void diff_run_free(diff_run *run)
{
    if (run->tmpdir[0])
        remove_export(run->sqlite, run->tmpdir);
    nsysp_summary_free(&run->sum);
    for (size_t i = 0; i < run->n_focus_kernels; i++)
        free(run->focus_kernels[i].name);
    free(run->focus_kernels);
    free(run->focus_ns);
    free(run->path);
    memset(run, 0, sizeof *run);
}
