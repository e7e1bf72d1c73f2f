#include "web_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "web_api.h"
#include "web_http.h"
#include "web_reports.h"
#include "web_upload.h"

enum {
    HTTP_THREADS = 4,            /* requests are short; uploads stream to disk */
    CONNECTIONS_MAX = 256,
    IDLE_TIMEOUT_S = 120,        /* a client silent this long is dropped */
    REQUEST_MEMORY = 32 * 1024,  /* headers beyond this are refused (431) */
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

static enum MHD_Result route(void *cls, struct MHD_Connection *c, const char *url,
                             const char *method, const char *version, const char *data,
                             size_t *size, void **state)
{
    (void)version;
    web_server *srv = cls;
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
               strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (strcmp(url, API_REPORTS) == 0 && strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return web_upload(srv, c, state, data, size);
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return get ? web_api_page(srv, c)
                   : web_reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
    if (strcmp(url, "/api/config") == 0 && get)
        return web_api_config(srv, c);
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

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls, (void)c, (void)why;
    if (*state) /* only uploads keep a state */
        web_upload_end(*state);
    *state = NULL;
}

/* libmicrohttpd's own messages (a bad request, a lost client) are not the
 * operator's business; the answers carry them. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls, (void)fmt, (void)ap;
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
    /* poll, not epoll: with epoll, libmicrohttpd 0.9.75 misses a client that
     * sends its last bytes and closes at once (left in CLOSE-WAIT until the
     * timeout, with its partial upload). */
    unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (addr->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    srv->daemon = MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, route, srv,
        MHD_OPTION_SOCK_ADDR, addr->ai_addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)HTTP_THREADS,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
        MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
        MHD_OPTION_END);
    int family = addr->ai_family;
    freeaddrinfo(addr);
    if (!srv->daemon) {
        snprintf(err, err_size, "cannot listen on %s port %d (in use, or not an address of "
                                "this machine)", bind, port);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon,
                                                           MHD_DAEMON_INFO_BIND_PORT);
    int bound = info ? info->port : port;
    snprintf(srv->address, sizeof srv->address, family == AF_INET6 ? "[%s]:%d" : "%s:%d", bind,
             bound);
    return 0;
}

void web_server_stop(web_server *srv)
{
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    srv->daemon = NULL;
}
