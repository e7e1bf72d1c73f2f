/* The job as a table, Markdown, CSV or JSON. */
#ifndef NSYSP_CLI_RANKS_OUTPUT_H
#define NSYSP_CLI_RANKS_OUTPUT_H

#include <stdio.h>

#include "ranks_job.h"

typedef enum ranks_format { RANKS_TABLE, RANKS_MD, RANKS_CSV, RANKS_JSON } ranks_format;
void ranks_print(FILE *to, const job *j, ranks_format format);

#endif
