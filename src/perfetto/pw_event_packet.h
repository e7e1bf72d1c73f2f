/* TrackEvent packets packed by hand, byte for byte as protobuf-c packs them
 * (see pw_event_packet.c for why). */
#ifndef NSYSP_PERFETTO_PW_EVENT_PACKET_H
#define NSYSP_PERFETTO_PW_EVENT_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pftrace.pb-c.h"

/* More annotations than this on one event go through protobuf-c. */
#define PW_EVENT_PACKET_MAX_ANNOTATIONS 64

/* The lengths of a packet's nested messages, worked out once by
 * pw_event_packet_size for pw_event_packet_pack. */
typedef struct pw_event_sizes {
    size_t event;
    size_t annotations[PW_EVENT_PACKET_MAX_ANNOTATIONS];
} pw_event_sizes;

/* Whether pkt is a TrackEvent packet this packer handles: no interned data
 * or defaults, no nested annotations, at most
 * PW_EVENT_PACKET_MAX_ANNOTATIONS of them. */
bool pw_event_packet_supported(const Pftrace__TracePacket *pkt);

/* The packed size of a supported packet; fills sizes. */
size_t pw_event_packet_size(const Pftrace__TracePacket *pkt, pw_event_sizes *sizes);

/* Packs a supported packet into out (pw_event_packet_size bytes), with the
 * sizes that call filled. */
void pw_event_packet_pack(const Pftrace__TracePacket *pkt, const pw_event_sizes *sizes,
                          uint8_t *out);

#endif
