/* The tables recipes write, held as pandas holds NVIDIA's: typed cells,
 * a column printed as floats when any of its numbers is one (or missing),
 * and CSV written as pandas' to_csv writes it, so that our files read
 * byte for byte like `nsys recipe --csv`'s. */
#ifndef NSYSP_ANALYSIS_RECIPE_TABLE_H
#define NSYSP_ANALYSIS_RECIPE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef enum recipe_cell_kind {
    RECIPE_NULL = 0, /* NaN in a number column, empty in a text one */
    RECIPE_INT,
    RECIPE_REAL,
    RECIPE_TEXT,
} recipe_cell_kind;

typedef struct recipe_cell {
    recipe_cell_kind kind;
    int64_t i;
    double r;
    char *s; /* owned */
} recipe_cell;

typedef struct recipe_table {
    size_t n_columns;
    char **columns;      /* owned; columns[0] is pandas' index */
    size_t n_rows, capacity;
    recipe_cell *cells;  /* row-major, n_rows * n_columns */
} recipe_table;

void recipe_table_init(recipe_table *t, const char *const *columns, size_t n_columns);
void recipe_table_free(recipe_table *t);
/* Appends copies of from's rows (the same columns). */
void recipe_table_append(recipe_table *t, const recipe_table *from);
/* Appends a row of NULL cells; returns its first cell. */
recipe_cell *recipe_table_add_row(recipe_table *t);
recipe_cell *recipe_table_cell(const recipe_table *t, size_t row, size_t column);
/* The column's index by name, or -1. */
long recipe_table_column(const recipe_table *t, const char *name);

void recipe_cell_set_int(recipe_cell *c, int64_t v);
void recipe_cell_set_real(recipe_cell *c, double v);
void recipe_cell_set_text(recipe_cell *c, const char *s);
/* The cell's number (INT or REAL); NaN for anything else. */
double recipe_cell_number(const recipe_cell *c);

/* Makes every number of the column a REAL when any is or one is missing,
 * as pandas makes a column float64. */
void recipe_table_promote_column(recipe_table *t, size_t column);
/* The indexes 0..n-1 sorted by cmp, stably (a bottom-up merge sort: qsort
 * has neither stability nor a context, and pandas' groupby and multi-column
 * sorts keep equal rows in order); malloc'd. */
size_t *recipe_sorted_indexes(size_t n, int (*cmp)(size_t a, size_t b, const void *ctx),
                              const void *ctx);
/* Sorts rows by cmp, stably. */
void recipe_table_sort(recipe_table *t, int (*cmp)(const recipe_cell *a, const recipe_cell *b,
                                                   const void *ctx),
                       const void *ctx);

/* Sorts rows by one number column as pandas' sort_values(by=column) does:
 * NaN last, and numpy's quicksort (an introsort, not stable), so that rows
 * with equal values come out in the order NVIDIA's come out. */
void recipe_table_sort_like_pandas(recipe_table *t, size_t column, bool ascending);

/* numpy's round(x, 1): x * 10 rounded half to even, over 10. */
double recipe_round1(double x);
/* x as Python's repr() prints a float: the shortest text that reads back as
 * x, "1.0" for whole numbers, exponent form from 1e16 and below 1e-4. */
void recipe_format_real(double x, char *out, size_t size);

/* The table as pandas' DataFrame.to_csv writes it (index first, minimal
 * quoting, "\n" line ends). */
void recipe_table_csv(recipe_table *t, buf *out);

/* Reads CSV text as pandas' read_csv types it: a column of whole numbers
 * is INT, of numbers REAL (an empty cell makes a number column REAL, as
 * NaN does), anything else TEXT with empty cells NULL. Returns 0, or -1
 * with the reason in err. */
int recipe_table_read_csv(recipe_table *t, const char *text, size_t size, buf *err);

#endif
