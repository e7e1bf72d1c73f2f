#include "nsys_export.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsys_perfetto.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool is_nsys_report(const char *path)
{
    return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep");
}

/* $NSYS, or "nsys" when it is on PATH; NULL otherwise. */
static const char *find_nsys(void)
{
    const char *env = getenv("NSYS");
    if (env && *env)
        return env;
    const char *path = getenv("PATH");
    char candidate[4096];
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(candidate, sizeof candidate, "%.*s/nsys", (int)len, p);
        if (access(candidate, X_OK) == 0)
            return "nsys";
        p += len + (p[len] == ':');
    }
    return NULL;
}

/* The last non-empty line of a file, for error messages. */
static void last_line(const char *file, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(file, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0])
            snprintf(out, size, "%s", line);
    }
    fclose(f);
}

int export_nsys_report(const char *report, char *sqlite, size_t size, char *tmpdir,
                       size_t tmpdir_size, char *err, size_t err_size)
{
    if (access(report, R_OK) != 0) {
        snprintf(err, err_size, "%s: %s", report,
                errno == ENOENT ? "no such file" : strerror(errno));
        return NSYSP_ERR_INPUT_OPEN;
    }
    const char *nsys = find_nsys();
    if (!nsys) {
        snprintf(err, err_size, "%s: converting an nsys report needs 'nsys' on PATH (or "
                 "$NSYS); or export it first: nsys export --type sqlite %s",
                report, report);
        return NSYSP_ERR_INPUT_FORMAT;
    }
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, tmpdir_size, "%s/nsys-perfetto-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        snprintf(err, err_size, "%s: cannot create a temporary directory: %s", report,
                 strerror(errno));
        return NSYSP_ERR_OUTPUT;
    }
    snprintf(sqlite, size, "%s/report.sqlite", tmpdir);
    char log[4200];
    snprintf(log, sizeof log, "%s/export.log", tmpdir);

    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none; /* the web server blocks Ctrl-C in its threads; nsys must not */
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execlp(nsys, nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
               sqlite, report, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", nsys, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    struct stat st;
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(sqlite, &st) != 0) {
        char why[1024];
        last_line(log, why, sizeof why);
        snprintf(err, err_size, "%s: nsys export failed%s%s", report, why[0] ? ": " : "", why);
        remove_export(sqlite, tmpdir);
        return NSYSP_ERR_INPUT_FORMAT;
    }
    return NSYSP_OK;
}

void remove_export(const char *sqlite, const char *tmpdir)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/export.log", tmpdir);
    unlink(sqlite);
    unlink(log);
    rmdir(tmpdir);
}
