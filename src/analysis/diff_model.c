/* nsys-perfetto diff: the comparison, name by name (see diff_model.h and,
 * for the rule and why, docs/diff.md). */
#include "diff_model.h"

#include <ctype.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

static const char *const STATUS_NAMES[DIFF_STATUSES] = {
    "unchanged", "regression", "improvement", "inconclusive", "added", "removed", "small"};

const char *diff_status_name(diff_status s)
{
    return STATUS_NAMES[s];
}

static int by_value(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The median of v[0..n) (the mean of the middle two when n is even);
 * sorts v. */
static int64_t median(int64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* The nearest-rank 90th percentile of sorted v[0..n). */
static int64_t p90(const int64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)ceil(0.9 * (double)n);
    return v[rank ? rank - 1 : 0];
}

/* One name on one side from its per-run rows (NULL: not in that run);
 * steps[i] is run i's steps, NULL to compare per call (the mean, over the
 * runs that have the name). */
static diff_stat stat_of(const nsysp_summary_row *const *rows, size_t n, const int64_t *steps)
{
    diff_stat s = {0};
    int64_t totals[DIFF_MAX_RUNS], counts[DIFF_MAX_RUNS], means[DIFF_MAX_RUNS],
        units[DIFF_MAX_RUNS];
    size_t n_means = 0, n_units = 0;
    s.min_total_ns = s.min_unit_ns = INT64_MAX;
    s.max_total_ns = s.max_unit_ns = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const nsysp_summary_row *r = rows[i];
        totals[i] = r ? r->total_ns : 0;
        counts[i] = r ? (int64_t)r->count : 0;
        if (r && r->count)
            means[n_means++] = r->total_ns / (int64_t)r->count;
        if (steps)
            units[n_units++] = totals[i] / steps[i];
        else if (r && r->count)
            units[n_units++] = means[n_means - 1];
        s.present |= r != NULL;
        s.min_total_ns = totals[i] < s.min_total_ns ? totals[i] : s.min_total_ns;
        s.max_total_ns = totals[i] > s.max_total_ns ? totals[i] : s.max_total_ns;
    }
    for (size_t i = 0; i < n_units; i++) {
        s.min_unit_ns = units[i] < s.min_unit_ns ? units[i] : s.min_unit_ns;
        s.max_unit_ns = units[i] > s.max_unit_ns ? units[i] : s.max_unit_ns;
    }
    if (!n_units)
        s.min_unit_ns = s.max_unit_ns = 0;
    s.total_ns = median(totals, n);
    s.count = median(counts, n);
    s.mean_ns = median(means, n_means);
    s.unit_ns = median(units, n_units);
    return s;
}

/* A stat compared as it is (its total is the unit): spans, busy times,
 * the focus range's median instance. */
static void unit_is_total(diff_stat *s)
{
    s->unit_ns = s->total_ns;
    s->min_unit_ns = s->min_total_ns;
    s->max_unit_ns = s->max_total_ns;
}

/* A stat of one value per run (value < 0: unknown in that run). */
static diff_stat stat_of_values(const int64_t *values, size_t n)
{
    diff_stat s = {0};
    int64_t known[DIFF_MAX_RUNS];
    size_t k = 0;
    s.min_total_ns = INT64_MAX;
    s.max_total_ns = INT64_MIN;
    for (size_t i = 0; i < n; i++)
        if (values[i] >= 0) {
            known[k++] = values[i];
            s.min_total_ns = values[i] < s.min_total_ns ? values[i] : s.min_total_ns;
            s.max_total_ns = values[i] > s.max_total_ns ? values[i] : s.max_total_ns;
        }
    s.present = k > 0;
    s.total_ns = s.present ? median(known, k) : -1;
    s.count = (int64_t)k;
    s.mean_ns = s.total_ns;
    if (!s.present)
        s.min_total_ns = s.max_total_ns = -1;
    unit_is_total(&s);
    return s;
}

/* The change of a row at before's amount of work: the per-unit change
 * times before's units (steps, or calls); an added name's time scaled to
 * before's steps, a removed name's whole time. */
static void set_change(diff_row *row, const diff_basis *basis)
{
    const diff_stat *b = &row->before, *a = &row->after;
    int64_t bt = b->present ? b->total_ns : 0, at = a->present ? a->total_ns : 0;
    row->total_delta_ns = at - bt;
    row->total_delta_pct = bt ? 100.0 * (double)row->total_delta_ns / (double)bt : NAN;
    bool per_step = basis && basis->unit == DIFF_PER_STEP;
    if (!b->present) {
        row->delta_ns = per_step ? (int64_t)((double)at * (double)basis->steps_before /
                                             (double)basis->steps_after)
                                 : at;
        row->delta_pct = NAN;
        return;
    }
    if (!a->present) {
        row->delta_ns = -bt;
        row->delta_pct = -100;
        return;
    }
    int64_t du = a->unit_ns - b->unit_ns;
    double units = !basis ? 1 : per_step ? (double)basis->steps_before : (double)b->count;
    row->delta_ns = (int64_t)((double)du * units);
    row->delta_pct = b->unit_ns ? 100.0 * (double)du / (double)b->unit_ns : NAN;
}

bool diff_category_cpu_timed(const char *category)
{
    return strcmp(category, "cuda-api") == 0 || strcmp(category, "library") == 0 ||
           strcmp(category, "nvtx") == 0 || strcmp(category, "span") == 0;
}

/* The status of a row whose before and after and change are set: the gate
 * on the per-unit change, the effect floor, then the noise: the runs'
 * ranges apart (two runs a side or more), else the single-run gate
 * (docs/diff.md). */
static void classify(diff_row *row, const diff_rule *rule)
{
    const diff_stat *b = &row->before, *a = &row->after;
    row->share_pct = rule->whole_ns > 0
                         ? 100.0 * (double)llabs(row->delta_ns) / (double)rule->whole_ns
                         : NAN;
    if (!b->present || !a->present) {
        row->status = b->present ? DIFF_REMOVED : DIFF_ADDED;
        return;
    }
    bool past = b->unit_ns ? fabs(row->delta_pct) > rule->gate_pct : a->unit_ns != 0;
    double single_gate = diff_category_cpu_timed(row->category) ? rule->single_gate_cpu_pct
                                                                : rule->single_gate_pct;
    bool slower = a->unit_ns > b->unit_ns;
    if (!past)
        row->status = DIFF_UNCHANGED;
    else if (row->share_pct < rule->min_effect_pct) /* false when unknown (NAN) */
        row->status = DIFF_SMALL;
    else if (rule->judged ? (slower ? a->min_unit_ns > b->max_unit_ns
                                    : a->max_unit_ns < b->min_unit_ns)
                          : !b->unit_ns || fabs(row->delta_pct) > single_gate)
        row->status = slower ? DIFF_REGRESSION : DIFF_IMPROVEMENT;
    else
        row->status = DIFF_INCONCLUSIVE;
}

/* ---- Names of every run of both sides, merged ----------------------- */

typedef struct merged {
    const char *category, *name;
    const nsysp_summary_row **per_run; /* before's runs, then after's */
} merged;

static int by_key(const void *pa, const void *pb)
{
    const merged *a = pa, *b = pb;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

/* rows_of(run, &n) gives a run's rows; returns the merged names. */
static merged *merge(const diff_side *before, const diff_side *after,
                     const nsysp_summary_row *(*rows_of)(const diff_run *, size_t *),
                     size_t *n_out)
{
    size_t runs = before->n_runs + after->n_runs, cap = 0, n = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t k;
        const diff_run *run = r < before->n_runs ? &before->runs[r]
                                                 : &after->runs[r - before->n_runs];
        rows_of(run, &k);
        cap += k;
    }
    merged *out = calloc(cap ? cap : 1, sizeof *out);
    void *tree = NULL;
    if (!out)
        abort();
    for (size_t r = 0; r < runs; r++) {
        size_t k;
        const diff_run *run = r < before->n_runs ? &before->runs[r]
                                                 : &after->runs[r - before->n_runs];
        const nsysp_summary_row *rows = rows_of(run, &k);
        for (size_t i = 0; i < k; i++) {
            out[n].category = rows[i].category;
            out[n].name = rows[i].name;
            merged **found = tsearch(&out[n], &tree, by_key);
            if (!found)
                abort();
            if (*found == &out[n]) {
                out[n].per_run = calloc(runs, sizeof *out[n].per_run);
                if (!out[n].per_run)
                    abort();
                n++;
            }
            (*found)->per_run[r] = &rows[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        tdelete(&out[i], &tree, by_key);
    *n_out = n;
    return out;
}

static const nsysp_summary_row *summary_rows(const diff_run *run, size_t *n)
{
    *n = run->sum.n_rows;
    return run->sum.rows;
}

static const nsysp_summary_row *focus_rows(const diff_run *run, size_t *n)
{
    *n = run->measures.n_focus_kernels;
    return run->measures.focus_kernels;
}

/* Whether a row's category can decide the verdict: not the ones that
 * count again, by range or by launching call, the GPU time that the kernel
 * and memory rows already judge (nvtx-gpu, nvtx-gpu-ops, api-gpu). They
 * show where a change is; counted twice they would double the chances of
 * a false alarm, and their attribution moves with the ranges' edges. */
bool diff_row_decides(const diff_row *row)
{
    return strcmp(row->category, "nvtx-gpu") != 0 && strcmp(row->category, "nvtx-gpu-ops") != 0
           && strcmp(row->category, "api-gpu") != 0;
}

/* GPU time itself (kernels, memory operations) before the CPU time and
 * the ranges that lead to it. */
static bool gpu_time(const char *category)
{
    return strcmp(category, "kernel") == 0 || strcmp(category, "memory") == 0;
}

/* 0: GPU time, 1: other rows that decide, 2: GPU time counted again. */
static int rank_of(const diff_row *row)
{
    return gpu_time(row->category) ? 0 : diff_row_decides(row) ? 1 : 2;
}

/* GPU time first and GPU time counted again last, then the largest
 * changes first (added and removed by their whole time), then by category
 * and name. */
static int by_change(const void *pa, const void *pb)
{
    const diff_row *a = pa, *b = pb;
    int ra = rank_of(a), rb = rank_of(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    int64_t da = llabs(a->delta_ns), db = llabs(b->delta_ns);
    if (da != db)
        return da > db ? -1 : 1;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

/* ---- Names that are one op under another id ------------------------- */

/* name with every run of digits (and 0x-prefixed hex) as one '#': the
 * same op under another id gives the same key. */
static char *id_free_key(const char *name)
{
    size_t n = strlen(name);
    char *key = malloc(n + 1), *k = key;
    if (!key)
        abort();
    for (const char *p = name; *p;) {
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
            for (p += 2; isxdigit((unsigned char)*p); p++)
                ;
            *k++ = '#';
        } else if (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)*p))
                p++;
            *k++ = '#';
        } else {
            *k++ = *p++;
        }
    }
    *k = '\0';
    return key;
}

typedef struct keyed {
    const char *category;
    char *key;
    diff_row *row;
} keyed;

static int by_category_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->key, b->key);
}

/* Marks added and removed rows that share their category and key with
 * another row: the same op under another id (a step number, an op id). */
static void mark_renamed(diff_row *rows, size_t n)
{
    keyed *k = calloc(n ? n : 1, sizeof *k);
    if (!k)
        abort();
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed){rows[i].category, id_free_key(rows[i].name), &rows[i]};
    qsort(k, n, sizeof *k, by_category_key);
    for (size_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && by_category_key(&k[i], &k[end]) == 0; end++)
            ;
        for (size_t j = i; end - i > 1 && j < end; j++)
            k[j].row->renamed = k[j].row->status == DIFF_ADDED || k[j].row->status == DIFF_REMOVED;
    }
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

/* ---- Rows ------------------------------------------------------------ */

/* Each run's steps (before's runs, then after's) when comparing per step. */
static const int64_t *steps_of(const diff_side *before, const diff_side *after,
                               const diff_basis *basis, int64_t *out)
{
    if (basis->unit != DIFF_PER_STEP)
        return NULL;
    for (size_t i = 0; i < before->n_runs + after->n_runs; i++) {
        const diff_run *run = i < before->n_runs ? &before->runs[i]
                                                 : &after->runs[i - before->n_runs];
        out[i] = (int64_t)run->measures.n_steps;
    }
    return out;
}

static diff_row *compare_rows(const diff_side *before, const diff_side *after,
                              const diff_rule *rule, const diff_basis *basis,
                              const nsysp_summary_row *(*rows_of)(const diff_run *, size_t *),
                              size_t *n_out)
{
    size_t n;
    merged *m = merge(before, after, rows_of, &n);
    int64_t steps_buf[2 * DIFF_MAX_RUNS];
    const int64_t *steps = steps_of(before, after, basis, steps_buf);
    diff_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        abort();
    for (size_t i = 0; i < n; i++) {
        rows[i].category = m[i].category;
        rows[i].name = m[i].name;
        rows[i].before = stat_of(m[i].per_run, before->n_runs, steps);
        rows[i].after = stat_of(m[i].per_run + before->n_runs, after->n_runs,
                                steps ? steps + before->n_runs : NULL);
        set_change(&rows[i], basis);
        classify(&rows[i], rule);
        free(m[i].per_run);
    }
    free(m);
    mark_renamed(rows, n);
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_change);
    *n_out = n;
    return rows;
}

/* A row of one value per run of each side (-1: unknown), compared as it
 * is: no effect floor. */
static diff_row value_row(const char *category, const char *name, const int64_t *before,
                          size_t m, const int64_t *after, size_t n, const diff_rule *rule)
{
    diff_row row = {.category = category, .name = name};
    row.before = stat_of_values(before, m);
    row.after = stat_of_values(after, n);
    if (!row.before.present && !row.after.present) {
        row.delta_pct = row.total_delta_pct = row.share_pct = NAN;
        return row;
    }
    diff_rule as_is = *rule;
    as_is.whole_ns = -1;
    set_change(&row, NULL);
    classify(&row, &as_is);
    return row;
}

static void compare_gpus(const diff_side *before, const diff_side *after, diff_result *r)
{
    int64_t *devices = NULL; /* every device of any run, each once */
    size_t n = 0, cap = 0;
    for (size_t side = 0; side < 2; side++) {
        const diff_side *s = side ? after : before;
        for (size_t k = 0; k < s->n_runs; k++)
            for (size_t g = 0; g < s->runs[k].measures.n_gpus; g++) {
                int64_t d = s->runs[k].measures.gpus[g].device;
                size_t i = 0;
                while (i < n && devices[i] != d)
                    i++;
                if (i < n)
                    continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 8;
                    devices = realloc(devices, cap * sizeof *devices);
                    if (!devices)
                        abort();
                }
                devices[n++] = d;
            }
    }
    if (n)
        qsort(devices, n, sizeof *devices, by_value);
    r->gpus = calloc(n ? n : 1, sizeof *r->gpus);
    if (!r->gpus)
        abort();
    r->gpu_names = calloc(n ? n : 1, sizeof *r->gpu_names);
    if (!r->gpu_names)
        abort();
    for (size_t i = 0; i < n; i++) {
        int64_t v[2][DIFF_MAX_RUNS];
        for (size_t side = 0; side < 2; side++) {
            const diff_side *s = side ? after : before;
            for (size_t k = 0; k < s->n_runs; k++) {
                v[side][k] = 0; /* a device a run did not use was idle */
                for (size_t g = 0; g < s->runs[k].measures.n_gpus; g++)
                    if (s->runs[k].measures.gpus[g].device == devices[i])
                        v[side][k] = s->runs[k].measures.gpus[g].busy_ns;
            }
        }
        snprintf(r->gpu_names[i], sizeof r->gpu_names[i], "GPU %lld", (long long)devices[i]);
        r->gpus[i] = value_row("gpu-busy", r->gpu_names[i], v[0], before->n_runs, v[1],
                               after->n_runs, &r->rule);
    }
    r->n_gpus = n;
    free(devices);
}

static void compare_focus(const diff_side *before, const diff_side *after, const char *name,
                          diff_result *r)
{
    diff_focus *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->name = name;
    int64_t medians[2][DIFF_MAX_RUNS];
    size_t *instances[2] = {&f->before_instances, &f->after_instances};
    int64_t *p90s[2] = {&f->before_p90_ns, &f->after_p90_ns};
    diff_stat *stats[2] = {&f->time.before, &f->time.after};
    for (size_t side = 0; side < 2; side++) {
        const diff_side *s = side ? after : before;
        size_t total = 0;
        for (size_t k = 0; k < s->n_runs; k++)
            total += s->runs[k].measures.n_focus;
        int64_t *all = malloc((total ? total : 1) * sizeof *all);
        if (!all)
            abort();
        total = 0;
        for (size_t k = 0; k < s->n_runs; k++) {
            const diff_run *run = &s->runs[k];
            if (!run->measures.n_focus) { /* the range is not in this run (focus_ns is NULL) */
                medians[side][k] = -1;
                continue;
            }
            memcpy(all + total, run->measures.focus_ns, run->measures.n_focus * sizeof *all);
            total += run->measures.n_focus;
            int64_t *copy = malloc(run->measures.n_focus * sizeof *copy);
            if (!copy)
                abort();
            memcpy(copy, run->measures.focus_ns, run->measures.n_focus * sizeof *copy);
            medians[side][k] = median(copy, run->measures.n_focus);
            free(copy);
        }
        /* The ranges of per-run medians; the median and p90 of all instances. */
        *stats[side] = stat_of_values(medians[side], s->n_runs);
        *instances[side] = total;
        if (total) {
            stats[side]->total_ns = median(all, total);
            *p90s[side] = p90(all, total);
        }
        stats[side]->mean_ns = *p90s[side];
        stats[side]->count = (int64_t)total;
        unit_is_total(stats[side]);
        free(all);
    }
    f->time.category = "focus";
    f->time.name = name;
    if (f->time.before.present || f->time.after.present) {
        diff_rule as_is = r->rule;
        as_is.whole_ns = -1;
        set_change(&f->time, NULL);
        classify(&f->time, &as_is);
    } else {
        f->time.delta_pct = f->time.total_delta_pct = f->time.share_pct = NAN;
    }
    f->kernels = compare_rows(before, after, &r->rule, &r->basis, focus_rows, &f->n_kernels);
    r->focus = f;
}

/* The median over a side's runs of value(run) (< 0: unknown in that run). */
static int64_t side_median(const diff_side *s, int64_t (*value)(const diff_run *))
{
    int64_t v[DIFF_MAX_RUNS];
    size_t n = 0;
    for (size_t k = 0; k < s->n_runs; k++)
        if ((v[n] = value(&s->runs[k])) >= 0)
            n++;
    return n ? median(v, n) : -1;
}

static int64_t run_busy(const diff_run *run)
{
    int64_t busy = 0;
    for (size_t g = 0; g < run->measures.n_gpus; g++)
        busy += run->measures.gpus[g].busy_ns;
    return busy > 0 ? busy : -1;
}

static int64_t run_session(const diff_run *run)
{
    return run->measures.session_ns > 0 ? run->measures.session_ns : -1;
}

static int64_t run_steps(const diff_run *run)
{
    return (int64_t)run->measures.n_steps;
}

/* Per step when every run of both sides has the same step, twice or more
 * (diff_agree_step made them agree where they could); else per call. */
static diff_basis basis_of(const diff_side *before, const diff_side *after)
{
    const nsysp_measures *first = &before->runs[0].measures;
    diff_basis b = {.unit = DIFF_PER_CALL};
    bool same = first->step_rule != NSYSP_STEP_NONE, twice = true, every = true, some = false;
    for (size_t i = 0; i < before->n_runs + after->n_runs; i++) {
        const nsysp_measures *m = i < before->n_runs ? &before->runs[i].measures
                                                     : &after->runs[i - before->n_runs].measures;
        same &= m->step_rule != NSYSP_STEP_NONE && strcmp(m->step_name, first->step_name) == 0;
        twice &= m->n_steps >= 2;
        every &= m->n_steps > 0;
        some |= m->n_steps > 0;
    }
    if (!same || !every) {
        b.why_not = first->step_rule == NSYSP_STEP_GIVEN
                        ? (some ? "the step range is not in every run"
                                : "the step range given is in no run")
                        : "no step range common to every run (ProfilerStep#N, or a top-level "
                          "range that is not an op, repeated)";
        return b;
    }
    if (!twice) {
        b.why_not = "the step range is not twice or more in every run";
        return b;
    }
    b.unit = DIFF_PER_STEP;
    b.rule = first->step_rule;
    b.step_name = first->step_name;
    b.steps_before = side_median(before, run_steps);
    b.steps_after = side_median(after, run_steps);
    return b;
}

/* How far apart two ratios may be before the step counts are said not to
 * follow the calls: a run that did fewer steps made fewer calls alike (40
 * -> 36 steps, every kernel 10% fewer calls), while a range that is not a
 * step was found 10 times in one run and 69 in another, every kernel at
 * 6,825 calls in both. */
#define STEP_CALLS_TOLERANCE 1.5

/* Each run's calls against the first run's (before's runs, then after's):
 * the median over the kernels run in every run of their calls' ratio. A
 * kernel added or removed does not count, so a change that splits one
 * kernel into three leaves the scale as the steps. False when no kernel ran
 * in every run. */
static bool kernel_calls_scale(const diff_side *before, const diff_side *after, double *scale)
{
    size_t n, runs = before->n_runs + after->n_runs;
    merged *m = merge(before, after, summary_rows, &n);
    int64_t *ratios = calloc(n ? n : 1, sizeof *ratios); /* in millionths */
    if (!ratios)
        abort();
    bool found = false;
    for (size_t r = 0; r < runs; r++) {
        size_t n_ratios = 0;
        for (size_t i = 0; i < n; i++) {
            bool everywhere = strcmp(m[i].category, "kernel") == 0;
            for (size_t k = 0; k < runs && everywhere; k++)
                everywhere = m[i].per_run[k] && m[i].per_run[k]->count > 0;
            if (everywhere)
                ratios[n_ratios++] = (int64_t)((double)m[i].per_run[r]->count /
                                               (double)m[i].per_run[0]->count * 1e6);
        }
        scale[r] = n_ratios ? (double)median(ratios, n_ratios) / 1e6 : 0;
        found = n_ratios > 0;
    }
    for (size_t i = 0; i < n; i++)
        free(m[i].per_run);
    free(m);
    free(ratios);
    return found;
}

/* Per step only when every run's steps moved as its calls did: else the
 * range found is not a step (a range that crosses others, found top-level
 * in some runs only), and dividing by its count would show every kernel
 * changed. Then per call, saying why. A step given is kept. */
static void check_steps_against_calls(const diff_side *before, const diff_side *after,
                                      diff_basis *b)
{
    if (b->unit != DIFF_PER_STEP || b->rule == NSYSP_STEP_GIVEN)
        return; /* a step given (--step, --focus) is the user's word */
    size_t runs = before->n_runs + after->n_runs;
    double scale[2 * DIFF_MAX_RUNS];
    if (!kernel_calls_scale(before, after, scale))
        return;
    double first = (double)before->runs[0].measures.n_steps;
    for (size_t r = 1; r < runs; r++) {
        const diff_run *run = r < before->n_runs ? &before->runs[r]
                                                 : &after->runs[r - before->n_runs];
        double steps = (double)run->measures.n_steps / first;
        if (steps / scale[r] <= STEP_CALLS_TOLERANCE && scale[r] / steps <= STEP_CALLS_TOLERANCE)
            continue;
        snprintf(b->why_not_text, sizeof b->why_not_text,
                 "the step range \"%.100s\" is not a step: found %zu times in %s and %zu in "
                 "%s, while the kernels' calls went x%.2f",
                 b->step_name, before->runs[0].measures.n_steps, before->runs[0].path,
                 run->measures.n_steps, run->path, scale[r]);
        b->unit = DIFF_PER_CALL;
        b->rule = NSYSP_STEP_NONE;
        b->why_not = b->why_not_text;
        b->step_name = NULL;
        b->steps_before = b->steps_after = 0;
        return;
    }
}

diff_rule diff_default_rule(double gate_pct)
{
    return (diff_rule){.gate_pct = gate_pct,
                       .min_effect_pct = DIFF_MIN_EFFECT_PCT,
                       .single_gate_pct = gate_pct > DIFF_SINGLE_RUN_PCT ? gate_pct
                                                                         : DIFF_SINGLE_RUN_PCT,
                       .single_gate_cpu_pct = gate_pct > DIFF_SINGLE_RUN_CPU_PCT
                                                  ? gate_pct : DIFF_SINGLE_RUN_CPU_PCT};
}

void diff_compare(const diff_side *before, const diff_side *after, double gate_pct,
                  const char *focus_name, diff_result *r)
{
    diff_rule rule = diff_default_rule(gate_pct);
    diff_compare_with(before, after, &rule, focus_name, r);
}

void diff_compare_with(const diff_side *before, const diff_side *after, const diff_rule *rule,
                       const char *focus_name, diff_result *r)
{
    memset(r, 0, sizeof *r);
    r->rule = *rule;
    r->gate_pct = rule->gate_pct;
    r->runs_before = before->n_runs;
    r->runs_after = after->n_runs;
    r->noise_judged = r->rule.judged = before->n_runs >= 2 && after->n_runs >= 2;
    r->rule.whole_ns = side_median(before, run_busy);
    if (r->rule.whole_ns < 0)
        r->rule.whole_ns = side_median(before, run_session);
    r->basis = basis_of(before, after);
    check_steps_against_calls(before, after, &r->basis);
    /* P(every after run above every before run) when both come from one
     * distribution: m! n! / (m + n)!. */
    double p = 1;
    for (size_t i = 1; i <= after->n_runs; i++)
        p *= (double)i / (double)(before->n_runs + i);
    r->noise_p = p;
    r->rows = compare_rows(before, after, &r->rule, &r->basis, summary_rows, &r->n_rows);
    for (size_t i = 0; i < r->n_rows; i++) {
        const diff_row *row = &r->rows[i];
        r->counts[row->status]++;
        r->n_deciding += row->status == DIFF_REGRESSION && diff_row_decides(row);
        r->n_renamed += row->renamed;
        r->n_minor += !row->renamed && (row->status == DIFF_ADDED || row->status == DIFF_REMOVED)
                      && row->share_pct < r->rule.min_effect_pct;
    }

    int64_t v[2][DIFF_MAX_RUNS], w[2][DIFF_MAX_RUNS];
    for (size_t side = 0; side < 2; side++) {
        const diff_side *s = side ? after : before;
        for (size_t k = 0; k < s->n_runs; k++) {
            v[side][k] = s->runs[k].measures.session_ns;
            w[side][k] = s->runs[k].measures.gpu_span_ns;
        }
    }
    r->session = value_row("span", "session", v[0], before->n_runs, v[1], after->n_runs,
                           &r->rule);
    r->gpu_span = value_row("span", "GPU work", w[0], before->n_runs, w[1], after->n_runs,
                            &r->rule);
    compare_gpus(before, after, r);
    if (focus_name)
        compare_focus(before, after, focus_name, r);
    r->fail = r->n_deciding > 0 ||
              (r->focus && r->focus->time.status == DIFF_REGRESSION);
}

void diff_result_free(diff_result *r)
{
    free(r->rows);
    free(r->gpus);
    free(r->gpu_names);
    if (r->focus)
        free(r->focus->kernels);
    free(r->focus);
    memset(r, 0, sizeof *r);
}
