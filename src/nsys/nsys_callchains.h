/* Call chains of CPU samples (SAMPLING_CALLCHAINS) and OS runtime calls
 * (OSRT_CALLCHAINS): rows of (id, stackDepth, symbol, module), depth 0 the
 * innermost frame. Neither table has an index on id, so both are copied
 * once into an indexed temporary table; a row's chain is then read through
 * a column expression as text "symbol,module,kernel;..." outermost first
 * (see nsys_callchain_parse). */
#ifndef NSYSP_NSYS_CALLCHAINS_H
#define NSYSP_NSYS_CALLCHAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

#define NSYS_CALLCHAINS_TABLE "temp.callchain_frames"

/* The chain of a row, for a table aliased t with column callchainId (OS
 * runtime) or id (samples). */
#define NSYS_CALLCHAIN_EXPR(kind, id_column)                                              \
    "SELECT group_concat(IFNULL(f.symbol, -1) || ',' || IFNULL(f.module, -1) || ','"      \
    " || IFNULL(f.kernel, 0), ';') FROM (SELECT symbol, module, kernel FROM"             \
    " temp.callchain_frames WHERE kind = " #kind " AND id = t." id_column                 \
    " ORDER BY depth DESC) AS f"
#define NSYS_CALLCHAIN_OSRT 0
#define NSYS_CALLCHAIN_SAMPLE 1

/* Builds the temporary table from whichever callchain tables exist. */
int nsys_callchains_build(nsys_db *db, buf *err);

typedef struct nsys_frame_ids {
    int64_t symbol;          /* StringIds ids, -1 when unknown */
    int64_t module;
    bool kernel;
} nsys_frame_ids;

/* Parses the text of NSYS_CALLCHAIN_EXPR into at most max frames; returns
 * how many. */
size_t nsys_callchain_parse(const char *text, nsys_frame_ids *frames, size_t max);

#endif
