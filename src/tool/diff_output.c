/* nsys-perfetto diff: the comparison as a terminal table, Markdown (a
 * pull-request comment), CSV and JSON (schema in docs/diff.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "diff_output.h"
#include "text_out.h"

/* ---- Values in words --------------------------------------------------- */

/* A duration with a unit people read: 950 ns, 12.3 us, 4.56 ms, 1.234 s. */
static const char *human(int64_t ns, bool sign, char *out, size_t size)
{
    const char *plus = sign && ns > 0 ? "+" : "";
    double v = (double)ns, a = fabs(v);
    if (a < 1e3)
        snprintf(out, size, "%s%lld ns", plus, (long long)ns);
    else if (a < 1e6)
        snprintf(out, size, "%s%.1f us", plus, v / 1e3);
    else if (a < 1e9)
        snprintf(out, size, "%s%.2f ms", plus, v / 1e6);
    else
        snprintf(out, size, "%s%.3f s", plus, v / 1e9);
    return out;
}

static const char *pct(double p, char *out, size_t size)
{
    if (isnan(p))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%+.1f%%", p);
    return out;
}

static const char *stat_text(const diff_stat *s, char *out, size_t size)
{
    return s->present ? human(s->total_ns, false, out, size) : (snprintf(out, size, "-"), out);
}

static const char *const COLORS[DIFF_STATUSES] = {"", "\033[31m", "\033[32m", "\033[33m",
                                                  "\033[36m", "\033[36m", ""};

static void side_text(const diff_side *s, char *out, size_t size)
{
    char label[200]; /* out is 256 */
    text_visible(s->label, label, sizeof label);
    snprintf(out, size, "%s (%zu run%s)", label, s->n_runs, s->n_runs == 1 ? "" : "s");
}

static void verdict_text(const diff_result *r, char *out, size_t size)
{
    size_t reg = r->n_deciding + (r->focus && r->focus->time.status == DIFF_REGRESSION);
    if (r->fail)
        snprintf(out, size, "FAIL: %zu regression%s past the %g%% gate", reg,
                 reg == 1 ? "" : "s", r->gate_pct);
    else
        snprintf(out, size, "PASS: no regression past the %g%% gate", r->gate_pct);
}

/* "a call" or "a step" */
static const char *unit_word(const diff_result *r)
{
    return r->basis.unit == DIFF_PER_STEP ? "a step" : "a call";
}

static const char *rule_words(nsysp_step_rule rule)
{
    switch (rule) {
    case NSYSP_STEP_GIVEN:
        return "the range given";
    case NSYSP_STEP_PROFILER:
        return "PyTorch profiler's ProfilerStep#N ranges";
    case NSYSP_STEP_REPEATED:
        return "the most repeated top-level range that is not an op";
    case NSYSP_STEP_NONE:
        break;
    }
    return "none";
}

/* What was compared: "per step: ..." or "per call (mean): ...". */
static void compared_text(const diff_result *r, char *out, size_t size)
{
    char name[160];
    if (r->basis.unit == DIFF_PER_STEP) {
        text_visible(r->basis.step_name, name, sizeof name);
        snprintf(out, size, "per step: NVTX range \"%s\" (%s), %lld -> %lld steps; totals as "
                            "context",
                 name, rule_words(r->basis.rule), (long long)r->basis.steps_before,
                 (long long)r->basis.steps_after);
    } else {
        snprintf(out, size, "per call (mean): %s; totals as context", r->basis.why_not);
    }
}

/* The whole a change is a share of. */
static const char *whole_words(const diff_result *r)
{
    return r->rule.whole_ns > 0 ? "of before's GPU busy time" : "(no GPU time: no floor)";
}

static void counts_text(const diff_result *r, char *out, size_t size)
{
    static const diff_status ORDER[] = {DIFF_REGRESSION, DIFF_IMPROVEMENT, DIFF_INCONCLUSIVE,
                                        DIFF_ADDED, DIFF_REMOVED, DIFF_SMALL, DIFF_UNCHANGED};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof ORDER / sizeof *ORDER && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%zu %s", i ? ", " : "",
                                 r->counts[ORDER[i]], diff_status_name(ORDER[i]));
}

static void noise_text(const diff_result *r, char *out, size_t size)
{
    if (r->noise_judged)
        snprintf(out, size, "%zu v %zu runs: a change past the gate and %g%% %s counts only "
                            "when the runs' ranges do not overlap (one-sided p = %.3g), else "
                            "inconclusive",
                 r->runs_before, r->runs_after, r->rule.min_effect_pct, whole_words(r),
                 r->noise_p);
    else
        snprintf(out, size, "not judged (%s): a change counts past %g%% (%g%% for times taken "
                            "on the CPU) and %g%% %s (identical single runs stay within these), "
                            "else inconclusive; profile each side 3 times to judge it",
                 r->runs_before == 1 && r->runs_after == 1 ? "one run per side"
                                                           : "one side has a single run",
                 r->rule.single_gate_pct, r->rule.single_gate_cpu_pct, r->rule.min_effect_pct,
                 whole_words(r));
}

/* "1.20 s -> 1.25 s (+4.2%)" */
static const char *change_text(const diff_row *row, char *out, size_t size)
{
    char b[32], a[32], p[32];
    snprintf(out, size, "%s -> %s (%s)", stat_text(&row->before, b, sizeof b),
             stat_text(&row->after, a, sizeof a), pct(row->delta_pct, p, sizeof p));
    return out;
}

/* A side's compared value: per step or per call. */
static const char *unit_text(const diff_stat *s, char *out, size_t size)
{
    return s->present ? human(s->unit_ns, false, out, size) : (snprintf(out, size, "-"), out);
}

/* "kernel gemm +41.4% a call (+10.52 ms, 1.9% of GPU time)" */
static void finding_text(const diff_result *r, const diff_row *row, char *out, size_t size)
{
    char name[120], p[32], d[32], share[48] = "";
    text_visible(row->name, name, sizeof name);
    if (!isnan(row->share_pct))
        snprintf(share, sizeof share, ", %.1f%% of GPU time", row->share_pct);
    snprintf(out, size, "%s %s %s %s %s (%s%s)", diff_status_name(row->status), row->category,
             name, pct(row->delta_pct, p, sizeof p), unit_word(r),
             human(row->delta_ns, true, d, sizeof d), share);
}

/* Whether a row is listed: a change that matters, not a renamed op. */
static bool shown(const diff_row *row, const diff_result *r, const diff_print_options *o)
{
    if (o->all)
        return true;
    if (row->status == DIFF_UNCHANGED || row->status == DIFF_SMALL || row->renamed)
        return false;
    bool appears = row->status == DIFF_ADDED || row->status == DIFF_REMOVED;
    return !appears || !(row->share_pct < r->rule.min_effect_pct);
}

/* What decides the verdict, up to three rows: the regressions, else the
 * inconclusive ones (profile more runs), each through line(). */
static void decided_by(const diff_result *r, void (*line)(FILE *, const char *, void *),
                       FILE *to, void *ctx)
{
    char text[512];
    diff_status want = r->n_deciding ? DIFF_REGRESSION : DIFF_INCONCLUSIVE;
    size_t listed = 0, of = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        of += r->rows[i].status == want && diff_row_decides(&r->rows[i]);
    for (size_t i = 0; i < r->n_rows && listed < 3; i++)
        if (r->rows[i].status == want && diff_row_decides(&r->rows[i])) {
            finding_text(r, &r->rows[i], text, sizeof text);
            line(to, text, ctx);
            listed++;
        }
    if (!listed) {
        snprintf(text, sizeof text, "no name moved past the %g%% gate by %g%% %s", r->gate_pct,
                 r->rule.min_effect_pct, whole_words(r));
        line(to, text, ctx);
    } else if (of > listed) {
        snprintf(text, sizeof text, "and %zu more, below", of - listed);
        line(to, text, ctx);
    }
    if (want == DIFF_INCONCLUSIVE && listed) {
        line(to, "(inconclusive: unknown, profile more runs)", ctx);
    }
}

/* "(not listed: 86 small, 40 added or removed under another id)" */
static void not_listed_text(const diff_result *r, char *out, size_t size)
{
    snprintf(out, size, "not listed: %zu small (past the gate, under %g%% %s), %zu added or "
                        "removed under another id, %zu added or removed under %g%%",
             r->counts[DIFF_SMALL], r->rule.min_effect_pct, whole_words(r), r->n_renamed,
             r->n_minor, r->rule.min_effect_pct);
}

/* ---- Terminal table ---------------------------------------------------- */

/* Above the rows that do not decide (diff_row_decides). */
static const char AGAIN[] = "-- where it shows: GPU time by range and by launching call "
                            "(counted again, does not decide) --";

static void table_rows(FILE *to, const diff_result *r, const diff_row *rows, size_t n,
                       const diff_print_options *o, const char *indent)
{
    int width = 4;
    size_t listed = 0, hidden = 0;
    for (size_t i = 0; i < n; i++)
        if (shown(&rows[i], r, o) && (!o->top || listed < o->top)) {
            int len = (int)text_width(rows[i].name);
            width = len > width ? (len < 60 ? len : 60) : width;
            listed++;
        }
    if (!listed) {
        fprintf(to, "%s(no change that matters)\n", indent);
        return;
    }
    size_t last = 0;
    bool step = r->basis.unit == DIFF_PER_STEP;
    fprintf(to, "%s%-12s %-12s %-*s %12s %12s %8s %12s %25s %15s\n", indent, "status",
            "category", width, "name", step ? "before/step" : "before/call",
            step ? "after/step" : "after/call", "%", "change", "total before -> after",
            "calls");
    listed = 0;
    for (size_t i = 0; i < n; i++) {
        const diff_row *row = &rows[i];
        if (!shown(row, r, o))
            continue;
        if (o->top && listed == o->top) {
            hidden++;
            continue;
        }
        if (!diff_row_decides(row) && (!listed || diff_row_decides(&rows[last])))
            fprintf(to, "%s%s\n", indent, AGAIN);
        listed++;
        last = i;
        char b[32], a[32], d[32], p[32], c[48], tb[32], ta[32], t[80];
        snprintf(c, sizeof c, "%lld -> %lld", (long long)row->before.count,
                 (long long)row->after.count);
        snprintf(t, sizeof t, "%s -> %s", stat_text(&row->before, tb, sizeof tb),
                 stat_text(&row->after, ta, sizeof ta));
        fprintf(to, "%s%s%-12s%s %-12s ", indent, o->color ? COLORS[row->status] : "",
                diff_status_name(row->status),
                o->color && *COLORS[row->status] ? "\033[0m" : "", row->category);
        text_cell(to, row->name, width);
        fprintf(to, " %12s %12s %8s %12s %25s %15s\n", unit_text(&row->before, b, sizeof b),
                unit_text(&row->after, a, sizeof a), pct(row->delta_pct, p, sizeof p),
                human(row->delta_ns, true, d, sizeof d), t, c);
    }
    if (hidden)
        fprintf(to, "%s(%zu more change%s: --top 0 lists all)\n", indent, hidden,
                hidden == 1 ? "" : "s");
}

static void table_line(FILE *to, const char *text, void *ctx)
{
    fprintf(to, "%s%s\n", (const char *)ctx, text);
}

static void print_table(FILE *to, const diff_result *r, const diff_side *before,
                        const diff_side *after, const char *value, const diff_print_options *o)
{
    char line[1024], x[256];
    verdict_text(r, line, sizeof line);
    if (value) {
        fputs("== ", to);
        text_cell(to, value, (int)text_width(value));
        fputs(" ==\n", to);
    }
    fprintf(to, "nsys-perfetto diff: %s%s%s\n", o->color ? (r->fail ? "\033[1;31m" : "\033[1;32m") : "",
            line, o->color ? "\033[0m" : "");
    decided_by(r, table_line, to, "  decided by: ");
    compared_text(r, line, sizeof line);
    fprintf(to, "  compared: %s\n", line);
    noise_text(r, line, sizeof line);
    fprintf(to, "  noise:  %s\n\n", line);
    table_rows(to, r, r->rows, r->n_rows, o, "");
    if (r->focus) {
        const diff_focus *f = r->focus;
        char b[32], a[32];
        fputs("\n  focus:  NVTX range \"", to);
        text_cell(to, f->name, (int)text_width(f->name));
        fprintf(to, "\": %zu -> %zu instances", f->before_instances, f->after_instances);
        if (f->time.before.present || f->time.after.present)
            fprintf(to, "; median %s; p90 %s -> %s; %s%s%s", change_text(&f->time, x, sizeof x),
                    human(f->before_p90_ns, false, b, sizeof b),
                    human(f->after_p90_ns, false, a, sizeof a),
                    o->color ? COLORS[f->time.status] : "", diff_status_name(f->time.status),
                    o->color ? "\033[0m" : "");
        fputs("\n  kernels launched inside it:\n", to);
        table_rows(to, r, f->kernels, f->n_kernels, o, "    ");
    }
    fputc('\n', to);
    side_text(before, x, sizeof x);
    fprintf(to, "  before: %s\n", x);
    side_text(after, x, sizeof x);
    fprintf(to, "  after:  %s\n", x);
    if (r->session.before.present || r->session.after.present)
        fprintf(to, "  span:   session %s\n", change_text(&r->session, x, sizeof x));
    if (r->gpu_span.before.present || r->gpu_span.after.present)
        fprintf(to, "          GPU work %s\n", change_text(&r->gpu_span, x, sizeof x));
    for (size_t i = 0; i < r->n_gpus; i++)
        fprintf(to, "  %s busy: %s\n", r->gpus[i].name, change_text(&r->gpus[i], x, sizeof x));
    counts_text(r, line, sizeof line);
    fprintf(to, "  names:  %s\n", line);
    if (!o->all) {
        not_listed_text(r, line, sizeof line);
        fprintf(to, "          %s; --all lists them\n", line);
    }
}

/* ---- Markdown -------------------------------------------------------- */

static void md_rows(FILE *to, const diff_result *r, const diff_row *rows, size_t n,
                    const diff_print_options *o)
{
    size_t listed = 0, more = 0, last = 0;
    bool step = r->basis.unit == DIFF_PER_STEP;
    fprintf(to, "| status | category | name | before %s | after %s | %% | change | total "
                "before → after | calls |\n"
                "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
            step ? "a step" : "a call", step ? "a step" : "a call");
    for (size_t i = 0; i < n; i++) {
        const diff_row *row = &rows[i];
        if (!shown(row, r, o))
            continue;
        if (o->top && listed == o->top) {
            more++;
            continue;
        }
        if (!diff_row_decides(row) && (!listed || diff_row_decides(&rows[last])))
            fprintf(to, "| | | *%s* | | | | | | |\n", AGAIN);
        listed++;
        last = i;
        char b[32], a[32], d[32], p[32], tb[32], ta[32];
        fprintf(to, "| %s%s%s | %s | ", row->status == DIFF_REGRESSION ? "**" : "",
                diff_status_name(row->status), row->status == DIFF_REGRESSION ? "**" : "",
                row->category);
        text_md(to, row->name);
        fprintf(to, " | %s | %s | %s | %s | %s → %s | %lld → %lld |\n",
                unit_text(&row->before, b, sizeof b), unit_text(&row->after, a, sizeof a),
                pct(row->delta_pct, p, sizeof p), human(row->delta_ns, true, d, sizeof d),
                stat_text(&row->before, tb, sizeof tb), stat_text(&row->after, ta, sizeof ta),
                (long long)row->before.count, (long long)row->after.count);
    }
    if (!listed)
        fputs("| | | (no change that matters) | | | | | | |\n", to);
    if (more)
        fprintf(to, "\n%zu more changes not listed.\n", more);
}

static void md_line(FILE *to, const char *text, void *ctx)
{
    (void)ctx;
    fputs("- ", to);
    text_md(to, text);
    fputc('\n', to);
}

static void print_md(FILE *to, const diff_result *r, const diff_side *before,
                     const diff_side *after, const char *value, const diff_print_options *o)
{
    char line[1024], x[256];
    verdict_text(r, line, sizeof line);
    fputs("### nsys-perfetto diff", to);
    if (value) {
        fputs(": ", to);
        text_md(to, value);
    }
    fprintf(to, ": %s\n\nDecided by:\n\n", line);
    decided_by(r, md_line, to, NULL);
    compared_text(r, line, sizeof line);
    fputs("\nCompared ", to);
    text_md(to, line);
    fputs(".\n\n", to);
    md_rows(to, r, r->rows, r->n_rows, o);
    if (r->focus) {
        const diff_focus *f = r->focus;
        char b[32], a[32];
        fputs("\nFocus: NVTX range `", to);
        text_md(to, f->name);
        fprintf(to, "`: %zu → %zu instances", f->before_instances, f->after_instances);
        if (f->time.before.present || f->time.after.present)
            fprintf(to, "; median %s; p90 %s → %s; **%s**", change_text(&f->time, x, sizeof x),
                    human(f->before_p90_ns, false, b, sizeof b),
                    human(f->after_p90_ns, false, a, sizeof a), diff_status_name(f->time.status));
        fputs(". Kernels launched inside it:\n\n", to);
        md_rows(to, r, f->kernels, f->n_kernels, o);
    }
    fputs("\n| | |\n| --- | --- |\n| before | ", to);
    side_text(before, x, sizeof x);
    text_md(to, x);
    fputs(" |\n| after | ", to);
    side_text(after, x, sizeof x);
    text_md(to, x);
    noise_text(r, line, sizeof line);
    fprintf(to, " |\n| noise | %s |\n", line);
    if (r->session.before.present || r->session.after.present)
        fprintf(to, "| session | %s |\n", change_text(&r->session, x, sizeof x));
    if (r->gpu_span.before.present || r->gpu_span.after.present)
        fprintf(to, "| GPU work span | %s |\n", change_text(&r->gpu_span, x, sizeof x));
    for (size_t i = 0; i < r->n_gpus; i++)
        fprintf(to, "| %s busy | %s |\n", r->gpus[i].name, change_text(&r->gpus[i], x, sizeof x));
    counts_text(r, line, sizeof line);
    fprintf(to, "| names | %s |\n", line);
    if (!o->all) {
        not_listed_text(r, line, sizeof line);
        fprintf(to, "| | %s |\n", line);
    }
    fputc('\n', to);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_stat(FILE *to, const diff_stat *s)
{
    if (s->present)
        fprintf(to, ",%lld,%lld,%lld,%lld,%lld", (long long)s->count, (long long)s->total_ns,
                (long long)s->mean_ns, (long long)s->min_total_ns, (long long)s->max_total_ns);
    else
        fputs(",,,,,", to);
}

static void csv_unit(FILE *to, const diff_stat *s)
{
    if (s->present)
        fprintf(to, ",%lld", (long long)s->unit_ns);
    else
        fputc(',', to);
}

static void csv_pct(FILE *to, double p)
{
    fputc(',', to);
    if (!isnan(p))
        fprintf(to, "%.3f", p);
}

static void csv_row(FILE *to, const char *value, const char *category, const diff_row *row,
                    const char *compared)
{
    if (value) {
        text_csv(to, value);
        fputc(',', to);
    }
    text_csv(to, category);
    fputc(',', to);
    text_csv(to, row->name);
    fprintf(to, ",%s", diff_status_name(row->status));
    csv_stat(to, &row->before);
    csv_stat(to, &row->after);
    fprintf(to, ",%lld", (long long)row->delta_ns);
    csv_pct(to, row->delta_pct);
    csv_unit(to, &row->before);
    csv_unit(to, &row->after);
    fprintf(to, ",%lld", (long long)row->total_delta_ns);
    csv_pct(to, row->total_delta_pct);
    csv_pct(to, row->share_pct);
    fputc(',', to);
    text_csv(to, compared);
    fputc('\n', to);
}

static void print_csv(FILE *to, const diff_result *r, const char *value, bool header)
{
    if (header)
        fprintf(to, "%scategory,name,status,before_count,before_total_ns,before_mean_ns,"
                    "before_min_total_ns,before_max_total_ns,after_count,after_total_ns,"
                    "after_mean_ns,after_min_total_ns,after_max_total_ns,delta_ns,delta_pct,"
                    "before_per_unit_ns,after_per_unit_ns,total_delta_ns,total_delta_pct,"
                    "share_pct,compared\n",
                value ? "value," : "");
    char compared[512];
    compared_text(r, compared, sizeof compared);
    for (size_t i = 0; i < r->n_rows; i++)
        csv_row(to, value, r->rows[i].category, &r->rows[i], compared);
    if (r->session.before.present || r->session.after.present)
        csv_row(to, value, "span", &r->session, "total");
    if (r->gpu_span.before.present || r->gpu_span.after.present)
        csv_row(to, value, "span", &r->gpu_span, "total");
    for (size_t i = 0; i < r->n_gpus; i++)
        csv_row(to, value, "gpu-busy", &r->gpus[i], "total");
    if (r->focus) {
        csv_row(to, value, "focus", &r->focus->time, "median instance");
        for (size_t i = 0; i < r->focus->n_kernels; i++)
            csv_row(to, value, "focus-kernel", &r->focus->kernels[i], compared);
    }
}

/* ---- JSON ------------------------------------------------------------ */

static void json_pct(FILE *to, double p)
{
    if (isnan(p))
        fputs("null", to);
    else
        fprintf(to, "%.3f", p);
}

static void json_stat(FILE *to, const diff_stat *s)
{
    if (!s->present) {
        fputs("null", to);
        return;
    }
    fprintf(to, "{\"count\": %lld, \"total_ns\": %lld, \"mean_ns\": %lld, \"min_total_ns\": %lld,"
                " \"max_total_ns\": %lld, \"per_unit_ns\": %lld, \"min_per_unit_ns\": %lld,"
                " \"max_per_unit_ns\": %lld}",
            (long long)s->count, (long long)s->total_ns, (long long)s->mean_ns,
            (long long)s->min_total_ns, (long long)s->max_total_ns, (long long)s->unit_ns,
            (long long)s->min_unit_ns, (long long)s->max_unit_ns);
}

static void json_row(FILE *to, const diff_row *row)
{
    fputs("{\"category\": ", to);
    json_string(to, row->category);
    fputs(", \"name\": ", to);
    json_string(to, row->name);
    fputs(", \"before\": ", to);
    json_stat(to, &row->before);
    fputs(", \"after\": ", to);
    json_stat(to, &row->after);
    fprintf(to, ", \"delta_ns\": %lld, \"delta_pct\": ", (long long)row->delta_ns);
    json_pct(to, row->delta_pct);
    fprintf(to, ", \"total_delta_ns\": %lld, \"total_delta_pct\": ",
            (long long)row->total_delta_ns);
    json_pct(to, row->total_delta_pct);
    fputs(", \"share_pct\": ", to);
    json_pct(to, row->share_pct);
    fprintf(to, ", \"renamed\": %s, \"decides\": %s, \"status\": \"%s\"}",
            row->renamed ? "true" : "false", diff_row_decides(row) ? "true" : "false",
            diff_status_name(row->status));
}

/* What was compared and the rule: {"compared": ..., "rule": ...}. */
static void json_basis(FILE *to, const diff_result *r)
{
    const diff_basis *b = &r->basis;
    fprintf(to, " \"compared\": {\"unit\": \"%s\", ", b->unit == DIFF_PER_STEP ? "step" : "call");
    if (b->unit == DIFF_PER_STEP) {
        static const char *const RULES[] = {"none", "given", "profiler-step", "most-repeated"};
        fputs("\"step\": {\"name\": ", to);
        json_string(to, b->step_name);
        fprintf(to, ", \"rule\": \"%s\", \"before\": %lld, \"after\": %lld}, \"why_not_step\": "
                    "null},\n",
                RULES[b->rule], (long long)b->steps_before, (long long)b->steps_after);
    } else {
        fputs("\"step\": null, \"why_not_step\": ", to);
        json_string(to, b->why_not);
        fputs("},\n", to);
    }
    fprintf(to, " \"rule\": {\"gate_pct\": %g, \"min_effect_pct\": %g, \"single_run_gate_pct\": %g,"
                " \"single_run_gate_cpu_pct\": %g, \"whole_ns\": ",
            r->rule.gate_pct, r->rule.min_effect_pct, r->rule.single_gate_pct,
            r->rule.single_gate_cpu_pct);
    if (r->rule.whole_ns > 0)
        fprintf(to, "%lld", (long long)r->rule.whole_ns);
    else
        fputs("null", to);
    fprintf(to, "},\n \"not_listed\": {\"renamed\": %zu, \"minor_added_removed\": %zu},\n",
            r->n_renamed, r->n_minor);
}

/* A value per side: {"before_ns", "after_ns", "delta_ns", "delta_pct", "status"}. */
static void json_value(FILE *to, const diff_row *row)
{
    fputs("{\"before_ns\": ", to);
    if (row->before.present)
        fprintf(to, "%lld", (long long)row->before.total_ns);
    else
        fputs("null", to);
    fputs(", \"after_ns\": ", to);
    if (row->after.present)
        fprintf(to, "%lld", (long long)row->after.total_ns);
    else
        fputs("null", to);
    fprintf(to, ", \"delta_ns\": %lld, \"delta_pct\": ", (long long)row->delta_ns);
    json_pct(to, row->delta_pct);
    fprintf(to, ", \"status\": \"%s\"}", diff_status_name(row->status));
}

static void json_paths(FILE *to, const diff_side *s)
{
    fputs("{\"input\": ", to);
    json_string(to, s->label);
    fputs(", \"reports\": [", to);
    for (size_t i = 0; i < s->n_runs; i++) {
        fputs(i ? ", " : "", to);
        json_string(to, s->runs[i].path);
    }
    fputs("]}", to);
}

static void print_json(FILE *to, const diff_result *r, const diff_side *before,
                       const diff_side *after, const char *value)
{
    fputs("{", to);
    if (value) {
        fputs("\"value\": ", to);
        json_string(to, value);
        fputs(", ", to);
    }
    fprintf(to, "\"verdict\": \"%s\", \"gate_pct\": %g,\n \"runs\": {\"before\": %zu, \"after\": %zu},\n",
            r->fail ? "fail" : "pass", r->gate_pct, r->runs_before, r->runs_after);
    fprintf(to, " \"noise\": {\"judged\": %s, \"rule\": \"ranges apart\", \"p_one_sided\": ",
            r->noise_judged ? "true" : "false");
    if (r->noise_judged)
        fprintf(to, "%.6g", r->noise_p);
    else
        fputs("null", to);
    fputs("},\n", to);
    json_basis(to, r);
    fputs(" \"before\": ", to);
    json_paths(to, before);
    fputs(",\n \"after\": ", to);
    json_paths(to, after);
    fputs(",\n \"counts\": {", to);
    for (int s = 0; s < DIFF_STATUSES; s++)
        fprintf(to, "%s\"%s\": %zu", s ? ", " : "", diff_status_name((diff_status)s), r->counts[s]);
    fputs("},\n \"span\": {\"session\": ", to);
    json_value(to, &r->session);
    fputs(", \"gpu_work\": ", to);
    json_value(to, &r->gpu_span);
    fputs("},\n \"gpus\": [", to);
    for (size_t i = 0; i < r->n_gpus; i++) {
        fprintf(to, "%s{\"device\": %s, \"busy\": ", i ? ", " : "", r->gpus[i].name + 4);
        json_value(to, &r->gpus[i]);
        fputs("}", to);
    }
    fputs("],\n \"focus\": ", to);
    if (r->focus) {
        const diff_focus *f = r->focus;
        fputs("{\"name\": ", to);
        json_string(to, f->name);
        fprintf(to, ", \"before\": {\"instances\": %zu, \"median_ns\": ", f->before_instances);
        if (f->time.before.present)
            fprintf(to, "%lld, \"p90_ns\": %lld}", (long long)f->time.before.total_ns,
                    (long long)f->before_p90_ns);
        else
            fputs("null, \"p90_ns\": null}", to);
        fprintf(to, ", \"after\": {\"instances\": %zu, \"median_ns\": ", f->after_instances);
        if (f->time.after.present)
            fprintf(to, "%lld, \"p90_ns\": %lld}", (long long)f->time.after.total_ns,
                    (long long)f->after_p90_ns);
        else
            fputs("null, \"p90_ns\": null}", to);
        fprintf(to, ", \"delta_ns\": %lld, \"delta_pct\": ", (long long)f->time.delta_ns);
        json_pct(to, f->time.delta_pct);
        fprintf(to, ", \"status\": \"%s\", \"kernels\": [", diff_status_name(f->time.status));
        for (size_t i = 0; i < f->n_kernels; i++) {
            fputs(i ? ",\n   " : "\n   ", to);
            json_row(to, &f->kernels[i]);
        }
        fputs("]}", to);
    } else {
        fputs("null", to);
    }
    fputs(",\n \"rows\": [", to);
    for (size_t i = 0; i < r->n_rows; i++) {
        fputs(i ? ",\n  " : "\n  ", to);
        json_row(to, &r->rows[i]);
    }
    fputs("]}", to);
}

void diff_print(FILE *to, const diff_result *r, const diff_side *before, const diff_side *after,
                const char *value, const diff_print_options *o, bool header)
{
    switch (o->format) {
    case DIFF_TABLE:
        print_table(to, r, before, after, value, o);
        break;
    case DIFF_MD:
        print_md(to, r, before, after, value, o);
        break;
    case DIFF_CSV:
        print_csv(to, r, value, header);
        break;
    case DIFF_JSON:
        print_json(to, r, before, after, value);
        break;
    }
}
