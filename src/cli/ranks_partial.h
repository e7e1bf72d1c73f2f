/* ranks' partials: one report's ranks as text (ranks_partial.c), so that
 * reports read on other machines fold as a local run folds them. */
#ifndef NSYSP_CLI_RANKS_PARTIAL_H
#define NSYSP_CLI_RANKS_PARTIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nsys_perfetto.h"

typedef struct ranks_partial {
    char *report;                /* the report's path as the worker read it */
    int64_t window_start, window_end;
    size_t n_bins;
    nsysp_ranks ranks;
} ranks_partial;

/* Writes report's ranks r, measured over the window in n_bins. 0 or -1. */
int ranks_partial_write(FILE *to, const char *report, int64_t window_start, int64_t window_end,
                        size_t n_bins, const nsysp_ranks *r);

/* Reads a partial; 0, or -1 with one line in err. */
int ranks_partial_read(const char *path, ranks_partial *p, char *err, size_t err_size);
void ranks_partial_free(ranks_partial *p);

/* A report's survey (the job's first pass), as `ranks --window-of` prints
 * it for a driver and `ranks --plan` reads it back: its window in UTC on
 * the first line, then what the job's plan needs. 0 or -1. */
int ranks_survey_write(FILE *to, const char *report, const nsysp_ranks_survey *s);

/* Reads a survey; *report is the report's path (free it). 0, or -1 with one
 * line in err. */
int ranks_survey_read(const char *path, char **report, nsysp_ranks_survey *s, char *err,
                      size_t err_size);

#endif
