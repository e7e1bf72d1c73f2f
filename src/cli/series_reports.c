#include "series_reports.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "report_dir.h"
#include "series_output.h"
#include "series.h"
#include "summary_cli.h"

/* The value and run in a report's file name: pattern's text around "$p",
 * then an optional "-runN", then the extension. Returns 0, or -1 when the
 * name does not fit. */
static int parse_name(const char *path, const char *pattern, char *value, size_t size, int *run)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[1024];
    snprintf(name, sizeof name, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot)
        *dot = '\0';
    *run = 1;
    char *suffix = strstr(name, "-run");
    if (suffix) {
        char *end;
        long n = strtol(suffix + 4, &end, 10);
        if (suffix[4] && !*end && n > 0 && n < 100000) {
            *run = (int)n;
            *suffix = '\0';
        }
    }
    const char *p = strstr(pattern, "$p");
    size_t before = (size_t)(p - pattern), after = strlen(p + 2), len = strlen(name);
    if (len <= before + after || strncmp(name, pattern, before) != 0 ||
        strcmp(name + len - after, p + 2) != 0)
        return -1;
    snprintf(value, size, "%.*s", (int)(len - before - after), name + before);
    return 0;
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
    if (list_reports(dir, &paths, &n) != 0 || n == 0) {
        fprintf(stderr, "nsys-perfetto summary: %s: %s\n", dir,
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
    for (size_t i = 0; i < n && status == NSYSP_OK; i++) {
        char value[1024];
        int run = 1;
        if (n_labels) {
            snprintf(value, sizeof value, "%s", labels[i]);
            for (size_t k = 0; k < done; k++) /* the label's next run */
                run += strcmp(values[runs[k].value], value) == 0;
        } else if (parse_name(paths[i], pattern, value, sizeof value, &run) != 0) {
            fprintf(stderr, "nsys-perfetto summary: %s: the name does not fit '%s' (use -o "
                            "PATTERN or --label)\n", paths[i], pattern);
            status = NSYSP_ERR_USAGE;
            break;
        }
        status = summarize_report(paths[i], matches, n_matches, &sums[done]);
        if (status != NSYSP_OK) {
            if (sums[done].message[0])
                fprintf(stderr, "nsys-perfetto summary: %s\n", sums[done].message);
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
