#include "web_reports.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool report_id_valid(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (!((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'f')) ||
            n == REPORT_ID_LEN)
            return false;
    return n == REPORT_ID_LEN;
}

static int random_id(char id[REPORT_ID_LEN + 1])
{
    unsigned char bytes[REPORT_ID_LEN / 2];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, bytes, sizeof bytes);
    close(fd);
    if (got != (ssize_t)sizeof bytes)
        return -1;
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(id + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

int report_create(const char *dir, char id[REPORT_ID_LEN + 1])
{
    char path[4096];
    for (int attempt = 0; attempt < 8; attempt++) {
        if (random_id(id) < 0 || report_path(path, sizeof path, dir, id, NULL) < 0)
            return -1;
        if (mkdir(path, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

int report_path(char *out, size_t size, const char *dir, const char *id, const char *file)
{
    int n = file ? snprintf(out, size, "%s/%s/%s", dir, id, file)
                 : snprintf(out, size, "%s/%s", dir, id);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool report_has(const char *dir, const char *id, const char *file)
{
    char path[4096];
    return report_path(path, sizeof path, dir, id, file) == 0 && access(path, F_OK) == 0;
}

int report_write(const char *dir, const char *id, const char *file, const char *text,
                 size_t len)
{
    char path[4096], tmp[4200];
    if (report_path(path, sizeof path, dir, id, file) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (close(fd) != 0 || done != len || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int report_read(const char *dir, const char *id, const char *file, char *out, size_t size)
{
    char path[4096];
    out[0] = '\0';
    if (report_path(path, sizeof path, dir, id, file) < 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
    return 0;
}

int report_remove(const char *dir, const char *id)
{
    char path[4096], file[4400];
    if (!report_id_valid(id) || report_path(path, sizeof path, dir, id, NULL) < 0)
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) /* only files of ours: no subdirectories */
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
    closedir(d);
    return rmdir(path);
}

int reports_remove_unfinished(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (report_id_valid(e->d_name) && !report_has(dir, e->d_name, REPORT_RESULT))
            removed += report_remove(dir, e->d_name) == 0;
    closedir(d);
    return removed;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *report_input_file(const char *client_name)
{
    if (ends_with(client_name, ".nsys-rep"))
        return "input.nsys-rep";
    if (ends_with(client_name, ".qdrep"))
        return "input.qdrep";
    return "input.sqlite";
}
