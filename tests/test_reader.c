/* The reader on generated reports of each schema shape (2020 legacy, 2022,
 * 2023+): metadata form and version, table and column probing, StringIds,
 * process/thread/GPU metadata, generic cursors, and strict read-only use. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "nsys/nsys_cursor.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_meta.h"
#include "nsys/nsys_strings.h"
#include "nsys_perfetto.h"

static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

typedef struct kernel_probe {
    int64_t start;
    int64_t end;
    int64_t mangled;
    const char *missing_text;
} kernel_probe;

static const nsys_column KERNEL_COLUMNS[] = {
    NSYS_COL_REQ(kernel_probe, start, "start", NSYS_INT),
    NSYS_COL_REQ(kernel_probe, end, "end", NSYS_INT),
    NSYS_COL(kernel_probe, mangled, "mangledName", NSYS_INT),
    NSYS_COL(kernel_probe, missing_text, "noSuchColumn", NSYS_TEXT),
};
static const nsys_table KERNEL_TABLE = {"CUPTI_ACTIVITY_KIND_KERNEL", KERNEL_COLUMNS, 4, NSYS_ORDER_BY("start")};

static void check_shape(const char *gen, const char *dir, const char *shape,
                        nsys_meta_form form, const char *version, bool has_mangled)
{
    char path[4096], cmd[8192];
    snprintf(path, sizeof path, "%s/reader-%s.sqlite", dir, shape);
    snprintf(cmd, sizeof cmd, "'%s' --schema %s --seed 3 --events 3000 '%s'", gen, shape, path);
    CHECK_EQ_INT(system(cmd), 0);
    /* The reader must work on a file nobody may write. */
    chmod(path, 0444);
    struct stat before, after;
    stat(path, &before);

    buf err = {0};
    int status;
    nsys_db *db = nsys_db_open(path, &err, &status);
    CHECK(db != NULL);
    if (!db) {
        fprintf(stderr, "%s: %s\n", shape, buf_cstr(&err));
        return;
    }
    CHECK_EQ_INT(nsys_db_meta_form(db), form);
    CHECK_EQ_STR(nsys_db_schema_version(db), version);
    CHECK(nsys_db_has_table(db, "StringIds"));
    CHECK(nsys_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"));
    CHECK(!nsys_db_has_table(db, "NO_SUCH_TABLE"));
    CHECK(nsys_db_has_column(db, "CUPTI_ACTIVITY_KIND_KERNEL", "shortName"));
    CHECK(nsys_db_has_column(db, "CUPTI_ACTIVITY_KIND_KERNEL", "mangledName") == has_mangled);
    CHECK(!nsys_db_has_column(db, "CUPTI_ACTIVITY_KIND_KERNEL", "noSuchColumn"));
    CHECK(!nsys_db_has_column(db, "NO_SUCH_TABLE", "start"));

    nsys_strings strings;
    CHECK_EQ_INT(nsys_strings_load(db, &strings, &err), NSYSP_OK);
    int64_t n_strings = sql_int(path, "SELECT count(*) FROM StringIds");
    CHECK_EQ_INT(strings.count, n_strings);
    int64_t some_id = sql_int(path, "SELECT max(id) FROM StringIds");
    CHECK(nsys_string(&strings, some_id) != NULL);
    CHECK(nsys_string(&strings, -1) == NULL);

    nsys_meta meta;
    CHECK_EQ_INT(nsys_meta_load(db, &strings, &meta, &err), NSYSP_OK);
    CHECK_EQ_INT(meta.n_gpus, sql_int(path, "SELECT count(*) FROM TARGET_INFO_GPU"));
    for (size_t i = 0; i < meta.n_gpus; i++) {
        CHECK(meta.gpus[i].name != NULL);
        CHECK(nsys_gpu_info(&meta, meta.gpus[i].id) == &meta.gpus[i]);
    }
    /* Every thread that made CUDA calls has a name, and so its process. */
    int64_t gtid = sql_int(path, "SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1");
    CHECK(nsys_thread_name(&meta, gtid) != NULL);
    CHECK(nsys_process_name(&meta, gtid & (int64_t)0xFFFFFFFFFF000000ll) != NULL);
    CHECK(meta.cuda_processes >= 1);

    /* A generic cursor: required columns read, absent optional ones NULL,
     * rows in start order, every row seen. */
    nsys_cursor *c;
    CHECK_EQ_INT(nsys_cursor_open(db, &KERNEL_TABLE, &c, &err), NSYSP_OK);
    kernel_probe row;
    int64_t rows = 0, last = INT64_MIN, with_mangled = 0;
    int rc;
    while ((rc = nsys_cursor_next(c, &row, &err, &status)) == 1) {
        rows++;
        CHECK(row.start >= last);
        last = row.start;
        CHECK(row.missing_text == NULL);
        with_mangled += row.mangled != NSYS_NULL;
    }
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(rows, sql_int(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    CHECK(has_mangled ? with_mangled == rows : with_mangled == 0);
    nsys_cursor_close(c);

    nsys_meta_free(&meta);
    nsys_strings_free(&strings);
    nsys_db_close(db);
    stat(path, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size);
    /* No journal, WAL or shm file appeared beside it. */
    char side[4200];
    snprintf(side, sizeof side, "%s-journal", path);
    CHECK(access(side, F_OK) != 0);
    snprintf(side, sizeof side, "%s-wal", path);
    CHECK(access(side, F_OK) != 0);
    buf_free(&err);
}

/* A required column missing: a clear error naming table and column. */
static void check_missing_column(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/reader-nocol.sqlite", dir);
    unlink(path);
    sqlite3 *sql;
    sqlite3_open(path, &sql);
    sqlite3_exec(sql,
                 "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, mangledName INTEGER);",
                 NULL, NULL, NULL);
    sqlite3_close(sql);
    buf err = {0};
    int status;
    nsys_db *db = nsys_db_open(path, &err, &status);
    CHECK(db != NULL);
    CHECK_EQ_INT(nsys_db_meta_form(db), NSYS_META_NONE);
    CHECK_EQ_STR(nsys_db_schema_version(db), "");
    nsys_cursor *c = NULL;
    CHECK_EQ_INT(nsys_cursor_open(db, &KERNEL_TABLE, &c, &err), NSYSP_ERR_NOT_NSYS);
    CHECK(c == NULL);
    CHECK(strstr(buf_cstr(&err), "CUPTI_ACTIVITY_KIND_KERNEL") && strstr(buf_cstr(&err), "'end'"));
    nsys_db_close(db);
    buf_free(&err);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_reader NSYS_FIXTURE WORKDIR\n");
        return 2;
    }
    check_shape(argv[1], argv[2], "modern", NSYS_META_META_DATA_EXPORT, "3.25.0", true);
    check_shape(argv[1], argv[2], "2022", NSYS_META_EXPORT_META_DATA, "3.0.0", true);
    check_shape(argv[1], argv[2], "legacy", NSYS_META_NONE, "", false);
    check_missing_column(argv[2]);
    return CHECK_DONE();
}
