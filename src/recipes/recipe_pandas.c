/* pandas' describe() and NVIDIA's aggregate_stats_dfs: see recipe_pandas.h. */
#include "recipes/recipe_pandas.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The running deviation and the compensated means must round step by step
 * as pandas' do: no fused multiply-adds (GCC in ISO C fuses none). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

void recipe_welford_add(recipe_welford *w, double x)
{
    double old = w->mean;
    w->n++;
    w->mean += (x - old) / (double)w->n;
    w->m2 += (x - w->mean) * (x - old);
}

double recipe_welford_std(const recipe_welford *w)
{
    return w->n > 1 ? sqrt(w->m2 / (double)(w->n - 1)) : NAN;
}

recipe_quantile recipe_quantile_of(double q, int64_t n)
{
    double position = q * (double)(n - 1);
    return (recipe_quantile){(int64_t)position, fmod(position, 1.0)};
}

double recipe_quantile_value(recipe_quantile q, double low, double high)
{
    return q.frac == 0.0 ? low : low + (high - low) * q.frac;
}

/* ---- aggregate_stats_dfs ---------------------------------------------- */

static int by_name(size_t a, size_t b, const void *rank)
{
    return strcmp(recipe_table_cell(rank, a, RECIPE_STATS_NAME)->s,
                  recipe_table_cell(rank, b, RECIPE_STATS_NAME)->s);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The smallest or largest cell of column over rows (the first of equals),
 * of its kind. */
static void extreme(const recipe_table *rank, const size_t *rows, size_t n, int column,
                    bool largest, recipe_cell *out)
{
    const recipe_cell *best = recipe_table_cell(rank, rows[0], (size_t)column);
    for (size_t i = 1; i < n; i++) {
        const recipe_cell *c = recipe_table_cell(rank, rows[i], (size_t)column);
        double v = recipe_cell_number(c), b = recipe_cell_number(best);
        if (largest ? v > b : v < b)
            best = c;
    }
    if (best->kind == RECIPE_INT)
        recipe_cell_set_int(out, best->i);
    else
        recipe_cell_set_real(out, recipe_round1(best->r));
}

/* pandas' groupby mean: a compensated (Kahan) sum over the values that
 * are not NaN, in row order, over their count. */
static double kahan_mean(const recipe_table *rank, const size_t *rows, size_t n, int column)
{
    double sum = 0.0, compensation = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        double v = recipe_cell_number(recipe_table_cell(rank, rows[i], (size_t)column));
        if (isnan(v))
            continue;
        double y = v - compensation, t = sum + y;
        compensation = t - sum - y;
        sum = t;
        count++;
    }
    return count ? sum / (double)count : NAN;
}

static double median_of(double *values, size_t n)
{
    qsort(values, n, sizeof *values, by_double);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

/* One name's row from its rows in the reports (in report order). */
static void combine(const recipe_table *rank, const size_t *rows, size_t n, recipe_cell *out)
{
    int64_t count = 0, sum = 0;
    double real_sum = 0.0;
    bool real = recipe_table_cell(rank, rows[0], RECIPE_STATS_SUM)->kind == RECIPE_REAL;
    double *medians = xcalloc(n, sizeof *medians);
    for (size_t i = 0; i < n; i++) {
        const recipe_cell *row = recipe_table_cell(rank, rows[i], 0);
        count += row[RECIPE_STATS_COUNT].i;
        sum += row[RECIPE_STATS_SUM].kind == RECIPE_INT ? row[RECIPE_STATS_SUM].i : 0;
        real_sum += row[RECIPE_STATS_SUM].kind == RECIPE_REAL ? row[RECIPE_STATS_SUM].r : 0.0;
        medians[i] = row[RECIPE_STATS_MEDIAN].r;
    }
    double total = real ? real_sum : (double)sum;
    recipe_cell_set_text(&out[RECIPE_STATS_NAME],
                         recipe_table_cell(rank, rows[0], RECIPE_STATS_NAME)->s);
    recipe_cell_set_int(&out[RECIPE_STATS_COUNT], count);
    recipe_cell_set_real(&out[RECIPE_STATS_MEAN], recipe_round1(total / (double)count));
    recipe_cell_set_real(&out[RECIPE_STATS_STD],
                         recipe_round1(kahan_mean(rank, rows, n, RECIPE_STATS_STD)));
    extreme(rank, rows, n, RECIPE_STATS_MIN, false, &out[RECIPE_STATS_MIN]);
    extreme(rank, rows, n, RECIPE_STATS_Q1, false, &out[RECIPE_STATS_Q1]);
    recipe_cell_set_real(&out[RECIPE_STATS_MEDIAN], recipe_round1(median_of(medians, n)));
    extreme(rank, rows, n, RECIPE_STATS_Q3, true, &out[RECIPE_STATS_Q3]);
    extreme(rank, rows, n, RECIPE_STATS_MAX, true, &out[RECIPE_STATS_MAX]);
    if (real)
        recipe_cell_set_real(&out[RECIPE_STATS_SUM], recipe_round1(total));
    else
        recipe_cell_set_int(&out[RECIPE_STATS_SUM], sum);
    free(medians);
}

void recipe_aggregate_stats(const recipe_table *rank, recipe_table *all)
{
    /* pandas' groupby: names in sorted order, rows in rank order within. */
    size_t *order = recipe_sorted_indexes(rank->n_rows, by_name, rank);
    for (size_t i = 0; i < rank->n_rows;) {
        size_t j = i + 1;
        while (j < rank->n_rows && by_name(order[i], order[j], rank) == 0)
            j++;
        combine(rank, order + i, j - i, recipe_table_add_row(all));
        i = j;
    }
    free(order);
}

double recipe_numpy_sum(const double *a, size_t n)
{
    if (n < 8) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++)
            sum += a[i];
        return sum;
    }
    if (n > 128) {
        size_t half = n / 2;
        half -= half % 8;
        return recipe_numpy_sum(a, half) + recipe_numpy_sum(a + half, n - half);
    }
    double r[8];
    memcpy(r, a, sizeof r);
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
        for (size_t j = 0; j < 8; j++)
            r[j] += a[i + j];
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++)
        sum += a[i];
    return sum;
}
