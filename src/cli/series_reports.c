#include "series_reports.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "tool/report_dir.h"
#include "series_output.h"
#include "series.h"
#include "tool/report_summary.h"
#include "tool/text_out.h"

/* A report's file name without its directory and extension. */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    snprintf(out, size, "%s", base ? base + 1 : path);
    char *dot = strrchr(out, '.');
    if (dot)
        *dot = '\0';
}

/* A "-runN" at the end of stem, as series --runs appends: cut off, N into
 * *run. false when there is none. */
static bool cut_run(char *stem, int *run)
{
    char *suffix = strrchr(stem, '-');
    if (!suffix || strncmp(suffix, "-run", 4) != 0 || !suffix[4] ||
        strspn(suffix + 4, "0123456789") != strlen(suffix + 4) || strlen(suffix + 4) > 5)
        return false;
    *run = atoi(suffix + 4);
    if (*run < 1)
        return false;
    *suffix = '\0';
    return true;
}

/* The value in stem, which must be pattern with each "$p" replaced by the
 * same value (series -o 'x$p$p' writes "x11" for 1). 0, or -1 when it is
 * not. */
static int value_of(const char *stem, const char *pattern, char *value, size_t size)
{
    size_t marks = 0, literal = 0;
    for (const char *p = pattern; *p; p++)
        if (p[0] == '$' && p[1] == 'p') {
            marks++;
            p++;
        } else {
            literal++;
        }
    size_t len = strlen(stem);
    if (!marks || len <= literal || (len - literal) % marks)
        return -1;
    size_t n = (len - literal) / marks, first = (size_t)(strstr(pattern, "$p") - pattern);
    if (n >= size)
        return -1;
    memcpy(value, stem + first, n);
    value[n] = '\0';
    char *expanded = malloc(len + 1);
    if (!expanded)
        abort();
    series_expand(pattern, value, expanded, len + 1);
    int fits = strcmp(expanded, stem) == 0 ? 0 : -1;
    free(expanded);
    return fits;
}

/* Whether the directory holds the runs of series --runs N: every name ends
 * in "-runN" and fits the pattern without it. (A series of one run each
 * whose values all end in "-runN" reads the same; nothing tells them
 * apart.) */
static bool named_with_runs(char **paths, size_t n, const char *pattern)
{
    for (size_t i = 0; i < n; i++) {
        char stem[1024], value[1024];
        int run;
        stem_of(paths[i], stem, sizeof stem);
        if (!cut_run(stem, &run) || value_of(stem, pattern, value, sizeof value) != 0)
            return false;
    }
    return n > 0;
}

/* The value and run in a report's file name: pattern's text around each
 * "$p", then "-runN" when with_runs, then the extension. 0, or -1 when the
 * name does not fit. */
static int parse_name(const char *path, const char *pattern, bool with_runs, char *value,
                      size_t size, int *run)
{
    char stem[1024];
    stem_of(path, stem, sizeof stem);
    *run = 1;
    if (with_runs && !cut_run(stem, run))
        return -1;
    return value_of(stem, pattern, value, size);
}

/* The index of value in values, added when new. */
static size_t value_index(char **values, size_t *n, const char *value)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(values[i], value) == 0)
            return i;
    values[*n] = strdup(value);
    return (*n)++;
}

int series_from_reports(const char *dir, const char *pattern, const char *const *labels,
                        size_t n_labels, const char *const *matches, size_t n_matches)
{
    char **paths;
    size_t n;
    if (!strstr(pattern, "$p")) {
        fprintf(stderr, "nsys-perfetto summary: -o: expected a name with $p, got '%s'\n",
                pattern);
        return NSYSP_ERR_USAGE;
    }
    if (list_reports("nsys-perfetto summary", dir, &paths, &n) != 0 || n == 0) {
        text_printf(stderr, "nsys-perfetto summary: %s: %s\n", dir,
                n == 0 && paths ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                : strerror(errno));
        free_reports(paths, paths ? n : 0);
        return NSYSP_ERR_INPUT_OPEN;
    }
    if (n_labels && n_labels != n) {
        fprintf(stderr, "nsys-perfetto summary: %s has %zu reports but %zu --label given\n", dir,
                n, n_labels);
        free_reports(paths, n);
        return NSYSP_ERR_USAGE;
    }
    char **values = calloc(n, sizeof *values);
    nsysp_summary *sums = calloc(n, sizeof *sums);
    series_run *runs = calloc(n, sizeof *runs);
    if (!values || !sums || !runs)
        abort();
    size_t n_values = 0, done = 0;
    int status = NSYSP_OK;
    bool with_runs = !n_labels && named_with_runs(paths, n, pattern);
    for (size_t i = 0; i < n && status == NSYSP_OK; i++) {
        char value[1024];
        int run = 1;
        if (n_labels) {
            snprintf(value, sizeof value, "%s", labels[i]);
            for (size_t k = 0; k < done; k++) /* the label's next run */
                run += strcmp(values[runs[k].value], value) == 0;
        } else if (parse_name(paths[i], pattern, with_runs, value, sizeof value, &run) != 0) {
            text_printf(stderr, "nsys-perfetto summary: %s: the name does not fit '%s' (use -o "
                            "PATTERN or --label)\n", paths[i], pattern);
            status = NSYSP_ERR_USAGE;
            break;
        }
        status = summarize_report(paths[i], matches, n_matches, &sums[done]);
        if (status != NSYSP_OK) {
            if (sums[done].message[0])
                text_printf(stderr, "nsys-perfetto summary: %s\n", sums[done].message);
            break;
        }
        runs[done] = (series_run){value_index(values, &n_values, value), run, &sums[done]};
        done++;
    }
    if (status == NSYSP_OK) {
        char parameter[256];
        series_parameter(pattern, parameter, sizeof parameter);
        series s = {parameter, (const char *const *)values, n_values, runs, done};
        if (series_write(dir, &s) != 0)
            status = NSYSP_ERR_OUTPUT;
        else
            fprintf(stderr, "nsys-perfetto summary: wrote %s/series.csv, series.md and "
                            "series.svg\n", dir);
    }
    for (size_t i = 0; i < done; i++)
        nsysp_summary_free(&sums[i]);
    for (size_t i = 0; i < n_values; i++)
        free(values[i]);
    free(values);
    free(sums);
    free(runs);
    free_reports(paths, n);
    return status;
}
