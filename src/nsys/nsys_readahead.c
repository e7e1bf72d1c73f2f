#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "nsys_readahead.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "common/cancel.h"
#include "common/xalloc.h"

/* A block: 64 KiB of rows, and their texts (grown only while empty, so
 * that copies already made stay put). Eight per cursor: one being read,
 * one being filled, six in hand against the uneven pace of either side.
 * With four, on two cores, the threads waited on each other often enough
 * to cost 5 % of the wall time (docs/performance.md, fifth round). */
#define BLOCK_ROW_BYTES (64 * 1024)
#define BLOCK_TEXT_BYTES (64 * 1024)
#define RING 8

typedef struct block {
    char *rows;
    size_t n_rows;
    buf text;
    /* After the rows: 0 more follow, else what nsys_cursor_next said at the
     * end (0 end of table, -1 error with err/status, out of order). */
    bool last;
    int end;
    int status;
    buf err;
} block;

struct nsys_ahead {
    struct reader *reader;
    const nsys_table *table;
    nsys_cursor *cursor;
    size_t row_size, rows_per_block;
    block ring[RING];
    /* Under the reader's lock. */
    uint64_t filled;         /* blocks written */
    uint64_t released;       /* blocks the consumer is done with */
    bool finished;           /* the last block is written */
    /* The reader's own: a row stepped that did not fit its block (its texts
     * are still the cursor's, valid until the next step). */
    char *carry;
    bool has_carry;
    /* The consumer's own. */
    block *current;
    size_t next_row;
};

typedef struct reader {
    nsys_readahead *ra;
    nsys_db *db;             /* this reader's connection; NULL until used */
    pthread_t thread;
    bool running;
    pthread_mutex_t lock;
    pthread_cond_t wake_reader;   /* a block released, or stop */
    pthread_cond_t wake_consumer; /* a block written */
    nsys_ahead **cursors;
    size_t n_cursors, cap_cursors;
    int64_t load;            /* rows of its tables, roughly */
    bool stop;
    int halt;                /* atomic: stop stepping (its progress handler) */
} reader;

struct nsys_readahead {
    nsys_db *db;             /* the consumer's connection (schema, sizes) */
    volatile sig_atomic_t *cancel;
    reader *readers;
    size_t n_readers;
    bool started;            /* cursors added later are read by the caller */
};

nsys_readahead *nsys_readahead_new(nsys_db *db, size_t n_readers)
{
    nsys_readahead *ra = xcalloc(1, sizeof *ra);
    ra->db = db;
    ra->cancel = nsys_db_cancel_flag(db);
    ra->n_readers = n_readers ? n_readers : 1;
    ra->readers = xcalloc(ra->n_readers, sizeof *ra->readers);
    for (size_t i = 0; i < ra->n_readers; i++) {
        reader *r = &ra->readers[i];
        r->ra = ra;
        pthread_mutex_init(&r->lock, NULL);
        pthread_cond_init(&r->wake_reader, NULL);
        pthread_cond_init(&r->wake_consumer, NULL);
    }
    return ra;
}

static reader *least_loaded(nsys_readahead *ra)
{
    reader *best = &ra->readers[0];
    for (size_t i = 1; i < ra->n_readers; i++)
        if (ra->readers[i].load < best->load)
            best = &ra->readers[i];
    return best;
}

/* The temporary tables that table's computed columns read (the streams
 * --min-stream-activity hides, each context's device: a row per stream or
 * context), copied to the reader's connection, where they are not. */
static int copy_needed_tables(nsys_db *from, nsys_db *to, const nsys_table *table, buf *err)
{
    for (size_t i = 0; i < table->n_columns; i++) {
        const nsys_column *col = &table->columns[i];
        for (size_t k = 0; k < sizeof col->needs / sizeof *col->needs && col->needs[k]; k++) {
            const char *need = col->needs[k];
            if (strncmp(need, "temp.", 5) != 0 || !nsys_db_has_table(from, need) ||
                nsys_db_has_table(to, need))
                continue;
            int status = nsys_db_copy_table(from, to, need, err);
            if (status != NSYSP_OK)
                return status;
        }
    }
    return NSYSP_OK;
}

static int reader_should_stop(void *arg)
{
    reader *r = arg;
    return cancel_requested(r->ra->cancel) || __atomic_load_n(&r->halt, __ATOMIC_RELAXED);
}

int nsys_readahead_add(nsys_readahead *ra, const nsys_table *table, bool as_stored,
                       size_t row_size, nsys_ahead **out, buf *err)
{
    *out = NULL;
    if (ra->started || !nsys_db_table_in_file(ra->db, table->name))
        return NSYSP_OK;
    reader *r = least_loaded(ra);
    int status = NSYSP_OK;
    if (!r->db) {
        /* Without a connection of its own (out of file descriptors, say),
         * the table is read by the caller, as with one thread. */
        buf ignored = {0};
        r->db = nsys_db_open(nsys_db_path(ra->db), &ignored, &status);
        buf_free(&ignored);
        if (!r->db)
            return NSYSP_OK;
        /* Its steps stop on the conversion's cancel flag, or when the
         * readers are stopped (a sort under way included). */
        sqlite3_progress_handler(nsys_db_sqlite(r->db), 100000, reader_should_stop, r);
        /* A reader scans each table once: SQLite's cache buys it nothing,
         * and at 4 MiB a reader it would be most of the memory. */
        sqlite3_exec(nsys_db_sqlite(r->db), "PRAGMA cache_size=-512", NULL, NULL, NULL);
    }
    if ((status = copy_needed_tables(ra->db, r->db, table, err)) != NSYSP_OK)
        return status;
    nsys_cursor *cursor;
    status = as_stored ? nsys_cursor_open_stored(r->db, table, &cursor, err)
                       : nsys_cursor_open(r->db, table, &cursor, err);
    if (status != NSYSP_OK)
        return status;
    nsys_ahead *c = xcalloc(1, sizeof *c);
    c->reader = r;
    c->table = table;
    c->cursor = cursor;
    c->row_size = row_size;
    c->rows_per_block = row_size < BLOCK_ROW_BYTES ? BLOCK_ROW_BYTES / row_size : 1;
    for (size_t i = 0; i < RING; i++)
        c->ring[i].rows = xmalloc(c->rows_per_block * row_size);
    c->carry = xmalloc(row_size);
    r->cursors = xgrow(r->cursors, &r->cap_cursors, r->n_cursors + 1, sizeof *r->cursors);
    r->cursors[r->n_cursors++] = c;
    /* An unsorted table costs its sort too; counted as rows all the same,
     * saturating: a crafted table's largest rowid may be 2^63 - 1. */
    int64_t rows = nsys_db_row_estimate(ra->db, table->name);
    rows = rows > 0 ? rows : 1;
    r->load = r->load > INT64_MAX - rows ? INT64_MAX : r->load + rows;
    *out = c;
    return NSYSP_OK;
}

/* ---- The reader's side ---------------------------------------------------- */

/* Bytes the row's texts take, with their NULs. */
static size_t text_bytes(const nsys_table *t, const char *row)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_columns; i++) {
        const char *v;
        if (t->columns[i].type != NSYS_TEXT)
            continue;
        memcpy(&v, row + t->columns[i].offset, sizeof v);
        if (v)
            n += strlen(v) + 1;
    }
    return n;
}

/* Copies the row's texts into the block's and points the row at them. */
static void move_texts(const nsys_table *t, char *row, buf *text)
{
    for (size_t i = 0; i < t->n_columns; i++) {
        const char *v;
        if (t->columns[i].type != NSYS_TEXT)
            continue;
        memcpy(&v, row + t->columns[i].offset, sizeof v);
        if (!v)
            continue;
        size_t len = strlen(v) + 1;
        const char *copy = (const char *)text->data + text->len;
        memcpy(text->data + text->len, v, len);
        text->len += len;
        memcpy(row + t->columns[i].offset, &copy, sizeof copy);
    }
}

/* Fills b with the cursor's next rows, up to a block's worth or the end. */
static void fill(nsys_ahead *c, block *b)
{
    b->n_rows = 0;
    b->text.len = 0;
    b->last = false;
    buf_clear(&b->err);
    while (b->n_rows < c->rows_per_block) {
        char *slot = b->rows + b->n_rows * c->row_size;
        if (c->has_carry) {
            memcpy(slot, c->carry, c->row_size);
            c->has_carry = false;
        } else {
            int rc = nsys_cursor_next(c->cursor, slot, &b->err, &b->status);
            if (rc != 1) {
                b->last = true;
                b->end = rc;
                return;
            }
        }
        size_t need = text_bytes(c->table, slot);
        if (need && !b->text.cap) /* tables without texts need none */
            buf_reserve(&b->text, need > BLOCK_TEXT_BYTES ? need : BLOCK_TEXT_BYTES);
        if (need > b->text.cap - b->text.len) {
            if (b->n_rows) { /* the next block's first row */
                memcpy(c->carry, slot, c->row_size);
                c->has_carry = true;
                return;
            }
            buf_reserve(&b->text, need);
        }
        move_texts(c->table, slot, &b->text);
        b->n_rows++;
    }
}

/* The cursor with the fewest blocks ready and room for one more; NULL
 * when every ring is full or finished. Under the lock. */
static nsys_ahead *most_wanted(reader *r)
{
    nsys_ahead *best = NULL;
    uint64_t best_ready = RING;
    for (size_t i = 0; i < r->n_cursors; i++) {
        nsys_ahead *c = r->cursors[i];
        uint64_t ready = c->filled - c->released;
        if (!c->finished && ready < best_ready) {
            best = c;
            best_ready = ready;
        }
    }
    return best;
}

static void *reader_main(void *arg)
{
    reader *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        nsys_ahead *c = most_wanted(r);
        if (!c) {
            pthread_cond_wait(&r->wake_reader, &r->lock);
            continue;
        }
        block *b = &c->ring[c->filled % RING];
        pthread_mutex_unlock(&r->lock);
        fill(c, b);
        pthread_mutex_lock(&r->lock);
        c->filled++;
        c->finished = b->last;
        pthread_cond_signal(&r->wake_consumer);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

void nsys_readahead_start(nsys_readahead *ra)
{
    ra->started = true;
    for (size_t i = 0; i < ra->n_readers; i++) {
        reader *r = &ra->readers[i];
        if (r->n_cursors && pthread_create(&r->thread, NULL, reader_main, r) == 0)
            r->running = true;
        /* Without a thread (none could be made), the consumer fills its
         * blocks itself (nsys_ahead_next). */
    }
}

/* ---- The consumer's side -------------------------------------------------- */

/* Lets go of the current block and takes the next, waiting for it. */
static void next_block(nsys_ahead *c)
{
    reader *r = c->reader;
    if (!r->running) {
        if (c->current)
            c->released++;
        block *b = &c->ring[c->filled % RING];
        fill(c, b);
        c->filled++;
        c->current = b;
        c->next_row = 0;
        return;
    }
    pthread_mutex_lock(&r->lock);
    if (c->current) {
        c->released++;
        pthread_cond_signal(&r->wake_reader);
    }
    while (c->filled == c->released)
        pthread_cond_wait(&r->wake_consumer, &r->lock);
    pthread_mutex_unlock(&r->lock);
    c->current = &c->ring[c->released % RING];
    c->next_row = 0;
}

int nsys_ahead_next(nsys_ahead *c, void *row, buf *err, int *status)
{
    for (;;) {
        block *b = c->current;
        if (b && c->next_row < b->n_rows) {
            memcpy(row, b->rows + c->next_row++ * c->row_size, c->row_size);
            return 1;
        }
        if (b && b->last) {
            if (b->end < 0 && b->end != NSYS_CURSOR_OUT_OF_ORDER) {
                buf_clear(err);
                buf_append(err, b->err.data, b->err.len);
                *status = b->status;
            }
            return b->end;
        }
        next_block(c);
    }
}

void nsys_readahead_free(nsys_readahead *ra)
{
    if (!ra)
        return;
    /* All told first, then joined: a sort or a long step under way stops
     * at its next progress check. */
    for (size_t i = 0; i < ra->n_readers; i++) {
        reader *r = &ra->readers[i];
        if (!r->running)
            continue;
        __atomic_store_n(&r->halt, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&r->lock);
        r->stop = true;
        pthread_cond_signal(&r->wake_reader);
        pthread_mutex_unlock(&r->lock);
    }
    for (size_t i = 0; i < ra->n_readers; i++)
        if (ra->readers[i].running)
            pthread_join(ra->readers[i].thread, NULL);
    for (size_t i = 0; i < ra->n_readers; i++) {
        reader *r = &ra->readers[i];
        for (size_t k = 0; k < r->n_cursors; k++) {
            nsys_ahead *c = r->cursors[k];
            nsys_cursor_close(c->cursor);
            for (size_t b = 0; b < RING; b++) {
                free(c->ring[b].rows);
                buf_free(&c->ring[b].text);
                buf_free(&c->ring[b].err);
            }
            free(c->carry);
            free(c);
        }
        free(r->cursors);
        nsys_db_close(r->db);
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->wake_reader);
        pthread_cond_destroy(&r->wake_consumer);
    }
    free(ra->readers);
    free(ra);
}

int nsys_rows_open(nsys_db *db, nsys_readahead *ra, const nsys_table *table, bool as_stored,
                   size_t row_size, nsys_rows *out, buf *err)
{
    *out = (nsys_rows){0};
    if (ra) {
        int status = nsys_readahead_add(ra, table, as_stored, row_size, &out->ahead, err);
        if (status != NSYSP_OK || out->ahead)
            return status;
    }
    return as_stored ? nsys_cursor_open_stored(db, table, &out->cursor, err)
                     : nsys_cursor_open(db, table, &out->cursor, err);
}

void nsys_rows_close(nsys_rows *r)
{
    nsys_cursor_close(r->cursor);
    *r = (nsys_rows){0};
}

size_t nsys_readahead_cpus(size_t max)
{
    size_t n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = (size_t)CPU_COUNT(&set);
    if (!n) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        n = online > 0 ? (size_t)online : 1;
    }
    return n < max ? n : max;
}
