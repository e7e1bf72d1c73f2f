/* The "GPU utilization" counters: see gpu_utilization.h. */
#include "gpu_utilization.h"

#include <stdlib.h>

#include "common/xalloc.h"
#include "model.h"

/* Writes value at ts on the device's counter: directly, not through
 * model_counters, whose slicer_advance would call back into due(). */
static int write_value(model *m, gpu_busy_counter *d, int64_t ts, double value)
{
    if (d->track->hidden)
        return 0;
    uint64_t out_ts = (uint64_t)(ts + m->slices.shift);
    if (tracks_ensure_written(&m->tracks, d->track, out_ts) < 0)
        return -1;
    pw_event ev = {
        .type = PW_COUNTER,
        .ts = out_ts,
        .track_uuid = d->track->uuid,
        .counter_is_double = true,
        .counter_double = value,
    };
    m->slices.events++;
    return pw_write_event(m->tracks.seq, &ev);
}

static void update_next_end(gpu_utilization *u)
{
    u->next_end = INT64_MAX;
    for (size_t i = 0; i < u->n; i++)
        if (u->devices[i].busy.open && u->devices[i].busy.end < u->next_end)
            u->next_end = u->devices[i].busy.end;
}

/* slicer.due: closes the stretches that end before `before`, earliest
 * first (a stretch ending exactly at `before` may still be extended by work
 * starting then). */
static int due(void *ctx, int64_t before)
{
    model *m = ctx;
    gpu_utilization *u = m->utilization;
    while (u->next_end < before) {
        gpu_busy_counter *first = NULL;
        for (size_t i = 0; i < u->n; i++) {
            gpu_busy_counter *d = &u->devices[i];
            if (d->busy.open && (!first || d->busy.end < first->busy.end))
                first = d;
        }
        busy_union_close(&first->busy);
        int rc = write_value(m, first, first->busy.end, 0.0);
        update_next_end(u);
        if (rc < 0)
            return -1;
    }
    return 0;
}

void gpu_utilization_init(model *m)
{
    m->utilization = xcalloc(1, sizeof *m->utilization);
    m->utilization->next_end = INT64_MAX;
    m->slices.due = due;
    m->slices.due_ctx = m;
}

void gpu_utilization_free(model *m)
{
    if (m->utilization)
        free(m->utilization->devices);
    free(m->utilization);
    m->utilization = NULL;
}

static gpu_busy_counter *device_of(model *m, int64_t device)
{
    gpu_utilization *u = m->utilization;
    for (size_t i = 0; i < u->n; i++)
        if (u->devices[i].device == device)
            return &u->devices[i];
    u->devices = xgrow(u->devices, &u->cap, u->n + 1, sizeof *u->devices);
    gpu_busy_counter *d = &u->devices[u->n++];
    *d = (gpu_busy_counter){
        .device = device,
        .track = model_gpu_counter(m, device, 0, GPU_PLACE_UTILIZATION, 0, "GPU utilization",
                                   "%"),
    };
    return d;
}

int model_gpu_work(model *m, int64_t device, int64_t global_pid, int64_t context, int64_t start,
                   int64_t end)
{
    if (end <= start)
        return 0; /* no time: no work */
    /* Stretches that ended before this start close first; so do the ENDs
     * due, keeping the sequence in time order. */
    if (slicer_advance(&m->slices, start) < 0)
        return -1;
    gpu_busy_counter *d = device_of(m, model_gpu_device(m, device, global_pid, context));
    bool opens = !d->busy.open; /* else it extends the open stretch */
    busy_union_add(&d->busy, start, end, NULL, NULL);
    update_next_end(m->utilization);
    return opens ? write_value(m, d, start, 100.0) : 0;
}
