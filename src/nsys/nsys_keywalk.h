/* Lookups by (globalPid, correlationId) in a temporary table keyed by
 * (gpid, corr, ...), made in time order.
 *
 * CUPTI numbers a process's CUDA calls in time order, so the lookups of one
 * process, made as its calls are read in time order, walk the table's key
 * order forward: one cursor per process steps along with them instead of a
 * b-tree descent per lookup. A lookup that goes back seeks. */
#ifndef NSYSP_NSYS_KEYWALK_H
#define NSYSP_NSYS_KEYWALK_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

typedef struct nsys_keywalk nsys_keywalk;

/* Reads the integer columns `columns` (fixed SQL, e.g. "dev, start, n") of
 * table, which has columns gpid and corr leading its key. */
nsys_keywalk *nsys_keywalk_open(nsys_db *db, const char *table, const char *columns,
                                size_t n_columns);
void nsys_keywalk_close(nsys_keywalk *w);

/* The rows of key (gpid, corr), from every part of the table when it was
 * made in parts (nsys_db_set_table_parts; a key may then have rows in
 * several): returns how many (0 when none), their values row after row in
 * *values (valid until the next call; NULL reads as NSYS_NULL), or -1 on a
 * read error (err and *status set). */
int nsys_keywalk_find(nsys_keywalk *w, int64_t gpid, int64_t corr, const int64_t **values,
                      buf *err, int *status);

#endif
