/* The view --open asks the Perfetto UI for (open_view.h): startup commands
 * for our traces, a user's own from a file, the deep link that carries
 * them, and the nsys package for the native engine. */
#define _GNU_SOURCE /* open_memstream, nftw */
#include "open_view.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/json.h"
#include "common/xalloc.h"
#include "nsys_perfetto.h"
#include "sql_package.h"
#include "text_out.h"

/* Track names of our traces (docs/timeline.md): one group per GPU, "GPU 0"
 * or "GPU 0 · NVIDIA H100 ...", each with a "GPU utilization" counter. */
#define GPU_GROUPS "^GPU [0-9]+( ·|$)"
#define GPU_UTILIZATION "^GPU utilization$"
/* ranks --trace: "job: 4 ranks", in it "rank 0", ... (analysis/overview.c). */
#define RANK_GROUPS "^(job: [0-9]+ ranks?|rank [0-9]+)$"

/* The module the first tab needs (nsys_kernels comes with it). */
static const char *const TAB_MODULES[] = {"nsys.stats.cuda"};

/* The kernel summary of the GPU that ran the most kernel time: nsys's
 * gpukernsum columns, for that device alone. */
static const char BUSIEST_GPU_KERNELS[] =
    "SELECT g.device AS gpu, round(100.0 * sum(k.dur) / g.busy, 1) AS time_pct, "
    "sum(k.dur) AS total_time_ns, count(*) AS instances, round(avg(k.dur), 1) AS avg_ns, "
    "min(k.dur) AS min_ns, max(k.dur) AS max_ns, k.name AS name "
    "FROM nsys_kernels k JOIN (SELECT device, sum(dur) AS busy FROM nsys_kernels "
    "GROUP BY device ORDER BY busy DESC LIMIT 1) g USING (device) "
    "GROUP BY k.name ORDER BY total_time_ns DESC";

/* ---- The package as a script ------------------------------------------ */

/* src with its comments dropped and each run of blanks made one space
 * (none after '(' ',' ';' or before ')' ',' ';'); quoted text is kept as
 * is. The link carries this: half the package's bytes. */
static void minify_sql(const char *src, size_t len, buf *out)
{
    char quote = 0;
    bool blank = false;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (quote) {
            buf_append_byte(out, (uint8_t)c);
            quote = c == quote ? 0 : quote;
            continue;
        }
        if (c == '-' && i + 1 < len && src[i + 1] == '-') {
            while (i + 1 < len && src[i + 1] != '\n')
                i++;
            blank = true;
            continue;
        }
        if (c == '/' && i + 1 < len && src[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
                ;
            i++;
            blank = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            blank = true;
            continue;
        }
        char last = out->len ? (char)out->data[out->len - 1] : '(';
        if (blank && !strchr("(,;", last) && !strchr("),;", c))
            buf_append_byte(out, ' ');
        blank = false;
        if (c == '\'' || c == '"')
            quote = c;
        buf_append_byte(out, (uint8_t)c);
    }
}

void open_view_package_script(const char *const *names, size_t n, buf *out)
{
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    /* The embedded package is ours: only memory can fail, fatal as in xalloc. */
    if (!f || sql_script(names, n, f, err, sizeof err) != 0 || fclose(f) != 0) {
        fputs("nsys-perfetto: out of memory (the SQL package's script)\n", stderr);
        abort();
    }
    minify_sql(text, len, out);
    buf_cstr(out);
    free(text);
}

/* ---- Views ------------------------------------------------------------ */

/* The query that loads the package: its script (browser), or an INCLUDE of
 * every module (native, given --add-sql-package). */
static void package_query(open_engine engine, bool whole, buf *out)
{
    if (engine == OPEN_ENGINE_BROWSER) {
        open_view_package_script(whole ? NULL : TAB_MODULES, whole ? 0 : 1, out);
        return;
    }
    for (size_t i = 0; i < nsysp_sql_n_modules; i++)
        buf_printf(out, "INCLUDE PERFETTO MODULE %s;", nsysp_sql_modules[i].name);
}

void open_view_trace(ui_commands *list, open_engine engine, bool whole)
{
    buf package = {0};
    package_query(engine, whole, &package);
    ui_commands_add(list, "dev.perfetto.ExpandTracksByRegex", GPU_GROUPS, "name", NULL);
    ui_commands_add(list, "dev.perfetto.PinTracksByRegex", GPU_UTILIZATION, "name", NULL);
    ui_commands_add(list, "dev.perfetto.RunQuery", buf_cstr(&package), NULL);
    ui_commands_add(list, "dev.perfetto.RunQueryAndShowTab", BUSIEST_GPU_KERNELS,
                    "nsys: kernels of the busiest GPU", NULL);
    buf_free(&package);
}

void open_view_ranks(ui_commands *list, const char *slowest, const open_note *notes,
                     size_t n_notes, const char *stragglers_sql)
{
    ui_commands_add(list, "dev.perfetto.ExpandTracksByRegex", RANK_GROUPS, "name", NULL);
    if (slowest) {
        /* The group and its utilization row, by path ("rank 3 > GPU
         * utilization"); our rank groups' names hold no regex syntax. */
        char regex[128];
        snprintf(regex, sizeof regex, "(^| > )%.64s( > GPU utilization)?$", slowest);
        ui_commands_add(list, "dev.perfetto.PinTracksByRegex", regex, "path", NULL);
    }
    for (size_t i = 0; i < n_notes; i++) {
        char ts[32];
        snprintf(ts, sizeof ts, "%lld", (long long)notes[i].ts);
        ui_commands_add(list, "dev.perfetto.AddNoteAtTimestamp", ts, notes[i].text, NULL);
    }
    if (stragglers_sql)
        ui_commands_add(list, "dev.perfetto.RunQueryAndShowTab", stragglers_sql,
                        "nsys: stragglers", NULL);
}

/* ---- The UI's settings (sql --ui-settings) ------------------------------ */

typedef struct macro {
    const char *id, *name;
    const char *module;          /* the package module it loads first */
    const char *command, *query, *title;
} macro;

/* Each macro loads the modules it reads (CREATE OR REPLACE: again is
 * harmless), so it works on its own in any session. */
static const macro MACROS[] = {
    {"nsys.LoadPackage", "nsys: load the SQL package", NULL, NULL, NULL, NULL},
    {"nsys.KernelSummary", "nsys: kernel summary", "nsys.stats.cuda",
     "dev.perfetto.RunQueryAndShowTab", "SELECT * FROM nsys_cuda_gpu_kern_sum",
     "nsys: kernel summary"},
    {"nsys.BusiestGpuKernels", "nsys: kernels of the busiest GPU", "nsys.stats.cuda",
     "dev.perfetto.RunQueryAndShowTab", BUSIEST_GPU_KERNELS, "nsys: kernels of the busiest GPU"},
    {"nsys.GpuGaps", "nsys: GPU gaps as a debug track", "nsys.analyze.gpu_gaps",
     "dev.perfetto.AddDebugSliceTrack",
     "SELECT start_ns + _nsys_time_shift() AS ts, duration_ns AS dur, "
     "printf('GPU %d idle %.3f ms', device_id, duration_ns / 1e6) AS name "
     "FROM nsys_gpu_gaps_default", "nsys: GPU gaps"},
    {"nsys.NvtxOnGpu", "nsys: NVTX on the GPU", "nsys.nvtx", "dev.perfetto.AddDebugSliceTrack",
     "SELECT ts, dur, name FROM nsys_nvtx_gpu_ranges", "nsys: NVTX on the GPU"},
    {"nsys.CudaApiSummary", "nsys: CUDA API summary", "nsys.stats.cuda",
     "dev.perfetto.RunQueryAndShowTab", "SELECT * FROM nsys_cuda_api_sum",
     "nsys: CUDA API summary"},
};

static void macro_json(const macro *m, buf *out)
{
    ui_commands run = {0};
    buf script = {0};
    open_view_package_script(m->module ? &m->module : NULL, m->module ? 1 : 0, &script);
    ui_commands_add(&run, "dev.perfetto.RunQuery", buf_cstr(&script), NULL);
    if (m->command)
        ui_commands_add(&run, m->command, m->query, m->title, NULL);
    buf_append_str(out, "{\"id\":");
    json_append_string(out, m->id, strlen(m->id), false);
    buf_append_str(out, ",\"name\":");
    json_append_string(out, m->name, strlen(m->name), false);
    buf_append_str(out, ",\"run\":");
    ui_commands_json(&run, out);
    buf_append_byte(out, '}');
    ui_commands_free(&run);
    buf_free(&script);
}

void open_view_ui_settings(buf *out)
{
    ui_commands startup = {0};
    ui_commands_add(&startup, "dev.perfetto.ExpandTracksByRegex", GPU_GROUPS, "name", NULL);
    ui_commands_add(&startup, "dev.perfetto.PinTracksByRegex", GPU_UTILIZATION, "name", NULL);
    buf_append_str(out, "{\n\"startupCommands\": ");
    ui_commands_json(&startup, out);
    buf_append_str(out, ",\n\"perfetto.CoreCommands#Macros\": [");
    for (size_t i = 0; i < sizeof MACROS / sizeof MACROS[0]; i++) {
        buf_append_str(out, i ? ",\n" : "\n");
        macro_json(&MACROS[i], out);
    }
    buf_append_str(out, "\n]\n}\n");
    ui_commands_free(&startup);
}

/* ---- A user's view ---------------------------------------------------- */

enum { VIEW_FILE_MAX = 1 << 20 };

static int read_view_file(const char *path, ui_commands *list)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        text_printf(stderr, "nsys-perfetto: --open-view: %s: %s\n", path, strerror(errno));
        return NSYSP_ERR_USAGE;
    }
    char *text = xmalloc(VIEW_FILE_MAX + 1);
    size_t len = fread(text, 1, VIEW_FILE_MAX + 1, f);
    bool failed = ferror(f) != 0;
    fclose(f);
    char err[512];
    int rc = NSYSP_OK;
    if (failed || len > VIEW_FILE_MAX) {
        text_printf(stderr, "nsys-perfetto: --open-view: %s: %s\n", path,
                    failed ? "cannot be read" : "larger than 1 MB, past what a link carries");
        rc = NSYSP_ERR_USAGE;
    } else if (ui_commands_parse(text, len, list, err, sizeof err) != 0) {
        text_printf(stderr, "nsys-perfetto: --open-view: %s: %s\n", path, err);
        rc = NSYSP_ERR_USAGE;
    }
    free(text);
    return rc;
}

int open_view_choose(const char *view_arg, ui_commands *list)
{
    if (!view_arg)
        return NSYSP_OK;
    ui_commands_free(list);
    if (strcmp(view_arg, "none") == 0)
        return NSYSP_OK;
    return read_view_file(view_arg, list);
}

/* ---- The link --------------------------------------------------------- */

int open_view_link(const char *ui, const char *trace_url, const ui_commands *list, buf *link)
{
    size_t base = strlen(ui);
    while (base && ui[base - 1] == '/')
        base--;
    buf_clear(link);
    buf_append(link, ui, base);
    buf_append_str(link, "/#!/");
    const char *sep = "?";
    if (trace_url) {
        buf_printf(link, "?url=%s", trace_url);
        sep = "&";
    }
    if (list->n) {
        buf json = {0};
        ui_commands_json(list, &json);
        buf_printf(link, "%sstartupCommands=", sep);
        url_encode((const char *)json.data, json.len, link);
        buf_free(&json);
    }
    buf_cstr(link);
    return link->len <= OPEN_LINK_MAX ? 0 : -1;
}

/* Whether list's link fits, measured with the longest trace URL --open
 * gives (any port, a file name of 255 bytes all escaped); its length into
 * *len. */
static bool link_fits(const char *ui, const ui_commands *list, size_t *len)
{
    buf url = {0}, link = {0};
    buf_append_str(&url, "http://127.0.0.1:65535/");
    for (int i = 0; i < 255; i++)
        buf_append_str(&url, "%FF");
    bool fits = open_view_link(ui, buf_cstr(&url), list, &link) == 0;
    *len = link.len;
    buf_free(&url);
    buf_free(&link);
    return fits;
}

int open_view_check(const char *ui, const ui_commands *list, const char *source)
{
    size_t len;
    if (link_fits(ui, list, &len))
        return NSYSP_OK;
    text_printf(stderr, "nsys-perfetto: --open-view: %s: the link would be %zu bytes, past the "
                        "%d a browser is given whole\n", source, len, OPEN_LINK_MAX);
    return NSYSP_ERR_USAGE;
}

void open_view_ours(open_engine engine, const char *ui, ui_commands *list)
{
    size_t len;
    open_view_trace(list, engine, true);
    if (link_fits(ui, list, &len))
        return;
    /* The whole package passes the limit: the tab's modules only. */
    ui_commands_free(list);
    open_view_trace(list, engine, false);
    if (link_fits(ui, list, &len)) {
        fprintf(stderr, "nsys-perfetto: --open: the link loads the package's CUDA tables only "
                        "(the whole package passes %d bytes): paste `nsys-perfetto sql` for the "
                        "rest\n", OPEN_LINK_MAX);
        return;
    }
    ui_commands_free(list); /* not with our package: then a plain open */
}

/* ---- The package as files (native engine) ------------------------------ */

/* Makes every directory of path's parent. */
static int make_parents(char *path)
{
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int rc = mkdir(path, 0700);
        *slash = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

static int write_module(const char *root, const nsysp_sql_module *m)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/", root);
    /* "nsys.stats.cuda" -> ROOT/nsys/stats/cuda.sql */
    for (const char *p = m->name; *p && n < (int)sizeof path - 5; p++)
        path[n++] = *p == '.' ? '/' : *p;
    snprintf(path + n, sizeof path - (size_t)n, ".sql");
    if (make_parents(path) != 0)
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t wrote = fwrite(m->text, 1, m->size, f);
    return (fclose(f) != 0 || wrote != m->size) ? -1 : 0;
}

int open_view_write_package(char dir[PATH_MAX])
{
    const char *tmp = getenv("TMPDIR");
    char root[PATH_MAX - sizeof "/nsys"];
    snprintf(root, sizeof root, "%s/nsys-perfetto-sql-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return -1;
    for (size_t i = 0; i < nsysp_sql_n_modules; i++)
        if (write_module(root, &nsysp_sql_modules[i]) != 0) {
            int saved = errno;
            snprintf(dir, PATH_MAX, "%s/nsys", root);
            open_view_remove_package(dir);
            errno = saved;
            return -1;
        }
    snprintf(dir, PATH_MAX, "%s/nsys", root);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

void open_view_remove_package(const char *dir)
{
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", dir);
    char *slash = strrchr(root, '/');
    if (!slash || strcmp(slash, "/nsys") != 0)
        return;
    *slash = '\0';
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
