/* `summary --series DIR`: a series' outputs from reports already there,
 * their values read from the file names or given as labels. */
#ifndef NSYSP_CLI_SERIES_REPORTS_H
#define NSYSP_CLI_SERIES_REPORTS_H

#include <stddef.h>

/* pattern: names like "bs$p" or "bs$p-runN"; labels (n_labels, one per
 * report in natural order) give the values instead when n_labels > 0.
 * Returns the exit status. */
int series_from_reports(const char *dir, const char *pattern, const char *const *labels,
                        size_t n_labels, const char *const *matches, size_t n_matches);

#endif
