#include "web_api.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json.h"
#include "tool/open_view.h"
#include "web_reports.h"

/* The page, embedded at build time from src/web/page.html. */
extern const unsigned char web_page[];
extern const size_t web_page_size;

enum MHD_Result web_api_page(web_server *srv, struct MHD_Connection *c)
{
    (void)srv;
    struct MHD_Response *r = MHD_create_response_from_buffer(
        web_page_size, (void *)web_page, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    /* The page's own script and style only; it talks to this server alone
     * (the Perfetto UI is another window, reached by postMessage). */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'none'; script-src 'self' 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "
                            "form-action 'none'; frame-ancestors 'none'");
    return web_reply_response(c, MHD_HTTP_OK, r);
}

/* Sends the text written to a memstream as JSON, and frees it. */
static enum MHD_Result reply_stream(struct MHD_Connection *c, FILE *out, char **text,
                                    size_t *len)
{
    if (fclose(out) != 0) { /* *text and *len are set from here on */
        free(*text);
        return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    enum MHD_Result ok = web_reply(c, MHD_HTTP_OK, "application/json", *text, *len);
    free(*text);
    return ok;
}

enum MHD_Result web_api_config(web_server *srv, struct MHD_Connection *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return MHD_NO;
    fputs("{\"perfetto_ui\":", out);
    json_string(out, srv->perfetto_ui);
    fputs(",\"address\":", out);
    json_string(out, srv->address);
    fprintf(out, ",\"max_upload\":%llu,\"open_limit\":%llu,\"version\":",
            (unsigned long long)srv->max_upload, (unsigned long long)srv->open_limit);
    json_string(out, nsysp_version());
    /* The Open button's view (tool/open_view.h): the browser's engine. */
    ui_commands view = {0};
    buf commands = {0};
    open_view_ours(OPEN_ENGINE_BROWSER, srv->perfetto_ui, &view);
    ui_commands_json(&view, &commands);
    fputs(",\"startup_commands\":", out);
    json_string(out, buf_cstr(&commands));
    ui_commands_free(&view);
    buf_free(&commands);
    fputs(",\"sources\":[", out);
    const char *name;
    for (size_t i = 0, n = 0; (name = nsysp_source_name(i)) != NULL; i++) {
        bool seen = false; /* several tables go by one name */
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(nsysp_source_name(j), name) == 0;
        if (seen)
            continue;
        fputs(n++ ? "," : "", out);
        json_string(out, name);
    }
    fputs("]}\n", out);
    return reply_stream(c, out, &text, &len);
}

typedef struct listed {
    char id[REPORT_ID_LEN + 1];
    struct timespec created;
} listed;

static int newest_first(const void *a, const void *b)
{
    const listed *x = a, *y = b;
    if (x->created.tv_sec != y->created.tv_sec)
        return x->created.tv_sec < y->created.tv_sec ? 1 : -1;
    if (x->created.tv_nsec != y->created.tv_nsec)
        return x->created.tv_nsec < y->created.tv_nsec ? 1 : -1;
    return strcmp(x->id, y->id);
}

/* The server's reports whose upload is complete (they have a name), newest
 * first. */
static listed *list_reports(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 0;
    listed *all = NULL;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (!report_id_valid(e->d_name) || !report_has(dir, e->d_name, REPORT_MARK) ||
            report_path(path, sizeof path, dir, e->d_name, REPORT_NAME) < 0 ||
            stat(path, &st) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            listed *more = realloc(all, cap * sizeof *all);
            if (!more)
                break;
            all = more;
        }
        memcpy(all[*n].id, e->d_name, sizeof all[*n].id); /* checked: 16 digits */
        all[(*n)++].created = st.st_mtim;
    }
    closedir(d);
    if (*n)
        qsort(all, *n, sizeof *all, newest_first);
    return all;
}

/* id, name, state and what the list shows of one report. */
static void write_entry(web_server *srv, FILE *out, const listed *l)
{
    char name[256], error[1024], state[32] = "", path[4096];
    double progress = 0;
    report_read(srv->dir, l->id, REPORT_NAME, name, sizeof name);
    fputs("{\"id\":", out);
    json_string(out, l->id);
    fputs(",\"name\":", out);
    json_string(out, name);
    fprintf(out, ",\"created\":%lld", (long long)l->created.tv_sec * 1000 +
                                          l->created.tv_nsec / 1000000);
    struct stat st;
    if (web_jobs_find(srv->jobs, l->id, state, sizeof state, &progress)) {
        fprintf(out, ",\"state\":\"%s\",\"progress\":%.3f}", state, progress);
    } else if (report_read(srv->dir, l->id, REPORT_ERROR, error, sizeof error) == 0) {
        fputs(",\"state\":\"failed\",\"error\":", out);
        json_string(out, error);
        fputc('}', out);
    } else if (report_path(path, sizeof path, srv->dir, l->id, REPORT_TRACE) == 0 &&
               stat(path, &st) == 0 && report_has(srv->dir, l->id, REPORT_RESULT)) {
        char engine[32] = "0";
        report_read(srv->dir, l->id, REPORT_ENGINE, engine, sizeof engine);
        fprintf(out, ",\"state\":\"done\",\"trace_bytes\":%lld,\"engine_bytes\":%llu}",
                (long long)st.st_size, strtoull(engine, NULL, 10));
    } else {
        fputs(",\"state\":\"gone\"}", out); /* being deleted, or left by a killed server */
    }
}

enum MHD_Result web_api_list(web_server *srv, struct MHD_Connection *c)
{
    size_t n;
    listed *all = list_reports(srv->dir, &n);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        free(all);
        return MHD_NO;
    }
    fputs("{\"reports\":[", out);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", out);
        write_entry(srv, out, &all[i]);
    }
    fputs("]}\n", out);
    free(all);
    return reply_stream(c, out, &text, &len);
}

enum MHD_Result web_api_report(web_server *srv, struct MHD_Connection *c, const char *id)
{
    char state[32], name[256];
    double progress;
    if (web_jobs_find(srv->jobs, id, state, sizeof state, &progress)) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        if (!out)
            return MHD_NO;
        report_read(srv->dir, id, REPORT_NAME, name, sizeof name);
        fputs("{\"id\":", out);
        json_string(out, id);
        fputs(",\"name\":", out);
        json_string(out, name);
        fprintf(out, ",\"state\":\"%s\",\"progress\":%.3f}\n", state, progress);
        return reply_stream(c, out, &text, &len);
    }
    char path[4096];
    int fd = report_path(path, sizeof path, srv->dir, id, REPORT_RESULT) == 0
                 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return web_reply_error(c, MHD_HTTP_NOT_FOUND, "no such report");
    }
    struct MHD_Response *r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    return web_reply_response(c, MHD_HTTP_OK, r);
}

/* The client's name made safe for a Content-Disposition header. */
static void download_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < size; p++)
        out[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_' ? *p : '_';
    out[n] = '\0';
    for (const char *ext = ".sqlite"; n > strlen(ext) && strcmp(out + n - strlen(ext), ext) == 0;)
        out[n -= strlen(ext)] = '\0';
}

enum MHD_Result web_api_trace(web_server *srv, struct MHD_Connection *c, const char *id)
{
    char path[4096], name[256], safe[256], disposition[320];
    int fd = report_path(path, sizeof path, srv->dir, id, REPORT_TRACE) == 0
                 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return web_reply_error(c, MHD_HTTP_NOT_FOUND, "no trace for this report");
    }
    /* Streamed from the file: no size limit, memory stays flat. */
    struct MHD_Response *r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    report_read(srv->dir, id, REPORT_NAME, name, sizeof name);
    download_name(name[0] ? name : "report", safe, sizeof safe);
    snprintf(disposition, sizeof disposition, "attachment; filename=\"%s.perfetto-trace\"", safe);
    MHD_add_response_header(r, "Content-Type", "application/octet-stream");
    MHD_add_response_header(r, "Content-Disposition", disposition);
    return web_reply_response(c, MHD_HTTP_OK, r);
}

enum MHD_Result web_api_delete(web_server *srv, struct MHD_Connection *c, const char *id)
{
    char state[32];
    double progress;
    if (web_jobs_find(srv->jobs, id, state, sizeof state, &progress))
        return web_reply_error(c, MHD_HTTP_CONFLICT, "the report is being converted");
    if (!report_has(srv->dir, id, REPORT_RESULT))
        return web_reply_error(c, MHD_HTTP_NOT_FOUND, "no such report");
    if (report_remove(srv->dir, id) != 0) /* another request removed it first */
        return web_reply_error(c, MHD_HTTP_NOT_FOUND, "no such report");
    return web_reply(c, MHD_HTTP_OK, "application/json", "{}\n", 3);
}
