#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#include "nsys/nsys_ids.h"

static const char *const THREAD_ROW_NAMES[ROW_KINDS] = {
    [ROW_CUDA_API] = "CUDA API",
    [ROW_NVTX] = "NVTX",
    [ROW_OSRT] = "OS runtime",
    [ROW_CUBLAS] = "cuBLAS",
    [ROW_CUDNN] = "cuDNN",
    [ROW_MPI] = "MPI",
    [ROW_OPENACC] = "OpenACC",
    [ROW_OPENMP] = "OpenMP",
};

/* Keys of the track tree: a tag and up to four ids. */
typedef struct track_key {
    int64_t tag;
    int64_t id[4];
} track_key;

enum {
    KEY_PROCESS = 1, KEY_THREAD, KEY_GPU, KEY_STREAM, KEY_SYNC, KEY_GRAPH, KEY_THREAD_ROW,
    KEY_PROCESS_ROW, KEY_GPU_ROW, KEY_GPU_COUNTER, KEY_GLOBAL, KEY_GPU_PROCESS, KEY_GPU_METRICS,
};

void model_init_core(model *m, pw_seq *seq, const nsys_meta *meta, const nsys_contexts *contexts)
{
    memset(m, 0, sizeof *m);
    tracks_init(&m->tracks, seq);
    slicer_init(&m->slices, &m->tracks);
    m->meta = meta;
    m->contexts = contexts;
    hmap_init(&m->rows);
    hmap_init(&m->labels);
    m->only_device = -1;
    /* With one CUDA process a stream id is unambiguous on its GPU; with
     * several, rows say whose stream they are. */
    m->label_streams_with_process = meta->cuda_processes > 1;
}

void model_free_core(model *m)
{
    free(m->report_label);
    slicer_free(&m->slices);
    tracks_free(&m->tracks);
    hmap_free(&m->rows);
    hmap_free(&m->labels);
}

/* A small id per distinct label, 0 for none, so labels can be part of
 * fixed-size row keys. */
static int64_t label_id(model *m, const char *label)
{
    if (!label)
        return 0;
    bool inserted;
    uint64_t *slot = hmap_upsert(&m->labels, label, strlen(label), &inserted);
    if (inserted)
        *slot = m->labels.count;
    return (int64_t)*slot;
}

/* "NVTX" or "NVTX · NCCL". */
static const char *row_name(char *out, size_t size, const char *name, const char *label)
{
    if (label)
        snprintf(out, size, "%s \xC2\xB7 %s", name, label);
    else
        snprintf(out, size, "%s", name);
    return out;
}

void model_set_filters(model *m, int64_t device, int32_t pid)
{
    m->only_device = device;
    m->only_pid = pid;
}

static bool pid_hidden(const model *m, int64_t global_id)
{
    return m->only_pid > 0 && nsys_pid_of(global_id) != m->only_pid;
}

static bool device_hidden(const model *m, int64_t device)
{
    return m->only_device >= 0 && device != m->only_device;
}

void model_set_report(model *m, int32_t index, const char *label)
{
    m->id_base = index << 22;
    free(m->report_label);
    m->report_label = xstrdup(label);
}

/* Perfetto's pid 0 is the idle (swapper) process, which owns no events.
 * Minimal exports (tools' own tests write globalTid 1) record a process
 * as pid 0: it moves to the last pid Linux can give (pid_max is at most
 * 2^22) and its name says so. */
#define PID_ZERO_STANDIN ((1 << 22) - 1)

int32_t model_pid(const model *m, int64_t global_id)
{
    int32_t pid = nsys_pid_of(global_id);
    return m->id_base + (pid ? pid : PID_ZERO_STANDIN);
}

/* The process's name as the report gives it, marked when its pid moved. */
static const char *process_name(const model *m, int64_t global_pid, char *out, size_t size)
{
    const char *name = nsys_process_name(m->meta, global_pid);
    if (nsys_pid_of(global_pid))
        return name;
    snprintf(out, size, "%s%spid 0 in the report)", name ? name : "", name ? " (" : "(");
    return out;
}

int32_t model_tid(const model *m, int64_t global_tid)
{
    int32_t tid = nsys_tid_of(global_tid);
    return tid ? m->id_base + tid : 0;
}

/* name, or "name · label" for a merged report. */
static const char *labelled(const model *m, const char *name, char *out, size_t size)
{
    if (!m->report_label)
        return name;
    snprintf(out, size, "%s \xC2\xB7 %s", name ? name : "process", m->report_label);
    return out;
}

void model_set_shift(model *m, int64_t shift)
{
    m->slices.shift = shift;
}

static slice_row *find_row(model *m, const track_key *key)
{
    uint64_t *slot = hmap_find(&m->rows, key, sizeof *key);
    return slot ? (slice_row *)(uintptr_t)*slot : NULL;
}

static void remember_row(model *m, const track_key *key, slice_row *row)
{
    *hmap_upsert(&m->rows, key, sizeof *key, NULL) = (uint64_t)(uintptr_t)row;
}

/* ---- CPU side ----------------------------------------------------------- */

static track *process_track(model *m, int64_t global_pid)
{
    track_key key = {KEY_PROCESS, {global_pid}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    char name[512], base[256];
    pw_track desc = {
        .kind = PW_TRACK_PROCESS,
        .pid = model_pid(m, global_pid),
        .name = labelled(m, process_name(m, global_pid, base, sizeof base), name, sizeof name),
    };
    return tracks_add(&m->tracks, &key, sizeof key, NULL, &desc);
}

static track *thread_track(model *m, int64_t global_tid)
{
    track_key key = {KEY_THREAD, {global_tid}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    track *process = process_track(m, nsys_global_pid_of(global_tid));
    pw_track desc = {
        .kind = PW_TRACK_THREAD,
        .pid = model_pid(m, global_tid),
        .tid = model_tid(m, global_tid),
        .name = nsys_thread_name(m->meta, global_tid),
    };
    return tracks_add(&m->tracks, &key, sizeof key, process, &desc);
}

/* nsys records some events with TID 0, meaning no particular thread of
 * the process; tid 0 is the idle task in Perfetto, so those go on the
 * process instead. */
static track *owner_track(model *m, int64_t global_tid)
{
    return nsys_tid_of(global_tid) ? thread_track(m, global_tid)
                                   : process_track(m, nsys_global_pid_of(global_tid));
}

int model_describe_thread(model *m, int64_t global_tid, uint64_t ts)
{
    return tracks_ensure_written(&m->tracks, owner_track(m, global_tid), ts);
}

slice_row *model_thread_row(model *m, int64_t global_tid, thread_row_kind kind,
                            const char *label)
{
    int64_t label_key = label_id(m, label);
    track_key key = {KEY_THREAD_ROW, {global_tid, kind, label_key}};
    slice_row *row = find_row(m, &key);
    if (row)
        return row;
    char name[512];
    /* Rows of a kind together, unlabelled (default NVTX domain) first. */
    int32_t rank = (int32_t)kind * (1 << 20) + (int32_t)(label_key & 0xFFFFF);
    row = slicer_row(&m->slices, owner_track(m, global_tid),
                     row_name(name, sizeof name, THREAD_ROW_NAMES[kind], label), true, true, rank);
    row->hidden = pid_hidden(m, global_tid);
    /* OS runtime calls carry callstacks, interned on the model's sequence;
     * NVTX rows of every thread share a batch with the GPU's (their names
     * are the user's, without bound). */
    if (kind == ROW_OSRT)
        row->batch = PW_DIRECT;
    else if (kind == ROW_NVTX)
        row->batch = slicer_batch_of_name(THREAD_ROW_NAMES[kind]);
    remember_row(m, &key, row);
    return row;
}

slice_row *model_process_row(model *m, int64_t global_pid, const char *name, const char *label)
{
    track_key key = {KEY_PROCESS_ROW, {global_pid, label_id(m, name), label_id(m, label)}};
    slice_row *row = find_row(m, &key);
    if (row)
        return row;
    char full[512];
    row = slicer_row(&m->slices, process_track(m, global_pid),
                     row_name(full, sizeof full, name, label), false, false, 0);
    row->hidden = pid_hidden(m, global_pid);
    row->batch = slicer_batch_of_name(name); /* every process's rows of a name (NVTX start/end) */
    remember_row(m, &key, row);
    return row;
}

/* ---- GPU side ----------------------------------------------------------- */

/* Sibling ranks inside a GPU group, top to bottom, as nsys-ui orders its
 * CUDA HW rows: the work first. Streams in id order, each followed by its
 * graph and sync rows (stream * 4 + 0, 1, 2); then the process's
 * Synchronization row; then the rows of gpu_place. When several processes
 * use CUDA, each has a group of its own in the GPU group (ranked by pid,
 * before the places) holding its streams, its Synchronization row and its
 * Memory in use. */
#define RANK_LAST_STREAM (INT32_MAX - 16)
#define RANK_SYNCHRONIZATION (INT32_MAX - 12)

/* GPU utilization sits above everything else, streams and process
 * groups (ranked from 0) included. */
#define RANK_UTILIZATION (-1)

static int32_t place_rank(gpu_place place)
{
    if (place == GPU_PLACE_UTILIZATION)
        return RANK_UTILIZATION;
    return INT32_MAX - 8 + 2 * (int32_t)place;
}

static int32_t stream_rank(int tag, int64_t stream)
{
    if (stream < 0 || stream > RANK_LAST_STREAM / 4 - 1)
        return RANK_LAST_STREAM;
    return (int32_t)(stream * 4 + (tag == KEY_GRAPH) + 2 * (tag == KEY_SYNC));
}

/* Appends "key: value\n" to out (size bytes, NUL-terminated), when it fits
 * whole. */
static void describe_str(char *out, size_t size, const char *key, const char *value)
{
    size_t len = strlen(out);
    if (!value || strchr(value, '\n'))
        return;
    int n = snprintf(out + len, size - len, "%s: %s\n", key, value);
    if (n < 0 || (size_t)n >= size - len)
        out[len] = '\0';
}

/* INT64_MIN: absent (the reader's NSYS_NULL). */
static void describe_int(char *out, size_t size, const char *key, int64_t value)
{
    if (value == INT64_MIN)
        return;
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)value);
    describe_str(out, size, key, digits);
}

/* A GPU group's description: what the report says of the device and the
 * report's time shift and session, one "key: value" line each, read by the nsys SQL package (src/sql/nsys/gpus.sql)
 * and shown by the UI as the group's help text. */
static void gpu_description(const model *m, int64_t device, const nsys_gpu *gpu,
                            const char *nvtx_name, char *out, size_t size)
{
    out[0] = '\0';
    describe_int(out, size, "device", device);
    if (gpu) {
        describe_str(out, size, "name", gpu->name);
        describe_str(out, size, "bus location", gpu->bus);
        describe_str(out, size, "uuid", gpu->uuid);
        describe_str(out, size, "chip", gpu->chip);
        for (int i = 0; i < NSYS_GPU_N_PROPERTIES; i++)
            describe_int(out, size, nsys_gpu_property_key(i), gpu->props[i]);
    }
    describe_str(out, size, "nvtx name", nvtx_name);
    describe_str(out, size, "report", m->report_label);
    /* Trace time minus report time: what undoes the shift of a report
     * holding negative timestamps (docs/timeline.md, "Exact data"). */
    describe_int(out, size, "time shift", m->slices.shift);
    /* The session (ANALYSIS_DETAILS), report time: the recipes' maps bin it. */
    if (m->meta) {
        describe_int(out, size, "session start", m->meta->session_start);
        describe_int(out, size, "session end", m->meta->session_end);
    }
}

/* A GPU row's description: the device, process, context and stream it
 * holds the work of (the Synchronization row: no context, no stream). */
static void gpu_row_description(const model *m, int64_t device, int64_t global_pid,
                                int64_t context, int64_t stream, bool no_stream, char *out,
                                size_t size)
{
    out[0] = '\0';
    describe_int(out, size, "device", device);
    describe_int(out, size, "pid", model_pid(m, global_pid));
    if (!no_stream) {
        describe_int(out, size, "context", context);
        describe_int(out, size, "stream", stream);
    }
}

static track *gpu_track(model *m, int64_t device)
{
    track_key key = {KEY_GPU, {device}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    const nsys_gpu *gpu = nsys_gpu_info(m->meta, device);
    const char *nvtx_name = nsys_nvtx_device_name(m->meta, device);
    char name[512];
    int n = snprintf(name, sizeof name, "GPU %lld", (long long)device);
    if (nvtx_name && n > 0 && (size_t)n < sizeof name)
        n += snprintf(name + n, sizeof name - (size_t)n, " \xC2\xB7 %s", nvtx_name);
    if (gpu && gpu->name && n > 0 && (size_t)n < sizeof name)
        n += snprintf(name + n, sizeof name - (size_t)n, " \xC2\xB7 %s", gpu->name);
    if (gpu && gpu->bus && n > 0 && (size_t)n < sizeof name)
        n += snprintf(name + n, sizeof name - (size_t)n, " (%s)", gpu->bus);
    if (m->report_label && n > 0 && (size_t)n < sizeof name)
        snprintf(name + n, sizeof name - (size_t)n, " \xC2\xB7 %s", m->report_label);
    char description[2048];
    gpu_description(m, device, gpu, nvtx_name, description, sizeof description);
    pw_track desc = {
        .kind = PW_TRACK_PLAIN,
        .name = name,
        .description = description,
        .child_order = PW_ORDER_EXPLICIT,
        /* Device order at the top level, where explicit ranks are honoured
         * by newer UIs and names sort the same way elsewhere. */
        .has_rank = true,
        .rank = (int32_t)device,
        /* Kineto's GPU rows: pid is the device. */
        .chrome = {.set = true, .gpu = true, .device = device, .tid = -1},
    };
    return tracks_add(&m->tracks, &key, sizeof key, NULL, &desc);
}

/* Where a process's GPU rows go in a GPU group: a group of its own when
 * several processes use CUDA (their rows stay together, processes in pid
 * order), else the GPU group itself. */
static track *gpu_process_track(model *m, int64_t device, int64_t global_pid)
{
    if (!m->label_streams_with_process)
        return gpu_track(m, device);
    track_key key = {KEY_GPU_PROCESS, {device, global_pid}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    char base[256], name[320];
    const char *process = process_name(m, global_pid, base, sizeof base);
    int32_t pid = model_pid(m, global_pid);
    snprintf(name, sizeof name, "%s %d", process ? process : "Process", pid);
    pw_track desc = {
        .kind = PW_TRACK_PLAIN,
        .name = name,
        .child_order = PW_ORDER_EXPLICIT,
        .has_rank = true,
        .rank = pid < RANK_LAST_STREAM ? pid : RANK_LAST_STREAM,
        .chrome = {.set = true, .gpu = true, .device = device, .tid = -1, .owner_pid = pid},
    };
    return tracks_add(&m->tracks, &key, sizeof key, gpu_track(m, device), &desc);
}

static const char *stream_kind_label(nsys_stream_kind kind)
{
    switch (kind) {
    case NSYS_STREAM_DEFAULT:
        return " (default)";
    case NSYS_STREAM_NULL:
        return " (null)";
    default:
        return "";
    }
}

/* CUPTI's "no stream" (event syncs wait on an event, not a stream). */
#define CUPTI_INVALID_ID 4294967295LL

int64_t model_gpu_device(const model *m, int64_t device, int64_t global_pid, int64_t context)
{
    return nsys_context_device(m->contexts, global_pid, context, device);
}

/* A row of the GPU group: a stream's work, its synchronization, or the
 * process's Synchronization row. A row lands on the device its context
 * runs on, not the row's deviceId (nsys_contexts.h); syncs on a stream
 * that ran no work go to the Synchronization row, not a row of their own
 * (their stream stays in their args). */
static slice_row *stream_scoped_row(model *m, int tag, int64_t device, int64_t global_pid,
                                    int64_t context, int64_t stream)
{
    device = model_gpu_device(m, device, global_pid, context);
    if (tag == KEY_SYNC && !nsys_stream_ran_work(m->contexts, global_pid, context, stream))
        stream = CUPTI_INVALID_ID;
    bool no_stream = stream == CUPTI_INVALID_ID;
    if (no_stream)
        context = 0; /* one Synchronization row per process and GPU */
    track_key key = {tag, {device, global_pid, context, stream}};
    slice_row *row = find_row(m, &key);
    if (row)
        return row;
    int32_t pid = nsys_pid_of(global_pid);
    const char *nvtx_name = nsys_nvtx_stream_name(m->meta, pid, context, stream);
    static const char *const SUFFIX[] = {[KEY_SYNC] = " sync", [KEY_GRAPH] = " graphs"};
    const char *suffix = tag == KEY_SYNC || tag == KEY_GRAPH ? SUFFIX[tag] : "";
    char name[512];
    int n;
    if (no_stream)
        n = snprintf(name, sizeof name, "Synchronization");
    else if (nvtx_name) /* named with nvtxNameCudaStream */
        n = snprintf(name, sizeof name, "%s (Stream %lld)%s", nvtx_name, (long long)stream, suffix);
    else
        n = snprintf(name, sizeof name, "Stream %lld%s%s", (long long)stream,
                     stream_kind_label(nsys_stream_kind_of(m->meta, pid, context, stream)), suffix);
    if (m->label_streams_with_process && n > 0 && (size_t)n < sizeof name) {
        char base[256];
        const char *process = process_name(m, global_pid, base, sizeof base);
        snprintf(name + n, sizeof name - (size_t)n, " \xC2\xB7 %s [%d]", process ? process : "pid",
                 pid);
    }
    int32_t rank = no_stream ? RANK_SYNCHRONIZATION : stream_rank(tag, stream);
    /* Work on one stream never nests: any overlap is concurrency (PDL,
     * clock skew) and goes to another lane. */
    row = slicer_row(&m->slices, gpu_process_track(m, device, global_pid), name, false, true,
                     rank);
    char description[256];
    gpu_row_description(m, device, global_pid, context, stream, no_stream, description,
                        sizeof description);
    slicer_row_describe(row, description);
    row->hidden = device_hidden(m, device) || pid_hidden(m, global_pid);
    /* Kineto's tid is the stream, for its work; syncs and graph ranges,
     * which overlap it, get rows of their own there. */
    row->chrome = (pw_chrome_place){.set = true, .gpu = true, .device = device,
                                    .tid = tag == KEY_STREAM && !no_stream ? stream : -1,
                                    .owner_pid = model_pid(m, global_pid)};
    remember_row(m, &key, row);
    return row;
}

slice_row *model_stream_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                            int64_t stream)
{
    return stream_scoped_row(m, KEY_STREAM, device, global_pid, context, stream);
}

slice_row *model_gpu_row(model *m, int64_t device, gpu_place place, const char *name,
                         const char *label)
{
    track_key key = {KEY_GPU_ROW, {device, label_id(m, name), label_id(m, label)}};
    slice_row *row = find_row(m, &key);
    if (row)
        return row;
    char full[512];
    /* Nested ranges stay nested, overlaps get lanes. */
    row = slicer_row(&m->slices, gpu_track(m, device), row_name(full, sizeof full, name, label),
                     true, true, place_rank(place));
    row->hidden = device_hidden(m, device);
    row->batch = slicer_batch_of_name(name); /* "NVTX": with the threads' */
    remember_row(m, &key, row);
    return row;
}

slice_row *model_sync_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                          int64_t stream)
{
    return stream_scoped_row(m, KEY_SYNC, device, global_pid, context, stream);
}

slice_row *model_graph_row(model *m, int64_t device, int64_t global_pid, int64_t context,
                           int64_t stream)
{
    return stream_scoped_row(m, KEY_GRAPH, device, global_pid, context, stream);
}

/* ---- Counters and global tracks ------------------------------------------ */

/* The nested "GPU metrics" group of a GPU, last in it: many counters that
 * would otherwise push the streams off the first screen. */
static track *gpu_metrics_track(model *m, int64_t device)
{
    track_key key = {KEY_GPU_METRICS, {device}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    pw_track desc = {
        .kind = PW_TRACK_PLAIN,
        .name = "GPU metrics",
        .child_order = PW_ORDER_EXPLICIT,
        .has_rank = true,
        .rank = place_rank(GPU_PLACE_METRICS),
    };
    return tracks_add(&m->tracks, &key, sizeof key, gpu_track(m, device), &desc);
}

track *model_gpu_counter(model *m, int64_t device, int64_t global_pid, gpu_place place,
                         int32_t order, const char *name, const char *unit)
{
    track_key key = {KEY_GPU_COUNTER, {device, global_pid, label_id(m, name)}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    char full[512];
    if (global_pid) {
        char base[256];
        const char *process = process_name(m, global_pid, base, sizeof base);
        snprintf(full, sizeof full, "%s \xC2\xB7 %s [%d]", name, process ? process : "pid",
                 nsys_pid_of(global_pid));
    } else {
        snprintf(full, sizeof full, "%s", name);
    }
    track *parent;
    int32_t rank;
    if (place == GPU_PLACE_METRICS) {
        parent = gpu_metrics_track(m, device);
        rank = order;
    } else {
        /* A process's counter follows the device's, in the process's group
         * when it has one. */
        parent = global_pid ? gpu_process_track(m, device, global_pid) : gpu_track(m, device);
        rank = place_rank(place) + (global_pid != 0);
    }
    pw_track desc = {.kind = PW_TRACK_COUNTER, .name = full, .unit_name = unit,
                     .has_rank = true, .rank = rank};
    t = tracks_add(&m->tracks, &key, sizeof key, parent, &desc);
    t->hidden = device_hidden(m, device) || (global_pid && pid_hidden(m, global_pid));
    return t;
}

/* Drops the values of hidden tracks; returns how many remain. */
static size_t visible_counters(track *const *tracks, const double *values, size_t n,
                               track **kept_tracks, double *kept_values)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (tracks[i]->hidden)
            continue;
        kept_tracks[kept] = tracks[i];
        kept_values[kept++] = values[i];
    }
    return kept;
}

int model_counters(model *m, int64_t ts, track *const *all_tracks, const double *all_values,
                   size_t n_all)
{
    enum { PER_EVENT = 1 + PW_MAX_EXTRA_COUNTERS, MAX_COUNTERS = 256 };
    track *tracks[MAX_COUNTERS];
    double values[MAX_COUNTERS];
    size_t n = visible_counters(all_tracks, all_values,
                                n_all < MAX_COUNTERS ? n_all : MAX_COUNTERS, tracks, values);
    if (!n)
        return n_all ? 1 : 0;
    uint64_t out_ts = (uint64_t)(ts + m->slices.shift);
    if (slicer_advance(&m->slices, ts) < 0)
        return -1;
    for (size_t first = 0; first < n; first += PER_EVENT) {
        size_t count = n - first < PER_EVENT ? n - first : PER_EVENT;
        uint64_t uuids[PER_EVENT];
        /* Counter descriptors must precede their values. */
        for (size_t i = 0; i < count; i++) {
            if (tracks_ensure_written(&m->tracks, tracks[first + i], out_ts) < 0)
                return -1;
            uuids[i] = tracks[first + i]->uuid;
        }
        pw_event ev = {
            .type = PW_COUNTER,
            .ts = out_ts,
            .track_uuid = uuids[0],
            .counter_is_double = true,
            .counter_double = values[first],
            .extra_counter_tracks = uuids + 1,
            .extra_counter_values = values + first + 1,
            .n_extra_counters = count - 1,
        };
        m->slices.events++;
        if (pw_write_event(m->tracks.seq, &ev) < 0)
            return -1;
    }
    return 0;
}

track *model_global_track(model *m, const char *name)
{
    track_key key = {KEY_GLOBAL, {label_id(m, name)}};
    track *t = tracks_find(&m->tracks, &key, sizeof key);
    if (t)
        return t;
    pw_track desc = {.kind = PW_TRACK_PLAIN, .name = name};
    return tracks_add(&m->tracks, &key, sizeof key, NULL, &desc);
}
