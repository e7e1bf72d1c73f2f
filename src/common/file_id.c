#include "file_id.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool file_id_of(const char *path, file_id *id)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        *id = (file_id){.dev = st.st_dev, .ino = st.st_ino, .name = ""};
        return true;
    }
    if (errno != ENOENT)
        return false;
    /* Not there yet: its directory and name. */
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char dir[PATH_MAX];
    int n = slash ? snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + 1), path)
                  : snprintf(dir, sizeof dir, ".");
    if (!*name || n < 0 || (size_t)n >= sizeof dir || stat(dir, &st) != 0)
        return false;
    *id = (file_id){.dev = st.st_dev, .ino = st.st_ino, .name = name};
    return true;
}

bool file_id_of_fd(int fd, file_id *id)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    *id = (file_id){.dev = st.st_dev, .ino = st.st_ino, .name = ""};
    return true;
}

int file_id_compare(const file_id *a, const file_id *b)
{
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return strcmp(a->name, b->name);
}

bool file_id_same_path(const char *a, const char *b)
{
    file_id x, y;
    return file_id_of(a, &x) && file_id_of(b, &y) && file_id_compare(&x, &y) == 0;
}
