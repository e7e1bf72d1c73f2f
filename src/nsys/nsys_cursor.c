#include "nsys_cursor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/xalloc.h"

/* Rows read as stored that share their `by` value are sorted by the tie
 * key in C; more of them than this sends the table to SQLite's sorter. */
#define MAX_TIED_ROWS 4096

/* A row read ahead: its fields, and its text values copied out of SQLite
 * (which reuses their memory at the next step). */
typedef struct held_row {
    char *fields;
    buf text;
} held_row;

struct nsys_cursor {
    nsys_db *db;
    const nsys_table *table;
    sqlite3_stmt *stmt;
    bool done;
    /* Reading as stored (see nsys_cursor_open_stored). */
    bool as_stored;
    const nsys_column *by, *then;
    size_t row_bytes;        /* of the row struct the columns cover */
    held_row *group;         /* rows of equal `by`, sorted, handed out in turn */
    size_t n_group, cap_group, next_in_group;
    held_row ahead;          /* the first row of the next group */
    bool has_ahead;
    bool has_last;
    int64_t last_by;
};

static void quote_ident(buf *sql, const char *name)
{
    buf_append_byte(sql, '"');
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            buf_append_byte(sql, '"');
        buf_append_byte(sql, (uint8_t)*p);
    }
    buf_append_byte(sql, '"');
}

static bool needs_met(nsys_db *db, const nsys_table *t, const nsys_column *col)
{
    for (size_t i = 0; i < sizeof col->needs / sizeof col->needs[0] && col->needs[i]; i++) {
        const char *need = col->needs[i];
        bool met = strncmp(need, "temp.", 5) == 0 ? nsys_db_has_table(db, need)
                                                  : nsys_db_has_column(db, t->name, need);
        if (!met)
            return false;
    }
    return true;
}

/* The column of t named name, read as a plain integer column. */
static const nsys_column *order_column(const nsys_table *t, const char *name)
{
    for (size_t i = 0; name && i < t->n_columns; i++)
        if (strcmp(t->columns[i].name, name) == 0 && !t->columns[i].expr &&
            t->columns[i].type == NSYS_INT)
            return &t->columns[i];
    return NULL;
}

bool nsys_table_checkable_order(const nsys_table *t)
{
    return t->order.by && !t->order.sql && order_column(t, t->order.by) &&
           (!t->order.then || order_column(t, t->order.then));
}

static void append_order_by(buf *sql, const nsys_order *o)
{
    if (o->sql) {
        buf_printf(sql, " ORDER BY %s", o->sql);
        return;
    }
    if (!o->by)
        return;
    buf_append_str(sql, " ORDER BY ");
    quote_ident(sql, o->by);
    if (!o->then)
        return;
    buf_append_str(sql, o->then_descending ? ", COALESCE(" : ", ");
    quote_ident(sql, o->then);
    buf_append_str(sql, o->then_descending ? ", 9223372036854775807) DESC" : "");
}

/* The tie key of a row: rows of equal `by` come in increasing key order. */
static int64_t tie_key(const nsys_order *o, int64_t then)
{
    if (!o->then_descending)
        return then;
    return then == NSYS_NULL ? INT64_MIN : -then; /* NULL counts highest */
}

/* Bytes of a row struct that the columns cover. */
static size_t row_bytes(const nsys_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_columns; i++) {
        size_t size = t->columns[i].type == NSYS_INT    ? sizeof(int64_t)
                      : t->columns[i].type == NSYS_REAL ? sizeof(double)
                                                        : sizeof(const char *);
        if (t->columns[i].offset + size > n)
            n = t->columns[i].offset + size;
    }
    return n;
}

static int open_cursor(nsys_db *db, const nsys_table *t, bool as_stored, nsys_cursor **out,
                       buf *err)
{
    *out = NULL;
    buf sql = {0};
    buf_append_str(&sql, "SELECT ");
    for (size_t i = 0; i < t->n_columns; i++) {
        const nsys_column *col = &t->columns[i];
        if (i)
            buf_append_str(&sql, ", ");
        if (col->expr) {
            if (needs_met(db, t, col))
                buf_printf(&sql, "(%s)", col->expr);
            else
                buf_append_str(&sql, "NULL");
        } else if (nsys_db_has_column(db, t->name, col->name)) {
            buf_append_str(&sql, "t.");
            quote_ident(&sql, col->name);
        } else if (col->required) {
            buf_printf(err, "%s: table %s has no column '%s' (unsupported nsys schema)",
                       nsys_db_path(db), t->name, col->name);
            buf_free(&sql);
            return NSYSP_ERR_NOT_NSYS;
        } else {
            buf_append_str(&sql, "NULL");
        }
    }
    buf_append_str(&sql, " FROM ");
    quote_ident(&sql, t->name);
    buf_append_str(&sql, " AS t");
    if (t->where)
        buf_printf(&sql, " WHERE %s", t->where);
    if (!as_stored)
        append_order_by(&sql, &t->order);

    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &stmt, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK) {
        char what[128];
        snprintf(what, sizeof what, "reading %s", t->name);
        return nsys_db_error(db, rc, what, err);
    }
    nsys_cursor *c = xcalloc(1, sizeof *c);
    c->db = db;
    c->table = t;
    c->stmt = stmt;
    if (as_stored) {
        c->as_stored = true;
        c->by = order_column(t, t->order.by);
        c->then = order_column(t, t->order.then);
        c->row_bytes = row_bytes(t);
        c->ahead.fields = xcalloc(1, c->row_bytes);
    }
    *out = c;
    return NSYSP_OK;
}

int nsys_cursor_open(nsys_db *db, const nsys_table *t, nsys_cursor **out, buf *err)
{
    return open_cursor(db, t, false, out, err);
}

int nsys_cursor_open_stored(nsys_db *db, const nsys_table *t, nsys_cursor **out, buf *err)
{
    return open_cursor(db, t, nsys_table_checkable_order(t), out, err);
}

/* Where the order of table t as stored is remembered: 0 unknown, 1 in
 * order, 2 not (the same for every table with its name, `by` and where). */
static uint64_t *known_order(nsys_db *db, const nsys_table *t)
{
    buf key = {0};
    buf_printf(&key, "order%c%s%c%s%c%s", 0, t->name, 0, t->order.by, 0, t->where ? t->where : "");
    uint64_t *known = nsys_db_fact(db, key.data, key.len);
    buf_free(&key);
    return known;
}

int nsys_table_known_order(nsys_db *db, const nsys_table *t)
{
    if (!nsys_table_checkable_order(t))
        return 0;
    uint64_t known = *known_order(db, t);
    return known == 0 ? -1 : known == 1;
}

void nsys_table_mark_unordered(nsys_db *db, const nsys_table *t)
{
    if (nsys_table_checkable_order(t))
        *known_order(db, t) = 2;
}

static int scan_order(nsys_db *db, const nsys_table *t);

int nsys_table_stored_in_order(nsys_db *db, const nsys_table *t)
{
    if (!nsys_table_checkable_order(t))
        return 0;
    uint64_t *known = known_order(db, t);
    if (*known)
        return *known == 1;
    int in_order = scan_order(db, t);
    if (in_order >= 0)
        *known_order(db, t) = in_order ? 1 : 2;
    return in_order;
}

static int scan_order(nsys_db *db, const nsys_table *t)
{
    buf sql = {0};
    buf_append_str(&sql, "SELECT ");
    quote_ident(&sql, t->order.by);
    buf_append_str(&sql, " FROM ");
    quote_ident(&sql, t->name);
    if (t->where)
        buf_printf(&sql, " WHERE %s", t->where);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(db), buf_cstr(&sql), -1, &st, NULL);
    buf_free(&sql);
    if (rc != SQLITE_OK)
        return -1;
    /* The rules of next_stored: `by` never decreases (NULLs aside) and no
     * more than MAX_TIED_ROWS rows in a row share it. */
    int in_order = 1;
    bool has_last = false;
    int64_t last = 0;
    size_t tied = 0;
    while (in_order && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int kind = sqlite3_column_type(st, 0);
        if (kind != SQLITE_INTEGER && kind != SQLITE_FLOAT) {
            tied = 0;
            continue;
        }
        int64_t by = sqlite3_column_int64(st, 0);
        tied = has_last && by == last ? tied + 1 : 1;
        in_order = (!has_last || by >= last) && tied <= MAX_TIED_ROWS;
        has_last = true;
        last = by;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? in_order : -1;
}

/* Steps the statement and reads the row into fields: 1 a row, 0 at the
 * end, -1 on a read error. */
static int read_row(nsys_cursor *c, char *fields, buf *err, int *status)
{
    if (c->done)
        return 0;
    int rc = sqlite3_step(c->stmt);
    if (rc == SQLITE_DONE) {
        c->done = true;
        return 0;
    }
    if (rc != SQLITE_ROW) {
        char what[128];
        snprintf(what, sizeof what, "reading %s", c->table->name);
        *status = nsys_db_error(c->db, rc, what, err);
        return -1;
    }
    for (size_t i = 0; i < c->table->n_columns; i++) {
        const nsys_column *col = &c->table->columns[i];
        /* One lookup per column, then plain reads of the value: half the
         * API calls of sqlite3_column_type + sqlite3_column_int64. The
         * value is unprotected, which is safe on this connection's one
         * thread, and valid until the next step. */
        sqlite3_value *value = sqlite3_column_value(c->stmt, (int)i);
        int kind = sqlite3_value_type(value);
        if (col->type == NSYS_INT) {
            /* TEXT or BLOB in an integer column is not a number: SQLite would
             * read it as 0 (and sorts it after every number), so it reads as
             * NULL and the row is counted as skipped where it matters. */
            int64_t v = kind == SQLITE_INTEGER || kind == SQLITE_FLOAT ? sqlite3_value_int64(value)
                                                                       : NSYS_NULL;
            memcpy(fields + col->offset, &v, sizeof v);
        } else if (col->type == NSYS_REAL) {
            double v = kind == SQLITE_NULL ? NAN : sqlite3_value_double(value);
            memcpy(fields + col->offset, &v, sizeof v);
        } else {
            const char *v = kind == SQLITE_NULL ? NULL : (const char *)sqlite3_value_text(value);
            memcpy(fields + col->offset, &v, sizeof v);
        }
    }
    return 1;
}

/* read_row into a held row, its texts copied into the row's own memory:
 * room for all of them first, so that the copies stay where they are. */
static int hold_row(nsys_cursor *c, held_row *h, buf *err, int *status)
{
    int rc = read_row(c, h->fields, err, status);
    if (rc <= 0)
        return rc;
    const nsys_column *cols = c->table->columns;
    size_t room = 0;
    for (size_t i = 0; i < c->table->n_columns; i++) {
        const char *v;
        memcpy(&v, h->fields + cols[i].offset, sizeof v);
        if (cols[i].type == NSYS_TEXT && v)
            room += strlen(v) + 1;
    }
    buf_clear(&h->text);
    buf_reserve(&h->text, room);
    for (size_t i = 0; i < c->table->n_columns; i++) {
        const char *v;
        memcpy(&v, h->fields + cols[i].offset, sizeof v);
        if (cols[i].type != NSYS_TEXT || !v)
            continue;
        const char *copy = (const char *)h->text.data + h->text.len;
        buf_append(&h->text, v, strlen(v) + 1);
        memcpy(h->fields + cols[i].offset, &copy, sizeof copy);
    }
    return 1;
}

static int64_t field(const nsys_column *col, const held_row *h)
{
    int64_t v = NSYS_NULL;
    if (col)
        memcpy(&v, h->fields + col->offset, sizeof v);
    return v;
}

static void swap_rows(held_row *a, held_row *b)
{
    held_row t = *a;
    *a = *b;
    *b = t;
}

/* The next group of rows of equal `by` (one row when `by` is NULL), sorted
 * by the tie key. Returns the group's size, 0 at the end, -1 on an error,
 * or NSYS_CURSOR_OUT_OF_ORDER. */
static int next_group(nsys_cursor *c, buf *err, int *status)
{
    c->n_group = c->next_in_group = 0;
    if (!c->has_ahead) {
        int rc = hold_row(c, &c->ahead, err, status);
        if (rc <= 0)
            return rc;
    }
    int64_t by = field(c->by, &c->ahead);
    for (;;) {
        if (c->n_group == MAX_TIED_ROWS)
            return NSYS_CURSOR_OUT_OF_ORDER;
        if (c->n_group == c->cap_group) {
            size_t old = c->cap_group;
            c->group = xgrow(c->group, &c->cap_group, old + 1, sizeof *c->group);
            memset(c->group + old, 0, (c->cap_group - old) * sizeof *c->group);
            for (size_t i = old; i < c->cap_group; i++)
                c->group[i].fields = xcalloc(1, c->row_bytes);
        }
        swap_rows(&c->group[c->n_group++], &c->ahead);
        c->has_ahead = false;
        if (by == NSYS_NULL)
            break;
        int rc = hold_row(c, &c->ahead, err, status);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
        c->has_ahead = true;
        if (field(c->by, &c->ahead) != by)
            break;
    }
    if (by != NSYS_NULL) {
        if (c->has_last && by < c->last_by)
            return NSYS_CURSOR_OUT_OF_ORDER;
        c->has_last = true;
        c->last_by = by;
    }
    /* Insertion sort, stable: groups are small (ties at one nanosecond). */
    for (size_t i = 1; i < c->n_group; i++)
        for (size_t j = i; j > 0; j--) {
            int64_t a = tie_key(&c->table->order, field(c->then, &c->group[j - 1]));
            int64_t b = tie_key(&c->table->order, field(c->then, &c->group[j]));
            if (a <= b)
                break;
            swap_rows(&c->group[j - 1], &c->group[j]);
        }
    return (int)c->n_group;
}

int nsys_cursor_next(nsys_cursor *c, void *row, buf *err, int *status)
{
    if (!c->as_stored)
        return read_row(c, row, err, status);
    if (c->next_in_group == c->n_group) {
        int rc = next_group(c, err, status);
        if (rc <= 0)
            return rc;
    }
    memcpy(row, c->group[c->next_in_group++].fields, c->row_bytes);
    return 1;
}

void nsys_cursor_close(nsys_cursor *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->stmt);
    for (size_t i = 0; i < c->cap_group; i++) {
        free(c->group[i].fields);
        buf_free(&c->group[i].text);
    }
    free(c->group);
    free(c->ahead.fields);
    buf_free(&c->ahead.text);
    free(c);
}
