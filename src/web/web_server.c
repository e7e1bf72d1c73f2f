#include "web_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "web_api.h"
#include "web_compare.h"
#include "web_http.h"
#include "web_reports.h"
#include "web_upload.h"

enum {
    HTTP_THREADS = 4,             /* requests are short; uploads stream to disk */
    CONNECTIONS_MAX = 512,
    CONNECTIONS_PER_ADDRESS = 32, /* a browser opens 6 per server; one client never fills it */
    IDLE_TIMEOUT_S = 120,         /* a client silent this long is dropped */
    REQUEST_MEMORY = 32 * 1024,   /* headers beyond this are refused (431) */
};

#define API_REPORTS "/api/reports"

/* "/api/reports/X" or "/api/reports/X/trace": X into id (checked by the
 * caller), what follows it into rest; false for other paths. */
static bool report_route(const char *url, char id[64], const char **rest)
{
    if (strncmp(url, API_REPORTS "/", sizeof API_REPORTS) != 0)
        return false;
    const char *p = url + sizeof API_REPORTS;
    size_t n = strcspn(p, "/");
    if (n == 0 || n >= 64)
        return false;
    memcpy(id, p, n);
    id[n] = '\0';
    *rest = p + n;
    return true;
}

/* Answers a request whose headers and body are in (uploads: web_upload). */
static enum MHD_Result answer(web_server *srv, struct MHD_Connection *c, const char *url,
                              const char *method)
{
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
               strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return get ? web_api_page(srv, c)
                   : web_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
    if (strcmp(url, "/api/config") == 0 && get)
        return web_api_config(srv, c);
    if (strcmp(url, "/api/compare") == 0 && get)
        return web_api_compare(srv, c);
    if (strcmp(url, API_REPORTS) == 0 && get)
        return web_api_list(srv, c);
    char id[64] = "";
    const char *rest = "";
    if (report_route(url, id, &rest)) {
        if (!report_id_valid(id))
            return web_reply_error(c, MHD_HTTP_NOT_FOUND, "no such report");
        if (strcmp(rest, "") == 0 && get)
            return web_api_report(srv, c, id);
        if (strcmp(rest, "") == 0 && strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
            return web_api_delete(srv, c, id);
        if (strcmp(rest, "/trace") == 0 && get)
            return web_api_trace(srv, c, id);
    }
    return web_reply_error(c, MHD_HTTP_NOT_FOUND, "not found");
}

/* The state of a request that is not an upload, between libmicrohttpd's
 * first call (headers in) and the one that answers: an answer queued on
 * the first call makes libmicrohttpd 0.9.75 close the connection, so
 * keep-alive and pipelined requests need the answer on a later call. */
static char answer_pending;

static enum MHD_Result route(void *cls, struct MHD_Connection *c, const char *url,
                             const char *method, const char *version, const char *data,
                             size_t *size, void **state)
{
    (void)version;
    web_server *srv = cls;
    bool upload = strcmp(url, API_REPORTS) == 0 && strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    if (!*state) { /* the headers are in: first the checks of who asks */
        enum MHD_Result refused;
        if (!web_request_allowed(&srv->guard, c, method, &refused))
            return refused;
        web_clients_headers_in(c);
        if (upload)
            return web_upload(srv, c, state, data, size);
        /* "Expect: 100-continue" asks leave to send a body that no answer
         * here reads: the answer goes now, before libmicrohttpd 0.9.75 sends
         * 100 Continue, after which, for a request that declares no body,
         * it may call with *size 0 where no answer can be queued (found by
         * fuzz_serve; regressions/serve-expect-continue-not-upload.bin). */
        if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT)) {
            web_clients_answering(c);
            return answer(srv, c, url, method);
        }
        *state = &answer_pending;
        return MHD_YES;
    }
    web_clients_body_in(c, *size);
    if (*size == 0)
        web_clients_answering(c);
    if (*state != &answer_pending)
        return web_upload(srv, c, state, data, size);
    if (*size) { /* a body nobody asked for: read and dropped */
        *size = 0;
        return MHD_YES;
    }
    return answer(srv, c, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)why;
    if (*state && *state != &answer_pending) /* an upload's */
        web_upload_end(*state);
    *state = NULL;
    web_clients_request_done(c);
}

/* libmicrohttpd's own messages (a bad request, a lost client) are not the
 * operator's business; the answers carry them. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls, (void)fmt, (void)ap;
}

/* Starts the daemon with flags and, for a listening server, its address;
 * the options every server has are set here. */
/* listen_fd: a listening socket, or -1 for none (requests come through
 * MHD_run from the fuzzer). */
static struct MHD_Daemon *start_daemon(web_server *srv, unsigned flags, int listen_fd)
{
    struct MHD_OptionItem listening[] = {
        {MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL},
        {MHD_OPTION_THREAD_POOL_SIZE, HTTP_THREADS, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(
        flags, 0, NULL, NULL, route, srv,
        MHD_OPTION_ARRAY, listen_fd >= 0 ? listening : &listening[2],
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CONNECTIONS_PER_ADDRESS,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_NOTIFY_CONNECTION, web_clients_notify, srv->clients,
        MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
        MHD_OPTION_END);
}

/* A listening TCP socket on addr, or -1. */
static int listen_on(const struct addrinfo *addr)
{
    int fd = socket(addr->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (addr->ai_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, addr->ai_addr, addr->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

int web_server_start(web_server *srv, const char *bind, int port, char *err, size_t err_size)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE,
                             .ai_socktype = SOCK_STREAM};
    struct addrinfo *addr = NULL;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(bind, service, &hints, &addr) != 0 || !addr) {
        snprintf(err, err_size, "--bind: '%s' is not an IPv4 or IPv6 address", bind);
        return -1;
    }
    srv->clients = web_clients_start();
    if (!srv->clients) {
        freeaddrinfo(addr);
        snprintf(err, err_size, "cannot start a thread");
        return -1;
    }
    /* poll, not epoll: with epoll, libmicrohttpd 0.9.75 misses a client that
     * sends its last bytes and closes at once (left in CLOSE-WAIT until the
     * timeout, with its partial upload). */
    unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (addr->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* The socket is bound here, so that the address (its port when 0 was
     * asked for) is known before any request thread runs. */
    int fd = listen_on(addr);
    int family = addr->ai_family;
    freeaddrinfo(addr);
    int bound = fd >= 0 ? bound_port(fd) : -1;
    if (bound >= 0) {
        snprintf(srv->address, sizeof srv->address, family == AF_INET6 ? "[%s]:%d" : "%s:%d",
                 bind, bound);
        srv->daemon = start_daemon(srv, flags, fd);
    }
    if (!srv->daemon) {
        if (fd >= 0)
            close(fd);
        web_clients_stop(srv->clients);
        srv->clients = NULL;
        snprintf(err, err_size, "cannot listen on %s port %d (in use, or not an address of "
                                "this machine)", bind, port);
        return -1;
    }
    return 0;
}

int web_server_start_unlistened(web_server *srv)
{
    srv->clients = web_clients_start();
    if (!srv->clients)
        return -1;
    srv->daemon = start_daemon(srv, MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, -1);
    if (!srv->daemon) {
        web_clients_stop(srv->clients);
        srv->clients = NULL;
        return -1;
    }
    snprintf(srv->address, sizeof srv->address, "127.0.0.1:0");
    return 0;
}

void web_server_stop(web_server *srv)
{
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    srv->daemon = NULL;
    web_clients_stop(srv->clients); /* after the daemon: every connection closed */
    srv->clients = NULL;
}
