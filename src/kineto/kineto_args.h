/* What our events are called in Kineto's JSON: the category PyTorch's
 * profiler gives the same kind of event, and its names for the args it
 * shares with ours (HTA finds GPU work by the args "stream" and
 * "correlation", op ranges by "Sequence number"...). Args Kineto has no
 * name for keep ours. Also the text helpers of the JSON writer. */
#ifndef NSYSP_KINETO_KINETO_ARGS_H
#define NSYSP_KINETO_KINETO_ARGS_H

#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/hmap.h"
#include "perfetto/pw_writer.h"

typedef enum kineto_kind {
    KINETO_KERNEL,               /* "kernel" */
    KINETO_MEMCPY,               /* "gpu_memcpy" */
    KINETO_MEMSET,               /* "gpu_memset" */
    KINETO_RUNTIME,              /* "cuda_runtime" */
    KINETO_DRIVER,               /* "cuda_driver" */
    KINETO_CPU_OP,               /* "cpu_op": a PyTorch op range (emit_nvtx) */
    KINETO_USER_ANNOTATION,      /* "user_annotation": other NVTX ranges */
    KINETO_GPU_USER_ANNOTATION,  /* "gpu_user_annotation": NVTX projected onto the GPU */
    KINETO_SYNC,                 /* "cuda_sync" */
    KINETO_OTHER,                /* our own category (osrt, mpi, ...) */
} kineto_kind;

/* Whether events of kind k are GPU work that HTA counts (they carry
 * "stream" and "correlation"; on other events the stream is "stream id",
 * so that HTA does not count syncs and graph ranges as GPU time, as nsys
 * does not). */
static inline int kineto_is_gpu_work(kineto_kind k)
{
    return k == KINETO_KERNEL || k == KINETO_MEMCPY || k == KINETO_MEMSET;
}

/* ---- Text ---------------------------------------------------------------- */

/* Appends n bytes; the capacity check inline: the writer appends a few
 * bytes at a time, millions of times. */
static inline void kineto_put(buf *out, const void *s, size_t n)
{
    if (out->len + n >= out->cap)
        buf_reserve(out, n);
    memcpy(out->data + out->len, s, n);
    out->len += n;
}

#define KINETO_PUT_LITERAL(out, lit) kineto_put((out), (lit), sizeof(lit) - 1)

void kineto_append_int(buf *out, int64_t v);
void kineto_append_uint(buf *out, uint64_t v);

/* Appends ns as microseconds with three decimals ("12.345"): Kineto's
 * precision, which holds every nanosecond. */
void kineto_append_us(buf *out, uint64_t ns);

/* A double as JSON: integral values as integers, NaN and infinities as
 * null (JSON has neither). */
void kineto_append_double(buf *out, double v);

/* ---- Strings written many times ------------------------------------------ */

/* The JSON text of strings that stay put at their address for the whole
 * conversion (event names, arg names, the report's strings: pw_writer.h's
 * constants), escaped once. Grows with distinct strings, not events. */
#define KINETO_RECENT 1024

typedef struct kineto_strings {
    hmap by_address;             /* (address, kind) -> offset << 32 | length << 8 | role */
    buf text;
    /* The entries last used, by address: most events hit here, without
     * hashing (a kernel's dozen args, every event). */
    struct {
        const char *s;
        int kind;
        uint64_t entry;
    } recent[KINETO_RECENT];
} kineto_strings;

void kineto_strings_init(kineto_strings *c);
void kineto_strings_free(kineto_strings *c);

/* Appends the constant s as a JSON string. */
void kineto_append_constant(kineto_strings *c, buf *out, const char *s);

/* ---- Events -------------------------------------------------------------- */

/* The kind of ev (its category, and for NVTX its args). */
kineto_kind kineto_kind_of(const pw_event *ev);

/* The category written for an event of kind k whose category is ours. */
const char *kineto_category(kineto_kind k, const char *ours);

/* The event's "correlation id" arg, or -1. */
int64_t kineto_correlation_of(const pw_event *ev);

/* Appends ,"args":{...} for ev's args under Kineto's names (nothing when
 * it has none). dur_ns gives copies and sets their bandwidth; correlation
 * (>= 0) is written as "correlation" when ev has no "correlation id" arg:
 * the protobuf trace leaves it to the flow (gpu_op.h), Kineto's readers
 * join a launch and its work on it. */
void kineto_append_args(kineto_strings *c, buf *out, kineto_kind k, const pw_event *ev,
                        uint64_t dur_ns, int64_t correlation);

#endif
