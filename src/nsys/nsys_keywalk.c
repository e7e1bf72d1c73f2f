#include "nsys_keywalk.h"

#include <stdbool.h>
#include <stdlib.h>

#include "nsys_cursor.h"
#include "common/xalloc.h"

/* A cursor over one process's keys in one part of the table, in key order. */
typedef struct part_walk {
    sqlite3_stmt *stmt;
    bool has_row;
    int64_t last_asked;
    bool asked;
} part_walk;

/* One process's cursors, one per part (0: the table on db; k: db's part
 * k - 1). */
typedef struct process_walk {
    int64_t gpid;
    part_walk *parts;
} process_walk;

struct nsys_keywalk {
    nsys_db *db;
    nsys_db *const *parts;   /* the table's other parts (nsys_db_table_parts) */
    size_t n_parts;
    buf sql;
    size_t n_columns;
    process_walk *processes;
    size_t n_processes, cap_processes;
    size_t last;             /* the process asked for last */
    int64_t *values;         /* the rows found */
    size_t cap_values;
};

nsys_keywalk *nsys_keywalk_open(nsys_db *db, const char *table, const char *columns,
                                size_t n_columns)
{
    nsys_keywalk *w = xcalloc(1, sizeof *w);
    w->db = db;
    w->n_parts = nsys_db_table_parts(db, table, &w->parts);
    w->n_columns = n_columns;
    buf_printf(&w->sql, "SELECT corr, %s FROM %s WHERE gpid = ?1 AND corr >= ?2 ORDER BY corr",
               columns, table);
    return w;
}

void nsys_keywalk_close(nsys_keywalk *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_processes; i++) {
        for (size_t k = 0; k <= w->n_parts; k++)
            sqlite3_finalize(w->processes[i].parts[k].stmt);
        free(w->processes[i].parts);
    }
    free(w->processes);
    free(w->values);
    buf_free(&w->sql);
    free(w);
}

static nsys_db *part_db(const nsys_keywalk *w, size_t part)
{
    return part ? w->parts[part - 1] : w->db;
}

static int failed(nsys_keywalk *w, size_t part, int rc, buf *err, int *status)
{
    *status = nsys_db_error(part_db(w, part), rc, "reading links", err);
    return -1;
}

static int step(nsys_keywalk *w, size_t part, part_walk *p, buf *err, int *status)
{
    int rc = sqlite3_step(p->stmt);
    p->has_row = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : failed(w, part, rc, err, status);
}

static process_walk *process_of(nsys_keywalk *w, int64_t gpid, buf *err, int *status)
{
    if (w->last < w->n_processes && w->processes[w->last].gpid == gpid)
        return &w->processes[w->last];
    for (size_t i = 0; i < w->n_processes; i++)
        if (w->processes[i].gpid == gpid) {
            w->last = i;
            return &w->processes[i];
        }
    w->processes = xgrow(w->processes, &w->cap_processes, w->n_processes + 1,
                         sizeof *w->processes);
    process_walk *p = &w->processes[w->n_processes];
    *p = (process_walk){.gpid = gpid, .parts = xcalloc(w->n_parts + 1, sizeof *p->parts)};
    w->last = w->n_processes++;
    for (size_t k = 0; k <= w->n_parts; k++) {
        int rc = sqlite3_prepare_v2(nsys_db_sqlite(part_db(w, k)), buf_cstr(&w->sql), -1,
                                    &p->parts[k].stmt, NULL);
        if (rc != SQLITE_OK) {
            failed(w, k, rc, err, status);
            return NULL;
        }
    }
    return p;
}

/* Appends the rows of (gpid, corr) in one part to w->values after n rows;
 * returns the new count, or -1. */
static int find_in_part(nsys_keywalk *w, size_t part, part_walk *p, int64_t gpid, int64_t corr,
                        int n, buf *err, int *status)
{
    if (!p->asked || corr <= p->last_asked) {
        sqlite3_reset(p->stmt);
        sqlite3_bind_int64(p->stmt, 1, gpid);
        sqlite3_bind_int64(p->stmt, 2, corr);
        if (step(w, part, p, err, status) < 0)
            return -1;
    } else {
        while (p->has_row && sqlite3_column_int64(p->stmt, 0) < corr)
            if (step(w, part, p, err, status) < 0)
                return -1;
    }
    p->asked = true;
    p->last_asked = corr;
    while (p->has_row && sqlite3_column_int64(p->stmt, 0) == corr) {
        w->values = xgrow(w->values, &w->cap_values, (size_t)(n + 1) * w->n_columns,
                          sizeof *w->values);
        for (size_t k = 0; k < w->n_columns; k++) {
            int col = (int)k + 1;
            w->values[(size_t)n * w->n_columns + k] =
                sqlite3_column_type(p->stmt, col) == SQLITE_NULL
                    ? NSYS_NULL
                    : sqlite3_column_int64(p->stmt, col);
        }
        n++;
        if (step(w, part, p, err, status) < 0)
            return -1;
    }
    return n;
}

int nsys_keywalk_find(nsys_keywalk *w, int64_t gpid, int64_t corr, const int64_t **values,
                      buf *err, int *status)
{
    process_walk *p = process_of(w, gpid, err, status);
    if (!p)
        return -1;
    int n = 0;
    for (size_t k = 0; k <= w->n_parts && n >= 0; k++)
        n = find_in_part(w, k, &p->parts[k], gpid, corr, n, err, status);
    *values = w->values;
    return n;
}
