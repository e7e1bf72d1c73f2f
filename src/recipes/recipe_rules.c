/* The rules recipes: cuda_api_sync, cuda_memcpy_async, cuda_memcpy_sync,
 * cuda_memset_sync, dx12_mem_ops, gpu_gaps and gpu_time_util.
 *
 * Each runs one rule of `nsys analyze` (nsys 2023.4) on every report of the
 * job, with the recipe's options, and writes every report's rows, each with
 * its report's name (File), to analysis.csv: the columns of NVIDIA's
 * analysis.parquet (the rule's, less their unit tags and its hidden ones),
 * without pandas' index.
 *
 * A rule is one SQLite query per report, shaped as nsys's own: SQLite then
 * orders equal rows, and picks the context of a group of rows, as it does
 * for nsys. A report without what a rule reads, or without rows, is left
 * out, as nsys leaves it out. */
#include "recipe.h"


#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* How one recipe of the family reads a report. */
typedef struct rule_recipe {
    const char *const *columns; /* analysis.csv's columns, File aside */
    size_t n_columns;           /* the query's first columns; the others are nsys's hidden ones */
    /* Writes the rule's query for the report into sql; NSYSP_ERR_NOT_NSYS
     * when the report lacks what the rule reads. */
    int (*query)(nsys_db *db, const nsysp_recipe_options *o, buf *sql);
} rule_recipe;

/* rows: the recipes' default is every row (LIMIT -1). */
static long long row_limit(const nsysp_recipe_options *o)
{
    return o && o->has_rows ? (long long)o->rows : -1;
}

static bool has_tables(nsys_db *db, const char *const *tables)
{
    for (; *tables; tables++)
        if (!nsys_db_has_table(db, *tables))
            return false;
    return true;
}

/* ---- The CUDA rules: calls that block the host --------------------------- */

static int query_cuda_api_sync(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    static const char *const T[] = {"StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME", NULL};
    if (!has_tables(db, T))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql,
               "WITH names AS (SELECT * FROM StringIds"
               " WHERE value LIKE 'cudaDeviceSynchronize%%' OR value LIKE 'cudaStreamSynchronize%%')"
               " SELECT api.\"end\" - api.start, api.start, (api.globalTid >> 24) & 16777215,"
               " api.globalTid & 16777215, names.value, api.globalTid, 'cuda'"
               " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS api JOIN names ON names.id = api.nameId"
               " ORDER BY 1 DESC LIMIT %lld",
               row_limit(o));
    return NSYSP_OK;
}

/* For an export made before ENUM_CUDA_MEM_KIND was written, a table of
 * that name from nsys's own numbering (nsys 2023.4 exports such a report
 * afresh and finds it), so that the rule's query keeps nsys's shape. */
static void mem_kinds(nsys_db *db, buf *sql)
{
    if (nsys_db_has_table(db, "ENUM_CUDA_MEM_KIND"))
        return;
    buf_printf(sql, "ENUM_CUDA_MEM_KIND(id, label) AS (");
    buf err = {0};
    recipe_enum_values(db, NSYS_ENUM_MEM_KIND, sql, &err); /* no table to read: the built-ins */
    buf_free(&err);
    buf_printf(sql, "),");
}

/* Copies (table "CUPTI_ACTIVITY_KIND_MEMCPY") or memsets whose rows pass
 * work_where, with the calls of their correlation id, in any process and
 * unfiltered (nsys joins main's table), whose names pass names_where. An
 * export made before green contexts has none (NULL), as nsys 2023.4's own
 * export of the same report says. */
static int query_cuda_memory(nsys_db *db, const nsysp_recipe_options *o, buf *sql, bool copies,
                             const char *names_where, const char *work_where)
{
    const char *work = copies ? "CUPTI_ACTIVITY_KIND_MEMCPY" : "CUPTI_ACTIVITY_KIND_MEMSET";
    const char *const T[] = {"StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME", work, NULL};
    if (!has_tables(db, T))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql, "WITH ");
    mem_kinds(db, sql);
    buf_printf(sql,
               " names AS (SELECT * FROM StringIds WHERE %s),"
               " work AS (SELECT * FROM %s WHERE %s)"
               " SELECT w.\"end\" - w.start, w.start, ",
               names_where, work, work_where);
    if (copies)
        buf_printf(sql, "src.label, dst.label, ");
    else
        buf_printf(sql, "kind.label, ");
    buf_printf(sql,
               "w.bytes, (w.globalPid >> 24) & 16777215, w.deviceId, w.contextId,"
               " %s, w.streamId, names.value, w.globalPid, %s'cuda'"
               " FROM work AS w JOIN names ON names.id = api.nameId"
               " JOIN main.CUPTI_ACTIVITY_KIND_RUNTIME AS api ON api.correlationId = w.correlationId",
               nsys_db_has_column(db, work, "greenContextId") ? "NULLIF(w.greenContextId, 0)" : "NULL",
               copies ? "w.copyKind, " : "");
    if (copies)
        buf_printf(sql, " LEFT JOIN ENUM_CUDA_MEM_KIND AS src ON srcKind = src.id"
                        " LEFT JOIN ENUM_CUDA_MEM_KIND AS dst ON dstKind = dst.id");
    else
        buf_printf(sql, " LEFT JOIN ENUM_CUDA_MEM_KIND AS kind ON memKind = kind.id");
    buf_printf(sql, " ORDER BY 1 DESC LIMIT %lld", row_limit(o));
    return NSYSP_OK;
}

/* Asynchronous copies from or to pageable memory (kind 0): synchronous in
 * fact. */
static int query_cuda_memcpy_async(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    return query_cuda_memory(db, o, sql, true, "value LIKE 'cudaMemcpy%Async%'",
                             "srcKind = 0 OR dstKind = 0");
}

/* Synchronous copies, less small host-to-device ones (copy kind 1) and
 * those within one device. */
static int query_cuda_memcpy_sync(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    return query_cuda_memory(db, o, sql, true,
                             "value LIKE 'cudaMemcpy%' AND value NOT LIKE '%Async%'",
                             "NOT (bytes <= 64000 AND copyKind = 1)"
                             " AND NOT (srcDeviceId IS NOT NULL AND srcDeviceId = dstDeviceId)");
}

/* Synchronous memsets of pinned (1) or managed (4) memory; LIKE ignores
 * case, so "async" leaves out "Async" too. */
static int query_cuda_memset_sync(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    return query_cuda_memory(db, o, sql, false,
                             "value LIKE 'cudaMemset%' AND value NOT LIKE '%async%'",
                             "memKind = 1 OR memKind = 4");
}

/* ---- DX12: memory operations that cost more than they seem ---------------- */

static int query_dx12_mem_ops(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    static const char *const T[] = {"StringIds", "DX12_API", "DX12_MEMORY_OPERATION", NULL};
    if (!has_tables(db, T))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql,
               "SELECT api.\"end\" - api.start, api.start, api.globalTid & 16777215, op.gpu,"
               " CASE"
               " WHEN s.value LIKE 'ID3D12Device::CreateHeap%%' AND op.heapFlags & 4096 = 0"
               " THEN 'D3D12_HEAP_CREATED_WITH_ZEROING'"
               " WHEN s.value LIKE 'ID3D12Device::CreateCommittedResource%%' AND op.heapFlags & 4096 = 0"
               " THEN 'D3D12_COMMITTED_RESOURCE_CREATED_WITH_ZEROING'"
               " WHEN s.value = 'ID3D12Resource::ReadFromSubresource' AND op.heapType = 1"
               " THEN 'D3D12_READ_FROM_UPLOAD_HEAP_SUBRESOURCE'"
               " WHEN s.value = 'ID3D12Resource::ReadFromSubresource' AND op.cpuPageProperty = 2"
               " THEN 'D3D12_READ_FROM_SUBRESOURCE_TO_WRITE_COMBINE_PAGE'"
               " WHEN s.value = 'ID3D12Resource::WriteToSubresource' AND op.heapType = 2"
               " THEN 'D3D12_WRITE_TO_READBACK_HEAP_SUBRESOURCE'"
               " WHEN s.value = 'ID3D12Resource::WriteToSubresource' AND op.cpuPageProperty = 3"
               " THEN 'D3D12_WRITE_TO_SUBRESOURCE_FROM_WRITE_BACK_PAGE'"
               " END AS warning, api.globalTid, op.heapType, 'dx12'"
               " FROM DX12_MEMORY_OPERATION AS op JOIN DX12_API AS api ON api.id = op.traceEventId"
               " JOIN StringIds AS s ON s.id = api.nameId"
               " WHERE warning IS NOT NULL ORDER BY 1 DESC LIMIT %lld",
               row_limit(o));
    return NSYSP_OK;
}

/* ---- The GPU rules: idle GPUs ----------------------------------------------- */

/* The GPU work of one API, as nsys's GPU rules read it. */
typedef struct gpu_api {
    const char *name;           /* the _API column */
    const char *tables[3];      /* its work, in nsys's order */
    const char *global_id;      /* the process's column */
    const char *device_id, *context_id;
    const char *overhead_names; /* its profiler overhead, over StringIds.value */
} gpu_api;

static const gpu_api GPU_APIS[] = {
    {"cuda",
     {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"},
     "globalPid", "deviceId", "contextId",
     "value = 'CUDA profiling data flush overhead' OR value = 'CUDA profiling stop overhead'"
     " OR value = 'CUDA profiling overhead'"},
    {"vulkan", {"VULKAN_WORKLOAD"}, "globalTid", "gpu", "contextId",
     "value = 'Vulkan profiling overhead'"},
    {"opengl", {"OPENGL_WORKLOAD"}, "globalTid", "gpu", "contextId",
     "value = 'OpenGL profiling overhead'"},
    {"dx12", {"DX12_WORKLOAD"}, "globalTid", "gpu", "shortContextId",
     "value = 'DX12 profiling overhead'"},
};
enum { N_GPU_APIS = sizeof GPU_APIS / sizeof *GPU_APIS };

/* Whether the report has work of the API. */
static bool has_gpu_work(nsys_db *db, const gpu_api *api)
{
    for (size_t t = 0; t < 3 && api->tables[t]; t++)
        if (nsys_db_has_table(db, api->tables[t]))
            return true;
    return false;
}

/* The API's work (start, end, pid, globalId, deviceId, contextId, api),
 * started after time 0; with the profiler's overhead, where the report
 * records it, inside a process's span of work on a device, counted as work
 * of that device. */
static void gpu_work_sql(nsys_db *db, const gpu_api *api, buf *sql)
{
    bool overhead = nsys_db_has_table(db, "PROFILER_OVERHEAD");
    if (overhead)
        buf_printf(sql, "WITH work AS (");
    bool first = true;
    for (size_t t = 0; t < 3 && api->tables[t]; t++) {
        if (!nsys_db_has_table(db, api->tables[t]))
            continue;
        buf_printf(sql,
                   "%sSELECT start, \"end\", (%s >> 24) & 16777215 AS pid, %s AS globalId,"
                   " %s AS deviceId, %s AS contextId, '%s' AS api FROM %s WHERE start > 0",
                   first ? "" : " UNION ALL ", api->global_id, api->global_id, api->device_id,
                   api->context_id, api->name, api->tables[t]);
        first = false;
    }
    if (!overhead)
        return;
    buf_printf(sql,
               "), spans AS (SELECT min(start) AS start, max(\"end\") AS \"end\", pid, globalId,"
               " deviceId, contextId, api FROM work GROUP BY deviceId, pid),"
               " overhead_names AS (SELECT id FROM StringIds WHERE %s),"
               " overhead AS (SELECT o.start, o.\"end\", (o.globalTid >> 24) & 16777215 AS pid"
               " FROM PROFILER_OVERHEAD AS o JOIN overhead_names AS n ON n.id = o.nameId)"
               " SELECT o.start, o.\"end\", o.pid, s.globalId, s.deviceId, s.contextId, s.api"
               " FROM overhead AS o JOIN spans AS s"
               " ON o.pid = s.pid AND o.start > s.start AND o.\"end\" < s.\"end\""
               " UNION ALL SELECT * FROM work",
               api->overhead_names);
}

/* Writes, for every API with work in the report, per_api's query around
 * that work (its %s), joined with UNION ALL, between before and after.
 * NSYSP_ERR_NOT_NSYS when the report has no GPU work, or work without
 * the column of its device. */
static int gpu_rule_sql(nsys_db *db, buf *sql, const char *before, const char *per_api,
                        const char *after)
{
    size_t n = 0;
    for (size_t a = 0; a < N_GPU_APIS; a++) {
        const gpu_api *api = &GPU_APIS[a];
        if (!has_gpu_work(db, api))
            continue;
        if (!strcmp(api->device_id, "gpu") && !nsys_db_has_column(db, api->tables[0], "gpu"))
            return NSYSP_ERR_NOT_NSYS;
        buf work = {0};
        gpu_work_sql(db, api, &work);
        buf_printf(sql, "%s", n++ ? " UNION ALL SELECT * FROM (" : before);
        buf_printf(sql, per_api, buf_cstr(&work));
        buf_printf(sql, ")");
        buf_free(&work);
    }
    if (!n)
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql, "%s", after);
    return NSYSP_OK;
}

/* Gaps longer than gap= ms between a process's work on a device: each end
 * paired with the next start, in (pid, device, time) order. The starts
 * lead the join (CROSS JOIN), as SQLite 3.42 orders it for nsys: so rows=
 * keeps the same first gaps, and older SQLites look the ends up by index
 * instead of pairing every start with every end. */
static int query_gpu_gaps(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    long long gap_ms = o && o->has_gap ? (long long)o->gap_ms : 500;
    /* As nsys's Python, whose integers do not overflow: past int64 every gap
     * is shorter (or longer) anyway. */
    long long gap_ns = gap_ms > INT64_MAX / 1000000   ? INT64_MAX
                       : gap_ms < INT64_MIN / 1000000 ? INT64_MIN
                                                      : gap_ms * 1000000;
    char per_api[1536], after[256];
    snprintf(per_api, sizeof per_api,
             "WITH ops AS (%%s),"
             " starts AS (SELECT ROW_NUMBER() OVER (ORDER BY pid, deviceId, start) AS k,"
             " start, pid, deviceId FROM ops),"
             " ends AS (SELECT ROW_NUMBER() OVER (ORDER BY pid, deviceId, \"end\") AS k,"
             " \"end\", pid, globalId, deviceId, contextId, api FROM ops)"
             " SELECT s.start - e.\"end\" AS duration, e.\"end\" AS gapStart, s.start AS gapEnd,"
             " e.pid, e.globalId, e.deviceId, e.contextId, e.api"
             " FROM starts AS s CROSS JOIN ends AS e"
             " ON e.k = s.k - 1 AND e.deviceId = s.deviceId AND e.pid = s.pid"
             " WHERE duration > %lld AND gapStart < gapEnd LIMIT %lld",
             gap_ns, row_limit(o));
    snprintf(after, sizeof after, ") LIMIT %lld", row_limit(o));
    return gpu_rule_sql(db, sql,
                        "SELECT ROW_NUMBER() OVER (ORDER BY duration DESC, gapStart), duration,"
                        " gapStart, pid, deviceId, contextId, globalId, api FROM (SELECT * FROM (",
                        per_api, after);
}

/* The chunks of each process's span on a device in use less than
 * threshold= percent of the time, consecutive ones merged (their average
 * weighted by size). A chunk lasts ceil(span / chunks) ns, as an integer:
 * nsys 2023.4's SQLite (3.42) returns ceil()'s whole numbers as integers. */
static int query_gpu_time_util(nsys_db *db, const nsysp_recipe_options *o, buf *sql)
{
    long long threshold = o && o->has_threshold ? (long long)o->threshold : 50;
    long long chunks = o && o->has_chunks ? (long long)o->chunks : 30;
    char per_api[2560], after[256];
    snprintf(
        per_api, sizeof per_api,
        "WITH ops AS (%%s),"
        " spans AS (SELECT min(start) AS start, max(\"end\") AS \"end\","
        " CAST(CAST(max(\"end\") - min(start) AS FLOAT) / %lld AS INTEGER)"
        " + (CAST(max(\"end\") - min(start) AS FLOAT) / %lld"
        " > CAST(CAST(max(\"end\") - min(start) AS FLOAT) / %lld AS INTEGER)) AS chunkSize,"
        " pid, globalId, deviceId, contextId, api FROM ops GROUP BY deviceId, pid),"
        " chunk AS (SELECT c.rangeId, c.rangeId * s.chunkSize + s.start AS cstart,"
        " min(c.rangeId * s.chunkSize + s.start + s.chunkSize, s.\"end\") AS cend, s.chunkSize,"
        " s.pid, s.globalId, s.deviceId, s.contextId, s.api"
        " FROM temp.recipe_chunk AS c JOIN spans AS s ON cstart < cend),"
        " used AS (SELECT c.rangeId, c.cstart AS start, c.cend AS \"end\", c.cend - c.cstart AS size,"
        " sum(CAST(coalesce(min(ops.\"end\", c.cend) - max(ops.start, c.cstart), 0) AS FLOAT))"
        " / (c.cend - c.cstart) * 100 AS pct, c.pid, c.globalId, c.deviceId, c.contextId, c.api"
        " FROM chunk AS c LEFT JOIN ops ON ops.deviceId = c.deviceId AND ops.pid = c.pid"
        " AND ops.start < c.cend AND ops.\"end\" > c.cstart"
        " GROUP BY c.rangeId, c.deviceId, c.pid HAVING pct < %lld),"
        " runs AS (SELECT *, rangeId - ROW_NUMBER() OVER (PARTITION BY pid, deviceId ORDER BY rangeId)"
        " AS runId FROM used)"
        " SELECT min(start) AS start, max(\"end\") - min(start) AS duration,"
        " round(sum(size * pct) / sum(size), 1) AS average, pid, globalId, deviceId, contextId, api"
        " FROM runs GROUP BY runId, deviceId, pid LIMIT %lld",
        chunks, chunks, chunks, threshold, row_limit(o));
    snprintf(after, sizeof after, ") LIMIT %lld", row_limit(o));
    return gpu_rule_sql(db, sql,
                        "SELECT ROW_NUMBER() OVER (ORDER BY average, duration), average, duration,"
                        " start, pid, deviceId, contextId, globalId, api FROM (SELECT * FROM (",
                        per_api, after);
}

/* The chunk numbers 0 .. chunks - 1 the query of gpu_time_util joins. */
static int make_chunk_table(nsys_db *db, const nsysp_recipe_options *o, buf *err)
{
    long long chunks = o && o->has_chunks ? (long long)o->chunks : 30;
    char *sql = sqlite3_mprintf(
        "DROP TABLE IF EXISTS temp.recipe_chunk;"
        "CREATE TEMP TABLE recipe_chunk (rangeId INTEGER PRIMARY KEY NOT NULL);"
        "INSERT INTO temp.recipe_chunk WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL"
        " SELECT i + 1 FROM n LIMIT %lld) SELECT i FROM n;",
        chunks);
    int rc = sqlite3_exec(nsys_db_sqlite(db), sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "numbering the chunks", err);
}

/* ---- Running a rule over the job ------------------------------------------------ */

/* The report's rows from first on, typed as pandas' read_sql types each
 * column: a column of numbers with a missing value is float64, one of
 * missing values only stays text (object), whose cells print as they are. */
static void type_as_pandas(recipe_table *t, size_t first, size_t n_columns)
{
    for (size_t c = 0; c < n_columns; c++) {
        bool ints = false, missing = false, text = false;
        for (size_t r = first; r < t->n_rows; r++) {
            recipe_cell_kind k = recipe_table_cell(t, r, c)->kind;
            ints |= k == RECIPE_INT;
            missing |= k == RECIPE_NULL;
            text |= k == RECIPE_TEXT;
        }
        for (size_t r = first; ints && missing && !text && r < t->n_rows; r++) {
            recipe_cell *cell = recipe_table_cell(t, r, c);
            if (cell->kind == RECIPE_INT)
                recipe_cell_set_real(cell, (double)cell->i);
        }
    }
}

/* Appends the rule's rows for report i of the job to t. NSYSP_ERR_NOT_NSYS
 * when the report lacks what the rule reads. */
static int report_rows(const rule_recipe *r, const recipe_job *job, size_t i, bool chunked,
                       recipe_table *t, buf *err)
{
    int status;
    nsys_db *db = recipe_open_report(job, i, err, &status);
    if (!db)
        return status;
    buf sql = {0};
    status = r->query(db, job->options, &sql);
    if (status == NSYSP_OK && chunked)
        status = make_chunk_table(db, job->options, err);
    sqlite3_stmt *stmt = NULL;
    int rc = SQLITE_OK;
    if (status == NSYSP_OK)
        rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &stmt, NULL);
    size_t first = t->n_rows;
    while (status == NSYSP_OK && rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        recipe_cell *row = recipe_table_add_row(t);
        for (size_t c = 0; c < r->n_columns; c++) {
            switch (sqlite3_column_type(stmt, (int)c)) {
            case SQLITE_INTEGER: recipe_cell_set_int(&row[c], sqlite3_column_int64(stmt, (int)c)); break;
            case SQLITE_FLOAT: recipe_cell_set_real(&row[c], sqlite3_column_double(stmt, (int)c)); break;
            case SQLITE_NULL: break;
            default:
                recipe_cell_set_text(&row[c], (const char *)sqlite3_column_text(stmt, (int)c));
                break;
            }
        }
        recipe_cell_set_text(&row[r->n_columns], job->labels[i]);
    }
    if (status == NSYSP_OK && rc != SQLITE_DONE)
        status = nsys_db_error(db, rc, "running the rule", err);
    sqlite3_finalize(stmt);
    buf_free(&sql);
    nsys_db_close(db);
    if (status == NSYSP_OK)
        type_as_pandas(t, first, r->n_columns);
    return status;
}

static int check_options(const rule_recipe *r, const nsysp_recipe_options *o, buf *err)
{
    if (r->query == query_gpu_time_util && o && o->has_chunks && (o->chunks < 0 || o->chunks > 1000)) {
        buf_printf(err, "--chunks must be between 1 and 1000");
        return NSYSP_ERR_USAGE;
    }
    return NSYSP_OK;
}

static void init_table(const rule_recipe *r, recipe_table *t)
{
    const char *names[16];
    for (size_t c = 0; c < r->n_columns; c++)
        names[c] = r->columns[c];
    names[r->n_columns] = "File";
    recipe_table_init(t, names, r->n_columns + 1);
}

/* The rule's rows of report i, or nothing when it lacks what the rule
 * reads: nsys leaves such a report out. */
static int map_rule(const recipe_def *recipe, const recipe_job *job, size_t i,
                    recipe_outputs *partial, buf *err)
{
    const rule_recipe *r = recipe->family;
    int status = check_options(r, job->options, err);
    if (status != NSYSP_OK)
        return status;
    recipe_table t;
    init_table(r, &t);
    buf why = {0};
    status = report_rows(r, job, i, r->query == query_gpu_time_util, &t, &why);
    if (status == NSYSP_OK)
        recipe_outputs_take(partial, "analysis.csv", &t);
    else if (status == NSYSP_ERR_NOT_NSYS)
        status = NSYSP_OK;
    else
        buf_printf(err, "%s", buf_cstr(&why));
    buf_free(&why);
    recipe_table_free(&t);
    return status;
}

/* The reports' rows one after the other, in job order. */
static int reduce_rule(const recipe_def *recipe, const recipe_job *job,
                       const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    const rule_recipe *r = recipe->family;
    int status = check_options(r, job->options, err);
    if (status != NSYSP_OK)
        return status;
    recipe_table t;
    init_table(r, &t);
    for (size_t i = 0; i < job->n; i++)
        for (size_t k = 0; k < partials[i].n; k++)
            recipe_table_append(&t, &partials[i].items[k].table);
    if (t.n_rows == 0) {
        recipe_table_free(&t);
        buf_printf(err, "%s: no report has the data it reads", recipe->name);
        return RECIPE_NO_DATA;
    }
    recipe_outputs_take(out, "analysis.csv", &t);
    return NSYSP_OK;
}

#define COLUMNS(list) list, sizeof list / sizeof *list

static const char *const API_SYNC_COLUMNS[] = {"Duration", "Start", "PID", "TID", "API Name"};
static const char *const MEMCPY_COLUMNS[] = {
    "Duration", "Start",      "Src Kind",         "Dst Kind",  "Bytes",   "PID",
    "Device ID", "Context ID", "Green Context ID", "Stream ID", "API Name"};
static const char *const MEMSET_COLUMNS[] = {
    "Duration",   "Start",      "Memory Kind",      "Bytes",     "PID",
    "Device ID",  "Context ID", "Green Context ID", "Stream ID", "API Name"};
static const char *const DX12_COLUMNS[] = {"Duration", "Start", "TID", "Device ID",
                                           "Warning Type"};
static const char *const GAPS_COLUMNS[] = {"Row#", "Duration", "Start", "PID", "Device ID",
                                           "Context ID"};
static const char *const TIME_UTIL_COLUMNS[] = {"Row#", "In-Use", "Duration", "Start",
                                                "PID",  "Device ID", "Context ID"};

static const rule_recipe CUDA_API_SYNC = {COLUMNS(API_SYNC_COLUMNS), query_cuda_api_sync};
static const rule_recipe CUDA_MEMCPY_ASYNC = {COLUMNS(MEMCPY_COLUMNS), query_cuda_memcpy_async};
static const rule_recipe CUDA_MEMCPY_SYNC = {COLUMNS(MEMCPY_COLUMNS), query_cuda_memcpy_sync};
static const rule_recipe CUDA_MEMSET_SYNC = {COLUMNS(MEMSET_COLUMNS), query_cuda_memset_sync};
static const rule_recipe DX12_MEM_OPS = {COLUMNS(DX12_COLUMNS), query_dx12_mem_ops};
static const rule_recipe GPU_GAPS = {COLUMNS(GAPS_COLUMNS), query_gpu_gaps};
static const rule_recipe GPU_TIME_UTIL = {COLUMNS(TIME_UTIL_COLUMNS), query_gpu_time_util};

#define RULE(name, about, family) {name, about, NULL, family, map_rule, reduce_rule}
const recipe_def RECIPES_RULES[] = {
    RULE("cuda_api_sync", "CUDA calls that wait for the GPU (cudaDeviceSynchronize, "
                          "cudaStreamSynchronize), per report", &CUDA_API_SYNC),
    RULE("cuda_memcpy_async", "asynchronous copies from or to pageable memory (synchronous in "
                              "fact), per report", &CUDA_MEMCPY_ASYNC),
    RULE("cuda_memcpy_sync", "synchronous copies, per report", &CUDA_MEMCPY_SYNC),
    RULE("cuda_memset_sync", "synchronous memsets of pinned or managed memory, per report",
         &CUDA_MEMSET_SYNC),
    RULE("dx12_mem_ops", "DX12 memory operations that cost more than they seem, per report",
         &DX12_MEM_OPS),
    RULE("gpu_gaps", "times a GPU is idle longer than --gap ms, per report", &GPU_GAPS),
    RULE("gpu_time_util", "stretches of GPU time in use less than --threshold %, per report",
         &GPU_TIME_UTIL),
};
const size_t N_RECIPES_RULES = sizeof RECIPES_RULES / sizeof *RECIPES_RULES;
