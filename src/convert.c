/* nsysp_convert: the whole pipeline, in one direction.
 *
 *   report (read-only) -> sources (rows as structs, merged by start time)
 *     -> model (tracks, lanes) -> writer (packets, interning) -> gzip file
 *
 * Each source's rows come ordered by start: as stored when the table is in
 * time order (most are), else sorted by SQLite; a table found out of order
 * midway starts the events again with it sorted (write_events). The
 * sources are merged so that every row reaches the model in global time
 * order, which keeps memory flat (only open slices are held) and the trace
 * time-sorted. What is read before the events (names, GPU work per call,
 * the NVTX projection) is read once. */
#include <limits.h>
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "common/file_id.h"
#include "common/regex_limits.h"
#include "common/xalloc.h"
#include "nsys/nsys_db.h"
#include "perfetto/pw_output.h"
#include "perfetto/pw_writer.h"
#include "nsys/nsys_activity.h"
#include "nsys/nsys_callchains.h"
#include "nsys/nsys_contexts.h"
#include "nsys/nsys_links.h"
#include "nsys/nsys_nvtx_gpu.h"
#include "nsys/nsys_readahead.h"
#include "analysis/rank_numbers.h"
#include "kineto/kineto_files.h"
#include "kineto/kineto_writer.h"
#include "sources/source.h"

/* Internal status: a table read as stored broke its order, and the
 * conversion starts again with it sorted by SQLite (see convert). */
#define CONVERT_AGAIN 100

/* An open source: its cursor and the row it is positioned on. */
typedef struct feed {
    const source *src;
    size_t source_index;
    bool as_stored;          /* read in stored order, the order checked */
    bool broke_order;        /* ... and a row came out of order */
    nsys_rows rows;          /* read here, or ahead on a reader thread */
    void *row;
    void *state;             /* the source's own (source.state_size), or NULL */
    bool has_row;
    nsysp_source_stats *stats;
} feed;

static int64_t feed_start(const feed *f)
{
    int64_t start;
    memcpy(&start, (const char *)f->row + f->src->start_offset, sizeof start);
    return start;
}

/* a + b, saturated to the int64 range (user-given offsets on report times). */
static int64_t add_saturated(int64_t a, int64_t b)
{
    int64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? (b < 0 ? INT64_MIN : INT64_MAX) : sum;
}

/* Moves f to its next row with a usable start time; rows without one are
 * counted as skipped (SQLite sorts NULL first, so they come before the
 * rest; far-away times are at either end). */
static int feed_advance(feed *f, buf *err, int *status)
{
    for (;;) {
        int rc = nsys_rows_next(&f->rows, f->row, err, status);
        if (rc == NSYS_CURSOR_OUT_OF_ORDER) {
            f->broke_order = true;
            *status = CONVERT_AGAIN;
            return -1;
        }
        if (rc < 0)
            return -1;
        f->has_row = rc == 1;
        if (!f->has_row)
            return 0;
        f->stats->rows++;
        int64_t start = feed_start(f);
        if (start != NSYS_NULL && source_time_in_range(start))
            return 0;
        f->stats->skipped[start == NSYS_NULL ? NSYSP_SKIP_NULL_TIMESTAMP
                                             : NSYSP_SKIP_TIME_OUT_OF_RANGE]++;
    }
}

/* One input report: what is read from it and the model it feeds. */
typedef struct report {
    const char *input;
    const nsysp_options *opt;
    nsysp_result *res;       /* shared: stats of all reports go there */
    buf *err;                /* shared */
    bool sort_in_sql[NSYSP_MAX_SOURCES]; /* per source: found out of order as stored */
    nsys_db *db;
    nsys_strings strings;
    nsys_meta meta;
    nsys_enums enums;
    nsys_contexts contexts;  /* each context's device, streams with work */
    bool meta_loaded;
    conv c;
    bool model_ready;
    feed feeds[NSYSP_MAX_SOURCES];
    size_t n_feeds;
    size_t n_readers;        /* reader threads beside the main one (--threads - 1) */
    bool alone;              /* the only report of the conversion */
    nsysp_source_stats **kept_stats; /* while feeds reopen: their slots, in order */
    nsys_readahead *ahead;   /* the feeds' readers, while the events are written */
    int64_t range_start, range_end; /* --time-range in report time */
    int64_t first_start;     /* earliest row, or NSYS_NULL */
    int64_t align;           /* added to align it with the other reports */
    /* Marks that let trace_processor sort as it reads (pw_writer_mark_sorted):
     * the writer when the report is written alone, in time order. */
    pw_writer *marks;
    int64_t shift;           /* report time -> trace time */
    uint64_t next_mark;      /* packets written when the next mark is due */
} report;

/* Packets between sort marks: trace_processor then holds one to two such
 * windows of events while it loads, not the whole trace. Every 100,000
 * packets: GindaChen x100 loads in 519 MB instead of 723, for 0.4% more
 * bytes (the batches go out at each mark); docs/performance.md. */
enum { PACKETS_PER_MARK = 100000 };

/* The tests set NSYSP_PACKETS_PER_MARK lower: small windows find any
 * packet written later than the marks allow. */
static uint64_t packets_per_mark(void)
{
    const char *s = getenv("NSYSP_PACKETS_PER_MARK");
    long long v = s ? atoll(s) : 0;
    return v > 0 ? (uint64_t)v : PACKETS_PER_MARK;
}

typedef struct conversion {
    const nsysp_options *opt;
    nsysp_result *res;
    buf err;
    regex_t nvtx_filter;
    bool has_nvtx_filter;
    pw_writer *writer;
    report *reports;
    size_t n_reports;
    /* NSYSP_FORMAT_KINETO: its files, and the writer behind `writer`
     * (freed with it). */
    kineto_files kineto_files;
    kineto_writer *kineto;
} conversion;

/* Whether the options' source list (if any) names src. */
static bool source_selected(const nsysp_options *opt, const source *src)
{
    if (!opt->sources)
        return true;
    for (size_t i = 0; i < opt->n_sources; i++)
        if (strcmp(opt->sources[i], src->name) == 0)
            return true;
    return false;
}

/* Where the rows of the report's k-th feed, of source src, are counted:
 * the slot it had before (reopened feeds: keep), else a slot of its own
 * while room stays for a slot of every source, else (several reports
 * filled that far) the slot of the same source in an earlier report, which
 * then counts both, or a new one in the room kept for it. */
static nsysp_source_stats *stats_of(report *r, const source *src, size_t k)
{
    nsysp_result *res = r->res;
    if (r->kept_stats)
        return r->kept_stats[k];
    if (res->n_sources + sources_count() >= NSYSP_MAX_SOURCES)
        for (size_t i = 0; i < res->n_sources; i++)
            if (strcmp(res->sources[i].name, src->name) == 0 &&
                strcmp(res->sources[i].table, src->table->name) == 0)
                return &res->sources[i];
    /* Room: at most one slot per source is added past the threshold. */
    assert(res->n_sources < NSYSP_MAX_SOURCES);
    nsysp_source_stats *st = &res->sources[res->n_sources++];
    memset(st, 0, sizeof *st);
    st->name = src->name;
    st->table = src->table->name;
    return st;
}

/* Opens the feeds, on r->ahead's readers when there are, starts these,
 * and primes the feeds. */
static int open_feeds(report *r)
{
    int status = NSYSP_OK;
    for (size_t i = 0; i < sources_count() && r->n_feeds < NSYSP_MAX_SOURCES; i++) {
        const source *src = source_at(i);
        if (!nsys_db_has_table(r->db, src->table->name) || !source_selected(r->opt, src))
            continue;
        feed *f = &r->feeds[r->n_feeds];
        nsysp_source_stats *st = stats_of(r, src, r->n_feeds);
        /* As stored unless found out of order, here or by an earlier pass. */
        f->as_stored = nsys_table_checkable_order(src->table) && !r->sort_in_sql[i] &&
                       nsys_table_known_order(r->db, src->table) != 0;
        f->src = src;
        f->source_index = i;
        f->row = xcalloc(1, src->row_size);
        f->state = src->state_size ? xcalloc(1, src->state_size) : NULL;
        f->stats = st;
        r->n_feeds++;
        status = nsys_rows_open(r->db, r->ahead, src->table, f->as_stored, src->row_size, &f->rows,
                                r->err);
        if (status != NSYSP_OK)
            return status;
    }
    if (r->ahead)
        nsys_readahead_start(r->ahead);
    for (size_t i = 0; i < r->n_feeds; i++)
        if (feed_advance(&r->feeds[i], r->err, &status) < 0)
            return status;
    return NSYSP_OK;
}

/* The feed whose current row starts first (ties: registry order). */
static feed *next_feed(report *r)
{
    feed *best = NULL;
    int64_t best_start = 0;
    for (size_t i = 0; i < r->n_feeds; i++) {
        feed *f = &r->feeds[i];
        if (!f->has_row)
            continue;
        int64_t s = feed_start(f);
        if (!best || s < best_start) {
            best = f;
            best_start = s;
        }
    }
    return best;
}

/* The earliest row of the report (the feeds are primed), or NSYS_NULL.
 * trace_processor drops negative timestamps and reports can have events
 * from before the session start, so the trace moves by one constant. */
static int64_t first_start(report *r)
{
    feed *first = next_feed(r);
    return first ? feed_start(first) : NSYS_NULL;
}

/* Whether the caller asked the conversion to stop (opt->cancel). */
static bool cancelled(const nsysp_options *opt)
{
    return cancel_requested(opt->cancel);
}

static int interrupted(buf *err, const char *input)
{
    buf_clear(err);
    buf_printf(err, "%s: interrupted", input);
    return NSYSP_ERR_INTERRUPTED;
}

/* Marks the trace sorted up to the row at start: every packet written so
 * far is at most as old (ENDs are written as time passes them), and none
 * written later will be older. Scheduling buffered per CPU goes first. */
static int mark_sorted(report *r, int64_t start)
{
    int64_t ts = start + r->shift;
    r->next_mark = pw_writer_packets(r->marks) + packets_per_mark();
    return model_flush_cpus(&r->c.model) < 0 ||
                   pw_writer_mark_sorted(r->marks, ts > 0 ? (uint64_t)ts : 0) < 0
               ? -1
               : 0;
}

static int run_feeds(report *r)
{
    int status = NSYSP_OK;
    uint64_t rows = 0;
    feed *f = next_feed(r);
    /* Progress is the position in time between the first row and the end. */
    int64_t first = f ? feed_start(f) : 0;
    double span = r->c.report_end > first ? (double)r->c.report_end - (double)first : 1;
    for (; f != NULL; f = next_feed(r)) {
        /* Every row: one row may cost a while (a filter's regexec on a long
         * name), and the flag costs a load. */
        if (cancelled(r->opt))
            return interrupted(r->err, r->input);
        if (r->opt->progress && (++rows & 0xFFFF) == 0) {
            double done = ((double)feed_start(f) - (double)first) / span;
            r->opt->progress(r->opt->progress_ctx, done < 0 ? 0 : done > 1 ? 1 : done);
        }
        int64_t start = feed_start(f);
        if (r->marks && pw_writer_packets(r->marks) >= r->next_mark && mark_sorted(r, start) < 0)
            return NSYSP_ERR_OUTPUT;
        r->c.state = f->state;
        int rc = r->opt->has_time_range && (start < r->range_start || start > r->range_end)
                     ? SOURCE_SKIPPED(NSYSP_SKIP_FILTERED)
                     : f->src->emit(&r->c, f->row);
        if (rc == SOURCE_FAILED)
            return r->c.read_status != NSYSP_OK ? r->c.read_status : NSYSP_ERR_OUTPUT;
        if (rc == SOURCE_EMITTED)
            f->stats->emitted++;
        else
            f->stats->skipped[rc - 1]++;
        if (feed_advance(f, r->err, &status) < 0)
            return status;
        if (f->src->end_group && f->src->end_group(&r->c, f->has_row ? f->row : NULL) < 0)
            return NSYSP_ERR_OUTPUT;
    }
    return model_finish(&r->c.model) < 0 ? NSYSP_ERR_OUTPUT : NSYSP_OK;
}

/* Stops the report's readers; feeds they read read nothing more. */
static void stop_readers(report *r)
{
    nsys_readahead_free(r->ahead);
    r->ahead = NULL;
    for (size_t i = 0; i < r->n_feeds; i++)
        r->feeds[i].rows.ahead = NULL;
}

static void close_feeds(report *r)
{
    stop_readers(r); /* the readers stop before their cursors go */
    for (size_t i = 0; i < r->n_feeds; i++) {
        feed *f = &r->feeds[i];
        nsys_rows_close(&f->rows);
        free(f->row);
        if (f->state && f->src->free_state)
            f->src->free_state(f->state);
        free(f->state);
        memset(f, 0, sizeof *f);
    }
    r->n_feeds = 0;
}

static bool source_selected(const nsysp_options *opt, const source *src);

/* The tables of the sources of the given kinds; returns how many. Only
 * those --sources selected when opt is given: flows join selected sources
 * only, while what is derived from GPU work (the NVTX projection, stream
 * activity) reads all of it, so a source alone writes all of its rows. */
static size_t tables_of(const nsysp_options *opt, const char **tables, bool work, bool sync)
{
    size_t n = 0;
    for (size_t i = 0; i < sources_count() && n < NSYSP_MAX_SOURCES; i++) {
        const source *src = source_at(i);
        if (((work && src->kind == SOURCE_GPU_WORK) || (sync && src->kind == SOURCE_GPU_SYNC)) &&
            (!opt || source_selected(opt, src)))
            tables[n++] = src->table->name;
    }
    return n;
}

/* --min-stream-activity: marks the streams to leave out (nsys_activity.h). */
static int hide_idle_streams(report *r)
{
    if (r->opt->min_stream_activity <= 0)
        return NSYSP_OK;
    const char *tables[NSYSP_MAX_SOURCES];
    size_t n = tables_of(NULL, tables, true, false); /* waiting is not being busy */
    int64_t span = r->meta.session_start != NSYS_NULL && r->meta.session_end != NSYS_NULL
                       ? r->meta.session_end - r->meta.session_start
                       : 0;
    return nsys_hide_idle_streams(r->db, tables, n, r->opt->min_stream_activity / 100.0, span,
                                  &r->res->hidden_streams, r->err);
}

/* Where each CUDA context runs and which streams ran work, from the work
 * itself (nsys_contexts.h): GPU rows are placed by it. On db, the
 * report's connection or one of its own. */
static int find_context_devices(report *r, nsys_db *db, buf *err)
{
    const char *tables[NSYSP_MAX_SOURCES];
    size_t n = tables_of(NULL, tables, true, false);
    return nsys_contexts_load(db, tables, n, &r->contexts, err);
}

static int count_gpu_work(report *r);

/* The contexts pass on a thread and a connection of its own, beside the
 * links pass: they read the same tables and need nothing of each other
 * (unless --gpu, whose flows are counted by device). */
typedef struct side_pass {
    report *r;
    nsys_db *db;
    pthread_t thread;
    buf err;
    int status;
} side_pass;

static void *run_side_pass(void *arg)
{
    side_pass *s = arg;
    s->status = find_context_devices(s->r, s->db, &s->err);
    return NULL;
}

/* Contexts, then links, the first on another thread when there are
 * readers; the contexts' table is copied back to the report's connection,
 * where later SQL may use it. */
static int find_contexts_and_count_work(report *r)
{
    side_pass side = {.r = r, .status = NSYSP_OK};
    bool beside = r->n_readers && r->opt->gpu < 0;
    if (beside && (side.db = nsys_db_open(r->input, &side.err, &side.status)) != NULL) {
        nsys_db_set_cancel(side.db, r->opt->cancel);
        beside = pthread_create(&side.thread, NULL, run_side_pass, &side) == 0;
    }
    if (!beside) { /* one after the other, here */
        nsys_db_close(side.db);
        buf_free(&side.err);
        int status = find_context_devices(r, r->db, r->err);
        return status == NSYSP_OK ? count_gpu_work(r) : status;
    }
    int status = count_gpu_work(r);
    pthread_join(side.thread, NULL);
    if (side.status != NSYSP_OK && status == NSYSP_OK) {
        buf_clear(r->err);
        buf_append(r->err, side.err.data, side.err.len);
        status = side.status;
    }
    if (status == NSYSP_OK && nsys_db_has_table(side.db, NSYS_CONTEXT_DEVICES_TABLE))
        status = nsys_db_copy_table(side.db, r->db, NSYS_CONTEXT_DEVICES_TABLE, r->err);
    nsys_db_close(side.db);
    buf_free(&side.err);
    return status;
}

/* Counts the GPU work of each CUDA call, for the flows (when the CUDA API
 * is converted) and the NVTX projection (when it is). See nsys_links.h. */
static int count_gpu_work(report *r)
{
    const char *linked[NSYSP_MAX_SOURCES], *work[NSYSP_MAX_SOURCES];
    nsys_gpu_tables t = {.linked = linked, .work = work,
                         .filter = {r->opt->gpu, INT64_MIN, INT64_MAX}};
    const char *api = SOURCE_CUDA_API.table->name;
    if (!nsys_db_has_column(r->db, api, "globalTid") ||
        !nsys_db_has_column(r->db, api, "correlationId"))
        return NSYSP_OK;
    if (source_selected(r->opt, &SOURCE_CUDA_API))
        t.n_linked = tables_of(r->opt, linked, true, true);
    if (source_selected(r->opt, &SOURCE_NVTX_GPU) && nsys_db_has_table(r->db, "NVTX_EVENTS"))
        t.n_work = tables_of(NULL, work, true, false);
    if (r->opt->has_time_range) {
        t.filter.start = r->range_start;
        t.filter.end = r->range_end;
    }
    /* In parts on threads for one report; merged reports are many, each
     * would hold its parts' connections open to its end. */
    return nsys_links_build(r->db, &t, r->alone ? r->n_readers + 1 : 1, r->err);
}

/* Where ranges still open at the end of the report close: the session's
 * end, else the last time any table the sources read mentions. */
static int64_t report_end(report *r)
{
    int64_t end = r->meta.session_end;
    for (size_t i = 0; i < sources_count() && r->meta.session_end == NSYS_NULL; i++) {
        const source *src = source_at(i);
        const nsys_table *t = src->table;
        const char *start_column = NULL;
        for (size_t c = 0; c < t->n_columns && !start_column; c++)
            if (t->columns[c].offset == src->start_offset && !t->columns[c].expr)
                start_column = t->columns[c].name;
        if (!start_column || !nsys_db_has_column(r->db, t->name, start_column))
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT max(\"%s\")%s FROM \"%s\"", start_column,
                 nsys_db_has_column(r->db, t->name, "end") ? ", max(\"end\")" : "", t->name);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(nsys_db_sqlite(r->db), sql, -1, &st, NULL) != SQLITE_OK)
            continue;
        int64_t latest = NSYS_NULL;
        if (sqlite3_step(st) == SQLITE_ROW)
            for (int c = 0; c < sqlite3_column_count(st); c++)
                if (sqlite3_column_type(st, c) == SQLITE_INTEGER) {
                    int64_t v = sqlite3_column_int64(st, c);
                    latest = latest == NSYS_NULL || v > latest ? v : latest;
                }
        sqlite3_finalize(st);
        if (latest != NSYS_NULL && (end == NSYS_NULL || latest > end))
            end = latest;
    }
    /* Beyond the range of usable times nothing is closed there. */
    if (end == NSYS_NULL)
        return 0;
    return end > NSYS_MAX_TIME ? NSYS_MAX_TIME : end < -NSYS_MAX_TIME ? -NSYS_MAX_TIME : end;
}

/* NVTX ranges onto the GPU (nsys_nvtx_gpu.h), over the GPU work only. */
static int project_nvtx(report *r)
{
    if (!source_selected(r->opt, &SOURCE_NVTX_GPU))
        return NSYSP_OK;
    return nsys_nvtx_gpu_build(r->db, SOURCE_CUDA_API.table->name, r->c.report_end, r->n_readers,
                               r->err);
}

/* Tables the reader uses for names and labels rather than events. */
static bool is_metadata_table(const char *t)
{
    static const char *const METADATA[] = {
        "StringIds", "ThreadNames", "PROCESSES", "ANALYSIS_DETAILS", "META_DATA_EXPORT",
        "META_DATA_CAPTURE", "EXPORT_META_DATA", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_STREAM",
        "TARGET_INFO_NVTX_CUDA_STREAM", "TARGET_INFO_NVTX_CUDA_DEVICE", "TARGET_INFO_GPU_METRICS",
        "GENERIC_EVENT_SOURCES", "GENERIC_EVENT_TYPES", "OSRT_CALLCHAINS", "SAMPLING_CALLCHAINS",
        "TARGET_INFO_SESSION_START_TIME", "MPI_RANKS",
    };
    for (size_t i = 0; i < sizeof METADATA / sizeof *METADATA; i++)
        if (strcmp(t, METADATA[i]) == 0)
            return true;
    return strncmp(t, "ENUM_", 5) == 0;
}

static void note_unread_table(void *ctx, const char *table)
{
    report *r = ctx;
    if (is_metadata_table(table) || r->res->n_unread == NSYSP_MAX_SOURCES)
        return;
    for (size_t i = 0; i < sources_count(); i++)
        if (strcmp(source_at(i)->table->name, table) == 0)
            return;
    size_t i = r->res->n_unread++;
    snprintf(r->res->unread[i].name, sizeof r->res->unread[i].name, "%s", table);
    r->res->unread[i].rows = -1;
    /* count(*) is one SQLite step, which its progress handler cannot stop. */
    if (!r->opt->count_unread_tables || cancelled(r->opt))
        return;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", r->res->unread[i].name);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(nsys_db_sqlite(r->db), sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            r->res->unread[i].rows = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
}

int nsysp_default_threads(void)
{
    return (int)nsys_readahead_cpus(NSYSP_MAX_THREADS);
}

/* --threads, with 0 resolved to the machine's CPUs. */
static size_t threads_of(const nsysp_options *opt)
{
    int n = opt->threads > 0 ? opt->threads : nsysp_default_threads();
    return n < NSYSP_MAX_THREADS ? (size_t)n : NSYSP_MAX_THREADS;
}

/* Deflate threads for --threads N: N / 2, at least one. On the mix
 * deflate is about as much work as the main thread's (docs/performance.md,
 * fourth and fifth rounds). */
static size_t compressors_of(const nsysp_options *opt)
{
    size_t n = threads_of(opt) / 2;
    return n ? n : 1;
}

/* Refuses to write over an input (the rename would destroy it), however
 * either is named: another spelling, a symlink, a hard link. */
static int check_output_is_not_input(conversion *cv, const char *input, const char *output)
{
    if (file_id_same_path(input, output)) {
        buf_printf(&cv->err, "%s: output path is the input report", output);
        return NSYSP_ERR_OUTPUT;
    }
    return NSYSP_OK;
}

/* Kineto JSON: which files, one per rank (kineto_files.h), none of them an
 * input; the result names the first. */
static int plan_kineto_files(conversion *cv, const char *const *inputs)
{
    nsys_db **dbs = xcalloc(cv->n_reports, sizeof *dbs);
    for (size_t i = 0; i < cv->n_reports; i++)
        dbs[i] = cv->reports[i].db;
    rank_of_process *ranks;
    size_t n_ranks;
    int status = rank_numbers_of_reports(inputs, dbs, cv->n_reports, &ranks, &n_ranks, &cv->err);
    free(dbs);
    if (status != NSYSP_OK)
        return status;
    kineto_file *files = xcalloc(n_ranks, sizeof *files);
    for (size_t i = 0; i < n_ranks; i++)
        files[i] = (kineto_file){.report = ranks[i].report, .pid = ranks[i].pid,
                                 .device = ranks[i].device, .rank = ranks[i].rank};
    free(ranks);
    status = kineto_files_plan(inputs, files, n_ranks, cv->opt->output_path,
                               cv->opt->compress_level, cv->opt->pid, &cv->kineto_files, &cv->err);
    for (size_t i = 0; i < cv->kineto_files.n && status == NSYSP_OK; i++)
        for (size_t k = 0; k < cv->n_reports && status == NSYSP_OK; k++)
            status = check_output_is_not_input(cv, inputs[k], cv->kineto_files.files[i].path);
    if (status == NSYSP_OK) {
        snprintf(cv->res->output_path, sizeof cv->res->output_path, "%s",
                 cv->kineto_files.files[0].path);
        cv->res->n_outputs = cv->kineto_files.n;
    }
    return status;
}

/* The writer of the format asked for, on its file(s). */
static int open_writer(conversion *cv, const char *const *inputs, int64_t shift)
{
    if (cv->opt->format == NSYSP_FORMAT_KINETO) {
        /* ts 0 in UTC: the earliest session start, less the shift. */
        int64_t earliest_utc = INT64_MAX;
        const nsys_meta **metas = xcalloc(cv->n_reports, sizeof *metas);
        for (size_t i = 0; i < cv->n_reports; i++) {
            metas[i] = &cv->reports[i].meta;
            if (metas[i]->session_utc != NSYS_NULL && metas[i]->session_utc < earliest_utc)
                earliest_utc = metas[i]->session_utc;
        }
        int64_t base = earliest_utc == INT64_MAX || cv->opt->align_start
                           ? INT64_MIN
                           : earliest_utc - shift;
        cv->kineto = kineto_writer_new(&cv->kineto_files, inputs, metas, base,
                                       cv->opt->compress_level, compressors_of(cv->opt),
                                       cv->opt->cancel, &cv->err);
        free(metas);
        if (!cv->kineto)
            return NSYSP_ERR_OUTPUT;
        pw_backend backend = kineto_writer_backend(cv->kineto);
        cv->writer = pw_writer_new_backend(&backend);
        return NSYSP_OK;
    }
    cv->res->n_outputs = 1;
    pw_output *out = pw_output_open(cv->res->output_path, cv->opt->compress_level,
                                    compressors_of(cv->opt), &cv->err);
    if (!out)
        return NSYSP_ERR_OUTPUT;
    pw_output_set_cancel(out, cv->opt->cancel);
    cv->writer = pw_writer_new(out);
    return NSYSP_OK;
}

/* --nvtx-filter: compiled once, within bounds on its cost
 * (regex_limits.h); matched in C, never pasted into SQL. */
static int compile_filters(conversion *cv)
{
    if (!cv->opt->nvtx_filter)
        return NSYSP_OK;
    char why[256];
    if (regex_compile(&cv->nvtx_filter, cv->opt->nvtx_filter, why, sizeof why) < 0) {
        buf_printf(&cv->err, "--nvtx-filter: %s", why);
        return NSYSP_ERR_USAGE;
    }
    cv->has_nvtx_filter = true;
    return NSYSP_OK;
}

/* Reads what a report needs before its events (names, links, the GPU
 * projection of NVTX) and primes its feeds. */
static int open_report(report *r)
{
    int status;
    r->db = nsys_db_open(r->input, r->err, &status);
    if (!r->db)
        return status;
    nsys_db_set_cancel(r->db, r->opt->cancel);
    snprintf(r->res->schema_version, sizeof r->res->schema_version, "%s",
             nsys_db_schema_version(r->db));
    if ((status = nsys_strings_load(r->db, &r->strings, r->err)) != NSYSP_OK)
        return status;
    r->meta_loaded = true;
    if ((status = nsys_meta_load(r->db, &r->strings, &r->meta, r->err)) != NSYSP_OK)
        return status;
    if ((status = nsys_enums_load(r->db, &r->enums, r->err)) != NSYSP_OK)
        return status;
    int64_t origin = r->meta.session_start == NSYS_NULL ? 0 : r->meta.session_start;
    r->range_start = add_saturated(origin, r->opt->time_start);
    r->range_end = add_saturated(origin, r->opt->time_end);
    if ((status = hide_idle_streams(r)) != NSYSP_OK)
        return status;
    if ((status = find_contexts_and_count_work(r)) != NSYSP_OK)
        return status;
    r->c.report_end = report_end(r);
    if ((status = project_nvtx(r)) != NSYSP_OK)
        return status;
    nsys_db_each_table(r->db, note_unread_table, r);
    return NSYSP_OK;
}

/* Whether a selected source reads table, and the report has it. */
static bool reads_table(const report *r, const char *table)
{
    for (size_t i = 0; i < sources_count(); i++)
        if (strcmp(source_at(i)->table->name, table) == 0 && source_selected(r->opt, source_at(i)))
            return nsys_db_has_table(r->db, table);
    return false;
}

/* Opens the readers of a report's events and primes its feeds, on reader
 * threads when with_readers. */
static int start_events(report *r, bool with_readers)
{
    if (with_readers && r->n_readers)
        r->ahead = nsys_readahead_new(r->db, r->n_readers);
    const bool chains[NSYS_CALLCHAIN_KINDS] = {
        [NSYS_CALLCHAIN_OSRT] = reads_table(r, "OSRT_API"),
        [NSYS_CALLCHAIN_SAMPLE] = reads_table(r, "COMPOSITE_EVENTS"),
    };
    int status = nsys_callchains_open(r->db, r->ahead, chains, &r->c.callchains, r->err);
    r->c.links = nsys_links_open(r->db);
    if (status == NSYSP_OK)
        status = open_feeds(r);
    r->first_start = first_start(r);
    return status;
}

/* Several reports are primed together (their first rows align them) and
 * written one after the other: a report's feeds move to reader threads
 * when its turn comes, so that only one report's blocks are held. Its
 * rows are counted again from the start. */
static int move_feeds_to_readers(report *r)
{
    if (!r->n_readers)
        return NSYSP_OK;
    /* The same feeds open again in the same order, into the same slots;
     * their counts are put back as they were after the first priming. */
    size_t n = r->n_feeds;
    nsysp_source_stats *slots[NSYSP_MAX_SOURCES], before[NSYSP_MAX_SOURCES];
    for (size_t k = 0; k < n; k++) {
        slots[k] = r->feeds[k].stats;
        before[k] = *slots[k];
    }
    close_feeds(r);
    r->kept_stats = slots;
    r->ahead = nsys_readahead_new(r->db, r->n_readers);
    int status = open_feeds(r);
    r->kept_stats = NULL;
    for (size_t k = 0; k < n && status == NSYSP_OK; k++)
        *slots[k] = before[k];
    return status;
}

/* Closes what start_events and convert_report opened; counts its tracks
 * and flows into res. */
static void stop_events(report *r, nsysp_result *res)
{
    close_feeds(r);
    if (r->model_ready) {
        res->tracks += r->c.model.tracks.written;
        res->flows += r->c.flows.linked;
        res->flows_dropped += r->c.flows.dropped;
        model_free(&r->c.model);
        flows_free(&r->c.flows);
    }
    nsys_callchains_close(r->c.callchains);
    nsys_links_close(r->c.links);
    buf_free(&r->c.scratch);
    int64_t end = r->c.report_end;
    memset(&r->c, 0, sizeof r->c);
    r->c.report_end = end;
    r->model_ready = false;
}

/* What tells merged reports apart: the label given for it, else the host
 * that captured it, else the file name. */
static void report_label(const report *r, const char *given, char *out, size_t size)
{
    if (given && *given) {
        snprintf(out, size, "%s", given);
        return;
    }
    const char *host = nsys_db_meta(r->db, "EXPORT_HOST");
    const char *slash = strrchr(r->input, '/');
    snprintf(out, size, "%s", host && *host ? host : slash ? slash + 1 : r->input);
}

/* Time alignment of several reports: on each one's session start in UTC
 * (TARGET_INFO_SESSION_START_TIME), or all starting at zero (align_start).
 * Then one shift for all, so that no timestamp is negative. */
static int64_t align_reports(conversion *cv)
{
    int64_t earliest_utc = INT64_MAX;
    for (size_t i = 0; i < cv->n_reports; i++)
        if (cv->reports[i].meta.session_utc != NSYS_NULL &&
            cv->reports[i].meta.session_utc < earliest_utc)
            earliest_utc = cv->reports[i].meta.session_utc;
    int64_t shift = 0;
    for (size_t i = 0; i < cv->n_reports; i++) {
        report *r = &cv->reports[i];
        int64_t start = r->meta.session_start == NSYS_NULL ? 0 : r->meta.session_start;
        if (cv->n_reports > 1 && cv->opt->align_start)
            r->align = -start;
        else if (cv->n_reports > 1 && r->meta.session_utc != NSYS_NULL)
            r->align = r->meta.session_utc - earliest_utc;
        if (r->first_start != NSYS_NULL && r->first_start + r->align + shift < 0)
            shift = -(r->first_start + r->align);
    }
    return shift;
}

/* Writes one report's events on its own sequence, with its own model. */
static int convert_report(conversion *cv, size_t index, int64_t shift, uint64_t first_uuid)
{
    report *r = &cv->reports[index];
    r->c.strings = &r->strings;
    r->c.meta = &r->meta;
    r->c.enums = &r->enums;
    r->c.opt = cv->opt;
    r->c.err = &cv->err;
    r->c.nvtx_filter = cv->has_nvtx_filter ? &cv->nvtx_filter : NULL;
    pw_seq *seq = pw_writer_sequence(cv->writer);
    if (pw_sequence_start(seq, true) < 0)
        return NSYSP_ERR_OUTPUT;
    model_init(&r->c.model, seq, &r->meta, &r->contexts);
    r->c.model.tracks.next_uuid = first_uuid;
    r->c.flows.salt = index;
    r->model_ready = true;
    model_set_filters(&r->c.model, cv->opt->gpu, cv->opt->pid);
    if (cv->n_reports > 1) {
        /* Pids and tids of report k live in their own range, so that equal
         * pids from different hosts never collide. */
        char label[128];
        report_label(r, index < cv->opt->n_report_labels ? cv->opt->report_labels[index] : NULL,
                     label, sizeof label);
        model_set_report(&r->c.model, (int32_t)index, label);
    }
    model_set_shift(&r->c.model, r->align + shift);
    /* Merged reports each start over in time: no marks. */
    r->shift = r->align + shift;
    r->marks = cv->n_reports == 1 ? cv->writer : NULL;
    r->next_mark = packets_per_mark();
    if (cv->n_reports > 1 && r->n_feeds) {
        int status = move_feeds_to_readers(r);
        if (status != NSYSP_OK)
            return status;
    }
    int status = run_feeds(r);
    /* Its readers are done: their threads, connections and blocks go now,
     * not after the other reports. */
    stop_readers(r);
    return status;
}

/* After a table read as stored broke its order: which tables of the open
 * reports are not stored in order, so that the next attempt sorts them all
 * (one more attempt in the usual case, not one per table). */
static void find_unsorted_tables(conversion *cv)
{
    for (size_t i = 0; i < cv->n_reports; i++) {
        report *r = &cv->reports[i];
        for (size_t k = 0; k < r->n_feeds; k++) {
            feed *f = &r->feeds[k];
            if (f->as_stored &&
                (f->broke_order || nsys_table_stored_in_order(r->db, f->src->table) != 1))
                r->sort_in_sql[f->source_index] = true;
        }
    }
}

/* Opens the output and writes every report's events. */
static int write_events(conversion *cv, const char *const *inputs)
{
    int status = NSYSP_OK;
    for (size_t i = 0; i < cv->n_reports && status == NSYSP_OK; i++)
        status = start_events(&cv->reports[i], cv->n_reports == 1);
    if (status != NSYSP_OK)
        return status;
    int64_t shift = align_reports(cv);
    cv->res->time_shift_ns = shift;
    if ((status = open_writer(cv, inputs, shift)) != NSYSP_OK)
        return status;
    uint64_t next_uuid = 1;
    for (size_t i = 0; i < cv->n_reports && status == NSYSP_OK; i++) {
        /* Each report's times start over: its tracks get batch sequences
         * of their own, so that every sequence stays in time order. */
        if (i > 0 && pw_writer_new_batches(cv->writer) < 0)
            return NSYSP_ERR_OUTPUT;
        if (cv->kineto)
            kineto_writer_set_report(cv->kineto, i);
        status = convert_report(cv, i, shift, next_uuid);
        next_uuid = cv->reports[i].c.model.tracks.next_uuid;
    }
    return status;
}

/* Drops what an attempt wrote, keeping what was read before it. */
static void discard_events(conversion *cv)
{
    for (size_t i = 0; i < cv->n_reports; i++)
        stop_events(&cv->reports[i], cv->res);
    if (cv->writer) {
        pw_output_totals ignored;
        pw_writer_finish(cv->writer, false, &cv->err, &ignored);
        cv->writer = NULL;
        cv->kineto = NULL; /* freed by the writer */
    }
    cv->res->n_sources = 0;
    cv->res->tracks = cv->res->flows = cv->res->flows_dropped = 0;
}

/* After a call found GPU work written before it without a flow: lists the
 * calls after their work, so the next attempt links them (nsys_links.h). */
static int link_early_work(conversion *cv)
{
    int status = NSYSP_OK;
    for (size_t i = 0; i < cv->n_reports && status == NSYSP_OK; i++) {
        report *r = &cv->reports[i];
        nsys_link_filter filter = {cv->opt->gpu, INT64_MIN, INT64_MAX};
        if (cv->opt->has_time_range) {
            filter.start = r->range_start;
            filter.end = r->range_end;
        }
        status = nsys_links_build_early(r->db, SOURCE_CUDA_API.table->name, &filter, r->err);
    }
    return status;
}

static int convert(conversion *cv, const char *const *inputs)
{
    int status = compile_filters(cv);
    for (size_t i = 0; i < cv->n_reports && status == NSYSP_OK; i++)
        if (cv->opt->format != NSYSP_FORMAT_KINETO)
            status = check_output_is_not_input(cv, inputs[i], cv->res->output_path);
    for (size_t i = 0; i < cv->n_reports && status == NSYSP_OK; i++) {
        report *r = &cv->reports[i];
        r->input = inputs[i];
        r->opt = cv->opt;
        r->res = cv->res;
        r->err = &cv->err;
        r->n_readers = threads_of(cv->opt) - 1;
        r->alone = cv->n_reports == 1;
        status = open_report(r);
    }
    if (status == NSYSP_OK && cv->opt->format == NSYSP_FORMAT_KINETO)
        status = plan_kineto_files(cv, inputs);
    /* Each attempt that finds tables out of order sorts at least one more,
     * and work before its call is found once, so this ends; usually after
     * one attempt. The reports' names, links and projections are kept
     * between attempts. */
    while (status == NSYSP_OK) {
        status = write_events(cv, inputs);
        if (status == CONVERT_AGAIN)
            find_unsorted_tables(cv);
        else if (status != SOURCE_CONVERT_AGAIN_EARLY_WORK)
            break;
        bool early = status == SOURCE_CONVERT_AGAIN_EARLY_WORK;
        discard_events(cv);
        status = early ? link_early_work(cv) : NSYSP_OK;
    }
    /* A signal after the last row still stops it: nothing is committed. */
    if (status == NSYSP_OK && cancelled(cv->opt))
        status = interrupted(&cv->err, inputs[0]);
    return status;
}

static void free_report(report *r, nsysp_result *res)
{
    stop_events(r, res);
    if (r->meta_loaded) {
        nsys_meta_free(&r->meta);
        nsys_contexts_free(&r->contexts);
        nsys_enums_free(&r->enums);
        nsys_strings_free(&r->strings);
    }
    nsys_db_close(r->db);
}

/* Frees everything; commits the output only when status is OK. */
static int finish(conversion *cv, int status)
{
    /* Models go first: their tracks count before the writer closes. */
    for (size_t i = 0; i < cv->n_reports; i++)
        free_report(&cv->reports[i], cv->res);
    free(cv->reports);
    if (cv->writer) {
        cv->res->packets = pw_writer_packets(cv->writer);
        if (cv->kineto)
            cv->res->not_written = kineto_writer_not_written(cv->kineto);
        if (status == NSYSP_ERR_OUTPUT && !cv->err.len)
            buf_printf(&cv->err, "%s: cannot write output: %s", cv->res->output_path,
                       strerror(pw_writer_error(cv->writer)));
        pw_output_totals totals = {0};
        if (pw_writer_finish(cv->writer, status == NSYSP_OK, &cv->err, &totals) < 0 &&
            status == NSYSP_OK) /* the output checks the flag last, before its rename */
            status = cancelled(cv->opt) ? NSYSP_ERR_INTERRUPTED : NSYSP_ERR_OUTPUT;
        cv->res->bytes_uncompressed = totals.bytes_in;
        cv->res->bytes_written = totals.bytes_out;
    }
    cv->kineto = NULL; /* freed by the writer */
    kineto_files_free(&cv->kineto_files);
    if (cv->has_nvtx_filter)
        regfree(&cv->nvtx_filter);
    if (status != NSYSP_OK)
        snprintf(cv->res->message, sizeof cv->res->message, "%s",
                 cv->err.len ? buf_cstr(&cv->err) : "conversion failed");
    buf_free(&cv->err);
    return status;
}

nsysp_status nsysp_convert_many(const char *const *inputs, size_t n_inputs,
                                const nsysp_options *opt, nsysp_result *result)
{
    nsysp_options defaults;
    nsysp_result scratch;
    if (!opt) {
        nsysp_options_init(&defaults);
        opt = &defaults;
    }
    if (!result)
        result = &scratch;
    memset(result, 0, sizeof *result);

    conversion cv = {.opt = opt, .res = result};
    int status = NSYSP_OK;
    if (n_inputs == 0) {
        buf_printf(&cv.err, "no input report");
        status = NSYSP_ERR_USAGE;
    } else if (opt->output_path) {
        snprintf(result->output_path, sizeof result->output_path, "%s", opt->output_path);
    } else if (nsysp_default_output_path(inputs[0], result->output_path,
                                         sizeof result->output_path) < 0) {
        buf_printf(&cv.err, "%s: path too long", inputs[0]);
        status = NSYSP_ERR_OUTPUT;
    }
    cv.reports = xcalloc(n_inputs ? n_inputs : 1, sizeof *cv.reports);
    cv.n_reports = n_inputs;
    if (status == NSYSP_OK)
        status = convert(&cv, inputs);
    status = finish(&cv, status);
    return (nsysp_status)status;
}

nsysp_status nsysp_convert(const char *input, const nsysp_options *opt, nsysp_result *result)
{
    return nsysp_convert_many(&input, 1, opt, result);
}
