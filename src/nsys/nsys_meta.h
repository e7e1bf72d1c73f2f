/* Report-level facts the timeline is labelled with: process and thread
 * names, GPU descriptions, stream kinds. Loaded once, before any events;
 * small (grows with processes, threads and devices, never with events). */
#ifndef NSYSP_NSYS_META_H
#define NSYSP_NSYS_META_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hmap.h"
#include "nsys_db.h"
#include "nsys_strings.h"

/* The integer properties of TARGET_INFO_GPU the trace describes a GPU
 * with (its group's description): key in the trace, column in the report. */
#define NSYS_GPU_PROPERTIES(X)                                   \
    X(SM_COUNT, "sm count", "smCount")                           \
    X(TOTAL_MEMORY, "total memory", "totalMemory")               \
    X(MEMORY_BANDWIDTH, "memory bandwidth", "memoryBandwidth")   \
    X(CLOCK_RATE, "clock rate", "clockRate")                     \
    X(L2_CACHE_SIZE, "l2 cache size", "l2CacheSize")             \
    X(COMPUTE_MAJOR, "compute major", "computeMajor")            \
    X(COMPUTE_MINOR, "compute minor", "computeMinor")            \
    X(IS_DISCRETE, "is discrete", "isDiscrete")                  \
    X(THREADS_PER_WARP, "threads per warp", "threadsPerWarp")    \
    X(MAX_THREADS_PER_BLOCK, "max threads per block", "maxThreadsPerBlock") \
    X(MAX_WARPS_PER_SM, "max warps per sm", "maxWarpsPerSm")     \
    X(MAX_BLOCKS_PER_SM, "max blocks per sm", "maxBlocksPerSm")  \
    X(MAX_REGISTERS_PER_BLOCK, "max registers per block", "maxRegistersPerBlock") \
    X(MAX_REGISTERS_PER_SM, "max registers per sm", "maxRegistersPerSm") \
    X(MAX_SHMEM_PER_BLOCK, "max shared memory per block", "maxShmemPerBlock") \
    X(MAX_SHMEM_PER_SM, "max shared memory per sm", "maxShmemPerSm") \
    X(ASYNC_ENGINES, "async engines", "asyncEngines")

#define NSYS_GPU_PROP_ENUM(id, key, column) NSYS_GPU_##id,
enum { NSYS_GPU_PROPERTIES(NSYS_GPU_PROP_ENUM) NSYS_GPU_N_PROPERTIES };
#undef NSYS_GPU_PROP_ENUM

/* The key of property i in the trace ("sm count"). */
const char *nsys_gpu_property_key(int i);

typedef struct nsys_gpu {
    int64_t id;              /* CUDA device id, as kernels' deviceId */
    const char *name;        /* "NVIDIA H100 80GB HBM3", or NULL */
    const char *bus;         /* "0000:1b:00.0", or NULL */
    const char *uuid;        /* or NULL */
    const char *chip;        /* chipName ("GH100"), or NULL */
    int64_t props[NSYS_GPU_N_PROPERTIES]; /* NSYS_NULL (INT64_MIN) when absent */
} nsys_gpu;

/* ENUM_CUPTI_STREAM_TYPE */
typedef enum nsys_stream_kind {
    NSYS_STREAM_UNKNOWN = 0,
    NSYS_STREAM_DEFAULT = 1,
    NSYS_STREAM_NON_BLOCKING = 2,
    NSYS_STREAM_NULL = 3,
} nsys_stream_kind;

typedef struct nsys_meta {
    hmap processes;          /* globalPid -> name index + 1 */
    hmap threads;            /* globalTid -> name index + 1 */
    hmap streams;            /* (pid, context, stream) -> kind + 1 */
    hmap gpu_index;          /* device id -> index into gpus + 1 */
    nsys_gpu *gpus;
    size_t n_gpus, cap_gpus;
    char **names;            /* owned strings */
    size_t n_names, cap_names;
    int64_t session_start;   /* ANALYSIS_DETAILS.startTime, or NSYS_NULL */
    int64_t session_end;     /* ANALYSIS_DETAILS.stopTime, or NSYS_NULL */
    int64_t session_utc;     /* TARGET_INFO_SESSION_START_TIME.utcEpochNs, or NSYS_NULL */
    hmap cuda_pids;          /* pids that own CUDA streams */
    hmap nvtx_streams;       /* (pid, context, stream) -> name index + 1 */
    hmap nvtx_devices;       /* device id -> name index + 1 */
    hmap nvtx_domains;       /* (globalPid, domainId) -> name index + 1 */
    hmap nvtx_categories;    /* (globalPid, domainId, category) -> name index + 1 */
    hmap gpu_metrics;        /* (typeId, metricId) -> name index + 1 */
    hmap metric_sources;     /* GENERIC_EVENT_SOURCES sourceId of GPU metrics -> 1 */
    hmap metric_types;       /* GENERIC_EVENT_TYPES typeId of those sources -> 1 */
    hmap mpi_ranks;          /* globalTid -> MPI rank + 1 (MPI_RANKS) */
    int cuda_processes;      /* how many processes use CUDA */
} nsys_meta;

int nsys_meta_load(nsys_db *db, const nsys_strings *strings, nsys_meta *m, buf *err);
void nsys_meta_free(nsys_meta *m);

const char *nsys_process_name(const nsys_meta *m, int64_t global_pid);
const char *nsys_thread_name(const nsys_meta *m, int64_t global_tid);
/* NULL when the report does not describe device id. */
const nsys_gpu *nsys_gpu_info(const nsys_meta *m, int64_t device_id);
/* Names given with nvtxNameCudaStream / nvtxNameCudaDevice, or NULL. */
const char *nsys_nvtx_stream_name(const nsys_meta *m, int32_t pid, int64_t context, int64_t stream);
const char *nsys_nvtx_device_name(const nsys_meta *m, int64_t device_id);

/* NVTX domain names (nvtxDomainCreate) and category names
 * (nvtxNameCategory), both scoped by process; NULL when unnamed. */
const char *nsys_nvtx_domain_name(const nsys_meta *m, int64_t global_pid, int64_t domain_id);
const char *nsys_nvtx_category_name(const nsys_meta *m, int64_t global_pid, int64_t domain_id,
                                    int64_t category);

/* The name of GPU_METRICS metric (typeId, metricId), or NULL. */
const char *nsys_gpu_metric_name(const nsys_meta *m, int64_t type_id, int64_t metric_id);
/* Whether GENERIC_EVENTS of this typeId are 2022-style GPU metrics. */
bool nsys_generic_is_gpu_metrics(const nsys_meta *m, int64_t type_id);

/* The MPI rank of a thread (MPI_RANKS), or -1. */
int64_t nsys_mpi_rank(const nsys_meta *m, int64_t global_tid);

nsys_stream_kind nsys_stream_kind_of(const nsys_meta *m, int32_t pid, int64_t context,
                                     int64_t stream);

#endif
