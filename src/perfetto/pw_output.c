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

#include "common/xalloc.h"
#include "common/cancel.h"

/* Packets are gathered into chunks; compressor threads deflate full chunks
 * while the converter fills the next ones, each chunk on whichever thread
 * is free, and the chunks are written in order, so the file is the same
 * bytes whatever the number of threads. A slot per compressor and two more
 * (at least four) bound the memory in flight.
 *
 * Each chunk becomes one gzip member, compressed whole by libdeflate (twice
 * as fast as zlib's stream at the same size). A gzip file may hold several
 * members, read one after the other; trace_processor reads them since v48
 * (2024), and packets may span members. */
enum { CHUNK = 1 << 20, MIN_SLOTS = 4, MAX_COMPRESSORS = 16 };

typedef struct chunk {
    uint8_t *data;
    size_t len;
    bool last;               /* the stream ends after this one */
} chunk;

/* A compressor thread: libdeflate's state is its own. */
typedef struct compressor {
    struct pw_output *out;
    pthread_t thread;
    struct libdeflate_compressor *deflater;
    uint8_t *zout;
    size_t zout_cap;
    bool started;
} compressor;

struct pw_output {
    int fd;
    char *path;              /* destination */
    char *tmp_path;          /* where the bytes go until commit; NULL when direct */
    int level;               /* 0 = raw */
    uint64_t bytes_in, bytes_out;

    chunk *slots;
    size_t n_slots;
    /* Chunks by number, under lock: slot = number % n_slots. */
    uint64_t handed;         /* handed over by the converter */
    uint64_t taken;          /* taken by a compressor */
    uint64_t written;        /* in the file; their slots are free again */
    bool last_taken;         /* the last chunk is taken: compressors may stop */
    compressor *compressors;
    size_t n_compressors;
    size_t running;          /* compressor threads started (0: compress inline) */
    pthread_mutex_t lock;
    pthread_cond_t work, room, turn;
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

/* Deflates chunk number c into z's buffer, or leaves it raw: *p and *n
 * are what to write (nothing for an empty chunk, except as the only one:
 * a valid gzip file has a member). Returns 0, or EIO when deflate fails. */
static int encode(pw_output *out, compressor *z, const chunk *c, uint64_t number,
                  const uint8_t **p, size_t *n)
{
    *p = c->data;
    *n = 0;
    if (out->level == 0) {
        *n = c->len;
        return 0;
    }
    if (c->len == 0 && number > 0)
        return 0;
    *p = z->zout;
    *n = libdeflate_gzip_compress(z->deflater, c->data, c->len, z->zout, z->zout_cap);
    return *n ? 0 : EIO;
}

/* Encodes and writes chunk number; returns an errno. */
static int write_chunk(pw_output *out, compressor *z, const chunk *c, uint64_t number)
{
    const uint8_t *p;
    size_t n;
    int rc = encode(out, z, c, number, &p, &n);
    return rc ? rc : write_all(out, p, n);
}

static void *compress_chunks(void *arg)
{
    compressor *z = arg;
    pw_output *out = z->out;
    pthread_mutex_lock(&out->lock);
    for (;;) {
        while (out->taken == out->handed && !out->last_taken)
            pthread_cond_wait(&out->work, &out->lock);
        if (out->taken == out->handed)
            break;
        uint64_t number = out->taken++;
        chunk *c = &out->slots[number % out->n_slots];
        if (c->last) {
            out->last_taken = true;
            pthread_cond_broadcast(&out->work);
        }
        /* After a failure, chunks are only drained so nobody waits forever. */
        bool failed = out->err != 0;
        pthread_mutex_unlock(&out->lock);

        const uint8_t *p = NULL;
        size_t n = 0;
        int rc = failed ? 0 : encode(out, z, c, number, &p, &n);

        pthread_mutex_lock(&out->lock);
        while (out->written != number)
            pthread_cond_wait(&out->turn, &out->lock);
        /* Its turn: no other thread writes until written moves on. */
        pthread_mutex_unlock(&out->lock);
        if (!rc && n)
            rc = write_all(out, p, n);
        pthread_mutex_lock(&out->lock);
        if (rc && !out->err)
            out->err = rc;
        out->written++;
        pthread_cond_broadcast(&out->turn);
        pthread_cond_signal(&out->room);
    }
    pthread_mutex_unlock(&out->lock);
    return NULL;
}

/* Hands the filled chunk over (or writes it, without threads) and moves
 * to the next free one. */
static int hand_over(pw_output *out, bool last)
{
    chunk *c = &out->slots[out->handed % out->n_slots];
    c->last = last;
    if (!out->running) {
        int rc = out->err ? 0 : write_chunk(out, &out->compressors[0], c, out->handed);
        if (rc && !out->err)
            out->err = rc;
        out->handed++;
        out->slots[out->handed % out->n_slots].len = 0;
        return out->err ? -1 : 0;
    }
    pthread_mutex_lock(&out->lock);
    out->handed++;
    pthread_cond_signal(&out->work);
    if (!last) {
        while (out->handed - out->written == out->n_slots)
            pthread_cond_wait(&out->room, &out->lock);
        out->slots[out->handed % out->n_slots].len = 0;
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

pw_output *pw_output_open(const char *path, int level, size_t compressors, buf *err)
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
    out->n_compressors = level > 0 && compressors > 1
                             ? (compressors < MAX_COMPRESSORS ? compressors : MAX_COMPRESSORS)
                             : 1;
    out->n_slots = out->n_compressors + 2 < MIN_SLOTS ? MIN_SLOTS : out->n_compressors + 2;
    out->slots = xcalloc(out->n_slots, sizeof *out->slots);
    for (size_t i = 0; i < out->n_slots; i++)
        out->slots[i].data = xmalloc(CHUNK);
    out->compressors = xcalloc(out->n_compressors, sizeof *out->compressors);
    pthread_mutex_init(&out->lock, NULL);
    pthread_cond_init(&out->work, NULL);
    pthread_cond_init(&out->room, NULL);
    pthread_cond_init(&out->turn, NULL);
    if (level == 0)
        return out; /* raw: written as it comes */
    for (size_t i = 0; i < out->n_compressors; i++) {
        compressor *z = &out->compressors[i];
        z->out = out;
        z->deflater = libdeflate_alloc_compressor(level);
        if (!z->deflater) {
            buf_printf(err, "%s: cannot start compression", path);
            pw_output_discard(out);
            return NULL;
        }
        z->zout_cap = libdeflate_gzip_compress_bound(z->deflater, CHUNK);
        z->zout = xmalloc(z->zout_cap);
    }
    /* Those that cannot start leave their share to the others; without
     * any, the converter compresses inline. */
    for (size_t i = 0; i < out->n_compressors; i++) {
        compressor *z = &out->compressors[i];
        z->started = pthread_create(&z->thread, NULL, compress_chunks, z) == 0;
        out->running += z->started;
    }
    return out;
}

int pw_output_write(pw_output *out, const void *data, size_t n)
{
    const uint8_t *p = data;
    out->bytes_in += n;
    while (n) {
        chunk *c = &out->slots[out->handed % out->n_slots];
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

/* Ends the stream: the last chunk goes out and the threads finish. */
static void finish_stream(pw_output *out)
{
    hand_over(out, true);
    for (size_t i = 0; i < out->n_compressors; i++)
        if (out->compressors[i].started) {
            pthread_join(out->compressors[i].thread, NULL);
            out->compressors[i].started = false;
        }
    out->running = 0;
}

static void release(pw_output *out)
{
    for (size_t i = 0; i < out->n_compressors; i++) {
        if (out->compressors[i].deflater)
            libdeflate_free_compressor(out->compressors[i].deflater);
        free(out->compressors[i].zout);
    }
    free(out->compressors);
    pthread_mutex_destroy(&out->lock);
    pthread_cond_destroy(&out->work);
    pthread_cond_destroy(&out->room);
    pthread_cond_destroy(&out->turn);
    if (out->fd >= 0)
        close(out->fd);
    for (size_t i = 0; i < out->n_slots; i++)
        free(out->slots[i].data);
    free(out->slots);
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
    if (!out->err && out->tmp_path && cancel_requested(out->cancel))
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
    if (!out->running)
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
    if (out->running) {
        /* Stop the threads: nothing more is written after a failure. */
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
