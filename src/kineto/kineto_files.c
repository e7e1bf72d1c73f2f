#include "kineto_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"
#include "nsys_perfetto.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool is_directory(const char *path)
{
    struct stat st;
    return ends_with(path, "/") || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* path without its ".json" or ".json.gz". */
static char *json_stem(const char *path)
{
    size_t n = strlen(path);
    if (ends_with(path, ".json.gz"))
        n -= strlen(".json.gz");
    else if (ends_with(path, ".json"))
        n -= strlen(".json");
    char *stem = xmalloc(n + 1);
    memcpy(stem, path, n);
    stem[n] = '\0';
    return stem;
}

/* A report's path without its extension ("dir/report.sqlite" -> "dir/report"),
 * as nsysp_default_output_path drops it; with in_dir, only its file name. */
static char *report_stem(const char *input, bool in_dir)
{
    const char *slash = strrchr(input, '/');
    const char *from = in_dir && slash ? slash + 1 : input;
    const char *dot = strrchr(from, '.');
    size_t n = strlen(from);
    if (dot && (!slash || dot > slash + 1) && dot > from)
        n = (size_t)(dot - from);
    char *stem = xmalloc(n + 1);
    memcpy(stem, from, n);
    stem[n] = '\0';
    return stem;
}

static char *file_path(const char *const *inputs, const kineto_file *f, const char *output_path,
                       bool several, const char *suffix)
{
    buf path = {0};
    char rank[32] = "";
    if (several)
        snprintf(rank, sizeof rank, ".rank%ld", f->rank);
    if (output_path && is_directory(output_path)) {
        char *stem = report_stem(inputs[f->report], true);
        buf_printf(&path, "%s%s%s%s%s", output_path, ends_with(output_path, "/") ? "" : "/",
                   stem, rank, suffix);
        free(stem);
    } else {
        char *stem = output_path ? json_stem(output_path) : report_stem(inputs[f->report], false);
        buf_printf(&path, "%s%s%s", stem, rank, suffix);
        free(stem);
    }
    char *s = xstrdup(buf_cstr(&path));
    buf_free(&path);
    return s;
}

/* --pid: the file of that process's rank alone (the others would hold
 * nothing); a process that ran no GPU work gets its report's first. */
static void keep_process(kineto_files *files, int32_t pid)
{
    size_t keep = 0;
    for (size_t i = 0; i < files->n; i++)
        if (files->files[i].pid == pid) {
            keep = i;
            break;
        }
    kineto_file kept = files->files[keep];
    for (size_t i = 0; i < files->n; i++)
        if (i != keep)
            free(files->files[i].path);
    files->files[0] = kept;
    files->n = 1;
}

static int by_rank(const void *a, const void *b)
{
    const kineto_file *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int kineto_files_plan(const char *const *inputs, kineto_file *ranks, size_t n_ranks,
                      const char *output_path, int compress_level, int32_t only_pid,
                      kineto_files *out, buf *err)
{
    memset(out, 0, sizeof *out);
    out->files = ranks;
    out->n = n_ranks;
    qsort(out->files, out->n, sizeof *out->files, by_rank);
    if (only_pid > 0)
        keep_process(out, only_pid);

    /* A directory named for the files ("traces/") is made when missing. */
    if (output_path && ends_with(output_path, "/") &&
        mkdir(output_path, 0777) < 0 && errno != EEXIST) {
        buf_printf(err, "%s: cannot create directory: %s", output_path, strerror(errno));
        kineto_files_free(out);
        return NSYSP_ERR_OUTPUT;
    }
    out->compressed = compress_level > 0 && !(output_path && ends_with(output_path, ".json"));
    const char *suffix = out->compressed ? ".json.gz" : ".json";
    bool several = out->n > 1;
    for (size_t i = 0; i < out->n; i++)
        out->files[i].path = file_path(inputs, &out->files[i], output_path, several, suffix);
    /* Two ranks may not share a file name (a directory given for reports
     * of one name in different folders). */
    for (size_t i = 0; i < out->n; i++)
        for (size_t k = 0; k < i; k++)
            if (strcmp(out->files[i].path, out->files[k].path) == 0) {
                buf_printf(err, "%s: two ranks would be written to this file", out->files[i].path);
                kineto_files_free(out);
                return NSYSP_ERR_OUTPUT;
            }
    return NSYSP_OK;
}

void kineto_files_free(kineto_files *files)
{
    for (size_t i = 0; i < files->n; i++)
        free(files->files[i].path);
    free(files->files);
    memset(files, 0, sizeof *files);
}
