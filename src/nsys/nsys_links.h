/* Links from CUDA API calls to the GPU work they launched.
 *
 * Correlation ids are unique only within a process, so a call and its GPU
 * operations match on (globalPid, correlationId). A flow must be written on
 * the call's slice when the call is written, before its GPU work is read,
 * so the matches are found up front: a temporary table (in SQLite's temp
 * store, on disk, so memory stays flat) holds, per call that launched GPU
 * work, how many GPU operations it launched.
 *
 *   temp.flow_links(gpid, corr, n)
 *
 * Sources read n through NSYS_LINK_* column expressions. */
#ifndef NSYSP_NSYS_LINKS_H
#define NSYSP_NSYS_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

#define NSYS_LINKS_TABLE "temp.flow_links"

/* For a row of the API table: how many GPU operations it launched. */
#define NSYS_LINK_FROM_CALL                                                          \
    "SELECT n FROM temp.flow_links l WHERE l.gpid = t.globalTid - (t.globalTid & 16777215)" \
    " AND l.corr = t.correlationId"
/* For a row of a GPU table: how many GPU operations its call launched
 * (NULL when no call launched it). */
#define NSYS_LINK_FROM_GPU \
    "SELECT n FROM temp.flow_links l WHERE l.gpid = t.globalPid AND l.corr = t.correlationId"

/* What the filters leave out, so that it gets no flow either. */
typedef struct nsys_link_filter {
    int64_t only_device;     /* -1: all devices */
    int64_t start, end;      /* rows starting in [start, end] only */
} nsys_link_filter;

/* Builds the table from the API table and the GPU tables that exist and have
 * globalPid and correlationId. Does nothing when there is nothing to link. */
int nsys_links_build(nsys_db *db, const char *api_table, const char *const *gpu_tables,
                     size_t n_gpu_tables, const nsys_link_filter *filter, buf *err);

#endif
