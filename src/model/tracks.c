#include "tracks.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/xalloc.h"

void tracks_init(track_tree *t, pw_seq *seq)
{
    t->seq = seq;
    hmap_init(&t->by_key);
    t->next_uuid = 1; /* uuid 0 is Perfetto's root; small uuids encode small */
    t->all = NULL;
    t->written = 0;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void tracks_free(track_tree *t)
{
    for (track *tr = t->all; tr;) {
        track *next = tr->next_alloc;
        free((char *)tr->desc.name);
        free((char *)tr->desc.description);
        free((char *)tr->desc.merge_key);
        free((char *)tr->desc.unit_name);
        free(tr);
        tr = next;
    }
    hmap_free(&t->by_key);
}

track *tracks_find(track_tree *t, const void *key, size_t key_len)
{
    uint64_t *slot = hmap_find(&t->by_key, key, key_len);
    return slot ? (track *)(uintptr_t)*slot : NULL;
}

track *tracks_add(track_tree *t, const void *key, size_t key_len, track *parent,
                  const pw_track *desc)
{
    track *tr = xcalloc(1, sizeof *tr);
    tr->uuid = t->next_uuid++;
    tr->parent = parent;
    tr->desc = *desc;
    tr->desc.uuid = tr->uuid;
    tr->desc.parent_uuid = parent ? parent->uuid : 0;
    tr->desc.name = dup_or_null(desc->name);
    tr->desc.description = dup_or_null(desc->description);
    tr->desc.merge_key = dup_or_null(desc->merge_key);
    tr->desc.unit_name = dup_or_null(desc->unit_name);
    tr->next_alloc = t->all;
    t->all = tr;
    if (key)
        *hmap_upsert(&t->by_key, key, key_len, NULL) = (uint64_t)(uintptr_t)tr;
    return tr;
}

int tracks_ensure_written(track_tree *t, track *tr, uint64_t ts)
{
    if (tr->written)
        return 0;
    /* Parents first: trace_processor resolves parent_uuid at import. */
    if (tr->parent && tracks_ensure_written(t, tr->parent, ts) < 0)
        return -1;
    tr->written = true;
    t->written++;
    return pw_write_track(t->seq, ts, &tr->desc);
}
