/* nsys-perfetto diff: the data of each side (one report, or several runs
 * of one configuration) and their comparison, name by name, with the gate
 * and the noise rule of docs/diff.md. The output formats are in
 * diff_output.c. */
#ifndef NSYSP_CLI_DIFF_MODEL_H
#define NSYSP_CLI_DIFF_MODEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nsys_perfetto.h"

enum { DIFF_MAX_RUNS = 64 };

/* ---- One report (a run) ---------------------------------------------- */

typedef struct diff_run {
    char *path;                  /* as given (maybe a .nsys-rep) */
    char sqlite[4096];           /* the SQLite file read (an export for .nsys-rep) */
    char tmpdir[4096];           /* the export's directory, "" when none */
    nsysp_summary sum;
    nsysp_measures measures;     /* GPU busy, spans, --focus */
} diff_run;

/* Reads one report: its summary (names matching any of match) and its
 * measures (focus may be NULL). A .nsys-rep is exported with nsys first,
 * and stays exported until diff_run_free. Returns an nsysp_status after
 * printing one line. The summaries' cancel flag stops it. */
int diff_run_load(diff_run *run, const char *path, const char *const *match, size_t n_match,
                  const char *focus);
void diff_run_free(diff_run *run);

/* ---- The comparison ---------------------------------------------------- */

typedef enum diff_status {
    DIFF_UNCHANGED,
    DIFF_REGRESSION,
    DIFF_IMPROVEMENT,
    DIFF_INCONCLUSIVE,
    DIFF_ADDED,
    DIFF_REMOVED,
    DIFF_STATUSES
} diff_status;

const char *diff_status_name(diff_status s);

/* One name on one side, over its runs (a run without the name counts 0). */
typedef struct diff_stat {
    bool present;                /* in at least one run */
    int64_t count, total_ns, mean_ns; /* medians over runs (mean: over runs with it) */
    int64_t min_total_ns, max_total_ns; /* the range of per-run totals */
} diff_stat;

typedef struct diff_row {
    const char *category;        /* "kernel", ... ("focus" rows: "kernel") */
    const char *name;
    diff_stat before, after;
    int64_t delta_ns;            /* after.total_ns - before.total_ns */
    double delta_pct;            /* NAN when before.total_ns is 0 */
    diff_status status;
} diff_row;

typedef struct diff_focus {
    const char *name;
    size_t before_instances, after_instances; /* over all runs */
    diff_row time;               /* total_ns: the median instance, mean_ns: p90 */
    int64_t before_p90_ns, after_p90_ns;
    diff_row *kernels;           /* launched inside its instances, changes first */
    size_t n_kernels;
} diff_focus;

typedef struct diff_result {
    double gate_pct;
    size_t runs_before, runs_after;
    bool noise_judged;           /* both sides have two runs or more */
    double noise_p;              /* one-sided p of ranges apart: 1 / C(m+n, m) */
    bool fail;                   /* a regression past the gate */
    size_t counts[DIFF_STATUSES];
    diff_row *rows;              /* largest changes first */
    size_t n_rows;
    diff_row session, gpu_span;  /* rows of category "span" (total_ns: -1 unknown) */
    diff_row *gpus;              /* category "gpu-busy", name "GPU N" */
    size_t n_gpus;
    char (*gpu_names)[32];
    diff_focus *focus;           /* NULL without --focus */
} diff_result;

typedef struct diff_side {
    const char *label;           /* what the user gave (a report or directory) */
    diff_run *runs;
    size_t n_runs;
} diff_side;

/* Compares the sides (names already filtered when loaded); focus_name is
 * NULL without --focus. */
void diff_compare(const diff_side *before, const diff_side *after, double gate_pct,
                  const char *focus_name, diff_result *out);
void diff_result_free(diff_result *r);

/* ---- Output (diff_output.c) ------------------------------------------- */

typedef enum diff_format { DIFF_TABLE, DIFF_MD, DIFF_CSV, DIFF_JSON } diff_format;

typedef struct diff_print_options {
    diff_format format;
    bool color;                  /* table only */
    size_t top;                  /* table and md: at most this many changed rows (0: all) */
    bool all;                    /* table and md: unchanged rows too */
} diff_print_options;

/* One comparison; value is the series value it belongs to (NULL for none).
 * For csv, header says whether to print the header line; for json, the
 * object is printed without a trailing newline. */
void diff_print(FILE *to, const diff_result *r, const diff_side *before, const diff_side *after,
                const char *value, const diff_print_options *o, bool header);

#endif
