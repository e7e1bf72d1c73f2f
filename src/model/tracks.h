/* The track tree: every track the trace may use, keyed by what it stands
 * for, with its Perfetto descriptor written lazily just before the first
 * event that lands on it (or on a descendant). Tracks that never get an
 * event are never written, which prunes empty streams, threads and
 * processes for free. */
#ifndef NSYSP_MODEL_TRACKS_H
#define NSYSP_MODEL_TRACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hmap.h"
#include "perfetto/pw_writer.h"

typedef struct track {
    uint64_t uuid;
    struct track *parent;
    pw_track desc;           /* strings owned by the track */
    bool written;
    bool hidden;             /* counters: left out by a filter */
    struct track *next_alloc;
} track;

typedef struct track_tree {
    pw_seq *seq;
    hmap by_key;             /* caller key -> track pointer */
    uint64_t next_uuid;
    track *all;
    uint64_t written;        /* descriptors written */
} track_tree;

void tracks_init(track_tree *t, pw_seq *seq);
void tracks_free(track_tree *t);

/* Returns the track for key, or NULL when there is none yet. */
track *tracks_find(track_tree *t, const void *key, size_t key_len);

/* Creates the track for key (which must not exist yet) from desc; uuid and
 * parent_uuid are filled in, strings copied. key may be NULL for tracks
 * that are only reached through their owner (lanes). */
track *tracks_add(track_tree *t, const void *key, size_t key_len, track *parent,
                  const pw_track *desc);

/* Writes the descriptors of tr and its ancestors that are not written yet,
 * stamped with ts. Returns 0 or -1 (output failed). */
int tracks_ensure_written(track_tree *t, track *tr, uint64_t ts);

#endif
