/* One report summarized, whatever its kind: what `summary`, `summary
 * --series` and `series` share. */
#ifndef NSYSP_TOOL_REPORT_SUMMARY_H
#define NSYSP_TOOL_REPORT_SUMMARY_H

#include <stddef.h>

#include "nsys_perfetto.h"

/* Summarizes one report; a .nsys-rep or .qdrep is exported with nsys
 * first (which prints why when it fails, leaving summary->message empty). */
int summarize_report(const char *path, const char *const *matches, size_t n_matches,
                     nsysp_summary *summary);

#endif
