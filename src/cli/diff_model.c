/* nsys-perfetto diff: the comparison, name by name (see diff_model.h and,
 * for the rule and why, docs/diff.md). */
#include "diff_model.h"

#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

static const char *const STATUS_NAMES[DIFF_STATUSES] = {
    "unchanged", "regression", "improvement", "inconclusive", "added", "removed"};

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

/* One name on one side from its per-run rows (NULL: not in that run). */
static diff_stat stat_of(const nsysp_summary_row *const *rows, size_t n)
{
    diff_stat s = {0};
    int64_t totals[DIFF_MAX_RUNS], counts[DIFF_MAX_RUNS], means[DIFF_MAX_RUNS];
    size_t n_means = 0;
    s.min_total_ns = INT64_MAX;
    s.max_total_ns = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const nsysp_summary_row *r = rows[i];
        totals[i] = r ? r->total_ns : 0;
        counts[i] = r ? (int64_t)r->count : 0;
        if (r && r->count)
            means[n_means++] = r->total_ns / (int64_t)r->count;
        s.present |= r != NULL;
        s.min_total_ns = totals[i] < s.min_total_ns ? totals[i] : s.min_total_ns;
        s.max_total_ns = totals[i] > s.max_total_ns ? totals[i] : s.max_total_ns;
    }
    s.total_ns = median(totals, n);
    s.count = median(counts, n);
    s.mean_ns = median(means, n_means);
    return s;
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
    return s;
}

/* The status of a row whose before and after are set: the gate on the
 * medians' difference, and with judged (two runs a side or more) the runs'
 * ranges apart (docs/diff.md). */
static void classify(diff_row *row, double gate, bool judged)
{
    const diff_stat *b = &row->before, *a = &row->after;
    int64_t bt = b->present ? b->total_ns : 0, at = a->present ? a->total_ns : 0;
    row->delta_ns = at - bt;
    row->delta_pct = bt ? 100.0 * (double)row->delta_ns / (double)bt : NAN;
    if (!b->present && a->present) {
        row->status = DIFF_ADDED;
        return;
    }
    if (b->present && !a->present) {
        row->status = DIFF_REMOVED;
        return;
    }
    bool past = bt ? fabs(row->delta_pct) > gate : row->delta_ns != 0;
    if (!past || !b->present)
        row->status = DIFF_UNCHANGED;
    else if (!judged)
        row->status = row->delta_ns > 0 ? DIFF_REGRESSION : DIFF_IMPROVEMENT;
    else if (row->delta_ns > 0)
        row->status = a->min_total_ns > b->max_total_ns ? DIFF_REGRESSION : DIFF_INCONCLUSIVE;
    else
        row->status = a->max_total_ns < b->min_total_ns ? DIFF_IMPROVEMENT : DIFF_INCONCLUSIVE;
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

/* Largest changes first (added and removed by their whole time), then by
 * category and name. */
static int by_change(const void *pa, const void *pb)
{
    const diff_row *a = pa, *b = pb;
    int64_t da = llabs(a->delta_ns), db = llabs(b->delta_ns);
    if (da != db)
        return da > db ? -1 : 1;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

static diff_row *compare_rows(const diff_side *before, const diff_side *after, double gate,
                              bool judged,
                              const nsysp_summary_row *(*rows_of)(const diff_run *, size_t *),
                              size_t *n_out)
{
    size_t n;
    merged *m = merge(before, after, rows_of, &n);
    diff_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        abort();
    for (size_t i = 0; i < n; i++) {
        rows[i].category = m[i].category;
        rows[i].name = m[i].name;
        rows[i].before = stat_of(m[i].per_run, before->n_runs);
        rows[i].after = stat_of(m[i].per_run + before->n_runs, after->n_runs);
        classify(&rows[i], gate, judged);
        free(m[i].per_run);
    }
    free(m);
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_change);
    *n_out = n;
    return rows;
}

/* A row of one value per run of each side (-1: unknown). */
static diff_row value_row(const char *category, const char *name, const int64_t *before,
                          size_t m, const int64_t *after, size_t n, double gate, bool judged)
{
    diff_row row = {.category = category, .name = name};
    row.before = stat_of_values(before, m);
    row.after = stat_of_values(after, n);
    if (!row.before.present && !row.after.present) {
        row.delta_pct = NAN;
        return row;
    }
    classify(&row, gate, judged);
    return row;
}

static void compare_gpus(const diff_side *before, const diff_side *after, diff_result *r,
                         bool judged)
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
        r->gpus[i] = value_row("gpu-busy", r->gpu_names[i], v[0], before->n_runs, v[1], after->n_runs,
                               r->gate_pct, judged);
    }
    r->n_gpus = n;
    free(devices);
}

static void compare_focus(const diff_side *before, const diff_side *after, const char *name,
                          diff_result *r, bool judged)
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
        free(all);
    }
    f->time.category = "focus";
    f->time.name = name;
    if (f->time.before.present || f->time.after.present)
        classify(&f->time, r->gate_pct, judged);
    else
        f->time.delta_pct = NAN;
    f->kernels = compare_rows(before, after, r->gate_pct, judged, focus_rows, &f->n_kernels);
    r->focus = f;
}

void diff_compare(const diff_side *before, const diff_side *after, double gate_pct,
                  const char *focus_name, diff_result *r)
{
    memset(r, 0, sizeof *r);
    r->gate_pct = gate_pct;
    r->runs_before = before->n_runs;
    r->runs_after = after->n_runs;
    r->noise_judged = before->n_runs >= 2 && after->n_runs >= 2;
    /* P(every after run above every before run) when both come from one
     * distribution: m! n! / (m + n)!. */
    double p = 1;
    for (size_t i = 1; i <= after->n_runs; i++)
        p *= (double)i / (double)(before->n_runs + i);
    r->noise_p = p;
    bool judged = r->noise_judged;
    r->rows = compare_rows(before, after, gate_pct, judged, summary_rows, &r->n_rows);
    for (size_t i = 0; i < r->n_rows; i++)
        r->counts[r->rows[i].status]++;

    int64_t v[2][DIFF_MAX_RUNS], w[2][DIFF_MAX_RUNS];
    for (size_t side = 0; side < 2; side++) {
        const diff_side *s = side ? after : before;
        for (size_t k = 0; k < s->n_runs; k++) {
            v[side][k] = s->runs[k].measures.session_ns;
            w[side][k] = s->runs[k].measures.gpu_span_ns;
        }
    }
    r->session = value_row("span", "session", v[0], before->n_runs, v[1], after->n_runs,
                           gate_pct, judged);
    r->gpu_span = value_row("span", "GPU work", w[0], before->n_runs, w[1], after->n_runs,
                            gate_pct, judged);
    compare_gpus(before, after, r, judged);
    if (focus_name)
        compare_focus(before, after, focus_name, r, judged);
    r->fail = r->counts[DIFF_REGRESSION] > 0 ||
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
