/* nsys-perfetto diff: the data of each side (one report, or several runs
 * of one configuration) and their comparison, name by name, with the gate
 * and the noise rule of docs/diff.md. Loading a run is the tool layer's
 * (tool/diff_report.h), and so are the output formats (tool/diff_output.h). */
#ifndef NSYSP_ANALYSIS_DIFF_MODEL_H
#define NSYSP_ANALYSIS_DIFF_MODEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nsys_perfetto.h"

enum { DIFF_MAX_RUNS = 64 };

/* The rule's defaults, from the measurements in docs/diff.md: a change
 * smaller than this share of before's GPU busy time cannot fail a build
 * (--min-effect), and with one run a side a change must pass this too,
 * more than identical single runs moved. */
#define DIFF_MIN_EFFECT_PCT 0.5
#define DIFF_SINGLE_RUN_PCT 10.0
/* The same for names timed on the CPU (CUDA API and library calls, NVTX
 * ranges): scheduling moves them far more than the GPU moves its work
 * (real repeated captures on a shared machine moved them up to 42%). */
#define DIFF_SINGLE_RUN_CPU_PCT 50.0

/* Whether a category's times are the CPU's (its single-run gate is
 * DIFF_SINGLE_RUN_CPU_PCT). */
bool diff_category_cpu_timed(const char *category);

/* ---- One report (a run) ---------------------------------------------- */

typedef struct diff_run {
    char *path;                  /* as given (maybe a .nsys-rep) */
    char sqlite[4096];           /* the SQLite file read (an export for .nsys-rep) */
    char tmpdir[4096];           /* the export's directory, "" when none */
    nsysp_summary sum;
    nsysp_measures measures;     /* GPU busy, spans, --focus */
} diff_run;


/* ---- The comparison ---------------------------------------------------- */

typedef enum diff_status {
    DIFF_UNCHANGED,
    DIFF_REGRESSION,
    DIFF_IMPROVEMENT,
    DIFF_INCONCLUSIVE,
    DIFF_ADDED,
    DIFF_REMOVED,
    DIFF_SMALL,                  /* past the gate, but too small a share of the whole to matter */
    DIFF_STATUSES
} diff_status;

const char *diff_status_name(diff_status s);

/* What is compared: per step when both sides have the same step range
 * twice or more, else per call (the mean). */
typedef enum diff_unit { DIFF_PER_CALL, DIFF_PER_STEP } diff_unit;

typedef struct diff_basis {
    diff_unit unit;
    nsysp_step_rule rule;        /* per step: how the step was found */
    const char *step_name;       /* per step; NULL otherwise */
    int64_t steps_before, steps_after; /* medians over runs */
    const char *why_not;         /* per call: why not per step */
    char why_not_text[320];      /* where why_not points when it names figures */
} diff_basis;

/* The rule that turns a change into a status (docs/diff.md). */
typedef struct diff_rule {
    double gate_pct;             /* |per-unit change| past this, in % */
    double min_effect_pct;       /* and a change of at least this share of the whole */
    double single_gate_pct;      /* with one run a side: past this too, else inconclusive */
    double single_gate_cpu_pct;  /* the same for names timed on the CPU */
    bool judged;                 /* two runs a side or more: the runs' ranges apart too */
    int64_t whole_ns;            /* the whole (before's GPU busy time, else its session),
                                  * -1 unknown: no effect floor */
} diff_rule;

/* One name on one side, over its runs (a run without the name counts 0). */
typedef struct diff_stat {
    bool present;                /* in at least one run */
    int64_t count, total_ns, mean_ns; /* medians over runs (mean: over runs with it) */
    int64_t min_total_ns, max_total_ns; /* the range of per-run totals */
    int64_t unit_ns;             /* the compared value: median per step, or mean per call */
    int64_t min_unit_ns, max_unit_ns; /* its range over runs */
} diff_stat;

typedef struct diff_row {
    const char *category;        /* "kernel", ... ("focus" rows: "kernel") */
    const char *name;
    diff_stat before, after;
    int64_t delta_ns;            /* the change at before's amount of work: per-unit change
                                  * times before's units (added, removed: the whole time) */
    double delta_pct;            /* the per-unit change; NAN when before's is 0 */
    int64_t total_delta_ns;      /* after.total_ns - before.total_ns, for context */
    double total_delta_pct;      /* NAN when before.total_ns is 0 */
    double share_pct;            /* |delta_ns| in % of the whole; NAN when unknown */
    bool renamed;                /* added or removed, but the same op under another id */
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
    diff_rule rule;
    diff_basis basis;
    size_t n_renamed;            /* added and removed rows that are renamed */
    size_t n_minor;              /* added and removed rows below the effect floor */
    size_t n_deciding;           /* regressions of rows that decide (diff_row_decides) */
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

/* The step both sides share (every run measured with it), or NULL for
 * per call; re-measures runs whose found step differs from the others'.
 * Returns an nsysp_status. */
int diff_agree_step(diff_side *before, diff_side *after, const char *focus, const char *step);

/* Compares the sides (names already filtered when loaded) under rule
 * (judged and whole_ns are set here); focus_name is NULL without --focus. */
void diff_compare_with(const diff_side *before, const diff_side *after, const diff_rule *rule,
                       const char *focus_name, diff_result *out);
/* The same under the default rule with gate_pct as the gate. */
void diff_compare(const diff_side *before, const diff_side *after, double gate_pct,
                  const char *focus_name, diff_result *out);
/* The default rule with gate_pct as the gate. */
diff_rule diff_default_rule(double gate_pct);
void diff_result_free(diff_result *r);
/* Whether a row's regression fails the verdict (its category is not GPU
 * time counted again by range or by launching call). */
bool diff_row_decides(const diff_row *row);

#endif
