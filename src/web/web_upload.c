#include "web_upload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/utf8.h"
#include "web_convert.h"
#include "common/json.h"
#include "web_options.h"
#include "web_reports.h"

/* What multipart framing and the option fields may add to the file. */
#define FORM_OVERHEAD (64ull << 10)
/* How often a streaming upload looks at the disk's free space: the reserve
 * holds to within this much per upload under way. */
#define DISK_CHECK_EVERY (256ull << 10)

typedef struct upload {
    web_server *srv;
    struct MHD_PostProcessor *post;
    char id[REPORT_ID_LEN + 1];
    int fd;                  /* DIR/ID/upload.part */
    bool has_file, queued;
    char name[256];          /* the client's file name, only shown */
    uint64_t bytes;
    uint64_t bytes_checked;  /* bytes when the free space was last looked at */
    web_options options;
    unsigned status;         /* the refusal to answer once the body is in */
    char error[512];
} upload;

static void refuse(upload *u, unsigned status, const char *error)
{
    if (u->status)
        return; /* the first reason stands */
    u->status = status;
    snprintf(u->error, sizeof u->error, "%s", error);
    if (u->fd >= 0) { /* nothing more is written; nothing stays */
        close(u->fd);
        u->fd = -1;
        char part[4096];
        if (report_path(part, sizeof part, u->srv->dir, u->id, REPORT_UPLOAD) == 0)
            unlink(part);
    }
}

/* The last path component for display: without control characters, bytes
 * that are not UTF-8 replaced (U+FFFD), cut at a character boundary. */
static void client_name(const char *filename, char *out, size_t size)
{
    const char *base = filename;
    for (const char *p = filename; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    static const char REPLACEMENT[] = "\xEF\xBF\xBD";
    size_t n = 0, left = strlen(base);
    for (const char *p = base; *p && n + 1 < size; left = strlen(p)) {
        size_t len = utf8_char_length(p, left);
        const char *piece = len ? p : REPLACEMENT;
        size_t piece_len = len ? len : 3;
        p += len ? len : 1;
        if ((unsigned char)*piece < 0x20 || *piece == 0x7f)
            continue;
        if (n + piece_len >= size)
            break; /* never half a character */
        memcpy(out + n, piece, piece_len);
        n += piece_len;
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, size, "report.sqlite");
}

/* Whether the disk keeps the server's reserve free; false when it does not. */
static bool disk_has_room(const web_server *srv, uint64_t more)
{
    struct statvfs fs;
    if (statvfs(srv->dir, &fs) != 0)
        return true; /* cannot tell: the write itself will say */
    uint64_t free_bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
    return free_bytes >= more && free_bytes - more >= srv->disk_reserve;
}

static bool write_all(int fd, const char *data, size_t size)
{
    while (size) {
        ssize_t w = write(fd, data, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        data += w;
        size -= (size_t)w;
    }
    return true;
}

/* Looked at every DISK_CHECK_EVERY bytes as the upload streams: a chunked
 * upload declares no size, and concurrent ones share the disk. */
static bool reserve_holds(upload *u)
{
    if (u->bytes - u->bytes_checked < DISK_CHECK_EVERY)
        return true;
    u->bytes_checked = u->bytes;
    return disk_has_room(u->srv, 0);
}

static enum MHD_Result on_field(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *filename, const char *content_type,
                                const char *transfer_encoding, const char *data, uint64_t off,
                                size_t size)
{
    (void)kind, (void)content_type, (void)transfer_encoding;
    upload *u = cls;
    if (u->status)
        return MHD_YES; /* refused: the rest of the body is read and dropped */
    if (!key || !*key) {
        refuse(u, MHD_HTTP_BAD_REQUEST, "a form field has no name");
        return MHD_YES;
    }
    if (strcmp(key, "report") != 0) {
        if (size && web_options_append(&u->options, key, data, size) < 0)
            refuse(u, MHD_HTTP_BAD_REQUEST, "unknown or too long form field");
        return MHD_YES;
    }
    if (off == 0 && u->has_file && u->bytes > 0)
        refuse(u, MHD_HTTP_BAD_REQUEST, "one report per upload");
    if (!filename)
        refuse(u, MHD_HTTP_BAD_REQUEST, "the report field is not a file");
    if (u->status)
        return MHD_YES;
    if (!u->has_file) {
        u->has_file = true;
        client_name(filename, u->name, sizeof u->name);
    }
    u->bytes += size;
    if (u->srv->max_upload && u->bytes > u->srv->max_upload) {
        char why[128];
        snprintf(why, sizeof why, "the report is larger than this server takes (%llu bytes)",
                 (unsigned long long)u->srv->max_upload);
        refuse(u, MHD_HTTP_CONTENT_TOO_LARGE, why);
    } else if (!reserve_holds(u)) {
        refuse(u, MHD_HTTP_INSUFFICIENT_STORAGE, "not enough room on the server's disk");
    } else if (size && !write_all(u->fd, data, size)) {
        refuse(u, errno == ENOSPC || errno == EDQUOT ? MHD_HTTP_INSUFFICIENT_STORAGE
                                                     : MHD_HTTP_INTERNAL_SERVER_ERROR,
               errno == ENOSPC || errno == EDQUOT ? "the server's disk is full"
                                                  : "cannot store the upload");
    }
    return MHD_YES;
}

/* Whether the Content-Type's boundary parameter is 1 to 70 characters, as
 * RFC 2046 has it (quoted or not). */
static bool boundary_valid(const char *type)
{
    static const char KEY[] = "boundary=";
    const char *p = type;
    while (*p && strncasecmp(p, KEY, sizeof KEY - 1) != 0)
        p++;
    if (!*p)
        return false;
    p += sizeof KEY - 1;
    size_t n = *p == '"' ? strcspn(++p, "\"") : strcspn(p, "; \t");
    return n >= 1 && n <= 70;
}

/* Checks what the headers say, before any of the body is read; 0 or an
 * HTTP status with the reason in u->error. */
static unsigned check_headers(upload *u, struct MHD_Connection *c)
{
    const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    if (!type || strncasecmp(type, "multipart/form-data", 19) != 0) {
        snprintf(u->error, sizeof u->error, "expected a multipart/form-data upload");
        return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
    }
    if (!boundary_valid(type)) {
        snprintf(u->error, sizeof u->error, "the multipart boundary is missing, empty or longer "
                                            "than 70 characters (RFC 2046)");
        return MHD_HTTP_BAD_REQUEST;
    }
    const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    unsigned long long declared = length ? strtoull(length, NULL, 10) : 0;
    /* No body: refused now. Later is too late with "Expect: 100-continue":
     * libmicrohttpd 0.9.75 sends 100 Continue anyway, then may call us with
     * *size 0 before the request ended, where no answer can be queued
     * (found by fuzz_serve; regressions/serve-expect-continue-no-body.bin). */
    if (declared == 0 && !MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding")) {
        snprintf(u->error, sizeof u->error, "no report in the upload (field 'report')");
        return MHD_HTTP_BAD_REQUEST;
    }
    if (u->srv->max_upload && declared > u->srv->max_upload + FORM_OVERHEAD) {
        snprintf(u->error, sizeof u->error,
                 "the report is larger than this server takes (%llu bytes)",
                 (unsigned long long)u->srv->max_upload);
        return MHD_HTTP_CONTENT_TOO_LARGE;
    }
    if (!disk_has_room(u->srv, declared)) {
        snprintf(u->error, sizeof u->error, "not enough room on the server's disk");
        return MHD_HTTP_INSUFFICIENT_STORAGE;
    }
    return 0;
}

/* The first call: checks, the report's directory and the part file. */
static enum MHD_Result begin(web_server *srv, struct MHD_Connection *c, void **state)
{
    upload *u = calloc(1, sizeof *u);
    if (!u)
        return MHD_NO;
    u->srv = srv;
    u->fd = -1;
    unsigned status = check_headers(u, c);
    if (status) {
        enum MHD_Result ok = web_reply_error(c, status, u->error);
        free(u);
        return ok; /* answered before the body: libmicrohttpd closes the connection */
    }
    char part[4096];
    if (report_create(srv->dir, u->id) < 0 ||
        report_path(part, sizeof part, srv->dir, u->id, REPORT_UPLOAD) < 0 ||
        (u->fd = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        if (u->id[0])
            report_remove(srv->dir, u->id);
        free(u);
        return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                               "cannot store uploads in the server's directory");
    }
    u->post = MHD_create_post_processor(c, 64 * 1024, on_field, u);
    if (!u->post) {
        web_upload_end(u);
        return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "malformed multipart upload");
    }
    *state = u;
    return MHD_YES;
}

/* The whole body is in: queue the report for conversion. */
static enum MHD_Result finish(upload *u, struct MHD_Connection *c)
{
    /* libmicrohttpd says whether the multipart body ended as it should. */
    enum MHD_Result complete = MHD_destroy_post_processor(u->post);
    u->post = NULL;
    if (complete != MHD_YES)
        refuse(u, MHD_HTTP_BAD_REQUEST, "the upload is truncated or malformed (multipart)");
    if (!u->has_file)
        refuse(u, MHD_HTTP_BAD_REQUEST, "no report in the upload (field 'report')");
    web_parsed_options parsed;
    char why[400];
    if (!u->status && web_options_parse(&u->options, &parsed, why, sizeof why) < 0)
        refuse(u, MHD_HTTP_BAD_REQUEST, why);
    if (u->status)
        return web_reply_error(c, u->status, u->error);

    web_job job = {.options = u->options};
    snprintf(job.id, sizeof job.id, "%s", u->id);
    snprintf(job.name, sizeof job.name, "%s", u->name);
    snprintf(job.input, sizeof job.input, "%s", report_input_file(u->name));
    char part[4096], input[4096];
    bool stored = close(u->fd) == 0;
    u->fd = -1;
    stored = stored && report_path(part, sizeof part, u->srv->dir, u->id, REPORT_UPLOAD) == 0 &&
             report_path(input, sizeof input, u->srv->dir, u->id, job.input) == 0 &&
             rename(part, input) == 0;
    if (!stored)
        return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot store the upload");
    if (web_jobs_submit(u->srv->jobs, &job) < 0)
        return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                               "too many reports waiting for conversion; try again later");
    u->queued = true;
    /* Named last: the list shows reports from here on, already queued. */
    report_write(u->srv->dir, u->id, REPORT_NAME, u->name, strlen(u->name));
    char body[64];
    int n = snprintf(body, sizeof body, "{\"id\":\"%s\"}\n", u->id);
    return web_reply(c, MHD_HTTP_CREATED, "application/json", body, (size_t)n);
}

enum MHD_Result web_upload(web_server *srv, struct MHD_Connection *c, void **state,
                           const char *data, size_t *size)
{
    upload *u = *state;
    if (!u)
        return begin(srv, c, state);
    if (*size == 0)
        return finish(u, c);
    if (!u->status && MHD_post_process(u->post, data, *size) != MHD_YES)
        refuse(u, MHD_HTTP_BAD_REQUEST, "malformed multipart upload");
    *size = 0;
    return MHD_YES;
}

void web_upload_end(void *state)
{
    upload *u = state;
    if (u->post)
        MHD_destroy_post_processor(u->post);
    if (u->fd >= 0)
        close(u->fd);
    if (!u->queued && u->id[0])
        report_remove(u->srv->dir, u->id);
    free(u);
}
