/* The output's last chance to stop: a cancel flag set once the trace is
 * complete (during its fsync, say) still fails the commit as "interrupted",
 * removes the temporary file and leaves the previous output as it was. */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "perfetto/pw_output.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int file_is(const char *path, const char *text)
{
    char got[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    return strcmp(got, text) == 0;
}

/* Files of dir whose names hold ".tmp-" (temporary outputs). */
static int temporaries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp-") != NULL;
    if (d)
        closedir(d);
    return n;
}

/* Writes a small trace to path with the flag as given when it commits;
 * returns what the commit returned, its message in err. */
static int commit_with(const char *path, int level, sig_atomic_t flag, buf *err)
{
    volatile sig_atomic_t cancel = 0;
    pw_output *out = pw_output_open(path, level, 1, err);
    CHECK(out != NULL);
    if (!out)
        return -2;
    pw_output_set_cancel(out, &cancel);
    static const char packet[4096] = {1, 2, 3};
    for (int i = 0; i < 600; i++) /* more than a chunk: the compressor runs */
        CHECK_EQ_INT(pw_output_write(out, packet, sizeof packet), 0);
    cancel = flag;
    return pw_output_commit(out, err, NULL);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    mkdir(dir, 0755); /* its own: no other test's temporary files */
    char path[4096];
    snprintf(path, sizeof path, "%s/cancelled.perfetto-trace", dir);
    for (int level = 0; level <= 6; level += 6) {
        buf err = {0};
        write_file(path, "previous trace\n");
        CHECK_EQ_INT(commit_with(path, level, 1, &err), -1);
        CHECK(strstr(buf_cstr(&err), "cancelled.perfetto-trace: interrupted") != NULL);
        CHECK(file_is(path, "previous trace\n"));
        CHECK_EQ_INT(temporaries(dir), 0);
        buf_clear(&err);
        CHECK_EQ_INT(commit_with(path, level, 0, &err), 0); /* not cancelled: committed */
        CHECK(!file_is(path, "previous trace\n"));
        CHECK_EQ_INT(temporaries(dir), 0);
        buf_free(&err);
    }
    remove(path);
    return CHECK_DONE();
}
