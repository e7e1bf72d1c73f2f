/* The track builder: where each nsys event lands on the Perfetto timeline.
 *
 * It owns the track tree (GPU groups and their stream rows; processes,
 * threads and their per-source rows) and the slicer that spreads slices
 * over lanes and writes them in time order. Sources call it with nsys ids;
 * it never sees SQLite. The layout mirrors nsys-ui (see docs/design.md):
 *
 *   GPU 0 · NVIDIA H100 80GB HBM3 (0000:1b:00.0)     global group per device
 *     Stream 7                                       one row per stream
 *   python3 1234                                     process
 *     main 1234                                      thread
 *       CUDA API                                     one row per source
 */
#ifndef NSYSP_MODEL_MODEL_H
#define NSYSP_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "../nsys/nsys_meta.h"
#include "slices.h"
#include "tracks.h"

/* The rows of a thread, in the order they appear inside the thread. */
typedef enum thread_row_kind {
    ROW_CUDA_API,            /* "CUDA API" */
    ROW_NVTX,                /* "NVTX", "NVTX · NCCL": push/pop ranges, marks */
    ROW_KINDS
} thread_row_kind;

typedef struct model {
    track_tree tracks;
    slicer slices;
    const nsys_meta *meta;
    hmap rows;               /* row key -> slice_row pointer */
    hmap labels;             /* row label (NVTX domain) -> small id */
    bool label_streams_with_process;
} model;

void model_init(model *m, pw_seq *seq, const nsys_meta *meta);
void model_free(model *m);

/* Every timestamp written is the report's plus shift (>= 0 in the trace). */
void model_set_shift(model *m, int64_t shift);

/* The row of one source on a thread, under its process; label (may be
 * NULL) tells rows of one kind apart, e.g. NVTX domains: "NVTX · NCCL". */
slice_row *model_thread_row(model *m, int64_t global_tid, thread_row_kind kind,
                            const char *label);

/* A process-wide row of ranges that overlap freely or move between threads
 * (NVTX start/end ranges): never nested, every overlap on its own lane. */
slice_row *model_process_row(model *m, int64_t global_pid, const char *name, const char *label);

/* A row of a GPU's group for work projected from the CPU (NVTX ranges
 * projected onto the GPU), one per device and label. */
slice_row *model_gpu_row(model *m, int64_t device, const char *name, const char *label);

/* The row of a CUDA stream inside its GPU's group. Stream ids are unique
 * only within a context of a process, so all four parts form the key. */
slice_row *model_stream_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                            int64_t stream);

/* The row of a stream's CUDA synchronization events, beside the stream;
 * syncs on no stream (event syncs) share one row per context. */
slice_row *model_sync_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                          int64_t stream);

/* The row of whole-graph GPU ranges launched on a stream, beside it: a
 * graph's range covers its kernels, which stay on the stream's row. */
slice_row *model_graph_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                           int64_t stream);

static inline int model_slice(model *m, slice_row *row, int64_t start, int64_t end, pw_event *ev)
{
    return slicer_slice(&m->slices, row, start, end, ev);
}

static inline int model_instant(model *m, slice_row *row, int64_t ts, pw_event *ev)
{
    return slicer_instant(&m->slices, row, ts, ev);
}

/* Writes all pending ENDs; call once after the last event. */
int model_finish(model *m);

#endif
