/* A source: one nsys table, the columns read from it, and how each row
 * becomes timeline events. Adding a table is one new file here plus one
 * line in registry.c. */
#ifndef NSYSP_SOURCES_SOURCE_H
#define NSYSP_SOURCES_SOURCE_H

#include <regex.h>
#include <stdbool.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "common/utf8.h"
#include "common/pairmap.h"
#include "model/flows.h"
#include "model/model.h"
#include "nsys/nsys_callchains.h"
#include "nsys/nsys_cursor.h"
#include "nsys/nsys_links.h"
#include "nsys/nsys_enums.h"
#include "nsys/nsys_meta.h"
#include "nsys/nsys_strings.h"

/* What a source's emit sees: the track builder and the report's lookups. */
typedef struct conv {
    model model;
    flows flows;
    const nsys_strings *strings;
    const nsys_meta *meta;
    const nsys_enums *enums;
    const nsysp_options *opt;
    int64_t report_end;      /* where ranges still open at the end close */
    const regex_t *nvtx_filter; /* compiled opt->nvtx_filter, or NULL */
    nsys_callchains *callchains;
    nsys_links *links;       /* NULL when nothing is linked */
    void *state;             /* the state of the source being called (source.state_size) */
    buf scratch;             /* a string being built, valid until the next row */
    /* A read error met while emitting (emit then returns SOURCE_FAILED). */
    buf *err;
    int read_status;
} conv;

/* emit results: 0 emitted, SOURCE_SKIPPED(reason), or SOURCE_FAILED when
 * the output failed (the conversion stops). */
#define SOURCE_EMITTED 0
#define SOURCE_FAILED (-1)
#define SOURCE_SKIPPED(reason) (1 + (int)(reason))

/* read_status of a source that found GPU work written before the call
 * that launched it, without its flow: the conversion starts again with
 * the early calls known (nsys_links_build_early). */
#define SOURCE_CONVERT_AGAIN_EARLY_WORK 101

/* What a source's rows are, for the passes that look across tables. */
typedef enum source_kind {
    SOURCE_CPU,                  /* CPU-side rows */
    SOURCE_GPU_WORK,             /* GPU work launched by API calls (flows, busy time) */
    SOURCE_GPU_SYNC,             /* GPU synchronization launched by API calls (flows) */
} source_kind;

typedef struct source {
    const char *name;            /* for --stats and filters: "kernel" */
    const nsys_table *table;
    size_t row_size;
    size_t start_offset;         /* of the int64_t start in the row; rows
                                    arrive ordered by it */
    int (*emit)(conv *c, const void *row);
    source_kind kind;
    /* For sources that gather several rows into one event: called after
     * each row with the feed's next row (NULL at the end); writes what was
     * gathered unless next continues it. Returns SOURCE_EMITTED or
     * SOURCE_FAILED. Called before any other row, so output stays in time
     * order. */
    int (*end_group)(conv *c, const void *next);
    /* For sources that keep state across rows (running totals, tracks
     * looked up once): each conversion of a report gives the source a
     * zeroed block of state_size bytes, which emit and end_group reach as
     * c->state, and calls free_state (may be NULL) on it after the last
     * row. Sources without state leave both 0. */
    size_t state_size;
    void (*free_state)(void *state);
} source;

/* Every source, in a fixed order (ties at equal start go to the earlier):
 * i from 0 to sources_count() - 1. */
size_t sources_count(void);
const source *source_at(size_t i);
/* The CUDA API source, which GPU sources link their flows to. */
extern const source SOURCE_CUDA_API;
/* The NVTX ranges projected onto the GPU (built by a pass of their own). */
extern const source SOURCE_NVTX_GPU;

/* The result of a row from what the model said: -1 the output failed, 1
 * the row lands on a track the filters (--gpu, --pid) hide, 0 written. */
static inline int source_result(int model_rc)
{
    if (model_rc < 0)
        return SOURCE_FAILED;
    return model_rc > 0 ? SOURCE_SKIPPED(NSYSP_SKIP_FILTERED) : SOURCE_EMITTED;
}

/* Whether t is a time the converter can shift (NSYS_MAX_TIME). */
static inline bool source_time_in_range(int64_t t)
{
    return t >= -NSYS_MAX_TIME && t <= NSYS_MAX_TIME;
}

/* Checks a row's interval; 0 when usable, else SOURCE_SKIPPED(reason). */
static inline int source_check_interval(int64_t start, int64_t end)
{
    if (start == NSYS_NULL || end == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_NULL_TIMESTAMP);
    if (!source_time_in_range(start) || !source_time_in_range(end))
        return SOURCE_SKIPPED(NSYSP_SKIP_TIME_OUT_OF_RANGE);
    if (end < start)
        return SOURCE_SKIPPED(NSYSP_SKIP_END_BEFORE_START);
    return SOURCE_EMITTED;
}

/* source_check_interval for a row that goes on a thread's row. */
static inline int source_check_thread_interval(int64_t start, int64_t end, int64_t global_tid)
{
    int check = source_check_interval(start, end);
    if (check == SOURCE_EMITTED && global_tid == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    return check;
}

/* Interns call chain id of the given kind as a callstack; 0 when empty or
 * on a read error (c->read_status set). *kernel_leaf tells whether the
 * innermost frame runs in the kernel. seen (may be NULL) remembers the
 * chains of a source whose rows share chain ids (OS runtime calls):
 * (kind, id) -> callstack iid << 1 | kernel leaf; pairmap_free it after. */
uint64_t source_callstack(conv *c, nsys_callchain_kind kind, int64_t id, pairmap *seen,
                          bool *kernel_leaf);

/* Arg builders for the fixed arrays sources fill. */
static inline pw_arg arg_int(const char *name, int64_t v)
{
    return (pw_arg){.name = name, .type = PW_ARG_INT, .v.i = v};
}
static inline pw_arg arg_str(const char *name, const char *v)
{
    return (pw_arg){.name = name, .type = PW_ARG_STRING, .v.s = v};
}

/* A string arg whose value stays put for the whole conversion: from the
 * report's StringIds or enums, or a literal. */
static inline pw_arg arg_const_str(const char *name, const char *v)
{
    return (pw_arg){.name = name, .type = PW_ARG_CONSTANT_STRING, .v.s = v};
}

#endif
