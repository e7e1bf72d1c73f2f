/* The job `ranks` found: its ranks with their figures, and what the
 * stragglers' matching found (ranks.c fills it; the outputs read it). */
#ifndef NSYSP_CLI_RANKS_JOB_H
#define NSYSP_CLI_RANKS_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_perfetto.h"
#include "analysis/rank_numbers.h"

/* One rank of the job: its report's figures, and what the stragglers'
 * matching found of it. */
typedef struct job_rank {
    long rank;
    const char *report;          /* the path given (or found in a directory) */
    int32_t pid;
    int64_t device;
    int64_t span_ns;             /* the job's window */
    int64_t busy_ns, idle_ns, compute_ns, comm_ns, memory_ns, exposed_comm_ns;
    size_t n_steps;
    int64_t *step_ns;            /* in order, for the heatmap */
    int64_t *step_start_utc;     /* with --trace only, else NULL */
    nsysp_collective *collectives; /* with --trace only: its NCCL kernels */
    size_t n_collectives;
    char **collective_names;     /* the names they point to (its report's) */
    size_t n_collective_names;
    int64_t step_p50_ns, step_p90_ns, step_max_ns; /* -1 without steps */
    double *utilization;         /* n_bins of the job's window */
    size_t last_count;           /* collectives (or steps) it arrived last at */
    int64_t late_total_ns, late_max_ns; /* by how much: its arrival - the others' mean */
    int64_t late_max_at;         /* its arrival at the late_max_ns one (ns into the window) */
} job_rank;

typedef struct job {
    job_rank *ranks;             /* by rank */
    size_t n_ranks, n_reports;
    rank_rule rule;
    char step_name[256];         /* "" when no step was found */
    const char *step_rule;       /* how it was found */
    int64_t window_start_utc, window_end_utc;
    size_t n_bins;
    size_t n_matched;            /* collectives matched on every rank (or steps) */
    const char *matched_what;    /* "collectives" or "steps" */
    size_t *stragglers;          /* indexes into ranks, most late first */
    size_t n_stragglers;
} job;

#endif
