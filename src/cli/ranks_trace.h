/* The job's overview trace. */
#ifndef NSYSP_CLI_RANKS_TRACE_H
#define NSYSP_CLI_RANKS_TRACE_H

#include <signal.h>
#include <stdio.h>

#include "ranks_job.h"

/* The overview trace: per rank a group with its GPU utilization (binned),
 * its steps and its collectives. Returns an nsysp_status after one line. */
int ranks_write_trace(const char *path, const job *j);

/* ranks --trace OUT --open: serves OUT to the Perfetto UI as --open does,
 * laid out for the job (tool/open_view.h): rank groups expanded, the worst
 * straggler pinned, notes at its ranks' worst arrivals, a stragglers tab.
 * Returns an nsysp_status. */
int ranks_open_trace(const char *path, const job *j, volatile sig_atomic_t *stop);

#endif
