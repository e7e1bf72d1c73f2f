/* What the summary's entry points share inside the library. */
#ifndef NSYSP_ANALYSIS_SUMMARY_H
#define NSYSP_ANALYSIS_SUMMARY_H

#include <signal.h>
#include <stdbool.h>

/* The process's cancel flag for summaries and measures
 * (nsysp_summary_set_cancel), or NULL. */
volatile sig_atomic_t *summary_cancel_flag(void);

/* Whether NVTX ranges are grouped by their whole text
 * (nsysp_summary_set_raw_names), not PyTorch ops by their op. */
bool summary_names_raw(void);

#endif
