/* nsys-perfetto recipe: NVIDIA's multi-report recipes (nsys 2023.4's `nsys
 * recipe`), by name, over SQLite exports; every table as CSV text. */
#include "recipe.h"

#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "nsys/nsys_readahead.h"

void recipe_outputs_take(recipe_outputs *o, const char *file, recipe_table *table)
{
    o->items = xrealloc(o->items, (o->n + 1) * sizeof *o->items);
    o->items[o->n].file = xstrdup(file);
    o->items[o->n].text = NULL;
    o->items[o->n].text_size = 0;
    o->items[o->n++].table = *table;
    memset(table, 0, sizeof *table);
}

void recipe_outputs_add_text(recipe_outputs *o, const char *file, const char *text)
{
    recipe_outputs_add_bytes(o, file, text, strlen(text));
}

void recipe_outputs_add_bytes(recipe_outputs *o, const char *file, const void *data, size_t size)
{
    o->items = xrealloc(o->items, (o->n + 1) * sizeof *o->items);
    recipe_output *item = &o->items[o->n++];
    memset(item, 0, sizeof *item);
    item->file = xstrdup(file);
    item->text = xmalloc(size + 1);
    memcpy(item->text, data, size);
    item->text[size] = '\0';
    item->text_size = size;
}

static void outputs_free(recipe_outputs *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->items[i].file);
        free(o->items[i].text);
        recipe_table_free(&o->items[i].table);
    }
    free(o->items);
    memset(o, 0, sizeof *o);
}

/* Every family of recipes, each in its own recipe_*.c. */
static const struct {
    const recipe_def *recipes;
    const size_t *n;
} FAMILIES[] = {
    {RECIPES_STATS, &N_RECIPES_STATS},
    {RECIPES_DIFF, &N_RECIPES_DIFF},
    {RECIPES_DESCRIBE, &N_RECIPES_DESCRIBE},
    {RECIPES_NVTX_PROJ, &N_RECIPES_NVTX_PROJ},
    {RECIPES_MAPS, &N_RECIPES_MAPS},
    {RECIPES_PACE, &N_RECIPES_PACE},
    {RECIPES_RULES, &N_RECIPES_RULES},
};
enum { N_FAMILIES = sizeof FAMILIES / sizeof *FAMILIES };

static const recipe_def *find_recipe(const char *name)
{
    for (size_t f = 0; f < N_FAMILIES; f++)
        for (size_t i = 0; i < *FAMILIES[f].n; i++)
            if (strcmp(FAMILIES[f].recipes[i].name, name) == 0)
                return &FAMILIES[f].recipes[i];
    return NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What every recipe may read of a report besides its events: the small
 * tables that name things (strings, threads, enums) and describe the
 * capture (its session, GPUs, streams, the export itself). */
static const char *const DESCRIBING[] = {
    "StringIds", "ThreadNames", "PROCESSES", "ProcessStreams", "ANALYSIS_DETAILS",
    "ENUM_*", "TARGET_INFO_*", "META_DATA_*", NULL};

#define MPI_TABLES "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", \
                   "MPI_OTHER_EVENTS"
#define CUDA_GPU_WORK "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", \
                      "CUPTI_ACTIVITY_KIND_MEMSET"

/* The event tables each recipe reads, besides DESCRIBING (and NVTX_EVENTS
 * with --nvtx). Every report is opened limited to these
 * (nsys_db_limit_reads), so every run checks this list; a .nsys-rep is
 * exported with only these tables (nsysp_recipe_export_tables), which
 * saves nsys most of its export. diff reads no report. */
enum { MAX_EVENT_TABLES = 8 };
static const struct {
    const char *recipe;
    const char *tables[MAX_EVENT_TABLES];
} EVENT_TABLES[] = {
    {"cuda_api_sum", {"CUPTI_ACTIVITY_KIND_RUNTIME"}},
    {"cuda_api_sync", {"CUPTI_ACTIVITY_KIND_RUNTIME"}},
    {"cuda_gpu_kern_pace", {"CUPTI_ACTIVITY_KIND_KERNEL"}},
    {"cuda_gpu_kern_sum", {"CUPTI_ACTIVITY_KIND_KERNEL"}},
    {"cuda_gpu_mem_size_sum", {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}},
    {"cuda_gpu_mem_time_sum", {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}},
    {"cuda_gpu_time_util_map", {"CUPTI_ACTIVITY_KIND_KERNEL"}},
    {"cuda_memcpy_async", {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME"}},
    {"cuda_memcpy_sync", {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME"}},
    {"cuda_memset_sync", {"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME"}},
    {"dx12_mem_ops", {"DX12_API", "DX12_MEMORY_OPERATION"}},
    {"gpu_gaps", {CUDA_GPU_WORK, "VULKAN_WORKLOAD", "OPENGL_WORKLOAD", "DX12_WORKLOAD",
                  "PROFILER_OVERHEAD"}},
    {"gpu_metric_util_map", {"GENERIC_EVENTS"}},
    {"gpu_time_util", {CUDA_GPU_WORK, "VULKAN_WORKLOAD", "OPENGL_WORKLOAD", "DX12_WORKLOAD",
                       "PROFILER_OVERHEAD"}},
    {"mpi_gpu_time_util_map", {MPI_TABLES, "CUPTI_ACTIVITY_KIND_KERNEL"}},
    {"mpi_sum", {MPI_TABLES}},
    {"nccl_gpu_proj_sum", {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", CUDA_GPU_WORK}},
    {"nccl_gpu_time_util_map", {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL"}},
    {"nccl_sum", {"NVTX_EVENTS"}},
    {"nic_metric_map", {"NET_NIC_METRIC"}},
    {"nvtx_gpu_proj_pace", {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", CUDA_GPU_WORK}},
    {"nvtx_gpu_proj_sum", {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", CUDA_GPU_WORK}},
    {"nvtx_gpu_proj_trace", {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", CUDA_GPU_WORK}},
    {"nvtx_pace", {"NVTX_EVENTS"}},
    {"nvtx_sum", {"NVTX_EVENTS"}},
    {"osrt_sum", {"OSRT_API"}},
    {"ucx_gpu_time_util_map", {"UCP_EVENTS", "UCP_SUBMIT_EVENTS", "UCP_PROGRESS_EVENTS",
                               "CUPTI_ACTIVITY_KIND_KERNEL"}},
};

/* DESCRIBING, the event tables, NVTX_EVENTS and the NULL that ends them. */
_Static_assert(sizeof DESCRIBING / sizeof *DESCRIBING + MAX_EVENT_TABLES + 1 <= RECIPE_MAX_READS,
               "recipe_job.reads has room for every table a recipe may read");

/* Fills reads (NULL-terminated) with what recipe may read with these
 * options: false for a recipe that is not in EVENT_TABLES. */
static bool recipe_reads(const char *recipe, const nsysp_recipe_options *options,
                         const char *reads[RECIPE_MAX_READS])
{
    size_t n = 0, e = 0;
    while (e < sizeof EVENT_TABLES / sizeof *EVENT_TABLES && strcmp(EVENT_TABLES[e].recipe, recipe))
        e++;
    memset(reads, 0, RECIPE_MAX_READS * sizeof *reads);
    if (e == sizeof EVENT_TABLES / sizeof *EVENT_TABLES)
        return false;
    for (const char *const *t = DESCRIBING; *t; t++)
        reads[n++] = *t;
    for (size_t t = 0; t < MAX_EVENT_TABLES && EVENT_TABLES[e].tables[t]; t++)
        reads[n++] = EVENT_TABLES[e].tables[t];
    if (options && options->nvtx)
        reads[n++] = "NVTX_EVENTS";
    return true;
}

char *nsysp_recipe_export_tables(const char *name, const nsysp_recipe_options *options)
{
    const char *reads[RECIPE_MAX_READS];
    if (!recipe_reads(name, options, reads))
        return NULL;
    buf patterns = {0};
    for (size_t i = 0; reads[i]; i++) {
        size_t n = strlen(reads[i]);
        bool prefix = reads[i][n - 1] == '*';
        /* nsys matches a pattern against the whole name (2023.4); anchored,
         * it means the same where one would search within names. */
        buf_printf(&patterns, "%s^%.*s%s", i ? "," : "", (int)(n - prefix), reads[i],
                   prefix ? ".*" : "$");
    }
    return (char *)patterns.data;
}

const char *const *nsysp_recipe_names(void)
{
    static const char *names[64];
    if (!names[0]) {
        size_t n = 0;
        for (size_t f = 0; f < N_FAMILIES; f++)
            for (size_t i = 0; i < *FAMILIES[f].n && n + 1 < sizeof names / sizeof *names; i++)
                names[n++] = FAMILIES[f].recipes[i].name;
        qsort(names, n, sizeof *names, by_name);
    }
    return names;
}

const char *nsysp_recipe_about(const char *name)
{
    const recipe_def *r = find_recipe(name);
    return r ? r->about : NULL;
}

/* Every table with start and end columns, seen through the rows that
 * overlap [start, end), as nsys stats' filter shows them; where an NVTX
 * range sets the window, only the rows of its thread (push/pop ranges) or
 * process (start/end ranges, whose thread id is the process id), as nsys
 * narrows them. */
static int filter_tables(nsys_db *db, int64_t start, int64_t end, const int64_t *nvtx_tid,
                         buf *err)
{
    sqlite3 *sql = nsys_db_sqlite(db);
    sqlite3_stmt *tables = NULL;
    int rc = sqlite3_prepare_v2(sql,
                                "SELECT m.name,"
                                " EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'globalTid'),"
                                " EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'globalPid')"
                                " FROM main.sqlite_master AS m"
                                " WHERE m.type = 'table'"
                                " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'start')"
                                " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'end')",
                                -1, &tables, NULL);
    buf views = {0};
    while (rc == SQLITE_OK && sqlite3_step(tables) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(tables, 0);
        char *view = sqlite3_mprintf(
            "CREATE TEMP VIEW \"%w\" AS SELECT rowid, * FROM main.\"%w\""
            " WHERE ((start >= %lld AND start < %lld) OR (\"end\" >= %lld AND \"end\" < %lld)"
            " OR (start < %lld AND \"end\" >= %lld))",
            name, name, (long long)start, (long long)end, (long long)start, (long long)end,
            (long long)start, (long long)end);
        buf_append_str(&views, view);
        sqlite3_free(view);
        if (nvtx_tid) {
            long long tid = (long long)*nvtx_tid;
            bool push_pop = ((tid >> 24) & 0xFFFFFF) != (tid & 0xFFFFFF);
            if (sqlite3_column_int(tables, 1) && push_pop)
                buf_printf(&views, " AND globalTid = %lld", tid);
            else if (sqlite3_column_int(tables, 1))
                buf_printf(&views, " AND globalTid >> 24 = %lld", tid >> 24);
            else if (sqlite3_column_int(tables, 2))
                buf_printf(&views, " AND globalPid >> 24 = %lld", tid >> 24);
        }
        buf_append_str(&views, ";");
    }
    sqlite3_finalize(tables);
    if (rc == SQLITE_OK && views.len)
        rc = sqlite3_exec(sql, buf_cstr(&views), NULL, NULL, NULL);
    buf_free(&views);
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "filtering by time", err);
}

/* The NVTX range "text[@domain]" (or its instance N, "text[@domain]/N",
 * counted from 0 by start) as nsys stats finds it: its start, end and
 * thread. NSYSP_ERR_NOT_NSYS when the report has no such range. */
static int find_nvtx_range(nsys_db *db, const char *range, int64_t *start, int64_t *end,
                           bool *has_tid, int64_t *tid, buf *err)
{
    if (!nsys_db_has_table(db, "NVTX_EVENTS") || !nsys_db_has_table(db, "StringIds")) {
        buf_printf(err, "%s: no NVTX data", nsys_db_path(db));
        return NSYSP_ERR_NOT_NSYS;
    }
    /* A trailing "/N" (N >= 0) is the instance; any other slash is text. */
    size_t len = strlen(range);
    long long instance = 0;
    const char *slash = strrchr(range, '/');
    if (slash) {
        char *rest;
        long long n = strtoll(slash + 1, &rest, 10);
        if (slash[1] && !*rest && n >= 0) {
            instance = n;
            len = (size_t)(slash - range);
        }
    }
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(
        nsys_db_sqlite(db),
        "WITH domains AS (SELECT domainId, globalTid, text FROM main.NVTX_EVENTS WHERE eventType = 75)"
        " SELECT e.start, e.\"end\", e.globalTid FROM main.NVTX_EVENTS AS e"
        " LEFT JOIN domains AS d ON e.domainId = d.domainId AND e.globalTid >> 24 = d.globalTid >> 24"
        " LEFT JOIN main.StringIds AS s ON e.textId = s.id"
        " WHERE e.eventType IN (59, 60, 70, 71)"
        " AND coalesce(e.text, s.value) || coalesce('@' || d.text, '') = ?1"
        " ORDER BY 1 LIMIT 1 OFFSET ?2",
        -1, &stmt, NULL);
    bool found = false;
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, range, (int)len, SQLITE_TRANSIENT);
        sqlite3_bind_int64(stmt, 2, instance);
        found = sqlite3_step(stmt) == SQLITE_ROW;
    }
    if (found) {
        *start = sqlite3_column_int64(stmt, 0);
        *end = sqlite3_column_int64(stmt, 1);
        *has_tid = sqlite3_column_type(stmt, 2) != SQLITE_NULL;
        *tid = sqlite3_column_int64(stmt, 2);
    }
    sqlite3_finalize(stmt);
    if (found)
        return NSYSP_OK;
    /* An export whose NVTX table lacks what nsys reads has no such range
     * either, as nsys finds. */
    buf_printf(err, "%s: no NVTX range '%s'", nsys_db_path(db), range);
    return NSYSP_ERR_NOT_NSYS;
}

int recipe_enum_values(nsys_db *db, nsys_enum_kind kind, buf *sql, buf *err)
{
    nsys_enums enums;
    int status = nsys_enums_load(db, &enums, err);
    if (status == NSYSP_OK) {
        buf_printf(sql, "VALUES (NULL, NULL)");
        for (int64_t value = 0; value < 64; value++) {
            const char *label = nsys_enum_label(&enums, kind, value);
            if (label) {
                char *quoted = sqlite3_mprintf("%Q", label);
                buf_printf(sql, ", (%lld, %s)", (long long)value, quoted);
                sqlite3_free(quoted);
            }
        }
    }
    nsys_enums_free(&enums);
    return status;
}

nsys_db *recipe_open_whole(const recipe_job *job, size_t i, buf *err, int *status)
{
    nsys_db *db = nsys_db_open(job->paths[i], err, status);
    if (db && job->reads[0]) {
        nsys_db_limit_reads(db, job->reads);
        /* nsys's recipes read the lazy export they make of a report, where
         * a table without rows is no table: whether a report has a
         * recipe's data must not depend on how it was exported. */
        nsys_db_hide_empty(db, job->reads);
    }
    return db;
}

nsys_db *recipe_open_report(const recipe_job *job, size_t i, buf *err, int *status)
{
    nsys_db *db = recipe_open_whole(job, i, err, status);
    const nsysp_recipe_options *o = job->options;
    if (!db || !o || !(o->has_start || o->has_end || o->nvtx))
        return db;
    int64_t start = 0, end = INT64_MAX, tid = 0;
    bool has_tid = false;
    *status = NSYSP_OK;
    if (o->nvtx)
        *status = find_nvtx_range(db, o->nvtx, &start, &end, &has_tid, &tid, err);
    if (o->has_start)
        start = o->start_ns;
    if (o->has_end)
        end = o->end_ns;
    if (*status == NSYSP_OK && start > end) {
        buf_printf(err, "%s: the start time is after the end time", nsys_db_path(db));
        *status = NSYSP_ERR_NOT_NSYS;
    }
    if (*status == NSYSP_OK)
        *status = filter_tables(db, start, end, has_tid ? &tid : NULL, err);
    if (*status != NSYSP_OK) {
        nsys_db_close(db);
        db = NULL;
    }
    return db;
}

/* The outputs as files into result, or err as its message. */
static int finish(int status, recipe_outputs *out, buf *err, nsysp_recipe_result *result)
{
    if (status == RECIPE_NO_DATA) {
        result->no_data = 1;
        snprintf(result->message, sizeof result->message, "%s", buf_cstr(err));
        return NSYSP_OK;
    }
    if (status != NSYSP_OK) {
        snprintf(result->message, sizeof result->message, "%s", buf_cstr(err));
        return status;
    }
    result->files = xcalloc(out->n ? out->n : 1, sizeof *result->files);
    for (size_t i = 0; i < out->n; i++) {
        buf csv = {0};
        if (out->items[i].text)
            buf_append(&csv, out->items[i].text, out->items[i].text_size);
        else
            recipe_table_csv(&out->items[i].table, &csv);
        result->files[i].name = xstrdup(out->items[i].file);
        result->files[i].size = csv.len;
        result->files[i].data = xcalloc(csv.len + 1, 1);
        if (csv.len)
            memcpy(result->files[i].data, csv.data, csv.len);
        buf_free(&csv);
    }
    result->n_files = out->n;
    return NSYSP_OK;
}

/* Opens every report once before any is read: a file that is no nsys
 * export (or not SQLite, or unreadable) is an error, where a report that
 * lacks a recipe's data is left out as nsys leaves it out; the families
 * tell the two apart no further. */
static int check_reports(const recipe_job *job, buf *err)
{
    for (size_t i = 0; i < job->n; i++) {
        int status;
        nsys_db *db = nsys_db_open(job->paths[i], err, &status);
        if (!db)
            return status;
        nsys_db_close(db);
    }
    return NSYSP_OK;
}

static void keep_reports(nsysp_recipe_result *result, const char *const *reports,
                         const char *const *labels, size_t n)
{
    result->reports = xcalloc(n + 1, sizeof *result->reports);
    result->labels = xcalloc(n + 1, sizeof *result->labels);
    for (size_t i = 0; i < n; i++) {
        result->reports[i] = xstrdup(reports[i]);
        result->labels[i] = xstrdup(labels[i]);
    }
    result->n_reports = n;
}

/* The map step over a job's reports, several at once: each report's
 * partial lands in its own slot and reduce reads them in job order, so the
 * bytes written never depend on the number of threads. */
typedef struct map_work {
    const recipe_def *recipe;
    const recipe_job *job;
    recipe_outputs *partials;
    int *status;            /* per report */
    buf *errs;              /* per report */
    pthread_mutex_t lock;
    size_t next;            /* the next report to read */
    size_t failed;          /* the first report in job order that failed; job->n: none */
} map_work;

static void *map_worker(void *arg)
{
    map_work *w = arg;
    for (;;) {
        /* No report after a failed one is started: those before it all
         * are, so the error is the one a single thread meets first. */
        pthread_mutex_lock(&w->lock);
        size_t i = w->next < w->failed ? w->next++ : w->job->n;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->job->n)
            return NULL;
        int status = w->recipe->map(w->recipe, w->job, i, &w->partials[i], &w->errs[i]);
        w->status[i] = status;
        if (status != NSYSP_OK) {
            pthread_mutex_lock(&w->lock);
            if (i < w->failed)
                w->failed = i;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

/* Runs recipe->map on every report of job into partials, on
 * options->threads threads (0: the CPUs this process may use), at most one
 * per report. NSYSP_OK, or the first failing report's status (in job
 * order) with its message in err. */
static int map_reports(const recipe_def *recipe, const recipe_job *job, recipe_outputs *partials,
                       buf *err)
{
    size_t n = job->n;
    if (n == 0)
        return NSYSP_OK;
    int asked = job->options ? job->options->threads : 0;
    size_t threads = asked > 0 ? (size_t)asked : nsys_readahead_cpus(256);
    if (threads > n)
        threads = n;
    map_work w = {recipe, job, partials, xcalloc(n, sizeof(int)), xcalloc(n, sizeof(buf)),
                  PTHREAD_MUTEX_INITIALIZER, 0, n};
    pthread_t *helpers = xcalloc(threads, sizeof *helpers);
    size_t started = 0;
    for (; started + 1 < threads; started++) /* this thread is one of them */
        if (pthread_create(&helpers[started], NULL, map_worker, &w) != 0)
            break; /* fewer threads: the same work, later */
    map_worker(&w);
    for (size_t t = 0; t < started; t++)
        pthread_join(helpers[t], NULL);
    int status = NSYSP_OK;
    if (w.failed < n) {
        status = w.status[w.failed];
        buf_append_str(err, buf_cstr(&w.errs[w.failed]));
    }
    for (size_t i = 0; i < n; i++)
        buf_free(&w.errs[i]);
    free(w.errs);
    free(w.status);
    free(helpers);
    pthread_mutex_destroy(&w.lock);
    return status;
}

/* The job's window from its reports' surveys (recipe_def.survey), into
 * plan, a copy of the job's options: the earliest session start to the
 * latest end; unset when no report has a session. */
static int fold_surveys(const recipe_job *job, const recipe_outputs *surveys,
                        nsysp_recipe_options *plan, buf *err)
{
    if (job->options)
        *plan = *job->options;
    else
        memset(plan, 0, sizeof *plan);
    plan->has_job_window = 0;
    for (size_t i = 0; i < job->n; i++) {
        if (surveys[i].n == 0)
            continue; /* no session */
        const recipe_table *t = &surveys[i].items[0].table;
        const recipe_cell *c = t->n_rows == 1 ? recipe_table_cell(t, 0, 0) : NULL;
        if (surveys[i].n != 1 || strcmp(surveys[i].items[0].file, "session") != 0 ||
            t->n_columns != 2 || !c || c[0].kind != RECIPE_INT || c[1].kind != RECIPE_INT) {
            buf_printf(err, "%s: its survey is not one of this recipe's", job->paths[i]);
            return NSYSP_ERR_INPUT_FORMAT;
        }
        if (!plan->has_job_window || c[0].i < plan->job_start_ns)
            plan->job_start_ns = c[0].i;
        if (!plan->has_job_window || c[1].i > plan->job_end_ns)
            plan->job_end_ns = c[1].i;
        plan->has_job_window = 1;
    }
    return NSYSP_OK;
}

/* The first round of a recipe that surveys, run here: every report's
 * survey folded into plan, which the job reads from then on. */
static int plan_job(const recipe_def *recipe, recipe_job *job, nsysp_recipe_options *plan,
                    buf *err)
{
    recipe_outputs *surveys = xcalloc(job->n ? job->n : 1, sizeof *surveys);
    int status = NSYSP_OK;
    for (size_t i = 0; i < job->n && status == NSYSP_OK; i++)
        status = recipe->survey(recipe, job, i, &surveys[i], err);
    if (status == NSYSP_OK)
        status = fold_surveys(job, surveys, plan, err);
    if (status == NSYSP_OK)
        job->options = plan;
    for (size_t i = 0; i < job->n; i++)
        outputs_free(&surveys[i]);
    free(surveys);
    return status;
}

nsysp_status nsysp_recipe_run(const char *name, const char *const *reports,
                              const char *const *labels, size_t n_reports,
                              const nsysp_recipe_options *options, nsysp_recipe_result *result)
{
    memset(result, 0, sizeof *result);
    const recipe_def *recipe = find_recipe(name);
    if (!recipe) {
        snprintf(result->message, sizeof result->message, "no recipe named '%s'", name);
        return NSYSP_ERR_USAGE;
    }
    if (options && options->has_start && options->has_end && options->start_ns > options->end_ns) {
        snprintf(result->message, sizeof result->message,
                 "the start time cannot be greater than the end time");
        return NSYSP_ERR_USAGE;
    }
    recipe_job job = {reports, labels, n_reports, options, {0}};
    if (!recipe_reads(name, options, job.reads) && strcmp(name, "diff") != 0) {
        /* every recipe that reads reports declares what it reads */
        snprintf(result->message, sizeof result->message,
                 "recipe '%s' declares no tables it reads", name);
        return NSYSP_ERR_INTERNAL;
    }
    recipe_outputs out = {0};
    buf err = {0};
    int status = recipe->map ? check_reports(&job, &err) : NSYSP_OK;
    nsysp_recipe_options plan;
    if (status == NSYSP_OK && recipe->survey)
        status = plan_job(recipe, &job, &plan, &err);
    if (status == NSYSP_OK && recipe->run) {
        status = recipe->run(recipe, &job, &out, &err);
    } else if (status == NSYSP_OK) {
        recipe_outputs *partials = xcalloc(n_reports ? n_reports : 1, sizeof *partials);
        status = map_reports(recipe, &job, partials, &err);
        if (status == NSYSP_OK)
            status = recipe->reduce(recipe, &job, partials, &out, &err);
        for (size_t i = 0; i < n_reports; i++)
            outputs_free(&partials[i]);
        free(partials);
    }
    status = finish(status, &out, &err, result);
    if (status == NSYSP_OK)
        keep_reports(result, reports, labels, n_reports);
    outputs_free(&out);
    buf_free(&err);
    return (nsysp_status)status;
}

int nsysp_recipe_splits(const char *name)
{
    const recipe_def *recipe = find_recipe(name);
    return recipe && recipe->map && recipe->reduce;
}

int nsysp_recipe_surveys(const char *name)
{
    const recipe_def *recipe = find_recipe(name);
    return recipe && recipe->map && recipe->survey;
}

typedef int (*report_step)(const recipe_def *recipe, const recipe_job *job, size_t i,
                           recipe_outputs *part, buf *err);

/* One step (map or survey) on one report, as partial text. */
static nsysp_status step_text(const recipe_def *recipe, report_step step, const char *report,
                              const char *label, const nsysp_recipe_options *options,
                              char **text_out, size_t *size, char *message, size_t message_size)
{
    recipe_job job = {&report, &label, 1, options, {0}};
    if (!recipe_reads(recipe->name, options, job.reads)) {
        snprintf(message, message_size, "recipe '%s' declares no tables it reads", recipe->name);
        return NSYSP_ERR_INTERNAL;
    }
    recipe_outputs part = {0};
    buf err = {0}, text = {0};
    int status = check_reports(&job, &err);
    if (status == NSYSP_OK)
        status = step(recipe, &job, 0, &part, &err);
    if (status == NSYSP_OK) {
        recipe_partial_write(recipe->name, report, label, &part, &text);
        *size = text.len;
        buf_append_byte(&text, 0);
        *text_out = (char *)text.data;
    } else {
        snprintf(message, message_size, "%s", buf_cstr(&err));
    }
    outputs_free(&part);
    buf_free(&err);
    return (nsysp_status)status;
}

nsysp_status nsysp_recipe_partial(const char *name, const char *report, const char *label,
                                  const nsysp_recipe_options *options, char **partial,
                                  size_t *size, char *message, size_t message_size)
{
    *partial = NULL;
    *size = 0;
    const recipe_def *recipe = find_recipe(name);
    if (!recipe || !recipe->map) {
        snprintf(message, message_size, "recipe '%s' cannot read its reports apart", name);
        return NSYSP_ERR_USAGE;
    }
    return step_text(recipe, recipe->map, report, label, options, partial, size, message,
                     message_size);
}

nsysp_status nsysp_recipe_survey(const char *name, const char *report, const char *label,
                                 const nsysp_recipe_options *options, char **survey,
                                 size_t *size, char *message, size_t message_size)
{
    *survey = NULL;
    *size = 0;
    const recipe_def *recipe = find_recipe(name);
    if (!recipe || !recipe->map || !recipe->survey) {
        snprintf(message, message_size, "recipe '%s' has no survey round", name);
        return NSYSP_ERR_USAGE;
    }
    return step_text(recipe, recipe->survey, report, label, options, survey, size, message,
                     message_size);
}

/* Reads the texts of a job's partials (or surveys), in job order: their
 * reports, labels and tables; the message names the one that is not. */
static int read_parts(const char *name, const char *const *texts, const size_t *sizes, size_t n,
                      char **reports, char **labels, recipe_outputs *parts, buf *err)
{
    for (size_t i = 0; i < n; i++) {
        if (recipe_partial_read(texts[i], sizes[i], name, &reports[i], &labels[i], &parts[i],
                                err) != NSYSP_OK) {
            buf msg = {0};
            buf_printf(&msg, "partial %zu: %s", i + 1, buf_cstr(err));
            buf_clear(err);
            buf_append_str(err, buf_cstr(&msg));
            buf_free(&msg);
            return NSYSP_ERR_INPUT_FORMAT;
        }
    }
    return NSYSP_OK;
}

static void free_parts(char **reports, char **labels, recipe_outputs *parts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(reports[i]);
        free(labels[i]);
        outputs_free(&parts[i]);
    }
    free(reports);
    free(labels);
    free(parts);
}

nsysp_status nsysp_recipe_plan(const char *name, const char *const *surveys, const size_t *sizes,
                               size_t n, const nsysp_recipe_options *options,
                               nsysp_recipe_options *plan, char *message, size_t message_size)
{
    memset(plan, 0, sizeof *plan);
    const recipe_def *recipe = find_recipe(name);
    if (!recipe || !recipe->map || !recipe->survey) {
        snprintf(message, message_size, "recipe '%s' has no survey round", name);
        return NSYSP_ERR_USAGE;
    }
    char **reports = xcalloc(n + 1, sizeof *reports), **labels = xcalloc(n + 1, sizeof *labels);
    recipe_outputs *parts = xcalloc(n + 1, sizeof *parts);
    buf err = {0};
    int status = read_parts(name, surveys, sizes, n, reports, labels, parts, &err);
    recipe_job job = {(const char *const *)reports, (const char *const *)labels, n, options, {0}};
    if (status == NSYSP_OK)
        status = fold_surveys(&job, parts, plan, &err);
    if (status != NSYSP_OK)
        snprintf(message, message_size, "%s", buf_cstr(&err));
    free_parts(reports, labels, parts, n);
    buf_free(&err);
    return (nsysp_status)status;
}

nsysp_status nsysp_recipe_from_partials(const char *name, const char *const *partials,
                                        const size_t *sizes, size_t n,
                                        const nsysp_recipe_options *options,
                                        nsysp_recipe_result *result)
{
    memset(result, 0, sizeof *result);
    const recipe_def *recipe = find_recipe(name);
    if (!recipe || !recipe->reduce) {
        snprintf(result->message, sizeof result->message,
                 "recipe '%s' cannot read its reports apart", name);
        return NSYSP_ERR_USAGE;
    }
    char **reports = xcalloc(n + 1, sizeof *reports), **labels = xcalloc(n + 1, sizeof *labels);
    recipe_outputs *parts = xcalloc(n + 1, sizeof *parts), out = {0};
    buf err = {0};
    int status = read_parts(name, partials, sizes, n, reports, labels, parts, &err);
    recipe_job job = {(const char *const *)reports, (const char *const *)labels, n, options, {0}};
    if (status == NSYSP_OK)
        status = recipe->reduce(recipe, &job, parts, &out, &err);
    status = finish(status, &out, &err, result);
    if (status == NSYSP_OK)
        keep_reports(result, (const char *const *)reports, (const char *const *)labels, n);
    free_parts(reports, labels, parts, n);
    outputs_free(&out);
    buf_free(&err);
    return (nsysp_status)status;
}

void nsysp_recipe_result_free(nsysp_recipe_result *result)
{
    for (size_t i = 0; i < result->n_files; i++) {
        free(result->files[i].name);
        free(result->files[i].data);
    }
    free(result->files);
    for (size_t i = 0; i < result->n_reports; i++) {
        free(result->reports[i]);
        free(result->labels[i]);
    }
    free(result->reports);
    free(result->labels);
    memset(result, 0, sizeof *result);
}
