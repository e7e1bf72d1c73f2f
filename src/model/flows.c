#include "flows.h"

#include <stdlib.h>

#include "common/xalloc.h"

/* A pending call's operations left fit in 24 bits: a call with more links
 * its first 2^24 - 1 (graph launches run thousands at most). Ids fit in
 * the 40 bits above, and the report's salt goes above those, so merged
 * reports never share an id. */
#define OPS_BITS 24
#define MAX_OPS ((UINT64_C(1) << OPS_BITS) - 1)
#define ID_BITS 40

void flows_free(flows *f)
{
    pairmap_free(&f->pending);
    pairmap_free(&f->awaiting);
    free(f->ids);
}

/* The flow id of counter value id: never 0, which Perfetto rejects. */
static uint64_t flow_id(const flows *f, uint64_t id)
{
    return f->salt << ID_BITS | (id & ((UINT64_C(1) << ID_BITS) - 1));
}

/* Reserves n ids for call (gpid, corr) and makes it pending; returns the
 * first. */
static uint64_t reserve(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    uint64_t first = f->next_id + 1;
    f->next_id += (uint64_t)n;
    *pairmap_upsert(&f->pending, gpid, corr) = first << OPS_BITS | (uint64_t)n;
    return first;
}

static int64_t capped(int64_t n)
{
    return (uint64_t)n > MAX_OPS ? (int64_t)MAX_OPS : n;
}

const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    uint64_t first;
    uint64_t *awaited = pairmap_find(&f->awaiting, gpid, corr);
    if (awaited) {
        first = *awaited >> OPS_BITS;
        n = (int64_t)(*awaited & MAX_OPS);
        pairmap_remove(&f->awaiting, gpid, corr);
    } else if (pairmap_find(&f->pending, gpid, corr)) {
        return NULL;
    } else {
        n = capped(n);
        first = reserve(f, gpid, corr, n);
    }
    f->ids = xgrow(f->ids, &f->cap_ids, (size_t)n, sizeof *f->ids);
    for (int64_t k = 0; k < n; k++)
        f->ids[k] = flow_id(f, first + (uint64_t)k);
    return f->ids;
}

uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr)
{
    uint64_t *state = pairmap_find(&f->pending, gpid, corr);
    if (!state)
        return 0;
    uint64_t id = *state >> OPS_BITS, left = *state & MAX_OPS;
    if (left <= 1)
        pairmap_remove(&f->pending, gpid, corr);
    else
        *state = (id + 1) << OPS_BITS | (left - 1);
    f->linked++;
    return flow_id(f, id);
}

uint64_t flows_of_early_gpu_op(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    if (n <= 0 || pairmap_find(&f->awaiting, gpid, corr))
        return 0;
    if (f->refuse_early || f->awaiting.count >= FLOWS_MAX_AWAITING) {
        f->refuse_early = true;
        f->dropped++;
        return 0;
    }
    n = capped(n);
    uint64_t first = reserve(f, gpid, corr, n);
    *pairmap_upsert(&f->awaiting, gpid, corr) = first << OPS_BITS | (uint64_t)n;
    return flows_of_gpu_op(f, gpid, corr);
}

bool flows_awaited(const flows *f, int64_t gpid, int64_t corr)
{
    return pairmap_find(&f->awaiting, gpid, corr) != NULL;
}
