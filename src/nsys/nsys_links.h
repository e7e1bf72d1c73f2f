/* GPU work per CUDA API call: the links of the flows and the input of the
 * NVTX projection onto the GPU.
 *
 * Correlation ids are unique only within a process, so a call and its GPU
 * operations match on (globalPid, correlationId). A flow must be written on
 * the call's slice when the call is written, before its GPU work is read,
 * so the work of each call is counted up front, in one pass over the GPU
 * tables, into a temporary table (in SQLite's temp store, on disk, so
 * memory stays flat):
 *
 *   temp.gpu_calls(gpid, corr, dev, start, end, work, linked, first)
 *     keyed by (gpid, corr, dev); dev -1 when the row has none.
 *
 * `linked` counts the operations that get a flow (the filters leave some
 * out) and `first` is the earliest start among them; `work` counts those
 * the NVTX projection covers, and start/end are their first start and last
 * end (NULL when work is 0).
 *
 * Calls then read their counts in time order, walking the table's key
 * order (nsys_keywalk.h).
 *
 * GPU work may start before its call (clock skew between CPU and GPU
 * timestamps; a context sync stamped before the cudaDeviceReset it belongs
 * to). Its operation is written first and must already carry the flow, so
 * once a call finds work that started before it (`first`), the conversion
 * starts again with a second table, made only then because it reads every
 * call:
 *
 *   temp.early_calls(gpid, corr, ops, call_start)
 *     the calls whose linked work starts before them. */
#ifndef NSYSP_NSYS_LINKS_H
#define NSYSP_NSYS_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

#define NSYS_GPU_CALLS_TABLE "temp.gpu_calls"
#define NSYS_EARLY_CALLS_TABLE "temp.early_calls"

/* What the filters leave out of the flows. */
typedef struct nsys_link_filter {
    int64_t only_device;     /* -1: all devices */
    int64_t start, end;      /* rows starting in [start, end] only */
} nsys_link_filter;

/* The tables to count, by what they are counted for; a table may be in
 * both lists. Tables without globalPid and correlationId are passed over. */
typedef struct nsys_gpu_tables {
    const char *const *linked;   /* GPU work and synchronization, for flows */
    size_t n_linked;
    const char *const *work;     /* GPU work, for the NVTX projection */
    size_t n_work;
    nsys_link_filter filter;     /* applies to `linked` */
} nsys_gpu_tables;

/* Builds the table; does nothing when there is nothing to count. With
 * threads > 1 and rows enough, the table is built in parts, each over a
 * share of every table's rowids, on threads and connections of their own
 * (nsys_db_set_table_parts); a key may then have rows in several parts,
 * which the readers below add up. */
int nsys_links_build(nsys_db *db, const nsys_gpu_tables *tables, size_t threads, buf *err);

typedef struct nsys_links nsys_links;

/* A reader of the table; NULL when there is no table. */
nsys_links *nsys_links_open(nsys_db *db);
void nsys_links_close(nsys_links *l);

/* How many GPU operations the call (gpid, corr) launched: 0 when none, -1
 * on a read error (err and *status set). *first is the earliest start of
 * those operations (NSYS_NULL when none). */
int64_t nsys_links_ops_of_call(nsys_links *l, int64_t gpid, int64_t corr, int64_t *first,
                               buf *err, int *status);

/* Builds temp.early_calls from api_table (the CUDA API table), with the
 * calls the filter keeps; does nothing when it exists already. The parts
 * of temp.gpu_calls are first merged into db's (this SQL reads it whole). */
int nsys_links_build_early(nsys_db *db, const char *api_table, const nsys_link_filter *filter,
                           buf *err);

/* Whether the reader has the early calls' table. */
bool nsys_links_has_early(const nsys_links *l);

/* When the call (gpid, corr) starts after some of its GPU work: its number
 * of operations, and its start in *call_start; else 0. -1 on a read error. */
int64_t nsys_links_early_call(nsys_links *l, int64_t gpid, int64_t corr, int64_t *call_start,
                              buf *err, int *status);

#endif
