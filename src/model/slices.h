/* Slices on rows of lanes, written in time order.
 *
 * trace_processor keeps one BEGIN/END stack per track and silently corrupts
 * slices that partially overlap on one track. So a visual row (a stream, a
 * thread's CUDA API row) is made of lane tracks that share a merge key and
 * show as one row: a slice goes to the first lane where it fits (the lane
 * is idle, or, on rows that allow nesting, the slice lies inside the lane's
 * innermost open slice), else to a new lane.
 *
 * Slices must arrive in start order. ENDs wait in a min-heap and are
 * written once time passes them, so the packets of the whole trace come out
 * sorted by timestamp, with ENDs before BEGINs at equal times. Memory grows
 * with the slices open at one instant and the number of lanes, never with
 * the number of events. */
#ifndef NSYSP_MODEL_SLICES_H
#define NSYSP_MODEL_SLICES_H

#include <stdbool.h>
#include <stdint.h>

#include "tracks.h"

/* trace_processor's stack limit is 512; a deeper slice opens a new lane. */
#define SLICES_MAX_DEPTH 256

typedef struct lane lane;

typedef struct slice_row {
    track *parent;
    char *name;              /* name of every lane track */
    char *merge_key;
    char *description;       /* of every lane track, or NULL */
    bool nest;               /* nested slices may share a lane */
    bool hidden;             /* left out by a filter: slices are dropped */
    bool has_rank;
    int32_t rank;
    uint64_t batch;          /* of its lanes (pw_track.batch); 0: the first
                                lane's uuid, so that the lanes share one */
    pw_chrome_place chrome;  /* of its lanes (pw_track.chrome) */
    lane **lanes;
    size_t n_lanes, cap_lanes;
    /* Rows that do not nest: a min-heap of the indexes of idle lanes, so a
     * slice takes the lowest idle lane without scanning busy ones (rows
     * with thousands of open ranges stay linear). */
    size_t *idle;
    size_t n_idle, cap_idle;
    struct slice_row *next_alloc;
} slice_row;

typedef struct pending_end {
    int64_t end;
    uint64_t order;          /* later-opened first among equal ends */
    lane *lane;
} pending_end;

typedef struct slicer {
    track_tree *tracks;
    pw_seq *seq;
    int64_t shift;           /* added to every timestamp */
    pending_end *heap;
    size_t n_heap, cap_heap;
    uint64_t order;
    uint64_t next_row_id;
    slice_row *rows;
    uint64_t events;         /* TrackEvents written */
    uint64_t max_lanes;      /* widest row, for stats */
    /* Events of another writer that fall due as time passes (the GPU
     * utilization counters, gpu_utilization.h): called with a time t, it
     * writes its events before t; the slicer calls it before each END it
     * writes and when it advances, so the sequence stays in time order. */
    int (*due)(void *ctx, int64_t before);
    void *due_ctx;
} slicer;

void slicer_init(slicer *s, track_tree *tracks);
void slicer_free(slicer *s);

/* A batch key for rows that share one by name: rows whose events carry
 * user strings (NVTX) on many threads and devices, so that each string is
 * interned once, not once per row. */
uint64_t slicer_batch_of_name(const char *name);

/* A new row under parent. rank (when has_rank) orders it among siblings. */
slice_row *slicer_row(slicer *s, track *parent, const char *name, bool nest, bool has_rank,
                      int32_t rank);

/* Sets the description of r's lane tracks (before its first slice). */
void slicer_row_describe(slice_row *r, const char *description);

/* Writes the ENDs due at or before ts. */
int slicer_advance(slicer *s, int64_t ts);

/* Places [start, end] on row and writes its BEGIN. ev supplies name,
 * category, args and flows; type, ts and track are set here. start must not
 * precede the start of earlier slices. Returns 0, 1 when the row is hidden
 * (nothing written), or -1 when the output failed; so do the others. */
int slicer_slice(slicer *s, slice_row *row, int64_t start, int64_t end, pw_event *ev);

/* Writes an instant on row at ts, on the first lane where it fits. */
int slicer_instant(slicer *s, slice_row *row, int64_t ts, pw_event *ev);

/* Writes an instant or counter event on a single track at ts. */
int slicer_event(slicer *s, track *tr, int64_t ts, pw_event *ev);

/* Writes every END still pending. */
int slicer_finish(slicer *s);

#endif
