/* read-floor: the speed limit of a conversion. Reads the same columns of
 * the same rows as nsys-perfetto's sources, with the plain sqlite3 C API
 * (one SELECT per table, no ORDER BY, no joins) and does nothing with
 * them. The benchmark reports conversion time as a multiple of this.
 *
 *   read-floor REPORT.sqlite   -> prints "<rows> <seconds>" */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "nsys/nsys_db.h"
#include "sources/source.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads every row of one source's table; returns the row count. */
static long long read_table(nsys_db *db, const nsys_table *t)
{
    char sql[4096] = "SELECT ";
    size_t used = strlen(sql);
    int n = 0;
    for (size_t i = 0; i < t->n_columns; i++) {
        const nsys_column *col = &t->columns[i];
        if (col->expr || !nsys_db_has_column(db, t->name, col->name))
            continue;
        used += (size_t)snprintf(sql + used, sizeof sql - used, "%s\"%s\"", n++ ? ", " : "",
                                 col->name);
    }
    if (!n)
        return 0;
    snprintf(sql + used, sizeof sql - used, " FROM \"%s\"%s%s", t->name,
             t->where ? " WHERE " : "", t->where ? t->where : "");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(nsys_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    long long rows = 0;
    volatile long long sink = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < n; c++) {
            if (sqlite3_column_type(st, c) == SQLITE_TEXT)
                sink += (long long)(size_t)sqlite3_column_text(st, c);
            else
                sink += sqlite3_column_int64(st, c);
        }
        rows++;
    }
    sqlite3_finalize(st);
    (void)sink;
    return rows;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: read-floor REPORT.sqlite\n");
        return 2;
    }
    buf err = {0};
    int status;
    double t0 = now();
    nsys_db *db = nsys_db_open(argv[1], &err, &status);
    if (!db) {
        fprintf(stderr, "read-floor: %s\n", buf_cstr(&err));
        return status;
    }
    long long rows = 0;
    for (size_t i = 0; i < sources_count(); i++)
        if (nsys_db_has_table(db, source_at(i)->table->name))
            rows += read_table(db, source_at(i)->table);
    nsys_db_close(db);
    printf("%lld %.3f\n", rows, now() - t0);
    buf_free(&err);
    return 0;
}
