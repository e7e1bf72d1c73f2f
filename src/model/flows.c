#include "flows.h"

#include <stdlib.h>

#include "../common/hmap.h"
#include "../common/xalloc.h"

/* Counts live in 32 bits each; a call with more operations links the first
 * 2^32 - 1 (no report comes near). */
#define MAX_OPS UINT32_MAX

void flows_free(flows *f)
{
    pairmap_free(&f->pending);
    free(f->ids);
}

static uint64_t flow_id(const flows *f, int64_t gpid, int64_t corr, int64_t k)
{
    int64_t key[4] = {gpid, corr, k, (int64_t)f->salt};
    return hmap_hash(key, sizeof key); /* never 0, which Perfetto rejects */
}

const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    if (pairmap_find(&f->pending, gpid, corr))
        return NULL;
    if (n > MAX_OPS)
        n = MAX_OPS;
    *pairmap_upsert(&f->pending, gpid, corr) = (uint64_t)n << 32;
    f->ids = xgrow(f->ids, &f->cap_ids, (size_t)n, sizeof *f->ids);
    for (int64_t k = 0; k < n; k++)
        f->ids[k] = flow_id(f, gpid, corr, k);
    return f->ids;
}

uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr)
{
    uint64_t *state = pairmap_find(&f->pending, gpid, corr);
    if (!state)
        return 0;
    uint64_t n = *state >> 32, k = *state & MAX_OPS;
    if (k + 1 >= n)
        pairmap_remove(&f->pending, gpid, corr);
    else
        (*state)++;
    f->linked++;
    return flow_id(f, gpid, corr, (int64_t)k);
}
