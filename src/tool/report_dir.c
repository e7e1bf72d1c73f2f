#include "report_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "natural_order.h"

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

int list_reports(const char *dir, char ***paths, size_t *n)
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
        if (count == cap) {
            cap = cap ? 2 * cap : 32;
            names = realloc(names, cap * sizeof *names);
            if (!names)
                abort();
        }
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    if (count > 1)
        qsort(names, count, sizeof *names, by_natural_order);
    char **out = calloc(count ? count : 1, sizeof *out);
    if (!out)
        abort();
    for (size_t i = 0; i < count; i++) {
        size_t stem = stem_length(names[i]);
        bool exported = false; /* an nsys report whose .sqlite is listed too */
        for (size_t j = 0; j < count && strcmp(names[i] + stem, ".sqlite") != 0; j++)
            exported |= j != i && stem_length(names[j]) == stem &&
                        strncmp(names[j], names[i], stem) == 0 &&
                        strcmp(names[j] + stem, ".sqlite") == 0;
        if (!exported) {
            size_t len = strlen(dir) + strlen(names[i]) + 2;
            out[*n] = malloc(len);
            if (!out[*n])
                abort();
            snprintf(out[(*n)++], len, "%s/%s", dir, names[i]);
        }
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    *paths = out;
    return 0;
}

void free_reports(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
