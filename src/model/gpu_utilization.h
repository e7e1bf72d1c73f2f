/* GPU utilization: a "GPU utilization" counter in each GPU group, in %,
 * as nsys-ui shows when a GPU's CUDA HW row is collapsed.
 *
 * Definition: the device's busy time (gpu_busy.h), its work on any stream
 * of any process. The counter is that union as exact steps: 100 where a
 * busy stretch starts, 0 where it ends. The nsys SQL package's
 * nsys_gpu_utilization table (src/sql/nsys/extras/gpu_utilization.sql) is
 * the same steps; its nsys_gpu_utilization_bins gives percentages per bin.
 *
 * Streaming: GPU work reaches the model in start order, so a device's
 * union is one open stretch (its end so far); a stretch is closed when
 * time passes its end with no work started before it. Memory is one entry
 * per device, whatever the number of operations. The 0 is written when the
 * slicer's clock passes the stretch's end (slicer.due), so the sequence
 * stays in time order. */
#ifndef NSYSP_MODEL_GPU_UTILIZATION_H
#define NSYSP_MODEL_GPU_UTILIZATION_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_busy.h"
#include "tracks.h"

typedef struct model model;

typedef struct gpu_busy_counter {
    int64_t device;          /* the device its context runs on */
    track *track;            /* its "GPU utilization" counter */
    busy_union busy;         /* open: 100 written, 0 not yet */
} gpu_busy_counter;

typedef struct gpu_utilization {
    gpu_busy_counter *devices;
    size_t n, cap;
    int64_t next_end;        /* earliest end of an open stretch, or INT64_MAX */
} gpu_utilization;

/* Sets up m's utilization state and the slicer's hook (from model_init). */
void gpu_utilization_init(model *m);
void gpu_utilization_free(model *m);

/* A kernel, memcpy or memset [start, end] of a visible stream, on device
 * (the row's deviceId; placed by its context as the stream rows are), in
 * start order. Returns 0, or -1 when the output failed. */
int model_gpu_work(model *m, int64_t device, int64_t global_pid, int64_t context, int64_t start,
                   int64_t end);

#endif
