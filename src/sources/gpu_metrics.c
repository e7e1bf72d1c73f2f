/* GPU metrics as counter tracks per device and metric, in the GPU's group.
 *
 *   GPU_METRICS (2023 on): one row per (time, metric); the rows of one
 *   (time, typeId) are gathered so that all metrics of a sample go out
 *   together, as one event.
 *   GENERIC_EVENTS (2022): one row per sample, metrics as JSON text
 *   {"DRAM Read Throughput": "12", ...}, of the sources named GpuMetrics.
 *
 * The device is typeId & 0xFF (NVIDIA's schema reference). Units are the
 * bracketed suffix of the metric name when there is one ("[MHz]"). Values
 * are written as recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "common/pairmap.h"

enum { MAX_METRICS = 256 };

static int64_t device_of(int64_t type_id)
{
    return type_id & 0xFF;
}

/* "SM Active [Throughput %]" -> "Throughput %"; NULL when no suffix. */
static const char *unit_of(const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    const char *open = strrchr(name, '[');
    if (!open || n < 2 || name[n - 1] != ']' || (size_t)(name + n - open) > size)
        return NULL;
    memcpy(out, open + 1, (size_t)(name + n - open - 2));
    out[name + n - open - 2] = '\0';
    return out;
}

/* order: the metric's place in the report's list of them. */
static track *metric_track(conv *c, int64_t device, int32_t order, const char *name,
                           const char *unit)
{
    char suffix[64];
    const char *named = unit_of(name, suffix, sizeof suffix);
    return model_gpu_counter(&c->model, device, 0, GPU_PLACE_METRICS, order, name,
                             named ? named : unit);
}

/* 2022 names carry no unit: clocks are in Hz, the other metrics are
 * percentages (Nsight Systems 2022.4 user guide). */
static const char *unit_2022(const char *name)
{
    return strstr(name, "Frequency") ? "Hz" : "%";
}

/* ---- GPU_METRICS ---------------------------------------------------------- */

typedef struct metrics_row {
    int64_t start;
    int64_t type_id;
    int64_t metric_id;
    double value;
} metrics_row;

static const nsys_column METRICS_COLUMNS[] = {
    NSYS_COL(metrics_row, start, "timestamp", NSYS_INT),
    NSYS_COL_REQ(metrics_row, type_id, "typeId", NSYS_INT),
    NSYS_COL_REQ(metrics_row, metric_id, "metricId", NSYS_INT),
    NSYS_COL_REQ(metrics_row, value, "value", NSYS_REAL),
};

/* Rows of one sample are stored together; ties at one time go by typeId
 * (one sample per device), so a sample's rows come one after another. */
static const nsys_table METRICS_TABLE = {
    "GPU_METRICS", METRICS_COLUMNS, sizeof METRICS_COLUMNS / sizeof METRICS_COLUMNS[0],
    {"timestamp", "typeId", false, NULL},
};

/* Counter values of one sample, gathered from several rows. */
#define SAMPLE_MAX 256

/* GPU_METRICS' state: its tracks, and the sample being gathered. */
typedef struct metrics_state {
    pairmap tracks;          /* (typeId, metricId) -> track * */
    int64_t ts, type_id;     /* of the sample */
    size_t n;
    track *sample_tracks[SAMPLE_MAX];
    double values[SAMPLE_MAX];
} metrics_state;

static void free_metrics_state(void *state)
{
    pairmap_free(&((metrics_state *)state)->tracks);
}

/* The counter track of (typeId, metricId), looked up once. */
static track *metric_of(conv *c, int64_t type_id, int64_t metric)
{
    metrics_state *m = c->state;
    uint64_t *known = pairmap_upsert(&m->tracks, type_id, metric);
    if (*known)
        return (track *)(uintptr_t)*known;
    char fallback[48];
    const char *name = nsys_gpu_metric_name(c->meta, type_id, metric);
    if (!name) {
        snprintf(fallback, sizeof fallback, "metric %lld", (long long)metric);
        name = fallback;
    }
    int32_t order = metric >= 0 && metric < INT32_MAX ? (int32_t)metric : INT32_MAX;
    track *t = metric_track(c, device_of(type_id), order, name, NULL);
    *known = (uint64_t)(uintptr_t)t;
    return t;
}

/* Writes the gathered sample as one counter event. */
static int write_gathered_sample(conv *c)
{
    metrics_state *g = c->state;
    if (!g->n)
        return SOURCE_EMITTED;
    int rc = model_counters(&c->model, g->ts, g->sample_tracks, g->values, g->n);
    g->n = 0;
    return source_result(rc) == SOURCE_FAILED ? SOURCE_FAILED : SOURCE_EMITTED;
}

/* Each row is one metric of a sample; the sample goes out as one event
 * when its last row has been seen (end_metrics_sample). */
static int emit_metrics(conv *c, const void *r)
{
    const metrics_row *row = r;
    if (row->type_id == NSYS_NULL || row->metric_id == NSYS_NULL || row->value != row->value)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    metrics_state *g = c->state;
    if (g->n == SAMPLE_MAX && write_gathered_sample(c) == SOURCE_FAILED)
        return SOURCE_FAILED;
    g->ts = row->start;
    g->type_id = row->type_id;
    g->sample_tracks[g->n] = metric_of(c, row->type_id, row->metric_id);
    g->values[g->n++] = row->value;
    return SOURCE_EMITTED;
}

static int end_metrics_sample(conv *c, const void *next)
{
    const metrics_row *row = next;
    const metrics_state *g = c->state;
    if (row && row->start == g->ts && row->type_id == g->type_id)
        return SOURCE_EMITTED;
    return write_gathered_sample(c);
}

const source SOURCE_GPU_METRICS = {
    "gpu-metrics", &METRICS_TABLE, sizeof(metrics_row), offsetof(metrics_row, start),
    emit_metrics, SOURCE_CPU, end_metrics_sample,
    .state_size = sizeof(metrics_state), .free_state = free_metrics_state,
};

/* ---- GENERIC_EVENTS (2022) ------------------------------------------------ */

typedef struct generic_row {
    int64_t start;
    int64_t type_id;
    const char *data;
} generic_row;

static const nsys_column GENERIC_COLUMNS[] = {
    NSYS_COL_EXPR(generic_row, start, NSYS_INT, "COALESCE(t.timestamp, t.rawTimestamp)", "typeId"),
    NSYS_COL_REQ(generic_row, type_id, "typeId", NSYS_INT),
    NSYS_COL(generic_row, data, "data", NSYS_TEXT),
};

static const nsys_table GENERIC_TABLE = {
    "GENERIC_EVENTS", GENERIC_COLUMNS, sizeof GENERIC_COLUMNS / sizeof GENERIC_COLUMNS[0],
    NSYS_ORDER_SQL("1"),
};

/* Reads the JSON string at *p (after its opening quote) into out,
 * unescaping; returns the position after the closing quote or NULL. */
static const char *json_string(const char *p, char *out, size_t size)
{
    size_t n = 0;
    for (; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) {
            p++;
            ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p; /* \" \\ \/ */
        }
        if (n + 1 < size)
            out[n++] = ch;
    }
    out[n] = '\0';
    return *p == '"' ? p + 1 : NULL;
}

static int emit_generic(conv *c, const void *r)
{
    const generic_row *row = r;
    if (!nsys_generic_is_gpu_metrics(c->meta, row->type_id))
        return SOURCE_SKIPPED(NSYSP_SKIP_UNSUPPORTED);
    if (!row->data)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    track *tracks[MAX_METRICS];
    double values[MAX_METRICS];
    size_t n = 0;
    char key[256], value[64];
    /* A flat object of "name": "number" pairs. */
    const char *p = strchr(row->data, '{');
    while (p && n < MAX_METRICS && (p = strchr(p, '"')) != NULL) {
        p = json_string(p + 1, key, sizeof key);
        if (!p || !(p = strchr(p, ':')))
            break;
        p += strspn(p + 1, " \t\r\n") + 1;
        if (*p == '"') {
            p = json_string(p + 1, value, sizeof value);
        } else {
            size_t len = strcspn(p, ",}");
            snprintf(value, sizeof value, "%.*s", (int)(len < 63 ? len : 63), p);
            p += len;
        }
        if (!p)
            break;
        char *end;
        double v = strtod(value, &end);
        if (end != value) {
            tracks[n] = metric_track(c, device_of(row->type_id), (int32_t)n, key, unit_2022(key));
            values[n++] = v;
        }
    }
    return source_result(model_counters(&c->model, row->start, tracks, values, n));
}

const source SOURCE_GPU_METRICS_2022 = {
    "gpu-metrics", &GENERIC_TABLE, sizeof(generic_row), offsetof(generic_row, start),
    emit_generic, SOURCE_CPU,
};
