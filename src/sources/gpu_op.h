/* What kernels, memcpys, memsets and synchronizations share: the columns
 * that place them on a stream and link them to the call that launched
 * them, read once here for all four tables. */
#ifndef NSYSP_SOURCES_GPU_OP_H
#define NSYSP_SOURCES_GPU_OP_H

#include "source.h"
#include "nsys/nsys_activity.h"
#include "nsys/nsys_links.h"

typedef struct gpu_op {
    int64_t start;
    int64_t end;
    int64_t device;
    int64_t context;
    int64_t stream;
    int64_t correlation_id;
    int64_t global_pid;
    int64_t hidden;          /* 1 when --min-stream-activity hides the stream */
} gpu_op;

/* The columns of gpu_op, for a row type whose first member is "op". */
#define GPU_OP_COLUMNS(row_type)                                                        \
    NSYS_COL_REQ(row_type, op.start, "start", NSYS_INT),                                \
    NSYS_COL_REQ(row_type, op.end, "end", NSYS_INT),                                    \
    NSYS_COL_REQ(row_type, op.device, "deviceId", NSYS_INT),                            \
    NSYS_COL(row_type, op.context, "contextId", NSYS_INT),                              \
    NSYS_COL_REQ(row_type, op.stream, "streamId", NSYS_INT),                            \
    NSYS_COL(row_type, op.correlation_id, "correlationId", NSYS_INT),                   \
    NSYS_COL(row_type, op.global_pid, "globalPid", NSYS_INT),                           \
    NSYS_COL_EXPR(row_type, op.hidden, NSYS_INT, NSYS_HIDDEN_FROM_GPU, "globalPid",     \
                  "contextId", NSYS_HIDDEN_STREAMS_TABLE)

typedef enum gpu_row {
    GPU_ROW_STREAM,          /* kernels, memcpy, memset */
    GPU_ROW_SYNC,            /* the stream's synchronization row */
    GPU_ROW_GRAPH,           /* the stream's whole-graph row */
} gpu_row;

/* Room for the common args plus a source's own. */
#define GPU_OP_MAX_ARGS 32

/* Checks op; 0 when usable, else SOURCE_SKIPPED(reason). */
int gpu_op_check(const gpu_op *op);

/* Appends the common args (device, context, stream) to args; returns the
 * new count. */
size_t gpu_op_args(const gpu_op *op, pw_arg *args, size_t n);

/* Places op on its row with ev's name and args[0..n) (an array of
 * GPU_OP_MAX_ARGS), adding its flow when a call launched it. The
 * correlation id is appended only when no call written before carries
 * it: the flow leads there. An op's args are then the same for every
 * launch of a kernel, and trace_processor keeps one copy of a repeated
 * arg set (docs/performance.md, "What a trace costs to open").
 * Returns SOURCE_EMITTED or SOURCE_FAILED. */
int gpu_op_emit(conv *c, const gpu_op *op, gpu_row row, pw_event *ev, pw_arg *args, size_t n);

#endif
