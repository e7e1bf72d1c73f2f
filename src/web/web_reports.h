/* The reports a server converted, kept on disk in --dir: one directory per
 * report, named by a server-made id (never by anything a client sent):
 *   DIR/ID/upload.part            while the upload streams in
 *   DIR/ID/input.sqlite|.nsys-rep|.qdrep   the report, until converted
 *   DIR/ID/name                   the client's file name, only ever shown
 *   DIR/ID/trace.perfetto-trace   the trace
 *   DIR/ID/result.json            summary, accounting, or the error
 *   DIR/ID/summary.tsv            the whole summary, for comparisons
 *   DIR/ID/error                  the one-line error of a failed conversion
 *   DIR/ID/.nsys-perfetto-report  made first: the server's mark on what is its own
 *   DIR/.nsys-perfetto-serve.lock held by the server using DIR (one per DIR)
 * The server removes nothing but these files, in directories it marked: a
 * user's files in DIR are never its business. */
#ifndef NSYSP_WEB_REPORTS_H
#define NSYSP_WEB_REPORTS_H

#include <stdbool.h>
#include <stddef.h>

enum { REPORT_ID_LEN = 16 };

#define REPORT_UPLOAD "upload.part"
#define REPORT_NAME "name"
#define REPORT_TRACE "trace.perfetto-trace"
#define REPORT_RESULT "result.json"
#define REPORT_SUMMARY "summary.tsv"
#define REPORT_ERROR "error"
#define REPORT_ENGINE "engine_bytes"  /* the trace's estimated cost to open (open_big.h) */
#define REPORT_MARK ".nsys-perfetto-report"
#define REPORTS_LOCK ".nsys-perfetto-serve.lock"

/* Whether id has the form of a server-made id (16 lowercase hex digits). */
bool report_id_valid(const char *id);

/* Takes DIR's lock for this process's life; 0, or -1 with the reason in
 * why (another server holds it: its pid). Touches nothing else. */
int reports_lock(const char *dir, char *why, size_t why_size);

/* Creates DIR/ID, marked, for a new report with a fresh random id; 0 or -1. */
int report_create(const char *dir, char id[REPORT_ID_LEN + 1]);

/* DIR/ID/FILE into out; 0, or -1 when it does not fit. */
int report_path(char *out, size_t size, const char *dir, const char *id, const char *file);

/* Whether DIR/ID/FILE exists. */
bool report_has(const char *dir, const char *id, const char *file);

/* Writes text into DIR/ID/FILE through a temporary file and a rename, so
 * readers never see half of it; 0 or -1. */
int report_write(const char *dir, const char *id, const char *file, const char *text,
                 size_t len);

/* Reads DIR/ID/FILE (at most size - 1 bytes, NUL-terminated); 0 or -1. */
int report_read(const char *dir, const char *id, const char *file, char *out, size_t size);

/* Removes the report's files and its directory; 0, or -1 when it is not
 * there (or not the server's). Of two removals racing, one wins and
 * the other finds nothing: the directory is first renamed away. */
int report_remove(const char *dir, const char *id);

/* At start-up: removes reports left unfinished by a server that was killed
 * (no result) and removals it left half done; returns how many. */
int reports_remove_unfinished(const char *dir);

/* The input file name for a client's file name: input.nsys-rep and
 * input.qdrep keep what nsys needs to see, anything else is input.sqlite. */
const char *report_input_file(const char *client_name);

#endif
