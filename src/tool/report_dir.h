/* A directory given as input: the reports in it (.sqlite, .nsys-rep,
 * .qdrep), in natural order. A report exported beside its .sqlite (as
 * `series` leaves them) is listed once, as the .sqlite. */
#ifndef NSYSP_TOOL_REPORT_DIR_H
#define NSYSP_TOOL_REPORT_DIR_H

#include <stdbool.h>
#include <stddef.h>

bool is_directory(const char *path);

/* Fills *paths with n malloc'd "dir/name" paths (free with free_reports).
 * Returns 0, or -1 with errno set when dir cannot be read. */
int list_reports(const char *dir, char ***paths, size_t *n);
void free_reports(char **paths, size_t n);

#endif
