/* The pace recipes: cuda_gpu_kern_pace (a kernel, by short name) and
 * nvtx_pace (an NVTX range, by text), named with --name.
 *
 * Each instance of the name is an iteration: per report (a rank, in file
 * name order) its start and end (on the job's clock: sessions placed after
 * the earliest), duration, delta (the gap since the previous instance's end;
 * the first: its start in the report's own time) and their running sums,
 * one CSV per quantity with a column per rank (pace_*.csv); the deltas'
 * statistics per iteration across ranks (pace_delta_stats.csv); the
 * durations' statistics for the job (stats.csv) and the ranks' files
 * (files.csv). Numbers as nsys 2023.4 computes them with pandas 1.5 and
 * numpy 1.24: their sums, deviations and quantiles in their order. The
 * notebook's pictures are pace_*.svg.
 *
 * A report's part (map) is its instances' start and end, which the
 * outputs print one by one anyway; the job's (reduce) orders the ranks,
 * places them on the job's clock and computes everything else. */
#include "recipe.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe_pandas.h"
#include "recipes/recipe_svg.h"
#include "common/xalloc.h"

/* What a recipe of the family paces. */
typedef struct pace_recipe {
    const char *table;       /* the events */
    const char *name_column; /* stats.csv's first column: pandas' title of NVIDIA's */
    const char *instances;   /* "SELECT start, end ... WHERE name = ?1" in table order */
} pace_recipe;

static const pace_recipe KERNEL_PACE = {
    "CUPTI_ACTIVITY_KIND_KERNEL", "Shortname",
    "SELECT e.start, e.\"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL AS e"
    " JOIN StringIds AS s ON s.id = e.shortName WHERE s.value = ?1"};
static const pace_recipe NVTX_PACE = {
    "NVTX_EVENTS", "Text",
    "SELECT e.start, e.\"end\" FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId"
    " WHERE coalesce(s.value, e.text) = ?1"};

/* One rank's instances. */
typedef struct rank_pace {
    const char *label;
    size_t report; /* its place in the job, to keep equal labels in order */
    int64_t session;
    int64_t *start, *end;
    size_t n;
    /* The table's start or end has NULLs somewhere: pandas reads the
     * column as floats, and so prints what is computed from it. */
    bool float_start, float_end;
} rank_pace;

static void rank_free(rank_pace *r)
{
    free(r->start);
    free(r->end);
}

/* The report's instances of the name within the job's time filter, as
 * NVIDIA filters (starts by --end, ends from --start), complete ones only.
 * n == 0 when the report lacks them or the tables. */
static int read_rank(const pace_recipe *p, const recipe_job *job, size_t i, rank_pace *r, buf *err)
{
    memset(r, 0, sizeof *r);
    r->label = job->labels[i];
    r->report = i;
    int status;
    nsys_db *db = recipe_open_whole(job, i, err, &status);
    if (!db)
        return status;
    const nsysp_recipe_options *o = job->options;
    if (!nsys_db_has_table(db, p->table) || !nsys_db_has_table(db, "StringIds") ||
        !nsys_db_has_table(db, "TARGET_INFO_SESSION_START_TIME")) {
        nsys_db_close(db);
        return NSYSP_OK;
    }
    sqlite3_stmt *session = NULL, *stmt = NULL;
    sqlite3 *sql = nsys_db_sqlite(db);
    int rc = sqlite3_prepare_v2(sql, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", -1,
                                &session, NULL);
    if (rc == SQLITE_OK && sqlite3_step(session) == SQLITE_ROW)
        r->session = sqlite3_column_int64(session, 0);
    sqlite3_finalize(session);
    char *nulls = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\" WHERE start IS NULL),"
                                  " EXISTS (SELECT 1 FROM \"%w\" WHERE \"end\" IS NULL)",
                                  p->table, p->table);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql, nulls, -1, &stmt, NULL);
    sqlite3_free(nulls);
    if (rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
        r->float_start = sqlite3_column_int(stmt, 0);
        r->float_end = sqlite3_column_int(stmt, 1);
    }
    sqlite3_finalize(stmt);
    stmt = NULL;
    buf query = {0};
    buf_printf(&query, "%s AND e.start IS NOT NULL AND e.\"end\" IS NOT NULL", p->instances);
    if (o && o->has_end)
        buf_printf(&query, " AND e.start <= %lld", (long long)o->end_ns);
    if (o && o->has_start)
        buf_printf(&query, " AND e.\"end\" >= %lld", (long long)o->start_ns);
    buf_append_str(&query, " ORDER BY e.rowid");
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(sql, buf_cstr(&query), -1, &stmt, NULL);
    buf_free(&query);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 1, o->name, -1, SQLITE_STATIC);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (r->n == cap) {
            cap = cap ? 2 * cap : 256;
            r->start = xrealloc(r->start, cap * sizeof *r->start);
            r->end = xrealloc(r->end, cap * sizeof *r->end);
        }
        r->start[r->n] = sqlite3_column_int64(stmt, 0);
        r->end[r->n++] = sqlite3_column_int64(stmt, 1);
        rc = SQLITE_OK;
    }
    status = rc == SQLITE_DONE ? NSYSP_OK : nsys_db_error(db, rc, "reading instances", err);
    sqlite3_finalize(stmt);
    nsys_db_close(db);
    return status;
}

/* ---- numpy's and pandas' arithmetic ----------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* numpy's linear quantile of sorted values: its lerp, from the upper
 * neighbour when past halfway. */
static double numpy_quantile(const double *sorted, size_t n, double q)
{
    double at = (double)(n - 1) * q, below = floor(at), t = at - below;
    size_t i = (size_t)below, next = i + 1 < n ? i + 1 : n - 1;
    double a = sorted[i], b = sorted[next], diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* pandas' groupby quantile of sorted values. */
static double pandas_quantile(const double *sorted, size_t n, double q)
{
    recipe_quantile at = recipe_quantile_of(q, (int64_t)n);
    double low = sorted[at.at];
    return recipe_quantile_value(at, low, at.frac == 0.0 ? low : sorted[at.at + 1]);
}

/* ---- stats.csv: the durations per rank, combined ---------------------- */

typedef struct duration_stats {
    int64_t count, min, max, sum;
    double std, q1, median, q3; /* std NaN for one value */
} duration_stats;

static duration_stats rank_stats(const rank_pace *r)
{
    duration_stats s = {(int64_t)r->n, INT64_MAX, INT64_MIN, 0, NAN, NAN, NAN, NAN};
    double *sorted = xcalloc(r->n ? r->n : 1, sizeof *sorted);
    recipe_welford var = {0};
    for (size_t k = 0; k < r->n; k++) {
        int64_t d = r->end[k] - r->start[k];
        s.min = d < s.min ? d : s.min;
        s.max = d > s.max ? d : s.max;
        s.sum += d;
        recipe_welford_add(&var, (double)d);
        sorted[k] = (double)d;
    }
    s.std = recipe_welford_std(&var);
    qsort(sorted, r->n, sizeof *sorted, by_value);
    if (r->n) {
        s.q1 = pandas_quantile(sorted, r->n, 0.25);
        s.median = pandas_quantile(sorted, r->n, 0.5);
        s.q3 = pandas_quantile(sorted, r->n, 0.75);
    }
    free(sorted);
    return s;
}

/* The job's row: counts and sums added, the mean of the deviations
 * (pandas' Kahan sum), the least Q1, the median of the medians, the
 * greatest Q3; numbers to 0.1. */
static void stats_table(const pace_recipe *p, const char *name, const rank_pace *ranks,
                        size_t n, recipe_outputs *out)
{
    const char *columns[] = {p->name_column, "Count", "Mean", "Std (approx)", "Min",
                             "Q1 (approx)", "Median (approx)", "Q3 (approx)", "Max", "Sum"};
    recipe_table t;
    recipe_table_init(&t, columns, sizeof columns / sizeof *columns);
    int64_t count = 0, sum = 0, min = INT64_MAX, max = INT64_MIN;
    double std_sum = 0, compensation = 0, q1 = INFINITY, q3 = -INFINITY;
    size_t n_std = 0, n_medians = 0;
    bool float_durations = false;
    double *medians = xcalloc(n ? n : 1, sizeof *medians);
    for (size_t i = 0; i < n; i++) {
        if (!ranks[i].n)
            continue;
        duration_stats s = rank_stats(&ranks[i]);
        float_durations = float_durations || ranks[i].float_start || ranks[i].float_end;
        count += s.count;
        sum += s.sum;
        min = s.min < min ? s.min : min;
        max = s.max > max ? s.max : max;
        if (!isnan(s.std)) {
            double y = s.std - compensation, sum_std = std_sum + y;
            compensation = sum_std - std_sum - y;
            std_sum = sum_std;
            n_std++;
        }
        q1 = fmin(q1, s.q1);
        q3 = fmax(q3, s.q3);
        medians[n_medians++] = s.median;
    }
    if (count) {
        qsort(medians, n_medians, sizeof *medians, by_value);
        double median = n_medians % 2 ? medians[n_medians / 2]
                                      : (medians[n_medians / 2 - 1] + medians[n_medians / 2]) / 2;
        recipe_cell *c = recipe_table_add_row(&t);
        recipe_cell_set_text(&c[0], name);
        recipe_cell_set_int(&c[1], count);
        recipe_cell_set_real(&c[2], recipe_round1((double)sum / (double)count));
        if (n_std)
            recipe_cell_set_real(&c[3], recipe_round1(std_sum / (double)n_std));
        else
            recipe_table_promote_column(&t, 3);
        recipe_cell_set_real(&c[5], recipe_round1(q1));
        recipe_cell_set_real(&c[6], recipe_round1(median));
        recipe_cell_set_real(&c[7], recipe_round1(q3));
        /* Float durations (a rank's table with NULL times) keep their
         * minimum, maximum and sum floats. */
        const int64_t whole[] = {min, max, sum};
        const size_t at[] = {4, 8, 9};
        for (size_t k = 0; k < 3; k++) {
            if (float_durations)
                recipe_cell_set_real(&c[at[k]], (double)whole[k]);
            else
                recipe_cell_set_int(&c[at[k]], whole[k]);
        }
    }
    free(medians);
    recipe_outputs_take(out, "stats.csv", &t);
}

/* ---- pace_*.csv: a column per rank ------------------------------------- */

typedef enum quantity { Q_START, Q_END, Q_DURATION_ACCUM, Q_DELTA_ACCUM, Q_DURATION, Q_DELTA,
                        N_QUANTITIES } quantity;
static const char *const QUANTITY_FILE[] = {"pace_start.csv", "pace_end.csv",
                                            "pace_duration_accum.csv", "pace_delta_accum.csv",
                                            "pace_duration.csv", "pace_delta.csv"};

static bool quantity_is_float(const rank_pace *r, quantity q)
{
    return q == Q_START ? r->float_start : q == Q_END ? r->float_end
                                                      : r->float_start || r->float_end;
}

/* A quantity printed as a float. pandas adds the session offset to a
 * start or end column of floats in floats: two roundings once past 2^53
 * (ranks' sessions months apart), where an integer column adds first and
 * converts once. */
static double quantity_as_float(const rank_pace *r, quantity q, size_t k, int64_t value,
                                int64_t offset)
{
    if (q == Q_START && r->float_start)
        return (double)r->start[k] + (double)offset;
    if (q == Q_END && r->float_end)
        return (double)r->end[k] + (double)offset;
    return (double)value;
}

/* Each rank's quantities, iteration by iteration. */
static void rank_quantities(const rank_pace *r, int64_t offset, int64_t *q[N_QUANTITIES])
{
    int64_t duration_accum = 0, delta_accum = 0, previous_end = 0;
    for (size_t k = 0; k < r->n; k++) {
        int64_t duration = r->end[k] - r->start[k], delta = r->start[k] - previous_end;
        previous_end = r->end[k];
        duration_accum += duration;
        delta_accum += delta;
        q[Q_START][k] = r->start[k] + offset;
        q[Q_END][k] = r->end[k] + offset;
        q[Q_DURATION_ACCUM][k] = duration_accum;
        q[Q_DELTA_ACCUM][k] = delta_accum;
        q[Q_DURATION][k] = duration;
        q[Q_DELTA][k] = delta;
    }
}

/* The deltas' statistics at one iteration across ranks, as pandas'
 * Series.agg and DataFrame.quantile compute them (a rank without the
 * iteration is NaN, skipped). */
static void delta_stats_row(const int64_t *const *delta, const rank_pace *ranks, size_t n,
                            size_t k, double *zeroed, double *present, recipe_cell *c)
{
    size_t count = 0;
    bool all = true;
    int64_t isum = 0;
    double min = INFINITY, max = -INFINITY;
    for (size_t r = 0; r < n; r++) {
        if (k < ranks[r].n) {
            double v = (double)delta[r][k];
            zeroed[r] = v;
            present[count++] = v;
            isum += delta[r][k];
            min = fmin(min, v);
            max = fmax(max, v);
        } else {
            zeroed[r] = 0; /* nanops sums NaN as 0 */
            all = false;
        }
    }
    double sum = all ? (double)isum : recipe_numpy_sum(zeroed, n);
    double mean = recipe_numpy_sum(zeroed, n) / (double)count, std = NAN;
    if (count > 1) {
        for (size_t r = 0; r < n; r++)
            zeroed[r] = k < ranks[r].n ? (mean - zeroed[r]) * (mean - zeroed[r]) : 0;
        std = sqrt(recipe_numpy_sum(zeroed, n) / (double)(count - 1));
    }
    qsort(present, count, sizeof *present, by_value);
    double values[] = {(double)count, mean, std, min, numpy_quantile(present, count, 0.25),
                       numpy_quantile(present, count, 0.5), numpy_quantile(present, count, 0.75),
                       max, sum};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        if (!isnan(values[i]))
            recipe_cell_set_real(&c[i], values[i]);
}

static void pace_tables(const rank_pace *ranks, size_t n, recipe_outputs *out)
{
    size_t iterations = 0;
    int64_t min_session = ranks[0].session;
    for (size_t r = 0; r < n; r++) {
        iterations = ranks[r].n > iterations ? ranks[r].n : iterations;
        min_session = ranks[r].session < min_session ? ranks[r].session : min_session;
    }
    int64_t **q[N_QUANTITIES];
    for (int i = 0; i < N_QUANTITIES; i++) {
        q[i] = xcalloc(n, sizeof *q[i]);
        for (size_t r = 0; r < n; r++)
            q[i][r] = xcalloc(ranks[r].n ? ranks[r].n : 1, sizeof *q[i][r]);
    }
    for (size_t r = 0; r < n; r++) {
        int64_t *row[N_QUANTITIES];
        for (int i = 0; i < N_QUANTITIES; i++)
            row[i] = q[i][r];
        rank_quantities(&ranks[r], ranks[r].session - min_session, row);
    }
    char **names = xcalloc(n, sizeof *names);
    for (size_t r = 0; r < n; r++) {
        char number[32];
        snprintf(number, sizeof number, "%zu", r);
        names[r] = xstrdup(number);
    }
    /* The notebook's progress and delta pictures, first. */
    static const struct {
        quantity q;
        const char *file, *title, *y_label;
    } PICTURES[] = {
        {Q_START, "pace_start.svg", "Progress: each iteration's start, per rank", "Start"},
        {Q_DURATION, "pace_duration.svg", "Each iteration's duration, per rank", "Duration"},
        {Q_DELTA, "pace_delta.svg", "Each iteration's delta (gap since the previous end), per rank",
         "Delta"},
    };
    double *points = xcalloc(n * (iterations ? iterations : 1), sizeof *points);
    char **legend = xcalloc(n, sizeof *legend);
    for (size_t r = 0; r < n; r++) {
        buf name = {0};
        buf_printf(&name, "%zu: %s", r, ranks[r].label);
        legend[r] = xstrdup(buf_cstr(&name));
        buf_free(&name);
    }
    /* From the second iteration, as the notebook draws: the first one's
     * delta is its start, out of scale. */
    size_t first = iterations > 1 ? 1 : 0, drawn = iterations - first;
    for (size_t p = 0; p < sizeof PICTURES / sizeof *PICTURES; p++) {
        for (size_t r = 0; r < n; r++)
            for (size_t k = first; k < iterations; k++)
                points[r * drawn + k - first] =
                    k < ranks[r].n ? (double)q[PICTURES[p].q][r][k] : NAN;
        recipe_lines l = {PICTURES[p].title, "Iteration", PICTURES[p].y_label, n, drawn, first,
                          (const char *const *)legend, points};
        buf svg = {0};
        recipe_svg_lines(&svg, &l);
        recipe_outputs_add_text(out, PICTURES[p].file, buf_cstr(&svg));
        buf_free(&svg);
    }
    for (int i = 0; i < N_QUANTITIES; i++) {
        recipe_table t;
        recipe_table_init(&t, (const char *const *)names, n);
        for (size_t k = 0; k < iterations; k++) {
            recipe_cell *c = recipe_table_add_row(&t);
            for (size_t r = 0; r < n; r++) {
                /* A rank with fewer iterations is a float column in pandas
                 * (NaN below its last). */
                if (k >= ranks[r].n)
                    continue;
                if (ranks[r].n < iterations || quantity_is_float(&ranks[r], (quantity)i))
                    recipe_cell_set_real(&c[r], quantity_as_float(&ranks[r], (quantity)i, k,
                                                                  q[i][r][k],
                                                                  ranks[r].session - min_session));
                else
                    recipe_cell_set_int(&c[r], q[i][r][k]);
            }
        }
        recipe_outputs_take(out, QUANTITY_FILE[i], &t);
    }
    static const char *const STATS[] = {"Count", "Mean", "Std", "Min", "Q1",
                                        "Median", "Q3", "Max", "Sum"};
    recipe_table t;
    recipe_table_init(&t, STATS, sizeof STATS / sizeof *STATS);
    double *zeroed = xcalloc(n, sizeof *zeroed), *present = xcalloc(n, sizeof *present);
    for (size_t k = 0; k < iterations; k++)
        delta_stats_row((const int64_t *const *)q[Q_DELTA], ranks, n, k, zeroed, present,
                        recipe_table_add_row(&t));
    for (size_t c = 0; c < t.n_columns; c++)
        recipe_table_promote_column(&t, c);
    recipe_outputs_take(out, "pace_delta_stats.csv", &t);
    free(zeroed);
    free(present);
    for (size_t r = 0; r < n; r++) {
        free(names[r]);
        free(legend[r]);
    }
    free(names);
    free(legend);
    free(points);
    for (int i = 0; i < N_QUANTITIES; i++) {
        for (size_t r = 0; r < n; r++)
            free(q[i][r]);
        free(q[i]);
    }
}

static int by_label(const void *a, const void *b)
{
    const rank_pace *x = a, *y = b;
    int c = strcmp(x->label, y->label);
    return c ? c : (x->report > y->report) - (x->report < y->report);
}

static bool has_name(const recipe_def *recipe, const recipe_job *job, buf *err)
{
    if (job->options && job->options->name)
        return true;
    buf_printf(err, "%s: --name is required (the %s that marks each iteration)", recipe->name,
               recipe->family == &KERNEL_PACE ? "kernel" : "NVTX range");
    return false;
}

/* A rank's partial: its session and column types (one row, with the name
 * it was read for), and its instances in table order. */
static const char *const RANK_COLUMNS[] = {"Name", "Session", "Float start", "Float end"};
static const char *const INSTANCE_COLUMNS[] = {"Start", "End"};

/* Report i's instances, or nothing when it lacks them. */
static int map_pace(const recipe_def *recipe, const recipe_job *job, size_t i,
                    recipe_outputs *partial, buf *err)
{
    if (!has_name(recipe, job, err))
        return NSYSP_ERR_USAGE;
    rank_pace r;
    int status = read_rank(recipe->family, job, i, &r, err);
    if (status == NSYSP_OK && r.n) {
        recipe_table rank, instances;
        recipe_table_init(&rank, RANK_COLUMNS, 4);
        recipe_cell *c = recipe_table_add_row(&rank);
        recipe_cell_set_text(&c[0], job->options->name);
        recipe_cell_set_int(&c[1], r.session);
        recipe_cell_set_int(&c[2], r.float_start);
        recipe_cell_set_int(&c[3], r.float_end);
        recipe_table_init(&instances, INSTANCE_COLUMNS, 2);
        for (size_t k = 0; k < r.n; k++) {
            c = recipe_table_add_row(&instances);
            recipe_cell_set_int(&c[0], r.start[k]);
            recipe_cell_set_int(&c[1], r.end[k]);
        }
        recipe_outputs_take(partial, "rank", &rank);
        recipe_outputs_take(partial, "instances", &instances);
    }
    rank_free(&r);
    return status;
}

/* The rank of a partial, or false (err says why) when it is not one of
 * this recipe's for this --name. */
static bool rank_of_partial(const recipe_job *job, size_t i, const recipe_outputs *partial,
                            rank_pace *r, buf *err)
{
    memset(r, 0, sizeof *r);
    r->label = job->labels[i];
    r->report = i;
    const recipe_table *rank = partial->n == 2 ? &partial->items[0].table : NULL;
    const recipe_table *instances = rank ? &partial->items[1].table : NULL;
    if (!rank || rank->n_columns != 4 || rank->n_rows != 1 || instances->n_columns != 2) {
        buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
        return false;
    }
    const recipe_cell *c = recipe_table_cell(rank, 0, 0);
    bool ints = c[1].kind == RECIPE_INT && c[2].kind == RECIPE_INT && c[3].kind == RECIPE_INT;
    for (size_t k = 0; k < 2 * instances->n_rows && ints; k++)
        ints = instances->cells[k].kind == RECIPE_INT;
    if (!ints) {
        buf_printf(err, "%s: its partial is not one of this recipe's", job->paths[i]);
        return false;
    }
    if (c[0].kind != RECIPE_TEXT || strcmp(c[0].s, job->options->name) != 0) {
        buf_printf(err, "%s: its partial was read for --name '%s', not '%s'", job->paths[i],
                   c[0].kind == RECIPE_TEXT ? c[0].s : "", job->options->name);
        return false;
    }
    r->session = c[1].i;
    r->float_start = c[2].i != 0;
    r->float_end = c[3].i != 0;
    r->n = instances->n_rows;
    r->start = xcalloc(r->n ? r->n : 1, sizeof *r->start);
    r->end = xcalloc(r->n ? r->n : 1, sizeof *r->end);
    for (size_t k = 0; k < r->n; k++) {
        c = recipe_table_cell(instances, k, 0);
        r->start[k] = c[0].i;
        r->end[k] = c[1].i;
    }
    return true;
}

/* The ranks with instances, in file name order, into the tables. */
static int reduce_pace(const recipe_def *recipe, const recipe_job *job,
                       const recipe_outputs *partials, recipe_outputs *out, buf *err)
{
    if (!has_name(recipe, job, err))
        return NSYSP_ERR_USAGE;
    rank_pace *ranks = xcalloc(job->n ? job->n : 1, sizeof *ranks);
    size_t n = 0;
    int status = NSYSP_OK;
    for (size_t i = 0; i < job->n && status == NSYSP_OK; i++) {
        if (partials[i].n == 0)
            continue; /* the report lacks the name */
        if (rank_of_partial(job, i, &partials[i], &ranks[n], err))
            n++;
        else
            status = NSYSP_ERR_INPUT_FORMAT;
    }
    if (status == NSYSP_OK && n == 0) {
        buf_printf(err, "%s: no report has '%s'", recipe->name, job->options->name);
        status = RECIPE_NO_DATA;
    }
    if (status == NSYSP_OK) {
        qsort(ranks, n, sizeof *ranks, by_label);
        pace_tables(ranks, n, out);
        stats_table(recipe->family, job->options->name, ranks, n, out);
        static const char *const FILE_COLUMN[] = {"File"};
        recipe_table files;
        recipe_table_init(&files, FILE_COLUMN, 1);
        for (size_t r = 0; r < n; r++)
            recipe_cell_set_text(recipe_table_add_row(&files), ranks[r].label);
        recipe_outputs_take(out, "files.csv", &files);
    }
    for (size_t r = 0; r < n; r++)
        rank_free(&ranks[r]);
    free(ranks);
    return status;
}

const recipe_def RECIPES_PACE[] = {
    {"cuda_gpu_kern_pace", "Each instance of kernel --name per rank: its start, duration and delta",
     NULL, &KERNEL_PACE, map_pace, reduce_pace},
    {"nvtx_pace", "Each instance of NVTX range --name per rank: its start, duration and delta",
     NULL, &NVTX_PACE, map_pace, reduce_pace},
};
const size_t N_RECIPES_PACE = sizeof RECIPES_PACE / sizeof *RECIPES_PACE;
