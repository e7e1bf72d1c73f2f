#include "kineto_writer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/json.h"
#include "common/pairmap.h"
#include "common/xalloc.h"
#include "kineto_args.h"
#include "nsys/nsys_cursor.h"
#include "perfetto/pw_output.h"

/* The model's pids and tids carry a merged report's index above bit 22
 * (model_set_report); the JSON has the report's own. Its stand-in for pid
 * 0 (PID_ZERO_STANDIN) is the mask itself. */
#define ID_MASK ((1 << 22) - 1)

enum {
    SYNTHETIC_TID = 1 << 30,     /* tids of rows that have none, and overflows */
    FLUSH_AT = 256 * 1024,       /* bytes gathered per file before pw_output_write */
    MAX_DEPTH = 1024,            /* deeper slices go to an overflow thread */
};

typedef struct kw_open {
    uint64_t start, end;
} kw_open;

/* One JSON thread of a group: its tid and the slices open on it. */
typedef struct kw_slot {
    int64_t tid;
    kw_open *open;
    size_t depth, cap;
} kw_slot;

/* The JSON threads of one (file, pid, tid): the first, then overflows. */
typedef struct kw_group {
    uint32_t file;
    int32_t pid;
    int64_t tid;                 /* -1: a row without one (synthetic) */
    char *name;
    kw_slot *slots;
    size_t n_slots, cap_slots;
} kw_group;

/* Where a track's events go. */
typedef struct kw_place {
    bool known;
    bool counter;
    bool global;                 /* no process, no GPU: global instants */
    bool gpu;
    uint32_t file;
    int32_t pid;                 /* as written */
    int64_t tid;                 /* as written; -1: none */
    int32_t owner;               /* model pid of its process; 0: none */
    int64_t device;
    size_t report;
    char *name;                  /* the track's own name */
    const char *tname;           /* the thread name of its tid (a place's name) */
    char *merge_key;
    uint32_t group;              /* 1 + index in groups; 0: none yet */
} kw_place;

typedef struct kw_file {
    pw_output *out;
    buf text;                    /* written out at FLUSH_AT */
    bool any;                    /* an event written: the next needs a comma */
    hmap named;                  /* (pid, tid) whose M event is written */
} kw_file;

struct kineto_writer {
    const kineto_files *files;
    kw_file *out;
    size_t report;
    kw_place *places;            /* by track uuid (small, sequential) */
    size_t cap_places;
    kw_group *groups;
    size_t n_groups, cap_groups;
    hmap group_index;            /* group key -> index + 1 */
    hmap process_names;          /* (report, pid, gpu) -> name index + 1 */
    char **names;
    size_t n_names, cap_names;
    int64_t next_tid;
    pairmap flows;               /* flow ids with one end written -> its
                                    correlation id + 1 (0: none) */
    kineto_strings strings;      /* constant names and args, escaped once */
    uint64_t not_written;
    int err;                     /* errno of the first failed write */
};

/* ---- Files --------------------------------------------------------------- */

static int flush_file(kineto_writer *w, kw_file *f)
{
    if (f->text.len && pw_output_write(f->out, f->text.data, f->text.len) < 0 && !w->err)
        w->err = pw_output_error(f->out) ? pw_output_error(f->out) : EIO;
    buf_clear(&f->text);
    return w->err ? -1 : 0;
}

/* Starts the next event of f: a comma after the one before. */
static buf *event_text(kw_file *f)
{
    if (f->any)
        KINETO_PUT_LITERAL(&f->text, ",\n{");
    else
        KINETO_PUT_LITERAL(&f->text, "\n{");
    f->any = true;
    return &f->text;
}

static int event_done(kineto_writer *w, kw_file *f)
{
    return f->text.len >= FLUSH_AT ? flush_file(w, f) : 0;
}

static void append_str(buf *t, const char *s)
{
    json_append_string(t, s, strlen(s), false);
}

/* The GPU's properties under Kineto's names (deviceProperties). */
static void append_device(buf *t, const nsys_gpu *g)
{
    static const struct {
        const char *key;
        int prop;
    } PROPS[] = {
        {"totalGlobalMem", NSYS_GPU_TOTAL_MEMORY},
        {"computeMajor", NSYS_GPU_COMPUTE_MAJOR},
        {"computeMinor", NSYS_GPU_COMPUTE_MINOR},
        {"maxThreadsPerBlock", NSYS_GPU_MAX_THREADS_PER_BLOCK},
        {"regsPerBlock", NSYS_GPU_MAX_REGISTERS_PER_BLOCK},
        {"regsPerMultiprocessor", NSYS_GPU_MAX_REGISTERS_PER_SM},
        {"warpSize", NSYS_GPU_THREADS_PER_WARP},
        {"sharedMemPerBlock", NSYS_GPU_MAX_SHMEM_PER_BLOCK},
        {"sharedMemPerMultiprocessor", NSYS_GPU_MAX_SHMEM_PER_SM},
        {"numSms", NSYS_GPU_SM_COUNT},
    };
    buf_append_str(t, "{\"id\": ");
    kineto_append_int(t, g->id);
    buf_append_str(t, ", \"name\": ");
    append_str(t, g->name ? g->name : "");
    for (size_t i = 0; i < sizeof PROPS / sizeof PROPS[0]; i++)
        if (g->props[PROPS[i].prop] != NSYS_NULL) {
            buf_printf(t, ", \"%s\": ", PROPS[i].key);
            kineto_append_int(t, g->props[PROPS[i].prop]);
        }
    int64_t warps = g->props[NSYS_GPU_MAX_WARPS_PER_SM], warp = g->props[NSYS_GPU_THREADS_PER_WARP];
    if (warps != NSYS_NULL && warp != NSYS_NULL) {
        buf_append_str(t, ", \"maxThreadsPerMultiprocessor\": ");
        kineto_append_int(t, warps * warp);
    }
    buf_append_byte(t, '}');
}

/* What a multi-rank Kineto capture puts before its events. HTA finds the
 * rank with the pattern "rank": N, so the space after the colon matters. */
static void write_header(buf *t, const kineto_files *files, const kineto_file *f,
                         const char *input, const nsys_meta *meta, int64_t base_utc_ns)
{
    buf_append_str(t, "{\"schemaVersion\": 1,\n\"deviceProperties\": [");
    for (size_t i = 0; i < meta->n_gpus; i++) {
        if (i)
            buf_append_str(t, ", ");
        append_device(t, &meta->gpus[i]);
    }
    buf_printf(t, "],\n\"distributedInfo\": {\"rank\": %ld, \"world_size\": %zu},\n", f->rank,
               files->n);
    if (base_utc_ns != INT64_MIN) {
        buf_append_str(t, "\"baseTimeNanoseconds\": ");
        kineto_append_int(t, base_utc_ns);
        buf_append_str(t, ",\n");
    }
    buf_append_str(t, "\"displayTimeUnit\": \"ms\",\n\"traceName\": ");
    append_str(t, input);
    buf_append_str(t, ",\n\"traceEvents\": [");
}

/* ---- Names: M events ----------------------------------------------------- */

static const char *process_name(const kineto_writer *w, size_t report, int32_t pid, bool gpu)
{
    int64_t key[3] = {(int64_t)report, pid, gpu};
    const uint64_t *v = hmap_find(&w->process_names, key, sizeof key);
    return v && *v ? w->names[*v - 1] : NULL;
}

static void remember_process_name(kineto_writer *w, size_t report, int32_t pid, bool gpu,
                                  const char *name)
{
    int64_t key[3] = {(int64_t)report, pid, gpu};
    bool inserted;
    uint64_t *v = hmap_upsert(&w->process_names, key, sizeof key, &inserted);
    if (!inserted || !name)
        return;
    w->names = xgrow(w->names, &w->cap_names, w->n_names + 1, sizeof *w->names);
    w->names[w->n_names++] = xstrdup(name);
    *v = w->n_names;
}

/* Names (pid, tid) in file f once: process_name when tid is -1, else
 * thread_name; name NULL or empty writes nothing. */
static int name_once(kineto_writer *w, uint32_t file, int32_t pid, int64_t tid, const char *name,
                     const char *suffix)
{
    kw_file *f = &w->out[file];
    int64_t key[2] = {pid, tid};
    bool inserted;
    hmap_upsert(&f->named, key, sizeof key, &inserted);
    if (!inserted || !name || !*name)
        return 0; /* Perfetto refuses a name M event with an empty name */
    buf *t = event_text(f);
    buf_append_str(t, tid < 0 ? "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":"
                              : "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
    kineto_append_int(t, pid);
    buf_append_str(t, ",\"tid\":");
    kineto_append_int(t, tid < 0 ? 0 : tid);
    buf_append_str(t, ",\"args\":{\"name\":");
    buf full = {0};
    buf_printf(&full, "%s%s", name, suffix);
    append_str(t, buf_cstr(&full));
    buf_free(&full);
    buf_append_str(t, "}}");
    return event_done(w, f);
}

/* ---- Placing tracks -------------------------------------------------------- */

/* The file of the events of a process (owner, a model pid) or of a device. */
static uint32_t file_of(const kineto_writer *w, int32_t owner, bool gpu, int64_t device)
{
    const kineto_files *fs = w->files;
    int32_t pid = owner & ID_MASK;
    if (pid == ID_MASK)
        pid = 0; /* the model's stand-in for pid 0 */
    uint32_t first = UINT32_MAX, by_device = UINT32_MAX;
    for (size_t i = 0; i < fs->n; i++) {
        const kineto_file *f = &fs->files[i];
        if (f->report != w->report)
            continue;
        if (owner && f->pid == pid)
            return (uint32_t)i;
        if (first == UINT32_MAX)
            first = (uint32_t)i;
        if (gpu && f->device == device && by_device == UINT32_MAX)
            by_device = (uint32_t)i;
    }
    if (by_device != UINT32_MAX)
        return by_device;
    return first == UINT32_MAX ? 0 : first;
}

static kw_place *place_of(kineto_writer *w, uint64_t uuid)
{
    if (uuid >= w->cap_places) {
        size_t old = w->cap_places;
        w->places = xgrow(w->places, &w->cap_places, uuid + 1, sizeof *w->places);
        memset(w->places + old, 0, (w->cap_places - old) * sizeof *w->places);
    }
    return &w->places[uuid];
}

static int on_track(void *ctx, const pw_track *t)
{
    kineto_writer *w = ctx;
    kw_place *p = place_of(w, t->uuid);
    kw_place parent = {.tid = -1, .global = true};
    if (t->parent_uuid && t->parent_uuid < w->cap_places && w->places[t->parent_uuid].known)
        parent = w->places[t->parent_uuid];
    free(p->name);
    free(p->merge_key);
    *p = (kw_place){.known = true, .tid = -1, .report = w->report};
    p->name = xstrdup(t->name ? t->name : "");
    p->merge_key = t->merge_key ? xstrdup(t->merge_key) : NULL;
    p->counter = t->kind == PW_TRACK_COUNTER;
    if (t->kind == PW_TRACK_PROCESS || t->kind == PW_TRACK_THREAD) {
        p->pid = t->pid & ID_MASK;
        p->owner = t->pid;
        if (t->kind == PW_TRACK_THREAD) {
            p->tid = t->tid & ID_MASK;
            p->tname = p->name;
        } else {
            remember_process_name(w, w->report, p->pid, false, t->name);
        }
    } else if (t->chrome.set) {
        p->gpu = t->chrome.gpu;
        p->device = t->chrome.device;
        p->pid = p->gpu ? (int32_t)t->chrome.device : parent.pid;
        p->owner = t->chrome.owner_pid ? t->chrome.owner_pid : parent.owner;
        p->tid = t->chrome.tid;
        p->tname = t->chrome.tid >= 0 ? p->name : NULL;
        if (p->gpu && !t->parent_uuid)
            remember_process_name(w, w->report, p->pid, true, t->name);
    } else {
        p->global = parent.global;
        p->gpu = parent.gpu;
        p->device = parent.device;
        p->pid = parent.pid;
        p->owner = parent.owner;
        p->tid = parent.tid;
        p->tname = parent.tname;
    }
    p->file = file_of(w, p->owner, p->gpu, p->device);
    return 0;
}

/* The group of a slice track: its thread's, or, for a row without a tid,
 * one of its own (lanes of a row share its merge key). */
static kw_group *group_of(kineto_writer *w, kw_place *p)
{
    if (p->group)
        return &w->groups[p->group - 1];
    buf key = {0};
    buf_printf(&key, "%u/%d/%lld", p->file, p->pid, (long long)p->tid);
    if (p->tid < 0)
        buf_printf(&key, "/%zu/%s", p->report, p->merge_key ? p->merge_key : p->name);
    bool inserted;
    uint64_t *slot = hmap_upsert(&w->group_index, key.data, key.len, &inserted);
    buf_free(&key);
    if (inserted) {
        w->groups = xgrow(w->groups, &w->cap_groups, w->n_groups + 1, sizeof *w->groups);
        w->groups[w->n_groups++] = (kw_group){
            .file = p->file, .pid = p->pid, .tid = p->tid,
            .name = xstrdup(p->tid >= 0 && p->tname ? p->tname : p->name),
        };
        *slot = w->n_groups;
    }
    p->group = (uint32_t)*slot;
    return &w->groups[p->group - 1];
}

/* The slot of g at index i, creating it (with its names) when new. */
static kw_slot *slot_at(kineto_writer *w, kw_group *g, size_t i, size_t report, bool gpu)
{
    if (i < g->n_slots)
        return &g->slots[i];
    g->slots = xgrow(g->slots, &g->cap_slots, g->n_slots + 1, sizeof *g->slots);
    kw_slot *s = &g->slots[g->n_slots++];
    memset(s, 0, sizeof *s);
    s->tid = i == 0 && g->tid >= 0 ? g->tid : w->next_tid++;
    const char *pname = process_name(w, report, g->pid, gpu);
    if (name_once(w, g->file, g->pid, -1, pname, "") < 0 ||
        name_once(w, g->file, g->pid, s->tid, g->name, i ? " (overlap)" : "") < 0)
        return NULL;
    return s;
}

/* Whether [s, e] nests among the slices open on sl as Perfetto's JSON
 * importer nests them (by start, longer first: a slice that starts with an
 * open one and ends later becomes its parent); if so, takes it. */
static bool slot_take(kw_slot *sl, uint64_t s, uint64_t e)
{
    while (sl->depth && sl->open[sl->depth - 1].end <= s)
        sl->depth--;
    if (sl->depth >= MAX_DEPTH)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < sl->depth; i++) {
        const kw_open *o = &sl->open[i];
        if (o->start <= s && o->end >= e)
            at = i + 1;          /* it holds the new one */
        else if (!(o->start == s && o->end <= e))
            return false;        /* neither holds the other */
    }
    sl->open = xgrow(sl->open, &sl->cap, sl->depth + 1, sizeof *sl->open);
    memmove(sl->open + at + 1, sl->open + at, (sl->depth - at) * sizeof *sl->open);
    sl->open[at] = (kw_open){s, e};
    sl->depth++;
    return true;
}

/* ---- Events ---------------------------------------------------------------- */

/* The event's name as JSON text; a constant's escaped once. */
static void append_name(kineto_writer *w, buf *t, const pw_event *ev)
{
    if (ev->name && ev->name_is_constant)
        kineto_append_constant(&w->strings, t, ev->name);
    else
        append_str(t, ev->name ? ev->name : "");
}

static void append_ids(buf *t, int32_t pid, int64_t tid, uint64_t ts)
{
    KINETO_PUT_LITERAL(t, ",\"pid\":");
    kineto_append_int(t, pid);
    KINETO_PUT_LITERAL(t, ",\"tid\":");
    kineto_append_int(t, tid);
    KINETO_PUT_LITERAL(t, ",\"ts\":");
    kineto_append_us(t, ts);
}

/* The correlation id of an event: its arg, else the one its flow's other
 * end carried (the protobuf trace writes it once, on the call). */
static int64_t correlation_of(const kineto_writer *w, const pw_event *ev)
{
    int64_t corr = kineto_correlation_of(ev);
    for (size_t i = 0; corr < 0 && i < ev->n_flow_ids; i++) {
        const uint64_t *seen = pairmap_find(&w->flows, (int64_t)ev->flow_ids[i], 0);
        if (seen && *seen)
            corr = (int64_t)*seen - 1;
    }
    return corr;
}

/* Kineto's flow from a CUDA call to its GPU work: "s" at the end met
 * first, "f" bound to the enclosing slice at the other. */
static int write_flows(kineto_writer *w, kw_file *f, const pw_event *ev, int32_t pid, int64_t tid,
                       int64_t corr)
{
    for (size_t i = 0; i < ev->n_flow_ids + ev->n_terminating_flow_ids; i++) {
        uint64_t id = i < ev->n_flow_ids ? ev->flow_ids[i]
                                         : ev->terminating_flow_ids[i - ev->n_flow_ids];
        uint64_t *seen = pairmap_find(&w->flows, (int64_t)id, 0);
        bool start = !seen;
        if (seen)
            pairmap_remove(&w->flows, (int64_t)id, 0);
        else
            *pairmap_upsert(&w->flows, (int64_t)id, 0) = corr >= 0 ? (uint64_t)corr + 1 : 0;
        buf *t = event_text(f);
        if (start)
            KINETO_PUT_LITERAL(t, "\"ph\":\"s\",\"id\":");
        else
            KINETO_PUT_LITERAL(t, "\"ph\":\"f\",\"bp\":\"e\",\"id\":");
        kineto_append_uint(t, id);
        append_ids(t, pid, tid, ev->ts);
        KINETO_PUT_LITERAL(t, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
    }
    return event_done(w, f);
}

static int write_slice(kineto_writer *w, kw_place *p, const pw_event *ev)
{
    kw_group *g = group_of(w, p);
    uint64_t end = ev->end > ev->ts ? ev->end : ev->ts;
    kw_slot *sl = NULL;
    for (size_t i = 0;; i++) {
        sl = slot_at(w, g, i, p->report, p->gpu);
        if (!sl)
            return -1;
        if (slot_take(sl, ev->ts, end))
            break;
    }
    kw_file *f = &w->out[g->file];
    kineto_kind k = kineto_kind_of(ev);
    /* Only the ends of flows need it: the others carry their own arg. */
    int64_t corr = ev->n_flow_ids ? correlation_of(w, ev) : -1;
    buf *t = event_text(f);
    KINETO_PUT_LITERAL(t, "\"ph\":\"X\",\"cat\":");
    kineto_append_constant(&w->strings, t, kineto_category(k, ev->category));
    KINETO_PUT_LITERAL(t, ",\"name\":");
    append_name(w, t, ev);
    append_ids(t, g->pid, sl->tid, ev->ts);
    KINETO_PUT_LITERAL(t, ",\"dur\":");
    kineto_append_us(t, end - ev->ts);
    kineto_append_args(&w->strings, t, k, ev, end - ev->ts, corr);
    KINETO_PUT_LITERAL(t, "}");
    if (ev->n_flow_ids || ev->n_terminating_flow_ids)
        return write_flows(w, f, ev, g->pid, sl->tid, corr);
    return event_done(w, f);
}

static int write_instant(kineto_writer *w, kw_place *p, const pw_event *ev)
{
    int32_t pid = 0;
    int64_t tid = 0;
    kw_file *f = &w->out[p->file];
    if (!p->global) {
        kw_group *g = group_of(w, p);
        kw_slot *sl = slot_at(w, g, 0, p->report, p->gpu);
        if (!sl)
            return -1;
        pid = g->pid;
        tid = sl->tid;
        f = &w->out[g->file];
    }
    kineto_kind k = kineto_kind_of(ev);
    int64_t corr = ev->n_flow_ids ? correlation_of(w, ev) : -1;
    buf *t = event_text(f);
    buf_append_str(t, p->global ? "\"ph\":\"i\",\"s\":\"g\",\"cat\":" : "\"ph\":\"i\",\"s\":\"t\",\"cat\":");
    kineto_append_constant(&w->strings, t, kineto_category(k, ev->category));
    KINETO_PUT_LITERAL(t, ",\"name\":");
    append_name(w, t, ev);
    append_ids(t, pid, tid, ev->ts);
    kineto_append_args(&w->strings, t, k, ev, 0, corr);
    buf_append_byte(t, '}');
    if (ev->n_flow_ids || ev->n_terminating_flow_ids)
        return write_flows(w, f, ev, pid, tid, corr);
    return event_done(w, f);
}

static int write_counter(kineto_writer *w, const kw_place *p, uint64_t ts, bool is_double,
                         int64_t i, double d)
{
    kw_file *f = &w->out[p->file];
    if (name_once(w, p->file, p->pid, -1, process_name(w, p->report, p->pid, p->gpu), "") < 0)
        return -1;
    buf *t = event_text(f);
    KINETO_PUT_LITERAL(t, "\"ph\":\"C\",\"name\":");
    kineto_append_constant(&w->strings, t, p->name); /* the place keeps it */
    KINETO_PUT_LITERAL(t, ",\"pid\":");
    kineto_append_int(t, p->pid);
    KINETO_PUT_LITERAL(t, ",\"ts\":");
    kineto_append_us(t, ts);
    KINETO_PUT_LITERAL(t, ",\"args\":{\"value\":");
    if (is_double)
        kineto_append_double(t, d);
    else
        kineto_append_int(t, i);
    KINETO_PUT_LITERAL(t, "}}");
    return event_done(w, f);
}

static int on_event(void *ctx, const pw_event *ev)
{
    kineto_writer *w = ctx;
    if (ev->type == PW_SLICE_END)
        return 0; /* its slice was written whole at its begin */
    if (ev->track_uuid >= w->cap_places || !w->places[ev->track_uuid].known)
        return 0; /* cannot happen: descriptors come first */
    kw_place *p = &w->places[ev->track_uuid];
    switch (ev->type) {
    case PW_SLICE_BEGIN:
        return write_slice(w, p, ev);
    case PW_INSTANT:
        return write_instant(w, p, ev);
    case PW_COUNTER:
        if (write_counter(w, p, ev->ts, ev->counter_is_double, ev->counter_int,
                          ev->counter_double) < 0)
            return -1;
        for (size_t i = 0; i < ev->n_extra_counters; i++) {
            uint64_t uuid = ev->extra_counter_tracks[i];
            if (uuid < w->cap_places && w->places[uuid].known &&
                write_counter(w, &w->places[uuid], ev->ts, true, 0,
                              ev->extra_counter_values[i]) < 0)
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

static void on_dropped(void *ctx, uint64_t n)
{
    ((kineto_writer *)ctx)->not_written += n;
}

static int on_error(void *ctx)
{
    return ((kineto_writer *)ctx)->err;
}

/* ---- Life ------------------------------------------------------------------ */

static void free_writer(kineto_writer *w)
{
    for (size_t i = 0; i < w->files->n; i++) {
        buf_free(&w->out[i].text);
        hmap_free(&w->out[i].named);
    }
    free(w->out);
    for (size_t i = 0; i < w->cap_places; i++) {
        free(w->places[i].name);
        free(w->places[i].merge_key);
    }
    free(w->places);
    for (size_t i = 0; i < w->n_groups; i++) {
        for (size_t k = 0; k < w->groups[i].n_slots; k++)
            free(w->groups[i].slots[k].open);
        free(w->groups[i].slots);
        free(w->groups[i].name);
    }
    free(w->groups);
    hmap_free(&w->group_index);
    hmap_free(&w->process_names);
    for (size_t i = 0; i < w->n_names; i++)
        free(w->names[i]);
    free(w->names);
    pairmap_free(&w->flows);
    kineto_strings_free(&w->strings);
    free(w);
}

/* Commits every file, or none: once one fails, the others are discarded
 * and those already in place removed, so that no rank is left alone. */
static int on_finish(void *ctx, bool ok, buf *err, pw_output_totals *totals)
{
    kineto_writer *w = ctx;
    const kineto_files *fs = w->files;
    int rc = ok ? 0 : -1;
    pw_output_totals sum = {0};
    for (size_t i = 0; i < fs->n; i++) {
        kw_file *f = &w->out[i];
        if (rc == 0) {
            buf_append_str(&f->text, "\n]}\n");
            flush_file(w, f);
            pw_output_totals one = {0};
            rc = pw_output_commit(f->out, err, &one);
            sum.bytes_in += one.bytes_in;
            sum.bytes_out += one.bytes_out;
            if (rc < 0)
                for (size_t k = 0; k < i; k++)
                    unlink(fs->files[k].path);
        } else {
            pw_output_discard(f->out);
        }
    }
    if (totals)
        *totals = sum;
    free_writer(w);
    return rc;
}

kineto_writer *kineto_writer_new(const kineto_files *files, const char *const *inputs,
                                 const nsys_meta *const *metas, int64_t base_utc_ns,
                                 int compress_level, size_t compressors,
                                 volatile sig_atomic_t *cancel, buf *err)
{
    kineto_writer *w = xcalloc(1, sizeof *w);
    w->files = files;
    w->out = xcalloc(files->n ? files->n : 1, sizeof *w->out);
    w->next_tid = SYNTHETIC_TID;
    hmap_init(&w->group_index);
    hmap_init(&w->process_names);
    kineto_strings_init(&w->strings);
    /* Several files share the compressor threads asked for. */
    size_t each = files->n > 1 ? (compressors + files->n - 1) / files->n : compressors;
    for (size_t i = 0; i < files->n; i++) {
        const kineto_file *f = &files->files[i];
        hmap_init(&w->out[i].named);
        w->out[i].out = pw_output_open(f->path, files->compressed ? compress_level : 0,
                                       each ? each : 1, err);
        if (!w->out[i].out) {
            for (size_t k = 0; k < i; k++)
                pw_output_discard(w->out[k].out);
            free_writer(w);
            return NULL;
        }
        pw_output_set_cancel(w->out[i].out, cancel);
        write_header(&w->out[i].text, files, f, inputs[f->report], metas[f->report],
                     base_utc_ns);
    }
    return w;
}

void kineto_writer_set_report(kineto_writer *w, size_t report)
{
    w->report = report;
}

pw_backend kineto_writer_backend(kineto_writer *w)
{
    return (pw_backend){.ctx = w, .descriptor = on_track, .event = on_event, .dropped = on_dropped,
                        .error = on_error, .finish = on_finish};
}

uint64_t kineto_writer_not_written(const kineto_writer *w)
{
    return w->not_written;
}
