/* GPU busy time, defined once for everything that reports it.
 *
 * A GPU (or a process on it) is busy while at least one of its kernels,
 * memcpys or memsets runs: the union of their intervals. Operations that
 * touch (one starting where the other ends) make one busy stretch;
 * operations of no duration add nothing; syncs and whole-graph ranges are
 * not work. Times beyond NSYSP_MAX_TIME_NS are left out, as the converter
 * leaves them out.
 *
 * Who uses it: the converter's "GPU utilization" counter (gpu_utilization.c:
 * 100 where a stretch starts, 0 where it ends), nsysp_measure's busy time
 * per device (analysis/measure.c), `ranks`' busy, compute, communication and
 * memory time per rank (analysis/ranks.c). The SQL package states the same
 * rule as nsys_gpu_utilization (src/sql/nsys/extras/gpu_utilization.sql),
 * and its tests check that the two agree step for step. */
#ifndef NSYSP_MODEL_GPU_BUSY_H
#define NSYSP_MODEL_GPU_BUSY_H

#include <stdbool.h>
#include <stdint.h>

/* The tables whose rows are GPU work, each with start, end, deviceId and
 * globalPid columns. */
#define GPU_BUSY_TABLES \
    {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}
enum { GPU_BUSY_N_TABLES = 3 };

/* The union of intervals added in start order: one stretch open at a time,
 * the closed ones summed. */
typedef struct busy_union {
    bool open;
    int64_t start, end;          /* the stretch still open */
    int64_t total;               /* the closed stretches' length */
} busy_union;

/* Adds [start, end] (start at or after every start added before). Returns
 * true when that closed the open stretch, which *closed_start and
 * *closed_end then give (they may be NULL). */
bool busy_union_add(busy_union *u, int64_t start, int64_t end, int64_t *closed_start,
                    int64_t *closed_end);

/* Closes the open stretch (when time has passed its end). */
void busy_union_close(busy_union *u);

/* The busy time so far, the open stretch included. */
int64_t busy_union_total(const busy_union *u);

#endif
