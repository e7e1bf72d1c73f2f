/* libFuzzer target: the input bytes are what clients send to
 * `nsys-perfetto serve` (src/web/): routes, headers, Host/Origin checks,
 * multipart uploads and their limits.
 *
 *   fuzz_serve [libFuzzer flags] -dict=tests/fuzz/serve.dict CORPUS_DIR SEEDS_DIR
 *   fuzz_serve crash-<sha1>          # replay one input
 *   NSYSP_FUZZ_VERBOSE=1 fuzz_serve FILE   # each connection's bytes and answers
 *
 * One server for the whole run (LLVMFuzzerInitialize): web_server_start_
 * unlistened(), a libmicrohttpd daemon without a listening socket or a thread
 * of its own, serving a reports directory in a private temporary directory
 * ($TMPDIR/nsysp-fuzz-XXXXXX/reports), with a job queue that converts
 * nothing (web_jobs_start with 0 workers), max_upload 16 KiB (so that the
 * limits are reached by inputs of a few KiB) and --allow-host
 * nsys.example.org and 10.1.2.3. The directory holds fixture reports with
 * fixed ids (below: converted, failed, queued, and one the server did not
 * make), so that requests for existing reports need no guessing.
 *
 * Each input is split at SEPARATOR ("\0\1NEXT\1\0") into at most
 * MAX_CONNECTIONS pieces; each piece is the bytes one client sends on one
 * connection, one after the other (keep-alive and pipelining are in the
 * bytes). Connections alternate between two guards: even ones are served as
 * `--bind 127.0.0.1`, odd ones as `--bind 0.0.0.0`; the third and fourth
 * come in pieces (about 64, of a size set by the length), each read by the
 * server before the next is sent, so that headers, multipart boundaries and
 * form values are cut at varied places. For each piece:
 *   - a connected socket pair (AF_UNIX; NSYSP_FUZZ_SERVE_TCP=1: a loopback TCP
 *     connection, as a real client makes) is handed to MHD_add_connection;
 *   - the bytes are written without blocking, interleaved with MHD_run, and
 *     the answers read, until the server is idle (nothing more to read for
 *     it, nothing more coming back);
 *   - the client then closes its side (shutdown SHUT_WR) and the server is
 *     run until it closed the connection too.
 *
 * Checks (a failed one aborts, like the sanitizers' findings):
 *   - the answers: each starts with "HTTP/1.x NNN", its header lines are
 *     well-formed (no control characters), its body has the length it says;
 *     no 5xx but 503 (queue full) and 507 (disk), and 505 (HTTP version)
 *     from libmicrohttpd itself; every answer of the server's own carries
 *     its security headers (X-Content-Type-Options); every JSON body is
 *     well-formed JSON and valid UTF-8; a 201 names a report that is queued,
 *     and every report queued was answered 201; libmicrohttpd takes every
 *     answer the server makes (MHD_queue_response, wrapped);
 *   - the server closes a connection once its client left;
 *   - after each input: no report directory left behind but the ones queued
 *     for conversion (a refused or truncated upload leaves nothing), none
 *     half removed (.removing-*), the user's files in the directory (an
 *     unmarked report-like directory, a plain file) untouched, nothing
 *     created beside the reports directory, no file descriptor leaked.
 * The queued reports are then removed by stopping the job queue (which
 * starts again), and the fixture reports a DELETE removed are made again,
 * so that every input finds the same server. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "tool/options.h"
#include "common/utf8.h"
#include "fuzz_common.h"
#include "web/web_jobs.h"
#include "web/web_reports.h"
#include "web/web_server.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fuzz: FAILED CHECK: " __VA_ARGS__);                                       \
        fputc('\n', stderr);                                                                       \
        abort();                                                                                   \
    } while (0)

static const char SEPARATOR[] = "\0\1NEXT\1\0";
#define SEPARATOR_LEN (sizeof SEPARATOR - 1)
enum {
    MAX_CONNECTIONS = 4,
    MAX_UPLOAD = 16 * 1024,
    ANSWER_KEPT = 1 << 20,  /* answers past this are read and dropped, not checked */
    CLOSE_ROUNDS = 10000,   /* MHD_run rounds for the server to close after the client */
    EXCHANGE_LIMIT_S = 20,  /* one connection's exchange, however slow the build */
};

/* Reports in the directory before any input: a converted one and a failed
 * one (a DELETE may remove them: they are made again after the input), one
 * queued for conversion, and a directory of the same form that the server
 * did not make (no mark: the server must never remove it), with a plain
 * file of the user's. */
#define DONE_ID "5e5e5e5e5e5e0001"
#define FAILED_ID "5e5e5e5e5e5e0002"
#define FOREIGN_ID "5e5e5e5e5e5e0003"
#define QUEUED_ID "5e5e5e5e5e5e0004"
#define USER_FILE "notes.txt"

static char root[4096], dir[4200];
static web_server srv;
static web_guard guards[2];
static const char *const allowed_hosts[] = {"nsys.example.org", "10.1.2.3"};
static bool verbose, use_tcp;
static int listener = -1;
static struct sockaddr_in listener_addr;
static unsigned long long status_counts[600];
static unsigned created; /* uploads answered 201 in this input */
static bool answers_cut;  /* some answers of this input were past ANSWER_KEPT */

/* ---- Files ------------------------------------------------------------------- */

static void write_text(const char *path, const char *text)
{
    fuzz_write_file(path, (const uint8_t *)text, strlen(text));
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Makes DIR/ID with files name=value pairs (NULL-terminated); marked: the
 * server's mark first, as report_create makes it. */
static void make_report(const char *id, bool marked, const char *const *files)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, id);
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        FAIL("cannot create %s: %s", path, strerror(errno));
    if (marked) {
        snprintf(path, sizeof path, "%s/%s/%s", dir, id, REPORT_MARK);
        write_text(path, "");
    }
    for (size_t i = 0; files[i]; i += 2) {
        snprintf(path, sizeof path, "%s/%s/%s", dir, id, files[i]);
        write_text(path, files[i + 1]);
    }
}

static const char RESULT_JSON[] =
    "{\"status\":0,\"message\":\"\",\"packets\":3,\"summary\":{\"kernels\":1,"
    "\"name\":\"k\\u00e9rnel \\\"x\\\"\"},\"sources\":[{\"name\":\"kernels\",\"rows\":1}]}\n";

static void make_fixtures(void)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s/%s", dir, DONE_ID, REPORT_MARK);
    if (!exists(path))
        make_report(DONE_ID, true,
                    (const char *const[]){REPORT_NAME, "run 1 <\xc3\xa9t\xc3\xa9>.sqlite",
                                          REPORT_RESULT, RESULT_JSON, REPORT_TRACE,
                                          "\x0a\x02\x08\x01 not really a trace", NULL});
    snprintf(path, sizeof path, "%s/%s/%s", dir, FAILED_ID, REPORT_MARK);
    if (!exists(path))
        make_report(FAILED_ID, true,
                    (const char *const[]){REPORT_NAME, "broken.nsys-rep", REPORT_ERROR,
                                          "not an Nsight Systems export", REPORT_RESULT,
                                          "{\"status\":5,\"message\":\"not an export\"}\n", NULL});
}

/* The queued fixture: its directory as an upload leaves it, and its job. */
static void make_queued(void)
{
    make_report(QUEUED_ID, true,
                (const char *const[]){"input.sqlite", "SQLite format 3", REPORT_NAME,
                                      "waiting.sqlite", NULL});
    web_job job = {.id = QUEUED_ID, .name = "waiting.sqlite", .input = "input.sqlite"};
    if (web_jobs_submit(srv.jobs, &job) != 0)
        FAIL("cannot queue the fixture report");
}

static void make_foreign(void)
{
    make_report(FOREIGN_ID, false,
                (const char *const[]){REPORT_NAME, "mine", REPORT_RESULT, "{}", NULL});
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, USER_FILE);
    write_text(path, "the user's own file\n");
}

/* Removes path and everything under it (the fixtures, at exit). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char sub[8192];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- The server ---------------------------------------------------------------- */

static void start_jobs(void)
{
    srv.jobs = web_jobs_start(dir, 0, 0);
    if (!srv.jobs)
        FAIL("web_jobs_start failed");
}

static unsigned connections(void)
{
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(srv.daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

static void stop_all(void)
{
    if (srv.daemon)
        web_server_stop(&srv);
    if (srv.jobs)
        web_jobs_stop(srv.jobs);
    srv.jobs = NULL;
    if (listener >= 0)
        close(listener);
    listener = -1;
    if (dir[0])
        remove_tree(dir);
    dir[0] = '\0';
    fuzz_tmpdir_release();
    bool any = false;
    for (unsigned i = 0; i < 600; i++)
        if (status_counts[i]) {
            fprintf(stderr, "%sfuzz_serve: answers with status %u: %llu\n", any ? "" : "\n", i,
                    status_counts[i]);
            any = true;
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    verbose = getenv("NSYSP_FUZZ_VERBOSE") && strcmp(getenv("NSYSP_FUZZ_VERBOSE"), "1") == 0;
    use_tcp = getenv("NSYSP_FUZZ_SERVE_TCP") && strcmp(getenv("NSYSP_FUZZ_SERVE_TCP"), "1") == 0;
    signal(SIGPIPE, SIG_IGN); /* as serve does */
    snprintf(root, sizeof root, "%s", fuzz_tmpdir());
    snprintf(dir, sizeof dir, "%s/reports", root);
    if (mkdir(dir, 0700) != 0)
        FAIL("cannot create %s: %s", dir, strerror(errno));
    make_fixtures();
    make_foreign();
    source_names(); /* built once before threads read it, as serve does */

    srv.dir = dir;
    srv.perfetto_ui = "https://ui.perfetto.dev";
    srv.max_upload = MAX_UPLOAD;
    srv.disk_reserve = 0; /* a tmpfs may have less free than the default 64 MiB */
    web_guard_init(&guards[0], "127.0.0.1", allowed_hosts, 2);
    web_guard_init(&guards[1], "0.0.0.0", allowed_hosts, 2);
    srv.guard = guards[0];
    start_jobs();
    make_queued();
    if (web_server_start_unlistened(&srv) != 0)
        FAIL("web_server_start_unlistened failed");
    if (use_tcp) {
        listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        listener_addr.sin_family = AF_INET;
        listener_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof listener_addr;
        if (listener < 0 ||
            bind(listener, (struct sockaddr *)&listener_addr, sizeof listener_addr) != 0 ||
            listen(listener, 16) != 0 ||
            getsockname(listener, (struct sockaddr *)&listener_addr, &len) != 0)
            FAIL("cannot listen on 127.0.0.1: %s", strerror(errno));
    }
    atexit(stop_all); /* before fuzz_common's removal of the temporary directory */
    return 0;
}

/* ---- One connection --------------------------------------------------------------- */

typedef struct answer {
    char *data;
    size_t len, cap, total;
    bool closed; /* the server closed (or reset) the connection */
} answer;

/* Reads what the server sent so far; returns how many bytes. */
static size_t drain(int fd, answer *a)
{
    size_t got = 0;
    char chunk[65536];
    for (;;) {
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (r <= 0) {
            a->closed = true;
            break;
        }
        got += (size_t)r;
        a->total += (size_t)r;
        size_t keep = a->len < ANSWER_KEPT ? (size_t)r : 0;
        if (keep > ANSWER_KEPT - a->len)
            keep = ANSWER_KEPT - a->len;
        if (keep) {
            if (a->len + keep + 1 > a->cap) { /* + 1: kept NUL-terminated for messages */
                a->cap = a->cap ? a->cap * 2 : 65536;
                while (a->cap < a->len + keep + 1)
                    a->cap *= 2;
                a->data = realloc(a->data, a->cap);
                if (!a->data)
                    FAIL("out of memory");
            }
            memcpy(a->data + a->len, chunk, keep);
            a->len += keep;
            a->data[a->len] = '\0';
        }
    }
    return got;
}

static void make_pair(int *client, int *server, struct sockaddr_in *peer, unsigned index)
{
    if (use_tcp) {
        *client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        socklen_t len = sizeof *peer;
        if (*client < 0 ||
            connect(*client, (struct sockaddr *)&listener_addr, sizeof listener_addr) != 0 ||
            (*server = accept(listener, (struct sockaddr *)peer, &len)) < 0)
            FAIL("cannot connect over loopback TCP: %s", strerror(errno));
        fcntl(*server, F_SETFD, FD_CLOEXEC);
    } else {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            FAIL("socketpair: %s", strerror(errno));
        *client = sv[0];
        *server = sv[1];
        memset(peer, 0, sizeof *peer);
        peer->sin_family = AF_INET;
        peer->sin_port = htons((uint16_t)(40000 + index));
        peer->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    if (fcntl(*client, F_SETFL, fcntl(*client, F_GETFL) | O_NONBLOCK) != 0)
        FAIL("fcntl: %s", strerror(errno));
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check_answers(const answer *a, unsigned index);

static void run_connection(const uint8_t *p, size_t n, unsigned index)
{
    int client, server;
    struct sockaddr_in peer;
    make_pair(&client, &server, &peer, index);
    srv.guard = guards[index & 1];
    if (connections() != 0)
        FAIL("a connection is still open before connection %u", index);
    if (MHD_add_connection(srv.daemon, server, (struct sockaddr *)&peer, sizeof peer) != MHD_YES)
        FAIL("MHD_add_connection refused connection %u: %s", index, strerror(errno));

    answer a = {0};
    size_t written = 0, piece = n / 64 + 1 + n % 7;
    bool writing = n > 0;
    unsigned idle = 0;
    double start = now_s();
    /* Send, serve, read until the server has nothing more to do. */
    for (unsigned round = 0;; round++) {
        if (writing) {
            size_t want = n - written;
            if (index & 2 && want > piece)
                want = piece;
            ssize_t w = send(client, p + written, want, MSG_NOSIGNAL);
            if (w > 0)
                written += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                writing = false; /* the server closed: the rest is not sent */
            if (written == n)
                writing = false;
        }
        MHD_run(srv.daemon);
        size_t got = drain(client, &a);
        if (a.closed || connections() == 0)
            break;
        if (writing)
            continue;
        /* The connection is open, so the server's descriptor is still ours. */
        int unread = 0;
        if (ioctl(server, FIONREAD, &unread) != 0)
            unread = 0;
        idle = got == 0 && unread == 0 ? idle + 1 : 0;
        if (idle >= 2)
            break;
        if ((round & 1023) == 1023 && now_s() - start > EXCHANGE_LIMIT_S)
            FAIL("connection %u: the exchange goes on after %d s", index, EXCHANGE_LIMIT_S);
    }
    /* The client leaves; the server must close the connection. */
    shutdown(client, SHUT_WR);
    for (unsigned round = 0; connections() > 0; round++) {
        if (round == CLOSE_ROUNDS)
            FAIL("connection %u: still open %d rounds after the client closed its side", index,
                 CLOSE_ROUNDS);
        MHD_run(srv.daemon);
        drain(client, &a);
    }
    drain(client, &a);
    close(client);
    if (verbose)
        fprintf(stderr, "fuzz_serve: connection %u: %zu of %zu bytes sent, %zu answered\n",
                index, written, n, a.total);
    check_answers(&a, index);
    free(a.data);
}

/* ---- Checks of the answers ----------------------------------------------------------- */

/* A small JSON syntax check (RFC 8259), of text that must also be UTF-8. */
typedef struct json {
    const char *p, *end;
} json;

static void ws(json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool lit(json *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return false;
    j->p += n;
    return true;
}

static bool digits(json *j)
{
    const char *from = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > from;
}

static bool value(json *j, unsigned depth);

static bool string(json *j)
{
    if (j->p >= j->end || *j->p != '"')
        return false;
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (++j->p >= j->end)
                return false;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (j->p + i >= j->end || !strchr("0123456789abcdefABCDEF", j->p[i]) ||
                        !j->p[i])
                        return false;
                j->p += 5;
            } else if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
                j->p++;
            } else {
                return false;
            }
        } else if (c < 0x80) {
            j->p++;
        } else {
            size_t len = utf8_char_length(j->p, (size_t)(j->end - j->p));
            if (!len)
                return false;
            j->p += len;
        }
    }
    if (j->p >= j->end)
        return false;
    j->p++;
    return true;
}

static bool value(json *j, unsigned depth)
{
    if (depth > 64)
        return false;
    ws(j);
    if (j->p >= j->end)
        return false;
    char c = *j->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        ws(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return true;
        }
        for (;;) {
            if (c == '{') {
                ws(j);
                if (!string(j))
                    return false;
                ws(j);
                if (j->p >= j->end || *j->p++ != ':')
                    return false;
            }
            if (!value(j, depth + 1))
                return false;
            ws(j);
            if (j->p >= j->end)
                return false;
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (*j->p++ != close)
                return false;
            return true;
        }
    }
    if (c == '"')
        return string(j);
    if (lit(j, "true") || lit(j, "false") || lit(j, "null"))
        return true;
    if (c == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!digits(j))
        return false;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!digits(j))
            return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!digits(j))
            return false;
    }
    return true;
}

static bool json_valid(const char *text, size_t len)
{
    json j = {text, text + len};
    if (!value(&j, 0))
        return false;
    ws(&j);
    return j.p == j.end;
}

/* Where "\r\n\r\n" starts in [p, end), or NULL. */
static const char *headers_end(const char *p, const char *end)
{
    for (; end - p >= 4; p++)
        if (memcmp(p, "\r\n\r\n", 4) == 0)
            return p;
    return NULL;
}

/* "HTTP/1." at p, or as much of it as there is before end. */
static bool status_line_start(const char *p, const char *end)
{
    size_t n = (size_t)(end - p) < 7 ? (size_t)(end - p) : 7;
    return memcmp(p, "HTTP/1.", n) == 0;
}

/* A header's value when line (len bytes) is "name: value", else NULL. */
static const char *header_value(const char *line, size_t len, const char *name, size_t *vlen)
{
    size_t n = strlen(name);
    if (len <= n || line[n] != ':' || strncasecmp(line, name, n) != 0)
        return NULL;
    const char *v = line + n + 1;
    while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
    *vlen = (size_t)(line + len - v);
    return v;
}

/* Parses a chunked body at p; where it ends, or NULL when cut short. */
static const char *chunked_end(const char *p, const char *end, unsigned index)
{
    for (;;) {
        const char *crlf = NULL;
        for (const char *q = p; end - q >= 2; q++)
            if (q[0] == '\r' && q[1] == '\n') {
                crlf = q;
                break;
            }
        if (!crlf)
            return NULL;
        unsigned long long size = 0;
        const char *q = p;
        for (; q < crlf && strchr("0123456789abcdefABCDEF", *q) && *q && size >> 56 == 0; q++)
            size = size * 16 + (unsigned)(*q <= '9' ? *q - '0' : (*q | 0x20) - 'a' + 10);
        if (q == p || (q < crlf && *q != ';'))
            FAIL("connection %u: bad chunk size in a chunked answer", index);
        p = crlf + 2;
        if (size == 0) { /* trailers, then an empty line */
            for (;;) {
                const char *t = p;
                while (end - t >= 2 && !(t[0] == '\r' && t[1] == '\n'))
                    t++;
                if (end - t < 2)
                    return NULL;
                bool empty = t == p;
                p = t + 2;
                if (empty)
                    return p;
            }
        }
        if ((unsigned long long)(end - p) < size + 2)
            return NULL;
        p += size;
        if (memcmp(p, "\r\n", 2) != 0)
            FAIL("connection %u: a chunk of a chunked answer is not followed by CRLF", index);
        p += 2;
    }
}

/* A 201 says {"id":"ID"}: that report must be queued, its upload complete. */
static void check_created(const char *body, size_t len, unsigned index, unsigned k)
{
    char id[REPORT_ID_LEN + 1], state[32], path[8400];
    double progress;
    if (len < 8 + REPORT_ID_LEN || memcmp(body, "{\"id\":\"", 7) != 0 ||
        body[7 + REPORT_ID_LEN] != '"')
        FAIL("connection %u, answer %u: a 201 without an id: \"%.*s\"", index, k,
             (int)(len < 100 ? len : 100), body);
    memcpy(id, body + 7, REPORT_ID_LEN);
    id[REPORT_ID_LEN] = '\0';
    if (!report_id_valid(id) || !web_jobs_find(srv.jobs, id, state, sizeof state, &progress))
        FAIL("connection %u, answer %u: upload %s answered 201 but not queued", index, k, id);
    snprintf(path, sizeof path, "%s/%s/%s", dir, id, REPORT_NAME);
    if (!exists(path))
        FAIL("connection %u, answer %u: upload %s answered 201 but has no name file", index, k,
             id);
    created++;
}

static void check_answers(const answer *a, unsigned index)
{
    if (!a->len)
        return; /* no answer: the connection was closed (or cut) before one */
    const char *p = a->data, *end = a->data + a->len;
    bool cut = a->total > a->len; /* only the first ANSWER_KEPT bytes are here */
    answers_cut |= cut;
    unsigned k = 0;
    while (p < end) {
        const char *start = p;
        if (!status_line_start(p, end))
            FAIL("connection %u, answer %u: does not start with \"HTTP/1.\": \"%.40s\"", index,
                 k, p);
        const char *hend = headers_end(p, end);
        if (!hend) {
            if (cut)
                return;
            /* The server closed in the middle of an answer's headers. */
            FAIL("connection %u, answer %u: the headers are cut short (%zu bytes)", index, k,
                 (size_t)(end - p));
        }
        if (hend - p < 12 || p[7] < '0' || p[7] > '9' || p[8] != ' ' || p[9] < '1' ||
            p[9] > '5' || p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9' ||
            (p[12] != ' ' && p[12] != '\r'))
            FAIL("connection %u, answer %u: bad status line \"%.40s\"", index, k, p);
        unsigned status = (unsigned)((p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0'));
        status_counts[status]++;
        /* The headers: "name: value" lines without control characters. */
        bool ours = false, chunked = false, json_body = false, has_length = false;
        unsigned long long length = 0;
        const char *line = p;
        while (line < hend) {
            const char *eol = line;
            while (eol < hend && !(eol[0] == '\r' && eol[1] == '\n'))
                eol++;
            size_t len = (size_t)(eol - line);
            for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)line[i];
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                    FAIL("connection %u, answer %u: control character 0x%02x in a header line",
                         index, k, c);
            }
            if (line != p) {
                const char *colon = memchr(line, ':', len);
                if (!colon || colon == line)
                    FAIL("connection %u, answer %u: header line without a name: \"%.*s\"",
                         index, k, (int)(len < 60 ? len : 60), line);
                size_t vlen;
                const char *v;
                if ((v = header_value(line, len, "X-Content-Type-Options", &vlen)))
                    ours = true;
                if ((v = header_value(line, len, "Transfer-Encoding", &vlen)) && vlen >= 7 &&
                    strncasecmp(v, "chunked", 7) == 0)
                    chunked = true;
                if ((v = header_value(line, len, "Content-Type", &vlen)) && vlen >= 16 &&
                    strncasecmp(v, "application/json", 16) == 0)
                    json_body = true;
                if ((v = header_value(line, len, "Content-Length", &vlen))) {
                    size_t i = 0;
                    for (length = 0; i < vlen && v[i] >= '0' && v[i] <= '9' && length < (1ull << 50);
                         i++)
                        length = length * 10 + (unsigned)(v[i] - '0');
                    if (i == 0 || i != vlen)
                        FAIL("connection %u, answer %u: bad Content-Length", index, k);
                    has_length = true;
                }
            }
            line = eol + 2;
        }
        if (status >= 500 && !(ours && (status == 503 || status == 507)) &&
            !(!ours && status == 505))
            FAIL("connection %u, answer %u: status %u%s", index, k, status,
                 ours ? "" : " (from libmicrohttpd)");
        if (!ours && status >= 200 && status < 300)
            FAIL("connection %u, answer %u: a %u without the server's headers", index, k,
                 status);
        const char *body = hend + 4;
        p = body;
        if (status < 200 || status == 204 || status == 304) {
            /* no body */
        } else if (chunked) {
            p = chunked_end(body, end, index);
            if (!p) {
                if (cut || !a->closed)
                    return;
                FAIL("connection %u, answer %u: chunked body cut short", index, k);
            }
        } else if (has_length) {
            /* After the answer to a HEAD request, which has a length and no
             * body, comes the next answer or nothing (no body begins so). */
            if (body == end || status_line_start(body, end)) {
                if (verbose && body < end)
                    fprintf(stderr, "fuzz_serve: connection %u, answer %u: no body (HEAD)\n",
                            index, k);
            } else if ((unsigned long long)(end - body) < length) {
                if (cut)
                    return;
                FAIL("connection %u, answer %u: the body is %zu bytes, Content-Length says %llu",
                     index, k, (size_t)(end - body), length);
            } else {
                if (json_body && !json_valid(body, (size_t)length))
                    FAIL("connection %u, answer %u: status %u, the JSON body is not valid "
                         "JSON (or not UTF-8): \"%.*s\"",
                         index, k, status, (int)(length < 300 ? length : 300), body);
                if (status == 201)
                    check_created(body, (size_t)length, index, k);
                if (verbose && json_body)
                    fprintf(stderr, "fuzz_serve: body: %.*s\n", (int)(length < 400 ? length : 400),
                            body);
                p = body + length;
            }
        } else {
            /* Neither: the body runs to the end of the connection. */
            p = end;
        }
        if (verbose)
            fprintf(stderr, "fuzz_serve: connection %u, answer %u: status %u%s\n%.*s\n\n", index,
                    k, status, ours ? "" : " (libmicrohttpd)", (int)(hend - start), start);
        k++;
    }
}

/* Linked with -Wl,--wrap=MHD_queue_response: every answer the server makes
 * must be one libmicrohttpd takes (a refused one leaves the client without
 * an answer, the connection closed). */
enum MHD_Result __real_MHD_queue_response(struct MHD_Connection *c, unsigned int status,
                                          struct MHD_Response *r);
enum MHD_Result __wrap_MHD_queue_response(struct MHD_Connection *c, unsigned int status,
                                          struct MHD_Response *r);
enum MHD_Result __wrap_MHD_queue_response(struct MHD_Connection *c, unsigned int status,
                                          struct MHD_Response *r)
{
    enum MHD_Result ok = __real_MHD_queue_response(c, status, r);
    if (ok != MHD_YES)
        FAIL("libmicrohttpd refused the server's answer (status %u)", status);
    return ok;
}

/* ---- After each input --------------------------------------------------------------- */

/* Checks what the input left in the reports directory and beside it, and
 * brings the server back to its first state. */
static void check_and_reset(void)
{
    /* Beside the reports directory: nothing. */
    DIR *d = opendir(root);
    if (!d)
        FAIL("cannot read %s: %s", root, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, "reports") != 0)
            FAIL("a file appeared beside the reports directory: %s/%s", root, e->d_name);
    closedir(d);

    /* In it: the fixtures, and reports queued for conversion. */
    d = opendir(dir);
    if (!d)
        FAIL("cannot read %s: %s", dir, strerror(errno));
    unsigned queued = 0;
    char path[8400];
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, DONE_ID) == 0 ||
            strcmp(name, FAILED_ID) == 0 || strcmp(name, FOREIGN_ID) == 0 ||
            strcmp(name, USER_FILE) == 0)
            continue;
        bool fixture = strcmp(name, QUEUED_ID) == 0;
        char state[32];
        double progress;
        if (!report_id_valid(name))
            FAIL("unexpected entry in the reports directory: %s", name);
        if (!web_jobs_find(srv.jobs, name, state, sizeof state, &progress))
            FAIL("report %s left behind without being queued for conversion", name);
        snprintf(path, sizeof path, "%s/%s/%s", dir, name, REPORT_UPLOAD);
        if (exists(path))
            FAIL("queued report %s still has its %s", name, REPORT_UPLOAD);
        snprintf(path, sizeof path, "%s/%s/%s", dir, name, REPORT_NAME);
        if (!exists(path))
            FAIL("queued report %s has no name file", name);
        queued += !fixture;
    }
    closedir(d);
    snprintf(path, sizeof path, "%s/%s/%s", dir, QUEUED_ID, REPORT_NAME);
    if (!exists(path))
        FAIL("the queued report %s was removed", QUEUED_ID);
    /* Every report queued was answered 201 (when its answer was read in full:
     * a connection's answers past ANSWER_KEPT are not checked). */
    if (created > queued || (created < queued && !answers_cut))
        FAIL("%u uploads answered 201, %u reports queued", created, queued);

    /* The user's files are never the server's business. */
    static const char *const FOREIGN[] = {FOREIGN_ID "/" REPORT_NAME, FOREIGN_ID "/" REPORT_RESULT,
                                          USER_FILE};
    for (size_t i = 0; i < sizeof FOREIGN / sizeof FOREIGN[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, FOREIGN[i]);
        if (!exists(path))
            FAIL("the server removed a file it did not make: %s", FOREIGN[i]);
    }

    if (queued) { /* the queue removes its reports as it stops */
        web_jobs_stop(srv.jobs);
        start_jobs();
        make_queued();
        d = opendir(dir);
        while (d && (e = readdir(d)) != NULL)
            if (report_id_valid(e->d_name) && strcmp(e->d_name, DONE_ID) != 0 &&
                strcmp(e->d_name, FAILED_ID) != 0 && strcmp(e->d_name, FOREIGN_ID) != 0 &&
                strcmp(e->d_name, QUEUED_ID) != 0)
                FAIL("web_jobs_stop left queued report %s behind", e->d_name);
        if (d)
            closedir(d);
    }
    make_fixtures(); /* those a DELETE removed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fds = fuzz_count_fds();
    created = 0;
    answers_cut = false;
    const uint8_t *p = data, *end = data + size;
    for (unsigned index = 0; index < MAX_CONNECTIONS && (index == 0 || p < end); index++) {
        const uint8_t *next = end;
        if (index + 1 < MAX_CONNECTIONS)
            for (const uint8_t *q = p; (size_t)(end - q) >= SEPARATOR_LEN; q++)
                if (memcmp(q, SEPARATOR, SEPARATOR_LEN) == 0) {
                    next = q;
                    break;
                }
        run_connection(p, (size_t)(next - p), index);
        p = next == end ? end : next + SEPARATOR_LEN;
    }
    srv.guard = guards[0];
    check_and_reset();
    int fds_after = fuzz_count_fds();
    if (fds >= 0 && fds_after != fds)
        FAIL("file descriptors: %d before the input, %d after (leak)", fds, fds_after);
    return 0;
}
