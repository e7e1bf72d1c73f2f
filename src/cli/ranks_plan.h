/* ranks: the job's plan, made before any rank is measured, the same way
 * by a local run and by a driver (ranks --plan, tools/ranks_dask.py): the
 * job's clock (reports without a UTC session start are named and aligned),
 * its window, and its one step. */
#ifndef NSYSP_CLI_RANKS_PLAN_H
#define NSYSP_CLI_RANKS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_perfetto.h"

typedef struct ranks_plan {
    int64_t window_start_utc, window_end_utc; /* the reports' GPU work on the job's clock */
    int64_t unknown_clock_utc;   /* the session start of a report without a UTC one */
    char step[256];              /* the job's step ("" none) */
    nsysp_step_rule step_rule;   /* how it was chosen */
} ranks_plan;

/* The plan from the reports' surveys (paths[i] is survey i's report, in the
 * reports' order); given_step is --step (NULL: found). What a user should
 * know (reports without a UTC session start, reports whose own step is
 * another) goes to stderr, one line each. */
void ranks_plan_make(const nsysp_ranks_survey *surveys, char *const *paths, size_t n,
                     const char *given_step, ranks_plan *plan);

#endif
