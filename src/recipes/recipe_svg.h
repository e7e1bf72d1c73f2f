/* The pictures the recipes' notebooks draw, as plain SVG text: a heatmap
 * of values over time bins, and lines of values over iterations. */
#ifndef NSYSP_ANALYSIS_RECIPE_SVG_H
#define NSYSP_ANALYSIS_RECIPE_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Rows x bins of values from 0 to max (NaN drawn grey, what empty_label
 * says); bin i starts at i * bin_ns. The title gets the bins' count and
 * size appended. */
typedef struct recipe_heatmap {
    const char *title, *row_label, *value_label, *empty_label;
    size_t n_rows, n_bins;
    const char *const *row_names;
    const double *values; /* row-major */
    int64_t bin_ns;
    double max;
} recipe_heatmap;
void recipe_svg_heatmap(buf *out, const recipe_heatmap *h);

/* A line per series over points first_x..first_x + n_points - 1 (NaN: no
 * point), values in nanoseconds. */
typedef struct recipe_lines {
    const char *title, *x_label, *y_label;
    size_t n_series, n_points, first_x;
    const char *const *series_names;
    const double *values; /* series-major */
} recipe_lines;
void recipe_svg_lines(buf *out, const recipe_lines *l);

#endif
