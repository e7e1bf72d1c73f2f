/* The Perfetto writer: what it packs must unpack (with protobuf-c, from the
 * same proto) into exactly what was written, with Perfetto's sequence and
 * interning rules, and the file must appear only on commit. */
#include <dirent.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "pftrace.pb-c.h"
#include "perfetto/pw_event_packet.h"
#include "perfetto/pw_writer.h"

/* Reads a whole (gzip or raw) file. */
static uint8_t *slurp(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    int got;
    while ((got = gzread(f, data + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    gzclose(f);
    *len = n;
    return data;
}

static void write_sample(const char *path, int level)
{
    buf err = {0};
    pw_output *out = pw_output_open(path, level, 1, &err);
    CHECK(out != NULL);
    pw_writer *w = pw_writer_new(out);
    pw_seq *seq = pw_writer_sequence(w);

    pw_track process = {.uuid = 1, .kind = PW_TRACK_PROCESS, .pid = 4242, .name = "python3"};
    pw_track thread = {.uuid = 2, .parent_uuid = 1, .kind = PW_TRACK_THREAD, .pid = 4242,
                       .tid = 4243, .name = "worker"};
    pw_track row = {.uuid = 3, .parent_uuid = 2, .kind = PW_TRACK_PLAIN, .name = "CUDA API",
                    .merge_key = "row1", .has_rank = true, .rank = 5,
                    .child_order = PW_ORDER_EXPLICIT, .batch = PW_DIRECT};
    pw_track counter = {.uuid = 4, .kind = PW_TRACK_COUNTER, .name = "Memory", .unit_name = "B",
                        .batch = PW_DIRECT};
    CHECK(pw_write_track(seq, 100, &process) == 0);
    CHECK(pw_write_track(seq, 100, &thread) == 0);
    CHECK(pw_write_track(seq, 0, &row) == 0);
    CHECK(pw_write_track(seq, 0, &counter) == 0);

    pw_arg args[] = {
        {.name = "grid", .type = PW_ARG_STRING, .v.s = "(1, 2, 3)"},
        {.name = "bytes", .type = PW_ARG_INT, .v.i = -5},
        {.name = "big", .type = PW_ARG_UINT, .v.u = UINT64_MAX},
        {.name = "rate", .type = PW_ARG_DOUBLE, .v.d = 2.5},
        {.name = "ok", .type = PW_ARG_BOOL, .v.b = true},
    };
    uint64_t flows[] = {0x1234567890ABCDEFull, 7};
    pw_event begin = {.type = PW_SLICE_BEGIN, .ts = 1000, .track_uuid = 3, .name = "cudaMalloc",
                      .category = "cuda_runtime", .args = args, .n_args = 5,
                      .flow_ids = flows, .n_flow_ids = 2};
    CHECK(pw_write_event(seq, &begin) == 0);
    pw_event end = {.type = PW_SLICE_END, .ts = 2000, .track_uuid = 3};
    CHECK(pw_write_event(seq, &end) == 0);
    /* Same name and arg again: no new interned data expected. */
    pw_event again = {.type = PW_SLICE_BEGIN, .ts = 3000, .track_uuid = 3, .name = "cudaMalloc",
                      .category = "cuda_runtime", .args = args, .n_args = 1,
                      .terminating_flow_ids = flows + 1, .n_terminating_flow_ids = 1};
    CHECK(pw_write_event(seq, &again) == 0);
    pw_event c1 = {.type = PW_COUNTER, .ts = 3500, .track_uuid = 4, .counter_int = 1 << 20};
    pw_event c2 = {.type = PW_COUNTER, .ts = 3600, .track_uuid = 4, .counter_is_double = true,
                   .counter_double = 0.25};
    CHECK(pw_write_event(seq, &c1) == 0);
    CHECK(pw_write_event(seq, &c2) == 0);
    CHECK_EQ_INT(pw_writer_packets(w), 9);
    pw_output_totals totals;
    CHECK(pw_writer_finish(w, true, &err, &totals) == 0);
    CHECK(totals.bytes_in > 0 && totals.bytes_out > 0);
    buf_free(&err);
}

/* Splits the Trace into packets (field 1, length-delimited). */
static size_t unpack_all(const uint8_t *data, size_t len, Pftrace__TracePacket **pkts, size_t max)
{
    Pftrace__Trace *t = pftrace__trace__unpack(NULL, len, data);
    CHECK(t != NULL);
    if (!t)
        return 0;
    size_t n = t->n_packet < max ? t->n_packet : max;
    for (size_t i = 0; i < n; i++) {
        /* Re-pack and unpack each so the trace can be freed here. */
        size_t sz = pftrace__trace_packet__get_packed_size(t->packet[i]);
        uint8_t *b = malloc(sz);
        pftrace__trace_packet__pack(t->packet[i], b);
        pkts[i] = pftrace__trace_packet__unpack(NULL, sz, b);
        free(b);
    }
    pftrace__trace__free_unpacked(t, NULL);
    return n;
}

static void check_sample(const char *path)
{
    size_t len;
    uint8_t *data = slurp(path, &len);
    CHECK(data != NULL && len > 0);
    if (!data)
        return;
    CHECK_EQ_INT(data[0], 0x0A); /* trace_processor sniffs this */
    Pftrace__TracePacket *p[16];
    size_t n = unpack_all(data, len, p, 16);
    CHECK_EQ_INT(n, 9);
    if (n != 9) {
        free(data);
        return;
    }
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_INT(p[i]->trusted_packet_sequence_id, 1);
    CHECK_EQ_INT(p[0]->sequence_flags, 1);
    CHECK(p[0]->has_first_packet_on_sequence && p[0]->first_packet_on_sequence);
    /* SEQ_NEEDS_INCREMENTAL_STATE on what refers to interned data; a
     * slice's end and counter values name nothing and carry no flags. */
    size_t unflagged = 0;
    for (size_t i = 1; i < n; i++) {
        const Pftrace__TrackEvent *te =
            p[i]->data_case == PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT ? p[i]->track_event : NULL;
        bool names_nothing = te && te->name_field_case != PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID &&
                             !te->n_category_iids && !te->n_debug_annotations;
        CHECK_EQ_INT(p[i]->sequence_flags, names_nothing ? 0 : 2);
        CHECK(p[i]->has_sequence_flags == !names_nothing);
        unflagged += names_nothing;
    }
    CHECK_EQ_INT(unflagged, 3); /* the END and the two counter values */

    Pftrace__TrackDescriptor *td = p[0]->track_descriptor;
    CHECK(td && td->process && td->process->pid == 4242);
    CHECK_EQ_STR(td->process->process_name, "python3");
    CHECK_EQ_INT(p[0]->timestamp, 100);
    td = p[1]->track_descriptor;
    CHECK(td && td->thread && td->thread->tid == 4243 && td->parent_uuid == 1);
    CHECK_EQ_STR(td->thread->thread_name, "worker");
    td = p[2]->track_descriptor;
    CHECK(!p[2]->has_timestamp);
    CHECK_EQ_STR(td->name, "CUDA API");
    CHECK_EQ_STR(td->sibling_merge_key, "row1");
    CHECK_EQ_INT(td->sibling_merge_behavior, 3);
    CHECK_EQ_INT(td->sibling_order_rank, 5);
    CHECK_EQ_INT(td->child_ordering, 3);
    td = p[3]->track_descriptor;
    CHECK(td->counter != NULL);
    CHECK_EQ_STR(td->counter->unit_name, "B");

    Pftrace__TracePacket *b = p[4];
    Pftrace__TrackEvent *te = b->track_event;
    CHECK_EQ_INT(b->timestamp, 1000);
    CHECK_EQ_INT(te->type, PW_SLICE_BEGIN);
    CHECK_EQ_INT(te->track_uuid, 3);
    CHECK(b->interned_data != NULL);
    if (b->interned_data) {
        Pftrace__InternedData *d = b->interned_data;
        CHECK_EQ_INT(d->n_event_names, 1);
        CHECK_EQ_STR(d->event_names[0]->name, "cudaMalloc");
        CHECK_EQ_INT(te->name_iid, d->event_names[0]->iid);
        CHECK_EQ_INT(d->n_event_categories, 1);
        CHECK_EQ_INT(te->category_iids[0], d->event_categories[0]->iid);
        CHECK_EQ_INT(d->n_debug_annotation_names, 5);
        CHECK_EQ_INT(d->n_debug_annotation_string_values, 1);
        CHECK(d->debug_annotation_string_values[0]->str.len == 9 &&
              memcmp(d->debug_annotation_string_values[0]->str.data, "(1, 2, 3)", 9) == 0);
        CHECK_EQ_STR(d->debug_annotation_names[te->debug_annotations[1]->name_iid - 1]->name,
                     "bytes");
    }
    CHECK_EQ_INT(te->n_debug_annotations, 5);
    CHECK_EQ_INT(te->debug_annotations[1]->int_value, -5);
    CHECK(te->debug_annotations[2]->uint_value == UINT64_MAX);
    CHECK(te->debug_annotations[3]->double_value == 2.5);
    CHECK(te->debug_annotations[4]->bool_value);
    CHECK_EQ_INT(te->n_flow_ids, 2);
    CHECK(te->flow_ids[0] == 0x1234567890ABCDEFull);

    CHECK_EQ_INT(p[5]->track_event->type, PW_SLICE_END);
    CHECK_EQ_INT(p[5]->track_event->name_field_case, 0); /* bare END */
    CHECK(p[5]->interned_data == NULL);
    CHECK(p[6]->interned_data == NULL);                 /* all interned already */
    CHECK_EQ_INT(p[6]->track_event->name_iid, te->name_iid);
    CHECK_EQ_INT(p[6]->track_event->n_terminating_flow_ids, 1);
    CHECK_EQ_INT(p[6]->track_event->terminating_flow_ids[0], 7);
    CHECK_EQ_INT(p[7]->track_event->counter_value, 1 << 20);
    CHECK(p[8]->track_event->double_counter_value == 0.25);

    for (size_t i = 0; i < n; i++)
        pftrace__trace_packet__free_unpacked(p[i], NULL);
    free(data);
}

/* Flow ids must go out as fixed64 field 47 (wire type 1): tag 0x179 is the
 * varint bytes F9 02, followed by 8 little-endian bytes. */
static void check_flow_wire(const char *path)
{
    size_t len;
    uint8_t *data = slurp(path, &len);
    const uint8_t want[] = {0xF9, 0x02, 0xEF, 0xCD, 0xAB, 0x90, 0x78, 0x56, 0x34, 0x12};
    bool found = false;
    for (size_t i = 0; data && i + sizeof want <= len; i++)
        if (memcmp(data + i, want, sizeof want) == 0)
            found = true;
    CHECK(found);
    free(data);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' || strstr(e->d_name, ".tmp-"))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void check_discard(const char *dir)
{
    char sub[4096], path[4200];
    snprintf(sub, sizeof sub, "%s/discard", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/never.perfetto-trace", sub);
    buf err = {0};
    pw_output *out = pw_output_open(path, 6, 1, &err);
    pw_writer *w = pw_writer_new(out);
    pw_seq *seq = pw_writer_sequence(w);
    pw_event ev = {.type = PW_INSTANT, .ts = 1, .track_uuid = 1, .name = "x"};
    pw_write_event(seq, &ev);
    CHECK_EQ_INT(count_entries(sub), 1); /* only the temporary file so far */
    CHECK(pw_writer_finish(w, false, &err, NULL) < 0);
    CHECK_EQ_INT(count_entries(sub), 0);
    CHECK(access(path, F_OK) != 0);
    buf_free(&err);
}

/* A small deterministic generator for the packing comparison. */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

/* Values of every size class a varint has, negatives included. */
static uint64_t some_value(uint64_t *state)
{
    uint64_t r = next_random(state);
    switch (r % 5) {
    case 0: return r % 100;
    case 1: return r % 100000;
    case 2: return r;
    case 3: return (uint64_t)-(int64_t)(r % 1000);
    default: return 0;
    }
}

/* The hand packer writes the bytes protobuf-c writes, for events with every
 * field it handles, in random combinations. */
static void check_hand_packing(void)
{
    uint64_t state = 42;
    static const char *const STRINGS[] = {"", "kernel", "Memcpy HtoD (Pageable \xE2\x86\x92 Device)",
                                          "a much longer name, longer than one hundred and twenty-seven "
                                          "bytes, so that its length takes two bytes of varint to write"};
    int compared = 0;
    for (int round = 0; round < 3000; round++) {
        Pftrace__TrackEvent te = PFTRACE__TRACK_EVENT__INIT;
        Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
        Pftrace__DebugAnnotation da[6];
        Pftrace__DebugAnnotation *dap[6];
        uint64_t cats[3], uuids[3], flows[3], ends[3];
        int64_t ints[3];
        double doubles[3];
        const char *names[2];
        uint64_t bits = next_random(&state);
        te.has_type = bits & 1;
        te.type = (Pftrace__TrackEvent__Type)(1 + next_random(&state) % 4);
        te.has_track_uuid = (bits >> 1) & 1;
        te.track_uuid = some_value(&state);
        te.name_field_case = (bits >> 2) % 3 == 0   ? PFTRACE__TRACK_EVENT__NAME_FIELD__NOT_SET
                             : (bits >> 2) % 3 == 1 ? PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID
                                                    : PFTRACE__TRACK_EVENT__NAME_FIELD_NAME;
        te.name_iid = some_value(&state);
        te.name = (char *)STRINGS[next_random(&state) % 4];
        te.n_category_iids = next_random(&state) % 3;
        te.category_iids = cats;
        te.n_categories = next_random(&state) % 2;
        names[0] = STRINGS[next_random(&state) % 4];
        te.categories = (char **)names;
        for (int i = 0; i < 3; i++) {
            cats[i] = some_value(&state);
            uuids[i] = some_value(&state);
            flows[i] = next_random(&state) * 2654435761u;
            ends[i] = some_value(&state);
            ints[i] = (int64_t)some_value(&state);
            doubles[i] = (double)(int64_t)some_value(&state) / 7.0;
        }
        te.n_debug_annotations = next_random(&state) % 7;
        for (size_t i = 0; i < te.n_debug_annotations; i++) {
            Pftrace__DebugAnnotation init = PFTRACE__DEBUG_ANNOTATION__INIT;
            da[i] = init;
            dap[i] = &da[i];
            uint64_t r = next_random(&state);
            da[i].name_field_case = r % 2 ? PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID
                                          : PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME;
            da[i].name_iid = some_value(&state);
            da[i].name = (char *)STRINGS[r % 4];
            static const Pftrace__DebugAnnotation__ValueCase KINDS[] = {
                PFTRACE__DEBUG_ANNOTATION__VALUE__NOT_SET,
                PFTRACE__DEBUG_ANNOTATION__VALUE_BOOL_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_UINT_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_INT_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_POINTER_VALUE,
                PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID,
            };
            da[i].value_case = KINDS[(r >> 8) % 8];
            da[i].bool_value = (r >> 12) & 1;
            da[i].uint_value = da[i].pointer_value = da[i].string_value_iid = some_value(&state);
            da[i].int_value = (int64_t)some_value(&state);
            da[i].double_value = doubles[i % 3];
            da[i].string_value = (char *)STRINGS[(r >> 16) % 4];
        }
        te.debug_annotations = dap;
        te.n_flow_ids = next_random(&state) % 3;
        te.flow_ids = flows;
        te.n_terminating_flow_ids = next_random(&state) % 2;
        te.terminating_flow_ids = ends;
        uint64_t counter = next_random(&state) % 3;
        te.counter_value_field_case =
            counter == 0   ? PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD__NOT_SET
            : counter == 1 ? PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE
                           : PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
        te.counter_value = ints[0];
        te.double_counter_value = doubles[1];
        te.n_extra_counter_track_uuids = te.n_extra_counter_values = next_random(&state) % 3;
        te.extra_counter_track_uuids = uuids;
        te.extra_counter_values = ints;
        te.n_extra_double_counter_track_uuids = te.n_extra_double_counter_values =
            next_random(&state) % 3;
        te.extra_double_counter_track_uuids = uuids;
        te.extra_double_counter_values = doubles;
        te.has_correlation_id = (bits >> 5) & 1;
        te.correlation_id = some_value(&state);
        te.has_callstack_iid = (bits >> 6) & 1;
        te.callstack_iid = some_value(&state);

        pkt.has_timestamp = (bits >> 7) & 1;
        pkt.timestamp = some_value(&state);
        pkt.has_trusted_packet_sequence_id = (bits >> 8) & 1;
        pkt.trusted_packet_sequence_id = (uint32_t)next_random(&state);
        pkt.has_sequence_flags = (bits >> 9) & 1;
        pkt.sequence_flags = 1 + (uint32_t)(bits >> 10) % 2;
        pkt.has_timestamp_clock_id = (bits >> 11) & 1;
        pkt.timestamp_clock_id = 64;
        pkt.has_first_packet_on_sequence = (bits >> 12) & 1;
        pkt.first_packet_on_sequence = (bits >> 13) & 1;
        pkt.data_case = PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT;
        pkt.track_event = &te;

        CHECK(pw_event_packet_supported(&pkt));
        size_t want = protobuf_c_message_get_packed_size(&pkt.base);
        pw_event_sizes sizes;
        size_t got = pw_event_packet_size(&pkt, &sizes);
        CHECK_EQ_INT(got, want);
        if (got != want)
            break;
        uint8_t a[4096], b[4096];
        protobuf_c_message_pack(&pkt.base, a);
        pw_event_packet_pack(&pkt, &sizes, b);
        CHECK(memcmp(a, b, want) == 0);
        compared++;
    }
    CHECK_EQ_INT(compared, 3000);
    /* What it leaves to protobuf-c. */
    Pftrace__InternedData interned = PFTRACE__INTERNED_DATA__INIT;
    Pftrace__TrackEvent te = PFTRACE__TRACK_EVENT__INIT;
    Pftrace__TracePacket pkt = PFTRACE__TRACE_PACKET__INIT;
    pkt.data_case = PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT;
    pkt.track_event = &te;
    pkt.interned_data = &interned;
    CHECK(!pw_event_packet_supported(&pkt));
    pkt.interned_data = NULL;
    CHECK(pw_event_packet_supported(&pkt));
    te.n_debug_annotations = PW_EVENT_PACKET_MAX_ANNOTATIONS + 1;
    CHECK(!pw_event_packet_supported(&pkt));
}

/* Batches: each track's events on one batch sequence, in the order written,
 * after every descriptor; tracks with one key share a sequence; a flow's
 * end at the time of its start (on another batch) stays after it in the
 * file; direct tracks go out at once. */
static void check_batches(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/writer-batches.perfetto-trace", dir);
    buf err = {0};
    pw_output *out = pw_output_open(path, 0, 1, &err);
    CHECK(out != NULL);
    if (!out)
        return;
    pw_writer *w = pw_writer_new(out);
    pw_seq *seq = pw_writer_sequence(w);
    CHECK(pw_sequence_start(seq, true) == 0);
    enum { TRACKS = 6, EVENTS = 40000 };
    /* 1-2 share key 100; 3, 4 have their own; 5 is direct; 6 is a counter. */
    for (uint64_t t = 1; t <= TRACKS; t++) {
        pw_track tr = {.uuid = t, .kind = t == 6 ? PW_TRACK_COUNTER : PW_TRACK_PLAIN,
                       .name = "row", .batch = t <= 2 ? 100 : t == 5 ? PW_DIRECT : 0};
        CHECK(pw_write_track(seq, 0, &tr) == 0);
    }
    uint64_t flow = 1;
    for (uint64_t i = 0; i < EVENTS; i++) {
        uint64_t track = 1 + i % TRACKS;
        pw_event ev = {.ts = 1000 + i / 2, .track_uuid = track};
        if (track == 6) {
            ev.type = PW_COUNTER;
            ev.counter_int = (int64_t)i;
        } else {
            ev.type = PW_INSTANT;
            ev.name = i % 12 < 6 ? "even" : "odd";
            /* Now and then a flow from track 3 to track 4 at one time (i
             * and i + 1 share ts when i is even). */
            bool with_flow = i % 600 < 6;
            /* Track 4's batch fills first: without the rule its ends would
             * go out before their starts. */
            static const pw_arg bulk[] = {
                {.name = "a", .type = PW_ARG_INT, .v.i = INT64_MAX},
                {.name = "b", .type = PW_ARG_INT, .v.i = INT64_MAX},
                {.name = "c", .type = PW_ARG_INT, .v.i = INT64_MAX},
            };
            if (track == 4) {
                ev.args = bulk;
                ev.n_args = 3;
            }
            if (track == 3 && with_flow) {
                ev.flow_ids = &flow;
                ev.n_flow_ids = 1;
            } else if (track == 4 && with_flow) {
                ev.terminating_flow_ids = &flow;
                ev.n_terminating_flow_ids = 1;
            }
        }
        CHECK(pw_write_event(seq, &ev) == 0);
        if (ev.n_terminating_flow_ids)
            flow++;
    }
    CHECK(pw_writer_finish(w, true, &err, NULL) == 0);
    buf_free(&err);

    size_t len;
    uint8_t *data = slurp(path, &len);
    Pftrace__Trace *t = data ? pftrace__trace__unpack(NULL, len, data) : NULL;
    CHECK(t != NULL);
    if (!t) {
        free(data);
        return;
    }
    uint32_t seq_of_track[TRACKS + 1] = {0};
    uint64_t next_on_track[TRACKS + 1], clock[256] = {0};
    for (size_t k = 0; k <= TRACKS; k++)
        next_on_track[k] = k; /* the i of the next event expected on track k */
    size_t descriptors = 0, events = 0, runs = 0;
    uint32_t last_seq = 0;
    uint64_t started_flows = 0, ended_flows = 0;
    for (size_t i = 0; i < t->n_packet; i++) {
        Pftrace__TracePacket *p = t->packet[i];
        uint32_t sid = p->trusted_packet_sequence_id;
        CHECK(sid < 256);
        sid &= 255;
        if (sid != last_seq)
            runs++;
        last_seq = sid;
        if (p->has_timestamp)
            clock[sid] += p->timestamp; /* all on the delta clock here */
        if (p->data_case == PFTRACE__TRACE_PACKET__DATA_TRACK_DESCRIPTOR) {
            descriptors++;
            CHECK_EQ_INT(events, 0); /* descriptors before any event */
            continue;
        }
        if (p->data_case != PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT)
            continue;
        Pftrace__TrackEvent *te = p->track_event;
        events++;
        uint64_t track = te->track_uuid;
        CHECK(track >= 1 && track <= TRACKS);
        if (track < 1 || track > TRACKS)
            break;
        if (!seq_of_track[track])
            seq_of_track[track] = sid;
        CHECK_EQ_INT(seq_of_track[track], sid);  /* one sequence per track */
        uint64_t want = next_on_track[track] - 1;
        CHECK_EQ_INT(clock[sid], 1000 + want / 2); /* in order, exact times */
        next_on_track[track] += TRACKS;
        if (te->n_flow_ids)
            started_flows = te->flow_ids[0];
        if (te->n_terminating_flow_ids) {
            CHECK(te->terminating_flow_ids[0] <= started_flows); /* start first */
            ended_flows++;
        }
    }
    CHECK_EQ_INT(descriptors, TRACKS);
    CHECK_EQ_INT(events, EVENTS);
    CHECK_EQ_INT(ended_flows, (EVENTS + 599) / 600);
    CHECK_EQ_INT(seq_of_track[1], seq_of_track[2]);
    CHECK(seq_of_track[3] != seq_of_track[1] && seq_of_track[4] != seq_of_track[3]);
    CHECK(seq_of_track[6] != seq_of_track[1]);
    CHECK_EQ_INT(seq_of_track[5], 1); /* direct: the sequence given */
    /* Gathered: far fewer runs of one sequence than events. */
    CHECK(runs < EVENTS / 20);
    pftrace__trace__free_unpacked(t, NULL);
    free(data);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    if (argc > 2 && strcmp(argv[2], "batches") == 0) {
        check_batches(dir);
        return CHECK_DONE();
    }
    char raw[4096], gz[4096];
    snprintf(raw, sizeof raw, "%s/writer-raw.perfetto-trace", dir);
    snprintf(gz, sizeof gz, "%s/writer-gz.perfetto-trace", dir);
    write_sample(raw, 0);
    write_sample(gz, 6);
    check_sample(raw);
    check_sample(gz);
    check_flow_wire(raw);

    size_t a, b;
    uint8_t *da = slurp(raw, &a), *db = slurp(gz, &b);
    CHECK(da && db && a == b && memcmp(da, db, a) == 0); /* gzip is only framing */
    free(da);
    free(db);
    check_discard(dir);
    check_hand_packing();
    return CHECK_DONE();
}
