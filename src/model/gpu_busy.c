/* GPU busy time: see gpu_busy.h. */
#include "gpu_busy.h"

bool busy_union_add(busy_union *u, int64_t start, int64_t end, int64_t *closed_start,
                    int64_t *closed_end)
{
    if (end <= start)
        return false; /* no time: no work */
    bool closed = false;
    if (u->open && start > u->end) {
        if (closed_start)
            *closed_start = u->start;
        if (closed_end)
            *closed_end = u->end;
        busy_union_close(u);
        closed = true;
    }
    if (!u->open) {
        u->open = true;
        u->start = start;
        u->end = end;
    } else if (end > u->end) {
        u->end = end;
    }
    return closed;
}

void busy_union_close(busy_union *u)
{
    if (u->open)
        u->total += u->end - u->start;
    u->open = false;
}

int64_t busy_union_total(const busy_union *u)
{
    return u->total + (u->open ? u->end - u->start : 0);
}
