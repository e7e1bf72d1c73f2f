/* nsysp_measure: a run's headline times, read by fixed SQL for comparing
 * runs (nsys-perfetto diff): GPU busy time per device, the session's and
 * the GPU work's spans, the instances of a focus NVTX range with the
 * kernels launched inside them, and the run's steps (its unit of work).
 * No SQL text is built from the caller's input (names are bound). */
#include <inttypes.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "common/cancel.h"
#include "common/xalloc.h"
#include "model/gpu_busy.h"
#include "nsys/nsys_cursor.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_ids.h"
#include "nsys/nsys_torch.h"
#include "measure.h"
#include "summary.h"

#define LENGTH(a) (sizeof (a) / sizeof *(a))

static int sql_error(nsys_db *db, int rc, buf *err)
{
    return nsys_db_error(db, rc, "measuring", err);
}

/* Each device's busy time (model/gpu_busy.h), its operations read in start
 * order; and the span from the first operation's start to the last one's
 * end. */
static int gpu_busy(nsys_db *db, nsysp_measures *m, buf *err)
{
    static const char *const TABLES[] = GPU_BUSY_TABLES;
    static const char *const COLUMNS[] = {"deviceId", "start", "end"};
    buf sql = {0};
    for (size_t i = 0; i < GPU_BUSY_N_TABLES; i++)
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
    busy_union *busy = NULL; /* per device, as m->gpus */
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
                busy = xrealloc(busy, cap * sizeof *busy);
            }
            m->gpus[m->n_gpus++] = (nsysp_gpu_busy){device, 0};
            busy[i] = (busy_union){0};
        }
        busy_union_add(&busy[i], s, e, NULL, NULL);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < m->n_gpus; i++)
        m->gpus[i].busy_ns = busy_union_total(&busy[i]);
    free(busy);
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

/* A range's name as the summary groups it (nsysp_range_name(TEXT)): a
 * PyTorch op range by its op, unless raw names are set. */
static void range_name_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *text = (const char *)sqlite3_value_text(argv[0]);
    if (!text) {
        sqlite3_result_null(ctx);
        return;
    }
    nsys_torch_range r; /* the op is the text's first op_len bytes, however long */
    bool op = !summary_names_raw() && nsys_torch_parse(text, &r);
    sqlite3_result_text(ctx, text, op ? (int)r.op_len : -1, SQLITE_TRANSIENT);
}

int measure_register_range_name(nsys_db *db, buf *err)
{
    int rc = sqlite3_create_function(nsys_db_sqlite(db), "nsysp_range_name", 1,
                                     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, range_name_sql,
                                     NULL, NULL);
    return rc == SQLITE_OK ? NSYSP_OK : sql_error(db, rc, err);
}

/* The focus range's instances, named as the summary's nvtx category names
 * ranges (the text, else the registered string; an op range by its op). */
#define FOCUS_INSTANCES                                                                        \
    "WITH inst AS (SELECT e.globalTid AS tid, e.start AS start, e.\"end\" AS \"end\""          \
    " FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId"                       \
    " WHERE e.eventType IN (59, 60, 70, 71) AND e.\"end\" >= e.start"                          \
    " AND nsysp_range_name(coalesce(e.text, s.value)) = ?1)"

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

/* ---- Steps: the unit of work ------------------------------------------ */

/* The given step's instances on the thread with the most of them. */
static int given_steps(nsys_db *db, nsysp_measures *m, const char *name, buf *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                FOCUS_INSTANCES " SELECT count(*) AS n FROM inst GROUP BY tid"
                                " ORDER BY n DESC LIMIT 1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        m->n_steps = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return sql_error(db, rc, err);
    snprintf(m->step_name, sizeof m->step_name, "%s", name);
    m->step_rule = NSYSP_STEP_GIVEN;
    return NSYSP_OK;
}

/* "ProfilerStep#" and decimal digits: PyTorch profiler's step ranges. */
static bool is_profiler_step(const char *name)
{
    static const char PREFIX[] = "ProfilerStep#";
    if (strncmp(name, PREFIX, sizeof PREFIX - 1) != 0 || !name[sizeof PREFIX - 1])
        return false;
    return strspn(name + sizeof PREFIX - 1, "0123456789") == strlen(name + sizeof PREFIX - 1);
}

/* An op's range cannot be a step: PyTorch's op ranges and C++-qualified
 * names (aten::to, autograd::engine::...) are called many times a step. */
static bool is_op_like(const char *name)
{
    nsys_torch_range r;
    return strstr(name, "::") != NULL || nsys_torch_parse(name, &r);
}

/* A candidate step name: its instances on the current thread, all and
 * top-level, and the most on any thread where every instance was
 * top-level. */
typedef struct step_count {
    char *name;
    size_t top, all, most;
} step_count;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const step_count *)a)->name, ((const step_count *)b)->name);
}

typedef struct step_tally {
    void *tree;                  /* step_count by name */
    step_count **all;
    size_t n, cap;
    step_count *best;            /* the most repeated so far */
} step_tally;

/* Counts an instance of name, top-level or not, on the current thread. */
static void tally_add(step_tally *t, const char *name, bool top)
{
    step_count key = {.name = (char *)name};
    step_count **found = tfind(&key, &t->tree, by_name);
    step_count *c = found ? *found : NULL;
    if (!c) {
        c = xcalloc(1, sizeof *c);
        c->name = xstrdup(name);
        if (!tsearch(c, &t->tree, by_name))
            abort();
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 32;
            t->all = xrealloc(t->all, t->cap * sizeof *t->all);
        }
        t->all[t->n++] = c;
    }
    c->top += top;
    c->all++;
}

/* Closes the current thread: a name counts there only when every instance
 * was top-level. A step is the outermost unit of work; a range that is
 * sometimes inside another (crossing ranges of a real PyTorch report made
 * "Copy to device" top-level 10 times of its 69) is a part of one, and its
 * top-level count says nothing the calls would agree with. */
static void tally_end_thread(step_tally *t)
{
    for (size_t i = 0; i < t->n; i++) {
        step_count *c = t->all[i];
        if (c->top == c->all && c->top > c->most) {
            c->most = c->top;
            if (!t->best || c->most > t->best->most ||
                (c->most == t->best->most && strcmp(c->name, t->best->name) < 0))
                t->best = c;
        }
        c->top = c->all = 0;
    }
}

static void tally_free(step_tally *t)
{
    for (size_t i = 0; i < t->n; i++) {
        tdelete(t->all[i], &t->tree, by_name);
        free(t->all[i]->name);
        free(t->all[i]);
    }
    free(t->all);
}

/* Push/pop ranges (the ones that nest on a thread) by thread, outermost
 * first where two start together. */
#define PUSH_POP_RANGES(domain)                                                                \
    "SELECT e.globalTid, e.start, e.\"end\", coalesce(e.text, s.value), " domain                \
    " FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId"                       \
    " WHERE e.eventType IN (59, 70) AND e.\"end\" >= e.start"                                  \
    " ORDER BY e.globalTid, e.start, e.\"end\" DESC"

/* ProfilerStep#N ranges when there are any, else the most repeated
 * top-level range (one inside no other range of its thread) of the
 * default domain that is not an op's, twice or more on one thread where
 * every instance of it is top-level. Named
 * domains are libraries' (NCCL's ncclAllReduce): a call, not a step. */
static int found_steps(nsys_db *db, nsysp_measures *m, buf *err)
{
    sqlite3_stmt *st;
    const char *sql = nsys_db_has_column(db, "NVTX_EVENTS", "domainId")
                          ? PUSH_POP_RANGES("coalesce(e.domainId, 0)")
                          : PUSH_POP_RANGES("0");
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return sql_error(db, rc, err);
    step_tally top = {0}, profiler = {0};
    int64_t tid = 0, open_end = INT64_MIN;
    bool first = true;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0), start = sqlite3_column_int64(st, 1);
        const char *text = (const char *)sqlite3_column_text(st, 3);
        nsys_torch_range range; /* a PyTorch op range by its op, however long */
        char *op = text && !summary_names_raw() && nsys_torch_parse(text, &range)
                       ? strndup(text, range.op_len) : NULL;
        const char *name = op ? op : text;
        if (first || t != tid) {
            tally_end_thread(&top);
            tally_end_thread(&profiler);
            tid = t;
            open_end = INT64_MIN;
            first = false;
        }
        if (name && is_profiler_step(name))
            tally_add(&profiler, "ProfilerStep#N", true);
        bool top_level = start >= open_end;
        if (top_level)
            open_end = sqlite3_column_int64(st, 2);
        if (name && !is_profiler_step(name) && sqlite3_column_int64(st, 4) == 0 &&
            !is_op_like(text))
            tally_add(&top, name, top_level);
        free(op);
    }
    sqlite3_finalize(st);
    tally_end_thread(&top);
    tally_end_thread(&profiler);
    const step_tally *pick = profiler.best ? &profiler : &top;
    if (rc == SQLITE_DONE && pick->best && pick->best->most >= 2) {
        snprintf(m->step_name, sizeof m->step_name, "%s", pick->best->name);
        m->step_rule = pick == &profiler ? NSYSP_STEP_PROFILER : NSYSP_STEP_REPEATED;
        m->n_steps = pick->best->most;
    }
    tally_free(&top);
    tally_free(&profiler);
    return rc == SQLITE_DONE ? NSYSP_OK : sql_error(db, rc, err);
}

int measure_steps(nsys_db *db, nsysp_measures *m, const char *given, buf *err)
{
    static const char *const NVTX[] = {"start", "end", "eventType", "globalTid", "text",
                                       "textId"};
    if (!nsys_db_has_columns(db, "NVTX_EVENTS", NVTX, LENGTH(NVTX)) ||
        !nsys_db_has_table(db, "StringIds"))
        return NSYSP_OK;
    return given ? given_steps(db, m, given, err) : found_steps(db, m, err);
}

nsysp_status nsysp_measure(const char *input, const char *focus_range, nsysp_measures *m)
{
    return nsysp_measure_with_step(input, focus_range, NULL, m);
}

nsysp_status nsysp_measure_with_step(const char *input, const char *focus_range,
                                     const char *step_range, nsysp_measures *m)
{
    memset(m, 0, sizeof *m);
    m->session_ns = m->gpu_span_ns = -1;
    buf err = {0};
    int status = NSYSP_OK;
    volatile sig_atomic_t *cancel = summary_cancel_flag();
    nsys_db *db = nsys_db_open(input, &err, &status);
    if (db) {
        nsys_db_set_cancel(db, cancel);
        status = measure_register_range_name(db, &err);
        if (status == NSYSP_OK)
            status = gpu_busy(db, m, &err);
        if (status == NSYSP_OK)
            status = session(db, m, &err);
        if (status == NSYSP_OK && focus_range)
            status = focus(db, m, focus_range, &err);
        if (status == NSYSP_OK)
            status = measure_steps(db, m, step_range ? step_range : focus_range, &err);
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
