#include "nsys_callchains.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_perfetto.h"
#include "nsys_readahead.h"
#include "common/xalloc.h"

/* Frames of one chain held before the cut; nsys caps chains well below. */
enum { MAX_HELD = 1024 };

typedef struct frame_row {
    int64_t id, depth;
    nsys_frame_ids frame;
} frame_row;

/* One callchain table and how it is being read. */
typedef struct chain_table {
    const char *name;
    const char *temp_name;   /* its indexed copy */
    bool usable;             /* the table and its key columns exist */
    bool checked;            /* stored order looked at (at open, or the first ask) */
    bool indexed;            /* asks go to the indexed copy */
    nsys_rows scan;          /* merge: the table as stored, maybe read ahead */
    frame_row row;           /* merge: the row the scan is on */
    bool has_row, scan_done;
    int64_t last_asked;
    bool asked;
    sqlite3_stmt *lookup;    /* indexed: frames of one id */
} chain_table;

/* A frame row as the scan reads it. */
typedef struct scan_row {
    int64_t id, depth, symbol, module, kernel;
} scan_row;

static const nsys_column SCAN_COLUMNS[] = {
    NSYS_COL_REQ(scan_row, id, "id", NSYS_INT),
    NSYS_COL_REQ(scan_row, depth, "stackDepth", NSYS_INT),
    NSYS_COL_REQ(scan_row, symbol, "symbol", NSYS_INT),
    NSYS_COL(scan_row, module, "module", NSYS_INT),
    NSYS_COL(scan_row, kernel, "kernelMode", NSYS_INT),
};

static const nsys_table SCAN_TABLES[NSYS_CALLCHAIN_KINDS] = {
    {"OSRT_CALLCHAINS", SCAN_COLUMNS, sizeof SCAN_COLUMNS / sizeof *SCAN_COLUMNS,
     NSYS_UNORDERED, NULL},
    {"SAMPLING_CALLCHAINS", SCAN_COLUMNS, sizeof SCAN_COLUMNS / sizeof *SCAN_COLUMNS,
     NSYS_UNORDERED, NULL},
};

struct nsys_callchains {
    nsys_db *db;
    nsys_readahead *ra;
    chain_table tables[NSYS_CALLCHAIN_KINDS];
    frame_row held[MAX_HELD];
};

static const char *const TABLE_NAMES[NSYS_CALLCHAIN_KINDS] = {"OSRT_CALLCHAINS",
                                                               "SAMPLING_CALLCHAINS"};
static const char *const TEMP_NAMES[NSYS_CALLCHAIN_KINDS] = {"temp.osrt_callchain_frames",
                                                              "temp.sampling_callchain_frames"};

static int start_merge(nsys_callchains *cc, chain_table *t, buf *err, int *status);
static int use_index(nsys_callchains *cc, chain_table *t, buf *err, int *status);
static bool stored_by_id(nsys_callchains *cc, const chain_table *t);

int nsys_callchains_open(nsys_db *db, nsys_readahead *ra, const bool wanted[NSYS_CALLCHAIN_KINDS],
                         nsys_callchains **out, buf *err)
{
    nsys_callchains *cc = xcalloc(1, sizeof *cc);
    *out = cc;
    cc->db = db;
    cc->ra = ra;
    for (int k = 0; k < NSYS_CALLCHAIN_KINDS; k++) {
        chain_table *t = &cc->tables[k];
        t->name = TABLE_NAMES[k];
        t->temp_name = TEMP_NAMES[k];
        t->usable = nsys_db_has_column(db, t->name, "id") &&
                    nsys_db_has_column(db, t->name, "stackDepth") &&
                    nsys_db_has_column(db, t->name, "symbol");
        /* A scan that readers step must be opened before they start. */
        if (ra && wanted && wanted[k] && t->usable && stored_by_id(cc, t)) {
            int status = NSYSP_OK;
            t->checked = true;
            if (start_merge(cc, t, err, &status) < 0)
                return status;
        }
    }
    cc->ra = NULL; /* it starts now: a later scan is read here */
    return NSYSP_OK;
}

void nsys_callchains_close(nsys_callchains *cc)
{
    if (!cc)
        return;
    for (int k = 0; k < NSYS_CALLCHAIN_KINDS; k++) {
        nsys_rows_close(&cc->tables[k].scan);
        sqlite3_finalize(cc->tables[k].lookup);
    }
    free(cc);
}

/* The columns of a frame row, as "id, depth, symbol, module, kernel". */
static void frame_columns(nsys_db *db, const char *table, buf *sql)
{
    buf_printf(sql, "id, stackDepth, symbol, %s, %s",
               nsys_db_has_column(db, table, "module") ? "module" : "NULL",
               nsys_db_has_column(db, table, "kernelMode") ? "kernelMode" : "NULL");
}

static int64_t int_or_null(sqlite3_stmt *st, int i)
{
    int kind = sqlite3_column_type(st, i);
    return kind == SQLITE_INTEGER || kind == SQLITE_FLOAT ? sqlite3_column_int64(st, i)
                                                          : NSYS_NULL;
}

static void read_frame_row(sqlite3_stmt *st, frame_row *row)
{
    row->id = int_or_null(st, 0);
    row->depth = int_or_null(st, 1);
    row->frame.symbol = int_or_null(st, 2);
    row->frame.module = int_or_null(st, 3);
    int64_t kernel = int_or_null(st, 4);
    row->frame.kernel = kernel != NSYS_NULL && kernel != 0;
}

static int prepare(nsys_callchains *cc, const char *sql, sqlite3_stmt **st, const char *table,
                   buf *err, int *status)
{
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(cc->db), sql, -1, st, NULL);
    if (rc == SQLITE_OK)
        return 0;
    char what[128];
    snprintf(what, sizeof what, "reading %s", table);
    *status = nsys_db_error(cc->db, rc, what, err);
    return -1;
}

/* Whether the table is stored ordered by id: the check of tables read as
 * stored (nsys_cursor.h), on its id column. */
static bool stored_by_id(nsys_callchains *cc, const chain_table *t)
{
    const nsys_column id[] = {NSYS_COL_REQ(frame_row, id, "id", NSYS_INT)};
    const nsys_table table = {t->name, id, 1, NSYS_ORDER_BY("id"), NULL};
    return nsys_table_stored_in_order(cc->db, &table) == 1;
}

/* Switches a table to its indexed copy, made now unless an earlier reader
 * of the report made it. */
static int use_index(nsys_callchains *cc, chain_table *t, buf *err, int *status)
{
    buf sql = {0};
    *status = NSYSP_OK;
    if (!nsys_db_has_table(cc->db, t->temp_name)) {
        buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT ", t->temp_name + 5);
        frame_columns(cc->db, t->name, &sql);
        buf_printf(&sql, " FROM %s; CREATE INDEX %s_by_id ON %s(id);", t->name, t->temp_name,
                   t->temp_name + 5);
        *status = nsys_db_create(cc->db, t->temp_name, buf_cstr(&sql), err);
        buf_clear(&sql);
    }
    if (*status == NSYSP_OK) {
        buf_printf(&sql, "SELECT * FROM %s WHERE id = ?1", t->temp_name);
        prepare(cc, buf_cstr(&sql), &t->lookup, t->name, err, status);
    }
    buf_free(&sql);
    t->indexed = true;
    return *status == NSYSP_OK ? 0 : -1;
}

/* Moves the merge scan one row on. */
static int scan_next(chain_table *t, buf *err, int *status)
{
    scan_row r;
    int rc = nsys_rows_next(&t->scan, &r, err, status);
    t->has_row = rc == 1;
    t->scan_done = rc != 1;
    if (rc < 0)
        return -1;
    if (rc == 1)
        t->row = (frame_row){r.id, r.depth,
                             {r.symbol, r.module, r.kernel != NSYS_NULL && r.kernel != 0}};
    return 0;
}

/* The scan of a table stored by id, on a reader when the callchains have
 * readers (before they start); primed with its first row when asked. */
static int start_merge(nsys_callchains *cc, chain_table *t, buf *err, int *status)
{
    const nsys_table *table = &SCAN_TABLES[t - cc->tables];
    *status = nsys_rows_open(cc->db, cc->ra, table, false, sizeof(scan_row), &t->scan, err);
    t->has_row = false;
    return *status == NSYSP_OK ? 0 : -1;
}

/* The frame rows of id into cc->held; returns how many, or -1. */
static int held_rows(nsys_callchains *cc, chain_table *t, int64_t id, buf *err, int *status)
{
    size_t n = 0;
    if (t->indexed) {
        sqlite3_reset(t->lookup);
        sqlite3_bind_int64(t->lookup, 1, id);
        int rc;
        while ((rc = sqlite3_step(t->lookup)) == SQLITE_ROW)
            if (n < MAX_HELD)
                read_frame_row(t->lookup, &cc->held[n++]);
        if (rc != SQLITE_DONE) {
            *status = nsys_db_error(cc->db, rc, "reading call chains", err);
            return -1;
        }
        return (int)n;
    }
    while (t->has_row && t->row.id < id)
        if (scan_next(t, err, status) < 0)
            return -1;
    while (t->has_row && t->row.id == id) {
        if (n < MAX_HELD)
            cc->held[n++] = t->row;
        if (scan_next(t, err, status) < 0)
            return -1;
    }
    return (int)n;
}

static int deeper_first(const void *a, const void *b)
{
    int64_t da = ((const frame_row *)a)->depth, db = ((const frame_row *)b)->depth;
    return (da < db) - (da > db);
}

int nsys_callchains_get(nsys_callchains *cc, nsys_callchain_kind kind, int64_t id,
                        nsys_frame_ids *frames, size_t max, buf *err, int *status)
{
    chain_table *t = &cc->tables[kind];
    if (!t->usable || id == NSYS_NULL)
        return 0;
    if (!t->checked) {
        t->checked = true;
        /* A read error there comes back from use_index. */
        if ((stored_by_id(cc, t) ? start_merge(cc, t, err, status)
                                 : use_index(cc, t, err, status)) < 0)
            return -1;
    }
    if (!t->indexed && !t->has_row && !t->scan_done && scan_next(t, err, status) < 0)
        return -1;
    /* An ask that goes back: the merge has passed it. */
    if (!t->indexed && t->asked && id < t->last_asked && use_index(cc, t, err, status) < 0)
        return -1;
    t->asked = true;
    t->last_asked = id;
    int n = held_rows(cc, t, id, err, status);
    if (n <= 0)
        return n;
    qsort(cc->held, (size_t)n, sizeof *cc->held, deeper_first);
    size_t keep = (size_t)n < max ? (size_t)n : max;
    for (size_t i = 0; i < keep; i++)
        frames[i] = cc->held[(size_t)n - keep + i].frame;
    return (int)keep;
}
