/* --open for traces past what the browser holds. The UI's trace processor
 * runs in WebAssembly with about 2-4 GB; a trace that needs more is opened
 * by Perfetto's native engine, `trace_processor_shell --httpd TRACE`, which
 * the UI finds on 127.0.0.1:9001 and offers to use ("YES, use loaded
 * trace"). This file estimates the need, runs the engine until Ctrl-C, or
 * says what to do without it. */
#include "open_big.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cancel.h"
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

int open_with_engine(const char *trace, const char *engine_path, const char *ui,
                     unsigned timeout_s, volatile sig_atomic_t *stop, int quiet)
{
    char engine[4096];
    if (!find_engine(engine_path, engine, sizeof engine))
        return -1;
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
    const char *engine_argv[] = {engine, "--httpd", trace,
                                 known ? NULL : "--http-additional-cors-origins", origin, NULL};
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* Killed outright, --open takes the engine with it. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1)
            _exit(127);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        execv(engine, (char *const *)engine_argv);
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "nsys-perfetto: --open: cannot start %s: %s\n", engine, strerror(errno));
        return NSYSP_ERR_INTERNAL;
    }
    /* Loading a big trace takes a while: the engine listens once it is in. */
    int status = 0;
    bool exited = false;
    for (int waited = 0; !engine_listening() && !cancel_requested(stop); waited += POLL_MS) {
        if (waitpid(pid, &status, WNOHANG) == pid || waited > READY_TIMEOUT_S * 1000) {
            exited = true;
            break;
        }
        sleep_ms(POLL_MS);
    }
    if (exited) {
        text_printf(stderr, "nsys-perfetto: --open: %s did not start serving %s\n", engine,
                    trace);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return NSYSP_ERR_INTERNAL;
    }
    size_t base = strlen(ui);
    while (base && ui[base - 1] == '/')
        base--;
    printf("%.*s/#!/\n", (int)base, ui);
    fflush(stdout);
    if (!quiet && !cancel_requested(stop))
        text_printf(stderr, "nsys-perfetto: %s is open in %s on 127.0.0.1:%d: in the UI, choose "
                            "\"YES, use loaded trace\" (Ctrl-C to stop)\n", trace, engine,
                    ENGINE_PORT);
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    while (!cancel_requested(stop) && waitpid(pid, &status, WNOHANG) == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (timeout_s && now.tv_sec - started.tv_sec >= (time_t)timeout_s)
            break;
        sleep_ms(POLL_MS);
    }
    if (waitpid(pid, &status, WNOHANG) == 0) {
        kill(pid, SIGTERM);
        for (int i = 0; i < 50 && waitpid(pid, &status, WNOHANG) == 0; i++)
            sleep_ms(POLL_MS);
        if (waitpid(pid, &status, WNOHANG) == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
    }
    return NSYSP_OK;
}
