#include "web_reports.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

int reports_lock(const char *dir, char *why, size_t why_size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, REPORTS_LOCK) >= (int)sizeof path) {
        snprintf(why, why_size, "%s: path too long", dir);
        return -1;
    }
    /* Held until the process ends (the descriptor is never closed); not
     * inherited by nsys, which could otherwise outlive us holding it. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, why_size, "%s: cannot create its lock file: %s", dir, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = read(fd, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(why, why_size, "%s is in use by another nsys-perfetto serve%s%s%s; give "
                 "another --dir", dir, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)n) != n) {
        /* the pid is only a courtesy to the next server's message */
    }
    return 0;
}

int report_create(const char *dir, char id[REPORT_ID_LEN + 1])
{
    char path[4096], mark[4200];
    for (int attempt = 0; attempt < 8; attempt++) {
        if (random_id(id) < 0 || report_path(path, sizeof path, dir, id, NULL) < 0)
            return -1;
        if (mkdir(path, 0700) != 0) {
            if (errno != EEXIST)
                return -1;
            continue;
        }
        snprintf(mark, sizeof mark, "%s/%s", path, REPORT_MARK);
        int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 && close(fd) == 0)
            return 0;
        rmdir(path);
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

/* Whether name is one of the files a report's directory may hold: those
 * of web_reports.h, report_write's temporary copies, the trace's. */
static bool is_report_file(const char *name)
{
    static const char *const FILES[] = {REPORT_UPLOAD,  REPORT_NAME,  REPORT_TRACE,
                                        REPORT_RESULT,  REPORT_ERROR, REPORT_MARK,
                                        REPORT_SUMMARY, REPORT_ENGINE, "input.sqlite", "input.nsys-rep",
                                        "input.qdrep"};
    static const char TRACE_TEMP[] = "." REPORT_TRACE ".tmp-";
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        size_t n = strlen(FILES[i]);
        if (strncmp(name, FILES[i], n) == 0 && (!name[n] || strcmp(name + n, ".tmp") == 0))
            return true;
    }
    return strncmp(name, TRACE_TEMP, sizeof TRACE_TEMP - 1) == 0;
}

static bool is_marked(const char *path)
{
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/%s", path, REPORT_MARK);
    return access(mark, F_OK) == 0;
}

/* Unlinks a marked directory's report files, the mark last, then the
 * directory (which stays if it holds anything else); 0 or -1. */
static int remove_report_files(const char *path)
{
    char file[4400];
    if (!is_marked(path))
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (is_report_file(e->d_name) && strcmp(e->d_name, REPORT_MARK) != 0) {
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            unlink(file);
        }
    closedir(d);
    snprintf(file, sizeof file, "%s/%s", path, REPORT_MARK);
    unlink(file);
    return rmdir(path);
}

#define REMOVING_PREFIX ".removing-"

int report_remove(const char *dir, const char *id)
{
    char path[4096], away[4200];
    if (!report_id_valid(id) || report_path(path, sizeof path, dir, id, NULL) < 0 ||
        !is_marked(path))
        return -1;
    snprintf(away, sizeof away, "%s/" REMOVING_PREFIX "%s", dir, id);
    remove_report_files(away); /* a removal a killed server left half done */
    if (rename(path, away) != 0)
        return -1; /* gone: another removal won */
    remove_report_files(away); /* what stays (not ours) no longer shows */
    return 0;
}

int reports_remove_unfinished(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    char path[4200];
    while ((e = readdir(d)) != NULL) {
        const char *removing = strncmp(e->d_name, REMOVING_PREFIX, sizeof REMOVING_PREFIX - 1) == 0
                                   ? e->d_name + sizeof REMOVING_PREFIX - 1 : NULL;
        if (removing && report_id_valid(removing)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            removed += remove_report_files(path) == 0;
        } else if (report_id_valid(e->d_name) && !report_has(dir, e->d_name, REPORT_RESULT)) {
            removed += report_remove(dir, e->d_name) == 0;
        }
    }
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
