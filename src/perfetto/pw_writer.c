#include "pw_writer.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "pftrace.pb-c.h"
#include "pw_event_packet.h"

/* The kinds of strings Perfetto lets a sequence intern, each with its own
 * iid space. */
enum intern_kind {
    INTERN_EVENT_NAME,
    INTERN_CATEGORY,
    INTERN_ARG_NAME,
    INTERN_ARG_STRING,
    INTERN_FUNCTION_NAME,
    INTERN_MAPPING_PATH,
    INTERN_KINDS
};

/* Callstack pieces waiting to go out with the next packet. */
typedef struct pending_frame {
    uint64_t iid, function_iid, mapping_iid;
} pending_frame;

typedef struct pending_mapping {
    uint64_t iid, path_iid;
} pending_mapping;

typedef struct pending_callstack {
    uint64_t iid;
    size_t first, n;        /* frame ids in the sequence's frame_ids pool */
} pending_callstack;

/* A constant string's iid, remembered by the string's address. */
typedef struct known_constant {
    const char *s;
    uint64_t iid;
} known_constant;

enum { CONSTANT_SLOTS = 256 };

/* Batches (pw_writer.h): at most BATCH_SEQUENCES batch sequences (more keys
 * share them), each written out when it holds BATCH_BLOCK bytes, and all of
 * them when together they hold BATCH_TOTAL. Memory stays bounded whatever
 * the number of tracks. */
enum {
    BATCH_SEQUENCES = 128,
    BATCH_BLOCK = 64 * 1024,
    BATCH_TOTAL = 8 * 1024 * 1024,
};
_Static_assert(BATCH_SEQUENCES < 256, "batch indexes are bytes");

/* One interned entry waiting to go out with the next packet. */
typedef struct pending_string {
    uint64_t iid;
    const char *str;   /* owned by the sequence's hmap arena */
} pending_string;

struct pw_seq {
    pw_writer *writer;
    uint32_t id;
    bool started;                          /* first packet written */
    bool delta_clock;                      /* timestamps as deltas (clock 64) */
    uint64_t last_ts;                      /* for the deltas */
    hmap interned[INTERN_KINDS];
    known_constant constants[INTERN_KINDS][CONSTANT_SLOTS];
    pending_string *pending[INTERN_KINDS]; /* new since the last packet */
    size_t n_pending[INTERN_KINDS];
    size_t cap_pending[INTERN_KINDS];
    /* Callstacks: (function iid, mapping iid) -> frame iid; path iid ->
     * mapping iid; frame id list -> callstack iid. */
    hmap frames, mappings, callstacks;
    hmap repaired;                         /* storage of repaired (UTF-8) strings */
    pending_frame *new_frames;
    size_t n_new_frames, cap_new_frames;
    pending_mapping *new_mappings;
    size_t n_new_mappings, cap_new_mappings;
    pending_callstack *new_callstacks;
    size_t n_new_callstacks, cap_new_callstacks;
    uint64_t *frame_ids;                   /* pool for new_callstacks */
    size_t n_frame_ids, cap_frame_ids;
    bool batched;                          /* a batch sequence */
    buf batch;                             /* its packets not written yet */
    uint64_t batch_flow_ts;                /* time of its latest event with
                                              flows, while it waits */
    pw_seq *next;
};

struct pw_writer {
    pw_output *out;
    pw_seq *sequences;
    uint32_t next_seq_id;
    uint64_t packets;
    uint8_t *pack_buf;                     /* scratch for one packed packet */
    size_t pack_cap;
    buf scratch;                           /* UTF-8 repairs */
    buf track_strings[4];                  /* repaired strings of one descriptor */
    int failed;
    /* Scratch arrays for building one TrackEvent, reused across events. */
    Pftrace__DebugAnnotation *annotations;
    Pftrace__DebugAnnotation **annotation_ptrs;
    size_t annotations_cap;
    /* Batches: the batch of each track uuid (index + 1 in batches, 0 for
     * none; uuids are small), the batch sequences, and the bytes they hold
     * together. */
    uint8_t *batch_of_track;
    size_t batch_of_track_cap;
    pw_seq *batches[BATCH_SEQUENCES];
    size_t batched_bytes;
    uint64_t flow_ts;                      /* latest time of an event with flows */
    pw_seq *service;                       /* the markers' (pw_writer_mark_sorted) */
    const pw_backend *backend;             /* another format: see pw_writer.h */
    pw_backend backend_storage;
};

pw_writer *pw_writer_new(pw_output *out)
{
    pw_writer *w = xcalloc(1, sizeof *w);
    w->out = out;
    w->next_seq_id = 1;
    return w;
}

pw_writer *pw_writer_new_backend(const pw_backend *backend)
{
    pw_writer *w = xcalloc(1, sizeof *w);
    w->backend_storage = *backend;
    w->backend = &w->backend_storage;
    w->next_seq_id = 1;
    return w;
}

pw_seq *pw_writer_sequence(pw_writer *w)
{
    pw_seq *s = xcalloc(1, sizeof *s);
    s->writer = w;
    hmap_init(&s->repaired);
    s->id = w->next_seq_id++;
    for (int k = 0; k < INTERN_KINDS; k++)
        hmap_init(&s->interned[k]);
    hmap_init(&s->frames);
    hmap_init(&s->mappings);
    hmap_init(&s->callstacks);
    s->next = w->sequences;
    w->sequences = s;
    return s;
}

static int emit_packet(pw_seq *seq, Pftrace__TracePacket *pkt);
static int batch_append(pw_writer *w, pw_seq *seq, const uint8_t *packet, size_t n);

/* The sequence-scoped clock of delta timestamps, and the trace clock. */
enum { DELTA_CLOCK = 64, BOOTTIME_CLOCK = 6 };

int pw_sequence_start(pw_seq *seq, bool delta_timestamps)
{
    /* The first packet clears incremental state and sets the defaults, so
     * even a trace without events is a valid one. With delta timestamps it
     * also defines clock 64: incremental, equal to the trace clock at 0, so
     * each packet's timestamp is the time since the previous one's, which
     * takes fewer bytes and compresses far better. */
    Pftrace__TracePacketDefaults defaults = PFTRACE__TRACE_PACKET_DEFAULTS__INIT;
    Pftrace__ClockSnapshot snapshot = PFTRACE__CLOCK_SNAPSHOT__INIT;
    Pftrace__ClockSnapshot__Clock trace_clock = PFTRACE__CLOCK_SNAPSHOT__CLOCK__INIT;
    Pftrace__ClockSnapshot__Clock delta_clock = PFTRACE__CLOCK_SNAPSHOT__CLOCK__INIT;
    Pftrace__ClockSnapshot__Clock *clocks[2] = {&trace_clock, &delta_clock};
    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    if (seq->writer->backend)
        return 0;
    pkt.trace_packet_defaults = &defaults;
    if (delta_timestamps) {
        defaults.has_timestamp_clock_id = 1;
        defaults.timestamp_clock_id = DELTA_CLOCK;
        trace_clock.has_clock_id = trace_clock.has_timestamp = 1;
        trace_clock.clock_id = BOOTTIME_CLOCK;
        delta_clock.has_clock_id = delta_clock.has_timestamp = delta_clock.has_is_incremental = 1;
        delta_clock.clock_id = DELTA_CLOCK;
        delta_clock.is_incremental = 1;
        snapshot.n_clocks = 2;
        snapshot.clocks = clocks;
        snapshot.has_primary_trace_clock = 1;
        snapshot.primary_trace_clock = BOOTTIME_CLOCK;
        pkt.data_case = PFTRACE__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
        pkt.clock_snapshot = &snapshot;
    }
    int rc = emit_packet(seq, &pkt);
    seq->delta_clock = delta_timestamps;
    seq->last_ts = 0;
    return rc;
}

/* Returns the iid of s on seq, queueing its definition for the next packet
 * the first time s is seen. */
static uint64_t intern_iid(pw_seq *seq, enum intern_kind kind, const char *s)
{
    bool inserted;
    hmap *m = &seq->interned[kind];
    size_t len = strlen(s);
    uint64_t *slot = hmap_upsert(m, s, len, &inserted);
    if (inserted) {
        *slot = m->count; /* iids start at 1 */
        /* Proto strings must be valid UTF-8: whatever a source passes (raw
         * report text, names cut by a fixed buffer) is repaired once, here,
         * when it is first seen. */
        const char *str = hmap_key_of(m, slot);
        const char *clean = utf8_sanitize(str, len, &seq->writer->scratch);
        if (clean != str) {
            uint64_t *kept = hmap_upsert(&seq->repaired, clean, strlen(clean), NULL);
            str = hmap_key_of(&seq->repaired, kept);
        }
        seq->pending[kind] = xgrow(seq->pending[kind], &seq->cap_pending[kind],
                                   seq->n_pending[kind] + 1, sizeof(pending_string));
        seq->pending[kind][seq->n_pending[kind]++] = (pending_string){.iid = *slot, .str = str};
    }
    return *slot;
}

/* intern_iid for strings whose text never changes at their address (arg
 * names and categories, the sources' constants; names from a report's
 * StringIds): a kernel event has a dozen, some of them long, and a
 * direct-mapped cache by address spares hashing them each time. */
static uint64_t intern_constant(pw_seq *seq, enum intern_kind kind, const char *s)
{
    size_t slot = (size_t)(((uintptr_t)s * UINT64_C(0x9E3779B97F4A7C15)) >> 56); /* CONSTANT_SLOTS */
    known_constant *k = &seq->constants[kind][slot];
    if (k->s != s) {
        k->iid = intern_iid(seq, kind, s);
        k->s = s;
    }
    return k->iid;
}

/* ---- Packet framing ---------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Where each kind of interned string goes in InternedData, and the message
 * type of its entries. Every entry type has iid = 1 and the string
 * (string or bytes) = 2, so one generic builder serves them all. */
static const struct {
    uint32_t field;                               /* in InternedData */
    const ProtobufCMessageDescriptor *entry;
} INTERN_FIELDS[INTERN_KINDS] = {
    [INTERN_EVENT_NAME] = {2, &pftrace__event_name__descriptor},
    [INTERN_CATEGORY] = {1, &pftrace__event_category__descriptor},
    [INTERN_ARG_NAME] = {3, &pftrace__debug_annotation_name__descriptor},
    [INTERN_ARG_STRING] = {29, &pftrace__interned_string__descriptor},
    [INTERN_FUNCTION_NAME] = {5, &pftrace__interned_string__descriptor},
    [INTERN_MAPPING_PATH] = {17, &pftrace__interned_string__descriptor},
};

/* Storage of one packet's InternedData, freed once the packet is packed. */
typedef struct interned_scratch {
    Pftrace__InternedData data;
    void *entries[INTERN_KINDS];
    void **ptrs[INTERN_KINDS];
    Pftrace__Mapping *mappings;
    Pftrace__Mapping **mapping_ptrs;
    Pftrace__Frame *frames;
    Pftrace__Frame **frame_ptrs;
    Pftrace__Callstack *callstacks;
    Pftrace__Callstack **callstack_ptrs;
} interned_scratch;

#define FIELD_AT(msg, offset, type) ((type *)((char *)(msg) + (offset)))

static void set_entry(const ProtobufCMessageDescriptor *d, void *msg, const pending_string *p)
{
    protobuf_c_message_init(d, msg);
    const ProtobufCFieldDescriptor *iid = protobuf_c_message_descriptor_get_field(d, 1);
    const ProtobufCFieldDescriptor *str = protobuf_c_message_descriptor_get_field(d, 2);
    *FIELD_AT(msg, iid->quantifier_offset, protobuf_c_boolean) = 1;
    *FIELD_AT(msg, iid->offset, uint64_t) = p->iid;
    if (str->type == PROTOBUF_C_TYPE_BYTES) {
        *FIELD_AT(msg, str->quantifier_offset, protobuf_c_boolean) = 1;
        ProtobufCBinaryData *bytes = FIELD_AT(msg, str->offset, ProtobufCBinaryData);
        bytes->data = (uint8_t *)p->str;
        bytes->len = strlen(p->str);
    } else {
        *FIELD_AT(msg, str->offset, char *) = (char *)p->str;
    }
}

static bool has_pending(const pw_seq *seq)
{
    for (int k = 0; k < INTERN_KINDS; k++)
        if (seq->n_pending[k])
            return true;
    return seq->n_new_frames || seq->n_new_mappings || seq->n_new_callstacks;
}

/* Mappings, frames and callstacks: structured entries, built one by one. */
static void build_callstack_entries(pw_seq *seq, interned_scratch *sc)
{
    size_t n = seq->n_new_mappings;
    if (n) {
        sc->mappings = xmalloc(n * sizeof *sc->mappings);
        sc->mapping_ptrs = xmalloc(n * sizeof *sc->mapping_ptrs);
        for (size_t i = 0; i < n; i++) {
            Pftrace__Mapping *m = &sc->mappings[i];
            pftrace__mapping__init(m);
            m->has_iid = 1;
            m->iid = seq->new_mappings[i].iid;
            m->n_path_string_ids = 1;
            m->path_string_ids = &seq->new_mappings[i].path_iid;
            sc->mapping_ptrs[i] = m;
        }
        sc->data.n_mappings = n;
        sc->data.mappings = sc->mapping_ptrs;
    }
    if ((n = seq->n_new_frames)) {
        sc->frames = xmalloc(n * sizeof *sc->frames);
        sc->frame_ptrs = xmalloc(n * sizeof *sc->frame_ptrs);
        for (size_t i = 0; i < n; i++) {
            Pftrace__Frame *f = &sc->frames[i];
            const pending_frame *p = &seq->new_frames[i];
            pftrace__frame__init(f);
            f->has_iid = f->has_function_name_id = f->has_mapping_id = f->has_rel_pc = 1;
            f->iid = p->iid;
            f->function_name_id = p->function_iid;
            f->mapping_id = p->mapping_iid;
            /* Unique per frame: older trace_processors merge frames by pc. */
            f->rel_pc = p->iid;
            sc->frame_ptrs[i] = f;
        }
        sc->data.n_frames = n;
        sc->data.frames = sc->frame_ptrs;
    }
    if ((n = seq->n_new_callstacks)) {
        sc->callstacks = xmalloc(n * sizeof *sc->callstacks);
        sc->callstack_ptrs = xmalloc(n * sizeof *sc->callstack_ptrs);
        for (size_t i = 0; i < n; i++) {
            Pftrace__Callstack *c = &sc->callstacks[i];
            const pending_callstack *p = &seq->new_callstacks[i];
            pftrace__callstack__init(c);
            c->has_iid = 1;
            c->iid = p->iid;
            c->n_frame_ids = p->n;
            c->frame_ids = seq->frame_ids + p->first;
            sc->callstack_ptrs[i] = c;
        }
        sc->data.n_callstacks = n;
        sc->data.callstacks = sc->callstack_ptrs;
    }
}

static void build_interned(pw_seq *seq, interned_scratch *sc)
{
    pftrace__interned_data__init(&sc->data);
    const ProtobufCMessageDescriptor *data_desc = &pftrace__interned_data__descriptor;
    for (int k = 0; k < INTERN_KINDS; k++) {
        size_t n = seq->n_pending[k];
        if (!n)
            continue;
        const ProtobufCMessageDescriptor *d = INTERN_FIELDS[k].entry;
        sc->entries[k] = xmalloc(n * d->sizeof_message);
        sc->ptrs[k] = xmalloc(n * sizeof(void *));
        for (size_t i = 0; i < n; i++) {
            void *msg = (char *)sc->entries[k] + i * d->sizeof_message;
            set_entry(d, msg, &seq->pending[k][i]);
            sc->ptrs[k][i] = msg;
        }
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(data_desc, INTERN_FIELDS[k].field);
        *FIELD_AT(&sc->data, f->quantifier_offset, size_t) = n;
        *FIELD_AT(&sc->data, f->offset, void **) = sc->ptrs[k];
    }
    build_callstack_entries(seq, sc);
}

static void free_interned(pw_seq *seq, interned_scratch *sc)
{
    for (int k = 0; k < INTERN_KINDS; k++) {
        free(sc->entries[k]);
        free(sc->ptrs[k]);
        seq->n_pending[k] = 0;
    }
    free(sc->mappings);
    free(sc->mapping_ptrs);
    free(sc->frames);
    free(sc->frame_ptrs);
    free(sc->callstacks);
    free(sc->callstack_ptrs);
    seq->n_new_mappings = seq->n_new_frames = seq->n_new_callstacks = seq->n_frame_ids = 0;
}

static int output_write(pw_writer *w, const void *data, size_t n)
{
    if (pw_output_write(w->out, data, n) < 0) {
        w->failed = 1;
        return -1;
    }
    return 0;
}

/* ---- Batches ----------------------------------------------------------- */

/* Writes out what a batch sequence holds. */
static int batch_write(pw_writer *w, pw_seq *seq)
{
    size_t n = seq->batch.len;
    seq->batch.len = 0;
    seq->batch_flow_ts = UINT64_MAX;
    w->batched_bytes -= n;
    return n ? output_write(w, seq->batch.data, n) : 0;
}

/* Writes out every batch. */
static int batches_write(pw_writer *w)
{
    for (size_t i = 0; i < BATCH_SEQUENCES; i++)
        if (w->batches[i] && batch_write(w, w->batches[i]) < 0)
            return -1;
    return 0;
}

/* Adds a packet to a batch sequence's batch, writing the batch out first
 * when the packet would take it past BATCH_BLOCK (buf keeps a byte for a
 * NUL), and every batch when together they reach BATCH_TOTAL. */
static int batch_append(pw_writer *w, pw_seq *seq, const uint8_t *packet, size_t n)
{
    if (seq->batch.len && seq->batch.len + n + 1 > BATCH_BLOCK && batch_write(w, seq) < 0)
        return -1;
    buf_append(&seq->batch, packet, n);
    w->batched_bytes += n;
    return w->batched_bytes >= BATCH_TOTAL ? batches_write(w) : 0;
}

/* Before an event with flows at ts goes on seq: the events with flows at
 * that same time waiting in other batches go out first, so that the other
 * end of a flow keeps its place before this one in the file (trace_processor
 * keeps file order among equal times). Events come in time order, so only
 * the latest time with flows can tie. */
static int flows_keep_order(pw_writer *w, pw_seq *seq, uint64_t ts)
{
    if (ts == w->flow_ts) {
        for (size_t i = 0; i < BATCH_SEQUENCES; i++) {
            pw_seq *b = w->batches[i];
            if (b && b != seq && b->batch_flow_ts == ts && batch_write(w, b) < 0)
                return -1;
        }
    }
    w->flow_ts = ts;
    seq->batch_flow_ts = ts;
    return 0;
}

/* The sequence the events of track uuid go on: its batch, or seq. A
 * batch keeps the timestamps of the sequence that first fills it (the
 * report's: every report's are alike). */
static pw_seq *events_sequence(pw_writer *w, pw_seq *seq, uint64_t uuid)
{
    if (uuid >= w->batch_of_track_cap || !w->batch_of_track[uuid])
        return seq;
    pw_seq **batch = &w->batches[w->batch_of_track[uuid] - 1];
    if (!*batch) {
        *batch = pw_writer_sequence(w);
        (*batch)->batched = true;
        (*batch)->batch_flow_ts = UINT64_MAX;
        pw_sequence_start(*batch, seq->delta_clock);
    }
    return *batch;
}

/* Gives track uuid the batch of key. Tracks with uuids too large to index
 * (none the converter makes) stay direct. */
static void set_batch(pw_writer *w, uint64_t uuid, uint64_t key)
{
    if (uuid > UINT32_MAX)
        return;
    if (uuid >= w->batch_of_track_cap) {
        size_t old = w->batch_of_track_cap;
        w->batch_of_track = xgrow(w->batch_of_track, &w->batch_of_track_cap, uuid + 1, 1);
        memset(w->batch_of_track + old, 0, w->batch_of_track_cap - old);
    }
    w->batch_of_track[uuid] = (uint8_t)(1 + key % BATCH_SEQUENCES);
}

/* Whether pkt refers to what its sequence interned. A track event that
 * names nothing (a slice's end, a counter value) does not, and needs no
 * SEQ_NEEDS_INCREMENTAL_STATE: two bytes less on half the packets. */
static bool uses_interned(const Pftrace__TracePacket *pkt)
{
    const Pftrace__TrackEvent *te = pkt->track_event;
    if (pkt->data_case == PFTRACE__TRACE_PACKET__DATA_SERVICE_EVENT)
        return false;
    if (pkt->data_case != PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT || !te)
        return true;
    return te->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID ||
           te->n_category_iids || te->n_debug_annotations || te->has_callstack_iid;
}

/* Stamps the sequence fields on pkt, attaches pending interned data, packs
 * it and writes it framed as field 1 (packet) of the Trace message: to the
 * output, or to the sequence's batch. */
static int emit_packet(pw_seq *seq, Pftrace__TracePacket *pkt)
{
    pw_writer *w = seq->writer;
    if (w->failed)
        return -1;
    pkt->has_trusted_packet_sequence_id = 1;
    pkt->trusted_packet_sequence_id = seq->id;
    pkt->has_sequence_flags = 1;
    if (!seq->started) {
        /* Incremental state starts invalid; the first packet must clear it
         * before any interned data can be defined. */
        pkt->sequence_flags = PFTRACE__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
        pkt->has_first_packet_on_sequence = 1;
        pkt->first_packet_on_sequence = 1;
        seq->started = true;
    } else if (uses_interned(pkt) || has_pending(seq)) {
        pkt->sequence_flags = PFTRACE__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
    } else {
        pkt->has_sequence_flags = 0;
    }

    /* Delta timestamps need time order; a packet out of order (none is
     * expected) says so and carries its absolute time instead. */
    if (seq->delta_clock && pkt->has_timestamp) {
        if (pkt->timestamp >= seq->last_ts) {
            uint64_t ts = pkt->timestamp;
            pkt->timestamp = ts - seq->last_ts;
            seq->last_ts = ts;
        } else {
            pkt->has_timestamp_clock_id = 1;
            pkt->timestamp_clock_id = BOOTTIME_CLOCK;
        }
    }

    interned_scratch sc = {0};
    bool with_interned = has_pending(seq);
    if (with_interned) {
        build_interned(seq, &sc);
        pkt->interned_data = &sc.data;
    }

    /* Events go through the hand packer (pw_event_packet.h), the rest
     * through protobuf-c. */
    bool by_hand = !with_interned && pw_event_packet_supported(pkt);
    pw_event_sizes sizes;
    size_t size = by_hand ? pw_event_packet_size(pkt, &sizes)
                          : protobuf_c_message_get_packed_size(&pkt->base);
    w->pack_buf = xgrow(w->pack_buf, &w->pack_cap, size + 11, 1);
    w->pack_buf[0] = 0x0A; /* Trace.packet: field 1, length-delimited */
    size_t head = 1 + put_varint(w->pack_buf + 1, size);
    if (by_hand)
        pw_event_packet_pack(pkt, &sizes, w->pack_buf + head);
    else
        protobuf_c_message_pack(&pkt->base, w->pack_buf + head);

    if (with_interned) {
        pkt->interned_data = NULL;
        free_interned(seq, &sc);
    }
    w->packets++;
    return seq->batched ? batch_append(w, seq, w->pack_buf, head + size)
                        : output_write(w, w->pack_buf, head + size);
}

/* ---- Tracks ------------------------------------------------------------ */

/* s as valid UTF-8 (repaired into storage when it is not), or NULL. */
static char *valid_utf8(const char *s, buf *storage)
{
    return s ? (char *)utf8_sanitize(s, strlen(s), storage) : NULL;
}

int pw_write_track(pw_seq *seq, uint64_t ts, const pw_track *t)
{
    if (seq->writer->backend)
        return seq->writer->backend->descriptor(seq->writer->backend->ctx, t);
    buf *store = seq->writer->track_strings;
    char *name = valid_utf8(t->name, &store[0]);
    Pftrace__TrackDescriptor td = PFTRACE__TRACK_DESCRIPTOR__INIT;
    Pftrace__ProcessDescriptor pd = PFTRACE__PROCESS_DESCRIPTOR__INIT;
    Pftrace__ThreadDescriptor thd = PFTRACE__THREAD_DESCRIPTOR__INIT;
    Pftrace__CounterDescriptor cd = PFTRACE__COUNTER_DESCRIPTOR__INIT;

    td.has_uuid = 1;
    td.uuid = t->uuid;
    if (t->parent_uuid) {
        td.has_parent_uuid = 1;
        td.parent_uuid = t->parent_uuid;
    }
    switch (t->kind) {
    case PW_TRACK_PROCESS:
        /* trace_processor names process tracks from the descriptor. */
        pd.has_pid = 1;
        pd.pid = t->pid;
        pd.process_name = name;
        td.process = &pd;
        break;
    case PW_TRACK_THREAD:
        thd.has_pid = 1;
        thd.pid = t->pid;
        thd.has_tid = 1;
        thd.tid = t->tid;
        thd.thread_name = name;
        td.thread = &thd;
        break;
    case PW_TRACK_COUNTER:
        cd.unit_name = valid_utf8(t->unit_name, &store[1]);
        td.counter = &cd;
        break;
    case PW_TRACK_PLAIN:
        break;
    }
    /* Process and thread tracks are named by their descriptors. */
    if (t->name && (t->kind == PW_TRACK_PLAIN || t->kind == PW_TRACK_COUNTER)) {
        td.static_or_dynamic_name_case = PFTRACE__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
        td.name = name;
    }
    td.description = valid_utf8(t->description, &store[2]);
    if (t->child_order != PW_ORDER_DEFAULT) {
        td.has_child_ordering = 1;
        td.child_ordering = (Pftrace__TrackDescriptor__ChildTracksOrdering)t->child_order;
    }
    if (t->has_rank) {
        td.has_sibling_order_rank = 1;
        td.sibling_order_rank = t->rank;
    }
    if (t->merge_key) {
        td.has_sibling_merge_behavior = 1;
        td.sibling_merge_behavior =
            PFTRACE__TRACK_DESCRIPTOR__SIBLING_MERGE_BEHAVIOR__SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY;
        td.sibling_merge_key_field_case =
            PFTRACE__TRACK_DESCRIPTOR__SIBLING_MERGE_KEY_FIELD_SIBLING_MERGE_KEY;
        td.sibling_merge_key = valid_utf8(t->merge_key, &store[3]);
    }

    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    if (ts) {
        pkt.has_timestamp = 1;
        pkt.timestamp = ts;
    }
    pkt.data_case = PFTRACE__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
    pkt.track_descriptor = &td;
    if (t->batch != PW_DIRECT)
        set_batch(seq->writer, t->uuid, t->batch ? t->batch : t->uuid);
    return emit_packet(seq, &pkt);
}

/* ---- Events ------------------------------------------------------------ */

static void set_annotation(pw_seq *seq, Pftrace__DebugAnnotation *da, const pw_arg *a)
{
    Pftrace__DebugAnnotation init = PFTRACE__DEBUG_ANNOTATION__INIT;
    *da = init;
    da->name_field_case = PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
    da->name_iid = intern_constant(seq, INTERN_ARG_NAME, a->name);
    switch (a->type) {
    case PW_ARG_INT:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_INT_VALUE;
        da->int_value = a->v.i;
        break;
    case PW_ARG_UINT:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
        da->uint_value = a->v.u;
        break;
    case PW_ARG_DOUBLE:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
        da->double_value = a->v.d;
        break;
    case PW_ARG_STRING:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
        da->string_value_iid = intern_iid(seq, INTERN_ARG_STRING, a->v.s ? a->v.s : "");
        break;
    case PW_ARG_CONSTANT_STRING:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
        da->string_value_iid = intern_constant(seq, INTERN_ARG_STRING, a->v.s ? a->v.s : "");
        break;
    case PW_ARG_BOOL:
        da->value_case = PFTRACE__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
        da->bool_value = a->v.b;
        break;
    }
}

int pw_write_event(pw_seq *given, const pw_event *ev)
{
    pw_writer *w = given->writer;
    if (w->backend) {
        w->packets++;
        return w->backend->event(w->backend->ctx, ev);
    }
    pw_seq *seq = events_sequence(w, given, ev->track_uuid);
    /* The events of a batch cannot use the callstacks interned on given. */
    assert(!ev->callstack_iid || seq == given);
    if ((ev->n_flow_ids || ev->n_terminating_flow_ids) && flows_keep_order(w, seq, ev->ts) < 0)
        return -1;
    Pftrace__TrackEvent te = PFTRACE__TRACK_EVENT__INIT;
    te.has_type = 1;
    te.type = (Pftrace__TrackEvent__Type)ev->type;
    te.has_track_uuid = 1;
    te.track_uuid = ev->track_uuid;

    if (ev->name) {
        te.name_field_case = PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID;
        te.name_iid = ev->name_is_constant ? intern_constant(seq, INTERN_EVENT_NAME, ev->name)
                                           : intern_iid(seq, INTERN_EVENT_NAME, ev->name);
    }
    uint64_t category_iid;
    if (ev->category) {
        category_iid = intern_constant(seq, INTERN_CATEGORY, ev->category);
        te.n_category_iids = 1;
        te.category_iids = &category_iid;
    }
    if (ev->n_args) {
        if (ev->n_args > w->annotations_cap) {
            size_t cap = w->annotations_cap;
            w->annotations = xgrow(w->annotations, &cap, ev->n_args, sizeof *w->annotations);
            w->annotation_ptrs = xrealloc(w->annotation_ptrs, cap * sizeof *w->annotation_ptrs);
            w->annotations_cap = cap;
        }
        for (size_t i = 0; i < ev->n_args; i++) {
            set_annotation(seq, &w->annotations[i], &ev->args[i]);
            w->annotation_ptrs[i] = &w->annotations[i];
        }
        te.n_debug_annotations = ev->n_args;
        te.debug_annotations = w->annotation_ptrs;
    }
    te.n_flow_ids = ev->n_flow_ids;
    te.flow_ids = (uint64_t *)ev->flow_ids;
    te.n_terminating_flow_ids = ev->n_terminating_flow_ids;
    te.terminating_flow_ids = (uint64_t *)ev->terminating_flow_ids;
    if (ev->type == PW_COUNTER) {
        if (ev->counter_is_double) {
            te.counter_value_field_case = PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
            te.double_counter_value = ev->counter_double;
        } else {
            te.counter_value_field_case = PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
            te.counter_value = ev->counter_int;
        }
    }

    if (ev->n_extra_counters) {
        te.n_extra_double_counter_track_uuids = ev->n_extra_counters;
        te.extra_double_counter_track_uuids = (uint64_t *)ev->extra_counter_tracks;
        te.n_extra_double_counter_values = ev->n_extra_counters;
        te.extra_double_counter_values = (double *)ev->extra_counter_values;
    }
    if (ev->callstack_iid) {
        te.has_callstack_iid = 1;
        te.callstack_iid = ev->callstack_iid;
    }

    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    pkt.has_timestamp = 1;
    pkt.timestamp = ev->ts;
    pkt.data_case = PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT;
    pkt.track_event = &te;
    return emit_packet(seq, &pkt);
}

/* ---- Callstacks, samples, scheduling ------------------------------------ */

static uint64_t intern_mapping(pw_seq *seq, const char *module)
{
    uint64_t path = intern_iid(seq, INTERN_MAPPING_PATH, module ? module : "[unknown]");
    bool inserted;
    uint64_t *slot = hmap_upsert(&seq->mappings, &path, sizeof path, &inserted);
    if (inserted) {
        *slot = seq->mappings.count;
        seq->new_mappings = xgrow(seq->new_mappings, &seq->cap_new_mappings,
                                  seq->n_new_mappings + 1, sizeof *seq->new_mappings);
        seq->new_mappings[seq->n_new_mappings++] = (pending_mapping){*slot, path};
    }
    return *slot;
}

static uint64_t intern_frame(pw_seq *seq, const pw_frame *f)
{
    uint64_t key[2] = {intern_iid(seq, INTERN_FUNCTION_NAME, f->function ? f->function : "[unknown]"),
                       intern_mapping(seq, f->module)};
    bool inserted;
    uint64_t *slot = hmap_upsert(&seq->frames, key, sizeof key, &inserted);
    if (inserted) {
        *slot = seq->frames.count;
        seq->new_frames = xgrow(seq->new_frames, &seq->cap_new_frames, seq->n_new_frames + 1,
                                sizeof *seq->new_frames);
        seq->new_frames[seq->n_new_frames++] =
            (pending_frame){.iid = *slot, .function_iid = key[0], .mapping_iid = key[1]};
    }
    return *slot;
}

uint64_t pw_intern_callstack(pw_seq *seq, const pw_frame *frames, size_t n)
{
    if (!n || seq->writer->backend)
        return 0;
    size_t first = seq->n_frame_ids;
    seq->frame_ids = xgrow(seq->frame_ids, &seq->cap_frame_ids, first + n, sizeof *seq->frame_ids);
    for (size_t i = 0; i < n; i++)
        seq->frame_ids[first + i] = intern_frame(seq, &frames[i]);
    bool inserted;
    uint64_t *slot =
        hmap_upsert(&seq->callstacks, seq->frame_ids + first, n * sizeof *seq->frame_ids, &inserted);
    if (!inserted) {
        seq->n_frame_ids = first; /* known: give the pool space back */
        return *slot;
    }
    *slot = seq->callstacks.count;
    seq->n_frame_ids = first + n;
    seq->new_callstacks = xgrow(seq->new_callstacks, &seq->cap_new_callstacks,
                                seq->n_new_callstacks + 1, sizeof *seq->new_callstacks);
    seq->new_callstacks[seq->n_new_callstacks++] =
        (pending_callstack){.iid = *slot, .first = first, .n = n};
    return *slot;
}

int pw_write_perf_sample(pw_seq *seq, uint64_t ts, uint32_t cpu, int32_t pid, int32_t tid,
                         uint64_t callstack_iid, bool kernel_mode)
{
    if (seq->writer->backend) {
        seq->writer->backend->dropped(seq->writer->backend->ctx, 1);
        return 0;
    }
    Pftrace__PerfSample ps = PFTRACE__PERF_SAMPLE__INIT;
    ps.has_cpu = ps.has_pid = ps.has_tid = ps.has_cpu_mode = 1;
    ps.cpu = cpu;
    ps.pid = (uint32_t)pid;
    ps.tid = (uint32_t)tid;
    ps.cpu_mode = kernel_mode ? PFTRACE__PERF_SAMPLE__CPU_MODE__MODE_KERNEL
                              : PFTRACE__PERF_SAMPLE__CPU_MODE__MODE_USER;
    if (callstack_iid) {
        ps.has_callstack_iid = 1;
        ps.callstack_iid = callstack_iid;
    }
    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    pkt.has_timestamp = 1;
    pkt.timestamp = ts;
    pkt.data_case = PFTRACE__TRACE_PACKET__DATA_PERF_SAMPLE;
    pkt.perf_sample = &ps;
    return emit_packet(seq, &pkt);
}

int pw_write_sched_switches(pw_seq *seq, uint32_t cpu, const pw_sched_switch *sw, size_t n)
{
    if (seq->writer->backend) {
        seq->writer->backend->dropped(seq->writer->backend->ctx, n);
        return 0;
    }
    Pftrace__FtraceEvent *events = xmalloc(n * sizeof *events);
    Pftrace__FtraceEvent **event_ptrs = xmalloc(n * sizeof *event_ptrs);
    Pftrace__SchedSwitchFtraceEvent *switches = xmalloc(n * sizeof *switches);
    for (size_t i = 0; i < n; i++) {
        Pftrace__SchedSwitchFtraceEvent *ss = &switches[i];
        pftrace__sched_switch_ftrace_event__init(ss);
        /* comms come from the report's (already repaired) names */
        ss->prev_comm = (char *)(sw[i].prev_comm ? sw[i].prev_comm : "");
        ss->next_comm = (char *)(sw[i].next_comm ? sw[i].next_comm : "");
        ss->has_prev_pid = ss->has_next_pid = ss->has_prev_state = 1;
        ss->has_prev_prio = ss->has_next_prio = 1;
        ss->prev_pid = sw[i].prev_pid;
        ss->next_pid = sw[i].next_pid;
        ss->prev_state = sw[i].prev_state;
        ss->prev_prio = ss->next_prio = 120; /* nice 0: nsys does not record priorities */
        Pftrace__FtraceEvent *fe = &events[i];
        pftrace__ftrace_event__init(fe);
        fe->has_timestamp = fe->has_pid = 1;
        fe->timestamp = sw[i].ts;
        fe->pid = (uint32_t)sw[i].prev_pid; /* the task that ran the switch */
        fe->event_case = PFTRACE__FTRACE_EVENT__EVENT_SCHED_SWITCH;
        fe->sched_switch = ss;
        event_ptrs[i] = fe;
    }
    Pftrace__FtraceEventBundle bundle = PFTRACE__FTRACE_EVENT_BUNDLE__INIT;
    bundle.has_cpu = 1;
    bundle.cpu = cpu;
    bundle.n_event = n;
    bundle.event = event_ptrs;
    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    pkt.data_case = PFTRACE__TRACE_PACKET__DATA_FTRACE_EVENTS;
    pkt.ftrace_events = &bundle;
    int rc = emit_packet(seq, &pkt);
    free(events);
    free(event_ptrs);
    free(switches);
    return rc;
}

int pw_writer_error(pw_writer *w)
{
    if (w->backend)
        return w->backend->error(w->backend->ctx);
    return pw_output_error(w->out);
}

uint64_t pw_writer_packets(const pw_writer *w)
{
    return w->packets;
}

int pw_writer_new_batches(pw_writer *w)
{
    if (w->backend)
        return 0;
    if (batches_write(w) < 0)
        return -1;
    /* The old sequences stay in w->sequences, freed with the rest. */
    for (size_t i = 0; i < BATCH_SEQUENCES; i++)
        w->batches[i] = NULL;
    return w->failed ? -1 : 0;
}

int pw_writer_mark_sorted(pw_writer *w, uint64_t ts)
{
    if (w->backend)
        return 0;
    if (batches_write(w) < 0)
        return -1;
    if (!w->service) {
        w->service = pw_writer_sequence(w);
        if (pw_sequence_start(w->service, false) < 0)
            return -1;
    }
    /* trace_processor extracts once it has seen two flushes since the last
     * extraction, then a read: each mark gives both. */
    Pftrace__TracingServiceEvent flushed = PFTRACE__TRACING_SERVICE_EVENT__INIT;
    flushed.has_all_data_sources_flushed = 1;
    flushed.all_data_sources_flushed = 1;
    Pftrace__TracingServiceEvent read = PFTRACE__TRACING_SERVICE_EVENT__INIT;
    read.has_read_tracing_buffers_completed = 1;
    read.read_tracing_buffers_completed = 1;
    Pftrace__TracingServiceEvent *events[] = {&flushed, &flushed, &read};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
        Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
        pkt.has_timestamp = 1;
        pkt.timestamp = ts;
        pkt.data_case = PFTRACE__TRACE_PACKET__DATA_SERVICE_EVENT;
        pkt.service_event = events[i];
        if (emit_packet(w->service, &pkt) < 0)
            return -1;
    }
    return w->failed ? -1 : 0;
}

int pw_writer_finish(pw_writer *w, bool ok, buf *err, pw_output_totals *totals)
{
    int rc = -1;
    /* After a failed write, commit still runs: it reports why and removes
     * the temporary file. */
    if (w->backend)
        rc = w->backend->finish(w->backend->ctx, ok, err, totals);
    else if (ok) {
        batches_write(w);
        rc = pw_output_commit(w->out, err, totals);
    }
    else
        pw_output_discard(w->out);
    for (pw_seq *s = w->sequences; s;) {
        pw_seq *next = s->next;
        for (int k = 0; k < INTERN_KINDS; k++) {
            hmap_free(&s->interned[k]);
            free(s->pending[k]);
        }
        hmap_free(&s->frames);
        hmap_free(&s->mappings);
        hmap_free(&s->callstacks);
        hmap_free(&s->repaired);
        free(s->new_frames);
        free(s->new_mappings);
        free(s->new_callstacks);
        free(s->frame_ids);
        buf_free(&s->batch);
        free(s);
        s = next;
    }
    free(w->pack_buf);
    buf_free(&w->scratch);
    for (int i = 0; i < 4; i++)
        buf_free(&w->track_strings[i]);
    free(w->annotations);
    free(w->annotation_ptrs);
    free(w->batch_of_track);
    free(w);
    return ok && !rc ? 0 : -1;
}
