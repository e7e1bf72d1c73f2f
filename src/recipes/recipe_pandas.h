/* pandas' arithmetic for durations described per name: describe()'s
 * running deviation and linear quantiles, and NVIDIA's aggregate_stats_dfs
 * (nsys_recipe/lib/summary.py) combining the reports' rows per name. The
 * describe recipes (nvtx_sum, mpi_sum, nccl_sum), the NVTX projection
 * recipes and the pace recipes compute them here, once, rounding step by
 * step as pandas does, so their last digits agree with nsys's. */
#ifndef NSYSP_RECIPE_PANDAS_H
#define NSYSP_RECIPE_PANDAS_H

#include <stddef.h>
#include <stdint.h>

#include "recipes/recipe_table.h"

/* The running variance of pandas' groupby var: Welford's, values added in
 * pandas' row order (the last digits depend on it). */
typedef struct recipe_welford {
    int64_t n;
    double mean, m2;
} recipe_welford;

void recipe_welford_add(recipe_welford *w, double x);
/* The sample deviation (ddof 1); NaN below two values. */
double recipe_welford_std(const recipe_welford *w);

/* Where pandas' linear quantile q of n sorted values lies: between the
 * values at positions at and at + 1, frac of the way. */
typedef struct recipe_quantile {
    int64_t at;
    double frac;
} recipe_quantile;

recipe_quantile recipe_quantile_of(double q, int64_t n);
/* The quantile from the values at q.at (low) and q.at + 1 (high, unread
 * when frac is 0: it may lie past the last value). */
double recipe_quantile_value(recipe_quantile q, double low, double high);

/* numpy's sum of n doubles: sequential below 8 values, then eight running
 * sums per block of 128, halves beyond (its last digits follow). */
double recipe_numpy_sum(const double *a, size_t n);

/* The first columns of a table of statistics per name, per report
 * (describe()'s, as format_columns orders them) and for the job. */
enum { RECIPE_STATS_NAME, RECIPE_STATS_COUNT, RECIPE_STATS_MEAN, RECIPE_STATS_STD,
       RECIPE_STATS_MIN, RECIPE_STATS_Q1, RECIPE_STATS_MEDIAN, RECIPE_STATS_Q3,
       RECIPE_STATS_MAX, RECIPE_STATS_SUM, RECIPE_N_STATS_COLUMNS };

/* aggregate_stats_dfs: a row per name of rank (the reports' rows, in
 * report order) appended to all, names in sorted order: counts and sums
 * added, the mean of the deviations (pandas' compensated mean), the least
 * Min and Q1, the median of the medians, the greatest Q3 and Max; every
 * float rounded to 0.1. A number column keeps rank's kind (int or float). */
void recipe_aggregate_stats(const recipe_table *rank, recipe_table *all);

#endif
