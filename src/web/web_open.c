#include "web_open.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "web_guard.h"
#include "tool/open_view.h"
#include "tool/url_origin.h"
#include "web_http.h"

enum {
    CONNECTIONS_MAX = 64,         /* one UI tab needs one or two */
    IDLE_TIMEOUT_S = 60,          /* a silent client is dropped */
    REQUEST_MEMORY = 32 * 1024,   /* headers beyond this are refused (431) */
    POLL_MS = 100,                /* how often the caller's thread looks for the end */
};

typedef struct open_server {
    const char *path;             /* the trace */
    const char *name;             /* its file name: the one path served */
    char origin[1024];            /* the UI's origin: its whole fetch ends the serving */
    web_guard guard;              /* loopback names only */
    volatile sig_atomic_t fetched; /* set on the server's thread (common/cancel.h) */
} open_server;

/* A request's state between libmicrohttpd's calls: headers in, answer on a
 * later call (as in web_server.c: an answer queued on the first call makes
 * libmicrohttpd 0.9.75 close the connection); then, for the fetch that
 * counts, a mark so that its completion ends the serving. */
static char answer_pending, ui_fetch;

/* Decimal digits at *p into *v (no overflow); false when there are none. */
static bool read_number(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t n = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (n > (UINT64_MAX - 9) / 10)
            return false;
        n = n * 10 + (uint64_t)(*s - '0');
    }
    if (s == *p)
        return false;
    *p = s;
    *v = n;
    return true;
}

/* The one range of a Range header ("bytes=A-B", "bytes=A-", "bytes=-N")
 * within a file of size bytes, into *from and *len: 1, or 0 when it asks
 * for nothing inside the file (416), or -1 when the header is not one byte
 * range (then ignored, and the whole file sent, as RFC 9110 allows). */
static int parse_range(const char *value, uint64_t size, uint64_t *from, uint64_t *len)
{
    const char *p = value;
    if (strncasecmp(p, "bytes=", 6) != 0)
        return -1;
    p += 6;
    uint64_t first = 0, last = 0;
    bool has_first = read_number(&p, &first);
    if (*p++ != '-')
        return -1;
    bool has_last = read_number(&p, &last);
    if (*p || (!has_first && !has_last) || (has_first && has_last && last < first))
        return -1;
    if (!has_first) { /* the last N bytes */
        if (last == 0 || size == 0)
            return 0;
        *from = last < size ? size - last : 0;
        *len = size - *from;
        return 1;
    }
    if (first >= size)
        return 0;
    if (!has_last || last >= size)
        last = size - 1;
    *from = first;
    *len = last - first + 1;
    return 1;
}

/* The CORS answer the UI needs to read a trace from another origin. */
static void add_cors(const open_server *srv, struct MHD_Response *r)
{
    MHD_add_response_header(r, "Access-Control-Allow-Origin", srv->origin);
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
    MHD_add_response_header(r, "Access-Control-Allow-Headers", "*");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
}

static enum MHD_Result reply_empty(const open_server *srv, struct MHD_Connection *c,
                                   unsigned status, const char *content_range)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    add_cors(srv, r);
    if (content_range)
        MHD_add_response_header(r, "Content-Range", content_range);
    return web_reply_response(c, status, r);
}

/* The trace, or the range asked of it, streamed from disk. */
static enum MHD_Result reply_trace(open_server *srv, struct MHD_Connection *c, bool get,
                                   void **state)
{
    int fd = open(srv->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "the trace cannot be read");
    }
    uint64_t size = (uint64_t)st.st_size, from = 0, len = size;
    const char *range = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
    int ranged = range ? parse_range(range, size, &from, &len) : -1;
    char content_range[96];
    if (ranged == 0) {
        close(fd);
        snprintf(content_range, sizeof content_range, "bytes */%" PRIu64, size);
        return reply_empty(srv, c, MHD_HTTP_RANGE_NOT_SATISFIABLE, content_range);
    }
    struct MHD_Response *r = MHD_create_response_from_fd_at_offset64(len, fd, from);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    add_cors(srv, r);
    MHD_add_response_header(r, "Content-Type", "application/octet-stream");
    MHD_add_response_header(r, "Accept-Ranges", "bytes");
    if (ranged == 1) {
        snprintf(content_range, sizeof content_range, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64,
                 from, from + len - 1, size);
        MHD_add_response_header(r, "Content-Range", content_range);
    }
    /* Only the UI's own whole fetch ends the serving: a page elsewhere
     * cannot send the UI's Origin, and a range or a HEAD is not the trace. */
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (get && !range && origin && strcasecmp(origin, srv->origin) == 0)
        *state = &ui_fetch;
    return web_reply_response(c, ranged == 1 ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK, r);
}

static enum MHD_Result answer(open_server *srv, struct MHD_Connection *c, const char *url,
                              const char *method, void **state)
{
    if (strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0) /* the UI's CORS preflight */
        return reply_empty(srv, c, MHD_HTTP_NO_CONTENT, NULL);
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    if (!get && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return web_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
    if (url[0] != '/' || strcmp(url + 1, srv->name) != 0)
        return web_reply_error(c, MHD_HTTP_NOT_FOUND, "not found");
    return reply_trace(srv, c, get, state);
}

static enum MHD_Result route(void *cls, struct MHD_Connection *c, const char *url,
                             const char *method, const char *version, const char *data,
                             size_t *size, void **state)
{
    (void)version, (void)data;
    open_server *srv = cls;
    if (!*state) { /* the headers are in: first who asks */
        enum MHD_Result refused;
        if (!web_request_allowed(&srv->guard, c, method, &refused))
            return refused;
        *state = &answer_pending;
        /* Expect: 100-continue is answered at once (see web_server.c). */
        if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT))
            return answer(srv, c, url, method, state);
        return MHD_YES;
    }
    if (*size) { /* a body nobody asked for: read and dropped */
        *size = 0;
        return MHD_YES;
    }
    return answer(srv, c, url, method, state);
}

/* libmicrohttpd calls a response complete once the kernel took its last
 * bytes. A client that reads part of a trace small enough for the socket
 * buffers (a few MB) and drops the connection looks the same; only a local
 * program can send the UI's Origin to do so, not another web page. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    (void)c;
    open_server *srv = cls;
    if (*state == &ui_fetch && why == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        cancel_set(&srv->fetched, 1);
    *state = NULL;
}

/* libmicrohttpd's own messages (a bad request, a lost client) are not the
 * user's business; the answers carry them. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls, (void)fmt, (void)ap;
}

/* A socket listening on 127.0.0.1, on 9001 or the next free port, or -1. */
static int listen_loopback(int *port)
{
    for (int p = WEB_OPEN_FIRST_PORT; p < WEB_OPEN_FIRST_PORT + WEB_OPEN_PORTS_TRIED; p++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p)};
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(fd, 16) == 0) {
            *port = p;
            return fd;
        }
        close(fd);
    }
    return -1;
}

/* Opens url in the desktop's browser, when there is a desktop. Called
 * before the server's thread starts: the child forks from one thread. */
static void open_browser(const char *url)
{
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int web_open_trace(const char *path, const char *ui, const struct ui_commands *view,
                   unsigned timeout_s, volatile sig_atomic_t *stop, int quiet)
{
    open_server srv = {.path = path};
    const char *slash = strrchr(path, '/');
    srv.name = slash ? slash + 1 : path;
    url_origin(ui, srv.origin, sizeof srv.origin);
    web_guard_init(&srv.guard, "127.0.0.1", NULL, 0);

    int port;
    int fd = listen_loopback(&port);
    if (fd < 0) {
        fprintf(stderr, "nsys-perfetto: --open: no free port on 127.0.0.1 from %d to %d\n",
                WEB_OPEN_FIRST_PORT, WEB_OPEN_FIRST_PORT + WEB_OPEN_PORTS_TRIED - 1);
        return NSYSP_ERR_INTERNAL;
    }
    buf trace_url = {0}, link = {0};
    buf_printf(&trace_url, "http://127.0.0.1:%d/", port);
    url_encode(srv.name, strlen(srv.name), &trace_url);
    /* The view was checked for the longest URL (open_view_for_trace). */
    open_view_link(ui, buf_cstr(&trace_url), view, &link);
    buf_free(&trace_url);
    printf("%s\n", (const char *)link.data);
    fflush(stdout);
    if (!quiet)
        fprintf(stderr, "nsys-perfetto: serving %s on 127.0.0.1:%d until the UI has fetched it "
                        "(Ctrl-C to stop)\n", path, port);
    open_browser((const char *)link.data); /* the socket listens: an early fetch waits */
    buf_free(&link);

    /* poll, not epoll: see web_server.c. */
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, route, &srv,
        MHD_OPTION_LISTEN_SOCKET, fd,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv,
        MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
        MHD_OPTION_END);
    if (!daemon) {
        close(fd);
        fprintf(stderr, "nsys-perfetto: --open: cannot start the HTTP server\n");
        return NSYSP_ERR_INTERNAL;
    }
    double deadline = timeout_s ? seconds_now() + timeout_s : 0;
    bool timed_out = false;
    while (!cancel_requested(&srv.fetched) && !cancel_requested(stop)) {
        if (deadline && seconds_now() >= deadline) {
            timed_out = true;
            break;
        }
        nanosleep(&(struct timespec){.tv_nsec = POLL_MS * 1000000L}, NULL);
    }
    MHD_stop_daemon(daemon); /* closes the listening socket and every connection */
    while (waitpid(-1, NULL, WNOHANG) > 0) /* reap xdg-open */
        ;
    if (timed_out && !quiet)
        fprintf(stderr, "nsys-perfetto: --open: the UI did not fetch the trace within %u s; "
                        "it stays at %s\n", timeout_s, path);
    return NSYSP_OK;
}
