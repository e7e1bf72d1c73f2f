/* --open for traces past what the browser holds. The UI's trace processor
 * runs in WebAssembly with about 2-4 GB; a trace that needs more is opened
 * by Perfetto's native engine, `trace_processor_shell --httpd TRACE`, which
 * the UI finds on 127.0.0.1:9001 and offers to use ("YES, use loaded
 * trace"). This file estimates the need, runs the engine until Ctrl-C, or
 * says what to do without it. */
#include "open_big.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/cancel.h"
#include "open_view.h"
#include "subprocess.h"
#include "text_out.h"
#include "url_origin.h"

enum { ENGINE_PORT = 9001, READY_TIMEOUT_S = 600, POLL_MS = 100 };

uint64_t open_estimated_bytes(const nsysp_result *res)
{
    uint64_t events = 0;
    for (size_t i = 0; i < res->n_sources; i++)
        events += res->sources[i].emitted;
    return events * OPEN_BYTES_PER_EVENT + res->flows * OPEN_BYTES_PER_EVENT / 2;
}

/* The program's path: given, else trace_processor_shell or trace_processor
 * on PATH. */
static bool find_engine(const char *given, char *out, size_t size)
{
    if (given)
        return find_program(given, out, size) == 0;
    return find_program("trace_processor_shell", out, size) == 0 ||
           find_program("trace_processor", out, size) == 0;
}

int open_check_engine(const char *given)
{
    char path[4096];
    if (find_program(given, path, sizeof path) == 0)
        return NSYSP_OK;
    const char *why = errno == ENOENT ? "no such program" : errno == EISDIR ? "a directory"
                                                                          : "not executable";
    text_printf(stderr, "nsys-perfetto: --trace-processor: %s: %s\n", given, why);
    return NSYSP_ERR_USAGE;
}

static bool engine_listening(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(ENGINE_PORT)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool up = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(fd);
    return up;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

void open_say_too_big(const char *trace, uint64_t estimate, uint64_t limit, int64_t session_ns)
{
    char range[96] = "";
    if (session_ns > 0 && estimate > 0) {
        double fits = (double)session_ns * ((double)limit / (double)estimate) / 1e9;
        snprintf(range, sizeof range, ", or convert a part: --time-range 0s:%.3gs", fits);
    }
    text_printf(stderr,
                "nsys-perfetto: --open: %s needs about %.1f GB in a trace processor, past the "
                "browser's %.1f GB: get Perfetto's (curl -LO https://get.perfetto.dev/"
                "trace_processor && chmod +x trace_processor) and give it with --trace-processor "
                "PATH%s\n",
                trace, (double)estimate / 1e9, (double)limit / 1e9, range);
}

/* The trace as the engine's argument: a relative path that could read as
 * an option (-x) or a URL (https:...) is given as ./PATH. */
static void engine_trace_arg(const char *trace, char *out, size_t size)
{
    snprintf(out, size, "%s%s", trace[0] == '/' ? "" : "./", trace);
}

/* A file for the engine's output, so that a failure can say why; "/dev/null"
 * when none can be made. */
static void engine_log_path(char *out, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, size, "%s/nsys-perfetto-engine-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(out);
    if (fd < 0)
        snprintf(out, size, "/dev/null");
    else
        close(fd);
}

/* Says why the engine ended (rc as run_finished gives it), with its last
 * line of output. */
static void say_engine_ended(const char *engine, const char *when, int rc, const char *log)
{
    char last[512], why[128];
    last_line(log, last, sizeof last);
    run_failure(rc, NULL, why, sizeof why);
    text_printf(stderr, "nsys-perfetto: --open: %s %s (%s)%s%s\n", engine, when, why,
                last[0] ? ": " : "", last);
}

enum engine_state { ENGINE_SERVING, ENGINE_ENDED, ENGINE_LATE, ENGINE_INTERRUPTED };

/* Waits for the engine to listen (it does once the trace is loaded, which
 * takes a while for a big one) until deadline; *rc is its result when it
 * ended. */
static enum engine_state wait_for_engine(run_handle *h, double deadline,
                                         volatile sig_atomic_t *stop, int *rc)
{
    for (;;) {
        if (run_finished(h, rc))
            return ENGINE_ENDED;
        if (engine_listening())
            return ENGINE_SERVING;
        if (cancel_requested(stop))
            return ENGINE_INTERRUPTED;
        if (now_s() >= deadline)
            return ENGINE_LATE;
        sleep_ms(POLL_MS);
    }
}

/* Serves until Ctrl-C, deadline (0: none) or the engine's end; whether it
 * ended by itself, its result then in *rc. */
static bool serve_until_stopped(run_handle *h, double deadline, volatile sig_atomic_t *stop,
                                int *rc)
{
    while (!cancel_requested(stop) && !(deadline && now_s() >= deadline)) {
        if (run_finished(h, rc))
            return true;
        sleep_ms(POLL_MS);
    }
    return false;
}

/* The view was checked for the link's length (open_view_for_trace). */
static void print_link(const char *ui, const ui_commands *view)
{
    buf link = {0};
    open_view_link(ui, NULL, view, &link);
    printf("%s\n", (const char *)link.data);
    fflush(stdout);
    buf_free(&link);
}

int open_with_engine(const char *trace, const char *engine_path, const char *ui,
                     const struct ui_commands *view, unsigned timeout_s, volatile sig_atomic_t *stop,
                     int quiet)
{
    char engine[4096];
    if (!find_engine(engine_path, engine, sizeof engine))
        return engine_path ? open_check_engine(engine_path) : -1;
    if (engine_listening()) {
        fprintf(stderr, "nsys-perfetto: --open: 127.0.0.1:%d is in use (another trace "
                        "processor?): stop it first\n", ENGINE_PORT);
        return NSYSP_ERR_INTERNAL;
    }
    /* The engine answers the UI's requests (CORS) from ui.perfetto.dev and
     * 127.0.0.1:10000 only: another UI (--perfetto-ui, a team's copy) is
     * named to it, or the UI could not use it. */
    char origin[1024];
    url_origin(ui, origin, sizeof origin);
    static const char *const ENGINE_ORIGINS[] = {"https://ui.perfetto.dev",
                                                 "http://localhost:10000",
                                                 "http://127.0.0.1:10000"};
    bool known = false;
    for (size_t i = 0; i < sizeof ENGINE_ORIGINS / sizeof ENGINE_ORIGINS[0]; i++)
        known = known || strcmp(origin, ENGINE_ORIGINS[i]) == 0;
    char trace_arg[PATH_MAX + sizeof "./"], log[PATH_MAX], package[PATH_MAX];
    engine_trace_arg(trace, trace_arg, sizeof trace_arg);
    if (open_view_write_package(package) != 0) {
        fprintf(stderr, "nsys-perfetto: --open: cannot write the SQL package for %s: %s\n",
                engine, strerror(errno));
        return NSYSP_ERR_INTERNAL;
    }
    const char *engine_argv[] = {engine, "--httpd", "--add-sql-package", package, trace_arg,
                                 known ? NULL : "--http-additional-cors-origins", origin, NULL};
    engine_log_path(log, sizeof log);
    /* In a session of its own under a keeper (subprocess.h): whatever the
     * engine is (a wrapper script and its children), all of it ends when
     * we stop it, or should we end first. */
    run_handle h;
    double started = now_s();
    if (run_start(&h, engine_argv, log, NULL, NULL) != 0) {
        fprintf(stderr, "nsys-perfetto: --open: cannot start %s: %s\n", engine, strerror(errno));
        remove(log);
        open_view_remove_package(package);
        return NSYSP_ERR_INTERNAL;
    }
    /* --open-timeout bounds all of it, the engine's loading too. */
    double deadline = timeout_s ? started + timeout_s : 0;
    int rc = 0, status = NSYSP_OK;
    switch (wait_for_engine(&h, deadline ? deadline : started + READY_TIMEOUT_S, stop, &rc)) {
    case ENGINE_SERVING:
        print_link(ui, view);
        if (!quiet)
            text_printf(stderr, "nsys-perfetto: %s is open in %s on 127.0.0.1:%d: in the UI, "
                                "choose \"YES, use loaded trace\" (Ctrl-C to stop)\n", trace,
                        engine, ENGINE_PORT);
        if (serve_until_stopped(&h, deadline, stop, &rc)) {
            say_engine_ended(engine, "stopped serving", rc, log);
            status = NSYSP_ERR_INTERNAL;
        }
        break;
    case ENGINE_ENDED:
        say_engine_ended(engine, "ended before serving", rc, log);
        status = NSYSP_ERR_INTERNAL;
        break;
    case ENGINE_LATE: {
        char limit[64];
        format_duration(deadline ? timeout_s : READY_TIMEOUT_S, limit, sizeof limit);
        text_printf(stderr, "nsys-perfetto: --open: %s did not start serving %s within %s%s\n",
                    engine, trace, limit, deadline ? " (--open-timeout)" : "");
        status = NSYSP_ERR_INTERNAL;
        break;
    }
    case ENGINE_INTERRUPTED:
        text_printf(stderr, "nsys-perfetto: --open: interrupted while %s loaded %s\n", engine,
                    trace);
        status = NSYSP_ERR_INTERRUPTED;
        break;
    }
    run_stop(&h, cancel_requested(stop) ? RUN_CANCELLED : RUN_TIMED_OUT);
    remove(log);
    open_view_remove_package(package);
    return status;
}
