/* The track builder: where each nsys event lands on the Perfetto timeline.
 *
 * It owns the track tree (GPU groups and their stream rows; processes,
 * threads and their per-source rows) and the slicer that spreads slices
 * over lanes and writes them in time order. Sources call it with nsys ids;
 * it never sees SQLite. The layout mirrors nsys-ui (see docs/design.md):
 *
 *   GPU 0 · NVIDIA H100 80GB HBM3 (0000:1b:00.0)     global group per device
 *     Stream 7                                       one row per stream
 *     Stream 7 sync                                  its synchronization
 *     Synchronization                                syncs on no busy stream
 *     NVTX                                           ranges projected here
 *     Memory in use                                  counters
 *     GPU metrics                                    nested group of counters
 *   python3 1234                                     process
 *     main 1234                                      thread
 *       CUDA API                                     one row per source
 */
#ifndef NSYSP_MODEL_MODEL_H
#define NSYSP_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "nsys/nsys_contexts.h"
#include "nsys/nsys_meta.h"
#include "slices.h"
#include "tracks.h"

/* The rows of a thread, in the order they appear inside the thread. */
typedef enum thread_row_kind {
    ROW_CUDA_API,            /* "CUDA API" */
    ROW_NVTX,                /* "NVTX", "NVTX · NCCL": push/pop ranges, marks */
    ROW_OSRT,                /* "OS runtime" */
    ROW_CUBLAS,              /* "cuBLAS" */
    ROW_CUDNN,               /* "cuDNN" */
    ROW_MPI,                 /* "MPI" */
    ROW_OPENACC,             /* "OpenACC" */
    ROW_OPENMP,              /* "OpenMP" */
    ROW_KINDS
} thread_row_kind;

typedef struct cpu_state cpu_state;
struct gpu_utilization;

typedef struct model {
    track_tree tracks;
    slicer slices;
    const nsys_meta *meta;
    const nsys_contexts *contexts; /* places GPU rows by their context */
    hmap rows;               /* row key -> slice_row pointer */
    hmap labels;             /* row label (NVTX domain) -> small id */
    bool label_streams_with_process;
    cpu_state *cpus;         /* scheduling state per CPU (cpu.c) */
    size_t n_cpus;
    uint64_t cpu_switches;   /* sched_switch events written */
    uint64_t cpu_samples;    /* perf samples written */
    int64_t only_device;     /* --gpu: other devices hidden; -1 for all */
    int32_t id_base;         /* added to pids and tids of merged reports */
    char *report_label;      /* merged reports: "· host" in process/GPU names */
    int32_t only_pid;        /* --pid: other processes hidden; 0 for all */
    struct gpu_utilization *utilization; /* busy stretches per device (gpu_utilization.h) */
} model;

/* contexts may be NULL: rows then go by their own deviceId. model_init and
 * model_free (lifecycle.c) set up and free the whole model; the _core pair
 * (model.c) only the tracks and rows, which the CPU rows (cpu.c) and the
 * utilization counters (gpu_utilization.c) build on. */
void model_init(model *m, pw_seq *seq, const nsys_meta *meta, const nsys_contexts *contexts);
void model_free(model *m);
void model_init_core(model *m, pw_seq *seq, const nsys_meta *meta, const nsys_contexts *contexts);
void model_free_core(model *m);

/* Hides the rows of other devices (device >= 0) and of other processes
 * (pid > 0): their events are dropped and counted as filtered. */
void model_set_filters(model *m, int64_t device, int32_t pid);

/* For the index-th of several merged reports: its pids and tids move to
 * their own range (index << 22; Linux pids stay below 2^22) and its
 * processes and GPUs are named with label. */
void model_set_report(model *m, int32_t index, const char *label);

/* The pid and tid written for an nsys global id. */
int32_t model_pid(const model *m, int64_t global_id);
int32_t model_tid(const model *m, int64_t global_tid);

/* Every timestamp written is the report's plus shift (>= 0 in the trace). */
void model_set_shift(model *m, int64_t shift);

/* The row of one source on a thread, under its process; label (may be
 * NULL) tells rows of one kind apart, e.g. NVTX domains: "NVTX · NCCL". */
slice_row *model_thread_row(model *m, int64_t global_tid, thread_row_kind kind,
                            const char *label);

/* A process-wide row of ranges that overlap freely or move between threads
 * (NVTX start/end ranges): never nested, every overlap on its own lane. */
slice_row *model_process_row(model *m, int64_t global_pid, const char *name, const char *label);

/* Where rows and counters beyond the streams sit in a GPU's group, in
 * this order after the streams. */
typedef enum gpu_place {
    GPU_PLACE_NVTX,          /* NVTX ranges projected onto the GPU */
    GPU_PLACE_PAGE_FAULTS,   /* unified-memory faults on the GPU */
    GPU_PLACE_MEMORY,        /* "Memory in use", device then processes */
    GPU_PLACE_METRICS,       /* in the nested "GPU metrics" group */
    GPU_PLACE_UTILIZATION,   /* "GPU utilization": first in the group, above the
                                streams, as nsys-ui's CUDA HW row (gpu_utilization.h) */
} gpu_place;

/* A row of a GPU's group for work that is not a stream's (NVTX ranges
 * projected onto the GPU, page faults), one per device, name and label. */
slice_row *model_gpu_row(model *m, int64_t device, gpu_place place, const char *name,
                         const char *label);

/* The device whose group holds the rows of work of (global_pid, context)
 * reported on device: the device its context runs on. */
int64_t model_gpu_device(const model *m, int64_t device, int64_t global_pid, int64_t context);

/* The row of a CUDA stream inside its GPU's group. Stream ids are unique
 * only within a context of a process, so all four parts form the key. */
slice_row *model_stream_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                            int64_t stream);

/* The row of a stream's CUDA synchronization events, beside the stream;
 * syncs on no stream (event syncs) or on a stream that ran no work share
 * their process's "Synchronization" row on the GPU. */
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

/* Writes all pending ENDs and buffered context switches; call once after
 * the last event. */
int model_finish(model *m);

/* Writes the descriptor of a thread (and its process) if not yet written,
 * so that its tid maps to its process. */
int model_describe_thread(model *m, int64_t global_tid, uint64_t ts);

/* ---- Counters ---- */

/* A counter track in a GPU's group at place, of the device (global_pid 0)
 * or of one process on it ("name · python3 [1234]"), in unit (may be
 * NULL). order ranks counters among the GPU metrics. */
track *model_gpu_counter(model *m, int64_t device, int64_t global_pid, gpu_place place,
                         int32_t order, const char *name, const char *unit);

/* Writes n values at ts on n counter tracks, as few events as Perfetto
 * allows (one value plus up to 8 extra per event). */
int model_counters(model *m, int64_t ts, track *const *tracks, const double *values, size_t n);

/* A global track (no process, no GPU), e.g. the report's diagnostics. */
track *model_global_track(model *m, const char *name);

/* ---- CPU scheduling and samples (cpu.c) ---- */

/* trace_processor accepts CPU numbers below this. */
#define CPU_MAX 1024

/* model_sched results besides 0 and -1 (output failed). */
#define MODEL_SCHED_REDUNDANT 1     /* the thread was already running there */
#define MODEL_SCHED_INCONSISTENT 2  /* out of a thread that is not running, bad CPU */

/* A thread scheduled in or out of a CPU. prev_state is ftrace's for a
 * sched-out (0 R, 1 S, 2 D, 16 X). A thread id of 0, under any process
 * field, is the CPU's idle task (swapper). */
int model_sched(model *m, int64_t cpu, int64_t ts, int64_t global_tid, bool sched_in,
                int64_t prev_state);

/* A CPU sample of a thread with its callstack (model_intern_callstack). */
int model_sample(model *m, int64_t ts, int64_t cpu, int64_t global_tid, uint64_t callstack_iid,
                 bool kernel_mode);
uint64_t model_intern_callstack(model *m, const pw_frame *frames, size_t n);

int model_flush_cpus(model *m);
void model_free_cpus(model *m);

#endif
