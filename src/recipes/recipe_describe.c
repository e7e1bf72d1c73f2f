/* The describe recipes: nvtx_sum, mpi_sum and nccl_sum.
 *
 * Each reads ranges of a report (NVTX ranges, MPI calls, the ranges of the
 * NCCL domain), keeps those longer than 0 ns with a name, and describes
 * their durations per name as pandas' describe() does (rank_stats.csv:
 * count, mean, sample deviation, min, quartiles by linear interpolation,
 * max, sum), then combines the reports per name (all_stats.csv: counts and
 * sums added, the mean of the deviations, the smallest Q1, the median of
 * the medians, the largest Q3, all rounded to 0.1). files.csv lists the
 * reports that had data, in the order of their Rank.
 *
 * One report is two sorted walks of SQLite over its ranges, in memory that
 * grows with names, not ranges: one in pandas' row order (the deviation is
 * a running one, whose last digits depend on that order), one over each
 * name's distinct durations (the quartiles need only two positions). */
#include "recipe.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "recipes/recipe_pandas.h"

/* What a report holds for the recipe, as queries over its export. */
typedef struct describe_source {
    /* Queries of the name and duration (dur) of every event in the window
     * that lasts and has a name, over "e", one per table, in the order the
     * Python concatenates the tables. */
    buf parts[4];
    size_t n_parts;
    buf real; /* one row when a start or end is missing in the tables read:
                 pandas then holds every duration as a float */
} describe_source;

typedef struct describe_recipe {
    /* Fills src; NSYSP_ERR_NOT_NSYS when the report lacks what it reads. */
    int (*source)(nsys_db *db, const recipe_job *job, describe_source *src);
} describe_recipe;

/* Adds the query of table's events that condition keeps, named by
 * name_sql (over e and its string s). The time window is the Python's:
 * events that start by the end and end from the start, both included. */
static void add_part(describe_source *src, const recipe_job *job, const char *table,
                     const char *name_sql, const char *condition)
{
    buf *part = &src->parts[src->n_parts++];
    buf_printf(part, "SELECT %s AS name, e.\"end\" - e.start AS dur FROM %s AS e"
                     " LEFT JOIN StringIds AS s ON s.id = e.textId"
                     " WHERE e.\"end\" - e.start > 0 AND %s IS NOT NULL%s",
               name_sql, table, name_sql, condition);
    const nsysp_recipe_options *o = job->options;
    if (o && o->has_end)
        buf_printf(part, " AND e.start <= %lld", (long long)o->end_ns);
    if (o && o->has_start)
        buf_printf(part, " AND e.\"end\" >= %lld", (long long)o->start_ns);
}

static void source_free(describe_source *src)
{
    for (size_t i = 0; i < src->n_parts; i++)
        buf_free(&src->parts[i]);
    buf_free(&src->real);
}

static bool has_nvtx(nsys_db *db, bool domains)
{
    static const char *const COLUMNS[] = {"text", "start", "end", "textId", "globalTid",
                                          "endGlobalTid", "domainId", "eventType"};
    return nsys_db_has_table(db, "StringIds") && nsys_db_has_table(db, "NVTX_EVENTS") &&
           nsys_db_has_columns(db, "NVTX_EVENTS", COLUMNS, domains ? 8 : 6);
}

/* The NVTX events the condition keeps, named by their registered string or
 * their own text. */
static int source_nvtx_events(nsys_db *db, const recipe_job *job, const char *condition,
                              describe_source *src)
{
    if (!has_nvtx(db, *condition != '\0'))
        return NSYSP_ERR_NOT_NSYS;
    add_part(src, job, "NVTX_EVENTS", "coalesce(s.value, e.text)", condition);
    buf_printf(&src->real, "SELECT 1 FROM NVTX_EVENTS WHERE start IS NULL OR \"end\" IS NULL");
    return NSYSP_OK;
}

/* Every NVTX event with a duration. */
static int source_nvtx(nsys_db *db, const recipe_job *job, describe_source *src)
{
    return source_nvtx_events(db, job, "", src);
}

/* The push/pop and start/end ranges of the domain that the first "NCCL"
 * domain creation names (by its text, not a registered string). */
static int source_nccl(nsys_db *db, const recipe_job *job, describe_source *src)
{
    return source_nvtx_events(db, job,
                              " AND e.eventType IN (59, 60) AND e.domainId ="
                              " (SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75"
                              " AND text = 'NCCL' ORDER BY rowid LIMIT 1)",
                              src);
}

/* The MPI calls of the four tables; a table the export lacks is one
 * without rows. */
static int source_mpi(nsys_db *db, const recipe_job *job, describe_source *src)
{
    static const char *const TABLES[] = {"MPI_P2P_EVENTS", "MPI_START_WAIT_EVENTS",
                                         "MPI_OTHER_EVENTS", "MPI_COLLECTIVES_EVENTS"};
    static const char *const COLUMNS[] = {"start", "end", "textId"};
    if (!nsys_db_has_table(db, "StringIds"))
        return NSYSP_ERR_NOT_NSYS;
    for (size_t t = 0; t < sizeof TABLES / sizeof *TABLES; t++) {
        if (!nsys_db_has_table(db, TABLES[t]))
            continue;
        if (!nsys_db_has_columns(db, TABLES[t], COLUMNS, 3))
            return NSYSP_ERR_NOT_NSYS;
        buf_printf(&src->real, "%sSELECT 1 FROM %s WHERE start IS NULL OR \"end\" IS NULL",
                   src->n_parts ? " UNION ALL " : "", TABLES[t]);
        add_part(src, job, TABLES[t], "s.value", "");
    }
    return src->n_parts ? NSYSP_OK : NSYSP_ERR_NOT_NSYS;
}

static const describe_recipe NVTX_SUM = {source_nvtx};
static const describe_recipe NCCL_SUM = {source_nccl};
static const describe_recipe MPI_SUM = {source_mpi};

/* ---- One report's description ---------------------------------------- */

/* The columns of rank_stats.csv (recipe_pandas.h's, then Rank and File)
 * and, to RECIPE_STATS_SUM, of all_stats.csv. */
enum { C_NAME = RECIPE_STATS_NAME, C_COUNT = RECIPE_STATS_COUNT, C_MEAN = RECIPE_STATS_MEAN,
       C_STD = RECIPE_STATS_STD, C_MIN = RECIPE_STATS_MIN, C_Q1 = RECIPE_STATS_Q1,
       C_MAX = RECIPE_STATS_MAX, C_SUM = RECIPE_STATS_SUM, C_RANK = RECIPE_N_STATS_COLUMNS,
       C_FILE, N_RANK_COLUMNS, N_ALL_COLUMNS = RECIPE_N_STATS_COLUMNS };

static const double QUANTILES[3] = {0.25, 0.5, 0.75};

/* One name's durations in pandas' row order: count, sum, extremes and the
 * running variance. */
typedef struct duration_stats {
    int64_t sum, min, max;
    recipe_welford var; /* var.n: the count */
} duration_stats;

static void stats_add(duration_stats *s, int64_t value)
{
    if (s->var.n == 0 || value < s->min)
        s->min = value;
    if (s->var.n == 0 || value > s->max)
        s->max = value;
    s->sum += value;
    recipe_welford_add(&s->var, (double)value);
}

/* A quantile met in a walk of the sorted values: where it lies and the
 * values at and after that, once reached. */
typedef struct quantile_walk {
    recipe_quantile q;
    double low, high;
} quantile_walk;

/* Takes the positions [below, below + count) holding value. */
static void quantile_take(quantile_walk *w, int64_t value, int64_t below, int64_t count)
{
    if (w->q.at >= below && w->q.at < below + count)
        w->low = (double)value;
    if (w->q.at + 1 >= below && w->q.at + 1 < below + count)
        w->high = (double)value;
}

/* Sets c to v, as pandas holds the report's durations. */
static void set_duration(recipe_cell *c, int64_t v, bool real)
{
    if (real)
        recipe_cell_set_real(c, (double)v);
    else
        recipe_cell_set_int(c, v);
}

static int query_flag(nsys_db *db, const char *sql, bool *flag, buf *err)
{
    sqlite3_stmt *stmt = NULL;
    char *any = sqlite3_mprintf("SELECT EXISTS (%s)", sql);
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), any, -1, &stmt, NULL);
    sqlite3_free(any);
    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *flag = sqlite3_column_int(stmt, 0) != 0;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "reading", err);
}

/* Each name's duration_stats, by name (open addressing). */
typedef struct name_stats {
    char *name;
    duration_stats stats;
} name_stats;

typedef struct name_table {
    name_stats *slots;
    size_t n, capacity; /* capacity: a power of two */
} name_table;

static uint64_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static name_stats *name_slot(name_stats *slots, size_t capacity, const char *name)
{
    size_t i = (size_t)name_hash(name) & (capacity - 1);
    while (slots[i].name && strcmp(slots[i].name, name) != 0)
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

/* The name's stats, added (empty) when absent and add is set; else NULL. */
static duration_stats *name_table_get(name_table *t, const char *name, bool add)
{
    if (add && 2 * (t->n + 1) > t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 64;
        name_stats *slots = xcalloc(capacity, sizeof *slots);
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slots[i].name)
                *name_slot(slots, capacity, t->slots[i].name) = t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->capacity = capacity;
    }
    name_stats *slot = t->capacity ? name_slot(t->slots, t->capacity, name) : NULL;
    if (slot && !slot->name && add) {
        slot->name = xstrdup(name);
        t->n++;
    }
    return slot && slot->name ? &slot->stats : NULL;
}

static void name_table_free(name_table *t)
{
    for (size_t i = 0; i < t->capacity; i++)
        free(t->slots[i].name);
    free(t->slots);
}

/* Reads every part in row order into names. */
static int gather_stats(nsys_db *db, const describe_source *src, name_table *names, buf *err)
{
    int rc = SQLITE_OK;
    for (size_t p = 0; p < src->n_parts && rc == SQLITE_OK; p++) {
        char *query = sqlite3_mprintf("%s ORDER BY e.rowid", buf_cstr((buf *)&src->parts[p]));
        sqlite3_stmt *rows = NULL;
        rc = sqlite3_prepare_v2(nsys_db_sqlite(db), query, -1, &rows, NULL);
        sqlite3_free(query);
        while (rc == SQLITE_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
            rc = SQLITE_OK;
            stats_add(name_table_get(names, (const char *)sqlite3_column_text(rows, 0), true),
                      sqlite3_column_int64(rows, 1));
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        sqlite3_finalize(rows);
    }
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "describing", err);
}

/* Appends a row per name (in sorted order, as pandas groups them) to rank,
 * with names' stats and the quartiles from a walk of each name's sorted
 * distinct durations. */
static int describe_names(nsys_db *db, const describe_source *src, name_table *names, bool real,
                          int64_t rank_no, const char *label, recipe_table *rank, buf *err)
{
    buf query = {0};
    buf_printf(&query, "SELECT name, dur, count(*) FROM (");
    for (size_t p = 0; p < src->n_parts; p++)
        buf_printf(&query, "%s%s", p ? " UNION ALL " : "", buf_cstr((buf *)&src->parts[p]));
    buf_printf(&query, ") GROUP BY name, dur ORDER BY name, dur");
    sqlite3_stmt *values = NULL;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&query), -1, &values, NULL);
    buf_free(&query);
    int step = rc == SQLITE_OK ? sqlite3_step(values) : rc;
    while (step == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(values, 0);
        const duration_stats *s = name_table_get(names, name, false);
        if (!s) {
            rc = SQLITE_CORRUPT; /* the two walks disagree: the report changed under us */
            break;
        }
        recipe_cell *row = recipe_table_add_row(rank);
        recipe_cell_set_text(&row[C_NAME], name);
        int64_t n = s->var.n, below = 0;
        quantile_walk q[3];
        for (int k = 0; k < 3; k++)
            q[k] = (quantile_walk){recipe_quantile_of(QUANTILES[k], n), 0, 0};
        for (; below < n && step == SQLITE_ROW; step = sqlite3_step(values)) {
            int64_t value = sqlite3_column_int64(values, 1), count = sqlite3_column_int64(values, 2);
            for (int k = 0; k < 3; k++)
                quantile_take(&q[k], value, below, count);
            below += count;
        }
        if (below != n) {
            rc = SQLITE_CORRUPT;
            break;
        }
        recipe_cell_set_int(&row[C_COUNT], n);
        recipe_cell_set_real(&row[C_MEAN], (double)s->sum / (double)n);
        recipe_cell_set_real(&row[C_STD], recipe_welford_std(&s->var));
        set_duration(&row[C_MIN], s->min, real);
        for (int k = 0; k < 3; k++)
            recipe_cell_set_real(&row[C_Q1 + k], recipe_quantile_value(q[k].q, q[k].low, q[k].high));
        set_duration(&row[C_MAX], s->max, real);
        set_duration(&row[C_SUM], s->sum, real);
        recipe_cell_set_int(&row[C_RANK], rank_no);
        recipe_cell_set_text(&row[C_FILE], label);
    }
    if (rc == SQLITE_OK && step != SQLITE_DONE)
        rc = step;
    sqlite3_finalize(values);
    return rc == SQLITE_OK ? NSYSP_OK : nsys_db_error(db, rc, "describing", err);
}

/* Describes report i into rank as Rank rank_no; NSYSP_ERR_NOT_NSYS (no
 * message) when it has nothing to describe in the window. The Python
 * counts a report whose events in the window all last 0 ns (or have no
 * name), then fails on it; we leave it out, as one without events. */
static int report_describe(const describe_recipe *r, const recipe_job *job, size_t i,
                           int64_t rank_no, recipe_table *rank, buf *err)
{
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    describe_source src = {0};
    name_table names = {0};
    bool real = false;
    size_t rows_before = rank->n_rows;
    status = r->source(db, job, &src);
    if (status == NSYSP_OK)
        status = query_flag(db, buf_cstr(&src.real), &real, err);
    if (status == NSYSP_OK)
        status = gather_stats(db, &src, &names, err);
    if (status == NSYSP_OK)
        status = describe_names(db, &src, &names, real, rank_no, job->labels[i], rank, err);
    if (status == NSYSP_OK && rank->n_rows == rows_before)
        status = NSYSP_ERR_NOT_NSYS;
    source_free(&src);
    name_table_free(&names);
    nsys_db_close(db);
    return status;
}

/* ---- The job: every report's rows combined per name ------------------ */

static int by_label(size_t a, size_t b, const void *labels)
{
    return strcmp(((const char *const *)labels)[a], ((const char *const *)labels)[b]);
}

static const char *const RANK_COLUMNS[N_RANK_COLUMNS] = {
    "Text", "Count", "Mean", "Std", "Min", "Q1", "Median", "Q3", "Max", "Sum", "Rank", "File"};

/* One report's rows (its Rank is set when the job is folded), or no table
 * when it has nothing to describe. */
static int map_describe(const recipe_def *recipe, const recipe_job *job, size_t i,
                        recipe_outputs *partial, buf *err)
{
    recipe_table rank;
    recipe_table_init(&rank, RANK_COLUMNS, N_RANK_COLUMNS);
    int status = report_describe(recipe->family, job, i, 0, &rank, err);
    if (status == NSYSP_OK)
        recipe_outputs_take(partial, "rank_stats.csv", &rank);
    else if (status == NSYSP_ERR_NOT_NSYS && !err->len) /* no data: left out, as nsys does */
        status = NSYSP_OK;
    recipe_table_free(&rank);
    return status;
}

static int reduce_describe(const recipe_def *recipe, const recipe_job *job,
                           const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    static const char *const ALL_COLUMNS[N_ALL_COLUMNS] = {
        "Text", "Count", "Mean", "Std (approx)", "Min", "Q1 (approx)", "Median (approx)",
        "Q3 (approx)", "Max", "Sum"};
    static const char *const FILES_COLUMNS[] = {"File"};

    /* The Python ranks the reports with data by file name. */
    size_t *order = recipe_sorted_indexes(job->n, by_label, job->labels);
    recipe_table rank, files;
    recipe_table_init(&rank, RANK_COLUMNS, N_RANK_COLUMNS);
    recipe_table_init(&files, FILES_COLUMNS, 1);
    for (size_t k = 0; k < job->n; k++) {
        size_t i = order[k];
        if (partials[i].n == 0)
            continue;
        size_t first = rank.n_rows;
        recipe_table_append(&rank, &partials[i].items[0].table);
        for (size_t r = first; r < rank.n_rows; r++)
            recipe_cell_set_int(recipe_table_cell(&rank, r, C_RANK), (int64_t)files.n_rows);
        recipe_cell_set_text(recipe_table_add_row(&files), job->labels[i]);
    }
    free(order);
    if (files.n_rows == 0) {
        recipe_table_free(&rank);
        recipe_table_free(&files);
        buf_printf(err, "%s: no report has the data it reads", recipe->name);
        return RECIPE_NO_DATA;
    }
    /* pd.concat: a column is float when any report's is. */
    for (size_t c = 0; c < rank.n_columns; c++)
        recipe_table_promote_column(&rank, c);
    recipe_table all;
    recipe_table_init(&all, ALL_COLUMNS, N_ALL_COLUMNS);
    recipe_aggregate_stats(&rank, &all);
    recipe_outputs_take(out, "all_stats.csv", &all);
    recipe_outputs_take(out, "files.csv", &files);
    recipe_outputs_take(out, "rank_stats.csv", &rank);
    return NSYSP_OK;
}

#define DESCRIBE(name, about, family) {name, about, NULL, family, map_describe, reduce_describe}
const recipe_def RECIPES_DESCRIBE[] = {
    DESCRIBE("mpi_sum", "MPI calls per name, described per report and for the job", &MPI_SUM),
    DESCRIBE("nccl_sum", "NCCL ranges (NVTX domain NCCL) per name, described per report and for the job",
             &NCCL_SUM),
    DESCRIBE("nvtx_sum", "NVTX ranges per name, described per report and for the job", &NVTX_SUM),
};
const size_t N_RECIPES_DESCRIBE = sizeof RECIPES_DESCRIBE / sizeof *RECIPES_DESCRIBE;
