/* Call chains (OS runtime calls, CPU samples) to interned callstacks. */
#include "source.h"
#include "common/pairmap.h"
#include "nsys/nsys_callchains.h"

/* Deeper chains are cut at their outermost frames; nsys itself caps them. */
enum { MAX_FRAMES = 256 };

/* OS runtime chain ids remembered at most; the cache starts over beyond
 * (nsys shares ids between calls with one stack, so real reports have a
 * few thousand; a report with an id per call must not grow memory). A
 * report with more distinct chains reads the rest through the indexed copy
 * (nsys_callchains.h). */
enum { MAX_SHARED_CHAINS = 1 << 13 };

static uint64_t intern_chain(conv *c, nsys_callchain_kind kind, int64_t id, bool *kernel_leaf)
{
    nsys_frame_ids ids[MAX_FRAMES];
    pw_frame frames[MAX_FRAMES];
    int n = nsys_callchains_get(c->callchains, kind, id, ids, MAX_FRAMES, c->err,
                                &c->read_status);
    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++) {
        /* Empty names read as unknown ("[unknown]" in the trace). */
        const char *function = nsys_string(c->strings, ids[i].symbol);
        const char *module = nsys_string(c->strings, ids[i].module);
        frames[i].function = function && *function ? function : NULL;
        frames[i].module = module && *module ? module : NULL;
    }
    *kernel_leaf = n > 0 && ids[n - 1].kernel;
    return model_intern_callstack(&c->model, frames, (size_t)n);
}

uint64_t source_callstack(conv *c, nsys_callchain_kind kind, int64_t id, pairmap *seen,
                          bool *kernel_leaf)
{
    *kernel_leaf = false;
    if (id == NSYS_NULL || !c->callchains)
        return 0;
    if (!seen)
        return intern_chain(c, kind, id, kernel_leaf);
    uint64_t *known = pairmap_find(seen, kind, id);
    if (known) {
        *kernel_leaf = *known & 1;
        return *known >> 1;
    }
    uint64_t iid = intern_chain(c, kind, id, kernel_leaf);
    if (seen->count >= MAX_SHARED_CHAINS)
        pairmap_free(seen);
    if (c->read_status == NSYSP_OK)
        *pairmap_upsert(seen, kind, id) = iid << 1 | (*kernel_leaf ? 1 : 0);
    return iid;
}
