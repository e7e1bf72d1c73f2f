/* A series' outputs, from the summaries of its runs: series.csv (long
 * form, one row per name per run), series.md (names down, values across,
 * mean over runs) and series.svg (the largest GPU-side names against the
 * parameter). */
#ifndef NSYSP_CLI_SERIES_OUTPUT_H
#define NSYSP_CLI_SERIES_OUTPUT_H

#include <stddef.h>

#include "nsys_perfetto.h"

typedef struct series_run {
    size_t value;            /* index into the series' values */
    int run;                 /* 1, 2, ... */
    const nsysp_summary *summary;
} series_run;

typedef struct series {
    const char *parameter;   /* the axis label, e.g. "p" */
    const char *const *values;
    size_t n_values;
    const series_run *runs;  /* the runs that finished */
    size_t n_runs;
} series;

/* Writes the three files into dir; returns 0, or -1 after printing one
 * line naming the file that could not be written. */
int series_write(const char *dir, const series *s);

#endif
