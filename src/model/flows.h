/* Flow ids joining a CUDA API call to each GPU operation it launched.
 *
 * Both ends carry the same id in flow_ids. A call that launched n
 * operations (graph launches run many kernels) takes the next n ids of a
 * counter and is then pending; each of its operations takes the next of
 * those, and the call is forgotten after its last one. Small sequential
 * ids compress to a fraction of hashed ones (flow_ids are fixed64). A GPU operation whose call was not
 * written before it (no call, or one filtered out) gets no flow. CUPTI
 * timestamps a launch before the work it launches, so pending calls are
 * the ones whose work is still queued: few, whatever the report size. */
#ifndef NSYSP_MODEL_FLOWS_H
#define NSYSP_MODEL_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/pairmap.h"

typedef struct flows {
    pairmap pending;         /* (gpid, corr) -> next id << 24 | operations left */
    uint64_t next_id;        /* ids given out so far */
    uint64_t *ids;           /* scratch for a call's ids */
    size_t cap_ids;
    uint64_t linked;         /* GPU operations given a flow */
    uint64_t salt;           /* tells merged reports' ids apart */
} flows;

void flows_free(flows *f);

/* The n ids of a call that launched n operations (n > 0); NULL when the
 * call (gpid, corr) is already pending (a duplicate row). Valid until the
 * next call. */
const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n);

/* The id of a GPU operation of call (gpid, corr), or 0 when that call is
 * not pending. */
uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr);

#endif
