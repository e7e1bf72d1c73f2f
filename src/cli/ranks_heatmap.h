/* The job's heatmaps, as SVG. */
#ifndef NSYSP_CLI_RANKS_HEATMAP_H
#define NSYSP_CLI_RANKS_HEATMAP_H

#include <stdio.h>

#include "ranks_job.h"

/* Rank x time GPU utilization, and rank x step step time, as SVG. A
 * picture draws at most 65,536 cells: past them each column is the mean of
 * several values (bins or steps), and the caller says so. */
typedef struct heatmap_drawn {
    size_t values, columns;      /* per rank: bins (or steps), and the columns drawn */
} heatmap_drawn;
heatmap_drawn ranks_heatmap_utilization(FILE *to, const job *j);
heatmap_drawn ranks_heatmap_steps(FILE *to, const job *j);

#endif
