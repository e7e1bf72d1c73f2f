/* Streaming rows of an nsys table into C structs.
 *
 * A table is described once as a list of columns, each saying where its
 * value lands in the row struct; the cursor builds the SELECT from the
 * columns the report actually has (absent optional ones read as NULL) and
 * fills rows generically. No per-table query code. */
#ifndef NSYSP_NSYS_CURSOR_H
#define NSYSP_NSYS_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

/* Integer columns read as this when NULL or absent from the report. */
#define NSYS_NULL INT64_MIN

typedef enum nsys_type {
    NSYS_INT,    /* int64_t field; NSYS_NULL unless the value is a number */
    NSYS_TEXT,   /* const char * field; valid until the next row */
    NSYS_REAL,   /* double field; NaN when NULL */
} nsys_type;

typedef struct nsys_column {
    const char *name;       /* column of the nsys table */
    nsys_type type;
    size_t offset;          /* of the field in the row struct */
    bool required;          /* the table is unusable without it */
    /* A value computed by fixed SQL instead of read from column name; the
     * row's table is aliased "t". It reads as NULL unless every entry of
     * needs (columns of the table, or "temp.<table>") exists. */
    const char *expr;
    const char *needs[3];
} nsys_column;

typedef struct nsys_table {
    const char *name;
    const nsys_column *columns;
    size_t n_columns;
    /* Fixed SQL fragments (never built from user input). */
    const char *order_by;   /* e.g. "start, \"end\" DESC"; NULL for none */
    const char *where;      /* e.g. "eventType IN (59, 60)"; NULL for all rows */
    const char *group_by;   /* rows of a group read as one (aggregate exprs) */
} nsys_table;

#define NSYS_COL(row_type, field, column, type) \
    { column, type, offsetof(row_type, field), false }
#define NSYS_COL_REQ(row_type, field, column, type) \
    { column, type, offsetof(row_type, field), true }
#define NSYS_COL_EXPR(row_type, field, type, sql, ...) \
    { #field, type, offsetof(row_type, field), false, sql, { __VA_ARGS__ } }

typedef struct nsys_cursor nsys_cursor;

/* Prepares the query. Returns NSYSP_OK, or an nsysp_status with err set
 * (e.g. a required column is missing). */
int nsys_cursor_open(nsys_db *db, const nsys_table *table, nsys_cursor **out, buf *err);

/* Reads the next row into row. Returns 1 for a row, 0 at the end, or -1
 * on a read error (message in err, status in *status). */
int nsys_cursor_next(nsys_cursor *c, void *row, buf *err, int *status);

void nsys_cursor_close(nsys_cursor *c);

#endif
