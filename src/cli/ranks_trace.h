/* The job's overview trace. */
#ifndef NSYSP_CLI_RANKS_TRACE_H
#define NSYSP_CLI_RANKS_TRACE_H

#include <stdio.h>

#include "ranks_job.h"

/* The overview trace: per rank a group with its GPU utilization (binned),
 * its steps and its collectives. Returns an nsysp_status after one line. */
int ranks_write_trace(const char *path, const job *j);

#endif
