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
extern const source SOURCE_GPU_MEMORY;
extern const source SOURCE_CUBLAS, SOURCE_CUDNN;
extern const source SOURCE_MPI_P2P, SOURCE_MPI_COLLECTIVES, SOURCE_MPI_START_WAIT, SOURCE_MPI_OTHER;
extern const source SOURCE_OPENACC_DATA, SOURCE_OPENACC_LAUNCH, SOURCE_OPENACC_OTHER;
extern const source SOURCES_OPENMP[];
extern const size_t N_SOURCES_OPENMP;
extern const source SOURCE_UM_CPU_FAULTS, SOURCE_UM_GPU_FAULTS;
extern const source SOURCE_DIAGNOSTICS;

static const source *const SOURCES[] = {
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
    &SOURCE_GPU_MEMORY,             /* CUDA_GPU_MEMORY_USAGE_EVENTS */
    &SOURCE_CUBLAS,                 /* CUBLAS_EVENTS */
    &SOURCE_CUDNN,                  /* CUDNN_EVENTS */
    &SOURCE_MPI_P2P,                /* MPI_P2P_EVENTS */
    &SOURCE_MPI_COLLECTIVES,        /* MPI_COLLECTIVES_EVENTS */
    &SOURCE_MPI_START_WAIT,         /* MPI_START_WAIT_EVENTS */
    &SOURCE_MPI_OTHER,              /* MPI_OTHER_EVENTS */
    &SOURCE_OPENACC_DATA,           /* CUPTI_ACTIVITY_KIND_OPENACC_DATA */
    &SOURCE_OPENACC_LAUNCH,         /* CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH */
    &SOURCE_OPENACC_OTHER,          /* CUPTI_ACTIVITY_KIND_OPENACC_OTHER */
    &SOURCE_UM_CPU_FAULTS,          /* CUDA_UM_CPU_PAGE_FAULT_EVENTS */
    &SOURCE_UM_GPU_FAULTS,          /* CUDA_UM_GPU_PAGE_FAULT_EVENTS */
    &SOURCE_DIAGNOSTICS,            /* DIAGNOSTIC_EVENT */
};

/* The OpenMP tables (OPENMP_EVENT_KIND_*) follow the list above. */
size_t sources_count(void)
{
    return sizeof SOURCES / sizeof SOURCES[0] + N_SOURCES_OPENMP;
}

const source *source_at(size_t i)
{
    size_t listed = sizeof SOURCES / sizeof SOURCES[0];
    return i < listed ? SOURCES[i] : &SOURCES_OPENMP[i - listed];
}
