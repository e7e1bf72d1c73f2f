/* Flow ids joining a CUDA API call to each GPU operation it launched.
 *
 * Both ends carry the same id in flow_ids, so trace_processor draws the
 * arrow whichever end comes first in time (clock skew can put a kernel
 * before its launch). An id is a hash of (globalPid, correlationId, k), k
 * numbering the operations of one call (graph launches run many kernels):
 * the call writes ids 0..n-1, each operation takes the next k. Only calls
 * with several operations keep state, until their last one is seen. */
#ifndef NSYSP_MODEL_FLOWS_H
#define NSYSP_MODEL_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/pairmap.h"

typedef struct flows {
    pairmap next_k;          /* (gpid, corr) -> operations seen, for n > 1 */
    uint64_t *ids;           /* scratch for a call's ids */
    size_t cap_ids;
    uint64_t linked;         /* GPU operations given a flow */
    uint64_t salt;           /* tells merged reports' ids apart */
} flows;

void flows_free(flows *f);

/* The n ids of a call; valid until the next call. */
const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n);

/* The id of one GPU operation of a call that launched n of them. */
uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr, int64_t n);

#endif
