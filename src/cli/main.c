/* nsys-perfetto: the command-line tool, a thin layer over the library.
 * Options, messages, signals and exit statuses live here; conversion lives
 * behind include/nsys_perfetto.h. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "diff.h"
#include "tool/nsys_export.h"
#include "tool/open_big.h"
#include "tool/open_view.h"
#include "tool/options.h"
#include "ranks.h"
#include "tool/report_dir.h"
#include "series.h"
#include "sql_cli.h"
#include "summary_cli.h"
#include "recipe_cli.h"
#include "web/web_main.h"
#include "web/web_open.h"
#include "tool/text_out.h"

static volatile sig_atomic_t interrupted;

enum { MAX_INPUTS = 64 };

static void on_signal(int sig)
{
    (void)sig;
    cancel_set(&interrupted, 1);
}

static void usage(FILE *to)
{
    fprintf(to, "Usage: nsys-perfetto [OPTIONS] REPORT.sqlite [REPORT.sqlite...]\n"
          "       nsys-perfetto [OPTIONS] DIR\n"
          "       nsys-perfetto summary [--match REGEX]... [--csv] [--label L]... REPORT|DIR...\n"
          "       nsys-perfetto diff [--gate PCT] [--match REGEX]... [--format F] BEFORE AFTER\n"
          "       nsys-perfetto series -p VALUE... [OPTIONS] -- COMMAND [ARGS...]\n"
          "       nsys-perfetto ranks [OPTIONS] DIR|REPORT...  (a distributed job, rank by rank)\n"
          "       nsys-perfetto serve [--port N] [--bind ADDR] [--dir DIR] ... (see serve --help)\n"
          "       nsys-perfetto sql [--list] [MODULE...]   (the nsys PerfettoSQL package as one script)\n"
          "       nsys-perfetto recipe NAME --output DIR REPORT|DIR...  (NVIDIA's recipes; --list)\n"
          "Convert an Nsight Systems SQLite export (nsys export --type sqlite) into a\n"
          "Perfetto trace for ui.perfetto.dev and trace_processor. A .nsys-rep or .qdrep\n"
          "report is exported with nsys (on PATH, or $NSYS) first. Several reports merge\n"
          "into one trace (use -o): each process is labelled with its host, pids are kept\n"
          "apart, and times are aligned on each report's session start in UTC. A\n"
          "directory converts each of its reports to its own trace beside it. See\n"
          "'nsys-perfetto summary --help' and 'nsys-perfetto series --help'.\n"
          "\n"
          "Options:\n"
          "  -o, --output PATH        write the trace to PATH\n"
          "                           (default: REPORT.perfetto-trace beside the input)\n"
          "      --kernel-names KIND  short | demangled | mangled (default: short)\n"
          "      --min-stream-activity PCT\n"
          "                           hide CUDA streams busy less than PCT%% of the report\n"
          "                           (default 0: hide nothing)\n"
          "      --nvtx-domain NAME   keep only NVTX ranges/marks of domain NAME; repeatable\n"
          "                           (the default domain is called 'default')\n"
          "      --nvtx-filter REGEX  keep only NVTX ranges/marks whose name matches REGEX\n"
          "                           (POSIX extended)\n"
          "      --raw-names          name PyTorch op ranges by their whole text\n"
          "                           (default: by the op, 'aten::to', the rest as args)\n"
          "      --time-range START:END\n"
          "                           keep events that start in this range of the report\n"
          "                           (times with a unit: ns, us, ms or s; e.g. 1.5s:2s)\n"
          "      --gpu ID             keep the GPU work of device ID only\n"
          "      --pid PID            keep the events of process PID only (scheduling stays)\n"
          "      --sources LIST       convert only these sources, comma-separated:\n"
          "                           %s\n"
          "      --align start        with several reports: start them all at zero instead\n"
          "                           of aligning them on their UTC session starts\n"
          "      --format F           perfetto (default) or kineto: Chrome trace JSON as\n"
          "                           PyTorch's profiler writes it, for HTA and\n"
          "                           chrome://tracing; REPORT.json.gz, one per rank\n"
          "                           (REPORT.rankN.json.gz; -o DIR/ puts them in DIR)\n"
          "      --compress-level N   gzip level 1-9 (default: 6; 1 with --format kineto)\n"
          "      --no-compress        write an uncompressed trace\n"
          "      --threads N          threads that read and convert, 1-8 (default: the\n"
          "                           CPUs, at most 8); the trace is the same bytes\n"
          "      --stats              print per-source row accounting to stderr\n"
          "      --open               then serve the trace on 127.0.0.1:9001 (or the next\n"
          "                           free port) for ui.perfetto.dev, print its link (and\n"
          "                           open it when there is a display); exit once the UI\n"
          "                           fetched it whole (other fetches do not count)\n"
          "      --open-timeout S     stop serving after S seconds (default 0: until\n"
          "                           fetched or Ctrl-C); the native engine's loading\n"
          "                           counts too\n"
          "      --open-limit SIZE    a trace estimated to need more in a trace processor\n"
          "                           (default 2G, what the browser holds) opens through\n"
          "                           Perfetto's native trace_processor_shell --httpd\n"
          "      --trace-processor PATH  that program (default: on PATH)\n"
          "      --perfetto-ui URL    the Perfetto UI --open links to (default\n"
          "                           https://ui.perfetto.dev; a team's own copy)\n"
          "      --open-view FILE     the UI's startup commands (JSON, as its settings take\n"
          "                           them) instead of ours (GPUs expanded, utilization\n"
          "                           pinned, the nsys SQL package loaded, a kernel tab);\n"
          "                           'none' opens plain\n"
          "  -q, --quiet              print nothing but errors\n"
          "  -h, --help               show this help\n"
          "      --version            show the version\n"
          "\n"
          "Exit status:\n"
          "  0  converted\n"
          "  1  internal error\n"
          "  2  bad command line\n"
          "  3  input missing, a directory, or unreadable\n"
          "  4  input empty, not SQLite, truncated or corrupt\n"
          "  5  input is SQLite but not a usable Nsight Systems export\n"
          "  6  output cannot be written\n"
          "  7  interrupted\n",
          source_names());
}

/* A one-line progress display on a terminal, redrawn at most 5 times a
 * second. */
static void show_progress(void *ctx, double fraction)
{
    struct timespec *last = ctx, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec == last->tv_sec && now.tv_nsec - last->tv_nsec < 200000000)
        return;
    *last = now;
    fprintf(stderr, "\rnsys-perfetto: converting... %3d%%", (int)(fraction * 100));
}

static void print_stats(const nsysp_result *r, double seconds)
{
    fprintf(stderr, "%-12s %-36s %10s %10s %10s\n", "source", "table", "rows", "events",
            "skipped");
    for (size_t i = 0; i < r->n_sources; i++) {
        const nsysp_source_stats *s = &r->sources[i];
        uint64_t skipped = 0;
        for (int k = 0; k < NSYSP_SKIP_REASONS; k++)
            skipped += s->skipped[k];
        fprintf(stderr, "%-12s %-36s %10llu %10llu %10llu\n", s->name, s->table,
                (unsigned long long)s->rows, (unsigned long long)s->emitted,
                (unsigned long long)skipped);
        for (int k = 0; k < NSYSP_SKIP_REASONS; k++)
            if (s->skipped[k])
                fprintf(stderr, "%12s   skipped (%s): %llu\n", "",
                        nsysp_skip_reason_name((nsysp_skip_reason)k),
                        (unsigned long long)s->skipped[k]);
    }
    fprintf(stderr, "tracks %llu, flows %llu, packets %llu, %llu bytes (%llu uncompressed)",
            (unsigned long long)r->tracks, (unsigned long long)r->flows,
            (unsigned long long)r->packets,
            (unsigned long long)r->bytes_written, (unsigned long long)r->bytes_uncompressed);
    if (r->time_shift_ns)
        fprintf(stderr, ", timestamps shifted by +%lld ns", (long long)r->time_shift_ns);
    fprintf(stderr, ", %.2f s\n", seconds);
    if (r->flows_dropped)
        fprintf(stderr, "flows dropped: %llu GPU operations stamped before their call (too many"
                        " calls awaited their turn at once)\n",
                (unsigned long long)r->flows_dropped);
    for (size_t i = 0; i < r->n_unread; i++)
        if (r->unread[i].rows != 0)
            fprintf(stderr, "not converted: %s (%lld rows)\n", r->unread[i].name,
                    (long long)r->unread[i].rows);
}

/* Converts the reports into one trace (exporting .nsys-rep first) and
 * says so; returns the exit status. */
static int convert_inputs(const char *const *given, size_t n_inputs, const nsysp_options *options,
                          int quiet, int stats, nsysp_result *res)
{
    /* A .nsys-rep goes through the user's nsys first; the trace still goes
     * beside the (first) report. */
    static char exported[MAX_INPUTS][4096], tmpdirs[MAX_INPUTS][4096];
    const char *inputs[MAX_INPUTS];
    char default_output[4096];
    nsysp_options opt = *options;
    int rc = NSYSP_OK;
    size_t n_exported = 0;
    for (size_t i = 0; i < n_inputs && rc == NSYSP_OK; i++) {
        inputs[i] = given[i];
        if (!is_nsys_report(inputs[i]))
            continue;
        /* SIGTERM reaches us alone: nsys export is stopped with its session. */
        char why[1200];
        run_limits limits = {.cancel = &interrupted};
        rc = export_nsys_report_limited(inputs[i], exported[i], sizeof exported[i], tmpdirs[i],
                                        sizeof tmpdirs[i], why, sizeof why, &limits);
        if (rc != NSYSP_OK)
            text_printf(stderr, "nsys-perfetto: %s\n", why);
        if (rc == NSYSP_OK) {
            n_exported = i + 1;
            inputs[i] = exported[i];
        }
    }
    if (rc == NSYSP_OK && !opt.output_path && is_nsys_report(given[0]) &&
        nsysp_default_output_path(given[0], default_output, sizeof default_output) == 0) {
        /* Kineto JSON: the same name, as .json.gz (.json uncompressed). */
        char *ext = strrchr(default_output, '.');
        if (opt.format == NSYSP_FORMAT_KINETO && ext &&
            (size_t)(ext - default_output) + sizeof ".json.gz" <= sizeof default_output)
            strcpy(ext, opt.compress_level ? ".json.gz" : ".json");
        opt.output_path = default_output;
    }

    struct timespec last_progress = {0};
    bool progress = !quiet && isatty(2);
    if (progress) {
        opt.progress = show_progress;
        opt.progress_ctx = &last_progress;
    }
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    nsysp_status status = rc != NSYSP_OK ? (nsysp_status)rc
                                         : nsysp_convert_many(inputs, n_inputs, &opt, res);
    if (progress && last_progress.tv_sec)
        fputs("\r\033[K", stderr); /* clear the progress line */
    for (size_t i = 0; i < n_exported; i++)
        if (exported[i][0])
            remove_export(exported[i], tmpdirs[i]);
    if (rc != NSYSP_OK)
        return rc; /* said why above */
    if (status != NSYSP_OK) {
        text_printf(stderr, "nsys-perfetto: %s\n", res->message);
        return status;
    }
    clock_gettime(CLOCK_MONOTONIC, &ended);
    if (stats)
        print_stats(res, (double)(ended.tv_sec - began.tv_sec) +
                              (double)(ended.tv_nsec - began.tv_nsec) * 1e-9);
    if (res->hidden_streams && !quiet)
        fprintf(stderr, "nsys-perfetto: hid %llu CUDA streams busy less than %g%% of the report "
                        "(--min-stream-activity)\n",
                (unsigned long long)res->hidden_streams, opt.min_stream_activity);
    if (!quiet && res->n_outputs > 1)
        text_printf(stderr, "nsys-perfetto: wrote %s and %zu more, one per rank\n",
                    res->output_path, res->n_outputs - 1);
    else if (!quiet)
        text_printf(stderr, "nsys-perfetto: wrote %s\n", res->output_path);
    if (!quiet && res->not_written)
        fprintf(stderr, "nsys-perfetto: left out %llu CPU samples and context switches (Kineto "
                        "JSON has no form for them)\n",
                (unsigned long long)res->not_written);
    return 0;
}

/* Every report of dir, each to its own trace beside it; a failure is
 * reported and the others still go. */
/* Whether two reports of a directory would write the same trace (r.nsys-rep
 * and r.qdrep both make r.perfetto-trace), said in words: then none is
 * converted, rather than one trace silently replacing the other. */
static bool traces_collide(char **paths, size_t n)
{
    char (*traces)[4096] = calloc(n ? n : 1, sizeof *traces);
    if (!traces)
        abort();
    bool collide = false;
    for (size_t i = 0; i < n && !collide; i++) {
        if (nsysp_default_output_path(paths[i], traces[i], sizeof traces[i]) != 0)
            snprintf(traces[i], sizeof traces[i], "%s", paths[i]);
        for (size_t j = 0; j < i && !collide; j++)
            if (strcmp(traces[i], traces[j]) == 0) {
                text_printf(stderr, "nsys-perfetto: %s and %s would both write %s: convert them "
                                "one at a time with -o\n", paths[j], paths[i], traces[i]);
                collide = true;
            }
    }
    free(traces);
    return collide;
}

static int convert_directory(const char *dir, const nsysp_options *opt, int quiet, int stats)
{
    char **paths;
    size_t n;
    if (opt->output_path) {
        fprintf(stderr, "nsys-perfetto: %s: -o does not apply to a directory (each trace goes "
                        "beside its report)\n", dir);
        return NSYSP_ERR_USAGE;
    }
    if (list_reports("nsys-perfetto", dir, &paths, &n) != 0 || n == 0) {
        text_printf(stderr, "nsys-perfetto: %s: %s\n", dir,
                n == 0 && paths ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                : strerror(errno));
        free_reports(paths, paths ? n : 0);
        return NSYSP_ERR_INPUT_OPEN;
    }
    if (traces_collide(paths, n)) {
        free_reports(paths, n);
        return NSYSP_ERR_OUTPUT;
    }
    int status = NSYSP_OK;
    for (size_t i = 0; i < n && !cancel_requested(&interrupted); i++) {
        nsysp_result res;
        const char *one = paths[i];
        int rc = convert_inputs(&one, 1, opt, quiet, stats, &res);
        status = rc != NSYSP_OK ? rc : status;
    }
    free_reports(paths, n);
    return cancel_requested(&interrupted) ? NSYSP_ERR_INTERRUPTED : status;
}

/* --open: the browser fetches the trace, or, past what it holds, Perfetto's
 * native trace processor serves it (open_big.h); the link lays it out:
 * ours, or the --open-view given (*view, read already; ours false). */
static int open_trace(const nsysp_result *res, const char *input, const char *ui,
                      const char *engine, unsigned long long limit, unsigned timeout_s,
                      bool ours, ui_commands *view, int quiet)
{
    uint64_t need = open_estimated_bytes(res);
    open_engine kind = need <= limit ? OPEN_ENGINE_BROWSER : OPEN_ENGINE_NATIVE;
    if (ours)
        open_view_ours(kind, ui, view);
    if (kind == OPEN_ENGINE_BROWSER)
        return web_open_trace(res->output_path, ui, view, timeout_s, &interrupted, quiet);
    int status = open_with_engine(res->output_path, engine, ui, view, timeout_s, &interrupted,
                                  quiet);
    if (status >= 0)
        return status;
    nsysp_measures m;
    int64_t session = nsysp_measure(input, NULL, &m) == NSYSP_OK ? m.session_ns : -1;
    nsysp_measures_free(&m);
    open_say_too_big(res->output_path, need, limit, session);
    return NSYSP_OK;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "summary") == 0) {
        /* Not for series: it summarizes the runs that finished after Ctrl-C. */
        catch_signals();
        nsysp_summary_set_cancel(&interrupted);
        return text_close_stdout("summary", summary_main(argc - 1, argv + 1));
    }
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return text_close_stdout("diff", diff_main(argc - 1, argv + 1));
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "recipe") == 0)
        return recipe_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sql") == 0)
        return text_close_stdout("sql", sql_main(argc - 1, argv + 1));
    if (argc > 1 && strcmp(argv[1], "ranks") == 0) {
        catch_signals();
        return text_close_stdout("ranks", ranks_main(argc - 1, argv + 1, &interrupted));
    }
    if (argc > 1 && strcmp(argv[1], "series") == 0) {
        catch_signals();
        return text_close_stdout("series", series_main(argc - 1, argv + 1, &interrupted));
    }

    enum { OPT_VERSION = 256, OPT_KERNEL_NAMES, OPT_LEVEL, OPT_NO_COMPRESS, OPT_STATS,
           OPT_MIN_STREAM_ACTIVITY, OPT_NVTX_DOMAIN, OPT_NVTX_FILTER, OPT_TIME_RANGE, OPT_GPU,
           OPT_PID, OPT_SOURCES, OPT_OPEN, OPT_ALIGN, OPT_PERFETTO_UI, OPT_THREADS,
           OPT_OPEN_TIMEOUT, OPT_RAW_NAMES, OPT_TRACE_PROCESSOR, OPT_OPEN_LIMIT, OPT_FORMAT,
           OPT_OPEN_VIEW };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"kernel-names", required_argument, NULL, OPT_KERNEL_NAMES},
        {"compress-level", required_argument, NULL, OPT_LEVEL},
        {"no-compress", no_argument, NULL, OPT_NO_COMPRESS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"stats", no_argument, NULL, OPT_STATS},
        {"min-stream-activity", required_argument, NULL, OPT_MIN_STREAM_ACTIVITY},
        {"nvtx-domain", required_argument, NULL, OPT_NVTX_DOMAIN},
        {"nvtx-filter", required_argument, NULL, OPT_NVTX_FILTER},
        {"time-range", required_argument, NULL, OPT_TIME_RANGE},
        {"gpu", required_argument, NULL, OPT_GPU},
        {"pid", required_argument, NULL, OPT_PID},
        {"sources", required_argument, NULL, OPT_SOURCES},
        {"open", no_argument, NULL, OPT_OPEN},
        {"perfetto-ui", required_argument, NULL, OPT_PERFETTO_UI},
        {"open-timeout", required_argument, NULL, OPT_OPEN_TIMEOUT},
        {"raw-names", no_argument, NULL, OPT_RAW_NAMES},
        {"trace-processor", required_argument, NULL, OPT_TRACE_PROCESSOR},
        {"open-limit", required_argument, NULL, OPT_OPEN_LIMIT},
        {"align", required_argument, NULL, OPT_ALIGN},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"open-view", required_argument, NULL, OPT_OPEN_VIEW},
        {NULL, 0, NULL, 0},
    };

    catch_signals(); /* first: a signal soon after the start still ends the run cleanly */
    nsysp_options opt;
    nsysp_options_init(&opt);
    /* argv outlives the conversion, so domain names can point into it. */
    static const char *domains[64], *sources[64];
    size_t n_domains = 0;
    int quiet = 0, stats = 0, open_ui = 0, level_given = 0, c;
    unsigned open_timeout = 0;
    const char *trace_processor = NULL;
    unsigned long long open_limit = OPEN_DEFAULT_LIMIT;
    const char *perfetto_ui = "https://ui.perfetto.dev", *open_view = NULL;
    while ((c = getopt_long(argc, argv, "o:qh", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            opt.output_path = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case OPT_VERSION:
            printf("nsys-perfetto %s\n", nsysp_version());
            return 0;
        case OPT_KERNEL_NAMES:
            if (parse_kernel_names(optarg, &opt.kernel_names) < 0) {
                fprintf(stderr, "nsys-perfetto: --kernel-names: expected short, demangled or "
                                "mangled, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_LEVEL: {
            char *end;
            long level = strtol(optarg, &end, 10);
            if (*end || level < 1 || level > 9) {
                fprintf(stderr, "nsys-perfetto: --compress-level: expected 1-9, got '%s'\n",
                        optarg);
                return NSYSP_ERR_USAGE;
            }
            opt.compress_level = (int)level;
            level_given = 1;
            break;
        }
        case OPT_THREADS: {
            char *end;
            long threads = strtol(optarg, &end, 10);
            if (!*optarg || *end || threads < 1 || threads > NSYSP_MAX_THREADS) {
                fprintf(stderr, "nsys-perfetto: --threads: expected 1-%d, got '%s'\n",
                        NSYSP_MAX_THREADS, optarg);
                return NSYSP_ERR_USAGE;
            }
            opt.threads = (int)threads;
            break;
        }
        case OPT_MIN_STREAM_ACTIVITY:
            if (parse_percentage(optarg, &opt.min_stream_activity) < 0) {
                fprintf(stderr, "nsys-perfetto: --min-stream-activity: expected a percentage "
                                "0-100, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_NVTX_DOMAIN:
            if (n_domains == sizeof domains / sizeof domains[0]) {
                fprintf(stderr, "nsys-perfetto: --nvtx-domain: at most 64 domains\n");
                return NSYSP_ERR_USAGE;
            }
            domains[n_domains++] = optarg;
            break;
        case OPT_NVTX_FILTER: {
            char why[256];
            if (parse_regex(optarg, why, sizeof why) < 0) {
                fprintf(stderr, "nsys-perfetto: --nvtx-filter: %s\n", why);
                return NSYSP_ERR_USAGE;
            }
            opt.nvtx_filter = optarg;
            break;
        }
        case OPT_TIME_RANGE:
            if (parse_time_range(optarg, &opt) < 0) {
                fprintf(stderr, "nsys-perfetto: --time-range: expected START:END with units "
                                "ns, us, ms or s (e.g. 1.5s:2s), got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_GPU:
        case OPT_PID: {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*end || v < 0 || v > INT32_MAX || (c == OPT_PID && v == 0)) {
                fprintf(stderr, "nsys-perfetto: --%s: expected a number, got '%s'\n",
                        c == OPT_GPU ? "gpu" : "pid", optarg);
                return NSYSP_ERR_USAGE;
            }
            if (c == OPT_GPU)
                opt.gpu = v;
            else
                opt.pid = (int32_t)v;
            break;
        }
        case OPT_SOURCES: {
            const char *bad = NULL;
            int n = parse_sources(optarg, sources, sizeof sources / sizeof sources[0], &bad);
            if (n < 0) {
                fprintf(stderr, "nsys-perfetto: --sources: unknown source '%s' (known: %s)\n",
                        bad, source_names());
                return NSYSP_ERR_USAGE;
            }
            opt.sources = sources;
            opt.n_sources = (size_t)n;
            break;
        }
        case OPT_OPEN:
            open_ui = 1;
            break;
        case OPT_OPEN_VIEW:
            open_view = optarg;
            break;
        case OPT_OPEN_TIMEOUT: {
            char *end;
            long seconds = strtol(optarg, &end, 10);
            if (!*optarg || *end || seconds < 0 || seconds > 7 * 24 * 3600) {
                fprintf(stderr, "nsys-perfetto: --open-timeout: expected seconds 0-604800, "
                                "got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            open_timeout = (unsigned)seconds;
            break;
        }
        case OPT_PERFETTO_UI:
            if (!is_http_url(optarg)) {
                fprintf(stderr, "nsys-perfetto: --perfetto-ui: expected an http:// or https:// "
                                "URL, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            perfetto_ui = optarg;
            break;
        case OPT_ALIGN:
            if (strcmp(optarg, "start") != 0 && strcmp(optarg, "utc") != 0) {
                fprintf(stderr, "nsys-perfetto: --align: expected start or utc, got '%s'\n",
                        optarg);
                return NSYSP_ERR_USAGE;
            }
            opt.align_start = strcmp(optarg, "start") == 0;
            break;
        case OPT_TRACE_PROCESSOR:
            if (open_check_engine(optarg) != NSYSP_OK)
                return NSYSP_ERR_USAGE; /* before the conversion, not after */
            trace_processor = optarg;
            break;
        case OPT_OPEN_LIMIT:
            if (parse_size(optarg, &open_limit) < 0 || !open_limit) {
                fprintf(stderr, "nsys-perfetto: --open-limit: expected a size such as 2G, "
                                "got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_RAW_NAMES:
            opt.raw_names = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "perfetto") != 0 && strcmp(optarg, "kineto") != 0) {
                fprintf(stderr, "nsys-perfetto: --format: expected perfetto or kineto, got "
                                "'%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            opt.format = strcmp(optarg, "kineto") == 0 ? NSYSP_FORMAT_KINETO
                                                       : NSYSP_FORMAT_PERFETTO;
            break;
        case OPT_NO_COMPRESS:
            opt.compress_level = 0;
            level_given = 1;
            break;
        case OPT_STATS:
            stats = 1;
            opt.count_unread_tables = 1;
            break;
        default:
            fputs("Try 'nsys-perfetto --help'.\n", stderr);
            return NSYSP_ERR_USAGE;
        }
    }
    size_t n_inputs = (size_t)(argc - optind);
    if (n_inputs == 0 || n_inputs > MAX_INPUTS) {
        fprintf(stderr, "nsys-perfetto: %s\nTry 'nsys-perfetto --help'.\n",
                n_inputs == 0 ? "no input report given" : "at most 64 reports at once");
        return NSYSP_ERR_USAGE;
    }
    opt.nvtx_domains = domains;
    opt.n_nvtx_domains = n_domains;
    opt.cancel = &interrupted;
    /* JSON is ten times the bytes of the protobuf trace: at the protobuf default its
     * compression would take longer than the conversion; level 1 keeps up. */
    if (opt.format == NSYSP_FORMAT_KINETO && !level_given)
        opt.compress_level = 1;
    if (open_ui && opt.format == NSYSP_FORMAT_KINETO) {
        fprintf(stderr, "nsys-perfetto: --open serves a Perfetto trace; open Kineto JSON in "
                        "ui.perfetto.dev or chrome://tracing yourself\n");
        return NSYSP_ERR_USAGE;
    }

    /* The same report twice would be two ranks of one job. */
    n_inputs = keep_each_report_once("nsys-perfetto", argv + optind, n_inputs);
    if (open_view && !open_ui) {
        fprintf(stderr, "nsys-perfetto: --open-view applies with --open\n");
        return NSYSP_ERR_USAGE;
    }
    /* A view the UI would refuse is refused before converting. */
    ui_commands view = {0};
    if (open_view_choose(open_view, &view) != NSYSP_OK)
        return NSYSP_ERR_USAGE;
    if (open_view && open_view_check(perfetto_ui, &view, open_view) != NSYSP_OK) {
        ui_commands_free(&view);
        return NSYSP_ERR_USAGE;
    }

    if (n_inputs == 1 && is_directory(argv[optind]))
        return convert_directory(argv[optind], &opt, quiet, stats);
    const char *inputs[MAX_INPUTS];
    for (size_t i = 0; i < n_inputs; i++)
        inputs[i] = argv[optind + (int)i];
    nsysp_result res;
    int rc = convert_inputs(inputs, n_inputs, &opt, quiet, stats, &res);
    if (rc == NSYSP_OK && open_ui)
        rc = open_trace(&res, inputs[0], perfetto_ui, trace_processor, open_limit, open_timeout,
                        open_view == NULL, &view, quiet);
    ui_commands_free(&view);
    return rc;
}
