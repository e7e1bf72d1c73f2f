#include "series_output.h"

#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series_chart.h"
#include "tool/text_out.h"

/* The categories charted, and how many names. */
static const char *const CHARTED[] = {"kernel", "api-gpu", "nvtx-gpu"};
enum { CHART_LINES = 8, TABLE_NAMES = 20 };

/* One name over the series: per value, its mean and minimum total over the
 * runs (a run without the name counts 0). */
typedef struct name_row {
    const char *category, *name;
    double *mean;
    int64_t *min;
    size_t *seen;            /* runs that had the name */
    double weight;           /* sum of the means: the largest go first */
} name_row;

typedef struct rows {
    name_row *rows;
    size_t n;
} rows;

static int by_key(const void *pa, const void *pb)
{
    const name_row *a = pa, *b = pb;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

static void *xcalloc_or_die(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

/* The rows of every run merged by (category, name), heaviest first. */
static int by_weight(const void *pa, const void *pb)
{
    const name_row *a = pa, *b = pb;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return by_key(pa, pb);
}

static void collect(const series *s, rows *r)
{
    size_t cap = 0, *runs = xcalloc_or_die(s->n_values, sizeof *runs);
    for (size_t i = 0; i < s->n_runs; i++) {
        cap += s->runs[i].summary->n_rows;
        runs[s->runs[i].value]++;
    }
    r->rows = xcalloc_or_die(cap, sizeof *r->rows);
    void *tree = NULL;
    for (size_t i = 0; i < s->n_runs; i++) {
        const series_run *run = &s->runs[i];
        for (size_t k = 0; k < run->summary->n_rows; k++) {
            const nsysp_summary_row *sr = &run->summary->rows[k];
            name_row *slot = &r->rows[r->n];
            slot->category = sr->category;
            slot->name = sr->name;
            name_row **found = tsearch(slot, &tree, by_key);
            if (!found)
                abort();
            name_row *row = *found;
            if (row == slot) {
                r->n++;
                row->mean = xcalloc_or_die(s->n_values, sizeof *row->mean);
                row->min = xcalloc_or_die(s->n_values, sizeof *row->min);
                row->seen = xcalloc_or_die(s->n_values, sizeof *row->seen);
            }
            size_t v = run->value;
            row->mean[v] += (double)sr->total_ns / (double)runs[v];
            row->min[v] = row->seen[v]++ == 0 || sr->total_ns < row->min[v] ? sr->total_ns
                                                                              : row->min[v];
        }
    }
    for (size_t i = 0; i < r->n; i++) {
        tdelete(&r->rows[i], &tree, by_key);
        for (size_t v = 0; v < s->n_values; v++) {
            if (r->rows[i].seen[v] < runs[v])
                r->rows[i].min[v] = 0;
            r->rows[i].weight += r->rows[i].mean[v];
        }
    }
    qsort(r->rows, r->n, sizeof *r->rows, by_weight);
    free(runs);
}

static void free_rows(rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].mean);
        free(r->rows[i].min);
        free(r->rows[i].seen);
    }
    free(r->rows);
}

static void write_csv(FILE *to, const series *s)
{
    fputs("category,name,value,run,count,total_ns,mean_ns,min_ns,max_ns\n", to);
    for (size_t i = 0; i < s->n_runs; i++) {
        const series_run *run = &s->runs[i];
        for (size_t k = 0; k < run->summary->n_rows; k++) {
            const nsysp_summary_row *r = &run->summary->rows[k];
            text_csv(to, r->category);
            fputc(',', to);
            text_csv(to, r->name);
            fputc(',', to);
            text_csv(to, s->values[run->value]);
            fprintf(to, ",%d,%llu,%lld,%lld,%lld,%lld\n", run->run, (unsigned long long)r->count,
                    (long long)r->total_ns, (long long)(r->total_ns / (int64_t)r->count),
                    (long long)r->min_ns, (long long)r->max_ns);
        }
    }
}

static void write_md(FILE *to, const series *s, const rows *r)
{
    size_t most = 0, *runs = xcalloc_or_die(s->n_values, sizeof *runs);
    for (size_t i = 0; i < s->n_runs; i++)
        most = ++runs[s->runs[i].value] > most ? runs[s->runs[i].value] : most;
    fputs("# Series over ", to);
    text_md(to, s->parameter);
    fputs("\n\nTotal time in ms per value of ", to);
    text_md(to, s->parameter);
    fputs(": the mean over runs", to);
    fputs(most > 1 ? " (and the fastest run's)" : "", to);
    fprintf(to, "; the %d largest names of each category (all of them are in series.csv).\n\n",
            TABLE_NAMES);
    fputs("| category | name |", to);
    for (size_t v = 0; v < s->n_values; v++) {
        fputc(' ', to);
        text_md(to, s->values[v]);
        fprintf(to, " (%zu run%s) |", runs[v], runs[v] == 1 ? "" : "s");
    }
    fputs("\n|---|---|", to);
    for (size_t v = 0; v < s->n_values; v++)
        fputs("---:|", to);
    fputc('\n', to);
    /* Categories in the library's order: as they first come in the runs. */
    const char *cats[32];
    size_t n_cats = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        for (size_t k = 0; k < s->runs[i].summary->n_rows; k++) {
            const char *cat = s->runs[i].summary->rows[k].category;
            size_t c = 0;
            while (c < n_cats && strcmp(cats[c], cat) != 0)
                c++;
            if (c == n_cats && n_cats < sizeof cats / sizeof *cats)
                cats[n_cats++] = cat;
        }
    for (size_t c = 0; c < n_cats; c++) {
        int listed = 0;
        for (size_t n = 0; n < r->n && listed < TABLE_NAMES; n++) {
            const name_row *row = &r->rows[n];
            if (strcmp(row->category, cats[c]) != 0)
                continue;
            listed++;
            fprintf(to, "| %s | ", row->category);
            text_md(to, row->name);
            fputs(" |", to);
            for (size_t v = 0; v < s->n_values; v++) {
                if (!runs[v])
                    fputs(" - |", to);
                else if (runs[v] > 1)
                    fprintf(to, " %.3f (%.3f) |", row->mean[v] / 1e6, (double)row->min[v] / 1e6);
                else
                    fprintf(to, " %.3f |", row->mean[v] / 1e6);
            }
            fputc('\n', to);
        }
    }
    free(runs);
}

static bool is_charted(const char *category)
{
    for (size_t c = 0; c < sizeof CHARTED / sizeof *CHARTED; c++)
        if (strcmp(category, CHARTED[c]) == 0)
            return true;
    return false;
}

static void write_svg(FILE *to, const series *s, const rows *r)
{
    chart_line lines[CHART_LINES];
    char labels[CHART_LINES][256];
    double *ys = xcalloc_or_die(CHART_LINES * s->n_values, sizeof *ys);
    size_t n = 0, *runs = xcalloc_or_die(s->n_values, sizeof *runs);
    for (size_t i = 0; i < s->n_runs; i++)
        runs[s->runs[i].value]++;
    /* The GPU side's largest names; a series without GPU work (CPU only)
     * charts its largest names of any category instead. */
    bool gpu = false;
    for (size_t i = 0; i < r->n && !gpu; i++)
        gpu = is_charted(r->rows[i].category);
    for (size_t i = 0; i < r->n && n < CHART_LINES; i++) {
        if (gpu && !is_charted(r->rows[i].category))
            continue;
        snprintf(labels[n], sizeof labels[n], "%s: %s", r->rows[i].category, r->rows[i].name);
        for (size_t v = 0; v < s->n_values; v++)
            ys[n * s->n_values + v] = runs[v] ? r->rows[i].mean[v] : NAN;
        lines[n] = (chart_line){labels[n], &ys[n * s->n_values]};
        n++;
    }
    char title[256];
    snprintf(title, sizeof title, "%s against %s (mean over runs; the %s)",
             gpu ? "GPU time" : "Time", s->parameter,
             gpu ? "largest kernels, API calls and NVTX ranges" : "largest names");
    chart_svg(to, title, s->parameter, s->values, s->n_values, lines, n);
    free(ys);
    free(runs);
}

/* Writes one file through a temporary name, renamed once complete. */
static int write_file(const char *dir, const char *name, const series *s, const rows *r,
                      void (*write)(FILE *, const series *, const rows *))
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "w");
    if (f) {
        write(f, s, r);
        if (fclose(f) == 0 && rename(tmp, path) == 0)
            return 0;
    }
    fprintf(stderr, "nsys-perfetto: %s: cannot write: %s\n", path, strerror(errno));
    remove(tmp);
    return -1;
}

static void csv_of(FILE *to, const series *s, const rows *r)
{
    (void)r;
    write_csv(to, s);
}

int series_write(const char *dir, const series *s)
{
    rows r = {0};
    collect(s, &r);
    int rc = write_file(dir, "series.csv", s, &r, csv_of);
    if (rc == 0)
        rc = write_file(dir, "series.md", s, &r, write_md);
    if (rc == 0)
        rc = write_file(dir, "series.svg", s, &r, write_svg);
    free_rows(&r);
    return rc;
}
