#include "pw_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../common/xalloc.h"

enum { CHUNK = 256 * 1024 };

struct pw_output {
    int fd;
    char *path;         /* destination */
    char *tmp_path;     /* where the bytes go until commit; NULL when direct */
    int level;          /* 0 = raw */
    z_stream z;
    uint8_t *in;        /* bytes waiting for deflate */
    size_t in_len;
    uint8_t *zout;
    uint64_t bytes_in, bytes_out;
    int err;            /* sticky errno of the first failure */
};

static int write_all(pw_output *out, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(out->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            out->err = errno;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        out->bytes_out += (uint64_t)w;
    }
    return 0;
}

/* Feeds the pending input through deflate and writes what comes out. */
static int deflate_pending(pw_output *out, int flush)
{
    out->z.next_in = out->in;
    out->z.avail_in = (uInt)out->in_len;
    do {
        out->z.next_out = out->zout;
        out->z.avail_out = CHUNK;
        int rc = deflate(&out->z, flush);
        if (rc == Z_STREAM_ERROR) {
            out->err = EIO;
            return -1;
        }
        if (write_all(out, out->zout, CHUNK - out->z.avail_out) < 0)
            return -1;
    } while (out->z.avail_out == 0);
    out->in_len = 0;
    return 0;
}

static int flush_input(pw_output *out, int flush)
{
    if (out->level == 0) {
        int rc = write_all(out, out->in, out->in_len);
        out->in_len = 0;
        return rc;
    }
    return deflate_pending(out, flush);
}

static char *temp_path_for(const char *path)
{
    /* Same directory as the destination so rename() is atomic. */
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dir_len;
    buf b = {0};
    buf_append(&b, path, dir_len);
    buf_printf(&b, ".%s.tmp-XXXXXX", base);
    return (char *)buf_cstr(&b);
}

/* Opens the temporary file beside path, or, when path exists and is not a
 * regular file (/dev/stdout, a pipe, /dev/full), path itself: there is
 * nothing to replace atomically, and renaming over a device would destroy
 * it. */
static int open_destination(pw_output *out)
{
    struct stat st;
    if (stat(out->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return -1;
        }
        return open(out->path, O_WRONLY | O_TRUNC);
    }
    out->tmp_path = temp_path_for(out->path);
    int fd = mkstemp(out->tmp_path);
    if (fd >= 0) {
        /* mkstemp makes the file 0600; a trace is an ordinary file. */
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    return fd;
}

pw_output *pw_output_open(const char *path, int level, buf *err)
{
    pw_output *out = xcalloc(1, sizeof *out);
    out->path = xstrdup(path);
    out->level = level;
    out->fd = open_destination(out);
    if (out->fd < 0) {
        buf_printf(err, "%s: cannot create output: %s", path, strerror(errno));
        free(out->tmp_path);
        free(out->path);
        free(out);
        return NULL;
    }

    out->in = xmalloc(CHUNK);
    out->zout = xmalloc(CHUNK);
    if (level > 0) {
        /* windowBits 15 + 16 asks zlib for a gzip header and trailer. */
        if (deflateInit2(&out->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            buf_printf(err, "%s: cannot start compression", path);
            pw_output_discard(out);
            return NULL;
        }
    }
    return out;
}

int pw_output_write(pw_output *out, const void *data, size_t n)
{
    if (out->err)
        return -1;
    const uint8_t *p = data;
    out->bytes_in += n;
    while (n) {
        size_t room = CHUNK - out->in_len;
        size_t take = n < room ? n : room;
        memcpy(out->in + out->in_len, p, take);
        out->in_len += take;
        p += take;
        n -= take;
        if (out->in_len == CHUNK && flush_input(out, Z_NO_FLUSH) < 0)
            return -1;
    }
    return 0;
}

static void release(pw_output *out)
{
    if (out->level > 0)
        deflateEnd(&out->z);
    if (out->fd >= 0)
        close(out->fd);
    free(out->in);
    free(out->zout);
    free(out->tmp_path);
    free(out->path);
    free(out);
}

int pw_output_commit(pw_output *out, buf *err, pw_output_totals *totals)
{
    if (!out->err)
        flush_input(out, Z_FINISH);
    if (!out->err && out->tmp_path && fsync(out->fd) < 0 && errno != EINVAL && errno != EROFS)
        out->err = errno;
    if (!out->err && close(out->fd) < 0)
        out->err = errno;
    out->fd = -1;
    if (!out->err && out->tmp_path && rename(out->tmp_path, out->path) < 0)
        out->err = errno;
    if (totals) {
        totals->bytes_in = out->bytes_in;
        totals->bytes_out = out->bytes_out;
    }
    if (out->err) {
        buf_printf(err, "%s: cannot write output: %s", out->path, strerror(out->err));
        if (out->tmp_path)
            unlink(out->tmp_path);
        release(out);
        return -1;
    }
    release(out);
    return 0;
}

int pw_output_error(const pw_output *out)
{
    return out->err;
}

void pw_output_discard(pw_output *out)
{
    if (!out)
        return;
    if (out->fd >= 0) {
        close(out->fd);
        out->fd = -1;
    }
    if (out->tmp_path)
        unlink(out->tmp_path);
    release(out);
}

