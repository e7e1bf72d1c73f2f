/* nsysp_convert: the whole pipeline, in one direction.
 *
 *   report (read-only) -> sources (rows as structs, merged by start time)
 *     -> model (tracks, lanes) -> writer (packets, interning) -> gzip file
 *
 * Each source's rows come ordered by start; the sources are merged so that
 * every row reaches the model in global time order, which keeps memory flat
 * (only open slices are held) and the trace time-sorted. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/xalloc.h"
#include "nsys/nsys_db.h"
#include "perfetto/pw_output.h"
#include "perfetto/pw_writer.h"
#include "nsys/nsys_activity.h"
#include "nsys/nsys_callchains.h"
#include "nsys/nsys_links.h"
#include "nsys/nsys_nvtx_gpu.h"
#include "sources/source.h"

/* An open source: its cursor and the row it is positioned on. */
typedef struct feed {
    const source *src;
    nsys_cursor *cursor;
    void *row;
    bool has_row;
    nsysp_source_stats *stats;
} feed;

static int64_t feed_start(const feed *f)
{
    int64_t start;
    memcpy(&start, (const char *)f->row + f->src->start_offset, sizeof start);
    return start;
}

/* How many table rows the current row stands for (grouped sources). */
static uint64_t feed_weight(const feed *f)
{
    if (!f->src->weight_offset)
        return 1;
    int64_t w;
    memcpy(&w, (const char *)f->row + f->src->weight_offset, sizeof w);
    return w > 0 ? (uint64_t)w : 1;
}

/* Moves f to its next row with a start time; rows without one are counted
 * as skipped (SQLite sorts NULL first, so they come before the rest). */
static int feed_advance(feed *f, buf *err, int *status)
{
    for (;;) {
        int rc = nsys_cursor_next(f->cursor, f->row, err, status);
        if (rc < 0)
            return -1;
        f->has_row = rc == 1;
        if (!f->has_row)
            return 0;
        f->stats->rows += feed_weight(f);
        if (feed_start(f) != NSYS_NULL)
            return 0;
        f->stats->skipped[NSYSP_SKIP_NULL_TIMESTAMP] += feed_weight(f);
    }
}

typedef struct conversion {
    const char *input;
    const nsysp_options *opt;
    nsysp_result *res;
    buf err;
    nsys_db *db;
    nsys_strings strings;
    nsys_meta meta;
    nsys_enums enums;
    regex_t nvtx_filter;
    bool has_nvtx_filter;
    bool meta_loaded;
    pw_writer *writer;
    conv c;
    bool model_ready;
    feed feeds[NSYSP_MAX_SOURCES];
    size_t n_feeds;
    int64_t range_start, range_end; /* --time-range in report time */
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

static int open_feeds(conversion *cv)
{
    int status = NSYSP_OK;
    for (size_t i = 0; i < sources_count() && cv->n_feeds < NSYSP_MAX_SOURCES; i++) {
        const source *src = source_at(i);
        if (!nsys_db_has_table(cv->db, src->table->name) || !source_selected(cv->opt, src))
            continue;
        feed *f = &cv->feeds[cv->n_feeds];
        nsysp_source_stats *st = &cv->res->sources[cv->res->n_sources];
        memset(st, 0, sizeof *st);
        st->name = src->name;
        st->table = src->table->name;
        status = nsys_cursor_open(cv->db, src->table, &f->cursor, &cv->err);
        if (status != NSYSP_OK)
            return status;
        f->src = src;
        f->row = xcalloc(1, src->row_size);
        f->stats = st;
        cv->n_feeds++;
        cv->res->n_sources++;
        if (feed_advance(f, &cv->err, &status) < 0)
            return status;
    }
    return NSYSP_OK;
}

/* The feed whose current row starts first (ties: registry order). */
static feed *next_feed(conversion *cv)
{
    feed *best = NULL;
    int64_t best_start = 0;
    for (size_t i = 0; i < cv->n_feeds; i++) {
        feed *f = &cv->feeds[i];
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

/* trace_processor drops negative timestamps; reports can have events from
 * before the session start, so the whole trace moves by one constant. */
static int64_t time_shift(conversion *cv)
{
    feed *first = next_feed(cv);
    if (!first)
        return 0;
    int64_t start = feed_start(first);
    return start < 0 ? -start : 0;
}

static int run_feeds(conversion *cv)
{
    int status = NSYSP_OK;
    uint64_t rows = 0;
    feed *f = next_feed(cv);
    /* Progress is the position in time between the first row and the end. */
    int64_t first = f ? feed_start(f) : 0;
    double span = (double)(cv->c.report_end > first ? cv->c.report_end - first : 1);
    for (; f != NULL; f = next_feed(cv)) {
        if ((++rows & 0xFFF) == 0) {
            if (cv->opt->cancel && *cv->opt->cancel) {
                buf_printf(&cv->err, "%s: interrupted", cv->input);
                return NSYSP_ERR_INTERRUPTED;
            }
            if (cv->opt->progress && (rows & 0xFFFF) == 0) {
                double done = (double)(feed_start(f) - first) / span;
                cv->opt->progress(cv->opt->progress_ctx, done < 0 ? 0 : done > 1 ? 1 : done);
            }
        }
        int64_t start = feed_start(f);
        int rc = cv->opt->has_time_range && (start < cv->range_start || start > cv->range_end)
                     ? SOURCE_SKIPPED(NSYSP_SKIP_FILTERED)
                     : f->src->emit(&cv->c, f->row);
        if (rc == SOURCE_FAILED)
            return NSYSP_ERR_OUTPUT;
        uint64_t weight = feed_weight(f);
        if (rc == SOURCE_EMITTED)
            f->stats->emitted += weight;
        else
            f->stats->skipped[rc - 1] += weight;
        if (feed_advance(f, &cv->err, &status) < 0)
            return status;
    }
    return model_finish(&cv->c.model) < 0 ? NSYSP_ERR_OUTPUT : NSYSP_OK;
}

static void close_feeds(conversion *cv)
{
    for (size_t i = 0; i < cv->n_feeds; i++) {
        nsys_cursor_close(cv->feeds[i].cursor);
        free(cv->feeds[i].row);
    }
    cv->n_feeds = 0;
}

static bool source_selected(const nsysp_options *opt, const source *src);

/* The tables of the selected sources of the given kinds; returns how many. */
static size_t tables_of(const nsysp_options *opt, const char **tables, bool work, bool sync)
{
    size_t n = 0;
    for (size_t i = 0; i < sources_count() && n < NSYSP_MAX_SOURCES; i++) {
        const source *src = source_at(i);
        if (((work && src->kind == SOURCE_GPU_WORK) || (sync && src->kind == SOURCE_GPU_SYNC)) &&
            source_selected(opt, src))
            tables[n++] = src->table->name;
    }
    return n;
}

/* --min-stream-activity: marks the streams to leave out (nsys_activity.h). */
static int hide_idle_streams(conversion *cv)
{
    if (cv->opt->min_stream_activity <= 0)
        return NSYSP_OK;
    const char *tables[NSYSP_MAX_SOURCES];
    size_t n = tables_of(cv->opt, tables, true, false); /* waiting is not being busy */
    int64_t span = cv->meta.session_start != NSYS_NULL && cv->meta.session_end != NSYS_NULL
                       ? cv->meta.session_end - cv->meta.session_start
                       : 0;
    return nsys_hide_idle_streams(cv->db, tables, n, cv->opt->min_stream_activity / 100.0, span,
                                  &cv->res->hidden_streams, &cv->err);
}

/* Finds which API calls launched which GPU operations (see nsys_links.h). */
static int build_links(conversion *cv)
{
    const char *tables[NSYSP_MAX_SOURCES];
    size_t n = tables_of(cv->opt, tables, true, true);
    if (!source_selected(cv->opt, &SOURCE_CUDA_API))
        return NSYSP_OK;
    nsys_link_filter filter = {cv->opt->gpu, INT64_MIN, INT64_MAX};
    if (cv->opt->has_time_range) {
        filter.start = cv->range_start;
        filter.end = cv->range_end;
    }
    return nsys_links_build(cv->db, SOURCE_CUDA_API.table->name, tables, n, &filter, &cv->err);
}

/* Where ranges still open at the end of the report close: the session's
 * end, else the last end time of any table the sources read. */
static int64_t report_end(conversion *cv)
{
    int64_t end = cv->meta.session_end;
    for (size_t i = 0; i < sources_count(); i++) {
        const char *table = source_at(i)->table->name;
        if (!nsys_db_has_column(cv->db, table, "end"))
            continue;
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT max(\"end\") FROM \"%s\"", table);
        sqlite3_stmt *st;
        if (end != NSYS_NULL ||
            sqlite3_prepare_v2(nsys_db_sqlite(cv->db), sql, -1, &st, NULL) != SQLITE_OK)
            continue;
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
            int64_t v = sqlite3_column_int64(st, 0);
            end = end == NSYS_NULL || v > end ? v : end;
        }
        sqlite3_finalize(st);
    }
    return end == NSYS_NULL ? 0 : end;
}

/* NVTX ranges onto the GPU (nsys_nvtx_gpu.h), over the GPU work only. */
static int project_nvtx(conversion *cv)
{
    const char *tables[NSYSP_MAX_SOURCES];
    size_t n = tables_of(cv->opt, tables, true, false);
    return nsys_nvtx_gpu_build(cv->db, SOURCE_CUDA_API.table->name, tables, n,
                               cv->c.report_end, &cv->err);
}

/* Tables the reader uses for names and labels rather than events. */
static bool is_metadata_table(const char *t)
{
    static const char *const METADATA[] = {
        "StringIds", "ThreadNames", "PROCESSES", "ANALYSIS_DETAILS", "META_DATA_EXPORT",
        "META_DATA_CAPTURE", "EXPORT_META_DATA", "TARGET_INFO_GPU", "TARGET_INFO_CUDA_STREAM",
        "TARGET_INFO_NVTX_CUDA_STREAM", "TARGET_INFO_NVTX_CUDA_DEVICE", "TARGET_INFO_GPU_METRICS",
        "GENERIC_EVENT_SOURCES", "GENERIC_EVENT_TYPES", "OSRT_CALLCHAINS", "SAMPLING_CALLCHAINS",
    };
    for (size_t i = 0; i < sizeof METADATA / sizeof *METADATA; i++)
        if (strcmp(t, METADATA[i]) == 0)
            return true;
    return strncmp(t, "ENUM_", 5) == 0;
}

static void note_unread_table(void *ctx, const char *table)
{
    conversion *cv = ctx;
    if (is_metadata_table(table) || cv->res->n_unread == NSYSP_MAX_SOURCES)
        return;
    for (size_t i = 0; i < sources_count(); i++)
        if (strcmp(source_at(i)->table->name, table) == 0)
            return;
    size_t i = cv->res->n_unread++;
    snprintf(cv->res->unread[i].name, sizeof cv->res->unread[i].name, "%s", table);
    cv->res->unread[i].rows = -1;
    if (!cv->opt->count_unread_tables)
        return;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", cv->res->unread[i].name);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(nsys_db_sqlite(cv->db), sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            cv->res->unread[i].rows = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
}

/* Refuses to write over the input itself (the rename would destroy it). */
static int check_output_is_not_input(conversion *cv)
{
    char in[PATH_MAX], out[PATH_MAX];
    if (realpath(cv->input, in) && realpath(cv->res->output_path, out) && strcmp(in, out) == 0) {
        buf_printf(&cv->err, "%s: output path is the input report", cv->res->output_path);
        return NSYSP_ERR_OUTPUT;
    }
    return NSYSP_OK;
}

/* --nvtx-filter: compiled once; matched in C, never pasted into SQL. */
static int compile_filters(conversion *cv)
{
    if (!cv->opt->nvtx_filter)
        return NSYSP_OK;
    int rc = regcomp(&cv->nvtx_filter, cv->opt->nvtx_filter, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, &cv->nvtx_filter, why, sizeof why);
        buf_printf(&cv->err, "--nvtx-filter '%s': %s", cv->opt->nvtx_filter, why);
        return NSYSP_ERR_USAGE;
    }
    cv->has_nvtx_filter = true;
    cv->c.nvtx_filter = &cv->nvtx_filter;
    return NSYSP_OK;
}

static int convert(conversion *cv)
{
    int status = compile_filters(cv);
    if (status != NSYSP_OK)
        return status;
    status = check_output_is_not_input(cv);
    if (status != NSYSP_OK)
        return status;
    cv->db = nsys_db_open(cv->input, &cv->err, &status);
    if (!cv->db)
        return status;
    nsys_db_set_cancel(cv->db, cv->opt->cancel);
    snprintf(cv->res->schema_version, sizeof cv->res->schema_version, "%s",
             nsys_db_schema_version(cv->db));
    if ((status = nsys_strings_load(cv->db, &cv->strings, &cv->err)) != NSYSP_OK)
        return status;
    cv->meta_loaded = true;
    if ((status = nsys_meta_load(cv->db, &cv->strings, &cv->meta, &cv->err)) != NSYSP_OK)
        return status;
    if ((status = nsys_enums_load(cv->db, &cv->enums, &cv->err)) != NSYSP_OK)
        return status;
    int64_t origin = cv->meta.session_start == NSYS_NULL ? 0 : cv->meta.session_start;
    cv->range_start = origin + cv->opt->time_start;
    cv->range_end = origin + cv->opt->time_end;
    if ((status = hide_idle_streams(cv)) != NSYSP_OK)
        return status;
    if ((status = build_links(cv)) != NSYSP_OK)
        return status;
    cv->c.report_end = report_end(cv);
    if ((status = project_nvtx(cv)) != NSYSP_OK)
        return status;
    if ((status = nsys_callchains_build(cv->db, &cv->err)) != NSYSP_OK)
        return status;
    if ((status = open_feeds(cv)) != NSYSP_OK)
        return status;
    nsys_db_each_table(cv->db, note_unread_table, cv);

    pw_output *out = pw_output_open(cv->res->output_path, cv->opt->compress_level, &cv->err);
    if (!out)
        return NSYSP_ERR_OUTPUT;
    cv->writer = pw_writer_new(out);
    cv->c.strings = &cv->strings;
    cv->c.meta = &cv->meta;
    cv->c.enums = &cv->enums;
    cv->c.opt = cv->opt;
    pw_seq *seq = pw_writer_sequence(cv->writer);
    if (pw_sequence_start(seq) < 0)
        return NSYSP_ERR_OUTPUT;
    model_init(&cv->c.model, seq, &cv->meta);
    model_set_filters(&cv->c.model, cv->opt->gpu, cv->opt->pid);
    cv->model_ready = true;

    cv->res->time_shift_ns = time_shift(cv);
    model_set_shift(&cv->c.model, cv->res->time_shift_ns);
    return run_feeds(cv);
}

/* Frees everything; commits the output only when status is OK. */
static int finish(conversion *cv, int status)
{
    close_feeds(cv);
    if (cv->model_ready) {
        cv->res->tracks = cv->c.model.tracks.written;
        cv->res->flows = cv->c.flows.linked;
        model_free(&cv->c.model);
        flows_free(&cv->c.flows);
        pairmap_free(&cv->c.memory_in_use);
        pairmap_free(&cv->c.allocations);
    }
    if (cv->writer) {
        cv->res->packets = pw_writer_packets(cv->writer);
        if (status == NSYSP_ERR_OUTPUT && !cv->err.len)
            buf_printf(&cv->err, "%s: cannot write output: %s", cv->res->output_path,
                       strerror(pw_writer_error(cv->writer)));
        pw_output_totals totals = {0};
        if (pw_writer_finish(cv->writer, status == NSYSP_OK, &cv->err, &totals) < 0 &&
            status == NSYSP_OK)
            status = NSYSP_ERR_OUTPUT;
        cv->res->bytes_uncompressed = totals.bytes_in;
        cv->res->bytes_written = totals.bytes_out;
    }
    buf_free(&cv->c.scratch);
    if (cv->meta_loaded) {
        nsys_meta_free(&cv->meta);
        nsys_enums_free(&cv->enums);
        nsys_strings_free(&cv->strings);
    }
    nsys_db_close(cv->db);
    if (cv->has_nvtx_filter)
        regfree(&cv->nvtx_filter);
    if (status != NSYSP_OK)
        snprintf(cv->res->message, sizeof cv->res->message, "%s",
                 cv->err.len ? buf_cstr(&cv->err) : "conversion failed");
    buf_free(&cv->err);
    return status;
}

nsysp_status nsysp_convert(const char *input, const nsysp_options *opt, nsysp_result *result)
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

    conversion cv = {.input = input, .opt = opt, .res = result};
    int status;
    if (opt->output_path) {
        snprintf(result->output_path, sizeof result->output_path, "%s", opt->output_path);
        status = NSYSP_OK;
    } else if (nsysp_default_output_path(input, result->output_path,
                                         sizeof result->output_path) < 0) {
        buf_printf(&cv.err, "%s: path too long", input);
        status = NSYSP_ERR_OUTPUT;
    } else {
        status = NSYSP_OK;
    }
    if (status == NSYSP_OK)
        status = convert(&cv);
    status = finish(&cv, status);
    return (nsysp_status)status;
}
