/* The CPU side that is not slices: thread scheduling written as ftrace
 * sched_switch events, buffered per CPU and written in bundles (so
 * trace_processor fills its sched and thread_state tables and the UI draws
 * CPU tracks), and CPU samples as perf samples with interned callstacks
 * (flamegraphs). Each thread met here gets its thread descriptor, which
 * maps its tid to its process. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "common/xalloc.h"
#include "nsys/nsys_ids.h"

enum { BUNDLE = 256 }; /* switches per CPU buffered before a bundle is written */

struct cpu_state {
    int64_t running;        /* globalTid on the CPU, 0 for idle */
    bool seen;              /* a switch was written for this CPU */
    pw_sched_switch pending[BUNDLE];
    size_t n_pending;
};

static int flush_cpu(model *m, size_t cpu)
{
    cpu_state *c = &m->cpus[cpu];
    if (!c->n_pending)
        return 0;
    int rc = pw_write_sched_switches(m->tracks.seq, (uint32_t)cpu, c->pending, c->n_pending);
    c->n_pending = 0;
    return rc;
}

int model_flush_cpus(model *m)
{
    for (size_t i = 0; i < m->n_cpus; i++)
        if (flush_cpu(m, i) < 0)
            return -1;
    return 0;
}

void model_free_cpus(model *m)
{
    free(m->cpus);
    m->cpus = NULL;
    m->n_cpus = 0;
}

static cpu_state *cpu_of(model *m, int64_t cpu)
{
    if ((size_t)cpu >= m->n_cpus) {
        size_t n = (size_t)cpu + 1;
        m->cpus = xrealloc(m->cpus, n * sizeof *m->cpus);
        memset(m->cpus + m->n_cpus, 0, (n - m->n_cpus) * sizeof *m->cpus);
        m->n_cpus = n;
    }
    return &m->cpus[cpu];
}

/* The comm of a thread: its name, else its process's. */
static const char *comm_of(const model *m, int64_t global_tid)
{
    if (!global_tid)
        return "swapper";
    const char *name = nsys_thread_name(m->meta, global_tid);
    return name ? name : nsys_process_name(m->meta, nsys_global_pid_of(global_tid));
}



static int add_switch(model *m, int64_t cpu, int64_t ts, int64_t prev, int64_t prev_state,
                      int64_t next)
{
    cpu_state *c = cpu_of(m, cpu);
    uint64_t out_ts = (uint64_t)(ts + m->slices.shift);
    /* Describe the threads first so their tids map to processes; ENDs due
     * before go out first so the sequence stays in time order. */
    if (slicer_advance(&m->slices, ts) < 0)
        return -1;
    if ((prev && model_describe_thread(m, prev, out_ts) < 0) ||
        (next && model_describe_thread(m, next, out_ts) < 0))
        return -1;
    c->pending[c->n_pending++] = (pw_sched_switch){
        .ts = out_ts,
        .prev_comm = comm_of(m, prev),
        .prev_pid = prev ? model_tid(m, prev) : 0,
        .prev_state = prev_state,
        .next_comm = comm_of(m, next),
        .next_pid = next ? model_tid(m, next) : 0,
    };
    c->seen = true;
    c->running = next;
    m->cpu_switches++;
    return c->n_pending == BUNDLE ? flush_cpu(m, (size_t)cpu) : 0;
}

/* The idle task's own rows (thread id 0, whatever the process field: Grace
 * Hopper captures give it one). Where the CPU is idle already they say what
 * its gap shows (kept, nothing to write). A sched-in takes the CPU from whoever
 * ran there: that thread was waiting (idle runs only when nothing else can),
 * so it leaves sleeping. A sched-out while a thread runs is inconsistent. */
static int idle_sched(model *m, int64_t cpu, int64_t ts, bool sched_in)
{
    cpu_state *c = cpu_of(m, cpu);
    if (!c->running)
        return 0;
    if (!sched_in)
        return MODEL_SCHED_INCONSISTENT;
    return add_switch(m, cpu, ts, c->running, 1, 0);
}

int model_sched(model *m, int64_t cpu, int64_t ts, int64_t global_tid, bool sched_in,
                int64_t prev_state)
{
    if (cpu < 0 || cpu >= CPU_MAX || global_tid < 0)
        return MODEL_SCHED_INCONSISTENT;
    if (nsys_tid_of(global_tid) == 0)
        return idle_sched(m, cpu, ts, sched_in);
    cpu_state *c = cpu_of(m, cpu);
    if (sched_in) {
        if (c->running == global_tid)
            return MODEL_SCHED_REDUNDANT;
        /* Whoever ran was preempted: runnable. */
        return add_switch(m, cpu, ts, c->running, 0, global_tid);
    }
    /* A sched-out must be of the running thread, except as a CPU's first
     * event (the thread ran since before the capture). */
    if (c->running != global_tid && (c->seen || c->running))
        return MODEL_SCHED_INCONSISTENT;
    return add_switch(m, cpu, ts, global_tid, prev_state, 0);
}

int model_sample(model *m, int64_t ts, int64_t cpu, int64_t global_tid, uint64_t callstack_iid,
                 bool kernel_mode)
{
    if (m->only_pid > 0 && nsys_pid_of(global_tid) != m->only_pid)
        return 1;
    uint64_t out_ts = (uint64_t)(ts + m->slices.shift);
    /* Keep the sequence in time order: ENDs due before the sample first. */
    if (slicer_advance(&m->slices, ts) < 0 || model_describe_thread(m, global_tid, out_ts) < 0)
        return -1;
    m->cpu_samples++;
    return pw_write_perf_sample(m->tracks.seq, out_ts, cpu < 0 ? 0 : (uint32_t)cpu,
                                model_pid(m, global_tid), model_tid(m, global_tid), callstack_iid,
                                kernel_mode);
}

uint64_t model_intern_callstack(model *m, const pw_frame *frames, size_t n)
{
    return pw_intern_callstack(m->tracks.seq, frames, n);
}
