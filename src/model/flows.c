#include "flows.h"

#include <stdlib.h>

#include "../common/hmap.h"
#include "../common/xalloc.h"

void flows_free(flows *f)
{
    pairmap_free(&f->next_k);
    free(f->ids);
}

static uint64_t flow_id(const flows *f, int64_t gpid, int64_t corr, int64_t k)
{
    int64_t key[4] = {gpid, corr, k, (int64_t)f->salt};
    return hmap_hash(key, sizeof key); /* never 0, which Perfetto rejects */
}

const uint64_t *flows_of_call(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    f->ids = xgrow(f->ids, &f->cap_ids, (size_t)n, sizeof *f->ids);
    for (int64_t k = 0; k < n; k++)
        f->ids[k] = flow_id(f, gpid, corr, k);
    return f->ids;
}

uint64_t flows_of_gpu_op(flows *f, int64_t gpid, int64_t corr, int64_t n)
{
    f->linked++;
    if (n <= 1)
        return flow_id(f, gpid, corr, 0);
    uint64_t *seen = pairmap_upsert(&f->next_k, gpid, corr);
    int64_t k = (int64_t)(*seen)++;
    if (k + 1 >= n)
        pairmap_remove(&f->next_k, gpid, corr);
    return flow_id(f, gpid, corr, k);
}
