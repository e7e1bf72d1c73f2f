/* The model's life as a whole: its core (model.c: tracks and rows), the
 * CPU rows (cpu.c) and the GPU utilization counters (gpu_utilization.c)
 * set up, finished and freed together. Kept apart from model.c so that the
 * core calls neither part that builds on it. */
#include "model.h"

#include "gpu_utilization.h"

void model_init(model *m, pw_seq *seq, const nsys_meta *meta, const nsys_contexts *contexts)
{
    model_init_core(m, seq, meta, contexts);
    gpu_utilization_init(m);
}

int model_finish(model *m)
{
    if (model_flush_cpus(m) < 0)
        return -1;
    return slicer_finish(&m->slices);
}

void model_free(model *m)
{
    model_free_cpus(m);
    gpu_utilization_free(m);
    model_free_core(m);
}
