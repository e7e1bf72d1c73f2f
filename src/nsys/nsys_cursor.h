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
#include "nsys_perfetto.h" /* NSYSP_MAX_TIME_NS */

/* Integer columns read as this when NULL or absent from the report. */
#define NSYS_NULL INT64_MIN

/* Timestamps of 2^62 ns or more away from 0 cannot be shifted or
 * subtracted without overflow (the sum of two may reach 2^63); no real
 * report comes near (2^62 ns is 146 years): readers leave them out. */
#define NSYS_MAX_TIME NSYSP_MAX_TIME_NS

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

/* The order rows must come in: by column `by` ascending, ties by column
 * `then` (descending with NULL counting highest when then_descending,
 * else ascending with NULL lowest). Rows whose `by` is NULL may come
 * anywhere. A computed order (views, expressions) is given as `sql`
 * instead and always sorted by SQLite. */
typedef struct nsys_order {
    const char *by;
    const char *then;
    bool then_descending;
    const char *sql;
} nsys_order;

#define NSYS_UNORDERED {NULL, NULL, false, NULL}
#define NSYS_ORDER_BY(column) {column, NULL, false, NULL}
/* Slices: by start, the longest first at equal starts (parents before
 * their children; open ends first). */
#define NSYS_ORDER_LONGEST_FIRST {"start", "end", true, NULL}
#define NSYS_ORDER_SQL(sql) {NULL, NULL, false, sql}

typedef struct nsys_table {
    const char *name;
    const nsys_column *columns;
    size_t n_columns;
    nsys_order order;
    /* Fixed SQL fragments (never built from user input). */
    const char *where;      /* e.g. "eventType IN (59, 60)"; NULL for all rows */
} nsys_table;

#define NSYS_COL(row_type, field, column, type) \
    { column, type, offsetof(row_type, field), false }
#define NSYS_COL_REQ(row_type, field, column, type) \
    { column, type, offsetof(row_type, field), true }
#define NSYS_COL_EXPR(row_type, field, type, sql, ...) \
    { #field, type, offsetof(row_type, field), false, sql, { __VA_ARGS__ } }

typedef struct nsys_cursor nsys_cursor;

/* Prepares the query, sorted by the table's order. Returns NSYSP_OK, or an
 * nsysp_status with err set (e.g. a required column is missing). */
int nsys_cursor_open(nsys_db *db, const nsys_table *table, nsys_cursor **out, buf *err);

/* nsys exports mostly store their event tables in time order already, and
 * sorting them costs SQLite more than reading them. Whether the table's
 * order can be checked on rows read as stored (a plain column order). */
bool nsys_table_checkable_order(const nsys_table *table);

/* Like nsys_cursor_open, for a table with a checkable order, but reading
 * the rows as stored (no ORDER BY). Rows of equal `by` are put in tie order
 * in C (held with copies of their texts); nsys_cursor_next returns
 * NSYS_CURSOR_OUT_OF_ORDER where `by` decreases, or where too many rows
 * share one `by` to hold. */
int nsys_cursor_open_stored(nsys_db *db, const nsys_table *table, nsys_cursor **out, buf *err);

#define NSYS_CURSOR_OUT_OF_ORDER (-2)

/* Whether the rows of a table with a checkable order are stored in that
 * order: 1 yes, 0 no, -1 on a read error. Reads the order's `by` column
 * once per report; the answer is remembered. */
int nsys_table_stored_in_order(nsys_db *db, const nsys_table *table);

/* What nsys_table_stored_in_order found so far: 1, 0, or -1 when the table
 * was not looked at. */
int nsys_table_known_order(nsys_db *db, const nsys_table *table);

/* Records that table t is not stored in its order (a cursor read as stored
 * said NSYS_CURSOR_OUT_OF_ORDER), so that it is read sorted from now on. */
void nsys_table_mark_unordered(nsys_db *db, const nsys_table *t);

/* Reads the next row into row. Returns 1 for a row, 0 at the end, -1 on a
 * read error (message in err, status in *status), or
 * NSYS_CURSOR_OUT_OF_ORDER (see nsys_cursor_open_stored). */
int nsys_cursor_next(nsys_cursor *c, void *row, buf *err, int *status);

void nsys_cursor_close(nsys_cursor *c);

#endif
