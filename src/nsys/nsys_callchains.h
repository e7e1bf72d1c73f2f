/* Call chains of CPU samples (SAMPLING_CALLCHAINS) and OS runtime calls
 * (OSRT_CALLCHAINS): rows of (id, stackDepth, symbol, module, kernelMode),
 * depth 0 the innermost frame.
 *
 * Neither table has an index on id. nsys stores both ordered by (id,
 * depth), and asks for chains come in increasing id order (sample ids grow
 * with time; an OS runtime chain is asked for when it is first used, and
 * first uses come in id order), so a chain is read by moving one cursor
 * forward over the table as stored. The first ask that goes back, or a
 * table found out of order, switches that kind to an indexed temporary
 * copy of the table, looked up per ask. */
#ifndef NSYSP_NSYS_CALLCHAINS_H
#define NSYSP_NSYS_CALLCHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

typedef enum nsys_callchain_kind {
    NSYS_CALLCHAIN_OSRT,     /* OSRT_API.callchainId -> OSRT_CALLCHAINS */
    NSYS_CALLCHAIN_SAMPLE,   /* COMPOSITE_EVENTS.id -> SAMPLING_CALLCHAINS */
    NSYS_CALLCHAIN_KINDS
} nsys_callchain_kind;

typedef struct nsys_frame_ids {
    int64_t symbol;          /* StringIds ids, NSYS_NULL when unknown */
    int64_t module;
    bool kernel;
} nsys_frame_ids;

typedef struct nsys_callchains nsys_callchains;

struct nsys_readahead;

/* Opens the chains of db's report into *out (set even on failure: close
 * it). With ra, the chains of the kinds wanted that are stored by id are
 * read on its readers (call before nsys_readahead_start); the others are
 * looked at on their first ask. Returns an nsysp_status. */
int nsys_callchains_open(nsys_db *db, struct nsys_readahead *ra,
                         const bool wanted[NSYS_CALLCHAIN_KINDS], nsys_callchains **out,
                         buf *err);
void nsys_callchains_close(nsys_callchains *cc);

/* The frames of chain id, outermost first, into at most max frames (the
 * outermost are cut from deeper chains). Returns how many (0 for an
 * unknown id or a report without the table), or -1 on a read error with
 * err and *status set. */
int nsys_callchains_get(nsys_callchains *cc, nsys_callchain_kind kind, int64_t id,
                        nsys_frame_ids *frames, size_t max, buf *err, int *status);

#endif
