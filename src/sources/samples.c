/* COMPOSITE_EVENTS + SAMPLING_CALLCHAINS: periodic CPU samples with their
 * call chains, as Perfetto perf samples (flamegraphs on a selection). */
#include "source.h"

typedef struct sample_row {
    int64_t id;
    int64_t start;
    int64_t cpu;
    int64_t global_tid;
    int64_t cpu_cycles;
} sample_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(sample_row, id, "id", NSYS_INT),
    NSYS_COL_REQ(sample_row, start, "start", NSYS_INT),
    NSYS_COL(sample_row, cpu, "cpu", NSYS_INT),
    NSYS_COL_REQ(sample_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL(sample_row, cpu_cycles, "cpuCycles", NSYS_INT),
};

static const nsys_table TABLE = {
    "COMPOSITE_EVENTS", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_BY("start"),
};

static int emit(conv *c, const void *r)
{
    const sample_row *row = r;
    if (row->global_tid == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    /* nsys marks periodic samples with cpuCycles = 1. */
    if (row->cpu_cycles != NSYS_NULL && row->cpu_cycles != 1)
        return SOURCE_SKIPPED(NSYSP_SKIP_NOT_PERIODIC);
    bool kernel_leaf;
    uint64_t callstack = source_callstack(c, NSYS_CALLCHAIN_SAMPLE, row->id, NULL, &kernel_leaf);
    if (c->read_status != NSYSP_OK)
        return SOURCE_FAILED;
    int64_t cpu = row->cpu == NSYS_NULL ? 0 : row->cpu;
    return source_result(
        model_sample(&c->model, row->start, cpu, row->global_tid, callstack, kernel_leaf));
}

const source SOURCE_SAMPLES = {
    "sampling", &TABLE, sizeof(sample_row), offsetof(sample_row, start), emit, SOURCE_CPU,
};
