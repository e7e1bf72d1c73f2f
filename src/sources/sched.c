/* SCHED_EVENTS: threads scheduled in and out of CPUs, as ftrace
 * sched_switch events per CPU; gaps are the idle task (whose own rows, thread
 * id 0, some captures have too). The state a thread
 * leaves in comes from threadState where the schema has it (2024.6 on). */
#include "source.h"

typedef struct sched_row {
    int64_t start;
    int64_t cpu;
    int64_t is_sched_in;
    int64_t global_tid;
    int64_t thread_state;
} sched_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(sched_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(sched_row, cpu, "cpu", NSYS_INT),
    NSYS_COL_REQ(sched_row, is_sched_in, "isSchedIn", NSYS_INT),
    NSYS_COL_REQ(sched_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL(sched_row, thread_state, "threadState", NSYS_INT),
};

/* At equal times, outs before ins: a CPU is handed over, not shared. */
static const nsys_table TABLE = {
    "SCHED_EVENTS", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], {"start", "isSchedIn", false, NULL},
};

/* nsys thread states (as ENUM_SAMPLING_THREAD_STATE numbers them) to
 * ftrace's prev_state. A thread leaving the CPU in an unknown state is
 * taken as sleeping: most switches are waits. */
static int64_t ftrace_state(int64_t state)
{
    switch (state) {
    case 1: /* Running: preempted */
        return 0;
    case 3: /* Uninterruptible */
        return 2;
    case 4: /* Stopped */
        return 4;
    case 5: /* Terminated */
        return 16;
    default: /* Unknown, Interruptible, Waiting... */
        return 1;
    }
}

static int emit(conv *c, const void *r)
{
    const sched_row *row = r;
    if (row->cpu == NSYS_NULL || row->global_tid == NSYS_NULL || row->is_sched_in == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    int rc = model_sched(&c->model, row->cpu, row->start, row->global_tid, row->is_sched_in != 0,
                         ftrace_state(row->thread_state));
    switch (rc) {
    case 0:
        return SOURCE_EMITTED;
    case MODEL_SCHED_REDUNDANT:
        return SOURCE_SKIPPED(NSYSP_SKIP_SCHED_REDUNDANT);
    case MODEL_SCHED_INCONSISTENT:
        return SOURCE_SKIPPED(NSYSP_SKIP_SCHED_INCONSISTENT);
    default:
        return SOURCE_FAILED;
    }
}

const source SOURCE_SCHED = {
    "sched", &TABLE, sizeof(sched_row), offsetof(sched_row, start), emit, SOURCE_CPU,
};
