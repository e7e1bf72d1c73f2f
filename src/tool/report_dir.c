#include "report_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nsys_perfetto.h"
#include "common/xalloc.h"
#include "natural_order.h"
#include "text_out.h"

static const char *const EXTENSIONS[] = {".sqlite", ".nsys-rep", ".qdrep"};

bool is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The length of name without a report extension, or 0 when it has none. */
static size_t stem_length(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof EXTENSIONS / sizeof *EXTENSIONS; i++) {
        size_t m = strlen(EXTENSIONS[i]);
        if (n > m && strcmp(name + n - m, EXTENSIONS[i]) == 0)
            return n - m;
    }
    return 0;
}

static int by_natural_order(const void *a, const void *b)
{
    return natural_compare(*(char *const *)a, *(char *const *)b);
}

int list_reports(const char *who, const char *dir, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !stem_length(e->d_name))
            continue;
        names = xgrow(names, &cap, count + 1, sizeof *names);
        names[count++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (count > 1)
        qsort(names, count, sizeof *names, by_natural_order);
    char **out = xcalloc(count ? count : 1, sizeof *out);
    for (size_t i = 0; i < count; i++) {
        size_t stem = stem_length(names[i]);
        bool exported = false; /* an nsys report whose .sqlite is listed too */
        for (size_t j = 0; j < count && strcmp(names[i] + stem, ".sqlite") != 0; j++)
            exported |= j != i && stem_length(names[j]) == stem &&
                        strncmp(names[j], names[i], stem) == 0 &&
                        strcmp(names[j] + stem, ".sqlite") == 0;
        if (!exported) {
            size_t len = strlen(dir) + strlen(names[i]) + 2;
            out[*n] = xmalloc(len);
            snprintf(out[(*n)++], len, "%s/%s", dir, names[i]);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    size_t kept = keep_each_report_once(who, out, *n);
    for (size_t i = kept; i < *n; i++)
        free(out[i]);
    *n = kept;
    *paths = out;
    return 0;
}

void free_reports(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

int expand_reports(const char *who, char *const *args, size_t n_args, char ***paths,
                   size_t *n)
{
    *paths = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < n_args; i++) {
        char **found = NULL;
        size_t n_found = 0;
        if (is_directory(args[i])) {
            if (list_reports(who, args[i], &found, &n_found) != 0 || !n_found) {
                text_printf(stderr, "%s: %s: %s\n", who, args[i],
                            found ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                  : strerror(errno));
                free_reports(found, found ? n_found : 0);
                free_reports(*paths, *n);
                *paths = NULL;
                *n = 0;
                return NSYSP_ERR_INPUT_OPEN;
            }
        } else {
            found = xcalloc(1, sizeof *found);
            found[0] = xstrdup(args[i]);
            n_found = 1;
        }
        *paths = xgrow(*paths, &cap, *n + n_found, sizeof **paths);
        memcpy(*paths + *n, found, n_found * sizeof *found);
        *n += n_found;
        free(found);
    }
    size_t kept = keep_each_report_once(who, *paths, *n);
    for (size_t i = kept; i < *n; i++)
        free((*paths)[i]);
    *n = kept;
    return NSYSP_OK;
}

/* A path's file, and where it stands among the paths. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    size_t index;
    bool known;                  /* stat succeeded */
} file_id;

static int by_file_then_index(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->known != y->known)
        return x->known ? -1 : 1;
    if (x->known && x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->known && x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

size_t keep_each_report_once(const char *who, char **paths, size_t n)
{
    if (n < 2)
        return n;
    file_id *ids = xcalloc(n, sizeof *ids);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        ids[i].index = i;
        ids[i].known = stat(paths[i], &st) == 0;
        ids[i].dev = ids[i].known ? st.st_dev : 0;
        ids[i].ino = ids[i].known ? st.st_ino : 0;
    }
    /* By file, so that each path's first twin is found in n log n: a
     * job's directory may hold a million reports. */
    qsort(ids, n, sizeof *ids, by_file_then_index);
    size_t *first = xcalloc(n, sizeof *first); /* the path each repeats, or itself */
    for (size_t i = 0; i < n; i++) {
        bool twin = i > 0 && ids[i].known && ids[i - 1].known && ids[i].dev == ids[i - 1].dev &&
                    ids[i].ino == ids[i - 1].ino;
        first[ids[i].index] = twin ? first[ids[i - 1].index] : ids[i].index;
    }
    for (size_t i = 0; i < n; i++) {
        if (first[i] == i)
            continue;
        if (strcmp(paths[i], paths[first[i]]) == 0)
            text_printf(stderr, "%s: %s: given twice: counted once\n", who, paths[i]);
        else
            text_printf(stderr, "%s: %s: the same report as %s: counted once\n", who,
                        paths[i], paths[first[i]]);
    }
    char **dropped = xcalloc(n, sizeof *dropped);
    size_t kept = 0, n_dropped = 0;
    for (size_t i = 0; i < n; i++) {
        if (first[i] == i)
            paths[kept++] = paths[i];
        else
            dropped[n_dropped++] = paths[i];
    }
    memcpy(paths + kept, dropped, n_dropped * sizeof *dropped);
    free(dropped);
    free(first);
    free(ids);
    return kept;
}
