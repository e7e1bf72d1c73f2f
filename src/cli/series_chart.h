/* series.svg: a line chart of times against the parameter, hand-written
 * SVG (no library needed for lines, ticks and text). */
#ifndef NSYSP_CLI_SERIES_CHART_H
#define NSYSP_CLI_SERIES_CHART_H

#include <stddef.h>
#include <stdio.h>

typedef struct chart_line {
    const char *label;
    const double *y;         /* ns per x position; NAN where there is none */
} chart_line;

/* The x positions are numeric when every name is a number (else evenly
 * spaced); the time axis takes the unit that suits the largest value and
 * is logarithmic when the values span two decades or more. */
void chart_svg(FILE *to, const char *title, const char *x_label, const char *const *x_names,
               size_t n_x, const chart_line *lines, size_t n_lines);

#endif
