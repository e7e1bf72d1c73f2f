/* nsys-perfetto ranks: the reports of one distributed job, rank by rank:
 * per-rank figures (the library's nsysp_measure_ranks), the stragglers
 * (who arrives last at each collective, and by how much), heatmaps and an
 * overview trace. ranks.c reads the reports (concurrently) and finds the
 * ranks and stragglers (the job: ranks_job.h); ranks_output.c writes the
 * table, Markdown, CSV and JSON; ranks_heatmap.c the SVG heatmaps;
 * ranks_trace.c the overview trace. */
#ifndef NSYSP_CLI_RANKS_H
#define NSYSP_CLI_RANKS_H

#include <signal.h>

/* argv[0] is "ranks"; returns the exit status. */
int ranks_main(int argc, char **argv, volatile sig_atomic_t *interrupted);

#endif
