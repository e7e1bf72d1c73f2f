#include "nsys_meta.h"

#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_ids.h"
#include "nsys_perfetto.h"
#include "common/utf8.h"
#include "common/xalloc.h"

/* Keeps a sanitized copy of s; returns it (stable: the array of pointers
 * may move, the strings do not). */
static const char *keep_name(nsys_meta *m, const char *s)
{
    buf scratch = {0};
    const char *clean = utf8_sanitize(s, strlen(s), &scratch);
    m->names = xgrow(m->names, &m->cap_names, m->n_names + 1, sizeof(char *));
    char *copy = xstrdup(clean);
    m->names[m->n_names++] = copy;
    buf_free(&scratch);
    return copy;
}

static void map_name(nsys_meta *m, hmap *map, int64_t key, const char *name)
{
    if (!name || !*name)
        return;
    bool inserted;
    uint64_t *slot = hmap_upsert(map, &key, sizeof key, &inserted);
    if (inserted) {
        keep_name(m, name);
        *slot = m->n_names; /* index + 1 */
    }
}

static const char *lookup_name(const nsys_meta *m, const hmap *map, int64_t key)
{
    uint64_t *slot = hmap_find(map, &key, sizeof key);
    return slot ? m->names[*slot - 1] : NULL;
}

/* Runs a cursor over table and hands each row to fn; a missing table is
 * not an error (nsys creates tables only when they have rows). */
static int for_each_row(nsys_db *db, const nsys_table *t, void *row, buf *err,
                        void (*fn)(nsys_meta *, const void *, const nsys_strings *),
                        nsys_meta *m, const nsys_strings *strings)
{
    if (!nsys_db_has_table(db, t->name))
        return NSYSP_OK;
    nsys_cursor *c;
    int status = nsys_cursor_open(db, t, &c, err);
    if (status == NSYSP_ERR_NOT_NSYS) {
        /* Metadata with an unexpected shape only costs labels. */
        buf_clear(err);
        return NSYSP_OK;
    }
    if (status != NSYSP_OK)
        return status;
    int rc;
    while ((rc = nsys_cursor_next(c, row, err, &status)) == 1)
        fn(m, row, strings);
    nsys_cursor_close(c);
    return rc < 0 ? status : NSYSP_OK;
}

/* ---- PROCESSES ---------------------------------------------------------- */

typedef struct process_row {
    int64_t global_pid;
    const char *name;
} process_row;

static const nsys_column PROCESS_COLUMNS[] = {
    NSYS_COL_REQ(process_row, global_pid, "globalPid", NSYS_INT),
    NSYS_COL_REQ(process_row, name, "name", NSYS_TEXT),
};
static const nsys_table PROCESS_TABLE = {"PROCESSES", PROCESS_COLUMNS, 2, NSYS_UNORDERED};

static void on_process(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const process_row *row = r;
    map_name(m, &m->processes, nsys_global_pid_of(row->global_pid), row->name);
}

/* ---- ThreadNames -------------------------------------------------------- */

typedef struct thread_row {
    int64_t global_tid;
    int64_t name_id;
} thread_row;

static const nsys_column THREAD_COLUMNS[] = {
    NSYS_COL_REQ(thread_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(thread_row, name_id, "nameId", NSYS_INT),
};
static const nsys_table THREAD_TABLE = {"ThreadNames", THREAD_COLUMNS, 2, NSYS_UNORDERED};

static void on_thread(nsys_meta *m, const void *r, const nsys_strings *s)
{
    const thread_row *row = r;
    map_name(m, &m->threads, row->global_tid, nsys_string(s, row->name_id));
}

/* ---- TARGET_INFO_GPU ---------------------------------------------------- */

typedef struct gpu_row {
    int64_t id;          /* "id" from 2021 on */
    int64_t device_id;   /* "deviceId" before */
    const char *name;
    const char *bus;
    const char *uuid;
    const char *chip;
    int64_t props[NSYS_GPU_N_PROPERTIES];
} gpu_row;

#define GPU_PROP_COLUMN(id, key, column) NSYS_COL(gpu_row, props[NSYS_GPU_##id], column, NSYS_INT),
static const nsys_column GPU_COLUMNS[] = {
    NSYS_COL(gpu_row, id, "id", NSYS_INT),
    NSYS_COL(gpu_row, device_id, "deviceId", NSYS_INT),
    NSYS_COL(gpu_row, name, "name", NSYS_TEXT),
    NSYS_COL(gpu_row, bus, "busLocation", NSYS_TEXT),
    NSYS_COL(gpu_row, uuid, "uuid", NSYS_TEXT),
    NSYS_COL(gpu_row, chip, "chipName", NSYS_TEXT),
    NSYS_GPU_PROPERTIES(GPU_PROP_COLUMN)
};
#undef GPU_PROP_COLUMN
static const nsys_table GPU_TABLE = {"TARGET_INFO_GPU", GPU_COLUMNS,
                                     sizeof GPU_COLUMNS / sizeof GPU_COLUMNS[0], NSYS_UNORDERED};

const char *nsys_gpu_property_key(int i)
{
#define GPU_PROP_KEY(id, key, column) key,
    static const char *const KEYS[] = {NSYS_GPU_PROPERTIES(GPU_PROP_KEY)};
#undef GPU_PROP_KEY
    return i >= 0 && i < NSYS_GPU_N_PROPERTIES ? KEYS[i] : NULL;
}

static void on_gpu(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const gpu_row *row = r;
    int64_t id = row->id != NSYS_NULL ? row->id : row->device_id;
    if (id == NSYS_NULL)
        return;
    bool inserted;
    uint64_t *slot = hmap_upsert(&m->gpu_index, &id, sizeof id, &inserted);
    if (!inserted)
        return; /* several VMs may list one id; keep the first */
    m->gpus = xgrow(m->gpus, &m->cap_gpus, m->n_gpus + 1, sizeof *m->gpus);
    nsys_gpu *g = &m->gpus[m->n_gpus];
    *slot = ++m->n_gpus;
    g->id = id;
    g->name = row->name && *row->name ? keep_name(m, row->name) : NULL;
    g->bus = row->bus && *row->bus ? keep_name(m, row->bus) : NULL;
    g->uuid = row->uuid && *row->uuid ? keep_name(m, row->uuid) : NULL;
    g->chip = row->chip && *row->chip ? keep_name(m, row->chip) : NULL;
    memcpy(g->props, row->props, sizeof g->props);
}

/* ---- TARGET_INFO_CUDA_STREAM -------------------------------------------- */

typedef struct stream_row {
    int64_t stream;
    int64_t pid;         /* plain pid, not a globalPid */
    int64_t context;
    int64_t flag;
} stream_row;

static const nsys_column STREAM_COLUMNS[] = {
    NSYS_COL_REQ(stream_row, stream, "streamId", NSYS_INT),
    NSYS_COL_REQ(stream_row, pid, "processId", NSYS_INT),
    NSYS_COL_REQ(stream_row, context, "contextId", NSYS_INT),
    NSYS_COL(stream_row, flag, "flag", NSYS_INT),
};
static const nsys_table STREAM_TABLE = {"TARGET_INFO_CUDA_STREAM", STREAM_COLUMNS, 4, NSYS_UNORDERED};

static void on_stream(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const stream_row *row = r;
    if (row->flag == NSYS_NULL)
        return;
    int64_t key[3] = {row->pid, row->context, row->stream};
    *hmap_upsert(&m->streams, key, sizeof key, NULL) = (uint64_t)row->flag + 1;
    bool inserted;
    hmap_upsert(&m->cuda_pids, &row->pid, sizeof row->pid, &inserted);
    m->cuda_processes += inserted;
}

/* Reports without TARGET_INFO_CUDA_STREAM: count the processes that ran
 * kernels (one pass over two integer columns). */
static int count_kernel_processes(nsys_db *db, nsys_meta *m, buf *err)
{
    if (m->cuda_processes || !nsys_db_has_column(db, "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid"))
        return NSYSP_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db),
                                "SELECT COUNT(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return nsys_db_error(db, rc, "counting CUDA processes", err);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        m->cuda_processes = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? NSYSP_OK : nsys_db_error(db, rc, "counting CUDA processes", err);
}

/* ---- TARGET_INFO_NVTX_CUDA_STREAM / _DEVICE: names given through NVTX ---- */

typedef struct nvtx_name_row {
    const char *name;
    int64_t pid;         /* plain pid */
    int64_t device;
    int64_t context;
    int64_t stream;
} nvtx_name_row;

static const nsys_column NVTX_STREAM_COLUMNS[] = {
    NSYS_COL_REQ(nvtx_name_row, name, "name", NSYS_TEXT),
    NSYS_COL_REQ(nvtx_name_row, pid, "processId", NSYS_INT),
    NSYS_COL_REQ(nvtx_name_row, context, "contextId", NSYS_INT),
    NSYS_COL_REQ(nvtx_name_row, stream, "streamId", NSYS_INT),
};
static const nsys_table NVTX_STREAM_TABLE = {"TARGET_INFO_NVTX_CUDA_STREAM", NVTX_STREAM_COLUMNS,
                                             4, NSYS_UNORDERED};

static const nsys_column NVTX_DEVICE_COLUMNS[] = {
    NSYS_COL_REQ(nvtx_name_row, name, "name", NSYS_TEXT),
    NSYS_COL_REQ(nvtx_name_row, device, "deviceId", NSYS_INT),
};
static const nsys_table NVTX_DEVICE_TABLE = {"TARGET_INFO_NVTX_CUDA_DEVICE", NVTX_DEVICE_COLUMNS,
                                             2, NSYS_UNORDERED};

static void on_nvtx_stream(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const nvtx_name_row *row = r;
    if (!row->name || !*row->name)
        return;
    int64_t key[3] = {row->pid, row->context, row->stream};
    bool inserted;
    uint64_t *slot = hmap_upsert(&m->nvtx_streams, key, sizeof key, &inserted);
    if (inserted) {
        keep_name(m, row->name);
        *slot = m->n_names;
    }
}

static void on_nvtx_device(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const nvtx_name_row *row = r;
    map_name(m, &m->nvtx_devices, row->device, row->name);
}

/* ---- NVTX_EVENTS naming rows: domains (75), categories (33), threads (39) -- */

typedef struct nvtx_meta_row {
    int64_t event_type;
    int64_t global_tid;
    int64_t domain;
    int64_t category;
    const char *text;
    int64_t text_id;
} nvtx_meta_row;

static const nsys_column NVTX_META_COLUMNS[] = {
    NSYS_COL_REQ(nvtx_meta_row, event_type, "eventType", NSYS_INT),
    NSYS_COL_REQ(nvtx_meta_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL(nvtx_meta_row, domain, "domainId", NSYS_INT),
    NSYS_COL(nvtx_meta_row, category, "category", NSYS_INT),
    NSYS_COL(nvtx_meta_row, text, "text", NSYS_TEXT),
    NSYS_COL(nvtx_meta_row, text_id, "textId", NSYS_INT),
};
static const nsys_table NVTX_META_TABLE = {"NVTX_EVENTS", NVTX_META_COLUMNS, 6, NSYS_ORDER_BY("start"),
                                           "eventType IN (33, 39, 75)"};

enum { NVTX_CATEGORY = 33, NVTX_THREAD_NAME = 39, NVTX_DOMAIN_CREATE = 75 };

static void map_name_key(nsys_meta *m, hmap *map, const int64_t *key, size_t n, const char *name)
{
    if (!name || !*name)
        return;
    bool inserted;
    uint64_t *slot = hmap_upsert(map, key, n * sizeof *key, &inserted);
    keep_name(m, name);
    *slot = m->n_names; /* a later naming wins, as in nsys-ui */
    (void)inserted;
}

static void on_nvtx_meta(nsys_meta *m, const void *r, const nsys_strings *s)
{
    const nvtx_meta_row *row = r;
    const char *text = row->text ? row->text : nsys_string(s, row->text_id);
    int64_t gpid = nsys_global_pid_of(row->global_tid);
    int64_t domain = row->domain == NSYS_NULL ? 0 : row->domain;
    switch (row->event_type) {
    case NVTX_DOMAIN_CREATE: {
        int64_t key[2] = {gpid, domain};
        map_name_key(m, &m->nvtx_domains, key, 2, text);
        break;
    }
    case NVTX_CATEGORY: {
        int64_t key[3] = {gpid, domain, row->category};
        map_name_key(m, &m->nvtx_categories, key, 3, text);
        break;
    }
    case NVTX_THREAD_NAME: /* the name given in code beats the OS name */
        map_name_key(m, &m->threads, &row->global_tid, 1, text);
        break;
    }
}

/* ---- GPU metric names: TARGET_INFO_GPU_METRICS (2023 on), and the
 * GENERIC_EVENT_SOURCES named GpuMetrics (2022) --------------------------- */

typedef struct metric_row {
    int64_t type_id;
    int64_t metric_id;
    const char *name;
} metric_row;

static const nsys_column METRIC_COLUMNS[] = {
    NSYS_COL_REQ(metric_row, type_id, "typeId", NSYS_INT),
    NSYS_COL_REQ(metric_row, metric_id, "metricId", NSYS_INT),
    NSYS_COL_REQ(metric_row, name, "metricName", NSYS_TEXT),
};
static const nsys_table METRIC_TABLE = {"TARGET_INFO_GPU_METRICS", METRIC_COLUMNS, 3, NSYS_UNORDERED};

static void on_metric(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const metric_row *row = r;
    int64_t key[2] = {row->type_id, row->metric_id};
    map_name_key(m, &m->gpu_metrics, key, 2, row->name);
}

typedef struct source_row {
    int64_t source_id;
    const char *data;
} source_row;

static const nsys_column SOURCE_COLUMNS[] = {
    NSYS_COL_REQ(source_row, source_id, "sourceId", NSYS_INT),
    NSYS_COL_REQ(source_row, data, "data", NSYS_TEXT),
};
static const nsys_table SOURCE_TABLE = {"GENERIC_EVENT_SOURCES", SOURCE_COLUMNS, 2, NSYS_UNORDERED};

static void on_generic_source(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const source_row *row = r;
    if (row->data && strstr(row->data, "\"GpuMetrics\""))
        *hmap_upsert(&m->metric_sources, &row->source_id, sizeof row->source_id, NULL) = 1;
}

typedef struct type_row {
    int64_t type_id;
    int64_t source_id;
} type_row;

static const nsys_column TYPE_COLUMNS[] = {
    NSYS_COL_REQ(type_row, type_id, "typeId", NSYS_INT),
    NSYS_COL_REQ(type_row, source_id, "sourceId", NSYS_INT),
};
static const nsys_table TYPE_TABLE = {"GENERIC_EVENT_TYPES", TYPE_COLUMNS, 2, NSYS_UNORDERED};

static void on_generic_type(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const type_row *row = r;
    if (hmap_find(&m->metric_sources, &row->source_id, sizeof row->source_id))
        *hmap_upsert(&m->metric_types, &row->type_id, sizeof row->type_id, NULL) = 1;
}

/* ---- ANALYSIS_DETAILS --------------------------------------------------- */

typedef struct session_row {
    int64_t start;
    int64_t stop;
} session_row;

static const nsys_column SESSION_COLUMNS[] = {
    NSYS_COL(session_row, start, "startTime", NSYS_INT),
    NSYS_COL(session_row, stop, "stopTime", NSYS_INT),
};
static const nsys_table SESSION_TABLE = {"ANALYSIS_DETAILS", SESSION_COLUMNS, 2, NSYS_UNORDERED};

/* Session times beyond +-2^62 ns are damage, not times: ignored, so that
 * arithmetic on them cannot overflow. */
static int64_t plausible_time(int64_t t)
{
    return t != NSYS_NULL && t >= -NSYS_MAX_TIME && t <= NSYS_MAX_TIME ? t : NSYS_NULL;
}

static void on_session(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    session_row row = *(const session_row *)r;
    row.start = plausible_time(row.start);
    row.stop = plausible_time(row.stop);
    if (m->session_start == NSYS_NULL || (row.start != NSYS_NULL && row.start < m->session_start))
        m->session_start = row.start;
    if (m->session_end == NSYS_NULL || (row.stop != NSYS_NULL && row.stop > m->session_end))
        m->session_end = row.stop;
}

/* ---- MPI_RANKS ------------------------------------------------------------ */

typedef struct rank_row {
    int64_t global_tid;
    int64_t rank;
} rank_row;

static const nsys_column RANK_COLUMNS[] = {
    NSYS_COL_REQ(rank_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(rank_row, rank, "rank", NSYS_INT),
};
static const nsys_table RANK_TABLE = {"MPI_RANKS", RANK_COLUMNS, 2, NSYS_UNORDERED};

static void on_rank(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    const rank_row *row = r;
    if (row->rank >= 0)
        *hmap_upsert(&m->mpi_ranks, &row->global_tid, sizeof row->global_tid, NULL) =
            (uint64_t)row->rank + 1;
}

/* ---- TARGET_INFO_SESSION_START_TIME: the session start in UTC ---------- */

typedef struct utc_row {
    int64_t utc;
} utc_row;

static const nsys_column UTC_COLUMNS[] = {
    NSYS_COL_REQ(utc_row, utc, "utcEpochNs", NSYS_INT),
};
static const nsys_table UTC_TABLE = {"TARGET_INFO_SESSION_START_TIME", UTC_COLUMNS, 1, NSYS_UNORDERED};

static void on_utc(nsys_meta *m, const void *r, const nsys_strings *s)
{
    (void)s;
    m->session_utc = plausible_time(((const utc_row *)r)->utc);
}

int nsys_meta_load(nsys_db *db, const nsys_strings *strings, nsys_meta *m, buf *err)
{
    memset(m, 0, sizeof *m);
    hmap_init(&m->processes);
    hmap_init(&m->threads);
    hmap_init(&m->streams);
    hmap_init(&m->gpu_index);
    hmap_init(&m->cuda_pids);
    hmap_init(&m->nvtx_streams);
    hmap_init(&m->nvtx_devices);
    hmap_init(&m->nvtx_domains);
    hmap_init(&m->nvtx_categories);
    hmap_init(&m->gpu_metrics);
    hmap_init(&m->metric_sources);
    hmap_init(&m->metric_types);
    hmap_init(&m->mpi_ranks);
    m->session_start = m->session_end = m->session_utc = NSYS_NULL;

    process_row pr;
    thread_row tr;
    gpu_row gr;
    stream_row sr;
    session_row ar;
    nvtx_name_row nr;
    nvtx_meta_row vr;
    metric_row mr;
    source_row gr2;
    type_row tr2;
    utc_row ur;
    rank_row rr;
    int status = for_each_row(db, &PROCESS_TABLE, &pr, err, on_process, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &THREAD_TABLE, &tr, err, on_thread, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &GPU_TABLE, &gr, err, on_gpu, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &STREAM_TABLE, &sr, err, on_stream, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &SESSION_TABLE, &ar, err, on_session, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &NVTX_STREAM_TABLE, &nr, err, on_nvtx_stream, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &NVTX_DEVICE_TABLE, &nr, err, on_nvtx_device, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &NVTX_META_TABLE, &vr, err, on_nvtx_meta, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &METRIC_TABLE, &mr, err, on_metric, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &SOURCE_TABLE, &gr2, err, on_generic_source, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &TYPE_TABLE, &tr2, err, on_generic_type, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &UTC_TABLE, &ur, err, on_utc, m, strings);
    if (status == NSYSP_OK)
        status = for_each_row(db, &RANK_TABLE, &rr, err, on_rank, m, strings);
    if (status == NSYSP_OK)
        status = count_kernel_processes(db, m, err);
    return status;
}

void nsys_meta_free(nsys_meta *m)
{
    hmap_free(&m->processes);
    hmap_free(&m->threads);
    hmap_free(&m->streams);
    hmap_free(&m->gpu_index);
    hmap_free(&m->cuda_pids);
    hmap_free(&m->nvtx_streams);
    hmap_free(&m->nvtx_devices);
    hmap_free(&m->nvtx_domains);
    hmap_free(&m->nvtx_categories);
    hmap_free(&m->gpu_metrics);
    hmap_free(&m->metric_sources);
    hmap_free(&m->metric_types);
    hmap_free(&m->mpi_ranks);
    for (size_t i = 0; i < m->n_names; i++)
        free(m->names[i]);
    free(m->names);
    free(m->gpus);
    memset(m, 0, sizeof *m);
}

const char *nsys_process_name(const nsys_meta *m, int64_t global_pid)
{
    const char *name = lookup_name(m, &m->processes, global_pid);
    /* The main thread (tid == pid) names the process when PROCESSES does
     * not (older exports), or names only the launcher that nsys started and
     * that then exec'd the real program. */
    if (!name || strcmp(name, "nsys-launcher") == 0) {
        const char *main_thread = lookup_name(m, &m->threads, global_pid | nsys_pid_of(global_pid));
        if (main_thread)
            name = main_thread;
    }
    return name;
}

const char *nsys_thread_name(const nsys_meta *m, int64_t global_tid)
{
    return lookup_name(m, &m->threads, global_tid);
}

const nsys_gpu *nsys_gpu_info(const nsys_meta *m, int64_t device_id)
{
    uint64_t *slot = hmap_find(&m->gpu_index, &device_id, sizeof device_id);
    return slot ? &m->gpus[*slot - 1] : NULL;
}

nsys_stream_kind nsys_stream_kind_of(const nsys_meta *m, int32_t pid, int64_t context,
                                     int64_t stream)
{
    int64_t key[3] = {pid, context, stream};
    uint64_t *slot = hmap_find(&m->streams, key, sizeof key);
    return slot ? (nsys_stream_kind)(*slot - 1) : NSYS_STREAM_UNKNOWN;
}

const char *nsys_nvtx_stream_name(const nsys_meta *m, int32_t pid, int64_t context, int64_t stream)
{
    int64_t key[3] = {pid, context, stream};
    uint64_t *slot = hmap_find(&m->nvtx_streams, key, sizeof key);
    return slot ? m->names[*slot - 1] : NULL;
}

const char *nsys_nvtx_device_name(const nsys_meta *m, int64_t device_id)
{
    return lookup_name(m, &m->nvtx_devices, device_id);
}

const char *nsys_nvtx_domain_name(const nsys_meta *m, int64_t global_pid, int64_t domain_id)
{
    int64_t key[2] = {global_pid, domain_id};
    uint64_t *slot = hmap_find(&m->nvtx_domains, key, sizeof key);
    return slot ? m->names[*slot - 1] : NULL;
}

const char *nsys_nvtx_category_name(const nsys_meta *m, int64_t global_pid, int64_t domain_id,
                                    int64_t category)
{
    int64_t key[3] = {global_pid, domain_id, category};
    uint64_t *slot = hmap_find(&m->nvtx_categories, key, sizeof key);
    return slot ? m->names[*slot - 1] : NULL;
}

const char *nsys_gpu_metric_name(const nsys_meta *m, int64_t type_id, int64_t metric_id)
{
    int64_t key[2] = {type_id, metric_id};
    uint64_t *slot = hmap_find(&m->gpu_metrics, key, sizeof key);
    return slot ? m->names[*slot - 1] : NULL;
}

bool nsys_generic_is_gpu_metrics(const nsys_meta *m, int64_t type_id)
{
    return hmap_find(&m->metric_types, &type_id, sizeof type_id) != NULL;
}

int64_t nsys_mpi_rank(const nsys_meta *m, int64_t global_tid)
{
    uint64_t *slot = hmap_find(&m->mpi_ranks, &global_tid, sizeof global_tid);
    return slot ? (int64_t)*slot - 1 : -1;
}
