/* .nsys-rep and .qdrep inputs: exported to SQLite with the user's own nsys
 * (on PATH, or named by $NSYS) into a temporary directory first. */
#ifndef NSYSP_TOOL_NSYS_EXPORT_H
#define NSYSP_TOOL_NSYS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "subprocess.h"

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

/* export_nsys_report within limits (NULL: none): nsys export runs as a
 * session of its own (see run_logged), stopped with everything it started
 * after limits->timeout_s (NSYSP_ERR_INPUT_FORMAT, "timed out after ...")
 * or once *limits->cancel is set, which another thread may do
 * (NSYSP_ERR_INTERRUPTED). */
int export_nsys_report_limited(const char *report, char *sqlite, size_t size, char *tmpdir,
                               size_t tmpdir_size, char *err, size_t err_size,
                               const run_limits *limits);

/* export_nsys_report_limited exporting only the tables whose names match
 * patterns (`nsys export --tables`, which nsys 2023.2 and later take; see
 * nsys_exports_tables), or every table when patterns is NULL. */
int export_nsys_tables(const char *report, const char *patterns, char *sqlite, size_t size,
                       char *tmpdir, size_t tmpdir_size, char *err, size_t err_size,
                       const run_limits *limits);

/* Whether this nsys's export takes --tables, as its --help says (asked by
 * running it once: some tens of milliseconds). */
bool nsys_exports_tables(const char *nsys);

/* Exports report to the SQLite file sqlite with nsys, its output appended
 * to log, within limits (NULL: none). Returns 0, or an nsysp_status with
 * the reason in why: NSYSP_ERR_INTERRUPTED when cancelled. */
int export_nsys_report_to(const char *nsys, const char *report, const char *sqlite,
                          const char *log, const run_limits *limits, char *why,
                          size_t why_size);

/* Removes what export_nsys_report created. */
void remove_export(const char *sqlite, const char *tmpdir);

#endif
