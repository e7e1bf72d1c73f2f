/* The statistics recipes: cuda_api_sum, cuda_gpu_kern_sum,
 * cuda_gpu_mem_size_sum, cuda_gpu_mem_time_sum and osrt_sum.
 *
 * Each computes one `nsys stats` report per report of the job, as nsys
 * 2023.4 computes it (rank_stats.csv: its rows and the report's name), then
 * combines the reports per name (all_stats.csv): totals and counts summed,
 * the smallest Q1, the median of the medians, the largest Q3, and a
 * standard deviation pooled from each report's mean and deviation.
 *
 * One report's statistics are one pass over its rows, by name id (names
 * are joined on the few groups), that sums them and sorts each name's
 * values for the quartiles: in memory up to a fixed size, past it by
 * SQLite's sort, which spills to files, so that memory grows with names,
 * not events. What is printed unrounded (sizes) is SQLite's own GROUP BY,
 * whose deviation sees the values in the order nsys's does. */
#include "recipe.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/pairmap.h"
#include "common/xalloc.h"

/* How one recipe of the family reads a report and names its columns. */
typedef struct stats_recipe {
    const char *report;     /* the nsys stats report, for messages */
    const char *key;        /* the name column: "Name", "Operation" */
    const char *count;      /* "Num Calls", "Instances", "Count" */
    bool durations;         /* ns, with a Time share and averages to 0.1 ns; else bytes */
    /* Writes into sql a query of the rows to summarize: columns grp and
     * those value_sql reads. NSYSP_ERR_NOT_NSYS with the reason in why
     * when the report lacks them. */
    int (*source)(nsys_db *db, const recipe_job *job, buf *sql, buf *why);
    const char *value_sql;  /* the value summarized, over source's columns */
    const char *name_sql;   /* the row's name, over recipe_groups g */
    const char *join_sql;   /* what name_sql reads besides g */
    const char *order_sql;  /* nsys's row order */
    /* The same recipe grouping by name where grp is a name id and two ids
     * of a report name the same (NULL: ids and names go one to one). */
    const struct stats_recipe *by_name;
} stats_recipe;

/* ---- Sources: what each report summarizes --------------------------- */

static bool need_tables(nsys_db *db, const char *const *tables, size_t n, buf *why)
{
    for (size_t i = 0; i < n; i++)
        if (!nsys_db_has_table(db, tables[i])) {
            buf_printf(why, "does not contain %s", tables[i]);
            return false;
        }
    return true;
}

static int source_cuda_api(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    (void)job;
    static const char *const T[] = {"StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    if (!need_tables(db, T, 2, why))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql, "SELECT nameId AS grp, start, \"end\" FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    return NSYSP_OK;
}

static int source_osrt(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    (void)job;
    static const char *const T[] = {"StringIds", "OSRT_API"};
    if (!need_tables(db, T, 2, why))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql, "SELECT nameId AS grp, start, \"end\" FROM OSRT_API%s",
               nsys_db_has_column(db, "OSRT_API", "eventClass") ? " WHERE eventClass = 27" : "");
    return NSYSP_OK;
}

/* The kernel name id that nsys's kernel view names a kernel by. */
static const char *kernel_name_column(nsys_db *db, const recipe_job *job)
{
    const nsysp_recipe_options *o = job->options;
    if (o && o->base)
        return "shortName";
    if (o && o->mangled && nsys_db_has_column(db, "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName"))
        return "mangledName";
    return "demangledName";
}

/* Kernels by name id: the names are joined on the few groups. */
static int source_kernels(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    static const char *const T[] = {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"};
    if (!need_tables(db, T, 2, why))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql,
               "SELECT coalesce(%s, demangledName) AS grp, start, \"end\""
               " FROM CUPTI_ACTIVITY_KIND_KERNEL",
               kernel_name_column(db, job));
    return NSYSP_OK;
}

/* Kernels by name, as nsys groups them: for a report where ids repeat a
 * name (or name nothing). */
static int source_kernel_names(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    static const char *const T[] = {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"};
    if (!need_tables(db, T, 2, why))
        return NSYSP_ERR_NOT_NSYS;
    buf_printf(sql,
               "SELECT s.value AS grp, k.start AS start, k.\"end\" AS \"end\""
               " FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"
               " LEFT JOIN StringIds AS s ON s.id = coalesce(k.%s, k.demangledName)",
               kernel_name_column(db, job));
    return NSYSP_OK;
}

/* Copies by kind ("[CUDA memcpy Host-to-Device]") and sets, with their
 * durations or sizes (bytes). */
static int source_memory(nsys_db *db, buf *sql, buf *why, const char *value)
{
    bool copies = nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY");
    bool sets = nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET");
    if (!copies && !sets) {
        buf_printf(why, "does not contain GPU memory data");
        return NSYSP_ERR_NOT_NSYS;
    }
    if (copies) {
        buf_printf(sql, "WITH copy_kinds(id, label) AS (");
        int status = recipe_enum_values(db, NSYS_ENUM_MEMCPY_OPER, sql, why);
        if (status != NSYSP_OK)
            return status;
        buf_printf(sql,
                   ") SELECT '[CUDA memcpy ' || c.label || ']' AS grp, %s AS val"
                   " FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m JOIN copy_kinds AS c ON c.id = m.copyKind",
                   value);
    }
    if (sets)
        buf_printf(sql, "%sSELECT '[CUDA memset]' AS grp, %s AS val FROM CUPTI_ACTIVITY_KIND_MEMSET",
                   copies ? " UNION ALL " : "", value);
    return NSYSP_OK;
}

static int source_memory_time(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    (void)job;
    return source_memory(db, sql, why, "\"end\" - start");
}

static int source_memory_size(nsys_db *db, const recipe_job *job, buf *sql, buf *why)
{
    (void)job;
    return source_memory(db, sql, why, "bytes");
}

/* The name of a CUDA call without its version suffix ("_v10000"), as
 * cuda_api_sum prints it. */
#define UNVERSIONED_NAME                                                                  \
    "CASE substr(s.value, -6, 2) WHEN '_v' THEN substr(s.value, 1, length(s.value) - 6)" \
    " ELSE s.value END"
#define NAME_BY_ID "LEFT JOIN StringIds AS s ON s.id = g.grp"

static const stats_recipe CUDA_API_SUM = {
    "cuda_api_sum", "Name", "Num Calls", true, source_cuda_api,
    "\"end\" - start", UNVERSIONED_NAME, NAME_BY_ID, "total DESC", NULL};
static const stats_recipe CUDA_GPU_KERN_SUM_BY_NAME = {
    "cuda_gpu_kern_sum", "Name", "Instances", true, source_kernel_names,
    "\"end\" - start", "g.grp", "", "total DESC, num, g.grp", NULL};
static const stats_recipe CUDA_GPU_KERN_SUM = {
    "cuda_gpu_kern_sum", "Name", "Instances", true, source_kernels,
    "\"end\" - start", "s.value", NAME_BY_ID, "total DESC, num, s.value", &CUDA_GPU_KERN_SUM_BY_NAME};
static const stats_recipe CUDA_GPU_MEM_TIME_SUM = {
    "cuda_gpu_mem_time_sum", "Operation", "Count", true, source_memory_time,
    "val", "g.grp", "", "total DESC", NULL};
static const stats_recipe CUDA_GPU_MEM_SIZE_SUM = {
    "cuda_gpu_mem_size_sum", "Operation", "Count", false, source_memory_size,
    "val", "g.grp", "", "total DESC", NULL};
static const stats_recipe OSRT_SUM = {
    "osrt_sum", "Name", "Num Calls", true, source_osrt,
    "\"end\" - start", "s.value", NAME_BY_ID, "total DESC", NULL};

/* ---- One report's statistics ----------------------------------------- */

/* The sample standard deviation as nsys's SQL aggregate computes it: a
 * running mean and sum of squares (Welford), 0 for fewer than two values. */
typedef struct welford {
    int64_t n;
    double mean, m2;
} welford;

static void welford_add(welford *w, double x)
{
    w->n++;
    double delta = x - w->mean;
    w->mean += delta / (double)w->n;
    w->m2 += delta * (x - w->mean);
}

static double welford_deviation(const welford *w)
{
    return w && w->n > 1 ? sqrt(w->m2 / (double)(w->n - 1)) : 0.0;
}

static void welford_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    welford *w = sqlite3_aggregate_context(ctx, sizeof *w);
    if (w && sqlite3_value_numeric_type(argv[0]) != SQLITE_NULL)
        welford_add(w, sqlite3_value_double(argv[0]));
}

static void welford_final(sqlite3_context *ctx)
{
    sqlite3_result_double(ctx, welford_deviation(sqlite3_aggregate_context(ctx, 0)));
}

/* Percentiles as nsys's SQL takes them: of the sorted values, the distinct
 * values at or around rank n * p (both neighbours when n * p is whole),
 * averaged; a single value keeps its integer type. */
typedef struct percentile {
    double rank;       /* n * p */
    int64_t sum, n;    /* of the distinct values taken */
    bool done;
} percentile;

/* The quartiles of n values, to be fed their distinct values in order. */
static void quartiles_start(percentile q[3], int64_t n)
{
    q[0] = (percentile){(double)n / 4.0, 0, 0, false};
    q[1] = (percentile){(double)n / 2.0, 0, 0, false};
    q[2] = (percentile){(double)(n * 3) / 4.0, 0, 0, false};
}

/* value, held count times, comes after below smaller values of n. */
static void quartiles_take(percentile q[3], int64_t value, int64_t below, int64_t count, int64_t n)
{
    int64_t through = below + count; /* values up to and including this one */
    for (int k = 0; k < 3; k++) {
        percentile *p = &q[k];
        if (p->done || (double)through < p->rank)
            continue;
        if ((double)(n - below) >= (double)n - p->rank) {
            p->sum += value;
            p->n++;
        } else {
            p->done = true;
        }
    }
}

static void percentile_bind(const percentile *p, sqlite3_stmt *stmt, int column)
{
    if (p->n == 1)
        sqlite3_bind_int64(stmt, column, p->sum);
    else if (p->n > 1)
        sqlite3_bind_double(stmt, column, (double)p->sum * 1.0 / (double)p->n);
    else
        sqlite3_bind_null(stmt, column);
}

static int sql_status(nsys_db *db, int rc, const char *what, buf *err)
{
    return rc == SQLITE_OK || rc == SQLITE_DONE ? NSYSP_OK : nsys_db_error(db, rc, what, err);
}

#define GROUPS_COLUMNS "grp, total, num, avg, mn, mx, stddev, n_values, q1, med, q3"

/* Fills the quartiles of temp.recipe_groups from SQLite's sort of the
 * values: groups and values both in grp order, so that a group's count of
 * values is known before its first value is read. */
static int quartiles_by_sql(nsys_db *db, const stats_recipe *r, const char *source, buf *err)
{
    sqlite3 *sql = nsys_db_sqlite(db);
    char *walk = sqlite3_mprintf("SELECT grp, v, count(*) FROM (SELECT grp, %s AS v FROM (%s))"
                                 " WHERE v IS NOT NULL GROUP BY grp, v ORDER BY grp, v",
                                 r->value_sql, source);
    sqlite3_stmt *values = NULL, *groups = NULL, *update = NULL;
    int rc = sqlite3_prepare_v2(sql, walk, -1, &values, NULL);
    sqlite3_free(walk);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql, "SELECT rowid, n_values FROM recipe_groups"
                                     " WHERE n_values > 0 ORDER BY grp",
                                -1, &groups, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql,
                                "UPDATE recipe_groups SET q1 = ?1, med = ?2, q3 = ?3 WHERE rowid = ?4",
                                -1, &update, NULL);
    int step = rc == SQLITE_OK ? sqlite3_step(values) : rc;
    while (rc == SQLITE_OK && step == SQLITE_ROW) {
        if (sqlite3_step(groups) != SQLITE_ROW) {
            rc = SQLITE_CORRUPT; /* a value without its group: the report changed under us */
            break;
        }
        int64_t n = sqlite3_column_int64(groups, 1);
        percentile q[3];
        quartiles_start(q, n);
        int64_t below = 0;
        while (step == SQLITE_ROW && below < n) {
            int64_t value = sqlite3_column_int64(values, 1), count = sqlite3_column_int64(values, 2);
            quartiles_take(q, value, below, count, n);
            below += count;
            step = sqlite3_step(values);
        }
        for (int k = 0; k < 3; k++)
            percentile_bind(&q[k], update, k + 1);
        sqlite3_bind_int64(update, 4, sqlite3_column_int64(groups, 0));
        rc = sqlite3_step(update) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(sql);
        sqlite3_reset(update);
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE)
        rc = step;
    sqlite3_finalize(values);
    sqlite3_finalize(groups);
    sqlite3_finalize(update);
    return sql_status(db, rc, "summarizing", err);
}

/* temp.recipe_groups by SQLite alone: a GROUP BY whose deviation sees the
 * values in the order SQLite's sort feeds them, as nsys's does; for the
 * digits printed unrounded (sizes), then the quartiles as above. */
static int build_groups_in_sql(nsys_db *db, const stats_recipe *r, const char *source, buf *err)
{
    sqlite3 *sql = nsys_db_sqlite(db);
    int rc = sqlite3_create_function(sql, "nsysp_stdev", 1, SQLITE_UTF8, NULL, NULL, welford_step,
                                     welford_final);
    char *create = sqlite3_mprintf(
        "DROP TABLE IF EXISTS temp.recipe_groups;"
        "CREATE TEMP TABLE recipe_groups AS SELECT grp, sum(%s) AS total, count(*) AS num,"
        " avg(%s) AS avg, min(%s) AS mn, max(%s) AS mx, nsysp_stdev(%s) AS stddev,"
        " count(%s) AS n_values, NULL AS q1, NULL AS med, NULL AS q3 FROM (%s) GROUP BY grp;",
        r->value_sql, r->value_sql, r->value_sql, r->value_sql, r->value_sql, r->value_sql, source);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(sql, create, NULL, NULL, NULL);
    sqlite3_free(create);
    if (rc != SQLITE_OK)
        return sql_status(db, rc, "summarizing", err);
    return quartiles_by_sql(db, r, source, err);
}

/* One name's statistics as a pass over the report collects them. */
typedef struct group {
    int type;           /* of the name: SQLITE_INTEGER (an id), SQLITE_TEXT or SQLITE_NULL */
    int64_t id;
    char *text;
    int64_t num, n_values, total, mn, mx;
    welford deviation;  /* in the rows' order, not in the order of SQLite's sort as
                           nsys's: the same once rounded to 0.1 ns */
    int64_t *values;    /* while the pass keeps them, to sort for the quartiles */
    size_t cap_values;
    percentile q[3];
} group;

/* The groups of a report and, while they fit in sort_limit, its values. */
typedef struct group_pass {
    /* Where each name's group is in groups, plus one (0: none yet):
     * names by StringIds id, mostly small and dense, in an array; others
     * by hash. */
    uint64_t *small_ids;
    size_t n_small_ids;
    pairmap ids;
    hmap texts;
    uint64_t null_group;
    group *groups;
    size_t n_groups, cap_groups;
    size_t n_values, sort_limit;
    bool values_dropped; /* more values than sort_limit: SQLite sorts them */
} group_pass;

/* The values one report's pass sorts in memory, at most: as much as
 * SQLite's own sort keeps in memory before it spills to temporary files
 * (nsys_db's cache, 4 MiB), each value taking 8 bytes and 8 more to be
 * sorted; past it SQLite sorts them, so memory stays flat whatever the
 * number of events. NSYSP_RECIPE_SORT_BYTES sets it (0: always SQLite),
 * so that tests can check that both sorts agree. */
static size_t sort_limit(void)
{
    const char *text = getenv("NSYSP_RECIPE_SORT_BYTES");
    size_t bytes = (size_t)4 << 20;
    if (text && *text)
        bytes = (size_t)strtoull(text, NULL, 10);
    return bytes / (2 * sizeof(int64_t));
}

/* Name ids below this are found by array (4 MiB at most). */
enum { SMALL_IDS = 1 << 19 };

/* The slot of a small name id, the array grown to hold it. */
static uint64_t *small_id_slot(group_pass *p, size_t id)
{
    if (id >= p->n_small_ids) {
        size_t n = p->n_small_ids ? p->n_small_ids : 1024;
        while (n <= id)
            n *= 2;
        p->small_ids = xrealloc(p->small_ids, n * sizeof *p->small_ids);
        memset(p->small_ids + p->n_small_ids, 0, (n - p->n_small_ids) * sizeof *p->small_ids);
        p->n_small_ids = n;
    }
    return &p->small_ids[id];
}

static group *group_of(group_pass *p, sqlite3_stmt *row)
{
    int type = sqlite3_column_type(row, 0);
    int64_t id = 0;
    const char *text = NULL;
    uint64_t *slot = &p->null_group;
    if (type == SQLITE_INTEGER) {
        id = sqlite3_column_int64(row, 0);
        slot = id >= 0 && id < SMALL_IDS ? small_id_slot(p, (size_t)id)
                                         : pairmap_upsert(&p->ids, id, 0);
    } else if (type == SQLITE_TEXT) {
        bool inserted;
        text = (const char *)sqlite3_column_text(row, 0);
        slot = hmap_upsert(&p->texts, text, (size_t)sqlite3_column_bytes(row, 0), &inserted);
    }
    if (*slot == 0) {
        if (p->n_groups == p->cap_groups) {
            p->cap_groups = p->cap_groups ? p->cap_groups * 2 : 64;
            p->groups = xrealloc(p->groups, p->cap_groups * sizeof *p->groups);
        }
        group *g = &p->groups[p->n_groups++];
        memset(g, 0, sizeof *g);
        g->type = type;
        g->id = id;
        if (text)
            g->text = xstrdup(text);
        *slot = p->n_groups;
    }
    return &p->groups[*slot - 1];
}

static void drop_values(group_pass *p)
{
    for (size_t i = 0; i < p->n_groups; i++) {
        free(p->groups[i].values);
        p->groups[i].values = NULL;
    }
    p->values_dropped = true;
}

/* Adds value to g; false when its total overflows (SQL's sum then says so). */
static bool group_add(group_pass *p, group *g, int64_t value)
{
    if (__builtin_add_overflow(g->total, value, &g->total))
        return false;
    if (g->n_values == 0 || value < g->mn)
        g->mn = value;
    if (g->n_values == 0 || value > g->mx)
        g->mx = value;
    g->n_values++;
    welford_add(&g->deviation, (double)value);
    if (p->values_dropped)
        return true;
    if (p->n_values == p->sort_limit) {
        drop_values(p);
        return true;
    }
    size_t n = (size_t)g->n_values - 1;
    if (n == g->cap_values) {
        g->cap_values = g->cap_values ? g->cap_values * 2 : 256;
        g->values = xrealloc(g->values, g->cap_values * sizeof *g->values);
    }
    g->values[n] = value;
    p->n_values++;
    return true;
}

/* Sorts values (n) by radix, a byte at a time from the lowest, skipping
 * the bytes all values share; tmp holds n. Returns where they ended up. */
static int64_t *radix_sort(int64_t *values, int64_t *tmp, size_t n)
{
    static const uint64_t SIGN = (uint64_t)1 << 63; /* negatives sort first */
    size_t counts[8][256] = {{0}};
    for (size_t i = 0; i < n; i++) {
        uint64_t key = (uint64_t)values[i] ^ SIGN;
        for (int d = 0; d < 8; d++)
            counts[d][(key >> (8 * d)) & 0xFF]++;
    }
    int64_t *from = values, *to = tmp;
    for (int d = 0; d < 8; d++) {
        size_t *c = counts[d];
        if (c[(((uint64_t)from[0] ^ SIGN) >> (8 * d)) & 0xFF] == n)
            continue; /* one byte for all */
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t k = c[b];
            c[b] = at;
            at += k;
        }
        for (size_t i = 0; i < n; i++)
            to[c[(((uint64_t)from[i] ^ SIGN) >> (8 * d)) & 0xFF]++] = from[i];
        int64_t *t = from;
        from = to;
        to = t;
    }
    return from;
}

/* Each group's quartiles from its values sorted in memory. */
static void quartiles_in_memory(group_pass *p)
{
    size_t most = 1;
    for (size_t i = 0; i < p->n_groups; i++)
        if ((size_t)p->groups[i].n_values > most)
            most = (size_t)p->groups[i].n_values;
    int64_t *tmp = xmalloc(most * sizeof *tmp);
    for (size_t i = 0; i < p->n_groups; i++) {
        group *g = &p->groups[i];
        size_t n = (size_t)g->n_values;
        if (!n)
            continue;
        const int64_t *v = radix_sort(g->values, tmp, n);
        quartiles_start(g->q, g->n_values);
        for (size_t k = 0; k < n;) {
            size_t j = k + 1;
            while (j < n && v[j] == v[k])
                j++;
            quartiles_take(g->q, v[k], (int64_t)k, (int64_t)(j - k), g->n_values);
            k = j;
        }
    }
    free(tmp);
}

/* Reads source's rows once into p. SQLITE_MISMATCH when a value is not an
 * integer, a name neither id nor text, or a total overflows: the SQL way
 * then decides. */
static int group_rows(nsys_db *db, const stats_recipe *r, const char *source, group_pass *p)
{
    char *query = sqlite3_mprintf("SELECT grp, %s FROM (%s)", r->value_sql, source);
    sqlite3_stmt *rows = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &rows, NULL);
    sqlite3_free(query);
    while (rc == SQLITE_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int name = sqlite3_column_type(rows, 0), value = sqlite3_column_type(rows, 1);
        if ((name != SQLITE_INTEGER && name != SQLITE_TEXT && name != SQLITE_NULL) ||
            (value != SQLITE_INTEGER && value != SQLITE_NULL) || p->n_groups >= UINT32_MAX) {
            rc = SQLITE_MISMATCH;
            break;
        }
        group *g = group_of(p, rows);
        g->num++;
        if (value == SQLITE_INTEGER && !group_add(p, g, sqlite3_column_int64(rows, 1))) {
            rc = SQLITE_MISMATCH;
            break;
        }
    }
    sqlite3_finalize(rows);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* p's groups into a new temp.recipe_groups. */
static int store_groups(nsys_db *db, const group_pass *p)
{
    sqlite3 *sql = nsys_db_sqlite(db);
    int rc = sqlite3_exec(sql, "DROP TABLE IF EXISTS temp.recipe_groups;"
                               "CREATE TEMP TABLE recipe_groups(" GROUPS_COLUMNS ")",
                          NULL, NULL, NULL);
    sqlite3_stmt *insert = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql, "INSERT INTO recipe_groups(" GROUPS_COLUMNS ")"
                                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                                -1, &insert, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < p->n_groups; i++) {
        const group *g = &p->groups[i];
        if (g->type == SQLITE_INTEGER)
            sqlite3_bind_int64(insert, 1, g->id);
        else if (g->type == SQLITE_TEXT)
            sqlite3_bind_text(insert, 1, g->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 3, g->num);
        sqlite3_bind_double(insert, 7, welford_deviation(&g->deviation));
        sqlite3_bind_int64(insert, 8, g->n_values);
        if (g->n_values) { /* else NULL, as SQL's sum, avg, min and max of nothing */
            sqlite3_bind_int64(insert, 2, g->total);
            sqlite3_bind_double(insert, 4, (double)g->total / (double)g->n_values);
            sqlite3_bind_int64(insert, 5, g->mn);
            sqlite3_bind_int64(insert, 6, g->mx);
        }
        for (int k = 0; k < 3; k++)
            percentile_bind(&g->q[k], insert, 9 + k);
        rc = sqlite3_step(insert) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(sql);
        sqlite3_reset(insert);
        sqlite3_clear_bindings(insert);
    }
    sqlite3_finalize(insert);
    return rc;
}

static void group_pass_free(group_pass *p)
{
    for (size_t i = 0; i < p->n_groups; i++) {
        free(p->groups[i].text);
        free(p->groups[i].values);
    }
    free(p->groups);
    free(p->small_ids);
    pairmap_free(&p->ids);
    hmap_free(&p->texts);
}

/* Fills temp.recipe_groups (GROUPS_COLUMNS) from source. Durations are
 * printed rounded to 0.1 ns: one pass over the rows, each name's values
 * sorted in memory (or by SQLite past sort_limit). Sizes are printed to
 * every digit: their deviation must see the values in SQLite's order. */
static int build_groups(nsys_db *db, const stats_recipe *r, const char *source, buf *err)
{
    if (!r->durations)
        return build_groups_in_sql(db, r, source, err);
    group_pass p = {.sort_limit = sort_limit()};
    hmap_init(&p.texts);
    int rc = group_rows(db, r, source, &p);
    int status;
    if (rc == SQLITE_MISMATCH) {
        status = build_groups_in_sql(db, r, source, err);
    } else if (rc != SQLITE_OK) {
        status = sql_status(db, rc, "summarizing", err);
    } else {
        if (!p.values_dropped)
            quartiles_in_memory(&p);
        status = sql_status(db, store_groups(db, &p), "summarizing", err);
        if (status == NSYSP_OK && p.values_dropped)
            status = quartiles_by_sql(db, r, source, err);
    }
    group_pass_free(&p);
    return status;
}

/* The columns of rank_stats.csv (per report) and all_stats.csv (the job),
 * by position. */
enum { C_KEY, C_TIME, C_TOTAL, C_COUNT, C_AVG, C_Q1, C_MED, C_Q3, C_MIN, C_MAX, C_STDDEV,
       C_FILE, C_MIN_FILE = C_FILE, C_MAX_FILE, N_ALL_COLUMNS };

static void column_names(const stats_recipe *r, const char **names, bool job)
{
    static const char *const FIXED[] = {NULL, "Time", NULL, NULL, "Avg", "Q1", "Med", "Q3",
                                        "Min", "Max", "StdDev", "File", "Max File"};
    for (int c = 0; c < N_ALL_COLUMNS; c++)
        names[c] = FIXED[c];
    names[C_KEY] = r->key;
    names[C_TOTAL] = r->durations ? "Total Time" : "Total";
    names[C_COUNT] = r->count;
    if (job)
        names[C_MIN_FILE] = "Min File";
}

/* Appends the report's rows, as its nsys stats report orders them, to rank
 * (every column but Time when the recipe has none; see column_names). */
static int report_rows(nsys_db *db, const stats_recipe *r, const char *label, recipe_table *rank,
                       buf *err)
{
    char *query = sqlite3_mprintf(
        "SELECT %s, round(total * 100.0 / (SELECT sum(total) FROM recipe_groups), 1), total, num,"
        " %s, q1, %s, q3, mn, mx, %s FROM recipe_groups AS g %s ORDER BY %s",
        r->name_sql, r->durations ? "round(avg, 1)" : "avg", r->durations ? "round(med, 1)" : "med",
        r->durations ? "round(stddev, 1)" : "stddev", r->join_sql, r->order_sql);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &stmt, NULL);
    sqlite3_free(query);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        recipe_cell *row = recipe_table_add_row(rank);
        for (int c = C_KEY; c < C_FILE; c++) {
            if (c == C_TIME && !r->durations)
                continue;
            switch (sqlite3_column_type(stmt, c)) {
            case SQLITE_INTEGER: recipe_cell_set_int(&row[c], sqlite3_column_int64(stmt, c)); break;
            case SQLITE_FLOAT: recipe_cell_set_real(&row[c], sqlite3_column_double(stmt, c)); break;
            case SQLITE_NULL: break;
            default: recipe_cell_set_text(&row[c], (const char *)sqlite3_column_text(stmt, c)); break;
            }
        }
        recipe_cell_set_text(&row[C_FILE], label);
    }
    sqlite3_finalize(stmt);
    return sql_status(db, rc, "summarizing", err);
}

/* Runs the report's nsys stats report into rank. NSYSP_ERR_NOT_NSYS when
 * the report lacks its tables (why says which). */
/* Whether two groups of temp.recipe_groups (grp: a name id) have one name. */
static int names_repeat(nsys_db *db, bool *repeat, buf *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "SELECT 1 FROM recipe_groups AS g " NAME_BY_ID
                                " GROUP BY s.value HAVING count(*) > 1 LIMIT 1",
                                -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    *repeat = rc == SQLITE_ROW;
    sqlite3_finalize(stmt);
    return sql_status(db, rc == SQLITE_ROW ? SQLITE_OK : rc, "summarizing", err);
}

/* Runs the report's nsys stats report into rank. NSYSP_ERR_NOT_NSYS when
 * the report lacks its tables (why says which). */
static int report_stats(const stats_recipe *r, const recipe_job *job, size_t i,
                        recipe_table *rank, buf *err)
{
    int status;
    nsys_db *db = recipe_open_report(job, i, err, &status);
    if (!db)
        return status;
    buf source = {0};
    status = r->source(db, job, &source, err);
    if (status == NSYSP_OK)
        status = build_groups(db, r, buf_cstr(&source), err);
    bool repeat = false;
    if (status == NSYSP_OK && r->by_name)
        status = names_repeat(db, &repeat, err);
    if (status == NSYSP_OK && repeat) {
        r = r->by_name;
        buf_clear(&source);
        status = r->source(db, job, &source, err);
        if (status == NSYSP_OK)
            status = build_groups(db, r, buf_cstr(&source), err);
    }
    if (status == NSYSP_OK)
        status = report_rows(db, r, job->labels[i], rank, err);
    buf_free(&source);
    nsys_db_close(db);
    return status;
}

/* ---- The job: every report's rows combined per name ------------------ */

static int by_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* pandas' groupby: names in sorted order, rows without a name left out. */
static int by_key(const recipe_cell *a, const recipe_cell *b, const void *ctx)
{
    (void)ctx;
    return by_text(a[C_KEY].s, b[C_KEY].s);
}

static int by_named_key(size_t a, size_t b, const void *ctx)
{
    const recipe_table *rank = ctx;
    const recipe_cell *x = recipe_table_cell(rank, a, 0), *y = recipe_table_cell(rank, b, 0);
    bool named_x = x[C_KEY].kind == RECIPE_TEXT, named_y = y[C_KEY].kind == RECIPE_TEXT;
    if (named_x != named_y)
        return named_x ? -1 : 1;
    return named_x ? by_key(x, y, NULL) : 0;
}

static int by_total_descending(const recipe_cell *a, const recipe_cell *b, const void *ctx)
{
    (void)ctx;
    double x = recipe_cell_number(&a[C_TOTAL]), y = recipe_cell_number(&b[C_TOTAL]);
    return x > y ? -1 : x < y;
}

static int by_file_then_total(const recipe_cell *a, const recipe_cell *b, const void *ctx)
{
    int c = by_text(a[C_FILE].s, b[C_FILE].s);
    return c ? c : by_total_descending(a, b, ctx);
}

/* The smallest or largest number of the column over rows, NaN skipped, of
 * the column's type. */
static void extreme(recipe_table *rank, const size_t *rows, size_t n, int column, bool largest,
                    recipe_cell *out)
{
    const recipe_cell *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const recipe_cell *c = recipe_table_cell(rank, rows[i], (size_t)column);
        if (c->kind != RECIPE_INT && c->kind != RECIPE_REAL)
            continue;
        if (!best || (largest ? recipe_cell_number(c) > recipe_cell_number(best)
                              : recipe_cell_number(c) < recipe_cell_number(best)))
            best = c;
    }
    if (best && best->kind == RECIPE_INT)
        recipe_cell_set_int(out, best->i);
    else if (best)
        recipe_cell_set_real(out, best->r);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The files whose value in column equals target, ", "-joined in job order. */
static void files_at(recipe_table *rank, const size_t *rows, size_t n, int column,
                     const recipe_cell *target, recipe_cell *out)
{
    buf names = {0};
    for (size_t i = 0; i < n; i++) {
        const recipe_cell *c = recipe_table_cell(rank, rows[i], (size_t)column);
        if (recipe_cell_number(c) == recipe_cell_number(target)) {
            if (names.len)
                buf_append_str(&names, ", ");
            buf_append_str(&names, recipe_table_cell(rank, rows[i], C_FILE)->s);
        }
    }
    recipe_cell_set_text(out, buf_cstr(&names));
    buf_free(&names);
}

/* One name's row of all_stats from its rows in the reports (rows, in job
 * order); job_total is the summed total of every name. */
static void combine(const stats_recipe *r, recipe_table *rank, const size_t *rows, size_t n,
                    double job_total, recipe_cell *out)
{
    /* pandas' int64 sums wrap around past 2^63; so do these, without the
     * undefined behaviour of a signed overflow in C. */
    uint64_t total_bits = 0, count_bits = 0;
    for (size_t i = 0; i < n; i++) {
        total_bits += (uint64_t)recipe_table_cell(rank, rows[i], C_TOTAL)->i;
        count_bits += (uint64_t)recipe_table_cell(rank, rows[i], C_COUNT)->i;
    }
    int64_t total = (int64_t)total_bits, count = (int64_t)count_bits;
    double mean = (double)total / (double)count;
    recipe_cell_set_text(&out[C_KEY], recipe_table_cell(rank, rows[0], C_KEY)->s);
    if (r->durations)
        recipe_cell_set_real(&out[C_TIME], recipe_round1((double)total / job_total * 100.0));
    recipe_cell_set_int(&out[C_TOTAL], total);
    recipe_cell_set_int(&out[C_COUNT], count);
    recipe_cell_set_real(&out[C_AVG], recipe_round1(mean));
    extreme(rank, rows, n, C_Q1, false, &out[C_Q1]);
    extreme(rank, rows, n, C_Q3, true, &out[C_Q3]);
    extreme(rank, rows, n, C_MIN, false, &out[C_MIN]);
    extreme(rank, rows, n, C_MAX, true, &out[C_MAX]);
    for (int c = C_Q1; c <= C_Q3; c += 2)
        if (out[c].kind == RECIPE_REAL)
            out[c].r = recipe_round1(out[c].r);

    /* The median of the reports' medians. */
    double *medians = xcalloc(n, sizeof *medians);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double m = recipe_cell_number(recipe_table_cell(rank, rows[i], C_MED));
        if (!isnan(m))
            medians[k++] = m;
    }
    qsort(medians, k, sizeof *medians, by_double);
    if (k)
        recipe_cell_set_real(&out[C_MED], recipe_round1(k % 2 ? medians[k / 2]
                                                              : (medians[k / 2 - 1] + medians[k / 2]) / 2.0));
    free(medians);

    /* The deviation pooled from each report's (rounded) mean and
     * deviation around the job's mean; a lone value keeps its own. */
    double deviation = recipe_cell_number(recipe_table_cell(rank, rows[0], C_STDDEV));
    if (count > 1) {
        double within = 0.0, between = 0.0;
        for (size_t i = 0; i < n; i++) {
            double ni = (double)recipe_table_cell(rank, rows[i], C_COUNT)->i;
            double sd = recipe_cell_number(recipe_table_cell(rank, rows[i], C_STDDEV));
            double d = recipe_cell_number(recipe_table_cell(rank, rows[i], C_AVG)) - mean;
            within += (ni - 1.0) * (sd * sd);
            between += ni * (d * d);
        }
        deviation = recipe_round1(sqrt((within + between) / (double)(count - 1)));
    }
    recipe_cell_set_real(&out[C_STDDEV], recipe_round1(deviation));
    files_at(rank, rows, n, C_MIN, &out[C_MIN], &out[C_MIN_FILE]);
    files_at(rank, rows, n, C_MAX, &out[C_MAX], &out[C_MAX_FILE]);
}

/* all_stats from rank_stats (in job order). */
static void combine_job(const stats_recipe *r, recipe_table *rank, recipe_table *all)
{
    /* Rows by name, in job order within a name; rows without a name last
     * (pandas' groupby leaves them out). */
    size_t *order = recipe_sorted_indexes(rank->n_rows, by_named_key, rank);
    size_t n_named = 0;
    while (n_named < rank->n_rows &&
           recipe_table_cell(rank, order[n_named], C_KEY)->kind == RECIPE_TEXT)
        n_named++;
    double job_total = 0.0;
    for (size_t i = 0; i < n_named; i++)
        job_total += (double)recipe_table_cell(rank, order[i], C_TOTAL)->i;
    for (size_t i = 0; i < n_named;) {
        size_t j = i + 1;
        while (j < n_named && by_key(recipe_table_cell(rank, order[i], 0),
                                     recipe_table_cell(rank, order[j], 0), NULL) == 0)
            j++;
        combine(r, rank, order + i, j - i, job_total, recipe_table_add_row(all));
        i = j;
    }
    free(order);
    recipe_table_sort_like_pandas(all, C_TOTAL, false);
}

/* Drops the Time column of a recipe without one (its slot stays in the
 * layout above, unused). */
static void drop_unused_time(const stats_recipe *r, recipe_table *t)
{
    if (r->durations)
        return;
    size_t w = t->n_columns;
    for (size_t row = 0; row < t->n_rows; row++) {
        recipe_cell *cells = recipe_table_cell(t, row, 0);
        free(cells[C_TIME].s);
        memmove(cells + C_TIME, cells + C_TIME + 1, (w - C_TIME - 1) * sizeof *cells);
    }
    /* Rows are now w - 1 wide: repack them. */
    for (size_t row = 1; row < t->n_rows; row++)
        memmove(t->cells + row * (w - 1), t->cells + row * w, (w - 1) * sizeof *t->cells);
    free(t->columns[C_TIME]);
    memmove(t->columns + C_TIME, t->columns + C_TIME + 1, (w - C_TIME - 1) * sizeof *t->columns);
    t->n_columns = w - 1;
}

/* One report's rows (rank_stats.csv's rows of it), or no table when it
 * lacks the data: nsys leaves such a report out. */
static int map_stats(const recipe_def *recipe, const recipe_job *job, size_t i,
                     recipe_outputs *partial, buf *err)
{
    const stats_recipe *r = recipe->family;
    const char *names[N_ALL_COLUMNS];
    column_names(r, names, false);
    recipe_table rank;
    recipe_table_init(&rank, names, C_FILE + 1);
    buf why = {0};
    int status = report_stats(r, job, i, &rank, &why);
    if (status == NSYSP_OK)
        recipe_outputs_take(partial, "rank_stats.csv", &rank);
    else if (status == NSYSP_ERR_NOT_NSYS)
        status = NSYSP_OK;
    else
        buf_printf(err, "%s", buf_cstr(&why));
    buf_free(&why);
    recipe_table_free(&rank);
    return status;
}

/* Whether a partial's table has the shape map_stats gives it (a partial may
 * come from another machine): rank_stats.csv's columns, whole-number totals
 * and counts (at least one), a report name on every row. */
static bool is_rank_table(const recipe_output *o)
{
    const recipe_table *t = &o->table;
    if (o->text || strcmp(o->file, "rank_stats.csv") != 0 || t->n_columns != C_FILE + 1)
        return false;
    for (size_t r = 0; r < t->n_rows; r++) {
        const recipe_cell *row = recipe_table_cell(t, r, 0);
        if (row[C_TOTAL].kind != RECIPE_INT || row[C_COUNT].kind != RECIPE_INT ||
            row[C_COUNT].i < 1 || row[C_FILE].kind != RECIPE_TEXT)
            return false;
    }
    return true;
}

/* The reports' rows in job order, then the job's table. */
static int reduce_stats(const recipe_def *recipe, const recipe_job *job,
                        const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    const stats_recipe *r = recipe->family;
    const char *names[N_ALL_COLUMNS];
    column_names(r, names, false);
    for (size_t i = 0; i < job->n; i++)
        for (size_t t = 0; t < partials[i].n; t++)
            if (!is_rank_table(&partials[i].items[t])) {
                buf_printf(err, "%s: its partial is not one of %s's", job->paths[i], recipe->name);
                return NSYSP_ERR_INPUT_FORMAT;
            }
    recipe_table rank;
    recipe_table_init(&rank, names, C_FILE + 1);
    for (size_t i = 0; i < job->n; i++)
        for (size_t t = 0; t < partials[i].n; t++)
            recipe_table_append(&rank, &partials[i].items[t].table);
    if (rank.n_rows == 0) {
        recipe_table_free(&rank);
        buf_printf(err, "%s: no report has the data it reads", recipe->name);
        return RECIPE_NO_DATA;
    }
    for (size_t c = 0; c < rank.n_columns; c++)
        recipe_table_promote_column(&rank, c);
    column_names(r, names, true);
    recipe_table all;
    recipe_table_init(&all, names, N_ALL_COLUMNS);
    combine_job(r, &rank, &all);
    recipe_table_sort(&rank, by_file_then_total, NULL);
    drop_unused_time(r, &all);
    drop_unused_time(r, &rank);
    recipe_outputs_take(out, "all_stats.csv", &all);
    recipe_outputs_take(out, "rank_stats.csv", &rank);
    return NSYSP_OK;
}

#define STATS(name, about, family) {name, about, NULL, family, map_stats, reduce_stats}
const recipe_def RECIPES_STATS[] = {
    STATS("cuda_api_sum", "CUDA API calls per name, per report and for the job", &CUDA_API_SUM),
    STATS("cuda_gpu_kern_sum", "GPU kernels per name, per report and for the job",
          &CUDA_GPU_KERN_SUM),
    STATS("cuda_gpu_mem_size_sum", "GPU memory operations by size, per report and for the job",
          &CUDA_GPU_MEM_SIZE_SUM),
    STATS("cuda_gpu_mem_time_sum", "GPU memory operations by time, per report and for the job",
          &CUDA_GPU_MEM_TIME_SUM),
    STATS("osrt_sum", "OS runtime calls per name, per report and for the job", &OSRT_SUM),
};
const size_t N_RECIPES_STATS = sizeof RECIPES_STATS / sizeof *RECIPES_STATS;
