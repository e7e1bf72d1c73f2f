/* The NVTX projection recipes: nvtx_gpu_proj_trace, nvtx_gpu_proj_sum,
 * nvtx_gpu_proj_pace and nccl_gpu_proj_sum. Each projects NVTX ranges from
 * the CPU onto the GPU: a range covers the GPU work (kernels, copies, sets)
 * launched by the CUDA calls it contains on its thread, from the first
 * operation's start to the last one's end.
 *
 * nsys 2023.4 has two sets of rules for that, and each recipe follows its
 * own:
 *   - nvtx_gpu_proj_trace runs the nsys stats report of that name: every
 *     push/pop and start/end range that ended on its thread, with open
 *     ranges ending at the last NVTX time, names prefixed by their domain,
 *     containment closed, a tree of ranges (parent: the other range of the
 *     thread that contains it most tightly), and one row for the work
 *     launched outside every range (trace_report_*).
 *   - the other three use the recipes' own projection (lib/nvtx.py): every
 *     NVTX row with a start and an end, text without domain, a call
 *     contained when the range starts at or before it and ends after every
 *     call met so far on the thread ends (a sweep over start-sorted calls),
 *     GPU operations filtered by --start/--end (sweep_*).
 *
 * Both run in one pass over each thread's ranges and calls, in memory that
 * grows with the ranges (the output's rows), not with their depth or the
 * GPU operations: nested ranges are walked as a stack, and only a thread
 * whose ranges overlap without nesting compares a call with every range
 * open around it.
 *
 * The other three run as map and reduce (a report's statistics rows, and
 * for the pace its iterations' projected ends); nvtx_gpu_proj_trace runs
 * on one machine. */
#include "recipe.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "recipes/recipe_pandas.h"
#include "perfetto/pw_writer.h"

/* The running deviations, compensated means and numpy's sums must round
 * step by step as pandas' and numpy's do: no fused multiply-adds (GCC in
 * ISO C fuses none). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define NONE SIZE_MAX

/* The GPU operations a call can launch, as both rule sets read them. */
static void gpu_ops_sql(nsys_db *db, buf *sql)
{
    static const char *const TABLES[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    bool first = true;
    for (size_t i = 0; i < 3; i++) {
        if (!nsys_db_has_table(db, TABLES[i]))
            continue;
        buf_printf(sql, "%sSELECT start, \"end\", correlationId, globalPid FROM %s",
                   first ? "" : " UNION ALL ", TABLES[i]);
        first = false;
    }
}

static bool has_gpu_ops(nsys_db *db)
{
    return nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") ||
           nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY") ||
           nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET");
}

static int sql_status(nsys_db *db, int rc, const char *what, buf *err)
{
    return rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW
               ? NSYSP_OK
               : nsys_db_error(db, rc, what, err);
}

static char *column_text(sqlite3_stmt *stmt, int column)
{
    const char *s = (const char *)sqlite3_column_text(stmt, column);
    return s ? xstrdup(s) : NULL;
}

/* A CUDA call with the span of the GPU work it launched. */
typedef struct gpu_call {
    int64_t gtid, start, end;
    int64_t gpu_start, gpu_end;
    int64_t rowid, correlation;
} gpu_call;

static void read_call(sqlite3_stmt *stmt, gpu_call *c)
{
    c->gtid = sqlite3_column_int64(stmt, 0);
    c->start = sqlite3_column_int64(stmt, 1);
    c->end = sqlite3_column_int64(stmt, 2);
    c->gpu_start = sqlite3_column_int64(stmt, 3);
    c->gpu_end = sqlite3_column_int64(stmt, 4);
    c->rowid = sqlite3_column_int64(stmt, 5);
    c->correlation = sqlite3_column_int64(stmt, 6);
}

/* The span of some GPU work: the earliest start, the latest end. */
typedef struct gpu_span {
    int64_t start, end;
    int64_t calls;     /* 0: no work */
    int64_t first;     /* the runtime row of the first call met (recipes' order) */
} gpu_span;

static void span_add(gpu_span *s, int64_t start, int64_t end, int64_t calls, int64_t first)
{
    if (!calls)
        return;
    if (!s->calls || start < s->start)
        s->start = start;
    if (!s->calls || end > s->end)
        s->end = end;
    if (!s->calls || first < s->first)
        s->first = first;
    s->calls += calls;
}

static void span_fold(gpu_span *into, const gpu_span *from)
{
    span_add(into, from->start, from->end, from->calls, from->first);
}

/* Column promotion as pandas makes it: an integer column with a missing
 * value is float64. */
static void promote_missing(recipe_table *t, const size_t *columns, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        bool missing = false;
        for (size_t r = 0; r < t->n_rows && !missing; r++)
            missing = recipe_table_cell(t, r, columns[k])->kind == RECIPE_NULL;
        for (size_t r = 0; missing && r < t->n_rows; r++) {
            recipe_cell *c = recipe_table_cell(t, r, columns[k]);
            if (c->kind == RECIPE_INT)
                recipe_cell_set_real(c, (double)c->i);
        }
    }
}

/* ==== nvtx_gpu_proj_trace: the nsys stats report's projection ========== */

/* A range as the report sees it. Ranges sharing start and end form a span:
 * they contain each other, and nsys makes each the parent of another. */
typedef struct trace_range {
    int64_t id, gtid, start, end; /* id: its NVTX_EVENTS row */
    char *name;
    bool startend;
    size_t span;
    size_t parent;                /* the range it is nested in, or NONE */
    int64_t children;             /* projected ranges nested in it */
} trace_range;

typedef struct trace_span {
    int64_t start, end;
    size_t first, n;              /* ranges[first .. first + n), by id */
    size_t parent;                /* the span of the tightest other range around it */
    int64_t lvl;                  /* -1: none (it or an ancestor is a cycle) */
    gpu_span gpu;
} trace_span;

typedef struct trace_report {
    trace_range *ranges;
    size_t n_ranges;
    trace_span *spans;
    size_t n_spans;
    gpu_span outside;             /* work launched outside every range */
    int64_t outside_gtid;
    int64_t *outside_ids;         /* its calls' correlation ids (nsys counts distinct ones) */
    size_t outside_cap;
} trace_report;

static void trace_report_free(trace_report *r)
{
    for (size_t i = 0; i < r->n_ranges; i++)
        free(r->ranges[i].name);
    free(r->ranges);
    free(r->spans);
    free(r->outside_ids);
    memset(r, 0, sizeof *r);
}

/* Reads the ranges, by thread, start, longest first, id; their names as
 * nsys prints them ("domain:text"). */
static int trace_read_ranges(nsys_db *db, trace_report *r, buf *err)
{
    static const char QUERY[] =
        "WITH domains AS (SELECT min(start), domainId AS id, globalTid, text AS name"
        "  FROM NVTX_EVENTS WHERE eventType = 75 GROUP BY 2, 3),"
        " bounds AS (SELECT max(max(start), max(\"end\")) AS last FROM NVTX_EVENTS"
        "  WHERE eventType IN (59, 60, 70, 71))"
        " SELECT e.rowid, e.globalTid, e.start, ifnull(e.\"end\", b.last) AS stop,"
        "  CASE WHEN d.name NOT NULL AND s.value IS NOT NULL THEN d.name || ':' || s.value"
        "   WHEN d.name NOT NULL THEN d.name || ':' || e.text"
        "   ELSE ifnull(s.value, e.text) END,"
        "  e.eventType IN (60, 71)"
        " FROM NVTX_EVENTS AS e CROSS JOIN bounds AS b"
        " LEFT JOIN domains AS d ON e.domainId = d.id"
        "  AND (e.globalTid & 0x0000FFFFFF000000) = (d.globalTid & 0x0000FFFFFF000000)"
        " LEFT JOIN StringIds AS s ON e.textId = s.id"
        " WHERE e.eventType IN (59, 60, 70, 71) AND e.endGlobalTid IS NULL"
        "  AND stop IS NOT NULL"
        " ORDER BY e.globalTid, e.start, stop DESC, e.rowid";
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), QUERY, -1, &stmt, NULL);
    size_t cap = 0, span_cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        r->ranges = xgrow(r->ranges, &cap, r->n_ranges + 1, sizeof *r->ranges);
        trace_range *g = &r->ranges[r->n_ranges];
        *g = (trace_range){.id = sqlite3_column_int64(stmt, 0),
                           .gtid = sqlite3_column_int64(stmt, 1),
                           .start = sqlite3_column_int64(stmt, 2),
                           .end = sqlite3_column_int64(stmt, 3),
                           .name = column_text(stmt, 4),
                           .startend = sqlite3_column_int(stmt, 5) != 0,
                           .parent = NONE};
        trace_span *last = r->n_spans ? &r->spans[r->n_spans - 1] : NULL;
        if (!last || r->ranges[last->first].gtid != g->gtid || last->start != g->start ||
            last->end != g->end) {
            r->spans = xgrow(r->spans, &span_cap, r->n_spans + 1, sizeof *r->spans);
            r->spans[r->n_spans++] = (trace_span){.start = g->start, .end = g->end,
                                                  .first = r->n_ranges, .parent = NONE};
            last = &r->spans[r->n_spans - 1];
        }
        last->n++;
        g->span = r->n_spans - 1;
        r->n_ranges++;
    }
    sqlite3_finalize(stmt);
    return sql_status(db, rc, "reading NVTX ranges", err);
}

static int64_t span_id(const trace_report *r, size_t s)
{
    return r->ranges[r->spans[s].first].id;
}

/* Whether span p is a tighter fit around another span than best: the
 * least start gap plus end gap (the shorter), then the lower id. */
static bool fits_tighter(const trace_report *r, size_t p, size_t best)
{
    if (best == NONE)
        return true;
    int64_t dp = r->spans[p].end - r->spans[p].start, db = r->spans[best].end - r->spans[best].start;
    return dp < db || (dp == db && span_id(r, p) < span_id(r, best));
}

/* The parents of the thread's spans [a, b). Nested ranges are walked as a
 * stack: the innermost open span around one is its parent. Returns false
 * when two spans overlap without nesting (the thread is tangled). */
static bool trace_nested_parents(trace_report *r, size_t a, size_t b, size_t *stack)
{
    size_t depth = 0;
    for (size_t s = a; s < b; s++) {
        trace_span *sp = &r->spans[s];
        while (depth && r->spans[stack[depth - 1]].end < sp->start)
            depth--;
        if (depth) {
            if (r->spans[stack[depth - 1]].end < sp->end)
                return false;
            sp->parent = stack[depth - 1];
        }
        stack[depth++] = s;
    }
    return true;
}

/* The parents of a tangled thread's spans: each compared with every span
 * still open at its start. */
static void trace_tangled_parents(trace_report *r, size_t a, size_t b, size_t *open)
{
    size_t n_open = 0;
    for (size_t s = a; s < b; s++) {
        trace_span *sp = &r->spans[s];
        size_t kept = 0, best = NONE;
        for (size_t k = 0; k < n_open; k++) {
            const trace_span *p = &r->spans[open[k]];
            if (p->end < sp->start)
                continue;
            open[kept++] = open[k];
            if (p->end >= sp->end && fits_tighter(r, open[k], best))
                best = open[k];
        }
        n_open = kept;
        sp->parent = best;
        open[n_open++] = s;
    }
}

/* Work launched outside every range: one row, with the thread of the call
 * whose work ends last. */
static void trace_outside(trace_report *r, const gpu_call *call)
{
    if (!r->outside.calls || call->gpu_end >= r->outside.end)
        r->outside_gtid = call->gtid;
    r->outside_ids = xgrow(r->outside_ids, &r->outside_cap, (size_t)r->outside.calls + 1,
                           sizeof *r->outside_ids);
    r->outside_ids[r->outside.calls] = call->correlation;
    span_add(&r->outside, call->gpu_start, call->gpu_end, 1, call->rowid);
}

static int by_int64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The outside row's count: its calls' distinct correlation ids (those of
 * other processes may repeat). */
static int64_t outside_distinct_ids(trace_report *r)
{
    size_t n = (size_t)r->outside.calls, distinct = 0;
    qsort(r->outside_ids, n, sizeof *r->outside_ids, by_int64);
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || r->outside_ids[i] != r->outside_ids[i - 1];
    return (int64_t)distinct;
}

/* Gives each call of the thread (its spans [a, b)) to the spans that
 * contain it, call start and end included; nested threads give it to the
 * innermost only (trace_fold_up adds it to the others). Stops at the first
 * call of a later thread (left in *call). */
static void trace_project_calls(trace_report *r, size_t a, size_t b, bool nested, size_t *stack,
                                sqlite3_stmt *calls, gpu_call *call, int *rc)
{
    size_t depth = 0, next = a;
    int64_t gtid = r->ranges[r->spans[a].first].gtid;
    while (*rc == SQLITE_ROW && call->gtid == gtid) {
        for (; next < b && r->spans[next].start <= call->start; next++) {
            if (nested)
                while (depth && r->spans[stack[depth - 1]].end < r->spans[next].start)
                    depth--;
            stack[depth++] = next;
        }
        size_t kept = 0;
        bool inside = false;
        if (nested) {
            while (depth && r->spans[stack[depth - 1]].end < call->start)
                depth--;
            for (size_t k = depth; k-- > 0;)
                if (r->spans[stack[k]].end >= call->end) {
                    span_add(&r->spans[stack[k]].gpu, call->gpu_start, call->gpu_end, 1, call->rowid);
                    inside = true;
                    break;
                }
        } else {
            for (size_t k = 0; k < depth; k++) {
                trace_span *sp = &r->spans[stack[k]];
                if (sp->end < call->start)
                    continue;
                stack[kept++] = stack[k];
                if (sp->end >= call->end) {
                    span_add(&sp->gpu, call->gpu_start, call->gpu_end, 1, call->rowid);
                    inside = true;
                }
            }
            depth = kept;
        }
        if (!inside)
            trace_outside(r, call);
        *rc = sqlite3_step(calls);
        if (*rc == SQLITE_ROW)
            read_call(calls, call);
    }
}

/* Adds each span's work to the spans around it, innermost first (a nested
 * thread's calls went to their innermost span only). */
static void trace_fold_up(trace_report *r, size_t a, size_t b)
{
    for (size_t s = b; s-- > a;)
        if (r->spans[s].parent != NONE)
            span_fold(&r->spans[r->spans[s].parent].gpu, &r->spans[s].gpu);
}

/* Levels, parents and children of the ranges, as nsys's tree has them: a
 * span of several ranges is a cycle (each the parent of another) that
 * never reaches a root, and neither does anything inside it. */
static void trace_tree(trace_report *r)
{
    for (size_t s = 0; s < r->n_spans; s++) {
        trace_span *sp = &r->spans[s];
        if (sp->n > 1)
            sp->lvl = -1;
        else if (sp->parent == NONE)
            sp->lvl = 0;
        else
            sp->lvl = r->spans[sp->parent].lvl < 0 ? -1 : r->spans[sp->parent].lvl + 1;
        for (size_t k = 0; k < sp->n; k++) {
            trace_range *g = &r->ranges[sp->first + k];
            if (sp->n > 1)
                g->parent = k == 0 ? sp->first + 1 : sp->first;
            else if (sp->parent != NONE)
                g->parent = r->spans[sp->parent].first;
        }
    }
    for (size_t i = 0; i < r->n_ranges; i++)
        if (r->spans[r->ranges[i].span].gpu.calls && r->ranges[i].parent != NONE)
            r->ranges[r->ranges[i].parent].children++;
}

/* Projects one report: reads its ranges and calls, thread by thread. */
static int trace_project(nsys_db *db, trace_report *r, buf *err)
{
    int status = trace_read_ranges(db, r, err);
    if (status != NSYSP_OK)
        return status;
    buf sql = {0};
    buf_printf(&sql, "SELECT r.globalTid, r.start, r.\"end\", min(o.start), max(o.\"end\"), r.rowid,"
                     " r.correlationId FROM (");
    gpu_ops_sql(db, &sql);
    buf_printf(&sql, ") AS o JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r"
                     " ON o.correlationId = r.correlationId"
                     " AND o.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)"
                     " GROUP BY r.rowid ORDER BY r.globalTid, r.start, r.rowid");
    sqlite3_stmt *calls = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &calls, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_status(db, rc, "reading CUDA calls", err);
    size_t *stack = xcalloc(r->n_spans ? r->n_spans : 1, sizeof *stack);
    gpu_call call = {0};
    rc = sqlite3_step(calls);
    if (rc == SQLITE_ROW)
        read_call(calls, &call);
    for (size_t a = 0; a < r->n_spans;) {
        int64_t gtid = r->ranges[r->spans[a].first].gtid;
        size_t b = a + 1;
        while (b < r->n_spans && r->ranges[r->spans[b].first].gtid == gtid)
            b++;
        while (rc == SQLITE_ROW && call.gtid < gtid) {
            trace_outside(r, &call);
            if ((rc = sqlite3_step(calls)) == SQLITE_ROW)
                read_call(calls, &call);
        }
        bool nested = trace_nested_parents(r, a, b, stack);
        if (!nested)
            trace_tangled_parents(r, a, b, stack);
        trace_project_calls(r, a, b, nested, stack, calls, &call, &rc);
        if (nested)
            trace_fold_up(r, a, b);
        a = b;
    }
    while (rc == SQLITE_ROW) {
        trace_outside(r, &call);
        if ((rc = sqlite3_step(calls)) == SQLITE_ROW)
            read_call(calls, &call);
    }
    free(stack);
    sqlite3_finalize(calls);
    if (rc != SQLITE_DONE)
        return sql_status(db, rc, "reading CUDA calls", err);
    trace_tree(r);
    return NSYSP_OK;
}

/* trace.csv: trace.parquet's columns (its index, a row number per report,
 * is left out). */
enum { T_NAME, T_PROJ_START, T_PROJ_DUR, T_ORIG_START, T_ORIG_DUR, T_STYLE, T_PID, T_TID,
       T_OPS, T_LVL, T_CHILDREN, T_RANGE, T_PARENT, T_STACK, T_FILE, N_TRACE_COLUMNS };
static const char *const TRACE_COLUMNS[] = {
    "Name", "Projected Start", "Projected Duration", "Orig Start", "Orig Duration", "Style",
    "PID", "TID", "NumGPUOps", "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack", "File"};

static void set_thread(recipe_cell *row, int64_t gtid)
{
    recipe_cell_set_int(&row[T_PID], (gtid >> 24) & 0xFFFFFF);
    recipe_cell_set_int(&row[T_TID], gtid & 0xFFFFFF);
}

/* ":root:...:id", the ids of the span's ancestors and its own (chain:
 * room for the span's depth + 1 indexes). Deep stacks are most of a deep
 * report's output: the ids are written without printf. */
static void range_stack(const trace_report *r, size_t s, size_t *chain, buf *out)
{
    size_t n = 0;
    for (; s != NONE; s = r->spans[s].parent)
        chain[n++] = s;
    while (n-- > 0) {
        char digits[24], *p = digits + sizeof digits;
        int64_t id = span_id(r, chain[n]);
        uint64_t v = id < 0 ? 0 - (uint64_t)id : (uint64_t)id;
        do
            *--p = (char)('0' + v % 10);
        while (v /= 10);
        if (id < 0)
            *--p = '-';
        *--p = ':';
        buf_append(out, p, (size_t)(digits + sizeof digits - p));
    }
}

/* nsys's order: its ORDER BY names no column (the columns are named
 * "Projected Start:ts_ns"...), so SQLite orders nothing and the rows come
 * as its GROUP BY made them: the outside row, then by range id. */
static int by_range_id(const recipe_cell *a, const recipe_cell *b, const void *ctx)
{
    (void)ctx;
    if (a[T_RANGE].kind != b[T_RANGE].kind)
        return a[T_RANGE].kind == RECIPE_NULL ? -1 : 1;
    return a[T_RANGE].i < b[T_RANGE].i ? -1 : a[T_RANGE].i > b[T_RANGE].i;
}

/* Moves src's rows to the end of dst (same columns). */
static void move_rows(recipe_table *dst, recipe_table *src)
{
    for (size_t i = 0; i < src->n_rows; i++) {
        recipe_cell *row = recipe_table_add_row(dst);
        memcpy(row, recipe_table_cell(src, i, 0), src->n_columns * sizeof *row);
    }
    src->n_rows = 0;
}

static void trace_rows(trace_report *r, const char *label, recipe_table *out)
{
    recipe_table t;
    recipe_table_init(&t, TRACE_COLUMNS, N_TRACE_COLUMNS);
    if (r->outside.calls) {
        recipe_cell *row = recipe_table_add_row(&t);
        recipe_cell_set_int(&row[T_PROJ_START], r->outside.start);
        recipe_cell_set_int(&row[T_PROJ_DUR], r->outside.end - r->outside.start);
        set_thread(row, r->outside_gtid);
        recipe_cell_set_int(&row[T_OPS], outside_distinct_ids(r));
        recipe_cell_set_int(&row[T_CHILDREN], 0);
        recipe_cell_set_text(&row[T_FILE], label);
    }
    buf stack = {0};
    size_t *chain = xcalloc(r->n_spans ? r->n_spans : 1, sizeof *chain);
    for (size_t i = 0; i < r->n_ranges; i++) {
        const trace_range *g = &r->ranges[i];
        const trace_span *sp = &r->spans[g->span];
        if (!sp->gpu.calls)
            continue;
        recipe_cell *row = recipe_table_add_row(&t);
        recipe_cell_set_text(&row[T_NAME], g->name);
        recipe_cell_set_int(&row[T_PROJ_START], sp->gpu.start);
        recipe_cell_set_int(&row[T_PROJ_DUR], sp->gpu.end - sp->gpu.start);
        recipe_cell_set_int(&row[T_ORIG_START], g->start);
        recipe_cell_set_int(&row[T_ORIG_DUR], g->end - g->start);
        recipe_cell_set_text(&row[T_STYLE], g->startend ? "StartEnd" : "PushPop");
        set_thread(row, g->gtid);
        recipe_cell_set_int(&row[T_OPS], sp->gpu.calls);
        if (sp->lvl >= 0)
            recipe_cell_set_int(&row[T_LVL], sp->lvl);
        recipe_cell_set_int(&row[T_CHILDREN], g->children);
        recipe_cell_set_int(&row[T_RANGE], g->id);
        /* nsys takes the parent from its tree, which ranges in or under a
         * cycle never join: they have none (but count as children). */
        if (g->parent != NONE && sp->lvl >= 0)
            recipe_cell_set_int(&row[T_PARENT], r->ranges[g->parent].id);
        if (sp->lvl >= 0) {
            buf_clear(&stack);
            range_stack(r, g->span, chain, &stack);
            recipe_cell_set_text(&row[T_STACK], buf_cstr(&stack));
        }
        recipe_cell_set_text(&row[T_FILE], label);
    }
    buf_free(&stack);
    free(chain);
    recipe_table_sort(&t, by_range_id, NULL);
    move_rows(out, &t);
    recipe_table_free(&t);
}

/* ---- trace.perfetto-trace: the projected ranges on a timeline -------- */

/* Per report a group, in it a track per thread that launched work in a
 * range; ranges nest on their thread's track as their projections do.
 * Projections of sibling ranges may overlap (work on two streams), and
 * trace_processor nests at most 256 deep here as the converter does: a
 * range that does not nest goes to the thread's next lane, a track of its
 * own beside it. Times are the report's, in ns. */
enum { LANE_DEPTH = 256 };

typedef struct trace_lane {
    uint64_t uuid;
    size_t depth;
    int64_t ends[LANE_DEPTH];
} trace_lane;

typedef struct trace_file {
    char dir[4000], path[4096];
    pw_writer *w;
    pw_seq *seq;
    uint64_t next_uuid;
    trace_lane *lanes;
    size_t n_lanes, lanes_cap;
    bool failed;
} trace_file;

static uint64_t trace_track(trace_file *f, uint64_t parent, const char *name, int32_t rank)
{
    pw_track t = {.uuid = f->next_uuid++, .parent_uuid = parent, .kind = PW_TRACK_PLAIN,
                  .name = name, .has_rank = true, .rank = rank, .batch = PW_DIRECT,
                  .child_order = PW_ORDER_EXPLICIT};
    if (pw_write_track(f->seq, 0, &t) != 0)
        f->failed = true;
    return t.uuid;
}

static void trace_end(trace_file *f, trace_lane *lane)
{
    pw_event ev = {.type = PW_SLICE_END, .ts = (uint64_t)lane->ends[--lane->depth],
                   .track_uuid = lane->uuid};
    if (pw_write_event(f->seq, &ev) != 0)
        f->failed = true;
}

static void trace_begin(trace_file *f, trace_lane *lane, const trace_report *r,
                        const trace_range *g)
{
    const trace_span *sp = &r->spans[g->span];
    pw_arg args[] = {
        {.name = "numgpuops", .type = PW_ARG_INT, .v.i = sp->gpu.calls},
        {.name = "orig_start_ns", .type = PW_ARG_INT, .v.i = g->start},
        {.name = "orig_duration_ns", .type = PW_ARG_INT, .v.i = g->end - g->start},
        {.name = "style", .type = PW_ARG_STRING, .v.s = g->startend ? "StartEnd" : "PushPop"},
        {.name = "rangeid", .type = PW_ARG_INT, .v.i = g->id},
    };
    pw_event ev = {.type = PW_SLICE_BEGIN, .ts = (uint64_t)sp->gpu.start,
                   .end = (uint64_t)sp->gpu.end, .track_uuid = lane->uuid,
                   .name = g->name ? g->name : "[unnamed]", .category = "nvtx_gpu_proj",
                   .args = args, .n_args = sizeof args / sizeof *args};
    if (pw_write_event(f->seq, &ev) != 0)
        f->failed = true;
    lane->ends[lane->depth++] = sp->gpu.end;
}

/* A projected range in the order slices nest: by start, longest first. */
typedef struct slice_order {
    int64_t start, end, id;
    size_t range;
} slice_order;

static int by_slice_start(const void *pa, const void *pb)
{
    const slice_order *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The projected ranges of one thread. */
static void trace_thread(trace_file *f, uint64_t group, int32_t rank, const trace_report *r,
                         slice_order *order, size_t n)
{
    qsort(order, n, sizeof *order, by_slice_start);
    int64_t gtid = r->ranges[order[0].range].gtid;
    char name[96];
    f->n_lanes = 0;
    for (size_t i = 0; i < n && !f->failed; i++) {
        const trace_range *g = &r->ranges[order[i].range];
        const gpu_span *p = &r->spans[g->span].gpu;
        if (p->start < 0)
            continue;
        size_t k = 0;
        for (; k < f->n_lanes; k++) {
            trace_lane *lane = &f->lanes[k];
            while (lane->depth && lane->ends[lane->depth - 1] <= p->start)
                trace_end(f, lane);
            if (!lane->depth || (lane->depth < LANE_DEPTH && lane->ends[lane->depth - 1] >= p->end))
                break;
        }
        if (k == f->n_lanes) {
            f->lanes = xgrow(f->lanes, &f->lanes_cap, k + 1, sizeof *f->lanes);
            if (k)
                snprintf(name, sizeof name, "thread %lld (pid %lld) lane %zu",
                         (long long)(gtid & 0xFFFFFF), (long long)((gtid >> 24) & 0xFFFFFF), k + 1);
            else
                snprintf(name, sizeof name, "thread %lld (pid %lld)", (long long)(gtid & 0xFFFFFF),
                         (long long)((gtid >> 24) & 0xFFFFFF));
            f->lanes[k].uuid = trace_track(f, group, name, rank * 1024 + (int32_t)k);
            f->lanes[k].depth = 0;
            f->n_lanes++;
        }
        trace_begin(f, &f->lanes[k], r, g);
    }
    for (size_t k = 0; k < f->n_lanes; k++)
        while (f->lanes[k].depth && !f->failed)
            trace_end(f, &f->lanes[k]);
}

static void trace_file_report(trace_file *f, const trace_report *r, const char *label,
                              int32_t rank)
{
    uint64_t group = trace_track(f, 0, label, rank);
    slice_order *order = xcalloc(r->n_ranges ? r->n_ranges : 1, sizeof *order);
    int32_t thread = 0;
    for (size_t i = 0; i < r->n_ranges && !f->failed;) {
        size_t n = 0, j = i;
        for (; j < r->n_ranges && r->ranges[j].gtid == r->ranges[i].gtid; j++) {
            const gpu_span *p = &r->spans[r->ranges[j].span].gpu;
            if (p->calls)
                order[n++] = (slice_order){p->start, p->end, r->ranges[j].id, j};
        }
        if (n)
            trace_thread(f, group, thread++, r, order, n);
        i = j;
    }
    free(order);
}

static int trace_file_open(trace_file *f, buf *err)
{
    memset(f, 0, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/nsysp-recipe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        buf_printf(err, "%s: cannot create: %s", f->dir, strerror(errno));
        return NSYSP_ERR_OUTPUT;
    }
    snprintf(f->path, sizeof f->path, "%s/trace.perfetto-trace", f->dir);
    pw_output *out = pw_output_open(f->path, 6, 1, err);
    if (!out) {
        rmdir(f->dir);
        return NSYSP_ERR_OUTPUT;
    }
    f->w = pw_writer_new(out);
    f->seq = pw_writer_sequence(f->w);
    f->next_uuid = 1;
    f->failed = pw_sequence_start(f->seq, false) != 0;
    return NSYSP_OK;
}

/* Finishes the trace (ok) and adds it to out, or discards it. */
static int trace_file_close(trace_file *f, bool ok, recipe_outputs *out, buf *err)
{
    ok = ok && !f->failed;
    buf why = {0};
    int status = pw_writer_finish(f->w, ok, &why, NULL) == 0 && ok ? NSYSP_OK : NSYSP_ERR_OUTPUT;
    if (ok && status == NSYSP_OK) {
        FILE *in = fopen(f->path, "rb");
        buf bytes = {0};
        char chunk[65536];
        size_t n;
        while (in && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
            buf_append(&bytes, chunk, n);
        if (!in || ferror(in))
            status = NSYSP_ERR_OUTPUT;
        else
            recipe_outputs_add_bytes(out, "trace.perfetto-trace", bytes.data, bytes.len);
        if (in)
            fclose(in);
        buf_free(&bytes);
    }
    if (ok && status != NSYSP_OK)
        buf_printf(err, "trace.perfetto-trace: %s", why.len ? buf_cstr(&why) : "cannot be written");
    buf_free(&why);
    unlink(f->path);
    rmdir(f->dir);
    free(f->lanes);
    return status;
}

/* Whether the report has what the stats report reads; why says what not. */
static bool trace_has_tables(nsys_db *db, buf *why)
{
    static const char *const T[] = {"StringIds", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    for (size_t i = 0; i < 3; i++)
        if (!nsys_db_has_table(db, T[i])) {
            buf_printf(why, "does not contain %s", T[i]);
            return false;
        }
    if (!has_gpu_ops(db)) {
        buf_printf(why, "does not contain GPU operation data");
        return false;
    }
    return true;
}

/* Whether path opens as an Nsight Systems export. */
static bool is_export(const char *path)
{
    buf ignored = {0};
    int status;
    nsys_db *db = nsys_db_open(path, &ignored, &status);
    bool opens = db != NULL;
    nsys_db_close(db);
    buf_free(&ignored);
    return opens;
}

static int run_trace(const recipe_def *recipe, const recipe_job *job, recipe_outputs *out,
                     buf *err)
{
    recipe_table all;
    recipe_table_init(&all, TRACE_COLUMNS, N_TRACE_COLUMNS);
    trace_file file;
    int status = trace_file_open(&file, err);
    int32_t rank = 0;
    for (size_t i = 0; i < job->n && status == NSYSP_OK; i++) {
        buf why = {0};
        nsys_db *db = recipe_open_report(job, i, &why, &status);
        if (!db && status == NSYSP_ERR_NOT_NSYS && is_export(job->paths[i])) {
            /* No such --nvtx range, or --start after --end: nsys stats
             * finds no data there, and the recipe leaves the report out. */
            buf_free(&why);
            status = NSYSP_OK;
            continue;
        }
        if (!db) {
            buf_printf(err, "%s", buf_cstr(&why));
            buf_free(&why);
            break;
        }
        trace_report r = {0};
        if (trace_has_tables(db, &why)) {
            status = trace_project(db, &r, err);
            if (status == NSYSP_OK && (r.outside.calls || r.n_ranges)) {
                size_t before = all.n_rows;
                trace_rows(&r, job->labels[i], &all);
                if (all.n_rows > before)
                    trace_file_report(&file, &r, job->labels[i], rank++);
            }
        }
        buf_free(&why);
        trace_report_free(&r);
        nsys_db_close(db);
    }
    if (status == NSYSP_OK && all.n_rows == 0) {
        buf_printf(err, "%s: no report has NVTX ranges around GPU work", recipe->name);
        status = RECIPE_NO_DATA;
    }
    if (file.w) {
        int closed = trace_file_close(&file, status == NSYSP_OK, out, err);
        if (status == NSYSP_OK)
            status = closed;
    }
    if (status == NSYSP_OK) {
        static const size_t NULLABLE[] = {T_PROJ_START, T_PROJ_DUR, T_ORIG_START, T_ORIG_DUR,
                                          T_PID, T_TID, T_OPS, T_LVL, T_CHILDREN, T_RANGE,
                                          T_PARENT};
        promote_missing(&all, NULLABLE, sizeof NULLABLE / sizeof *NULLABLE);
        recipe_outputs_take(out, "trace.csv", &all);
    }
    recipe_table_free(&all);
    return status;
}

/* ==== The recipes' projection (lib/nvtx.py) ============================ */

/* Which ranges a recipe projects. */
typedef enum sweep_kind {
    SWEEP_ALL,      /* every NVTX row with a start and an end */
    SWEEP_NCCL,     /* push/pop and start/end ranges of the NCCL domain */
    SWEEP_NAMED,    /* those whose text is the option's name (pacing) */
} sweep_kind;

typedef enum range_state { WAITING, OPEN, CLOSED } range_state;

typedef struct sweep_range {
    int64_t rowid, gtid, start, end;
    char *text;
    range_state state;
    size_t group;                 /* while open */
    gpu_span gpu;                 /* what it projects onto, once closed */
} sweep_range;

/* The open ranges of a thread, in groups by the time they opened: a group
 * holds the ranges opened with no call between them, and the work of the
 * calls met from its opening to the next group's. A range's projection is
 * the work of its group and of every group opened after it, so that a
 * call is added once (to the newest group), not to every open range. */
typedef struct sweep_group {
    gpu_span work;
    size_t members;
    size_t below, above;          /* the older and newer groups, or NONE */
} sweep_group;

/* A range of the thread by the time it ends. */
typedef struct range_end {
    int64_t end;
    size_t range;
} range_end;

typedef struct sweep {
    sweep_range *ranges;
    size_t n_ranges;
    sweep_group *groups;
    size_t n_groups, groups_cap, free_group, top;
    range_end *by_end;
} sweep;

static void sweep_free(sweep *s)
{
    for (size_t i = 0; i < s->n_ranges; i++)
        free(s->ranges[i].text);
    free(s->ranges);
    free(s->groups);
    free(s->by_end);
    memset(s, 0, sizeof *s);
}

static void sweep_open(sweep *s, size_t i)
{
    if (s->top == NONE || s->groups[s->top].work.calls) {
        size_t g = s->free_group;
        if (g != NONE) {
            s->free_group = s->groups[g].above;
        } else {
            s->groups = xgrow(s->groups, &s->groups_cap, s->n_groups + 1, sizeof *s->groups);
            g = s->n_groups++;
        }
        s->groups[g] = (sweep_group){.below = s->top, .above = NONE};
        if (s->top != NONE)
            s->groups[s->top].above = g;
        s->top = g;
    }
    s->groups[s->top].members++;
    s->ranges[i].group = s->top;
    s->ranges[i].state = OPEN;
}

static void sweep_close(sweep *s, size_t i)
{
    sweep_range *r = &s->ranges[i];
    range_state was = r->state;
    r->state = CLOSED;
    if (was != OPEN)
        return; /* ended before it began around a call: it contains none */
    size_t g = r->group;
    for (size_t k = g; k != NONE; k = s->groups[k].above)
        span_fold(&r->gpu, &s->groups[k].work);
    sweep_group *grp = &s->groups[g];
    if (--grp->members)
        return;
    /* An empty group's work belongs to the ranges of the group below. */
    if (grp->below != NONE) {
        span_fold(&s->groups[grp->below].work, &grp->work);
        s->groups[grp->below].above = grp->above;
    }
    if (grp->above != NONE)
        s->groups[grp->above].below = grp->below;
    if (s->top == g)
        s->top = grp->below;
    grp->above = s->free_group;
    s->free_group = g;
}

static int by_range_end(const void *pa, const void *pb)
{
    const range_end *a = pa, *b = pb;
    return a->end < b->end ? -1 : a->end > b->end;
}

/* The thread's ranges [a, b) (by start) over its calls (by start): a range
 * contains a call when it starts at or before the call and ends after
 * every call met so far ends, as NVIDIA's sweep decides. (A range that
 * ends inside a call it started after makes that sweep fail; here it
 * contains nothing.) */
static void sweep_thread(sweep *s, size_t a, size_t b, sqlite3_stmt *calls, gpu_call *call,
                         int *rc)
{
    size_t n = b - a;
    for (size_t k = 0; k < n; k++)
        s->by_end[k] = (range_end){s->ranges[a + k].end, a + k};
    qsort(s->by_end, n, sizeof *s->by_end, by_range_end);
    s->n_groups = 0;
    s->free_group = s->top = NONE;
    int64_t gtid = s->ranges[a].gtid, latest_end = INT64_MIN;
    size_t next = a, ended = 0;
    while (*rc == SQLITE_ROW && call->gtid == gtid) {
        if (call->end > latest_end)
            latest_end = call->end;
        for (; next < b && s->ranges[next].start <= call->start; next++)
            if (s->ranges[next].state == WAITING)
                sweep_open(s, next);
        for (; ended < n && s->by_end[ended].end <= latest_end; ended++)
            sweep_close(s, s->by_end[ended].range);
        if (s->top != NONE)
            span_add(&s->groups[s->top].work, call->gpu_start, call->gpu_end, 1, call->rowid);
        if ((*rc = sqlite3_step(calls)) == SQLITE_ROW)
            read_call(calls, call);
    }
    for (; ended < n; ended++)
        sweep_close(s, s->by_end[ended].range);
}

/* Reads the ranges the recipe projects, by thread and start. */
static int sweep_read_ranges(nsys_db *db, sweep_kind kind, const char *name, sweep *s, buf *err)
{
    buf sql = {0};
    buf_printf(&sql, "SELECT e.rowid, e.globalTid, e.start, e.\"end\", ifnull(s.value, e.text)"
                     " FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId"
                     " WHERE e.start IS NOT NULL AND e.\"end\" IS NOT NULL"
                     " AND e.endGlobalTid IS NULL AND e.globalTid IS NOT NULL");
    if (kind == SWEEP_NCCL)
        buf_printf(&sql, " AND e.eventType IN (59, 60) AND e.domainId = (SELECT domainId FROM"
                         " NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL' ORDER BY rowid LIMIT 1)");
    else if (kind == SWEEP_NAMED)
        buf_printf(&sql, " AND ifnull(s.value, e.text) = ?1");
    buf_printf(&sql, " ORDER BY e.globalTid, e.start, e.rowid");
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &stmt, NULL);
    buf_free(&sql);
    if (rc == SQLITE_OK && kind == SWEEP_NAMED)
        sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        s->ranges = xgrow(s->ranges, &cap, s->n_ranges + 1, sizeof *s->ranges);
        s->ranges[s->n_ranges++] = (sweep_range){.rowid = sqlite3_column_int64(stmt, 0),
                                                 .gtid = sqlite3_column_int64(stmt, 1),
                                                 .start = sqlite3_column_int64(stmt, 2),
                                                 .end = sqlite3_column_int64(stmt, 3),
                                                 .text = column_text(stmt, 4),
                                                 .group = NONE};
    }
    sqlite3_finalize(stmt);
    return sql_status(db, rc, "reading NVTX ranges", err);
}

/* Projects the report's ranges; GPU operations only from those that end at
 * or after start and begin at or before end (the recipes' filter). */
static int sweep_project(nsys_db *db, const recipe_job *job, sweep *s, buf *err)
{
    const nsysp_recipe_options *o = job->options;
    buf sql = {0};
    buf_printf(&sql, "SELECT r.globalTid, r.start, r.\"end\", min(o.start), max(o.\"end\"), r.rowid,"
                     " r.correlationId FROM (");
    gpu_ops_sql(db, &sql);
    buf_printf(&sql, ") AS o JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r"
                     " ON o.correlationId = r.correlationId"
                     " AND ((o.globalPid >> 24) & 0xFFFFFF) = ((r.globalTid >> 24) & 0xFFFFFF)"
                     " WHERE 1");
    if (o && o->has_start)
        buf_printf(&sql, " AND o.\"end\" >= %lld", (long long)o->start_ns);
    if (o && o->has_end)
        buf_printf(&sql, " AND o.start <= %lld", (long long)o->end_ns);
    buf_printf(&sql, " GROUP BY r.rowid ORDER BY r.globalTid, r.start, r.rowid");
    sqlite3_stmt *calls = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &calls, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return sql_status(db, rc, "reading CUDA calls", err);
    s->by_end = xcalloc(s->n_ranges ? s->n_ranges : 1, sizeof *s->by_end);
    gpu_call call = {0};
    if ((rc = sqlite3_step(calls)) == SQLITE_ROW)
        read_call(calls, &call);
    for (size_t a = 0; a < s->n_ranges && rc == SQLITE_ROW;) {
        size_t b = a + 1;
        while (b < s->n_ranges && s->ranges[b].gtid == s->ranges[a].gtid)
            b++;
        while (rc == SQLITE_ROW && call.gtid < s->ranges[a].gtid)
            if ((rc = sqlite3_step(calls)) == SQLITE_ROW)
                read_call(calls, &call);
        sweep_thread(s, a, b, calls, &call, &rc);
        a = b;
    }
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(calls);
    sqlite3_finalize(calls);
    return sql_status(db, rc, "reading CUDA calls", err);
}

/* The projected ranges in NVIDIA's order: by the first call (in the order
 * of CUPTI_ACTIVITY_KIND_RUNTIME) each contains, then by row. */
static int by_first_call(const void *pa, const void *pb)
{
    const sweep_range *a = *(sweep_range *const *)pa, *b = *(sweep_range *const *)pb;
    if (a->gpu.first != b->gpu.first)
        return a->gpu.first < b->gpu.first ? -1 : 1;
    return a->rowid < b->rowid ? -1 : a->rowid > b->rowid;
}

/* Projects one report for a recipe: *projected (owned by s) lists the
 * projected ranges in NVIDIA's order. NSYSP_ERR_NOT_NSYS when the report
 * has no such data (why says what). */
static int sweep_report(const recipe_job *job, size_t i, sweep_kind kind, sweep *s,
                        sweep_range ***projected, size_t *n_projected, buf *why)
{
    *projected = NULL;
    *n_projected = 0;
    int status;
    nsys_db *db = recipe_open_whole(job, i, why, &status);
    if (!db)
        return status;
    static const char *const T[] = {"StringIds", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    for (size_t k = 0; k < 3 && status == NSYSP_OK; k++)
        if (!nsys_db_has_table(db, T[k])) {
            buf_printf(why, "does not contain %s", T[k]);
            status = NSYSP_ERR_NOT_NSYS;
        }
    if (status == NSYSP_OK && !has_gpu_ops(db)) {
        buf_printf(why, "does not contain GPU operation data");
        status = NSYSP_ERR_NOT_NSYS;
    }
    const char *name = job->options ? job->options->name : NULL;
    if (status == NSYSP_OK)
        status = sweep_read_ranges(db, kind, name, s, why);
    if (status == NSYSP_OK)
        status = sweep_project(db, job, s, why);
    nsys_db_close(db);
    if (status != NSYSP_OK)
        return status;
    *projected = xcalloc(s->n_ranges ? s->n_ranges : 1, sizeof **projected);
    for (size_t k = 0; k < s->n_ranges; k++)
        if (s->ranges[k].gpu.calls)
            (*projected)[(*n_projected)++] = &s->ranges[k];
    qsort(*projected, *n_projected, sizeof **projected, by_first_call);
    if (!*n_projected) {
        buf_printf(why, "has no NVTX data that projects onto the GPU");
        return NSYSP_ERR_NOT_NSYS;
    }
    return NSYSP_OK;
}

/* ==== Statistics as pandas computes them (lib/summary.py) ============== */

/* The columns of a report's statistics (describe_duration) and of the
 * job's (aggregate_stats_dfs), by position; rank_stats adds Rank and File. */
enum { S_TEXT = RECIPE_STATS_NAME, S_COUNT = RECIPE_STATS_COUNT, S_MEAN = RECIPE_STATS_MEAN,
       S_STD = RECIPE_STATS_STD, S_MIN = RECIPE_STATS_MIN, S_Q1 = RECIPE_STATS_Q1,
       S_MEDIAN = RECIPE_STATS_MEDIAN, S_Q3 = RECIPE_STATS_Q3, S_MAX = RECIPE_STATS_MAX,
       S_SUM = RECIPE_STATS_SUM, S_RANK = RECIPE_N_STATS_COLUMNS, S_FILE, N_STATS_COLUMNS };
static const char *const REPORT_STATS_COLUMNS[] = {
    "Text", "Count", "Mean", "Std", "Min", "Q1", "Median", "Q3", "Max", "Sum", "Rank", "File"};
static const char *const JOB_STATS_COLUMNS[] = {
    "Text", "Count", "Mean", "Std (approx)", "Min", "Q1 (approx)", "Median (approx)",
    "Q3 (approx)", "Max", "Sum"};

/* pandas' groupby quantile q of n sorted values. */
static double quantile(const int64_t *sorted, size_t n, double q)
{
    recipe_quantile at = recipe_quantile_of(q, (int64_t)n);
    double low = (double)sorted[at.at];
    return recipe_quantile_value(at, low, at.frac == 0.0 ? low : (double)sorted[at.at + 1]);
}

/* One name's row from its durations (in the projection's order, which
 * the running deviation's last digits follow, as pandas' groupby). */
static void describe(const int64_t *values, size_t n, int64_t *sorted, recipe_cell *row)
{
    int64_t sum = 0, lo = values[0], hi = values[0];
    recipe_welford var = {0};
    for (size_t i = 0; i < n; i++) {
        sum += values[i];
        lo = values[i] < lo ? values[i] : lo;
        hi = values[i] > hi ? values[i] : hi;
        recipe_welford_add(&var, (double)values[i]);
    }
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_int64);
    recipe_cell_set_int(&row[S_COUNT], (int64_t)n);
    recipe_cell_set_real(&row[S_MEAN], (double)sum / (double)n);
    recipe_cell_set_real(&row[S_STD], recipe_welford_std(&var));
    recipe_cell_set_int(&row[S_MIN], lo);
    recipe_cell_set_real(&row[S_Q1], quantile(sorted, n, 0.25));
    recipe_cell_set_real(&row[S_MEDIAN], quantile(sorted, n, 0.5));
    recipe_cell_set_real(&row[S_Q3], quantile(sorted, n, 0.75));
    recipe_cell_set_int(&row[S_MAX], hi);
    recipe_cell_set_int(&row[S_SUM], sum);
}

static int by_text_then_order(const void *pa, const void *pb)
{
    const sweep_range *a = *(sweep_range *const *)pa, *b = *(sweep_range *const *)pb;
    int c = strcmp(a->text, b->text);
    return c ? c : by_first_call(pa, pb);
}

/* The statistics of the projected ranges per text (those of positive
 * duration only when positive), rows appended to stats in text order. */
static void describe_ranges(sweep_range **ranges, size_t n, bool positive, recipe_table *stats)
{
    sweep_range **kept = xcalloc(n ? n : 1, sizeof *kept);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ranges[i]->text && (!positive || ranges[i]->gpu.end > ranges[i]->gpu.start))
            kept[k++] = ranges[i];
    qsort(kept, k, sizeof *kept, by_text_then_order);
    int64_t *values = xcalloc(k ? k : 1, sizeof *values), *sorted = xcalloc(k ? k : 1, sizeof *sorted);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        for (; j < k && strcmp(kept[j]->text, kept[i]->text) == 0; j++)
            values[j - i] = kept[j]->gpu.end - kept[j]->gpu.start;
        recipe_cell *row = recipe_table_add_row(stats);
        recipe_cell_set_text(&row[S_TEXT], kept[i]->text);
        describe(values, j - i, sorted, row);
        i = j;
    }
    free(values);
    free(sorted);
    free(kept);
}

static int by_double_value(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* A row of text, or a report of a name: sorted by text, then index
 * (stable, as pandas' groupby and NVIDIA's sorted() keep the order). */
typedef struct text_order {
    const char *text;
    size_t index;
} text_order;

static int by_text_order(const void *pa, const void *pb)
{
    const text_order *a = pa, *b = pb;
    int c = strcmp(a->text, b->text);
    return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

/* ==== The recipes ======================================================= */

/* The job's reports in NVIDIA's reducers' order: by file name. */
static size_t *reports_by_label(const recipe_job *job)
{
    text_order *by_label = xcalloc(job->n ? job->n : 1, sizeof *by_label);
    for (size_t i = 0; i < job->n; i++)
        by_label[i] = (text_order){job->labels[i], i};
    qsort(by_label, job->n, sizeof *by_label, by_text_order);
    size_t *order = xcalloc(job->n ? job->n : 1, sizeof *order);
    for (size_t i = 0; i < job->n; i++)
        order[i] = by_label[i].index;
    free(by_label);
    return order;
}

/* Projects report i; NSYSP_OK with n_projected 0 when NVIDIA's recipe
 * leaves the report out, an error (in err) otherwise. */
static int project_report(const recipe_job *job, size_t i, sweep_kind kind, sweep *s,
                          sweep_range ***projected, size_t *n_projected, buf *err)
{
    buf why = {0};
    int status = sweep_report(job, i, kind, s, projected, n_projected, &why);
    if (status == NSYSP_ERR_NOT_NSYS) {
        *n_projected = 0;
        status = NSYSP_OK;
    } else if (status != NSYSP_OK) {
        buf_printf(err, "%s", buf_cstr(&why));
    }
    buf_free(&why);
    return status;
}

static void add_file(recipe_table *files, const char *label)
{
    recipe_cell_set_text(recipe_table_add_row(files), label);
}

/* nvtx_gpu_proj_sum, nccl_gpu_proj_sum: per report and text, the
 * statistics of the projected durations (positive ones); then per text
 * for the job. A report's part is its rows (a table, maybe of none, when
 * it has projected ranges; nothing when NVIDIA's recipe leaves it out). */
static int map_sum(const recipe_def *recipe, const recipe_job *job, size_t i,
                   recipe_outputs *partial, buf *err)
{
    sweep_kind kind = *(const sweep_kind *)recipe->family;
    size_t n = 0;
    sweep s = {0};
    sweep_range **projected = NULL;
    int status = project_report(job, i, kind, &s, &projected, &n, err);
    if (status == NSYSP_OK && n) {
        recipe_table rank;
        recipe_table_init(&rank, REPORT_STATS_COLUMNS, N_STATS_COLUMNS);
        describe_ranges(projected, n, true, &rank);
        recipe_outputs_take(partial, "rank_stats.csv", &rank);
    }
    free(projected);
    sweep_free(&s);
    return status;
}

static int reduce_sum(const recipe_def *recipe, const recipe_job *job,
                      const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    sweep_kind kind = *(const sweep_kind *)recipe->family;
    static const char *const FILE_COLUMN[] = {"File"};
    recipe_table rank, files;
    recipe_table_init(&rank, REPORT_STATS_COLUMNS, N_STATS_COLUMNS);
    recipe_table_init(&files, FILE_COLUMN, 1);
    size_t *order = reports_by_label(job);
    int status = NSYSP_OK;
    for (size_t k = 0; k < job->n && status == NSYSP_OK; k++) {
        size_t i = order[k], before = rank.n_rows;
        if (partials[i].n == 0)
            continue;
        if (partials[i].n != 1 || partials[i].items[0].table.n_columns != N_STATS_COLUMNS) {
            buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
            status = NSYSP_ERR_INPUT_FORMAT;
            break;
        }
        recipe_table_append(&rank, &partials[i].items[0].table);
        for (size_t r = before; r < rank.n_rows; r++) {
            recipe_cell *row = recipe_table_cell(&rank, r, 0);
            recipe_cell_set_int(&row[S_RANK], (int64_t)files.n_rows);
            recipe_cell_set_text(&row[S_FILE], job->labels[i]);
        }
        add_file(&files, job->labels[i]);
    }
    free(order);
    if (status == NSYSP_OK && files.n_rows == 0) {
        buf_printf(err, "%s: no report has %s ranges around GPU work", recipe->name,
                   kind == SWEEP_NCCL ? "NCCL" : "NVTX");
        status = RECIPE_NO_DATA;
    }
    if (status == NSYSP_OK) {
        recipe_table all;
        recipe_table_init(&all, JOB_STATS_COLUMNS, S_SUM + 1);
        recipe_aggregate_stats(&rank, &all);
        recipe_outputs_take(out, "all_stats.csv", &all);
        recipe_outputs_take(out, "rank_stats.csv", &rank);
        recipe_outputs_take(out, "files.csv", &files);
    }
    recipe_table_free(&rank);
    recipe_table_free(&files);
    return status;
}

/* ---- nvtx_gpu_proj_pace ---------------------------------------------- */

/* The pace of one report: per iteration (projected range of the name, in
 * NVIDIA's order) its columns, as lib/pace.py computes them. */
enum { P_START, P_END, P_DURATION_ACCUM, P_DELTA_ACCUM, P_DURATION, P_DELTA, N_PACE };
static const char *const PACE_FILES[] = {"pace_start.csv", "pace_end.csv",
                                         "pace_duration_accum.csv", "pace_delta_accum.csv",
                                         "pace_duration.csv", "pace_delta.csv"};

typedef struct pace_rank {
    int64_t *columns[N_PACE];
    size_t n;
    int64_t session_start;
} pace_rank;

/* A rank's partial: its session start, with the name it was read for
 * (one row); the statistics of its iterations; and each iteration's
 * projected start and end, in NVIDIA's order (the pace files print them
 * one by one anyway). */
static const char *const PACE_RANK_COLUMNS[] = {"Name", "Session"};
static const char *const PACE_INSTANCE_COLUMNS[] = {"Start", "End"};
enum { PACE_PART_RANK, PACE_PART_STATS, PACE_PART_INSTANCES, N_PACE_PARTS };

static void pace_columns(const recipe_table *instances, pace_rank *p)
{
    size_t n = instances->n_rows;
    for (int c = 0; c < N_PACE; c++)
        p->columns[c] = xcalloc(n ? n : 1, sizeof *p->columns[c]);
    p->n = n;
    int64_t previous_end = 0, delta_accum = 0, duration_accum = 0;
    for (size_t i = 0; i < n; i++) {
        const recipe_cell *g = recipe_table_cell(instances, i, 0);
        int64_t start = g[0].i, end = g[1].i;
        int64_t duration = end - start, delta = start - previous_end;
        delta_accum += delta;
        duration_accum += duration;
        p->columns[P_START][i] = start;
        p->columns[P_END][i] = end;
        p->columns[P_DURATION][i] = duration;
        p->columns[P_DELTA][i] = delta;
        p->columns[P_DELTA_ACCUM][i] = delta_accum;
        p->columns[P_DURATION_ACCUM][i] = duration_accum;
        previous_end = end;
    }
}

static int session_start(const recipe_job *job, size_t i, int64_t *start, buf *err)
{
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    sqlite3_stmt *stmt = NULL;
    int rc = nsys_db_has_table(db, "TARGET_INFO_SESSION_START_TIME")
                 ? sqlite3_prepare_v2(nsys_db_sqlite(db),
                                      "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"
                                      " ORDER BY rowid LIMIT 1", -1, &stmt, NULL)
                 : SQLITE_OK;
    status = NSYSP_ERR_NOT_NSYS;
    if (stmt && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *start = sqlite3_column_int64(stmt, 0);
        status = NSYSP_OK;
    } else if (rc != SQLITE_OK && rc != SQLITE_DONE) {
        status = nsys_db_error(db, rc, "reading the session start", err);
    }
    sqlite3_finalize(stmt);
    nsys_db_close(db);
    return status;
}

/* A pace file: a column per rank ("0", "1"...), a row per iteration;
 * iterations a rank lacks are missing (the columns then print as floats). */
static void pace_table(const pace_rank *ranks, size_t n_ranks, int column, recipe_table *t)
{
    char **names = xcalloc(n_ranks, sizeof *names);
    size_t rows = 0;
    for (size_t r = 0; r < n_ranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "%zu", r);
        names[r] = xstrdup(name);
        rows = ranks[r].n > rows ? ranks[r].n : rows;
    }
    recipe_table_init(t, (const char *const *)names, n_ranks);
    for (size_t r = 0; r < n_ranks; r++)
        free(names[r]);
    free(names);
    for (size_t i = 0; i < rows; i++) {
        recipe_cell *row = recipe_table_add_row(t);
        for (size_t r = 0; r < n_ranks; r++)
            if (i < ranks[r].n)
                recipe_cell_set_int(&row[r], ranks[r].columns[column][i]);
    }
    size_t *all = xcalloc(n_ranks, sizeof *all);
    for (size_t r = 0; r < n_ranks; r++)
        all[r] = r;
    promote_missing(t, all, n_ranks);
    free(all);
}

/* numpy's percentile (linear) of sorted values. */
static double percentile(const double *sorted, size_t n, double q)
{
    double at = (double)n * q + (1.0 - q) - 1.0;
    double below = floor(at);
    size_t i = (size_t)below, j = i + 1 < n ? i + 1 : n - 1;
    double t = at - below, a = sorted[i], b = sorted[j], diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

/* pace_delta_stats.csv: per iteration, the statistics of the ranks'
 * deltas (pandas' describe over the ranks present: two-pass deviation). */
static void pace_delta_stats(const pace_rank *ranks, size_t n_ranks, recipe_table *t)
{
    static const char *const COLUMNS[] = {"Count", "Mean", "Std", "Min", "Q1", "Median", "Q3",
                                          "Max", "Sum"};
    recipe_table_init(t, COLUMNS, 9);
    size_t rows = 0;
    for (size_t r = 0; r < n_ranks; r++)
        rows = ranks[r].n > rows ? ranks[r].n : rows;
    double *v = xcalloc(n_ranks, sizeof *v), *squares = xcalloc(n_ranks, sizeof *squares);
    for (size_t i = 0; i < rows; i++) {
        size_t n = 0;
        int64_t sum = 0;
        for (size_t r = 0; r < n_ranks; r++)
            if (i < ranks[r].n) {
                sum += ranks[r].columns[P_DELTA][i];
                v[n++] = (double)ranks[r].columns[P_DELTA][i];
            }
        double mean = recipe_numpy_sum(v, n) / (double)n;
        for (size_t k = 0; k < n; k++)
            squares[k] = (mean - v[k]) * (mean - v[k]);
        double spread = recipe_numpy_sum(squares, n);
        qsort(v, n, sizeof *v, by_double_value);
        recipe_cell *row = recipe_table_add_row(t);
        recipe_cell_set_real(&row[0], (double)n);
        recipe_cell_set_real(&row[1], mean);
        if (n > 1)
            recipe_cell_set_real(&row[2], sqrt(spread / (double)(n - 1)));
        recipe_cell_set_real(&row[3], v[0]);
        recipe_cell_set_real(&row[4], percentile(v, n, 0.25));
        recipe_cell_set_real(&row[5], percentile(v, n, 0.5));
        recipe_cell_set_real(&row[6], percentile(v, n, 0.75));
        recipe_cell_set_real(&row[7], v[n - 1]);
        recipe_cell_set_real(&row[8], (double)sum);
    }
    free(squares);
    free(v);
}

static bool has_name(const recipe_def *recipe, const recipe_job *job, buf *err)
{
    if (job->options && job->options->name)
        return true;
    buf_printf(err, "%s: --name NAME is required (the NVTX range that marks an iteration)",
               recipe->name);
    return false;
}

/* Report i's part: nothing when NVIDIA's recipe leaves it out (no session
 * start, no projected range of the name). */
static int map_pace(const recipe_def *recipe, const recipe_job *job, size_t i,
                    recipe_outputs *partial, buf *err)
{
    if (!has_name(recipe, job, err))
        return NSYSP_ERR_USAGE;
    size_t n = 0;
    sweep s = {0};
    sweep_range **projected = NULL;
    int64_t start = 0;
    int status = session_start(job, i, &start, err);
    if (status == NSYSP_ERR_NOT_NSYS)
        return NSYSP_OK; /* NVIDIA's recipe cannot read the report: left out */
    if (status == NSYSP_OK)
        status = project_report(job, i, SWEEP_NAMED, &s, &projected, &n, err);
    if (status == NSYSP_OK && n) {
        recipe_table rank, stats, instances;
        recipe_table_init(&rank, PACE_RANK_COLUMNS, 2);
        recipe_cell *c = recipe_table_add_row(&rank);
        recipe_cell_set_text(&c[0], job->options->name);
        recipe_cell_set_int(&c[1], start);
        recipe_table_init(&stats, REPORT_STATS_COLUMNS, S_SUM + 1);
        describe_ranges(projected, n, false, &stats);
        recipe_table_init(&instances, PACE_INSTANCE_COLUMNS, 2);
        for (size_t k = 0; k < n; k++) {
            c = recipe_table_add_row(&instances);
            recipe_cell_set_int(&c[0], projected[k]->gpu.start);
            recipe_cell_set_int(&c[1], projected[k]->gpu.end);
        }
        recipe_outputs_take(partial, "rank", &rank);
        recipe_outputs_take(partial, "stats", &stats);
        recipe_outputs_take(partial, "instances", &instances);
    }
    free(projected);
    sweep_free(&s);
    return status;
}

/* Whether report i's part is one of this recipe's for this --name (err
 * says why not). */
static bool is_pace_partial(const recipe_job *job, size_t i, const recipe_outputs *part, buf *err)
{
    const recipe_table *t = part->n == N_PACE_PARTS ? &part->items[PACE_PART_RANK].table : NULL;
    if (!t || t->n_columns != 2 || t->n_rows != 1 ||
        part->items[PACE_PART_STATS].table.n_columns != S_SUM + 1 ||
        part->items[PACE_PART_INSTANCES].table.n_columns != 2) {
        buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
        return false;
    }
    const recipe_table *instances = &part->items[PACE_PART_INSTANCES].table;
    bool ints = recipe_table_cell(t, 0, 1)->kind == RECIPE_INT;
    for (size_t k = 0; k < 2 * instances->n_rows && ints; k++)
        ints = instances->cells[k].kind == RECIPE_INT;
    if (!ints) {
        buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
        return false;
    }
    const recipe_cell *name = recipe_table_cell(t, 0, 0);
    if (name->kind != RECIPE_TEXT || strcmp(name->s, job->options->name) != 0) {
        buf_printf(err, "%s: its partial was read for --name '%s', not '%s'", job->paths[i],
                   name->kind == RECIPE_TEXT ? name->s : "", job->options->name);
        return false;
    }
    return true;
}

/* The ranks in file name order: their statistics combined, their
 * iterations placed on the job's clock (sessions after the earliest). */
static int reduce_pace(const recipe_def *recipe, const recipe_job *job,
                       const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    if (!has_name(recipe, job, err))
        return NSYSP_ERR_USAGE;
    static const char *const FILE_COLUMN[] = {"File"};
    recipe_table stats, files;
    recipe_table_init(&stats, REPORT_STATS_COLUMNS, S_SUM + 1);
    recipe_table_init(&files, FILE_COLUMN, 1);
    pace_rank *ranks = xcalloc(job->n ? job->n : 1, sizeof *ranks);
    size_t n_ranks = 0, *order = reports_by_label(job);
    int status = NSYSP_OK;
    for (size_t k = 0; k < job->n && status == NSYSP_OK; k++) {
        const recipe_outputs *part = &partials[order[k]];
        if (part->n == 0)
            continue;
        if (!is_pace_partial(job, order[k], part, err)) {
            status = NSYSP_ERR_INPUT_FORMAT;
            break;
        }
        recipe_table_append(&stats, &part->items[PACE_PART_STATS].table);
        pace_columns(&part->items[PACE_PART_INSTANCES].table, &ranks[n_ranks]);
        ranks[n_ranks++].session_start =
            recipe_table_cell(&part->items[PACE_PART_RANK].table, 0, 1)->i;
        add_file(&files, job->labels[order[k]]);
    }
    free(order);
    if (status == NSYSP_OK && !n_ranks) {
        buf_printf(err, "%s: no report has the NVTX range '%s' around GPU work", recipe->name,
                   job->options->name);
        status = RECIPE_NO_DATA;
    }
    if (status == NSYSP_OK) {
        int64_t first = ranks[0].session_start;
        for (size_t r = 1; r < n_ranks; r++)
            first = ranks[r].session_start < first ? ranks[r].session_start : first;
        for (size_t r = 0; r < n_ranks; r++)
            for (size_t i = 0; i < ranks[r].n; i++) {
                ranks[r].columns[P_START][i] += ranks[r].session_start - first;
                ranks[r].columns[P_END][i] += ranks[r].session_start - first;
            }
        recipe_table all, t;
        recipe_table_init(&all, JOB_STATS_COLUMNS, S_SUM + 1);
        recipe_aggregate_stats(&stats, &all);
        recipe_outputs_take(out, "files.csv", &files);
        recipe_outputs_take(out, "stats.csv", &all);
        for (int c = 0; c < N_PACE; c++) {
            pace_table(ranks, n_ranks, c, &t);
            recipe_outputs_take(out, PACE_FILES[c], &t);
        }
        pace_delta_stats(ranks, n_ranks, &t);
        recipe_outputs_take(out, "pace_delta_stats.csv", &t);
    }
    for (size_t r = 0; r < n_ranks; r++)
        for (int c = 0; c < N_PACE; c++)
            free(ranks[r].columns[c]);
    free(ranks);
    recipe_table_free(&stats);
    recipe_table_free(&files);
    return status;
}

static const sweep_kind ALL_RANGES = SWEEP_ALL, NCCL_RANGES = SWEEP_NCCL;

/* nvtx_gpu_proj_trace runs on one machine: every projected range is a
 * row of trace.csv and a slice of the trace, so a report's part would be
 * its events. */
const recipe_def RECIPES_NVTX_PROJ[] = {
    {"nccl_gpu_proj_sum", "NCCL ranges projected onto the GPU: statistics per name, per report"
                          " and for the job", NULL, &NCCL_RANGES, map_sum, reduce_sum},
    {"nvtx_gpu_proj_pace", "one NVTX range (--name) projected onto the GPU, iteration by"
                           " iteration, per report", NULL, NULL, map_pace, reduce_pace},
    {"nvtx_gpu_proj_sum", "NVTX ranges projected onto the GPU: statistics per name, per report"
                          " and for the job", NULL, &ALL_RANGES, map_sum, reduce_sum},
    {"nvtx_gpu_proj_trace", "NVTX ranges projected onto the GPU, one row each with its place in"
                            " the range tree; and as a Perfetto trace", run_trace, NULL},
};
const size_t N_RECIPES_NVTX_PROJ = sizeof RECIPES_NVTX_PROJ / sizeof *RECIPES_NVTX_PROJ;
