/* Perfetto packet writer: encodes TracePackets with protobuf-c and streams
 * them into a pw_output. It knows tracks, events, interning and sequences,
 * and nothing about Nsight Systems.
 *
 * A sequence (pw_seq) is a stream of packets with its own interning tables,
 * as Perfetto defines it: its first packet clears incremental state, every
 * later one declares that it needs it, and each string (event name,
 * category, arg name, arg string value) is sent once per sequence and then
 * referred to by iid.
 *
 * Batches. A track's events do not go out on the sequence they are written
 * with but on a batch sequence of the writer, whose packets are gathered and
 * written BATCH_BLOCK bytes at a time: the packets of a track then sit
 * together in the file, and deflate finds them alike (a quarter smaller on
 * the benchmark's mix). trace_processor sorts all packets by time, keeping
 * file order among equal times and each sequence's own order, so what it
 * imports is the same:
 *   - all events of a track are on one sequence, in the order written;
 *   - descriptors go out at once, before any event that could use them;
 *   - an event with flows lets out first every batch holding a packet at its
 *     time or later, so that the other end of a flow at an equal time keeps
 *     coming first in the file.
 * Tracks whose events carry callstacks are written directly (PW_DIRECT):
 * callstack iids belong to the sequence that interned them. */
#ifndef NSYSP_PERFETTO_PW_WRITER_H
#define NSYSP_PERFETTO_PW_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pw_output.h"

typedef struct pw_writer pw_writer;
typedef struct pw_seq pw_seq;

/* ---- Tracks ---------------------------------------------------------- */

typedef enum pw_track_kind {
    PW_TRACK_PLAIN,     /* a slice track, or a group of tracks */
    PW_TRACK_PROCESS,   /* pid */
    PW_TRACK_THREAD,    /* pid, tid */
    PW_TRACK_COUNTER,
} pw_track_kind;

typedef enum pw_child_order {
    PW_ORDER_DEFAULT = 0,
    PW_ORDER_LEXICOGRAPHIC = 1,
    PW_ORDER_CHRONOLOGICAL = 2,
    PW_ORDER_EXPLICIT = 3,       /* children carry a rank */
} pw_child_order;

/* Where a Chrome trace (Kineto JSON, src/kineto/), which has no track
 * tree, puts a track's events: as its parent's unless set. Process and
 * thread tracks place themselves (pid, tid). */
typedef struct pw_chrome_place {
    bool set;
    bool gpu;                    /* a GPU's row or group: pid is the device */
    int64_t device;              /* gpu: the device */
    int64_t tid;                 /* the row's thread id there (a stream), or -1 */
    int32_t owner_pid;           /* the process whose rows these are (0: the device's) */
} pw_chrome_place;

typedef struct pw_track {
    uint64_t uuid;
    uint64_t parent_uuid;        /* 0: none */
    pw_track_kind kind;
    const char *name;            /* track, process or thread name */
    const char *description;     /* optional */
    int32_t pid;                 /* process and thread tracks */
    int64_t tid;                 /* thread tracks */
    pw_child_order child_order;
    bool has_rank;
    int32_t rank;                /* sibling_order_rank */
    const char *merge_key;       /* siblings with one key show as one row */
    const char *unit_name;       /* counter tracks */
    /* The batch of the track's events: 0, a batch of its own; tracks given
     * one key share one; PW_DIRECT, none (see "Batches" above). */
    uint64_t batch;
    pw_chrome_place chrome;
} pw_track;

#define PW_DIRECT UINT64_MAX

/* ---- Events ---------------------------------------------------------- */

typedef enum pw_event_type {
    PW_SLICE_BEGIN = 1,
    PW_SLICE_END = 2,
    PW_INSTANT = 3,
    PW_COUNTER = 4,
} pw_event_type;

typedef enum pw_arg_type {
    PW_ARG_INT,
    PW_ARG_UINT,
    PW_ARG_DOUBLE,
    PW_ARG_STRING,
    PW_ARG_CONSTANT_STRING,      /* a string whose text never changes at its
                                    address while the writer lives (a
                                    report's StringIds): interned by address */
    PW_ARG_BOOL,
} pw_arg_type;

/* A debug annotation; trace_processor shows it as arg "debug.<name>". */
typedef struct pw_arg {
    const char *name;            /* a constant: its text never changes while
                                    the writer lives (its iid is remembered
                                    by address) */
    pw_arg_type type;
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s;
        bool b;
    } v;
} pw_arg;

typedef struct pw_event {
    pw_event_type type;
    uint64_t ts;                 /* ns on the trace clock */
    uint64_t end;                /* BEGIN: the time its END will have (the
                                    slicer sets it), for writers of complete
                                    events; protobuf ignores it */
    uint64_t track_uuid;
    const char *name;            /* begins and instants; NULL for bare ends */
    bool name_is_constant;       /* name is a constant (as PW_ARG_CONSTANT_STRING) */
    const char *category;        /* optional; a constant, as pw_arg.name */
    const pw_arg *args;
    size_t n_args;
    const uint64_t *flow_ids;    /* this slice starts (or continues) flows */
    size_t n_flow_ids;
    const uint64_t *terminating_flow_ids;
    size_t n_terminating_flow_ids;
    bool counter_is_double;
    int64_t counter_int;
    double counter_double;
    uint64_t callstack_iid;      /* from pw_intern_callstack; 0: none */
    /* More double counter values at the same time, on other counter
     * tracks (at most PW_MAX_EXTRA_COUNTERS). */
    const uint64_t *extra_counter_tracks;
    const double *extra_counter_values;
    size_t n_extra_counters;
} pw_event;

/* trace_processor takes at most this many extra counter values per event. */
#define PW_MAX_EXTRA_COUNTERS 8

/* One frame of a callstack: a function in a module (either may be NULL). */
typedef struct pw_frame {
    const char *function;
    const char *module;
} pw_frame;

/* A context switch on one CPU, as ftrace's sched_switch records it. */
typedef struct pw_sched_switch {
    uint64_t ts;
    const char *prev_comm;
    int32_t prev_pid;            /* thread ids; 0 is the idle task */
    int64_t prev_state;          /* 0 R, 1 S, 2 D, 16 X (dead) */
    const char *next_comm;
    int32_t next_pid;
} pw_sched_switch;

/* ---- API ------------------------------------------------------------- */

/* The writer takes ownership of out (see pw_writer_finish). */
pw_writer *pw_writer_new(pw_output *out);

/* Opens a new packet sequence (ids count up from 1). */
pw_seq *pw_writer_sequence(pw_writer *w);

/* Writes the sequence's first packet explicitly (otherwise the first event
 * or descriptor is). With delta_timestamps, later packets carry the time
 * since the previous packet (a sequence-scoped incremental clock): write
 * them in time order. Returns 0 or -1. */
int pw_sequence_start(pw_seq *seq, bool delta_timestamps);

/* Writes a TrackDescriptor. ts may be 0 for "none". Returns 0 or -1. */
int pw_write_track(pw_seq *seq, uint64_t ts, const pw_track *track);

/* Writes one TrackEvent packet, on the batch of its track (see "Batches").
 * Returns 0 or -1 (output failed). */
int pw_write_event(pw_seq *seq, const pw_event *ev);

/* Interns a callstack, frames outermost (root) first, with its functions,
 * modules (one mapping each) and frames; returns its iid for a perf sample
 * or a TrackEvent on the same sequence. */
uint64_t pw_intern_callstack(pw_seq *seq, const pw_frame *frames, size_t n);

/* Writes a CPU sample of thread tid (of process pid) on cpu. */
int pw_write_perf_sample(pw_seq *seq, uint64_t ts, uint32_t cpu, int32_t pid, int32_t tid,
                         uint64_t callstack_iid, bool kernel_mode);

/* Writes the context switches of one CPU, in time order, as one bundle. */
int pw_write_sched_switches(pw_seq *seq, uint32_t cpu, const pw_sched_switch *switches,
                            size_t n);

/* ---- Another format --------------------------------------------------

 * A writer of another trace format (Kineto JSON, src/kineto/) receives what
 * this writer would pack, as the model writes it: every track descriptor
 * and event. CPU samples, context switches and callstacks have no form
 * there: they are counted (dropped) and left out. */
typedef struct pw_backend {
    void *ctx;
    int (*descriptor)(void *ctx, const pw_track *desc);
    int (*event)(void *ctx, const pw_event *ev);
    void (*dropped)(void *ctx, uint64_t n);
    int (*error)(void *ctx);     /* errno of the first failed write, or 0 */
    /* Commits (ok) or discards the output, frees ctx; as pw_writer_finish. */
    int (*finish)(void *ctx, bool ok, buf *err, pw_output_totals *totals);
} pw_backend;

/* A writer that hands everything to backend instead of packing it. */
pw_writer *pw_writer_new_backend(const pw_backend *backend);

/* The errno of the first failed write to the output, or 0. */
int pw_writer_error(pw_writer *w);

/* Packets written so far. */
uint64_t pw_writer_packets(const pw_writer *w);

/* Writes out the batches and gives the tracks written from now on new batch
 * sequences: events that start over in time (the next of several merged
 * reports) do not go back in time on a sequence that already holds later
 * ones. Returns 0, or -1 once a write failed. */
int pw_writer_new_batches(pw_writer *w);

/* Tells trace_processor that it may sort what came before: writes out the
 * batches, then the tracing service's markers (two flushes and a buffer
 * read, at ts), after which trace_processor sorts and lets go of the
 * packets written before the previous such mark, instead of holding the
 * whole trace until its end. The caller promises that no packet written
 * after this mark is older than the previous mark's ts (packets come out
 * in time order, and nothing is held back elsewhere). A third of the
 * memory of opening the trace. Returns 0, or -1 once a write failed. */
int pw_writer_mark_sorted(pw_writer *w, uint64_t ts);

/* Writes out the batches and commits (ok), or discards the output; then
 * frees everything. Returns 0, or
 * -1 with a message in err. totals (may be NULL) gets the byte counts. */
int pw_writer_finish(pw_writer *w, bool ok, buf *err, pw_output_totals *totals);

#endif
