/* Links from CUDA API calls to the GPU work they launched.
 *
 * Correlation ids are unique only within a process, so a call and its GPU
 * operations match on (globalPid, correlationId). A flow must be written on
 * the call's slice when the call is written, before its GPU work is read,
 * so how many operations each call launched is counted up front, in one
 * pass over the GPU tables, into a temporary table (in SQLite's temp store,
 * on disk, so memory stays flat):
 *
 *   temp.flow_links(gpid, corr, n)   keyed by (gpid, corr)
 *
 * Calls then read their n in time order, walking the table's key order
 * (nsys_keywalk.h). */
#ifndef NSYSP_NSYS_LINKS_H
#define NSYSP_NSYS_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

#define NSYS_LINKS_TABLE "temp.flow_links"

/* What the filters leave out, so that it gets no flow either. */
typedef struct nsys_link_filter {
    int64_t only_device;     /* -1: all devices */
    int64_t start, end;      /* rows starting in [start, end] only */
} nsys_link_filter;

/* Builds the table from the GPU tables that exist and have globalPid and
 * correlationId. Does nothing when there is nothing to link. */
int nsys_links_build(nsys_db *db, const char *const *gpu_tables, size_t n_gpu_tables,
                     const nsys_link_filter *filter, buf *err);

typedef struct nsys_links nsys_links;

/* A reader of the table; NULL when there is no table. */
nsys_links *nsys_links_open(nsys_db *db);
void nsys_links_close(nsys_links *l);

/* How many GPU operations the call (gpid, corr) launched: 0 when none, -1
 * on a read error (err and *status set). */
int64_t nsys_links_ops_of_call(nsys_links *l, int64_t gpid, int64_t corr, buf *err,
                               int *status);

#endif
