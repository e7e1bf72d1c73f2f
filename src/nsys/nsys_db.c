#include "nsys_db.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "common/hmap.h"
#include "common/cancel.h"
#include "common/xalloc.h"

/* What the table list (nsys_db.tables) says of a name. */
enum {
    TABLE_IN_FILE = 1, /* a table or view of the report */
    TABLE_MADE = 2,    /* made by nsys_db_create */
    TABLE_EMPTY = 3,   /* of the report, rowless, read as absent (nsys_db_hide_empty) */
};

struct nsys_db {
    sqlite3 *sql;
    char *path;
    hmap tables;        /* table name -> 1 */
    hmap columns;       /* "table\0column" -> 1 (present) or 2 (absent) */
    hmap facts;         /* see nsys_db_fact */
    nsys_meta_form meta_form;
    volatile sig_atomic_t *cancel; /* see nsys_db_set_cancel */
    hmap meta;          /* metadata key -> index into meta_values */
    char **meta_values;
    size_t n_meta, cap_meta;
    char version[32];
    char *parts_of;     /* see nsys_db_set_table_parts */
    nsys_db **parts;
    size_t n_parts;
    const char *const *reads; /* see nsys_db_limit_reads */
};

/* SQLite URIs need %, ? and # escaped in the path. */
static char *file_uri(const char *path)
{
    buf b = {0};
    buf_append_str(&b, "file:");
    for (const char *p = path; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%' || c == '?' || c == '#' || c < 0x20)
            buf_printf(&b, "%%%02X", c);
        else
            buf_append_byte(&b, c);
    }
    /* immutable=1: SQLite neither locks nor looks for a journal or WAL, so
     * the file is only ever read, even when it sits on a read-only disk. */
    buf_append_str(&b, "?mode=ro&immutable=1");
    return (char *)buf_cstr(&b);
}

static bool quick_check_ok(sqlite3 *sql)
{
    sqlite3_stmt *st;
    bool ok = false;
    if (sqlite3_prepare_v2(sql, "PRAGMA quick_check(1)", -1, &st, NULL) == SQLITE_OK) {
        const char *result =
            sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        ok = result && strcmp(result, "ok") == 0;
        sqlite3_finalize(st);
    }
    return ok;
}

int nsys_db_error(const nsys_db *db, int rc, const char *what, buf *err)
{
    int primary = rc & 0xFF;
    const char *msg = db && db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(rc);
    const char *path = db ? db->path : "?";
    buf_clear(err);
    switch (primary) {
    case SQLITE_INTERRUPT:
        buf_printf(err, "%s: interrupted", path);
        return NSYSP_ERR_INTERRUPTED;
    case SQLITE_NOTADB:
        buf_printf(err, "%s: not a SQLite database", path);
        return NSYSP_ERR_INPUT_FORMAT;
    case SQLITE_CORRUPT:
        buf_printf(err, "%s: corrupted or truncated SQLite database (%s)", path, what);
        return NSYSP_ERR_INPUT_FORMAT;
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        buf_printf(err, "%s: cannot read (%s): %s", path, what, msg);
        return NSYSP_ERR_INPUT_OPEN;
    case SQLITE_NOMEM:
        /* SQLite also says NOMEM for records whose lengths point far past a
         * corrupt file: tell the two apart. */
        if (db && db->sql && !quick_check_ok(db->sql)) {
            buf_printf(err, "%s: corrupted or truncated SQLite database (%s)", path, what);
            return NSYSP_ERR_INPUT_FORMAT;
        }
        buf_printf(err, "%s: out of memory (%s)", path, what);
        return NSYSP_ERR_INTERNAL;
    default:
        buf_printf(err, "%s: %s: %s", path, what, msg);
        return NSYSP_ERR_INPUT_FORMAT;
    }
}

/* Checks what SQLite would report less clearly: missing, directory, not a
 * file, empty, unreadable. */
static int check_file(const char *path, buf *err)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        buf_printf(err, "%s: %s", path, errno == ENOENT ? "no such file" : strerror(errno));
        return NSYSP_ERR_INPUT_OPEN;
    }
    if (S_ISDIR(st.st_mode)) {
        buf_printf(err, "%s: is a directory, not a report", path);
        return NSYSP_ERR_INPUT_OPEN;
    }
    /* SQLite reads pages where it wants: a FIFO or a device cannot serve
     * it (and opening a FIFO would wait for a writer). */
    if (!S_ISREG(st.st_mode)) {
        buf_printf(err, "%s: not a regular file (a FIFO, socket or device), not a report", path);
        return NSYSP_ERR_INPUT_OPEN;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        buf_printf(err, "%s: cannot open: %s", path, strerror(errno));
        return NSYSP_ERR_INPUT_OPEN;
    }
    char magic[16];
    ssize_t n = read(fd, magic, sizeof magic);
    close(fd);
    if (n == 0 || st.st_size == 0) {
        buf_printf(err, "%s: empty file, not a report", path);
        return NSYSP_ERR_INPUT_FORMAT;
    }
    if (n < (ssize_t)sizeof magic || memcmp(magic, "SQLite format 3", 16) != 0) {
        buf_printf(err, "%s: not a SQLite database (an nsys report must be exported with "
                        "'nsys export --type sqlite' first)", path);
        return NSYSP_ERR_INPUT_FORMAT;
    }
    return NSYSP_OK;
}

static int load_tables(nsys_db *db, buf *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db->sql,
                                "SELECT name FROM sqlite_master WHERE type IN ('table','view')",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return nsys_db_error(db, rc, "reading the table list", err);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name)
            *hmap_upsert(&db->tables, name, strlen(name), NULL) = TABLE_IN_FILE;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nsys_db_error(db, rc, "reading the table list", err);
    return NSYSP_OK;
}

static int load_metadata(nsys_db *db, buf *err)
{
    const char *table = NULL;
    if (nsys_db_has_table(db, "META_DATA_EXPORT")) {
        db->meta_form = NSYS_META_META_DATA_EXPORT;
        table = "SELECT name, value FROM META_DATA_EXPORT";
    } else if (nsys_db_has_table(db, "EXPORT_META_DATA")) {
        db->meta_form = NSYS_META_EXPORT_META_DATA;
        table = "SELECT name, value FROM EXPORT_META_DATA";
    } else {
        db->meta_form = NSYS_META_NONE;
        return NSYSP_OK;
    }
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db->sql, table, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        /* A metadata table without name/value is odd but not fatal. */
        db->meta_form = NSYS_META_NONE;
        return NSYSP_OK;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if (!k || !v)
            continue;
        bool inserted;
        uint64_t *slot = hmap_upsert(&db->meta, k, strlen(k), &inserted);
        if (!inserted)
            continue; /* first value wins */
        db->meta_values = xgrow(db->meta_values, &db->cap_meta, db->n_meta + 1, sizeof(char *));
        db->meta_values[db->n_meta] = xstrdup(v);
        *slot = db->n_meta++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return nsys_db_error(db, rc, "reading export metadata", err);
    const char *v = nsys_db_meta(db, "EXPORT_SCHEMA_VERSION");
    if (v)
        snprintf(db->version, sizeof db->version, "%s", v);
    return NSYSP_OK;
}

/* An nsys export always has StringIds; the other tables are created only
 * when they have rows. */
static bool looks_like_nsys(const nsys_db *db)
{
    return nsys_db_has_table(db, "StringIds") || db->meta_form != NSYS_META_NONE;
}

nsys_db *nsys_db_open(const char *path, buf *err, int *status)
{
    *status = check_file(path, err);
    if (*status != NSYSP_OK)
        return NULL;

    nsys_db *db = xcalloc(1, sizeof *db);
    db->path = xstrdup(path);
    hmap_init(&db->tables);
    hmap_init(&db->columns);
    hmap_init(&db->meta);

    char *uri = file_uri(path);
    /* One thread uses the connection: no SQLite mutexes. */
    int rc = sqlite3_open_v2(uri, &db->sql, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                             NULL);
    free(uri);
    if (rc != SQLITE_OK) {
        *status = nsys_db_error(db, rc, "opening", err);
        nsys_db_close(db);
        return NULL;
    }
    /* Tables are mostly read as stored, in one pass each, and the
     * temporary tables (flow links, sorts of tables found out of order)
     * spill to files: a small page cache keeps memory flat whatever the
     * report size. Measured at 10M rows: 4 MiB costs 3% of the time of
     * 16 MiB and saves 25 MB of memory. */
    sqlite3_exec(db->sql, "PRAGMA cache_size=-4096", NULL, NULL, NULL);

    *status = load_tables(db, err);
    if (*status == NSYSP_OK)
        *status = load_metadata(db, err);
    if (*status == NSYSP_OK && !looks_like_nsys(db)) {
        buf_printf(err, "%s: not an Nsight Systems export (no StringIds or export metadata table)",
                   path);
        *status = NSYSP_ERR_NOT_NSYS;
    }
    if (*status != NSYSP_OK) {
        nsys_db_close(db);
        return NULL;
    }
    return db;
}

bool nsys_table_named(const char *table, const char *const *tables)
{
    for (; *tables; tables++) {
        size_t n = strlen(*tables);
        bool prefix = n && (*tables)[n - 1] == '*';
        if (prefix ? sqlite3_strnicmp(table, *tables, (int)n - 1) == 0
                   : sqlite3_stricmp(table, *tables) == 0)
            return true;
    }
    return false;
}

/* SQLite asks at prepare time for every column (or, for count(*), every
 * table) a statement reads, through views and subqueries too; only the
 * report's own tables are limited (not SQLite's, temporary or virtual
 * ones such as pragma_table_info). A read that names no column may come
 * without its schema: then the name is the report's, or a temporary view
 * of it (recipe time filters), which reads the same table. */
static int authorize_read(void *arg, int action, const char *table, const char *column,
                          const char *schema, const char *inner)
{
    (void)column;
    (void)inner; /* read by the assert only */
    const nsys_db *db = arg;
    if (action != SQLITE_READ || !table || (schema && strcmp(schema, "main") != 0) ||
        !nsys_db_table_in_file(db, table))
        return SQLITE_OK;
    bool named = nsys_table_named(table, db->reads);
    /* Some callers take a query that fails for a table the report lacks
     * as no data: debug builds (the sanitizer suite) stop at an undeclared
     * read of ours, direct or through a time filter's view of the same
     * name; one through a view the report itself holds is only refused. */
    assert((named || (inner && strcmp(inner, table) != 0)) &&
           "a read of a table its caller did not declare");
    return named ? SQLITE_OK : SQLITE_DENY;
}

void nsys_db_hide_empty(nsys_db *db, const char *const *tables)
{
    for (; *tables; tables++) {
        uint64_t *v = hmap_find(&db->tables, *tables, strlen(*tables));
        if (!v || *v != TABLE_IN_FILE)
            continue;
        char *query = sqlite3_mprintf("SELECT 1 FROM main.\"%w\" LIMIT 1", *tables);
        sqlite3_stmt *stmt = NULL;
        if (sqlite3_prepare_v2(db->sql, query, -1, &stmt, NULL) == SQLITE_OK &&
            sqlite3_step(stmt) == SQLITE_DONE)
            *v = TABLE_EMPTY;
        sqlite3_finalize(stmt);
        sqlite3_free(query);
    }
}

void nsys_db_limit_reads(nsys_db *db, const char *const *tables)
{
    db->reads = tables;
    sqlite3_set_authorizer(db->sql, tables ? authorize_read : NULL, tables ? db : NULL);
}

void nsys_db_set_table_parts(nsys_db *db, const char *table, nsys_db **parts, size_t n)
{
    for (size_t i = 0; i < db->n_parts; i++)
        nsys_db_close(db->parts[i]);
    free(db->parts);
    free(db->parts_of);
    db->parts = NULL;
    db->parts_of = NULL;
    db->n_parts = 0;
    if (n) {
        db->parts = xmalloc(n * sizeof *parts);
        memcpy(db->parts, parts, n * sizeof *parts);
        db->n_parts = n;
        db->parts_of = xstrdup(table);
    }
}

size_t nsys_db_table_parts(const nsys_db *db, const char *table, nsys_db *const **parts)
{
    *parts = db->parts;
    return db->parts_of && strcmp(db->parts_of, table) == 0 ? db->n_parts : 0;
}

void nsys_db_close(nsys_db *db)
{
    if (!db)
        return;
    nsys_db_set_table_parts(db, NULL, NULL, 0);
    sqlite3_close(db->sql);
    hmap_free(&db->tables);
    hmap_free(&db->columns);
    hmap_free(&db->facts);
    hmap_free(&db->meta);
    for (size_t i = 0; i < db->n_meta; i++)
        free(db->meta_values[i]);
    free(db->meta_values);
    free(db->path);
    free(db);
}

static int check_cancel(void *flag)
{
    return cancel_requested(flag);
}

void nsys_db_set_cancel(nsys_db *db, volatile sig_atomic_t *cancel)
{
    db->cancel = cancel;
    if (cancel)
        sqlite3_progress_handler(db->sql, 100000, check_cancel, (void *)cancel);
}

volatile sig_atomic_t *nsys_db_cancel_flag(const nsys_db *db)
{
    return db->cancel;
}

sqlite3 *nsys_db_sqlite(const nsys_db *db)
{
    return db->sql;
}

const char *nsys_db_path(const nsys_db *db)
{
    return db->path;
}

bool nsys_db_has_table(const nsys_db *db, const char *table)
{
    const uint64_t *v = hmap_find(&db->tables, table, strlen(table));
    return v && *v != TABLE_EMPTY;
}

void nsys_db_each_table(const nsys_db *db, void (*fn)(void *ctx, const char *table), void *ctx)
{
    for (size_t i = 0; i <= db->tables.mask && db->tables.slots; i++) {
        const hmap_slot *s = &db->tables.slots[i];
        if (s->hash && s->value == TABLE_IN_FILE) /* not made by nsys_db_create */
            fn(ctx, (const char *)s->key);
    }
}

int nsys_db_create(nsys_db *db, const char *table, const char *sql, buf *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db->sql, sql, NULL, NULL, &msg);
    sqlite3_free(msg);
    if (rc != SQLITE_OK) {
        char what[128];
        snprintf(what, sizeof what, "building %s", table);
        return nsys_db_error(db, rc, what, err);
    }
    *hmap_upsert(&db->tables, table, strlen(table), NULL) = TABLE_MADE;
    return NSYSP_OK;
}

/* Runs st (a statement of db) to its end; returns an nsysp_status. */
static int step_to_end(nsys_db *db, sqlite3_stmt *st, const char *what, buf *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    return rc == SQLITE_DONE ? NSYSP_OK : nsys_db_error(db, rc, what, err);
}

int nsys_db_copy_table(nsys_db *from, nsys_db *to, const char *table, buf *err)
{
    const char *name = strncmp(table, "temp.", 5) == 0 ? table + 5 : table;
    char what[128];
    snprintf(what, sizeof what, "copying %s", table);
    sqlite3_stmt *def = NULL, *rows = NULL, *insert = NULL;
    buf sql = {0};
    int status = NSYSP_OK, rc;
    if ((rc = sqlite3_prepare_v2(from->sql,
                                 "SELECT sql FROM sqlite_temp_master WHERE type = 'table' AND name = ?1",
                                 -1, &def, NULL)) != SQLITE_OK) {
        status = nsys_db_error(from, rc, what, err);
        goto done;
    }
    sqlite3_bind_text(def, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(def) != SQLITE_ROW || !sqlite3_column_text(def, 0)) {
        status = nsys_db_error(from, SQLITE_ERROR, what, err);
        goto done;
    }
    /* The temporary table's own definition, as SQLite recorded it. */
    buf_printf(&sql, "%s", (const char *)sqlite3_column_text(def, 0));
    if (strncmp(buf_cstr(&sql), "CREATE TABLE ", 13) == 0) {
        buf fixed = {0};
        buf_printf(&fixed, "CREATE TEMP TABLE %s", buf_cstr(&sql) + 13);
        buf_free(&sql);
        sql = fixed;
    }
    if ((status = nsys_db_create(to, table, buf_cstr(&sql), err)) != NSYSP_OK)
        goto done;
    buf_clear(&sql);
    buf_printf(&sql, "SELECT * FROM temp.\"%s\"", name);
    if ((rc = sqlite3_prepare_v2(from->sql, buf_cstr(&sql), -1, &rows, NULL)) != SQLITE_OK) {
        status = nsys_db_error(from, rc, what, err);
        goto done;
    }
    int n = sqlite3_column_count(rows);
    buf_clear(&sql);
    buf_printf(&sql, "INSERT INTO temp.\"%s\" VALUES (", name);
    for (int i = 0; i < n; i++)
        buf_printf(&sql, i ? ", ?" : "?");
    buf_append_str(&sql, ")");
    if ((rc = sqlite3_prepare_v2(to->sql, buf_cstr(&sql), -1, &insert, NULL)) != SQLITE_OK) {
        status = nsys_db_error(to, rc, what, err);
        goto done;
    }
    /* A savepoint, not BEGIN: it nests in a transaction the caller may have open. */
    if ((rc = sqlite3_exec(to->sql, "SAVEPOINT copy_table", NULL, NULL, NULL)) != SQLITE_OK) {
        status = nsys_db_error(to, rc, what, err);
        goto done;
    }
    while (status == NSYSP_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            sqlite3_bind_value(insert, i + 1, sqlite3_column_value(rows, i));
        status = step_to_end(to, insert, what, err);
        sqlite3_reset(insert);
    }
    if (status == NSYSP_OK && rc != SQLITE_DONE)
        status = nsys_db_error(from, rc, what, err);
    if (status != NSYSP_OK)
        sqlite3_exec(to->sql, "ROLLBACK TO copy_table", NULL, NULL, NULL);
    rc = sqlite3_exec(to->sql, "RELEASE copy_table", NULL, NULL, NULL);
    if (status == NSYSP_OK && rc != SQLITE_OK)
        status = nsys_db_error(to, rc, what, err);
done:
    sqlite3_finalize(def);
    sqlite3_finalize(rows);
    sqlite3_finalize(insert);
    buf_free(&sql);
    return status;
}

bool nsys_db_table_in_file(const nsys_db *db, const char *table)
{
    const uint64_t *v = hmap_find(&db->tables, table, strlen(table));
    return v && (*v == TABLE_IN_FILE || *v == TABLE_EMPTY);
}

int64_t nsys_db_row_estimate(const nsys_db *db, const char *table)
{
    /* max(rowid) is one b-tree descent; tables without rowid read as 0. */
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT max(rowid) FROM \"%s\"", table);
    sqlite3_stmt *st;
    int64_t rows = 0;
    if (strchr(table, '"') || sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        rows = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rows;
}

bool nsys_db_has_column(nsys_db *db, const char *table, const char *column)
{
    if (!nsys_db_has_table(db, table))
        return false;
    char key[256];
    int n = snprintf(key, sizeof key, "%s%c%s", table, 0, column);
    if (n < 0 || (size_t)n >= sizeof key)
        return false;
    uint64_t *known = hmap_find(&db->columns, key, (size_t)n);
    if (known)
        return *known == 1;

    /* Probe the whole table once; names are bound, never pasted in SQL. */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->sql, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL) !=
        SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 0);
        int m = col ? snprintf(key, sizeof key, "%s%c%s", table, 0, col) : -1;
        if (m > 0 && (size_t)m < sizeof key)
            *hmap_upsert(&db->columns, key, (size_t)m, NULL) = 1;
    }
    sqlite3_finalize(st);
    n = snprintf(key, sizeof key, "%s%c%s", table, 0, column);
    bool inserted;
    uint64_t *slot = hmap_upsert(&db->columns, key, (size_t)n, &inserted);
    if (inserted)
        *slot = 2;
    return *slot == 1;
}

bool nsys_db_has_columns(nsys_db *db, const char *table, const char *const *columns, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!nsys_db_has_column(db, table, columns[i]))
            return false;
    return true;
}

nsys_meta_form nsys_db_meta_form(const nsys_db *db)
{
    return db->meta_form;
}

const char *nsys_db_meta(const nsys_db *db, const char *key)
{
    uint64_t *i = hmap_find(&db->meta, key, strlen(key));
    return i ? db->meta_values[*i] : NULL;
}

const char *nsys_db_schema_version(const nsys_db *db)
{
    return db->version;
}

uint64_t *nsys_db_fact(nsys_db *db, const void *key, size_t key_len)
{
    return hmap_upsert(&db->facts, key, key_len, NULL);
}
