#include "web_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/open_big.h"
#include "common/json.h"
#include "web_reports.h"

static void write_options(FILE *out, const web_options *o)
{
    const struct {
        const char *key, *value;
    } fields[] = {
        {"kernel_names", o->kernel_names}, {"min_stream_activity", o->min_stream_activity},
        {"nvtx_domains", o->nvtx_domains}, {"nvtx_filter", o->nvtx_filter},
        {"time_range", o->time_range},     {"sources", o->sources},
    };
    fputc('{', out);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        fprintf(out, "%s\"%s\":", i ? "," : "", fields[i].key);
        json_string(out, fields[i].value);
    }
    fputc('}', out);
}

/* The accounting --stats prints, as JSON. */
static void write_stats(FILE *out, const nsysp_result *r)
{
    fputs("{\"sources\":[", out);
    for (size_t i = 0; i < r->n_sources; i++) {
        const nsysp_source_stats *s = &r->sources[i];
        fprintf(out, "%s{\"name\":", i ? "," : "");
        json_string(out, s->name);
        fputs(",\"table\":", out);
        json_string(out, s->table);
        fprintf(out, ",\"rows\":%llu,\"events\":%llu,\"skipped\":{", (unsigned long long)s->rows,
                (unsigned long long)s->emitted);
        int n = 0;
        for (int k = 0; k < NSYSP_SKIP_REASONS; k++)
            if (s->skipped[k]) {
                fprintf(out, "%s", n++ ? "," : "");
                json_string(out, nsysp_skip_reason_name((nsysp_skip_reason)k));
                fprintf(out, ":%llu", (unsigned long long)s->skipped[k]);
            }
        fputs("}}", out);
    }
    fputs("],\"not_converted\":[", out);
    int n = 0;
    for (size_t i = 0; i < r->n_unread; i++)
        if (r->unread[i].rows != 0) {
            fprintf(out, "%s{\"table\":", n++ ? "," : "");
            json_string(out, r->unread[i].name);
            fprintf(out, ",\"rows\":%lld}", (long long)r->unread[i].rows);
        }
    fprintf(out, "],\"tracks\":%llu,\"flows\":%llu,\"flows_dropped\":%llu,\"packets\":%llu,"
                 "\"hidden_streams\":%llu,\"bytes_written\":%llu,\"bytes_uncompressed\":%llu,"
                 "\"time_shift_ns\":%lld,\"schema_version\":",
            (unsigned long long)r->tracks, (unsigned long long)r->flows,
            (unsigned long long)r->flows_dropped, (unsigned long long)r->packets,
            (unsigned long long)r->hidden_streams, (unsigned long long)r->bytes_written,
            (unsigned long long)r->bytes_uncompressed, (long long)r->time_shift_ns);
    json_string(out, r->schema_version);
    fputc('}', out);
}

/* The longest WEB_SUMMARY_TOP rows of each category (rows come by
 * category, longest first), and how many rows each category has. */
static void write_summary(FILE *out, const nsysp_summary *s)
{
    fputs("{\"rows\":[", out);
    size_t shown = 0, in_category = 0;
    for (size_t i = 0; i < s->n_rows; i++) {
        const nsysp_summary_row *row = &s->rows[i];
        in_category = i && strcmp(row->category, s->rows[i - 1].category) == 0 ? in_category + 1
                                                                                : 0;
        if (in_category >= WEB_SUMMARY_TOP)
            continue;
        fprintf(out, "%s{\"category\":", shown++ ? "," : "");
        json_string(out, row->category);
        fputs(",\"name\":", out);
        json_string(out, row->name);
        fprintf(out, ",\"count\":%llu,\"total_ns\":%lld,\"min_ns\":%lld,\"max_ns\":%lld}",
                (unsigned long long)row->count, (long long)row->total_ns, (long long)row->min_ns,
                (long long)row->max_ns);
    }
    fputs("],\"categories\":{", out);
    size_t categories = 0, count = 0;
    for (size_t i = 0; i < s->n_rows; i++) {
        count++;
        if (i + 1 == s->n_rows || strcmp(s->rows[i].category, s->rows[i + 1].category) != 0) {
            fprintf(out, "%s", categories++ ? "," : "");
            json_string(out, s->rows[i].category);
            fprintf(out, ":%zu", count);
            count = 0;
        }
    }
    fputs("}}", out);
}

int web_result_write(const char *dir, const web_conversion *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return -1;
    fputs("{\"id\":", out);
    json_string(out, c->id);
    fputs(",\"name\":", out);
    json_string(out, c->name);
    fprintf(out, ",\"state\":\"%s\",\"error\":", c->status == NSYSP_OK ? "done" : "failed");
    json_string(out, c->status == NSYSP_OK ? "" : c->error);
    fprintf(out, ",\"seconds\":%.3f,\"input_bytes\":%llu,\"trace_bytes\":%llu,"
                 "\"engine_bytes\":%llu,\"options\":",
            c->seconds, (unsigned long long)c->input_bytes, (unsigned long long)c->trace_bytes,
            (unsigned long long)(c->status == NSYSP_OK ? open_estimated_bytes(c->result) : 0));
    write_options(out, c->options);
    fputs(",\"stats\":", out);
    if (c->status == NSYSP_OK)
        write_stats(out, c->result);
    else
        fputs("null", out);
    fputs(",\"summary\":", out);
    if (c->summary)
        write_summary(out, c->summary);
    else
        fputs("null", out);
    fputs("}\n", out);
    if (fclose(out) != 0) {
        free(text);
        return -1;
    }
    int rc = report_write(dir, c->id, REPORT_RESULT, text, len);
    free(text);
    return rc;
}
