/* Flow ids joining a CUDA API call to each GPU operation it launched.
 *
 * Both ends carry the same id in flow_ids. A call that launched n
 * operations (graph launches run many kernels) takes the next n ids of a
 * counter and is then pending; each of its operations takes the next of
 * those, and the call is forgotten after its last one. Small sequential
 * ids compress to a fraction of hashed ones (flow_ids are fixed64).
 *
 * CUPTI timestamps a launch before the work it launches, so pending calls
 * are the ones whose work is still queued: few, whatever the report size.
 * Work stamped before its call (clock skew) is written first: its first
 * operation takes the call's n ids (flows_of_early_gpu_op) and the call
 * waits for its turn in `awaiting`. At most FLOWS_MAX_AWAITING calls wait
 * at once; past that, work before its call gets no flow for the rest of
 * the conversion (counted in `dropped`), which keeps memory flat and never
 * leaves an id with one end. A GPU operation whose call is not in the
 * report, or filtered out, gets no flow. */
#ifndef NSYSP_MODEL_FLOWS_H
#define NSYSP_MODEL_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/pairmap.h"

#define FLOWS_MAX_AWAITING 65536

typedef struct flows {
    pairmap pending;         /* (gpid, corr) -> next id << 24 | operations left */
    pairmap awaiting;        /* (gpid, corr) -> first id << 24 | n: calls after their work */
    bool refuse_early;       /* awaiting was full once: no more early links */
    uint64_t dropped;        /* operations before their call left without a flow */
    uint64_t next_id;        /* ids given out so far */
    uint64_t *ids;           /* scratch for a call's ids */
    size_t cap_ids;
    uint64_t linked;         /* GPU operations given a flow */
    uint64_t salt;           /* tells merged reports' ids apart */
} flows;

void flows_free(flows *f);

/* The n ids of a call that launched n operations (n > 0), the ones its
 * early work took if any; NULL when the call (gpid, corr) is already
 * pending (a duplicate row). Valid until the next call. */
const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n);

/* The id of a GPU operation of call (gpid, corr), or 0 when that call is
 * not pending. */
uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr);

/* The id of the first operation written of call (gpid, corr), which
 * launched n operations and is written after it; 0 when refused (too many
 * calls await). */
uint64_t flows_of_early_gpu_op(flows *f, int64_t gpid, int64_t corr, int64_t n);

/* Whether the call (gpid, corr), whose work started before it, took the
 * ids its work left (else that work was refused). */
bool flows_awaited(const flows *f, int64_t gpid, int64_t corr);

#endif
