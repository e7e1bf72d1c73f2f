/* The report file: opened read-only, probed once for which tables and
 * columns it has and which schema version wrote it. Nothing here knows
 * about Perfetto. */
#ifndef NSYSP_NSYS_DB_H
#define NSYSP_NSYS_DB_H

#include <signal.h>
#include <stdbool.h>
#include <sqlite3.h>

#include "common/buf.h"

typedef struct nsys_db nsys_db;

/* Which metadata table the exporter wrote (it changed twice). */
typedef enum nsys_meta_form {
    NSYS_META_NONE,              /* 2020-2021 exports */
    NSYS_META_EXPORT_META_DATA,  /* 2022.x */
    NSYS_META_META_DATA_EXPORT,  /* 2023.1 on, with META_DATA_CAPTURE */
} nsys_meta_form;

/* Opens path read-only (immutable: no journal, no locks, no writes) and
 * checks that it is an nsys export. On failure returns NULL with *status set
 * to an nsysp_status and a one-line message naming the file in err. */
nsys_db *nsys_db_open(const char *path, buf *err, int *status);
void nsys_db_close(nsys_db *db);

sqlite3 *nsys_db_sqlite(const nsys_db *db);

/* Makes running queries stop (as NSYSP_ERR_INTERRUPTED) once *cancel is
 * set, e.g. by a signal handler; long pre-passes then end promptly too. */
void nsys_db_set_cancel(nsys_db *db, volatile sig_atomic_t *cancel);
/* The flag given to nsys_db_set_cancel, or NULL. */
volatile sig_atomic_t *nsys_db_cancel_flag(const nsys_db *db);
const char *nsys_db_path(const nsys_db *db);

bool nsys_db_has_table(const nsys_db *db, const char *table);
/* From now on, queries may read only the report's tables named in tables
 * (NULL-terminated; "PREFIX*" names every table that starts so; case as
 * SQLite ignores it), besides SQLite's own and temporary ones: a query
 * that reads another fails to prepare ("access to T.c is prohibited").
 * What a caller declares it reads is then all it can read, so a partial
 * export of those tables serves it as the whole one does. tables must
 * outlive db; NULL lifts the limit. */
void nsys_db_limit_reads(nsys_db *db, const char *const *tables);
/* Makes each of tables (exact names, NULL-terminated) that has no row read
 * as absent (nsys_db_has_table false), as nsys's lazy export (2023.4's
 * default) leaves it out: a report exported with empty tables then answers
 * as the export nsys's own recipes make of it. */
void nsys_db_hide_empty(nsys_db *db, const char *const *tables);
/* Whether table is named in tables, as nsys_db_limit_reads matches. */
bool nsys_table_named(const char *table, const char *const *tables);
/* Calls fn for every table of the report file (not temporary ones). */
void nsys_db_each_table(const nsys_db *db, void (*fn)(void *ctx, const char *table), void *ctx);
/* Runs fixed SQL that creates table (e.g. "temp.gpu_calls") and records
 * it, so cursors may use it. Returns an nsysp_status. */
int nsys_db_create(nsys_db *db, const char *table, const char *sql, buf *err);
/* Copies a table made by nsys_db_create on from ("temp.<name>") into to's
 * temp store, rows and all: for small tables only (a reader's connection
 * needs them to read what the first one reads). Returns an nsysp_status. */
int nsys_db_copy_table(nsys_db *from, nsys_db *to, const char *table, buf *err);
/* A temp table made in parts, each on a connection of its own (so that
 * threads build it together; nsys_links.c): the parts beside db's own. db
 * takes the connections and closes them with itself. One such table per
 * db; setting none (NULL, 0) closes them now. */
void nsys_db_set_table_parts(nsys_db *db, const char *table, nsys_db **parts, size_t n);
/* The connections holding other parts of table (none for a table made
 * whole): how many, into *parts. */
size_t nsys_db_table_parts(const nsys_db *db, const char *table, nsys_db *const **parts);
/* Whether table is one of the report file's (not made by nsys_db_create). */
bool nsys_db_table_in_file(const nsys_db *db, const char *table);
/* Roughly how many rows table has (its largest rowid); 0 when unknown. */
int64_t nsys_db_row_estimate(const nsys_db *db, const char *table);
bool nsys_db_has_column(nsys_db *db, const char *table, const char *column);
/* Whether table has all n columns. */
bool nsys_db_has_columns(nsys_db *db, const char *table, const char *const *columns, size_t n);
/* A value remembered about the report under key (0 until set), so that
 * what one pass learned by reading (a table's order) serves the next. */
uint64_t *nsys_db_fact(nsys_db *db, const void *key, size_t key_len);

nsys_meta_form nsys_db_meta_form(const nsys_db *db);
/* A value of the export metadata table, or NULL. */
const char *nsys_db_meta(const nsys_db *db, const char *key);
/* "3.16.1", or "" when the report does not say. */
const char *nsys_db_schema_version(const nsys_db *db);

/* Sets err to "<path>: <what>: <sqlite message>" and returns the matching
 * nsysp_status for a failed SQLite call. */
int nsys_db_error(const nsys_db *db, int sqlite_rc, const char *what, buf *err);

#endif
