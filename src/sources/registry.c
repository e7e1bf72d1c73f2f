/* The sources the converter reads, one line each. */
#include "source.h"

extern const source SOURCE_CUDA_API;
extern const source SOURCE_KERNEL;
extern const source SOURCE_MEMCPY;
extern const source SOURCE_MEMSET;
extern const source SOURCE_SYNC;
extern const source SOURCE_GRAPH_TRACE;
extern const source SOURCE_CUDA_GRAPH_EVENTS;
extern const source SOURCE_CUDA_GRAPH_NODE_EVENTS;
extern const source SOURCE_NVTX;
extern const source SOURCE_NVTX_GPU;
extern const source SOURCE_OSRT;
extern const source SOURCE_SCHED;
extern const source SOURCE_SAMPLES;
extern const source SOURCE_GPU_METRICS;
extern const source SOURCE_GPU_METRICS_2022;

const source *const SOURCES[] = {
    &SOURCE_CUDA_API, /* CUPTI_ACTIVITY_KIND_RUNTIME */
    &SOURCE_KERNEL,   /* CUPTI_ACTIVITY_KIND_KERNEL */
    &SOURCE_MEMCPY,   /* CUPTI_ACTIVITY_KIND_MEMCPY */
    &SOURCE_MEMSET,   /* CUPTI_ACTIVITY_KIND_MEMSET */
    &SOURCE_SYNC,     /* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION */
    &SOURCE_GRAPH_TRACE,            /* CUPTI_ACTIVITY_KIND_GRAPH_TRACE */
    &SOURCE_CUDA_GRAPH_EVENTS,      /* CUDA_GRAPH_EVENTS */
    &SOURCE_CUDA_GRAPH_NODE_EVENTS, /* CUDA_GRAPH_NODE_EVENTS */
    &SOURCE_NVTX,                   /* NVTX_EVENTS */
    &SOURCE_NVTX_GPU,               /* NVTX_EVENTS projected onto the GPU */
    &SOURCE_OSRT,                   /* OSRT_API (+ OSRT_CALLCHAINS) */
    &SOURCE_SCHED,                  /* SCHED_EVENTS */
    &SOURCE_SAMPLES,                /* COMPOSITE_EVENTS (+ SAMPLING_CALLCHAINS) */
    &SOURCE_GPU_METRICS,            /* GPU_METRICS (+ TARGET_INFO_GPU_METRICS) */
    &SOURCE_GPU_METRICS_2022,       /* GENERIC_EVENTS of GpuMetrics sources */
};

const size_t N_SOURCES = sizeof SOURCES / sizeof SOURCES[0];
