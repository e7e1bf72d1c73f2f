/* A main() for the fuzz targets where libFuzzer is not available (gcc):
 * runs LLVMFuzzerTestOneInput once on each file named (directories: on
 * each file inside), so the regression inputs in tests/fuzz/regressions/
 * replay in any build, sanitized or not. A finding aborts, as under
 * libFuzzer.
 *
 *   fuzz_convert_replay FILE|DIR...   */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    size_t n;
    uint8_t *data = fuzz_read_file(path, &n);
    if (!data) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d)
        return 1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, sizeof *names * (n + 1));
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        rc |= replay(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= replay(argv[i]);
    if (!rc)
        fprintf(stderr, "replay: all inputs passed\n");
    return rc;
}
