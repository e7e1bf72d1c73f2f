/* Reports given as input: a directory's reports (.sqlite, .nsys-rep, .qdrep)
 * in natural order, a report exported beside its .sqlite (as `series` leaves
 * them) listed once, as the .sqlite; and every report counted once however
 * it is named (the same file twice, a link to it, a directory and a report
 * in it), so that no copy of a rank counts as another rank. */
#ifndef NSYSP_TOOL_REPORT_DIR_H
#define NSYSP_TOOL_REPORT_DIR_H

#include <stdbool.h>
#include <stddef.h>

bool is_directory(const char *path);

/* Fills *paths with n malloc'd "dir/name" paths (free with free_reports),
 * each file once (keep_each_report_once; notes begin with who). Returns 0,
 * or -1 with errno set when dir cannot be read. */
int list_reports(const char *who, const char *dir, char ***paths, size_t *n);
void free_reports(char **paths, size_t n);

/* The reports of args: a directory's as list_reports gives them, any other
 * path as given; each file once. NSYSP_OK, or NSYSP_ERR_INPUT_OPEN after
 * saying on stderr (after who) which directory cannot be listed or has no
 * reports. */
int expand_reports(const char *who, char *const *args, size_t n_args, char ***paths,
                   size_t *n);

/* Keeps the first path to each file (device and inode) among paths[0..n),
 * in order, and moves the others after them, each named on stderr (after
 * who) with the path it repeats. Returns how many are kept. A path that
 * cannot be stat'ed is kept: reading it will say why. */
size_t keep_each_report_once(const char *who, char **paths, size_t n);

#endif
