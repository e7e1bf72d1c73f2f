/* nsys-perfetto ranks --trace: the job's overview trace, written by the
 * library (nsysp_write_overview) from the ranks read. */
#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "ranks_trace.h"
#include "tool/text_out.h"

int ranks_write_trace(const char *path, const job *j)
{
    nsysp_overview_rank *ranks = xcalloc(j->n_ranks, sizeof *ranks);
    char (*labels)[64] = xcalloc(j->n_ranks, sizeof *labels);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        snprintf(labels[i], sizeof labels[i], "rank %ld", r->rank);
        ranks[i] = (nsysp_overview_rank){
            .label = labels[i], .utilization = r->utilization, .n_bins = j->n_bins,
            .step_start_utc = r->step_start_utc, .step_ns = r->step_ns,
            .n_steps = r->step_start_utc ? r->n_steps : 0, .collectives = r->collectives,
            .n_collectives = r->n_collectives};
    }
    nsysp_overview ov = {.ranks = ranks, .n_ranks = j->n_ranks,
                         .window_start_utc = j->window_start_utc,
                         .window_end_utc = j->window_end_utc, .n_bins = j->n_bins,
                         .step_name = j->step_name};
    char message[512];
    nsysp_status status = nsysp_write_overview(path, &ov, message);
    if (status != NSYSP_OK)
        text_printf(stderr, "nsys-perfetto ranks: %s\n", message);
    else
        text_printf(stderr, "nsys-perfetto ranks: wrote %s\n", path);
    free(ranks);
    free(labels);
    return status;
}
