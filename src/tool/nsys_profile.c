#include "nsys_profile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "subprocess.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* QdstrmImporter lives in host-linux-x64/ beside the target-linux-x64/ or
 * bin/ directory that holds nsys; nsys is often reached through links
 * (/usr/bin/nsys -> ../lib/nsight-systems/bin/nsys), so each step of the
 * chain is tried. */
static int find_importer(const char *nsys, char *out, size_t size)
{
    char path[PATH_MAX];
    if (find_program(nsys, path, sizeof path) != 0)
        return -1;
    for (int hop = 0; hop < 16; hop++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", path);
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            *slash = '\0';
            if (up == 1) {
                int n = snprintf(out, size, "%s/host-linux-x64/QdstrmImporter", dir);
                if (n > 0 && (size_t)n < size && access(out, X_OK) == 0)
                    return 0;
            }
        }
        char link[PATH_MAX];
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            break;
        link[n] = '\0';
        if (link[0] == '/') {
            snprintf(path, sizeof path, "%s", link);
        } else {
            char *slash = strrchr(path, '/');
            size_t keep = slash ? (size_t)(slash - path) + 1 : 0;
            char joined[PATH_MAX];
            int len = snprintf(joined, sizeof joined, "%.*s%s", (int)keep, path, link);
            if (len < 0 || (size_t)len >= sizeof joined)
                break;
            memcpy(path, joined, (size_t)len + 1);
        }
    }
    return -1;
}

int nsys_profile(const profile_request *req, char *why, size_t why_size)
{
    char rep[4200], qdstrm[4200];
    snprintf(rep, sizeof rep, "%s.nsys-rep", req->stem);
    snprintf(qdstrm, sizeof qdstrm, "%s.qdstrm", req->stem);
    remove(rep);
    remove(qdstrm);
    size_t n = 0;
    const char **argv = calloc(req->n_options + req->n_command + 8, sizeof *argv);
    if (!argv)
        abort();
    argv[n++] = req->nsys;
    argv[n++] = "profile";
    for (size_t i = 0; i < req->n_options; i++)
        argv[n++] = req->options[i];
    argv[n++] = "--force-overwrite=true";
    argv[n++] = "--output";
    argv[n++] = req->stem;
    for (size_t i = 0; i < req->n_command; i++)
        argv[n++] = req->command[i];
    argv[n] = NULL;
    int rc = run_logged(argv, req->log, req->gpu ? "CUDA_VISIBLE_DEVICES" : NULL, req->gpu,
                        &req->limits);
    free(argv);
    if (rc == RUN_TIMED_OUT) {
        /* what a session stopped midway left is no report */
        remove(rep);
        remove(qdstrm);
    }
    if (rc != 0) {
        /* nsys exits with the program's status; its log's last line says
         * more (shown by last_line, never obeyed). */
        char failure[128], line[512] = "";
        run_failure(rc, &req->limits, failure, sizeof failure);
        if (rc > 0)
            last_line(req->log, line, sizeof line);
        snprintf(why, why_size, "%s%s%s", failure, line[0] ? ": " : "", line);
        return -1;
    }
    if (!exists(rep) && exists(qdstrm)) {
        char importer[PATH_MAX];
        if (find_importer(req->nsys, importer, sizeof importer) != 0) {
            snprintf(why, why_size, "nsys left %s and no QdstrmImporter was found beside it",
                     qdstrm);
            return -1;
        }
        const char *import[] = {importer, "-i", qdstrm, "-o", rep, "-f", NULL};
        rc = run_logged(import, req->log, NULL, NULL, &req->limits);
        if (rc == 0)
            remove(qdstrm);
        if (rc == RUN_TIMED_OUT || rc == RUN_CANCELLED) {
            char stopped[128];
            run_failure(rc, &req->limits, stopped, sizeof stopped);
            snprintf(why, why_size, "QdstrmImporter %s", stopped);
            remove(rep);
            return -1;
        }
    }
    if (!exists(rep)) {
        char line[512];
        last_line(req->log, line, sizeof line);
        snprintf(why, why_size, "nsys wrote no report%s%s", line[0] ? ": " : "", line);
        return -1;
    }
    return 0;
}
