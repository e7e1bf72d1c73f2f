#include "nsys_export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "subprocess.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool is_nsys_report(const char *path)
{
    return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep");
}

const char *find_nsys(void)
{
    const char *env = getenv("NSYS");
    if (env && *env)
        return env;
    char found[4096];
    return find_program("nsys", found, sizeof found) == 0 ? "nsys" : NULL;
}

bool nsys_exports_tables(const char *nsys)
{
    const char *base = getenv("TMPDIR");
    char log[4096];
    snprintf(log, sizeof log, "%s/nsys-perfetto-help-XXXXXX", base && *base ? base : "/tmp");
    int fd = mkstemp(log);
    if (fd < 0)
        return false;
    close(fd);
    const char *argv[] = {nsys, "export", "--help", NULL};
    bool takes = false;
    if (run_logged(argv, log, NULL, NULL, NULL) == 0) {
        FILE *f = fopen(log, "r");
        char line[512];
        while (f && !takes && fgets(line, sizeof line, f))
            takes = strstr(line, "--tables=") != NULL;
        if (f)
            fclose(f);
    }
    unlink(log);
    return takes;
}

/* nsys export of report into sqlite, only the tables matching patterns
 * when patterns is not NULL. */
static int export_to(const char *nsys, const char *report, const char *patterns,
                     const char *sqlite, const char *log, const run_limits *limits, char *why,
                     size_t why_size)
{
    const char *argv[] = {nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
                          "--output", sqlite, report, NULL, NULL, NULL};
    if (patterns) {
        argv[8] = "--tables";
        argv[9] = patterns;
        argv[10] = report;
    }
    int rc = run_logged(argv, log, NULL, NULL, limits);
    struct stat st;
    if (rc == 0 && stat(sqlite, &st) == 0)
        return NSYSP_OK;
    if (rc == RUN_TIMED_OUT || rc == RUN_CANCELLED) {
        unlink(sqlite); /* what a session stopped midway wrote */
        run_failure(rc, limits, why, why_size);
        return rc == RUN_CANCELLED ? NSYSP_ERR_INTERRUPTED : NSYSP_ERR_INPUT_FORMAT;
    }
    last_line(log, why, (unsigned)why_size);
    return NSYSP_ERR_INPUT_FORMAT;
}

int export_nsys_report_to(const char *nsys, const char *report, const char *sqlite,
                          const char *log, const run_limits *limits, char *why,
                          size_t why_size)
{
    return export_to(nsys, report, NULL, sqlite, log, limits, why, why_size);
}

int export_nsys_report(const char *report, char *sqlite, size_t size, char *tmpdir,
                       size_t tmpdir_size, char *err, size_t err_size)
{
    return export_nsys_report_limited(report, sqlite, size, tmpdir, tmpdir_size, err, err_size,
                                      NULL);
}

int export_nsys_report_limited(const char *report, char *sqlite, size_t size, char *tmpdir,
                               size_t tmpdir_size, char *err, size_t err_size,
                               const run_limits *limits)
{
    return export_nsys_tables(report, NULL, sqlite, size, tmpdir, tmpdir_size, err, err_size,
                              limits);
}

int export_nsys_tables(const char *report, const char *patterns, char *sqlite, size_t size,
                       char *tmpdir, size_t tmpdir_size, char *err, size_t err_size,
                       const run_limits *limits)
{
    if (access(report, R_OK) != 0) {
        snprintf(err, err_size, "%s: %s", report,
                 errno == ENOENT ? "no such file" : strerror(errno));
        return NSYSP_ERR_INPUT_OPEN;
    }
    const char *nsys = find_nsys();
    if (!nsys) {
        snprintf(err, err_size,
                 "%s: converting an nsys report needs 'nsys' on PATH (or $NSYS); or export it"
                 " first: nsys export --type sqlite %s",
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

    char why[1024];
    int rc = export_to(nsys, report, patterns, sqlite, log, limits, why, sizeof why);
    if (rc == NSYSP_ERR_INTERRUPTED)
        snprintf(err, err_size, "%s: interrupted", report);
    else if (rc != NSYSP_OK)
        snprintf(err, err_size, "%s: nsys export failed%s%s", report, why[0] ? ": " : "", why);
    if (rc != NSYSP_OK)
        remove_export(sqlite, tmpdir);
    return rc;
}

void remove_export(const char *sqlite, const char *tmpdir)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/export.log", tmpdir);
    unlink(sqlite);
    unlink(log);
    rmdir(tmpdir);
}
