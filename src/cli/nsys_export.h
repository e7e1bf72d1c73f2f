/* .nsys-rep and .qdrep inputs: exported to SQLite with the user's own nsys
 * (on PATH, or named by $NSYS) into a temporary directory first. */
#ifndef NSYSP_CLI_NSYS_EXPORT_H
#define NSYSP_CLI_NSYS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether path names an nsys report rather than its SQLite export. */
bool is_nsys_report(const char *path);

/* $NSYS, or "nsys" when it is on PATH; NULL otherwise. */
const char *find_nsys(void);

/* Exports report into a new temporary directory; on success writes the
 * SQLite path into sqlite (size bytes) and the directory into tmpdir, and
 * returns 0. On failure writes one line naming the report into err and
 * returns an nsysp_status. nsys runs by argv, never through a shell. */
int export_nsys_report(const char *report, char *sqlite, size_t size, char *tmpdir,
                       size_t tmpdir_size, char *err, size_t err_size);

/* Exports report to the SQLite file sqlite with nsys, its output appended
 * to log. Returns 0, or an nsysp_status with the reason in why. */
int export_nsys_report_to(const char *nsys, const char *report, const char *sqlite,
                          const char *log, char *why, size_t why_size);

/* Removes what export_nsys_report created. */
void remove_export(const char *sqlite, const char *tmpdir);

#endif
