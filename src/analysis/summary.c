/* nsysp_summarize: per-name totals straight from the report, with SQL
 * aggregates (one GROUP BY per category), for comparing runs without
 * opening a trace. */
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "common/hmap.h"
#include "common/regex_limits.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_enums.h"
#include "nsys/nsys_strings.h"
#include "nsys/nsys_torch.h"
#include "summary.h"
#include "summary_gpu.h"

typedef struct summary_build {
    nsys_db *db;
    nsys_strings strings;
    nsys_enums enums;        /* memcpy copy kinds' labels */
    regex_t *match;          /* a name is kept when it matches any */
    size_t n_match;
    hmap index;              /* "category\\0name" -> row index + 1 */
    nsysp_summary_row *rows;
    size_t n, cap;
    buf err;
} summary_build;

/* See nsysp_summary_set_raw_names. */
static int summary_raw_names;

void nsysp_summary_set_raw_names(int raw)
{
    summary_raw_names = raw;
}

bool summary_names_raw(void)
{
    return summary_raw_names != 0;
}

/* See nsysp_summary_set_kernel_names. */
static nsysp_kernel_names summary_kernel_names;

void nsysp_summary_set_kernel_names(nsysp_kernel_names kind)
{
    summary_kernel_names = kind;
}

/* See nsysp_summary_set_cancel. */
static volatile sig_atomic_t *summary_cancel;

void nsysp_summary_set_cancel(volatile sig_atomic_t *cancel)
{
    summary_cancel = cancel;
}

volatile sig_atomic_t *summary_cancel_flag(void)
{
    return summary_cancel;
}

static bool kept(const summary_build *b, const char *name)
{
    for (size_t i = 0; i < b->n_match; i++)
        if (regexec(&b->match[i], name, 0, NULL, 0) == 0)
            return true;
    return b->n_match == 0;
}

static void add(summary_build *b, const char *category, const char *name, int64_t count,
                int64_t total, int64_t min, int64_t max)
{
    if (!name || count <= 0)
        return;
    /* Inline NVTX text is the program's own bytes: repaired as the trace
     * and StringIds repair them, so that both spellings are one name. */
    buf clean = {0};
    name = utf8_sanitize(name, strlen(name), &clean);
    if (!kept(b, name)) {
        buf_free(&clean);
        return;
    }
    buf key = {0};
    buf_printf(&key, "%s%c%s", category, 0, name);
    bool inserted;
    uint64_t *slot = hmap_upsert(&b->index, key.data, key.len, &inserted);
    buf_free(&key);
    if (inserted) {
        b->rows = xgrow(b->rows, &b->cap, b->n + 1, sizeof *b->rows);
        b->rows[b->n] = (nsysp_summary_row){.category = category, .name = xstrdup(name),
                                            .min_ns = min, .max_ns = max};
        *slot = ++b->n;
    }
    /* Several ids can share a name (e.g. versioned API names): merge. */
    nsysp_summary_row *r = &b->rows[*slot - 1];
    r->count += (uint64_t)count;
    r->total_ns += total;
    r->min_ns = min < r->min_ns ? min : r->min_ns;
    r->max_ns = max > r->max_ns ? max : r->max_ns;
    buf_free(&clean);
}

/* Runs a fixed aggregate query whose rows are (key, text, count, total,
 * min, max); key is a StringIds id, or, with by_text, text is the name. */
static int aggregate(summary_build *b, const char *category, const char *sql,
                     const char *(*name_of)(summary_build *, sqlite3_stmt *, char *, size_t))
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(b->db), sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return nsys_db_error(b->db, rc, "summarizing", &b->err);
    char scratch[4096];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        add(b, category, name_of(b, st, scratch, sizeof scratch), sqlite3_column_int64(st, 2),
            sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? NSYSP_OK : nsys_db_error(b->db, rc, "summarizing", &b->err);
}

static const char *string_name(summary_build *b, sqlite3_stmt *st, char *scratch, size_t size)
{
    (void)scratch, (void)size;
    const char *text = (const char *)sqlite3_column_text(st, 1);
    return text ? text : nsys_string(&b->strings, sqlite3_column_int64(st, 0));
}

/* An NVTX range's name as grouped: a PyTorch op range's op (nsys_torch.h),
 * unless raw names are asked for. */
static const char *range_name(summary_build *b, sqlite3_stmt *st, char *scratch, size_t size)
{
    const char *full = string_name(b, st, scratch, size);
    return full && !summary_raw_names ? nsys_torch_op_name(full, scratch, size) : full;
}

/* The displayed name, without a "_v7000"-style version suffix (the last
 * six characters starting with "_v"), exactly as nsys stats drops it. */
static const char *api_name(summary_build *b, sqlite3_stmt *st, char *scratch, size_t size)
{
    const char *full = string_name(b, st, scratch, size);
    if (!full)
        return NULL;
    size_t n = strlen(full);
    if (n > 6 && full[n - 6] == '_' && full[n - 5] == 'v')
        n -= 6;
    snprintf(scratch, size, "%.*s", (int)n, full);
    return scratch;
}

/* A memcpy named as nsys 2023.4's reports name it, "[CUDA memcpy
 * Host-to-Device]" from the copy kind's label; a kind without a label (which
 * nsys would leave out) by its number, so that its time still shows. */
static const char *memcpy_name(summary_build *b, sqlite3_stmt *st, char *scratch, size_t size)
{
    int64_t kind = sqlite3_column_int64(st, 0);
    const char *label = nsys_enum_label(&b->enums, NSYS_ENUM_MEMCPY_OPER, kind);
    if (label)
        snprintf(scratch, size, "[CUDA memcpy %s]", label);
    else
        snprintf(scratch, size, "[CUDA memcpy kind %lld]", (long long)kind);
    return scratch;
}

static const char *memset_name(summary_build *b, sqlite3_stmt *st, char *scratch, size_t size)
{
    (void)b, (void)st, (void)scratch, (void)size;
    return "[CUDA memset]";
}

#define DURATIONS "count(*), sum(\"end\" - start), min(\"end\" - start), max(\"end\" - start)"
#define GPU_TIMES(column) "count(*), sum(" column "), min(" column "), max(" column ")"

/* A cuBLAS or cuDNN call's GPU time: the work of the CUDA calls made on its
 * thread while it ran (start bounded twice so that the index limits the
 * search). */
#define LIBRARY_GPU(table)                                                                      \
    "SELECT nameId, NULL, " GPU_TIMES("gpu") " FROM (SELECT l.nameId AS nameId,"                \
    " (SELECT sum(c.busy) FROM " SUMMARY_CALLS_TABLE " AS c WHERE c.tid = l.globalTid"           \
    " AND c.start >= l.start AND c.start <= l.\"end\" AND c.\"end\" <= l.\"end\") AS gpu"      \
    " FROM " table " AS l) WHERE gpu IS NOT NULL GROUP BY nameId"

/* Every category, described once, in the order they are listed; a query
 * runs when its table has the column it needs (NULL: the table alone). A
 * NULL query is the kernels', whose name column is chosen (kernel_query). */
static const struct category_query {
    const char *category, *table, *needs, *sql;
    const char *(*name_of)(summary_build *, sqlite3_stmt *, char *, size_t);
} QUERIES[] = {
    {"kernel", "CUPTI_ACTIVITY_KIND_KERNEL", "shortName", NULL, string_name},
    {"memory", "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind",
     "SELECT copyKind, NULL, " DURATIONS " FROM CUPTI_ACTIVITY_KIND_MEMCPY"
     " WHERE \"end\" >= start GROUP BY copyKind", memcpy_name},
    {"memory", "CUPTI_ACTIVITY_KIND_MEMSET", "start",
     "SELECT 0, NULL, " DURATIONS " FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE \"end\" >= start",
     memset_name},
    {"cuda-api", "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId",
     "SELECT nameId, NULL, " DURATIONS " FROM CUPTI_ACTIVITY_KIND_RUNTIME"
     " WHERE \"end\" >= start GROUP BY nameId", api_name},
    {"library", "CUBLAS_EVENTS", "nameId",
     "SELECT nameId, NULL, " DURATIONS " FROM CUBLAS_EVENTS WHERE \"end\" >= start"
     " GROUP BY nameId", api_name},
    {"library", "CUDNN_EVENTS", "nameId",
     "SELECT nameId, NULL, " DURATIONS " FROM CUDNN_EVENTS WHERE \"end\" >= start"
     " GROUP BY nameId", api_name},
    {"api-gpu", SUMMARY_CALLS_TABLE, NULL,
     "SELECT nameId, NULL, " GPU_TIMES("busy") " FROM " SUMMARY_CALLS_TABLE " GROUP BY nameId",
     api_name},
    {"api-gpu", "CUBLAS_EVENTS", "globalTid", LIBRARY_GPU("CUBLAS_EVENTS"), api_name},
    {"api-gpu", "CUDNN_EVENTS", "globalTid", LIBRARY_GPU("CUDNN_EVENTS"), api_name},
    {"nvtx", SUMMARY_NVTX_VIEW, NULL,
     "SELECT NULL, name, " DURATIONS " FROM " SUMMARY_NVTX_VIEW " WHERE \"end\" >= start"
     " GROUP BY name", range_name},
    {"nvtx-gpu", SUMMARY_RANGES_TABLE, NULL,
     "SELECT NULL, name, " GPU_TIMES("proj") " FROM " SUMMARY_RANGES_TABLE " GROUP BY name",
     range_name},
    {"nvtx-gpu-ops", SUMMARY_RANGES_TABLE, NULL,
     "SELECT NULL, name, " GPU_TIMES("busy") " FROM " SUMMARY_RANGES_TABLE " GROUP BY name",
     range_name},
};
enum { N_QUERIES = sizeof QUERIES / sizeof QUERIES[0] };

/* Kernels by the names nsysp_summary_set_kernel_names chose, as nsys stats'
 * cuda_gpu_kern_sum picks them: :base the short name, by default the
 * demangled one, :mangled the mangled one where the report has it. */
static void kernel_query(const summary_build *b, buf *sql)
{
    const char *column = "shortName";
    if (summary_kernel_names == NSYSP_KERNEL_NAMES_MANGLED &&
        nsys_db_has_column(b->db, "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName"))
        column = "coalesce(mangledName, demangledName)";
    else if (summary_kernel_names != NSYSP_KERNEL_NAMES_SHORT &&
             nsys_db_has_column(b->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName"))
        column = "demangledName";
    buf_printf(sql, "SELECT %s, NULL, " DURATIONS " FROM CUPTI_ACTIVITY_KIND_KERNEL"
                    " WHERE \"end\" >= start GROUP BY 1", column);
}

static int summarize(summary_build *b)
{
    int status = summary_gpu_build(b->db, &b->err);
    for (size_t i = 0; i < N_QUERIES && status == NSYSP_OK; i++) {
        const struct category_query *q = &QUERIES[i];
        if (!(q->needs ? nsys_db_has_column(b->db, q->table, q->needs)
                       : nsys_db_has_table(b->db, q->table)))
            continue;
        buf sql = {0};
        if (!q->sql)
            kernel_query(b, &sql);
        status = aggregate(b, q->category, q->sql ? q->sql : buf_cstr(&sql), q->name_of);
        buf_free(&sql);
    }
    return status;
}

/* Where a category is first listed in QUERIES. */
static size_t category_rank(const char *category)
{
    size_t i = 0;
    while (i < N_QUERIES && strcmp(QUERIES[i].category, category) != 0)
        i++;
    return i;
}

static int by_category_then_total(const void *pa, const void *pb)
{
    const nsysp_summary_row *a = pa, *b = pb;
    size_t ia = category_rank(a->category), ib = category_rank(b->category);
    if (ia != ib)
        return ia < ib ? -1 : 1;
    if (a->total_ns != b->total_ns)
        return a->total_ns > b->total_ns ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Each --match within bounds on its cost (regex_limits.h). */
static int compile_matches(summary_build *b, const char *const *match, size_t n_match)
{
    b->match = xcalloc(n_match ? n_match : 1, sizeof *b->match);
    for (; b->n_match < n_match; b->n_match++) {
        char why[256];
        if (regex_compile(&b->match[b->n_match], match[b->n_match], why, sizeof why) < 0) {
            buf_printf(&b->err, "--match: %s", why);
            return NSYSP_ERR_USAGE;
        }
    }
    return NSYSP_OK;
}

nsysp_status nsysp_summarize_matching(const char *input, const char *const *match,
                                      size_t n_match, nsysp_summary *out)
{
    memset(out, 0, sizeof *out);
    summary_build b = {0};
    hmap_init(&b.index);
    int status = compile_matches(&b, match, n_match);
    if (status == NSYSP_OK)
        b.db = nsys_db_open(input, &b.err, &status);
    if (b.db)
        nsys_db_set_cancel(b.db, summary_cancel);
    if (b.db && (status = nsys_strings_load(b.db, &b.strings, &b.err)) == NSYSP_OK &&
        (status = nsys_enums_load(b.db, &b.enums, &b.err)) == NSYSP_OK)
        status = summarize(&b);
    if (status == NSYSP_OK && cancel_requested(summary_cancel)) { /* after the last query */
        buf_printf(&b.err, "%s: interrupted", input);
        status = NSYSP_ERR_INTERRUPTED;
    }
    if (status == NSYSP_OK) {
        if (b.n) /* a report without any of these has no rows at all */
            qsort(b.rows, b.n, sizeof *b.rows, by_category_then_total);
        out->rows = b.rows;
        out->n_rows = b.n;
    } else {
        for (size_t i = 0; i < b.n; i++)
            free(b.rows[i].name);
        free(b.rows);
        snprintf(out->message, sizeof out->message, "%s", buf_cstr(&b.err));
    }
    nsys_strings_free(&b.strings);
    nsys_enums_free(&b.enums);
    nsys_db_close(b.db);
    for (size_t i = 0; i < b.n_match; i++)
        regfree(&b.match[i]);
    free(b.match);
    hmap_free(&b.index);
    buf_free(&b.err);
    return (nsysp_status)status;
}

nsysp_status nsysp_summarize(const char *input, const char *match, nsysp_summary *out)
{
    return nsysp_summarize_matching(input, &match, match ? 1 : 0, out);
}

void nsysp_summary_free(nsysp_summary *s)
{
    for (size_t i = 0; i < s->n_rows; i++)
        free(s->rows[i].name);
    free(s->rows);
    memset(s, 0, sizeof *s);
}
