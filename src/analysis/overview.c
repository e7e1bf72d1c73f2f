/* nsysp_write_overview: one small Perfetto trace for a whole distributed
 * job (nsys-perfetto ranks --trace). Per rank a process group holding its
 * GPU utilization as a counter in bins (a few hundred values, not every
 * kernel), its steps and its NCCL kernels; times from the job's window
 * start. What was binned is said on the counter track. Written direct
 * (no batches), absolute times: memory stays flat whatever the ranks. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/buf.h"
#include "perfetto/pw_writer.h"

enum { LANES = 8 };               /* overlapping steps, or NCCL kernels, of one rank */

typedef struct overview_writer {
    pw_seq *seq;
    uint64_t next_uuid;
    int64_t origin;               /* the window's start, UTC */
} overview_writer;

/* A track; groups (the job, a rank) order their children by rank. */
static uint64_t track(overview_writer *o, uint64_t parent, pw_track_kind kind, const char *name,
                      const char *description, int32_t rank, const char *unit)
{
    pw_track t = {.uuid = o->next_uuid++, .parent_uuid = parent, .kind = kind, .name = name,
                  .description = description, .has_rank = parent != 0, .rank = rank,
                  .unit_name = unit, .batch = PW_DIRECT,
                  .child_order = kind == PW_TRACK_PLAIN ? PW_ORDER_EXPLICIT : PW_ORDER_DEFAULT};
    return pw_write_track(o->seq, 0, &t) == 0 ? t.uuid : 0;
}

static uint64_t at(const overview_writer *o, int64_t utc)
{
    return utc > o->origin ? (uint64_t)(utc - o->origin) : 0;
}

static int slice(overview_writer *o, uint64_t track_uuid, int64_t start, int64_t end,
                 const char *name, const pw_arg *args, size_t n_args)
{
    pw_event begin = {.type = PW_SLICE_BEGIN, .ts = at(o, start), .track_uuid = track_uuid,
                      .name = name, .category = "ranks", .args = args, .n_args = n_args};
    pw_event finish = {.type = PW_SLICE_END, .ts = at(o, end), .track_uuid = track_uuid};
    return pw_write_event(o->seq, &begin) < 0 || pw_write_event(o->seq, &finish) < 0 ? -1 : 0;
}

static int utilization(overview_writer *o, const nsysp_overview *ov,
                       const nsysp_overview_rank *r, uint64_t group)
{
    char description[160];
    double width = (double)(ov->window_end_utc - ov->window_start_utc) / (double)ov->n_bins;
    snprintf(description, sizeof description,
             "binned: the GPU's busy share in %zu bins of %.3f ms (kernels, copies, sets)",
             ov->n_bins, width / 1e6);
    uint64_t counter = track(o, group, PW_TRACK_COUNTER, "GPU utilization", description, 0, "%");
    if (!counter)
        return -1;
    for (size_t b = 0; b < r->n_bins && b < ov->n_bins; b++) {
        pw_event ev = {.type = PW_COUNTER,
                       .ts = (uint64_t)((double)b * width),
                       .track_uuid = counter,
                       .counter_is_double = true,
                       .counter_double = 100.0 * r->utilization[b]};
        if (pw_write_event(o->seq, &ev) < 0)
            return -1;
    }
    return 0;
}

/* Lanes of one kind of slice (steps, NCCL kernels): one that starts before
 * another ended takes the next lane, so that no track holds overlapping
 * slices (pipelined micro-batches' steps overlap, as NCCL kernels do). */
typedef struct lanes {
    const char *name;            /* the first lane's; the others' "NAME 2" ... */
    int32_t first_rank;          /* the tracks' order in their rank's group */
    uint64_t track[LANES];
    int64_t end[LANES];
} lanes;

/* The lane's track for a slice from start; 0 when every lane is taken (the
 * slice is left out) or the track cannot be written (*failed set). */
static uint64_t lane_for(overview_writer *o, lanes *l, uint64_t group, int64_t start,
                         int64_t end, bool *failed)
{
    size_t lane = 0;
    while (lane < LANES && l->track[lane] && start < l->end[lane])
        lane++;
    if (lane == LANES)
        return 0;
    if (!l->track[lane]) {
        char name[64];
        if (lane)
            snprintf(name, sizeof name, "%s %zu", l->name, lane + 1);
        else
            snprintf(name, sizeof name, "%s", l->name);
        l->track[lane] = track(o, group, PW_TRACK_PLAIN, name, NULL,
                               l->first_rank + (int32_t)lane, NULL);
        *failed = !l->track[lane];
    }
    l->end[lane] = end;
    return l->track[lane];
}

static int steps(overview_writer *o, const nsysp_overview *ov, const nsysp_overview_rank *r,
                 uint64_t group)
{
    lanes l = {.name = "steps", .first_rank = 1};
    bool failed = false;
    for (size_t k = 0; k < r->n_steps && !failed; k++) {
        int64_t start = r->step_start_utc[k], end = start + r->step_ns[k];
        uint64_t t = lane_for(o, &l, group, start, end, &failed);
        pw_arg arg = {.name = "step", .type = PW_ARG_INT, .v.i = (int64_t)k};
        if (t && slice(o, t, start, end, ov->step_name && *ov->step_name ? ov->step_name : "step",
                       &arg, 1) < 0)
            return -1;
    }
    return failed ? -1 : 0;
}

static int collectives(overview_writer *o, const nsysp_overview_rank *r, uint64_t group)
{
    lanes l = {.name = "collectives", .first_rank = 1 + LANES};
    bool failed = false;
    for (size_t k = 0; k < r->n_collectives && !failed; k++) {
        const nsysp_collective *c = &r->collectives[k];
        uint64_t t = lane_for(o, &l, group, c->start_utc, c->end_utc, &failed);
        pw_arg arg = {.name = "collective", .type = PW_ARG_INT, .v.i = (int64_t)k};
        if (t && slice(o, t, c->start_utc, c->end_utc, c->name, &arg, 1) < 0)
            return -1;
    }
    return failed ? -1 : 0;
}

nsysp_status nsysp_write_overview(const char *path, const nsysp_overview *ov,
                                  char message[512])
{
    buf err = {0};
    message[0] = '\0';
    pw_output *out = pw_output_open(path, ov->compress_level ? ov->compress_level : 7, 1, &err);
    if (!out) {
        snprintf(message, 512, "%s", buf_cstr(&err));
        buf_free(&err);
        return NSYSP_ERR_OUTPUT;
    }
    pw_writer *w = pw_writer_new(out);
    overview_writer o = {.seq = pw_writer_sequence(w), .next_uuid = 1,
                         .origin = ov->window_start_utc};
    bool ok = pw_sequence_start(o.seq, false) == 0;
    /* One group for the job, the ranks inside it in their order (process
     * groups would sort by name: "rank 10" before "rank 2"). */
    char job[64];
    snprintf(job, sizeof job, "job: %zu ranks", ov->n_ranks);
    uint64_t root = ok ? track(&o, 0, PW_TRACK_PLAIN, job, NULL, 0, NULL) : 0;
    ok = root != 0;
    for (size_t i = 0; i < ov->n_ranks && ok; i++) {
        const nsysp_overview_rank *r = &ov->ranks[i];
        uint64_t group = track(&o, root, PW_TRACK_PLAIN, r->label, NULL, (int32_t)i, NULL);
        ok = group && utilization(&o, ov, r, group) == 0 && steps(&o, ov, r, group) == 0 &&
             collectives(&o, r, group) == 0;
    }
    int rc = pw_writer_finish(w, ok, &err, NULL);
    nsysp_status status = ok && rc == 0 ? NSYSP_OK : NSYSP_ERR_OUTPUT;
    if (status != NSYSP_OK)
        snprintf(message, 512, "%s: %s", path, err.len ? buf_cstr(&err) : "cannot be written");
    buf_free(&err);
    return status;
}
