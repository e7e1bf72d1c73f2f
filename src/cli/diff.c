/* nsys-perfetto diff BEFORE AFTER: did the change help? Each side is a
 * report, a directory of runs of one configuration, or (both sides) a
 * series directory, compared value by value. Options and sides here; the
 * data in diff_report.c, the comparison in diff_model.c, the formats in
 * diff_output.c; the rule in docs/diff.md. */
#include "diff.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/diff_model.h"
#include "tool/diff_output.h"
#include "tool/diff_report.h"
#include "tool/text_out.h"
#include "common/cancel.h"
#include "nsys_perfetto.h"
#include "tool/options.h"
#include "tool/report_dir.h"

static volatile sig_atomic_t diff_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    cancel_set(&diff_interrupted, 1);
}

static void diff_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto diff [OPTIONS] BEFORE AFTER\n"
          "Did the change help? Compares every name of `summary` (kernel, memory,\n"
          "cuda-api, library, api-gpu, nvtx, nvtx-gpu, nvtx-gpu-ops) per unit of work:\n"
          "per step (ProfilerStep#N ranges, --step or --focus, else the most repeated\n"
          "top-level NVTX range that is not an op), else per call; totals as context.\n"
          "Also GPU busy time per device and the report's span, before against after.\n"
          "Each side is a report (.sqlite, .nsys-rep, .qdrep) or a directory of reports\n"
          "that are runs of one configuration (medians over runs). Two series\n"
          "directories (from `nsys-perfetto series`) are compared value by value.\n"
          "\n"
          "A name is a regression (or improvement) when its per-unit time moves past the\n"
          "gate, by at least --min-effect of before's GPU busy time (else: small), and,\n"
          "with two runs a side or more, the runs' ranges do not overlap; with one run\n"
          "a side, only past the single-run gate. Else inconclusive: profile more runs.\n"
          "Three runs a side suffice to call a clear shift (docs/diff.md).\n"
          "\n"
          "Options:\n"
          "      --gate PCT      the change that counts, in % (default 5)\n"
          "      --min-effect PCT  and the least change that counts, in % of before's\n"
          "                      GPU busy time (else its session) (default 0.5)\n"
          "      --match REGEX   only names matching REGEX (POSIX extended); repeatable\n"
          "      --focus NAME    one NVTX range as the unit of work (a training step): its\n"
          "                      per-instance time (median, p90) and the kernels launched\n"
          "                      inside it\n"
          "      --step NAME     the NVTX range that is one step, to compare per step\n"
          "      --raw-names     PyTorch op ranges by their whole text, not by op\n"
          "      --format F      table (default), md (a pull-request comment), csv, json\n"
          "      --top N         table and md: list at most N changed names (default 40;\n"
          "                      0: all)\n"
          "      --all           table and md: list unchanged names too\n"
          "      --trace OUT     also write before and after into one trace, aligned at\n"
          "                      their starts, processes labelled before / after (with\n"
          "                      directories: each side's first run)\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 no regression past the gate, 8 a regression past the gate;\n"
          "errors as the converter's (2 bad command line, 3 input missing, 4-5 not a\n"
          "usable report, 6 --trace not written, 7 interrupted).\n",
          to);
}

/* ---- Sides -------------------------------------------------------------- */

typedef struct side_input {
    char *value;                 /* a series value's name, NULL otherwise */
    char **paths;
    size_t n;
} side_input;

typedef struct input {
    const char *given;
    bool series;
    side_input *values;          /* one when not a series */
    size_t n_values;
} input;

/* A report's name without its extension and without a "-runN" suffix. */
static char *stem_of(const char *path, bool *has_run)
{
    const char *base = strrchr(path, '/');
    char *stem = strdup(base ? base + 1 : path);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    char *suffix = strstr(stem, "-run");
    *has_run = false;
    while (suffix) {
        char *end;
        long n = strtol(suffix + 4, &end, 10);
        if (suffix[4] >= '0' && suffix[4] <= '9' && !*end && n > 0) {
            *has_run = true;
            *suffix = '\0';
            break;
        }
        suffix = strstr(suffix + 1, "-run");
    }
    return stem;
}

static bool has_file(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void free_input(input *in)
{
    for (size_t v = 0; v < in->n_values; v++) {
        free(in->values[v].value);
        free_reports(in->values[v].paths, in->values[v].n);
    }
    free(in->values);
    in->values = NULL;
    in->n_values = 0;
}

/* A report, or a directory: a series when it holds series.csv, or when
 * every report is named VALUE-runN and there are several values; runs of
 * one configuration otherwise. Returns an nsysp_status after saying why. */
static int read_input(const char *given, input *in)
{
    memset(in, 0, sizeof *in);
    in->given = given;
    in->values = calloc(1, sizeof *in->values);
    if (!in->values)
        abort();
    if (!is_directory(given)) {
        in->values[0].paths = calloc(1, sizeof *in->values[0].paths);
        if (!in->values[0].paths)
            abort();
        in->values[0].paths[0] = strdup(given);
        in->values[0].n = 1;
        in->n_values = 1;
        return NSYSP_OK;
    }
    char **paths;
    size_t n;
    if (list_reports("nsys-perfetto diff", given, &paths, &n) != 0 || n == 0) {
        text_printf(stderr, "nsys-perfetto diff: %s: %s\n", given,
                n == 0 && paths ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                : strerror(errno));
        free_reports(paths, paths ? n : 0);
        return NSYSP_ERR_INPUT_OPEN;
    }
    char **stems = calloc(n, sizeof *stems);
    bool all_runs = true;
    size_t n_stems = 0;
    if (!stems)
        abort();
    for (size_t i = 0; i < n; i++) {
        bool has_run;
        stems[i] = stem_of(paths[i], &has_run);
        all_runs &= has_run;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(stems[k], stems[i]) == 0;
        n_stems += !seen;
    }
    in->series = n_stems > 1 && (has_file(given, "series.csv") || all_runs);
    if (!in->series) {
        in->values[0].paths = paths;
        in->values[0].n = n;
        in->n_values = 1;
    } else {
        free(in->values);
        in->values = calloc(n_stems, sizeof *in->values);
        if (!in->values)
            abort();
        for (size_t i = 0; i < n; i++) {
            size_t v = 0;
            while (v < in->n_values && strcmp(in->values[v].value, stems[i]) != 0)
                v++;
            side_input *s = &in->values[v];
            if (v == in->n_values) {
                s->value = strdup(stems[i]);
                s->paths = calloc(n, sizeof *s->paths);
                if (!s->paths)
                    abort();
                in->n_values++;
            }
            s->paths[s->n++] = paths[i];
        }
        free(paths);
    }
    for (size_t i = 0; i < n; i++)
        free(stems[i]);
    free(stems);
    for (size_t v = 0; v < in->n_values; v++)
        if (in->values[v].n > DIFF_MAX_RUNS) {
            fprintf(stderr, "nsys-perfetto diff: %s: at most %d runs a side\n", given,
                    DIFF_MAX_RUNS);
            return NSYSP_ERR_USAGE;
        }
    return NSYSP_OK;
}

typedef struct diff_args {
    diff_rule rule;
    const char *step;
    const char *matches[64];
    size_t n_matches;
    const char *focus;
    const char *trace;
    diff_print_options print;
} diff_args;

static int load_side(diff_side *side, const char *label, const side_input *in,
                     const diff_args *a)
{
    side->label = label;
    side->runs = calloc(in->n, sizeof *side->runs);
    side->n_runs = 0;
    if (!side->runs)
        abort();
    for (size_t i = 0; i < in->n; i++) {
        int status = diff_run_load(&side->runs[i], in->paths[i], a->matches, a->n_matches,
                                   a->focus, a->step);
        side->n_runs = i + 1;
        if (status != NSYSP_OK)
            return status;
    }
    return NSYSP_OK;
}

static void free_side(diff_side *side)
{
    for (size_t i = 0; i < side->n_runs; i++)
        diff_run_free(&side->runs[i]);
    free(side->runs);
    side->runs = NULL;
    side->n_runs = 0;
}

/* Before and after in one trace: each side's first report. */
static int write_trace(const diff_side *before, const diff_side *after, const char *out)
{
    static const char *const LABELS[] = {"before", "after"};
    const char *inputs[2] = {before->runs[0].sqlite, after->runs[0].sqlite};
    nsysp_options opt;
    nsysp_options_init(&opt);
    opt.output_path = out;
    opt.align_start = 1;
    opt.report_labels = LABELS;
    opt.n_report_labels = 2;
    opt.cancel = &diff_interrupted;
    nsysp_result res;
    nsysp_status status = nsysp_convert_many(inputs, 2, &opt, &res);
    if (status != NSYSP_OK)
        text_printf(stderr, "nsys-perfetto diff: --trace: %s\n", res.message);
    else
        text_printf(stderr, "nsys-perfetto diff: wrote %s (before: %s, after: %s)\n",
                res.output_path, before->runs[0].path, after->runs[0].path);
    return status;
}

/* One comparison (one value of a series, or the only one). Returns an
 * nsysp_status; *fail says whether it found a regression. */
static int compare_one(const input *b, const side_input *bv, const input *a,
                       const side_input *av, const diff_args *args, bool first, bool *fail)
{
    diff_side before = {0}, after = {0};
    int status = load_side(&before, b->given, bv, args);
    if (status == NSYSP_OK)
        status = load_side(&after, a->given, av, args);
    if (status == NSYSP_OK)
        status = diff_agree_step(&before, &after, args->focus, args->step);
    if (status == NSYSP_OK && cancel_requested(&diff_interrupted))
        status = NSYSP_ERR_INTERRUPTED;
    if (status == NSYSP_OK) {
        diff_result r;
        diff_compare_with(&before, &after, &args->rule, args->focus, &r);
        if (args->print.format == DIFF_JSON && !first)
            fputs(",\n", stdout);
        diff_print(stdout, &r, &before, &after, bv->value, &args->print, first);
        if (args->print.format == DIFF_TABLE && bv->value)
            putchar('\n');
        *fail |= r.fail;
        if (r.focus && r.focus->before_instances + r.focus->after_instances == 0)
            fprintf(stderr, "nsys-perfetto diff: --focus: no NVTX range named '%s' on either "
                            "side\n", args->focus);
        diff_result_free(&r);
        if (args->trace)
            status = write_trace(&before, &after, args->trace);
    }
    free_side(&before);
    free_side(&after);
    return status;
}

static int compare_inputs(const input *b, const input *a, const diff_args *args)
{
    bool fail = false;
    int status = NSYSP_OK;
    if (!b->series) {
        status = compare_one(b, &b->values[0], a, &a->values[0], args, true, &fail);
        if (args->print.format == DIFF_JSON && status == NSYSP_OK)
            putchar('\n');
        return status != NSYSP_OK ? status : fail ? DIFF_EXIT_REGRESSION : 0;
    }
    if (args->print.format == DIFF_JSON)
        fprintf(stdout, "{\"series\": [\n");
    size_t compared = 0;
    for (size_t v = 0; v < b->n_values && status == NSYSP_OK; v++) {
        size_t k = 0;
        while (k < a->n_values && strcmp(a->values[k].value, b->values[v].value) != 0)
            k++;
        if (k == a->n_values) {
            text_printf(stderr, "nsys-perfetto diff: value %s only in %s: not compared\n",
                    b->values[v].value, b->given);
            continue;
        }
        status = compare_one(b, &b->values[v], a, &a->values[k], args, compared == 0, &fail);
        compared++;
    }
    for (size_t k = 0; k < a->n_values; k++) {
        size_t v = 0;
        while (v < b->n_values && strcmp(a->values[k].value, b->values[v].value) != 0)
            v++;
        if (v == b->n_values)
            text_printf(stderr, "nsys-perfetto diff: value %s only in %s: not compared\n",
                    a->values[k].value, a->given);
    }
    if (args->print.format == DIFF_JSON)
        fprintf(stdout, "\n], \"verdict\": \"%s\", \"gate_pct\": %g}\n", fail ? "fail" : "pass",
                args->rule.gate_pct);
    if (status == NSYSP_OK && compared == 0) {
        text_printf(stderr, "nsys-perfetto diff: %s and %s have no value in common\n", b->given,
                a->given);
        return NSYSP_ERR_USAGE;
    }
    return status != NSYSP_OK ? status : fail ? DIFF_EXIT_REGRESSION : 0;
}

static int usage_error(const char *what, const char *arg)
{
    if (arg)
        fprintf(stderr, "nsys-perfetto diff: %s, got '%s'\n", what, arg);
    else
        fprintf(stderr, "nsys-perfetto diff: %s\n", what);
    fputs("Try 'nsys-perfetto diff --help'.\n", stderr);
    return NSYSP_ERR_USAGE;
}

int diff_main(int argc, char **argv)
{
    enum { OPT_GATE = 256, OPT_MATCH, OPT_FOCUS, OPT_FORMAT, OPT_TOP, OPT_ALL, OPT_TRACE,
           OPT_STEP, OPT_MIN_EFFECT, OPT_RAW_NAMES };
    static const struct option options[] = {
        {"gate", required_argument, NULL, OPT_GATE},
        {"min-effect", required_argument, NULL, OPT_MIN_EFFECT},
        {"step", required_argument, NULL, OPT_STEP},
        {"raw-names", no_argument, NULL, OPT_RAW_NAMES},
        {"match", required_argument, NULL, OPT_MATCH},
        {"focus", required_argument, NULL, OPT_FOCUS},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"top", required_argument, NULL, OPT_TOP},
        {"all", no_argument, NULL, OPT_ALL},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    diff_args a = {.rule = diff_default_rule(5), .print = {.format = DIFF_TABLE, .top = 40}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        char *end, why[256];
        switch (c) {
        case OPT_GATE:
            a.rule.gate_pct = strtod(optarg, &end);
            if (end == optarg || *end || !(a.rule.gate_pct >= 0 && a.rule.gate_pct <= 1e6))
                return usage_error("--gate: expected a percentage (5 for 5%)", optarg);
            break;
        case OPT_MIN_EFFECT:
            a.rule.min_effect_pct = strtod(optarg, &end);
            if (end == optarg || *end || !(a.rule.min_effect_pct >= 0 &&
                                           a.rule.min_effect_pct <= 100))
                return usage_error("--min-effect: expected a percentage (0.5 for 0.5%)", optarg);
            break;
        case OPT_STEP:
            if (!*optarg)
                return usage_error("--step: expected an NVTX range name", optarg);
            a.step = optarg;
            break;
        case OPT_RAW_NAMES:
            nsysp_summary_set_raw_names(1);
            break;
        case OPT_MATCH:
            if (parse_regex(optarg, why, sizeof why) < 0) {
                fprintf(stderr, "nsys-perfetto diff: --match: %s\n", why);
                return NSYSP_ERR_USAGE;
            }
            if (a.n_matches == sizeof a.matches / sizeof *a.matches)
                return usage_error("at most 64 --match", NULL);
            a.matches[a.n_matches++] = optarg;
            break;
        case OPT_FOCUS:
            if (!*optarg)
                return usage_error("--focus: expected an NVTX range name", optarg);
            a.focus = optarg;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                a.print.format = DIFF_TABLE;
            else if (strcmp(optarg, "md") == 0)
                a.print.format = DIFF_MD;
            else if (strcmp(optarg, "csv") == 0)
                a.print.format = DIFF_CSV;
            else if (strcmp(optarg, "json") == 0)
                a.print.format = DIFF_JSON;
            else
                return usage_error("--format: expected table, md, csv or json", optarg);
            break;
        case OPT_TOP: {
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 0)
                return usage_error("--top: expected a number", optarg);
            a.print.top = (size_t)n;
            break;
        }
        case OPT_ALL:
            a.print.all = true;
            break;
        case OPT_TRACE:
            a.trace = optarg;
            break;
        case 'h':
            diff_usage(stdout);
            return 0;
        default:
            fputs("Try 'nsys-perfetto diff --help'.\n", stderr);
            return NSYSP_ERR_USAGE;
        }
    }
    if (argc - optind != 2)
        return usage_error(argc - optind < 2 ? "expected BEFORE and AFTER"
                                             : "expected two inputs, BEFORE and AFTER",
                           NULL);
    double min_effect = a.rule.min_effect_pct; /* the gate sets the single-run gate */
    a.rule = diff_default_rule(a.rule.gate_pct);
    a.rule.min_effect_pct = min_effect;
    const char *no_color = getenv("NO_COLOR");
    a.print.color = a.print.format == DIFF_TABLE && isatty(1) && !(no_color && *no_color);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    nsysp_summary_set_cancel(&diff_interrupted);

    input b, af;
    int status = read_input(argv[optind], &b);
    if (status == NSYSP_OK) {
        status = read_input(argv[optind + 1], &af);
        if (status != NSYSP_OK) {
            free_input(&b);
            return status;
        }
    } else {
        free_input(&b);
        return status;
    }
    if (b.series != af.series) {
        text_printf(stderr, "nsys-perfetto diff: %s is a series directory (%zu values) but %s is "
                        "not: compare two series, or one value's reports with a directory\n",
                b.series ? b.given : af.given, b.series ? b.n_values : af.n_values,
                b.series ? af.given : b.given);
        status = NSYSP_ERR_USAGE;
    } else if (b.series && a.trace) {
        fputs("nsys-perfetto diff: --trace takes two reports or run directories, not "
              "series\n", stderr);
        status = NSYSP_ERR_USAGE;
    } else {
        status = compare_inputs(&b, &af, &a);
    }
    free_input(&b);
    free_input(&af);
    fflush(stdout);
    return cancel_requested(&diff_interrupted) ? NSYSP_ERR_INTERRUPTED : status;
}
