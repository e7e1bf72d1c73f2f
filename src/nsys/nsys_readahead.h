/* Rows of nsys tables read ahead on other threads.
 *
 * Stepping SQLite and decoding rows is a third of a conversion's work; the
 * model and the packer need the rows only in their order. So a table's
 * cursor can be stepped on a reader thread, with a read-only connection of
 * its own (SQLite serves any number of readers of an immutable file), and
 * its rows handed over in blocks: each block holds whole rows, their texts
 * copied beside them, and each cursor has a ring of a few blocks, so memory
 * stays the same however long the table is.
 *
 * A reader serves several cursors and never waits on one of them: it fills
 * whichever has the fewest blocks ready, and sleeps only when every ring is
 * full. The consumer sees exactly what nsys_cursor_next would give, row for
 * row, error for error, at the same place: the output does not depend on
 * the number of readers or on timing.
 *
 *   nsys_readahead *ra = nsys_readahead_new(db, 3);
 *   nsys_readahead_add(ra, table, as_stored, row_size, &cursor, err);  (each)
 *   nsys_readahead_start(ra);
 *   while (nsys_ahead_next(cursor, row, err, &status) == 1) ...
 *   nsys_readahead_free(ra);
 */
#ifndef NSYSP_NSYS_READAHEAD_H
#define NSYSP_NSYS_READAHEAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "nsys_cursor.h"
#include "nsys_db.h"

typedef struct nsys_readahead nsys_readahead;
typedef struct nsys_ahead nsys_ahead;

/* Up to n_readers reader threads for tables of db's report; each opens its
 * connection when it gets its first cursor, stopped by db's cancel flag. */
nsys_readahead *nsys_readahead_new(nsys_db *db, size_t n_readers);

/* Opens table on the reader with the least work so far (its rows counted
 * roughly), as nsys_cursor_open_stored when as_stored, else sorted; rows
 * are row_size bytes. *out is NULL, with NSYSP_OK, when the table is to be
 * read with nsys_cursor by the caller: it is not in the report's file (a
 * temporary table of db's connection), the readers have started, or no
 * connection of the reader's own could be opened. */
int nsys_readahead_add(nsys_readahead *ra, const nsys_table *table, bool as_stored,
                       size_t row_size, nsys_ahead **out, buf *err);

/* Starts the readers. */
void nsys_readahead_start(nsys_readahead *ra);

/* As nsys_cursor_next; texts stay valid until the next call. */
int nsys_ahead_next(nsys_ahead *c, void *row, buf *err, int *status);

/* Stops the readers (a sort under way is interrupted) and frees all. */
void nsys_readahead_free(nsys_readahead *ra);

/* A table's rows, read here (cursor) or ahead on a reader (ahead). */
typedef struct nsys_rows {
    nsys_cursor *cursor;
    nsys_ahead *ahead;
} nsys_rows;

/* Opens table on a reader of ra when ra is given and the table is in the
 * file, else on db; as nsys_cursor_open_stored when as_stored, else
 * sorted. Before nsys_readahead_start only. */
int nsys_rows_open(nsys_db *db, nsys_readahead *ra, const nsys_table *table, bool as_stored,
                   size_t row_size, nsys_rows *out, buf *err);

/* As nsys_cursor_next. */
static inline int nsys_rows_next(nsys_rows *r, void *row, buf *err, int *status)
{
    return r->ahead ? nsys_ahead_next(r->ahead, row, err, status)
                    : nsys_cursor_next(r->cursor, row, err, status);
}

/* Closes a cursor read here; those read ahead go with their readahead. */
void nsys_rows_close(nsys_rows *r);

/* The number of threads "use the machine" means: the CPUs this process may
 * run on, at most max. */
size_t nsys_readahead_cpus(size_t max);

#endif
