/* How busy each CUDA stream is: the summed duration of its GPU work, for
 * hiding streams below a share of the report (--min-stream-activity). One
 * grouped pass over the GPU tables; only run when that option is set. */
#ifndef NSYSP_NSYS_ACTIVITY_H
#define NSYSP_NSYS_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

typedef struct nsys_stream_busy {
    int64_t device, global_pid, context, stream;
    int64_t busy_ns;
} nsys_stream_busy;

/* Calls fn for every stream of the given GPU tables (those that exist), and
 * sets *span_ns to the time between the first start and the last end of
 * their work. Returns an nsysp_status. */
int nsys_stream_activity(nsys_db *db, const char *const *tables, size_t n_tables,
                         int64_t *span_ns,
                         void (*fn)(void *ctx, const nsys_stream_busy *busy), void *ctx,
                         buf *err);

#define NSYS_HIDDEN_STREAMS_TABLE "temp.hidden_streams"

/* For a row of a GPU table: 1 when its stream is hidden, else NULL. A
 * stream is known by (process, context, stream): sync rows may carry
 * another deviceId than their stream's work (nsys_contexts.h). */
#define NSYS_HIDDEN_FROM_GPU                                                       \
    "SELECT 1 FROM temp.hidden_streams h WHERE h.p IS t.globalPid"                 \
    " AND h.c IS t.contextId AND h.s IS t.streamId"

/* Records in temp.hidden_streams the streams whose work adds up to less than
 * share (0..1) of span_ns (the report's duration; 0: the span of the GPU
 * work). *hidden counts them. Returns an nsysp_status. */
int nsys_hide_idle_streams(nsys_db *db, const char *const *tables, size_t n_tables,
                           double share, int64_t span_ns, uint64_t *hidden, buf *err);

#endif
