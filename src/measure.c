/* nsysp_measure: a run's headline times, read by fixed SQL for comparing
 * runs (nsys-perfetto diff): GPU busy time per device, the session's and
 * the GPU work's spans, and the instances of a focus NVTX range with the
 * kernels launched inside them. No SQL text is built from the caller's
 * input (the focus name is bound). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "common/cancel.h"
#include "common/xalloc.h"
#include "nsys/nsys_cursor.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_ids.h"
#include "summary.h"

#define LENGTH(a) (sizeof (a) / sizeof *(a))

static int sql_error(nsys_db *db, int rc, buf *err)
{
    return nsys_db_error(db, rc, "measuring", err);
}

/* The union of each device's kernel, memcpy and memset intervals (two
 * operations that touch make one stretch), read in start order; and the
 * span from the first operation's start to the last one's end. Operations
 * beyond NSYS_MAX_TIME are left out, as the converter leaves them out. */
static int gpu_busy(nsys_db *db, nsysp_measures *m, buf *err)
{
    static const char *const TABLES[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                         "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    static const char *const COLUMNS[] = {"deviceId", "start", "end"};
    buf sql = {0};
    for (size_t i = 0; i < 3; i++)
        if (nsys_db_has_columns(db, TABLES[i], COLUMNS, LENGTH(COLUMNS)))
            buf_printf(&sql, "%sSELECT deviceId AS d, start AS s, \"end\" AS e FROM %s"
                             " WHERE \"end\" >= start AND deviceId IS NOT NULL"
                             " AND start >= %" PRId64 " AND \"end\" <= %" PRId64,
                       sql.len ? " UNION ALL " : "", TABLES[i], -NSYS_MAX_TIME, NSYS_MAX_TIME);
    m->gpu_span_ns = -1;
    if (!sql.len)
        return NSYSP_OK;
    buf_printf(&sql, " ORDER BY s");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &st, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    /* Per device, the stretch still open: its start and end. */
    int64_t *open_start = NULL, *open_end = NULL;
    size_t cap = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t device = sqlite3_column_int64(st, 0), s = sqlite3_column_int64(st, 1),
                e = sqlite3_column_int64(st, 2);
        first = s < first ? s : first;
        last = e > last ? e : last;
        size_t i = 0;
        while (i < m->n_gpus && m->gpus[i].device != device)
            i++;
        if (i == m->n_gpus) {
            if (i == cap) {
                cap = cap ? 2 * cap : 8;
                m->gpus = xrealloc(m->gpus, cap * sizeof *m->gpus);
                open_start = xrealloc(open_start, cap * sizeof *open_start);
                open_end = xrealloc(open_end, cap * sizeof *open_end);
            }
            m->gpus[m->n_gpus++] = (nsysp_gpu_busy){device, 0};
            open_start[i] = s;
            open_end[i] = e;
            continue;
        }
        if (s > open_end[i]) { /* the stretch ended before this one */
            m->gpus[i].busy_ns += open_end[i] - open_start[i];
            open_start[i] = s;
            open_end[i] = e;
        } else if (e > open_end[i]) {
            open_end[i] = e;
        }
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < m->n_gpus; i++)
        m->gpus[i].busy_ns += open_end[i] - open_start[i];
    free(open_start);
    free(open_end);
    if (rc != SQLITE_DONE)
        return sql_error(db, rc, err);
    if (first <= last)
        m->gpu_span_ns = last - first;
    for (size_t i = 1; i < m->n_gpus; i++) /* by device id */
        for (size_t k = i; k > 0 && m->gpus[k - 1].device > m->gpus[k].device; k--) {
            nsysp_gpu_busy t = m->gpus[k];
            m->gpus[k] = m->gpus[k - 1];
            m->gpus[k - 1] = t;
        }
    return NSYSP_OK;
}

static int session(nsys_db *db, nsysp_measures *m, buf *err)
{
    static const char *const COLUMNS[] = {"startTime", "stopTime"};
    m->session_ns = -1;
    if (!nsys_db_has_columns(db, "ANALYSIS_DETAILS", COLUMNS, LENGTH(COLUMNS)))
        return NSYSP_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "SELECT max(stopTime) - min(startTime) FROM ANALYSIS_DETAILS"
                                " WHERE stopTime >= startTime", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        m->session_ns = sqlite3_column_int64(st, 0);
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
    " r.globalTid & " NSYS_GPID_MASK_SQL " AS gpid, r.correlationId AS corr"                   \
    " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN inst AS i ON r.globalTid = i.tid"             \
    " AND r.start >= i.start AND r.start <= i.\"end\" AND r.\"end\" <= i.\"end\")"             \
    " SELECT s.value, count(*), sum(k.\"end\" - k.start), min(k.\"end\" - k.start),"           \
    " max(k.\"end\" - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"                           \
    " JOIN calls AS c ON k.correlationId = c.corr AND k.globalPid = c.gpid"                    \
    " JOIN StringIds AS s ON s.id = k.shortName"                                               \
    " WHERE k.\"end\" >= k.start GROUP BY s.value"

static int focus(nsys_db *db, nsysp_measures *m, const char *name, buf *err)
{
    static const char *const NVTX[] = {"start", "end", "eventType", "globalTid", "text",
                                       "textId"};
    static const char *const RUNTIME[] = {"start", "end", "globalTid", "correlationId"};
    static const char *const KERNEL[] = {"start", "end", "globalPid", "correlationId",
                                         "shortName"};
    if (!nsys_db_has_columns(db, "NVTX_EVENTS", NVTX, LENGTH(NVTX)) ||
        !nsys_db_has_table(db, "StringIds"))
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
        if (m->n_focus == cap) {
            cap = cap ? 2 * cap : 64;
            m->focus_ns = xrealloc(m->focus_ns, cap * sizeof *m->focus_ns);
        }
        m->focus_ns[m->n_focus++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_error(db, rc, err);
    if (m->n_focus == 0 ||
        !nsys_db_has_columns(db, "CUPTI_ACTIVITY_KIND_RUNTIME", RUNTIME, LENGTH(RUNTIME)) ||
        !nsys_db_has_columns(db, "CUPTI_ACTIVITY_KIND_KERNEL", KERNEL, LENGTH(KERNEL)))
        return NSYSP_OK;
    if ((rc = sqlite3_prepare_v2(sq, FOCUS_KERNELS, -1, &st, NULL)) != SQLITE_OK)
        return sql_error(db, rc, err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *kernel = (const char *)sqlite3_column_text(st, 0);
        if (!kernel)
            continue;
        if (m->n_focus_kernels == cap) {
            cap = cap ? 2 * cap : 16;
            m->focus_kernels = xrealloc(m->focus_kernels, cap * sizeof *m->focus_kernels);
        }
        m->focus_kernels[m->n_focus_kernels++] = (nsysp_summary_row){
            .category = "kernel",
            .name = xstrdup(kernel),
            .count = (uint64_t)sqlite3_column_int64(st, 1),
            .total_ns = sqlite3_column_int64(st, 2),
            .min_ns = sqlite3_column_int64(st, 3),
            .max_ns = sqlite3_column_int64(st, 4),
        };
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(db, rc, err);
}

nsysp_status nsysp_measure(const char *input, const char *focus_range, nsysp_measures *m)
{
    memset(m, 0, sizeof *m);
    m->session_ns = m->gpu_span_ns = -1;
    buf err = {0};
    int status = NSYSP_OK;
    volatile sig_atomic_t *cancel = summary_cancel_flag();
    nsys_db *db = nsys_db_open(input, &err, &status);
    if (db) {
        nsys_db_set_cancel(db, cancel);
        status = gpu_busy(db, m, &err);
        if (status == NSYSP_OK)
            status = session(db, m, &err);
        if (status == NSYSP_OK && focus_range)
            status = focus(db, m, focus_range, &err);
        nsys_db_close(db);
    }
    if (status == NSYSP_OK && cancel_requested(cancel)) { /* after the last query */
        buf_printf(&err, "%s: interrupted", input);
        status = NSYSP_ERR_INTERRUPTED;
    }
    if (status != NSYSP_OK) {
        char message[sizeof m->message];
        snprintf(message, sizeof message, "%s", buf_cstr(&err));
        nsysp_measures_free(m);
        memcpy(m->message, message, sizeof message);
    }
    buf_free(&err);
    return (nsysp_status)status;
}

void nsysp_measures_free(nsysp_measures *m)
{
    for (size_t i = 0; i < m->n_focus_kernels; i++)
        free(m->focus_kernels[i].name);
    free(m->focus_kernels);
    free(m->focus_ns);
    free(m->gpus);
    memset(m, 0, sizeof *m);
    m->session_ns = m->gpu_span_ns = -1;
}
