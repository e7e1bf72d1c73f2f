#include "nsys_keywalk.h"

#include <stdbool.h>
#include <stdlib.h>

#include "common/xalloc.h"

/* One process's cursor over its keys, in key order. */
typedef struct process_walk {
    int64_t gpid;
    sqlite3_stmt *stmt;
    bool has_row;
    int64_t last_asked;
    bool asked;
} process_walk;

struct nsys_keywalk {
    nsys_db *db;
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
    w->n_columns = n_columns;
    buf_printf(&w->sql, "SELECT corr, %s FROM %s WHERE gpid = ?1 AND corr >= ?2 ORDER BY corr",
               columns, table);
    return w;
}

void nsys_keywalk_close(nsys_keywalk *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_processes; i++)
        sqlite3_finalize(w->processes[i].stmt);
    free(w->processes);
    free(w->values);
    buf_free(&w->sql);
    free(w);
}

static int failed(nsys_keywalk *w, int rc, buf *err, int *status)
{
    *status = nsys_db_error(w->db, rc, "reading links", err);
    return -1;
}

static int step(nsys_keywalk *w, process_walk *p, buf *err, int *status)
{
    int rc = sqlite3_step(p->stmt);
    p->has_row = rc == SQLITE_ROW;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : failed(w, rc, err, status);
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
    *p = (process_walk){.gpid = gpid};
    int rc = sqlite3_prepare_v2(nsys_db_sqlite(w->db), buf_cstr(&w->sql), -1, &p->stmt, NULL);
    if (rc != SQLITE_OK) {
        failed(w, rc, err, status);
        return NULL;
    }
    w->last = w->n_processes++;
    return p;
}

int nsys_keywalk_find(nsys_keywalk *w, int64_t gpid, int64_t corr, const int64_t **values,
                      buf *err, int *status)
{
    process_walk *p = process_of(w, gpid, err, status);
    if (!p)
        return -1;
    if (!p->asked || corr <= p->last_asked) {
        sqlite3_reset(p->stmt);
        sqlite3_bind_int64(p->stmt, 1, gpid);
        sqlite3_bind_int64(p->stmt, 2, corr);
        if (step(w, p, err, status) < 0)
            return -1;
    } else {
        while (p->has_row && sqlite3_column_int64(p->stmt, 0) < corr)
            if (step(w, p, err, status) < 0)
                return -1;
    }
    p->asked = true;
    p->last_asked = corr;
    int n = 0;
    while (p->has_row && sqlite3_column_int64(p->stmt, 0) == corr) {
        w->values = xgrow(w->values, &w->cap_values, (size_t)(n + 1) * w->n_columns,
                          sizeof *w->values);
        for (size_t k = 0; k < w->n_columns; k++)
            w->values[(size_t)n * w->n_columns + k] = sqlite3_column_int64(p->stmt, (int)k + 1);
        n++;
        if (step(w, p, err, status) < 0)
            return -1;
    }
    *values = w->values;
    return n;
}
