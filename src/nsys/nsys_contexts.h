/* Where each CUDA context runs, and which of its streams ran work, as the
 * context's own GPU work shows it.
 *
 * A context lives on one device, yet many exports (nsys 2020.5 to 2026.2)
 * stamp synchronization rows with deviceId 0 whatever device their context
 * uses: a sync row's deviceId cannot place it. One grouped pass over the
 * GPU work tables (kernels, memcpy, memset, graphs; never syncs: waiting is
 * not work) records, in SQLite's temp store:
 *
 *   temp.context_devices(p, c, d)
 *     per (globalPid, contextId), the device its work ran on (the one
 *     most of its streams ran on, should a context ever span devices);
 *
 * and keeps in memory the same map plus the set of streams that ran work:
 * one entry per context and per stream, whatever the report's size. */
#ifndef NSYSP_NSYS_CONTEXTS_H
#define NSYSP_NSYS_CONTEXTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"
#include "common/hmap.h"
#include "common/pairmap.h"

#define NSYS_CONTEXT_DEVICES_TABLE "temp.context_devices"

/* The device of a row of a GPU table "t" (SQL): its context's, else its
 * own deviceId. Only for tables with globalPid and contextId, once
 * temp.context_devices exists. */
#define NSYS_DEVICE_OF_GPU_ROW                                                      \
    "COALESCE((SELECT x.d FROM temp.context_devices x WHERE x.p IS t.globalPid"     \
    " AND x.c IS t.contextId), t.deviceId)"

typedef struct nsys_contexts {
    pairmap devices;         /* (globalPid, contextId) -> device + 1 */
    hmap busy_streams;       /* (globalPid, contextId, streamId) that ran work */
    bool loaded;
} nsys_contexts;

/* Reads the contexts of the given GPU work tables (those that exist with
 * globalPid and contextId). Returns an nsysp_status. */
int nsys_contexts_load(nsys_db *db, const char *const *work_tables, size_t n_tables,
                       nsys_contexts *out, buf *err);
void nsys_contexts_free(nsys_contexts *c);

/* The device of context (global_pid, context), or fallback when it ran no
 * work (or c is NULL). */
int64_t nsys_context_device(const nsys_contexts *c, int64_t global_pid, int64_t context,
                            int64_t fallback);

/* Whether the stream ran any work (true when c is NULL: nothing known). */
bool nsys_stream_ran_work(const nsys_contexts *c, int64_t global_pid, int64_t context,
                          int64_t stream);

#endif
