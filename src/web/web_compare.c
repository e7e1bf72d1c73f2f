#include "web_compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff_model.h"
#include "tool/diff_output.h"
#include "web_reports.h"

enum { GATE_PCT_DEFAULT = 5 };

/* One field of a summary row, made safe for a tab-separated line. */
static void tsv_field(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int web_summary_write(const char *dir, const char *id, const nsysp_summary *summary)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return -1;
    for (size_t i = 0; i < summary->n_rows; i++) {
        const nsysp_summary_row *row = &summary->rows[i];
        tsv_field(out, row->category);
        fputc('\t', out);
        tsv_field(out, row->name);
        fprintf(out, "\t%llu\t%lld\t%lld\t%lld\n", (unsigned long long)row->count,
                (long long)row->total_ns, (long long)row->min_ns, (long long)row->max_ns);
    }
    if (fclose(out) != 0) {
        free(text);
        return -1;
    }
    int rc = report_write(dir, id, REPORT_SUMMARY, text, len);
    free(text);
    return rc;
}

/* A summary read back: its rows own their names and categories. */
typedef struct stored_summary {
    nsysp_summary sum;
    char **categories;
} stored_summary;

static void stored_free(stored_summary *s)
{
    for (size_t i = 0; i < s->sum.n_rows; i++) {
        free(s->sum.rows[i].name);
        free(s->categories[i]);
    }
    free(s->sum.rows);
    free(s->categories);
    memset(s, 0, sizeof *s);
}

/* Parses "category\tname\tcount\ttotal\tmin\tmax" into row; false when
 * the line is not one. */
static bool parse_row(char *line, nsysp_summary_row *row, char **category)
{
    char *fields[6];
    size_t n = 0;
    for (char *p = line; n < 6; n++) {
        fields[n] = p;
        char *tab = strchr(p, '\t');
        if (!tab) {
            n++;
            break;
        }
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 6)
        return false;
    *category = strdup(fields[0]);
    row->name = strdup(fields[1]);
    row->count = strtoull(fields[2], NULL, 10);
    row->total_ns = strtoll(fields[3], NULL, 10);
    row->min_ns = strtoll(fields[4], NULL, 10);
    row->max_ns = strtoll(fields[5], NULL, 10);
    row->category = *category;
    return *category && row->name;
}

static int stored_read(const char *dir, const char *id, stored_summary *s)
{
    memset(s, 0, sizeof *s);
    char path[4096];
    FILE *f = report_path(path, sizeof path, dir, id, REPORT_SUMMARY) == 0 ? fopen(path, "r")
                                                                           : NULL;
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0, room = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (s->sum.n_rows == room) {
            room = room ? 2 * room : 256;
            nsysp_summary_row *rows = realloc(s->sum.rows, room * sizeof *rows);
            char **categories = realloc(s->categories, room * sizeof *categories);
            if (rows)
                s->sum.rows = rows;
            if (categories)
                s->categories = categories;
            if (!rows || !categories)
                break;
        }
        nsysp_summary_row row = {0};
        char *category = NULL;
        if (parse_row(line, &row, &category)) {
            s->categories[s->sum.n_rows] = category;
            s->sum.rows[s->sum.n_rows++] = row;
        } else {
            free(row.name);
            free(category);
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* The gate of ?gate=PCT, or the default. */
static double gate_of(struct MHD_Connection *c)
{
    const char *text = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "gate");
    char *end;
    double gate = text ? strtod(text, &end) : GATE_PCT_DEFAULT;
    return text && (*end || end == text || !(gate >= 0 && gate <= 1000)) ? -1 : gate;
}

enum MHD_Result web_api_compare(web_server *srv, struct MHD_Connection *c)
{
    const char *ids[2] = {MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "before"),
                          MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after")};
    double gate = gate_of(c);
    if (!ids[0] || !ids[1] || !report_id_valid(ids[0]) || !report_id_valid(ids[1]) || gate < 0)
        return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
                               "expected ?before=ID&after=ID (and optionally &gate=PCT)");
    stored_summary stored[2];
    diff_run runs[2];
    diff_side sides[2];
    char names[2][256];
    int missing = 0;
    for (int i = 0; i < 2; i++) {
        missing += stored_read(srv->dir, ids[i], &stored[i]) < 0;
        report_read(srv->dir, ids[i], REPORT_NAME, names[i], sizeof names[i]);
        memset(&runs[i], 0, sizeof runs[i]);
        runs[i].path = names[i];
        runs[i].sum = stored[i].sum;
        runs[i].measures.session_ns = runs[i].measures.gpu_span_ns = -1; /* not stored */
        sides[i] = (diff_side){.label = names[i], .runs = &runs[i], .n_runs = 1};
    }
    enum MHD_Result ok;
    if (missing) {
        ok = web_reply_error(c, MHD_HTTP_NOT_FOUND, "no such converted report");
    } else {
        diff_result result;
        diff_compare(&sides[0], &sides[1], gate, NULL, &result);
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        diff_print_options print = {.format = DIFF_JSON};
        if (out) {
            diff_print(out, &result, &sides[0], &sides[1], NULL, &print, true);
            fputc('\n', out);
        }
        ok = out && fclose(out) == 0
                 ? web_reply(c, MHD_HTTP_OK, "application/json", text, len)
                 : web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        free(text);
        diff_result_free(&result);
    }
    stored_free(&stored[0]);
    stored_free(&stored[1]);
    return ok;
}
