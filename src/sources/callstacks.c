/* Call chains (OS runtime calls, CPU samples) to interned callstacks. */
#include "source.h"
#include "../nsys/nsys_callchains.h"

/* Deeper chains are cut at their outermost frames; nsys itself caps them. */
enum { MAX_FRAMES = 256 };

uint64_t source_callstack(conv *c, const char *chain, bool *kernel_leaf)
{
    *kernel_leaf = false;
    if (!chain)
        return 0;
    nsys_frame_ids ids[MAX_FRAMES];
    pw_frame frames[MAX_FRAMES];
    size_t n = nsys_callchain_parse(chain, ids, MAX_FRAMES);
    for (size_t i = 0; i < n; i++) {
        /* Empty names read as unknown ("[unknown]" in the trace). */
        const char *function = nsys_string(c->strings, ids[i].symbol);
        const char *module = nsys_string(c->strings, ids[i].module);
        frames[i].function = function && *function ? function : NULL;
        frames[i].module = module && *module ? module : NULL;
    }
    if (n)
        *kernel_leaf = ids[n - 1].kernel;
    return model_intern_callstack(&c->model, frames, n);
}
