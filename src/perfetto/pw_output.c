#include "pw_output.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "../common/xalloc.h"

/* Packets are gathered into chunks; a compressor thread deflates full
 * chunks while the converter fills the next ones, so compression runs on
 * the second core. SLOTS bounds the memory in flight.
 *
 * Each chunk becomes one gzip member, compressed whole by libdeflate (twice
 * as fast as zlib's stream at the same size). A gzip file may hold several
 * members, read one after the other; trace_processor reads them since v48
 * (2024), and packets may span members. */
enum { CHUNK = 1 << 20, SLOTS = 4 };

typedef struct chunk {
    uint8_t *data;
    size_t len;
    bool last;               /* the stream ends after this one */
} chunk;

struct pw_output {
    int fd;
    char *path;              /* destination */
    char *tmp_path;          /* where the bytes go until commit; NULL when direct */
    int level;               /* 0 = raw */
    struct libdeflate_compressor *deflater;
    uint8_t *zout;
    size_t zout_cap;
    uint64_t bytes_in, bytes_out;

    chunk slots[SLOTS];
    size_t fill;             /* the slot the converter fills */
    size_t drain;            /* the oldest queued slot (compressor side) */
    size_t queued;           /* slots handed over and not yet written */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    int err;                 /* sticky errno of the first failure (under lock) */
    volatile sig_atomic_t *cancel; /* see pw_output_set_cancel; may be NULL */
};

static int write_all(pw_output *out, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(out->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        n -= (size_t)w;
        out->bytes_out += (uint64_t)w;
    }
    return 0;
}

/* Deflates (or copies, when raw) one chunk to the file; returns an errno.
 * An empty chunk is skipped, except as the only one: a valid gzip file
 * has a member. */
static int write_chunk(pw_output *out, const chunk *c)
{
    if (out->level == 0)
        return write_all(out, c->data, c->len);
    if (c->len == 0 && out->bytes_out > 0)
        return 0;
    size_t n = libdeflate_gzip_compress(out->deflater, c->data, c->len, out->zout, out->zout_cap);
    return n ? write_all(out, out->zout, n) : EIO;
}

static void *compressor(void *arg)
{
    pw_output *out = arg;
    for (;;) {
        pthread_mutex_lock(&out->lock);
        while (out->queued == 0)
            pthread_cond_wait(&out->work, &out->lock);
        chunk *c = &out->slots[out->drain];
        bool failed = out->err != 0;
        pthread_mutex_unlock(&out->lock);

        /* After a failure, chunks are only drained so nobody waits forever. */
        int rc = failed ? 0 : write_chunk(out, c);
        bool last = c->last;

        pthread_mutex_lock(&out->lock);
        if (rc && !out->err)
            out->err = rc;
        out->drain = (out->drain + 1) % SLOTS;
        out->queued--;
        pthread_cond_signal(&out->room);
        pthread_mutex_unlock(&out->lock);
        if (last)
            return NULL;
    }
}

/* Hands the filled chunk over (or writes it, without a thread) and moves
 * to the next free one. */
static int hand_over(pw_output *out, bool last)
{
    chunk *c = &out->slots[out->fill];
    c->last = last;
    if (!out->threaded) {
        int rc = out->err ? 0 : write_chunk(out, c);
        if (rc && !out->err)
            out->err = rc;
        c->len = 0;
        return out->err ? -1 : 0;
    }
    pthread_mutex_lock(&out->lock);
    out->queued++;
    pthread_cond_signal(&out->work);
    if (!last) {
        while (out->queued == SLOTS)
            pthread_cond_wait(&out->room, &out->lock);
        out->fill = (out->fill + 1) % SLOTS;
        out->slots[out->fill].len = 0;
    }
    int err = out->err;
    pthread_mutex_unlock(&out->lock);
    return err ? -1 : 0;
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

    for (int i = 0; i < SLOTS; i++)
        out->slots[i].data = xmalloc(CHUNK);
    if (level > 0) {
        pthread_mutex_init(&out->lock, NULL);
        pthread_cond_init(&out->work, NULL);
        pthread_cond_init(&out->room, NULL);
        out->deflater = libdeflate_alloc_compressor(level);
        if (!out->deflater) {
            buf_printf(err, "%s: cannot start compression", path);
            pw_output_discard(out);
            return NULL;
        }
        out->zout_cap = libdeflate_gzip_compress_bound(out->deflater, CHUNK);
        out->zout = xmalloc(out->zout_cap);
        /* Without a second thread, compress inline. */
        out->threaded = pthread_create(&out->thread, NULL, compressor, out) == 0;
    }
    return out;
}

int pw_output_write(pw_output *out, const void *data, size_t n)
{
    const uint8_t *p = data;
    out->bytes_in += n;
    while (n) {
        chunk *c = &out->slots[out->fill];
        size_t room = CHUNK - c->len;
        size_t take = n < room ? n : room;
        memcpy(c->data + c->len, p, take);
        c->len += take;
        p += take;
        n -= take;
        if (c->len == CHUNK && hand_over(out, false) < 0)
            return -1;
    }
    return 0;
}

/* Ends the stream: the last chunk goes out and the thread finishes. */
static void finish_stream(pw_output *out)
{
    hand_over(out, true);
    if (out->threaded) {
        pthread_join(out->thread, NULL);
        out->threaded = false;
    }
}

static void release(pw_output *out)
{
    if (out->level > 0) {
        if (out->deflater)
            libdeflate_free_compressor(out->deflater);
        pthread_mutex_destroy(&out->lock);
        pthread_cond_destroy(&out->work);
        pthread_cond_destroy(&out->room);
    }
    if (out->fd >= 0)
        close(out->fd);
    for (int i = 0; i < SLOTS; i++)
        free(out->slots[i].data);
    free(out->zout);
    free(out->tmp_path);
    free(out->path);
    free(out);
}

void pw_output_set_cancel(pw_output *out, volatile sig_atomic_t *cancel)
{
    out->cancel = cancel;
}

int pw_output_commit(pw_output *out, buf *err, pw_output_totals *totals)
{
    finish_stream(out);
    if (!out->err && out->tmp_path && fsync(out->fd) < 0 && errno != EINVAL && errno != EROFS)
        out->err = errno;
    if (!out->err && close(out->fd) < 0)
        out->err = errno;
    out->fd = -1;
    /* After the fsync, which may take long on a slow disk. */
    if (!out->err && out->tmp_path && out->cancel && *out->cancel)
        out->err = ECANCELED;
    if (!out->err && out->tmp_path && rename(out->tmp_path, out->path) < 0)
        out->err = errno;
    if (totals) {
        totals->bytes_in = out->bytes_in;
        totals->bytes_out = out->bytes_out;
    }
    if (out->err == ECANCELED)
        buf_printf(err, "%s: interrupted", out->path);
    else if (out->err)
        buf_printf(err, "%s: cannot write output: %s", out->path, strerror(out->err));
    if (out->err) {
        if (out->tmp_path)
            unlink(out->tmp_path);
        release(out);
        return -1;
    }
    release(out);
    return 0;
}

int pw_output_error(pw_output *out)
{
    if (!out->threaded)
        return out->err;
    pthread_mutex_lock(&out->lock);
    int err = out->err;
    pthread_mutex_unlock(&out->lock);
    return err;
}

void pw_output_discard(pw_output *out)
{
    if (!out)
        return;
    if (out->threaded) {
        /* Stop the thread: nothing more is written after a failure. */
        pthread_mutex_lock(&out->lock);
        if (!out->err)
            out->err = ECANCELED;
        pthread_mutex_unlock(&out->lock);
        finish_stream(out);
    }
    if (out->fd >= 0) {
        close(out->fd);
        out->fd = -1;
    }
    if (out->tmp_path)
        unlink(out->tmp_path);
    release(out);
}
