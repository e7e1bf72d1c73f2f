/* nsys-perfetto ranks: the reports of one distributed job, rank by rank:
 * per-rank figures (the library's nsysp_measure_ranks), the stragglers
 * (who arrives last at each collective, and by how much), heatmaps and an
 * overview trace. ranks.c reads the reports (concurrently) and finds the
 * ranks and stragglers; ranks_output.c writes the table, Markdown, CSV and
 * JSON; ranks_heatmap.c the SVG heatmaps. */
#ifndef NSYSP_CLI_RANKS_H
#define NSYSP_CLI_RANKS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nsys_perfetto.h"
#include "analysis/rank_numbers.h"

const char *rank_rule_text(rank_rule rule);

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

/* argv[0] is "ranks"; returns the exit status. */
int ranks_main(int argc, char **argv, volatile sig_atomic_t *interrupted);

/* ---- ranks_output.c ---- */
typedef enum ranks_format { RANKS_TABLE, RANKS_MD, RANKS_CSV, RANKS_JSON } ranks_format;
void ranks_print(FILE *to, const job *j, ranks_format format);

/* ---- ranks_trace.c ---- */
/* The overview trace: per rank a group with its GPU utilization (binned),
 * its steps and its collectives. Returns an nsysp_status after one line. */
int ranks_write_trace(const char *path, const job *j);

/* ranks --trace OUT --open: serves OUT to the Perfetto UI as --open does,
 * laid out for the job (tool/open_view.h): rank groups expanded, the worst
 * straggler pinned, notes at its ranks' worst arrivals, a stragglers tab.
 * Returns an nsysp_status. */
int ranks_open_trace(const char *path, const job *j, volatile sig_atomic_t *stop);

/* ---- ranks_heatmap.c ---- */
/* Rank x time GPU utilization, and rank x step step time, as SVG. */
void ranks_heatmap_utilization(FILE *to, const job *j);
void ranks_heatmap_steps(FILE *to, const job *j);

#endif
