/* A run of `diff` read from a report of any kind: a .nsys-rep is exported
 * with nsys first (tool/nsys_export.h). */
#ifndef NSYSP_TOOL_DIFF_REPORT_H
#define NSYSP_TOOL_DIFF_REPORT_H

#include "analysis/diff_model.h"

/* Reads one report: its summary (names matching any of match) and its
 * measures (focus may be NULL). A .nsys-rep is exported with nsys first,
 * and stays exported until diff_run_free. Returns an nsysp_status after
 * printing one line. The summaries' cancel flag stops it. */
int diff_run_load(diff_run *run, const char *path, const char *const *match, size_t n_match,
                  const char *focus, const char *step);
/* Measures the run again with step as its step (NULL: found). */
int diff_run_measure(diff_run *run, const char *focus, const char *step);
void diff_run_free(diff_run *run);

#endif
