#include "series.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool/nsys_export.h"
#include "common/cancel.h"
#include "nsys_perfetto.h"
#include "tool/nsys_profile.h"
#include "tool/options.h"
#include "series_output.h"
#include "tool/text_out.h"

/* What nsys traces by default, plus NVTX, OS runtime, cuBLAS and cuDNN. */
static const char *const DEFAULT_OPTIONS[] = {"--trace=cuda,opengl,nvtx,osrt,cublas,cudnn"};

enum { MAX_VALUES = 256, MAX_ARGS = 256 };

/* Long enough for any real run of a few minutes; a hung profiler still
 * ends. */
#define DEFAULT_TIMEOUT_S (30 * 60.0)

typedef struct series_args {
    const char *values[MAX_VALUES];
    size_t n_values;
    int runs;
    double timeout_s;                /* per nsys command; 0: none */
    const char *gpu, *dir, *pattern;
    char *nsys_args;                 /* split on blanks into options */
    const char *options[MAX_ARGS];
    size_t n_options;
    const char *matches[64];
    size_t n_matches;
    char *const *command;
    size_t n_command;
    bool raw_names;                  /* PyTorch op ranges by their whole text */
} series_args;

static void series_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto series -p VALUE... [OPTIONS] -- COMMAND [ARGS...]\n"
          "Profile COMMAND under nsys once per VALUE ('$p' in COMMAND and ARGS is\n"
          "replaced by the value; no shell is involved), then export, convert and\n"
          "summarize each report, and write series.csv, series.md and series.svg.\n"
          "\n"
          "Options:\n"
          "  -p, --values VALUE...  the parameter's values, in the order to run them,\n"
          "                         each once (negative numbers are values too)\n"
          "      --runs N           profile each value N times (default 1)\n"
          "      --gpu ID           set CUDA_VISIBLE_DEVICES=ID for the runs\n"
          "      --dir DIR          where everything goes (default: a new\n"
          "                         series-YYYYmmdd-HHMMSS-HOST directory)\n"
          "  -o, --output PATTERN   report names, '$p' for the value (default: p$p);\n"
          "                         with --runs, '-runN' is appended\n"
          "      --nsys-args 'ARGS' nsys profile options instead of the default\n"
          "                         --trace=cuda,opengl,nvtx,osrt,cublas,cudnn\n"
          "                         (split at blanks)\n"
          "      --match REGEX      summarize only names matching REGEX; repeatable\n"
          "      --raw-names        name and group PyTorch op ranges by their whole text\n"
          "      --timeout DURATION stop a run (nsys and all it started) whose nsys\n"
          "                         profile or export takes longer than DURATION:\n"
          "                         90s, 30m, 2h or seconds (default 30m; 0: none)\n"
          "  -h, --help             show this help\n"
          "nsys is $NSYS, or nsys on PATH. A failed or timed-out run is reported and\n"
          "the series goes on. Exit status: 0 all runs done, 1 some failed, 2 bad\n"
          "command line, 7 interrupted (what finished is kept and summarized).\n",
          to);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "nsys-perfetto series: %s%s%s\nTry 'nsys-perfetto series --help'.\n", what,
            arg ? ": " : "", arg ? arg : "");
    return NSYSP_ERR_USAGE;
}

/* The longest file a run writes beside its name: the converter's
 * temporary ".NAME.perfetto-trace.tmp-XXXXXX". */
enum { LONGEST_SUFFIX = sizeof "." - 1 + sizeof ".perfetto-trace.tmp-XXXXXX" - 1 };

/* How long pattern is with every "$p" replaced by value. */
static size_t expanded_length(const char *pattern, const char *value)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++, n++)
        if (p[0] == '$' && p[1] == 'p') {
            n += strlen(value) - 1;
            p++;
        }
    return n;
}

/* Each value's files are named from the pattern: refused before anything
 * runs when a name would not fit a file name (or the path), or when two
 * values would write the same files. */
static int check_names(const series_args *a)
{
    size_t run_suffix = 0; /* "-runN" */
    for (int r = a->runs; a->runs > 1 && r > 0; r /= 10)
        run_suffix += run_suffix ? 1 : 5;
    size_t dir = a->dir ? strlen(a->dir) + 1 : 64;
    for (size_t v = 0; v < a->n_values; v++) {
        size_t name = expanded_length(a->pattern, a->values[v]) + run_suffix;
        if (name + LONGEST_SUFFIX > NAME_MAX || dir + name + LONGEST_SUFFIX >= 4096) {
            char shown[64];
            text_visible(a->values[v], shown, sizeof shown);
            fprintf(stderr, "nsys-perfetto series: -p %s%s: a file name of %zu bytes with this "
                            "value, past the %d a file name may have (or the path's %d)\n",
                    shown, strlen(shown) < strlen(a->values[v]) ? "..." : "",
                    name + LONGEST_SUFFIX, NAME_MAX, 4096);
            return -1;
        }
        for (size_t w = 0; w < v; w++)
            if (strcmp(a->values[w], a->values[v]) == 0) {
                usage_error("a value given twice would overwrite its runs (use --runs N to "
                            "repeat one)", a->values[v]);
                return -1;
            }
    }
    return 0;
}

/* A word after -p is a value unless it is an option: it does not start
 * with '-', or it is a number ("-1", "-0.5"). */
static bool is_value_word(const char *word)
{
    if (word[0] != '-')
        return true;
    char *end;
    strtod(word, &end);
    return end != word && !*end;
}

/* Options are parsed by hand: -p takes every word up to the next option. */
static int parse(int argc, char **argv, series_args *a)
{
    a->runs = 1;
    a->timeout_s = DEFAULT_TIMEOUT_S;
    a->pattern = SERIES_DEFAULT_PATTERN;
    int i = 1;
    for (; i < argc; i++) {
        const char *opt = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(opt, "--") == 0) {
            i++;
            break;
        } else if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
            series_usage(stdout);
            return -1;
        } else if (strcmp(opt, "-p") == 0 || strcmp(opt, "--values") == 0) {
            while (i + 1 < argc && is_value_word(argv[i + 1])) {
                if (a->n_values == MAX_VALUES)
                    return usage_error("too many values", NULL);
                a->values[a->n_values++] = argv[++i];
            }
        } else if (strcmp(opt, "--raw-names") == 0) {
            a->raw_names = true;
        } else if (!has_value) {
            return usage_error("option needs a value", opt);
        } else if (strcmp(opt, "--runs") == 0) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1000)
                return usage_error("--runs: expected 1-1000", argv[i]);
            a->runs = (int)n;
        } else if (strcmp(opt, "--timeout") == 0) {
            if (parse_duration(argv[++i], &a->timeout_s) < 0)
                return usage_error("--timeout: expected a duration like 90s, 30m, 2h or 0",
                                   argv[i]);
        } else if (strcmp(opt, "--gpu") == 0) {
            a->gpu = argv[++i];
        } else if (strcmp(opt, "--dir") == 0) {
            a->dir = argv[++i];
        } else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
            a->pattern = argv[++i];
            if (!strstr(a->pattern, "$p") || strchr(a->pattern, '/'))
                return usage_error("-o: expected a file name with $p", a->pattern);
        } else if (strcmp(opt, "--nsys-args") == 0) {
            a->nsys_args = argv[++i];
        } else if (strcmp(opt, "--match") == 0) {
            if (a->n_matches == sizeof a->matches / sizeof *a->matches)
                return usage_error("at most 64 --match", NULL);
            a->matches[a->n_matches++] = argv[++i];
        } else {
            return usage_error("unknown option", opt);
        }
    }
    if (a->n_values == 0)
        return usage_error("no values given (-p VALUE...)", NULL);
    if (i >= argc)
        return usage_error("no command given (after --)", NULL);
    for (size_t v = 0; v < a->n_values; v++)
        if (!a->values[v][0] || strchr(a->values[v], '/'))
            return usage_error("a value must be a non-empty name without '/'", a->values[v]);
    if (check_names(a) != 0)
        return NSYSP_ERR_USAGE;
    a->command = argv + i;
    a->n_command = (size_t)(argc - i);
    if (a->nsys_args) {
        for (char *w = strtok(a->nsys_args, " \t"); w; w = strtok(NULL, " \t")) {
            if (a->n_options == MAX_ARGS)
                return usage_error("--nsys-args: too many words", NULL);
            a->options[a->n_options++] = w;
        }
    } else {
        a->options[0] = DEFAULT_OPTIONS[0];
        a->n_options = 1;
    }
    if (a->timeout_s == 0)
        fputs("nsys-perfetto series: warning: --timeout 0: no time limit; a hung profiler"
              " will hang the series\n", stderr);
    return 0;
}

void series_expand(const char *pattern, const char *value, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = pattern; *p && n + 1 < size; p++) {
        if (p[0] == '$' && p[1] == 'p') {
            n += (size_t)snprintf(out + n, size - n, "%s", value);
            n = n < size ? n : size - 1;
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

void series_parameter(const char *pattern, char *out, size_t size)
{
    const char *p = strstr(pattern, "$p");
    size_t n = p ? (size_t)(p - pattern) : 0;
    while (n > 0 && !((pattern[n - 1] >= 'a' && pattern[n - 1] <= 'z') ||
                      (pattern[n - 1] >= 'A' && pattern[n - 1] <= 'Z')))
        n--; /* "bs=$p" -> "bs" */
    size_t start = n;
    while (start > 0 && pattern[start - 1] != '-' && pattern[start - 1] != '_')
        start--;
    if (start == n)
        snprintf(out, size, "p");
    else
        snprintf(out, size, "%.*s", (int)(n - start), pattern + start);
}

/* series-YYYYmmdd-HHMMSS-HOST, made new. */
static int make_dir(const series_args *a, char *dir, size_t size)
{
    if (a->dir) {
        snprintf(dir, size, "%s", a->dir);
        struct stat st;
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            /* below: why */
        } else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "nsys-perfetto series: --dir %s: %s\n", dir,
                    errno == ENOENT ? "a link to nothing" : "not a directory");
            return -1;
        } else if (access(dir, W_OK | X_OK) != 0) {
            fprintf(stderr, "nsys-perfetto series: --dir %s: cannot write in it: %s\n", dir,
                    strerror(errno));
            return -1;
        } else {
            return 0;
        }
    } else {
        char host[256] = "host", stamp[32];
        gethostname(host, sizeof host - 1);
        host[strcspn(host, "./")] = '\0';
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        snprintf(dir, size, "series-%s-%s", stamp, host);
        if (mkdir(dir, 0777) == 0)
            return 0;
    }
    fprintf(stderr, "nsys-perfetto series: %s: cannot create the directory: %s\n", dir,
            strerror(errno));
    return -1;
}

typedef struct run_state {
    const series_args *a;
    const char *dir, *nsys;
    volatile sig_atomic_t *interrupted;
    run_limits limits;   /* of each nsys command: the timeout, Ctrl-C */
    nsysp_summary *summaries;
    series_run *done;
    size_t n_done;
} run_state;

static void progress(const char *what, size_t step, size_t steps, const char *value, int run,
                     int runs)
{
    fprintf(stderr, "nsys-perfetto series: [%zu/%zu] $p=%s", step, steps, value);
    if (runs > 1)
        fprintf(stderr, " run %d/%d", run, runs);
    fprintf(stderr, ": %s\n", what);
}

/* One run: profile, export, convert, summarize. Returns 0, or -1 after
 * reporting the failure. */
static int one_run(run_state *st, size_t value, int run, size_t step, size_t steps)
{
    const series_args *a = st->a;
    const char *v = a->values[value];
    char name[1024], stem[4096], log[4200], sqlite[4200], trace[4200], why[1024] = "";
    series_expand(a->pattern, v, name, sizeof name);
    if (a->runs > 1)
        snprintf(name + strlen(name), sizeof name - strlen(name), "-run%d", run);
    if (snprintf(stem, sizeof stem, "%s/%s", st->dir, name) >= (int)sizeof stem) {
        fprintf(stderr, "nsys-perfetto series: %s/%s: path too long\n", st->dir, name);
        return -1;
    }
    snprintf(log, sizeof log, "%s.log", stem);
    snprintf(sqlite, sizeof sqlite, "%s.sqlite", stem);
    snprintf(trace, sizeof trace, "%s.perfetto-trace", stem);
    /* A new file: a link left where the log goes is replaced, never
     * written through. */
    remove(log);
    int log_fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (log_fd < 0) { /* its output would go to the terminal, its error name no file */
        fprintf(stderr, "nsys-perfetto series: %s: cannot create the log: %s\n", log,
                strerror(errno));
        return -1;
    }
    close(log_fd);

    const char *command[MAX_ARGS];
    char *expanded[MAX_ARGS];
    size_t n_command = a->n_command < MAX_ARGS ? a->n_command : MAX_ARGS;
    for (size_t i = 0; i < n_command; i++) {
        size_t size = strlen(a->command[i]) * (strlen(v) + 1) + 1;
        expanded[i] = malloc(size);
        if (!expanded[i])
            abort();
        series_expand(a->command[i], v, expanded[i], size);
        command[i] = expanded[i];
    }
    profile_request req = {.nsys = st->nsys, .options = a->options, .n_options = a->n_options,
                           .command = command, .n_command = n_command, .gpu = a->gpu,
                           .stem = stem, .log = log, .limits = st->limits};
    progress("profiling", step, steps, v, run, a->runs);
    const char *failed = NULL;
    if (nsys_profile(&req, why, sizeof why) != 0) {
        failed = "the profiled run";
    } else if (!cancel_requested(st->interrupted)) {
        progress("exporting and converting", step, steps, v, run, a->runs);
        char rep[4200];
        snprintf(rep, sizeof rep, "%s.nsys-rep", stem);
        if (export_nsys_report_to(st->nsys, rep, sqlite, log, &st->limits, why, sizeof why) != 0)
            failed = "nsys export";
    }
    for (size_t i = 0; i < n_command; i++)
        free(expanded[i]);
    if (cancel_requested(st->interrupted))
        return -1;
    if (!failed) {
        nsysp_options opt;
        nsysp_options_init(&opt);
        opt.output_path = trace;
        opt.cancel = st->interrupted;
        opt.raw_names = a->raw_names;
        nsysp_result res;
        if (nsysp_convert(sqlite, &opt, &res) != NSYSP_OK) {
            failed = "the conversion";
            snprintf(why, sizeof why, "%s", res.message);
        }
    }
    nsysp_summary *sum = &st->summaries[st->n_done];
    if (!failed &&
        nsysp_summarize_matching(sqlite, a->matches, a->n_matches, sum) != NSYSP_OK) {
        failed = "the summary";
        snprintf(why, sizeof why, "%s", sum->message);
    }
    if (failed) {
        char which[64] = "";
        if (a->runs > 1)
            snprintf(which, sizeof which, " run %d", run);
        if (!cancel_requested(st->interrupted))
            text_printf(stderr, "nsys-perfetto series: $p=%s%s: %s failed: %s (log: %s)\n", v, which,
                    failed, why, log);
        return -1;
    }
    st->done[st->n_done++] = (series_run){value, run, sum};
    return 0;
}

int series_main(int argc, char **argv, volatile sig_atomic_t *interrupted)
{
    series_args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    nsysp_summary_set_raw_names(a.raw_names);
    const char *nsys = find_nsys();
    if (!nsys) {
        fputs("nsys-perfetto series: nsys not found: put it on PATH or set $NSYS\n", stderr);
        return NSYSP_ERR_USAGE;
    }
    char dir[4096];
    if (make_dir(&a, dir, sizeof dir) != 0)
        return NSYSP_ERR_OUTPUT;
    size_t steps = a.n_values * (size_t)a.runs, failures = 0;
    run_state st = {&a, dir, nsys, interrupted, {interrupted, a.timeout_s},
                    calloc(steps, sizeof(nsysp_summary)), calloc(steps, sizeof(series_run)), 0};
    if (!st.summaries || !st.done)
        abort();
    size_t step = 0;
    for (size_t v = 0; v < a.n_values && !cancel_requested(interrupted); v++)
        for (int run = 1; run <= a.runs && !cancel_requested(interrupted); run++)
            failures += one_run(&st, v, run, ++step, steps) != 0;
    if (cancel_requested(interrupted))
        fprintf(stderr, "nsys-perfetto series: interrupted; keeping the %zu finished run%s\n",
                st.n_done, st.n_done == 1 ? "" : "s");
    char parameter[256];
    series_parameter(a.pattern, parameter, sizeof parameter);
    series s = {parameter, a.values, a.n_values, st.done, st.n_done};
    int written = st.n_done ? series_write(dir, &s) : 0;
    if (written == 0 && st.n_done)
        fprintf(stderr, "nsys-perfetto series: wrote %s/series.csv, series.md and series.svg\n",
                dir);
    if (failures && !cancel_requested(interrupted))
        fprintf(stderr, "nsys-perfetto series: %zu of %zu runs failed\n", failures, steps);
    for (size_t i = 0; i < st.n_done; i++)
        nsysp_summary_free(&st.summaries[i]);
    free(st.summaries);
    free(st.done);
    if (cancel_requested(interrupted))
        return NSYSP_ERR_INTERRUPTED;
    if (written != 0)
        return NSYSP_ERR_OUTPUT;
    return failures ? 1 : 0;
}
