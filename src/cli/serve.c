/* A minimal HTTP/1.1 server for one file, with the CORS headers the
 * Perfetto UI needs to fetch a trace from localhost: the UI opens
 * https://ui.perfetto.dev/#!/?url=http://127.0.0.1:PORT/NAME and fetches it
 * (or the same on the UI given by --perfetto-ui).
 * No size limit: the file is streamed from disk. */
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsys_perfetto.h"

enum { FIRST_PORT = 9001, PORTS_TRIED = 20 };

static int listen_loopback(int *port)
{
    for (int p = FIRST_PORT; p < FIRST_PORT + PORTS_TRIED; p++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p)};
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(fd, 8) == 0) {
            *port = p;
            return fd;
        }
        close(fd);
    }
    return -1;
}

static int send_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* "https://host:port/path/" -> "https://host:port" into out. */
static void origin_of(const char *url, char *out, size_t size)
{
    const char *host = strstr(url, "://");
    size_t n = host ? (size_t)(host + 3 - url) + strcspn(host + 3, "/?#") : strlen(url);
    snprintf(out, size, "%.*s", (int)n, url);
}

static void send_headers(int fd, const char *origin, const char *status, long long length)
{
    char head[1024];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\n"
                     "Access-Control-Allow-Origin: %s\r\n"
                     "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
                     "Access-Control-Allow-Headers: *\r\n"
                     "Cache-Control: no-cache\r\n"
                     "Content-Type: application/octet-stream\r\n"
                     "Content-Length: %lld\r\n"
                     "Connection: close\r\n\r\n",
                     status, origin, length);
    send_all(fd, head, (size_t)n);
}

/* Answers one request; returns true when the whole trace went out. */
static bool answer(int client, const char *origin, const char *path, const char *name)
{
    char req[4096] = "";
    size_t len = 0;
    while (len < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
        ssize_t r = recv(client, req + len, sizeof req - 1 - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
        req[len] = '\0';
    }
    req[len] = '\0';
    char method[16] = "", target[1024] = "";
    if (sscanf(req, "%15s %1023s", method, target) != 2) {
        send_headers(client, origin, "400 Bad Request", 0);
        return false;
    }
    if (strcmp(method, "OPTIONS") == 0) { /* CORS preflight */
        send_headers(client, origin, "204 No Content", 0);
        return false;
    }
    bool head = strcmp(method, "HEAD") == 0;
    if ((!head && strcmp(method, "GET") != 0) || target[0] != '/' ||
        strcmp(target + 1, name) != 0) {
        send_headers(client, origin, "404 Not Found", 0);
        return false;
    }
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        send_headers(client, origin, "500 Internal Server Error", 0);
        return false;
    }
    send_headers(client, origin, "200 OK", (long long)st.st_size);
    bool sent = !head;
    char chunk[1 << 16];
    ssize_t r;
    while (!head && (r = read(fd, chunk, sizeof chunk)) > 0)
        if (send_all(client, chunk, (size_t)r) < 0) {
            sent = false;
            break;
        }
    close(fd);
    return sent;
}

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

int serve_trace(const char *path, const char *ui, volatile sig_atomic_t *stop, int quiet)
{
    int port;
    int server = listen_loopback(&port);
    if (server < 0) {
        fprintf(stderr, "nsys-perfetto: --open: no free port on 127.0.0.1 from %d to %d\n",
                FIRST_PORT, FIRST_PORT + PORTS_TRIED - 1);
        return NSYSP_ERR_INTERNAL;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char url[4096], origin[1024];
    origin_of(ui, origin, sizeof origin);
    size_t base = strlen(ui);
    while (base && ui[base - 1] == '/')
        base--;
    snprintf(url, sizeof url, "%.*s/#!/?url=http://127.0.0.1:%d/%s", (int)base, ui, port, name);
    printf("%s\n", url);
    fflush(stdout);
    if (!quiet)
        fprintf(stderr, "nsys-perfetto: serving %s on 127.0.0.1:%d until the UI has fetched it "
                        "(Ctrl-C to stop)\n", path, port);
    open_browser(url);
    bool done = false;
    while (!done && !*stop) {
        struct pollfd p = {.fd = server, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            continue;
        int client = accept(server, NULL, NULL);
        if (client < 0)
            continue;
        done = answer(client, origin, path, name);
        close(client);
    }
    close(server);
    while (waitpid(-1, NULL, WNOHANG) > 0) /* reap xdg-open */
        ;
    return NSYSP_OK;
}
