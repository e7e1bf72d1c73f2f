/* TrackEvent packets packed by hand.
 *
 * protobuf-c packs by walking each message's descriptor: every field of
 * TracePacket, TrackEvent and each DebugAnnotation is looked at twice (size,
 * then bytes), which made packing a fifth of the conversion. Events are
 * most of the packets and use a handful of fields, so they are packed here
 * straight from the same protobuf-c structs, fields in number order as
 * protobuf-c writes them: the bytes are identical (test_writer checks it).
 * Anything else (interned data, nested annotations) is left to protobuf-c. */
#include "pw_event_packet.h"

#include <string.h>

enum { VARINT = 0, FIXED64 = 1, LENGTH = 2 };

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t tag_size(uint32_t field)
{
    return varint_size((uint64_t)field << 3);
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_tag(uint8_t *p, uint32_t field, int wire_type)
{
    return put_varint(p, (uint64_t)field << 3 | (uint64_t)wire_type);
}

static uint8_t *put_fixed64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_double(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return put_fixed64(p, v);
}

static uint8_t *put_string(uint8_t *p, uint32_t field, const char *s)
{
    size_t n = strlen(s);
    p = put_tag(p, field, LENGTH);
    p = put_varint(p, n);
    memcpy(p, s, n);
    return p + n;
}

/* ---- DebugAnnotation ------------------------------------------------------ */

/* Whether the annotation has nothing this packer leaves to protobuf-c. */
static bool annotation_supported(const Pftrace__DebugAnnotation *a)
{
    return a->n_dict_entries == 0 && a->n_array_values == 0;
}

static size_t annotation_size(const Pftrace__DebugAnnotation *a)
{
    size_t n = 0;
    if (a->name_field_case == PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID)
        n += 1 + varint_size(a->name_iid);
    switch (a->value_case) {
    case PFTRACE__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
        n += 1 + 1;
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
        n += 1 + varint_size(a->uint_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_INT_VALUE:
        n += 1 + varint_size((uint64_t)a->int_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE:
        n += 1 + 8;
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE: {
        size_t len = strlen(a->string_value);
        n += 1 + varint_size(len) + len;
        break;
    }
    case PFTRACE__DEBUG_ANNOTATION__VALUE_POINTER_VALUE:
        n += 1 + varint_size(a->pointer_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
        n += 2 + varint_size(a->string_value_iid);
        break;
    default:
        break;
    }
    if (a->name_field_case == PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME) {
        size_t len = strlen(a->name);
        n += 1 + varint_size(len) + len;
    }
    return n;
}

static uint8_t *put_annotation(uint8_t *p, const Pftrace__DebugAnnotation *a)
{
    if (a->name_field_case == PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID)
        p = put_varint(put_tag(p, 1, VARINT), a->name_iid);
    switch (a->value_case) {
    case PFTRACE__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
        p = put_varint(put_tag(p, 2, VARINT), a->bool_value ? 1 : 0);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
        p = put_varint(put_tag(p, 3, VARINT), a->uint_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_INT_VALUE:
        p = put_varint(put_tag(p, 4, VARINT), (uint64_t)a->int_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE:
        p = put_double(put_tag(p, 5, FIXED64), a->double_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
        p = put_string(p, 6, a->string_value);
        break;
    case PFTRACE__DEBUG_ANNOTATION__VALUE_POINTER_VALUE:
        p = put_varint(put_tag(p, 7, VARINT), a->pointer_value);
        break;
    default:
        break;
    }
    if (a->name_field_case == PFTRACE__DEBUG_ANNOTATION__NAME_FIELD_NAME)
        p = put_string(p, 10, a->name);
    if (a->value_case == PFTRACE__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID)
        p = put_varint(put_tag(p, 17, VARINT), a->string_value_iid);
    return p;
}

/* ---- TrackEvent ------------------------------------------------------------- */

static size_t repeated_varint_size(uint32_t field, const uint64_t *v, size_t n)
{
    size_t size = n * tag_size(field);
    for (size_t i = 0; i < n; i++)
        size += varint_size(v[i]);
    return size;
}

static size_t event_size(const Pftrace__TrackEvent *e, pw_event_sizes *sizes)
{
    size_t n = repeated_varint_size(3, e->category_iids, e->n_category_iids);
    for (size_t i = 0; i < e->n_debug_annotations; i++) {
        size_t a = sizes->annotations[i] = annotation_size(e->debug_annotations[i]);
        n += 1 + varint_size(a) + a;
    }
    if (e->has_type)
        n += 1 + varint_size((uint64_t)(int64_t)e->type);
    if (e->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID)
        n += 1 + varint_size(e->name_iid);
    if (e->has_track_uuid)
        n += 1 + varint_size(e->track_uuid);
    for (size_t i = 0; i < e->n_extra_counter_values; i++)
        n += 1 + varint_size((uint64_t)e->extra_counter_values[i]);
    for (size_t i = 0; i < e->n_categories; i++) {
        size_t len = strlen(e->categories[i]);
        n += 2 + varint_size(len) + len;
    }
    if (e->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME) {
        size_t len = strlen(e->name);
        n += 2 + varint_size(len) + len;
    }
    if (e->counter_value_field_case == PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE)
        n += 2 + varint_size((uint64_t)e->counter_value);
    n += repeated_varint_size(31, e->extra_counter_track_uuids, e->n_extra_counter_track_uuids);
    if (e->counter_value_field_case ==
        PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE)
        n += 2 + 8;
    n += repeated_varint_size(45, e->extra_double_counter_track_uuids,
                              e->n_extra_double_counter_track_uuids);
    n += e->n_extra_double_counter_values * (2 + 8);
    n += e->n_flow_ids * (2 + 8);
    n += e->n_terminating_flow_ids * (2 + 8);
    if (e->has_correlation_id)
        n += 2 + varint_size(e->correlation_id);
    if (e->has_callstack_iid)
        n += 2 + varint_size(e->callstack_iid);
    return n;
}

static uint8_t *put_repeated_varint(uint8_t *p, uint32_t field, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p = put_varint(put_tag(p, field, VARINT), v[i]);
    return p;
}

static uint8_t *put_event(uint8_t *p, const Pftrace__TrackEvent *e, const pw_event_sizes *sizes)
{
    p = put_repeated_varint(p, 3, e->category_iids, e->n_category_iids);
    for (size_t i = 0; i < e->n_debug_annotations; i++) {
        p = put_varint(put_tag(p, 4, LENGTH), sizes->annotations[i]);
        p = put_annotation(p, e->debug_annotations[i]);
    }
    if (e->has_type)
        p = put_varint(put_tag(p, 9, VARINT), (uint64_t)(int64_t)e->type);
    if (e->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME_IID)
        p = put_varint(put_tag(p, 10, VARINT), e->name_iid);
    if (e->has_track_uuid)
        p = put_varint(put_tag(p, 11, VARINT), e->track_uuid);
    for (size_t i = 0; i < e->n_extra_counter_values; i++)
        p = put_varint(put_tag(p, 12, VARINT), (uint64_t)e->extra_counter_values[i]);
    for (size_t i = 0; i < e->n_categories; i++)
        p = put_string(p, 22, e->categories[i]);
    if (e->name_field_case == PFTRACE__TRACK_EVENT__NAME_FIELD_NAME)
        p = put_string(p, 23, e->name);
    if (e->counter_value_field_case == PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE)
        p = put_varint(put_tag(p, 30, VARINT), (uint64_t)e->counter_value);
    p = put_repeated_varint(p, 31, e->extra_counter_track_uuids, e->n_extra_counter_track_uuids);
    if (e->counter_value_field_case ==
        PFTRACE__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE)
        p = put_double(put_tag(p, 44, FIXED64), e->double_counter_value);
    p = put_repeated_varint(p, 45, e->extra_double_counter_track_uuids,
                            e->n_extra_double_counter_track_uuids);
    for (size_t i = 0; i < e->n_extra_double_counter_values; i++)
        p = put_double(put_tag(p, 46, FIXED64), e->extra_double_counter_values[i]);
    for (size_t i = 0; i < e->n_flow_ids; i++)
        p = put_fixed64(put_tag(p, 47, FIXED64), e->flow_ids[i]);
    for (size_t i = 0; i < e->n_terminating_flow_ids; i++)
        p = put_fixed64(put_tag(p, 48, FIXED64), e->terminating_flow_ids[i]);
    if (e->has_correlation_id)
        p = put_varint(put_tag(p, 52, VARINT), e->correlation_id);
    if (e->has_callstack_iid)
        p = put_varint(put_tag(p, 56, VARINT), e->callstack_iid);
    return p;
}

/* ---- TracePacket ------------------------------------------------------------ */

bool pw_event_packet_supported(const Pftrace__TracePacket *pkt)
{
    if (pkt->data_case != PFTRACE__TRACE_PACKET__DATA_TRACK_EVENT || pkt->interned_data ||
        pkt->trace_packet_defaults)
        return false;
    const Pftrace__TrackEvent *e = pkt->track_event;
    if (e->n_debug_annotations > PW_EVENT_PACKET_MAX_ANNOTATIONS)
        return false;
    for (size_t i = 0; i < e->n_debug_annotations; i++)
        if (!annotation_supported(e->debug_annotations[i]))
            return false;
    return true;
}

size_t pw_event_packet_size(const Pftrace__TracePacket *pkt, pw_event_sizes *sizes)
{
    size_t event = sizes->event = event_size(pkt->track_event, sizes);
    size_t n = 0;
    if (pkt->has_timestamp)
        n += 1 + varint_size(pkt->timestamp);
    if (pkt->has_trusted_packet_sequence_id)
        n += 1 + varint_size(pkt->trusted_packet_sequence_id);
    n += 1 + varint_size(event) + event;
    if (pkt->has_sequence_flags)
        n += 1 + varint_size(pkt->sequence_flags);
    if (pkt->has_timestamp_clock_id)
        n += 2 + varint_size(pkt->timestamp_clock_id);
    if (pkt->has_first_packet_on_sequence)
        n += 2 + 1;
    return n;
}

void pw_event_packet_pack(const Pftrace__TracePacket *pkt, const pw_event_sizes *sizes,
                          uint8_t *out)
{
    uint8_t *p = out;
    if (pkt->has_timestamp)
        p = put_varint(put_tag(p, 8, VARINT), pkt->timestamp);
    if (pkt->has_trusted_packet_sequence_id)
        p = put_varint(put_tag(p, 10, VARINT), pkt->trusted_packet_sequence_id);
    p = put_varint(put_tag(p, 11, LENGTH), sizes->event);
    p = put_event(p, pkt->track_event, sizes);
    if (pkt->has_sequence_flags)
        p = put_varint(put_tag(p, 13, VARINT), pkt->sequence_flags);
    if (pkt->has_timestamp_clock_id)
        p = put_varint(put_tag(p, 58, VARINT), pkt->timestamp_clock_id);
    if (pkt->has_first_packet_on_sequence)
        p = put_varint(put_tag(p, 87, VARINT), pkt->first_packet_on_sequence ? 1 : 0);
}
