/* CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage): allocations and
 * frees as "Memory in use" counters in the GPU's group, one for the device
 * and one per process using it, in bytes. A free subtracts the size of the
 * allocation at its address when that is known (the row's bytes
 * otherwise), so frees that carry 0 bytes still balance. */
#include "source.h"
#include "common/pairmap.h"

/* Running totals, for the counters, and the live allocations. */
typedef struct memory_state {
    pairmap in_use;          /* (globalPid or 0, device) -> bytes */
    pairmap allocations;     /* (globalPid, address) -> bytes, live ones */
} memory_state;

static void free_state(void *state)
{
    memory_state *m = state;
    pairmap_free(&m->in_use);
    pairmap_free(&m->allocations);
}

typedef struct memory_row {
    int64_t start;
    int64_t global_pid;
    int64_t device;
    int64_t address;
    int64_t bytes;
    int64_t operation;       /* ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 alloc, 1 free */
} memory_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(memory_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(memory_row, global_pid, "globalPid", NSYS_INT),
    NSYS_COL_REQ(memory_row, device, "deviceId", NSYS_INT),
    NSYS_COL(memory_row, address, "address", NSYS_INT),
    NSYS_COL_REQ(memory_row, bytes, "bytes", NSYS_INT),
    NSYS_COL_REQ(memory_row, operation, "memoryOperationType", NSYS_INT),
};
static const nsys_table TABLE = {"CUDA_GPU_MEMORY_USAGE_EVENTS", COLUMNS, 6, NSYS_ORDER_BY("start")};

static int emit(conv *c, const void *r)
{
    const memory_row *row = r;
    memory_state *m = c->state;
    if (row->global_pid == NSYS_NULL || row->device == NSYS_NULL || row->bytes == NSYS_NULL ||
        (row->operation != 0 && row->operation != 1))
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    int64_t delta = row->bytes;
    if (row->operation == 1) {
        /* Live allocations are keyed by (process, address); the map shrinks
         * as they are freed. */
        uint64_t *size = pairmap_find(&m->allocations, row->global_pid, row->address);
        if (size) {
            delta = (int64_t)*size;
            pairmap_remove(&m->allocations, row->global_pid, row->address);
        }
        delta = -delta;
    } else if (row->address != NSYS_NULL) {
        *pairmap_upsert(&m->allocations, row->global_pid, row->address) = (uint64_t)row->bytes;
    }
    uint64_t *device_total = pairmap_upsert(&m->in_use, 0, row->device);
    uint64_t *process_total = pairmap_upsert(&m->in_use, row->global_pid, row->device);
    *device_total += (uint64_t)delta;
    *process_total += (uint64_t)delta;
    track *tracks[2] = {
        model_gpu_counter(&c->model, row->device, 0, GPU_PLACE_MEMORY, 0, "Memory in use",
                          "bytes"),
        model_gpu_counter(&c->model, row->device, row->global_pid, GPU_PLACE_MEMORY, 0,
                          "Memory in use", "bytes"),
    };
    double values[2] = {(double)(int64_t)*device_total, (double)(int64_t)*process_total};
    return source_result(model_counters(&c->model, row->start, tracks, values, 2));
}

const source SOURCE_GPU_MEMORY = {
    "gpu-memory", &TABLE, sizeof(memory_row), offsetof(memory_row, start), emit, SOURCE_CPU,
    .state_size = sizeof(memory_state), .free_state = free_state,
};
