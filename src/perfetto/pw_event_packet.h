/* TrackEvent packets packed by hand, byte for byte as protobuf-c packs them
 * (see pw_event_packet.c for why). */
#ifndef NSYSP_PERFETTO_PW_EVENT_PACKET_H
#define NSYSP_PERFETTO_PW_EVENT_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pftrace.pb-c.h"

/* Whether pkt is a TrackEvent packet this packer handles: no interned data
 * or defaults, no nested annotations. */
bool pw_event_packet_supported(const Pftrace__TracePacket *pkt);

/* The packed size of a supported packet. */
size_t pw_event_packet_size(const Pftrace__TracePacket *pkt);

/* Packs a supported packet into out (pw_event_packet_size bytes). */
void pw_event_packet_pack(const Pftrace__TracePacket *pkt, uint8_t *out);

#endif
