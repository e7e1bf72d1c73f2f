#include "nsys_cursor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "../common/xalloc.h"

struct nsys_cursor {
    nsys_db *db;
    const nsys_table *table;
    sqlite3_stmt *stmt;
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

int nsys_cursor_open(nsys_db *db, const nsys_table *t, nsys_cursor **out, buf *err)
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
    if (t->group_by)
        buf_printf(&sql, " GROUP BY %s", t->group_by);
    if (t->order_by)
        buf_printf(&sql, " ORDER BY %s", t->order_by);

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
    *out = c;
    return NSYSP_OK;
}

int nsys_cursor_next(nsys_cursor *c, void *row, buf *err, int *status)
{
    int rc = sqlite3_step(c->stmt);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW) {
        char what[128];
        snprintf(what, sizeof what, "reading %s", c->table->name);
        *status = nsys_db_error(c->db, rc, what, err);
        return -1;
    }
    char *base = row;
    for (size_t i = 0; i < c->table->n_columns; i++) {
        const nsys_column *col = &c->table->columns[i];
        int kind = sqlite3_column_type(c->stmt, (int)i);
        if (col->type == NSYS_INT) {
            /* TEXT or BLOB in an integer column is not a number: SQLite would
             * read it as 0 (and sorts it after every number), so it reads as
             * NULL and the row is counted as skipped where it matters. */
            int64_t v = kind == SQLITE_INTEGER || kind == SQLITE_FLOAT
                            ? sqlite3_column_int64(c->stmt, (int)i)
                            : NSYS_NULL;
            memcpy(base + col->offset, &v, sizeof v);
        } else if (col->type == NSYS_REAL) {
            double v = kind == SQLITE_NULL ? NAN : sqlite3_column_double(c->stmt, (int)i);
            memcpy(base + col->offset, &v, sizeof v);
        } else {
            const char *v =
                kind == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(c->stmt, (int)i);
            memcpy(base + col->offset, &v, sizeof v);
        }
    }
    return 1;
}

void nsys_cursor_close(nsys_cursor *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->stmt);
    free(c);
}
