#include "slices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/xalloc.h"

struct lane {
    track *track;
    slice_row *row;
    size_t index;            /* in row->lanes */
    int64_t *open_ends;      /* stack of the ends of open slices */
    size_t depth, cap;
};

/* ---- Idle lanes of rows that do not nest: a min-heap of indexes ---------- */

static void idle_push(slice_row *r, size_t index)
{
    r->idle = xgrow(r->idle, &r->cap_idle, r->n_idle + 1, sizeof *r->idle);
    size_t i = r->n_idle++;
    while (i > 0 && r->idle[(i - 1) / 2] > index) {
        r->idle[i] = r->idle[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->idle[i] = index;
}

static size_t idle_pop(slice_row *r)
{
    size_t top = r->idle[0], last = r->idle[--r->n_idle], i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= r->n_idle)
            break;
        if (c + 1 < r->n_idle && r->idle[c + 1] < r->idle[c])
            c++;
        if (r->idle[c] >= last)
            break;
        r->idle[i] = r->idle[c];
        i = c;
    }
    if (r->n_idle)
        r->idle[i] = last;
    return top;
}

void slicer_init(slicer *s, track_tree *tracks)
{
    memset(s, 0, sizeof *s);
    s->tracks = tracks;
    s->seq = tracks->seq;
}

void slicer_free(slicer *s)
{
    for (slice_row *r = s->rows; r;) {
        slice_row *next = r->next_alloc;
        for (size_t i = 0; i < r->n_lanes; i++) {
            free(r->lanes[i]->open_ends);
            free(r->lanes[i]);
        }
        free(r->lanes);
        free(r->idle);
        free(r->name);
        free(r->merge_key);
        free(r->description);
        free(r);
        r = next;
    }
    free(s->heap);
    memset(s, 0, sizeof *s);
}

uint64_t slicer_batch_of_name(const char *name)
{
    return (hmap_hash(name, strlen(name)) >> 1) | 1; /* never 0 nor PW_DIRECT */
}

slice_row *slicer_row(slicer *s, track *parent, const char *name, bool nest, bool has_rank,
                      int32_t rank)
{
    slice_row *r = xcalloc(1, sizeof *r);
    r->parent = parent;
    r->name = xstrdup(name);
    char key[32];
    snprintf(key, sizeof key, "row%llu", (unsigned long long)++s->next_row_id);
    r->merge_key = xstrdup(key);
    r->nest = nest;
    r->has_rank = has_rank;
    r->rank = rank;
    r->next_alloc = s->rows;
    s->rows = r;
    return r;
}

void slicer_row_describe(slice_row *r, const char *description)
{
    free(r->description);
    r->description = description ? xstrdup(description) : NULL;
}

/* ---- The heap of pending ENDs ------------------------------------------ */

static bool before(const pending_end *a, const pending_end *b)
{
    if (a->end != b->end)
        return a->end < b->end;
    return a->order > b->order; /* inner slices close first */
}

static void heap_push(slicer *s, pending_end e)
{
    s->heap = xgrow(s->heap, &s->cap_heap, s->n_heap + 1, sizeof *s->heap);
    size_t i = s->n_heap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
}

static pending_end heap_pop(slicer *s)
{
    pending_end top = s->heap[0];
    pending_end last = s->heap[--s->n_heap];
    size_t i = 0, n = s->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!before(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

static int write_end(slicer *s, const pending_end *e)
{
    lane *l = e->lane;
    l->depth--; /* the heap order guarantees e is the lane's innermost slice */
    if (l->depth == 0 && !l->row->nest)
        idle_push(l->row, l->index);
    pw_event ev = {.type = PW_SLICE_END,
                   .ts = (uint64_t)(e->end + s->shift),
                   .track_uuid = l->track->uuid};
    s->events++;
    return pw_write_event(s->seq, &ev);
}

int slicer_advance(slicer *s, int64_t ts)
{
    while (s->n_heap && s->heap[0].end <= ts) {
        if (s->due && s->due(s->due_ctx, s->heap[0].end) < 0)
            return -1;
        pending_end e = heap_pop(s);
        if (write_end(s, &e) < 0)
            return -1;
    }
    return s->due ? s->due(s->due_ctx, ts) : 0;
}

int slicer_finish(slicer *s)
{
    while (s->n_heap) {
        if (s->due && s->due(s->due_ctx, s->heap[0].end) < 0)
            return -1;
        pending_end e = heap_pop(s);
        if (write_end(s, &e) < 0)
            return -1;
    }
    return s->due ? s->due(s->due_ctx, INT64_MAX) : 0;
}

/* ---- Lanes -------------------------------------------------------------- */

static bool fits(const slice_row *r, const lane *l, int64_t end)
{
    if (l->depth == 0)
        return true;
    return r->nest && l->depth < SLICES_MAX_DEPTH && end <= l->open_ends[l->depth - 1];
}

static lane *new_lane(slicer *s, slice_row *r)
{
    lane *l = xcalloc(1, sizeof *l);
    l->row = r;
    l->index = r->n_lanes;
    pw_track desc = {
        .kind = PW_TRACK_PLAIN,
        .name = r->name,
        .merge_key = r->merge_key,
        .description = r->description,
        .has_rank = r->has_rank,
        .rank = r->rank,
        .batch = r->batch,
        .chrome = r->chrome,
    };
    l->track = tracks_add(s->tracks, NULL, 0, r->parent, &desc);
    if (!r->batch)
        r->batch = l->track->uuid;
    r->lanes = xgrow(r->lanes, &r->cap_lanes, r->n_lanes + 1, sizeof *r->lanes);
    r->lanes[r->n_lanes++] = l;
    if (r->n_lanes > s->max_lanes)
        s->max_lanes = r->n_lanes;
    return l;
}

/* The first lane where a slice ending at end fits, or NULL. */
static lane *find_lane(slice_row *r, int64_t end)
{
    if (!r->nest)
        return r->n_idle ? r->lanes[idle_pop(r)] : NULL;
    for (size_t i = 0; i < r->n_lanes; i++)
        if (fits(r, r->lanes[i], end))
            return r->lanes[i];
    return NULL;
}

int slicer_slice(slicer *s, slice_row *r, int64_t start, int64_t end, pw_event *ev)
{
    if (r->hidden)
        return 1;
    if (slicer_advance(s, start) < 0)
        return -1;
    lane *l = find_lane(r, end);
    if (!l)
        l = new_lane(s, r);

    uint64_t ts = (uint64_t)(start + s->shift);
    if (tracks_ensure_written(s->tracks, l->track, ts) < 0)
        return -1;
    ev->type = PW_SLICE_BEGIN;
    ev->ts = ts;
    ev->end = (uint64_t)(end + s->shift);
    ev->track_uuid = l->track->uuid;
    s->events++;
    if (pw_write_event(s->seq, ev) < 0)
        return -1;

    l->open_ends = xgrow(l->open_ends, &l->cap, l->depth + 1, sizeof *l->open_ends);
    l->open_ends[l->depth++] = end;
    heap_push(s, (pending_end){.end = end, .order = ++s->order, .lane = l});
    return 0;
}

int slicer_instant(slicer *s, slice_row *r, int64_t ts, pw_event *ev)
{
    if (r->hidden)
        return 1;
    if (slicer_advance(s, ts) < 0)
        return -1;
    /* An instant occupies its lane for no time: an idle lane stays idle. */
    lane *l = NULL;
    if (r->nest) {
        l = find_lane(r, ts);
    } else if (r->n_idle) {
        l = r->lanes[r->idle[0]];
    }
    if (!l) {
        l = new_lane(s, r);
        if (!r->nest)
            idle_push(r, l->index);
    }
    ev->type = PW_INSTANT;
    return slicer_event(s, l->track, ts, ev);
}

int slicer_event(slicer *s, track *tr, int64_t ts, pw_event *ev)
{
    if (slicer_advance(s, ts) < 0)
        return -1;
    uint64_t out_ts = (uint64_t)(ts + s->shift);
    if (tracks_ensure_written(s->tracks, tr, out_ts) < 0)
        return -1;
    ev->ts = out_ts;
    ev->track_uuid = tr->uuid;
    s->events++;
    return pw_write_event(s->seq, ev);
}
