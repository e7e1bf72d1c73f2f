/* Turns an nsys-fixture report into a fuzzing seed or base (make_seeds.sh):
 *
 *   fuzz_prep [--nvtx modern|legacy] [--shrink N] [--tables LIST] IN.sqlite OUT.sqlite
 *
 * Copies IN to OUT, optionally adds an NVTX_EVENTS table (nsys-fixture
 * writes none) with every kind of row the converter reads, over the first
 * two threads that make CUDA calls: domain (75), category (33) and thread
 * (39) names, nested push/pop ranges (59) with text and registered names,
 * start/end ranges (60) ending on another thread or never, marks (34),
 * NVTXT ranges (70, 71), payloads of each type. "legacy" leaves out the
 * columns older exports lack (endGlobalTid, jsonText, jsonTextId).
 * --shrink N keeps the first N rows of each event table (names, ENUM and
 * TARGET_INFO tables are kept whole), for seeds made from real reports;
 * --tables LIST (a file, one table name a line) drops every table not in
 * it (real exports have a hundred tables, most of which the converter never
 * reads, and a 60 KB schema of column comments). Then it
 * rewrites OUT with 512-byte pages, which makes small reports several times
 * smaller (an nsys export has many near-empty tables): small seeds mutate
 * and replay faster, and reproducers stay small. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(sqlite3 *db, int rc, const char *what)
{
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "fuzz_prep: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "fuzz_prep: %s: %s\n", sql, msg ? msg : "?");
        exit(1);
    }
}

static const char *const MODERN_NVTX =
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
    " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,"
    " endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,"
    " int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,"
    " floatValue REAL, jsonTextId INTEGER, jsonText TEXT)";
static const char *const LEGACY_NVTX =
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
    " rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,"
    " textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER,"
    " doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL)";

typedef struct nvtx_row {
    long long start, end; /* end < 0: NULL */
    int type;
    const char *text;     /* NULL: use textId */
    long long tid, end_tid;
    int domain, category;
    long long color;
    int payload;          /* 0 none, 1 int64, 2 double, 3 uint32, 4 json */
} nvtx_row;

static void add_nvtx(sqlite3 *db, int legacy)
{
    exec(db, legacy ? LEGACY_NVTX : MODERN_NVTX);
    exec(db, "INSERT INTO StringIds(id, value)"
             " SELECT coalesce(max(id), 0) + 1, 'registered range' FROM StringIds");
    sqlite3_stmt *st;
    check(db,
          sqlite3_prepare_v2(db,
                             "SELECT globalTid, min(start), max(\"end\") FROM"
                             " CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid IS NOT NULL"
                             " GROUP BY globalTid ORDER BY globalTid LIMIT 2",
                             -1, &st, NULL),
          "listing threads");
    long long tid[2] = {0, 0}, s[2] = {0, 0}, e[2] = {0, 0};
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < 2) {
        tid[n] = sqlite3_column_int64(st, 0);
        s[n] = sqlite3_column_int64(st, 1);
        e[n] = sqlite3_column_int64(st, 2);
        n++;
    }
    sqlite3_finalize(st);
    if (n == 0)
        return;
    if (n == 1) {
        tid[1] = tid[0];
        s[1] = s[0];
        e[1] = e[0];
    }
    nvtx_row rows[32];
    int k = 0;
    for (int i = 0; i < 2; i++) {
        long long a = s[i], z = e[i], len = z - a > 8 ? z - a : 8;
        rows[k++] = (nvtx_row){a - 500, -1, 75, "NCCL", tid[i], -1, 1, 0, -1, 0};
        rows[k++] = (nvtx_row){a - 400, -1, 33, "forward", tid[i], -1, 0, 1, -1, 0};
        rows[k++] = (nvtx_row){a - 300, -1, 33, "backward", tid[i], -1, 1, 2, -1, 0};
        rows[k++] = (nvtx_row){a - 200, -1, 39, "worker", tid[i], -1, 0, 0, -1, 0};
        rows[k++] = (nvtx_row){a, z, 59, "step", tid[i], -1, 0, 1, 0xFF3366CCLL, 1};
        rows[k++] = (nvtx_row){a + len / 4, a + len / 2, 59, NULL, tid[i], -1, 1, 2, -1, 2};
        rows[k++] = (nvtx_row){a + len / 3, z + 1000, 60, "h2d copy", tid[i], tid[1 - i], 0, 0, -1, 3};
        rows[k++] = (nvtx_row){a + len / 2, -1, 60, "open range", tid[i], -1, 1, 0, -1, 0};
        rows[k++] = (nvtx_row){a + len / 2, -1, 34, "checkpoint", tid[i], -1, 0, 0, 0xFF00FF00LL, 4};
        rows[k++] = (nvtx_row){a + 10, a + 20, 70, "nvtxt push", tid[i], -1, 0, 0, -1, 0};
        rows[k++] = (nvtx_row){a + 30, z, 71, "nvtxt range", tid[i], -1, 0, 0, -1, 0};
    }
    const char *sql =
        legacy ? "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text,"
                 " globalTid, textId, domainId, int64Value, doubleValue, uint32Value)"
                 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11, ?12, ?13, ?14)"
               : "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text,"
                 " globalTid, endGlobalTid, textId, domainId, int64Value, doubleValue,"
                 " uint32Value, jsonText) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                 " ?12, ?13, ?14, ?15)";
    check(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), "preparing NVTX rows");
    for (int i = 0; i < k; i++) {
        const nvtx_row *r = &rows[i];
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        sqlite3_bind_int64(st, 1, r->start);
        if (r->end >= 0)
            sqlite3_bind_int64(st, 2, r->end);
        sqlite3_bind_int(st, 3, r->type);
        if (r->type == 60)
            sqlite3_bind_int(st, 4, i + 1);
        if (r->category)
            sqlite3_bind_int(st, 5, r->category);
        if (r->color >= 0)
            sqlite3_bind_int64(st, 6, r->color);
        if (r->text)
            sqlite3_bind_text(st, 7, r->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, r->tid);
        if (r->end_tid >= 0)
            sqlite3_bind_int64(st, 9, r->end_tid);
        if (!r->text)
            sqlite3_bind_int64(st, 10, 0); /* replaced below by the registered id */
        sqlite3_bind_int(st, 11, r->domain);
        if (r->payload == 1)
            sqlite3_bind_int64(st, 12, -42);
        if (r->payload == 2)
            sqlite3_bind_double(st, 13, 2.5);
        if (r->payload == 3)
            sqlite3_bind_int64(st, 14, 4000000000LL);
        if (r->payload == 4)
            sqlite3_bind_text(st, 15, "{\"step\": 3}", -1, SQLITE_STATIC);
        check(db, sqlite3_step(st), "inserting NVTX rows");
    }
    sqlite3_finalize(st);
    exec(db, "UPDATE NVTX_EVENTS SET textId = (SELECT max(id) FROM StringIds)"
             " WHERE textId IS NOT NULL");
}

/* Keeps the first n rows of every event table. */
static void shrink(sqlite3 *db, int n)
{
    sqlite3_stmt *st;
    check(db,
          sqlite3_prepare_v2(db,
                             "SELECT name FROM sqlite_master WHERE type = 'table'"
                             " AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'ENUM_%'"
                             " AND name NOT LIKE 'TARGET_INFO_%' AND name NOT LIKE 'META_DATA_%'"
                             " AND name NOT IN ('StringIds', 'ThreadNames', 'PROCESSES',"
                             " 'EXPORT_META_DATA', 'ANALYSIS_DETAILS')",
                             -1, &st, NULL),
          "listing tables");
    char **names = NULL;
    size_t count = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        names = realloc(names, sizeof *names * (count + 1));
        names[count++] = strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < count; i++) {
        char *sql = sqlite3_mprintf(
            "DELETE FROM \"%w\" WHERE rowid NOT IN (SELECT rowid FROM \"%w\" ORDER BY rowid LIMIT %d)",
            names[i], names[i], n);
        char *msg = NULL;
        sqlite3_exec(db, sql, NULL, NULL, &msg); /* WITHOUT ROWID tables stay whole */
        sqlite3_free(msg);
        sqlite3_free(sql);
        free(names[i]);
    }
    free(names);
}

/* Drops every table whose name is not a line of the file list. */
static void keep_only(sqlite3 *db, const char *list)
{
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "fuzz_prep: cannot read %s\n", list);
        exit(1);
    }
    exec(db, "CREATE TEMP TABLE keep(name TEXT PRIMARY KEY)");
    char line[256];
    sqlite3_stmt *ins;
    check(db, sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO keep VALUES (?1)", -1, &ins, NULL),
          "keep list");
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        sqlite3_reset(ins);
        sqlite3_bind_text(ins, 1, line, -1, SQLITE_TRANSIENT);
        sqlite3_step(ins);
    }
    sqlite3_finalize(ins);
    fclose(f);
    sqlite3_stmt *st;
    check(db,
          sqlite3_prepare_v2(db,
                             "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view')"
                             " AND name NOT LIKE 'sqlite_%' AND name NOT IN (SELECT name FROM keep)",
                             -1, &st, NULL),
          "listing tables");
    char **drops = NULL;
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        drops = realloc(drops, sizeof *drops * (n + 1));
        drops[n++] = sqlite3_mprintf("DROP %s \"%w\"", sqlite3_column_text(st, 0),
                                     sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < n; i++) {
        exec(db, drops[i]);
        sqlite3_free(drops[i]);
    }
    free(drops);
}

int main(int argc, char **argv)
{
    const char *nvtx = NULL, *tables = NULL;
    int keep = 0;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "--nvtx") == 0)
            nvtx = argv[i + 1];
        else if (strcmp(argv[i], "--shrink") == 0)
            keep = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--tables") == 0)
            tables = argv[i + 1];
        else
            break;
    }
    if (argc - i != 2 || (nvtx && strcmp(nvtx, "modern") != 0 && strcmp(nvtx, "legacy") != 0)) {
        fprintf(stderr, "usage: fuzz_prep [--nvtx modern|legacy] [--shrink N] [--tables LIST]"
                        " IN.sqlite OUT.sqlite\n");
        return 2;
    }
    const char *in = argv[i], *out = argv[i + 1];
    sqlite3 *src, *dst;
    remove(out);
    if (sqlite3_open_v2(in, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "fuzz_prep: cannot open %s\n", in);
        return 1;
    }
    check(src, sqlite3_open(out, &dst), "creating the output");
    sqlite3_backup *bk = sqlite3_backup_init(dst, "main", src, "main");
    if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
        fprintf(stderr, "fuzz_prep: copying %s: %s\n", in, sqlite3_errmsg(dst));
        return 1;
    }
    sqlite3_backup_finish(bk);
    sqlite3_close(src);
    exec(dst, "PRAGMA journal_mode=DELETE");
    if (tables)
        keep_only(dst, tables);
    if (keep > 0)
        shrink(dst, keep);
    if (nvtx)
        add_nvtx(dst, strcmp(nvtx, "legacy") == 0);
    exec(dst, "PRAGMA page_size=512");
    exec(dst, "VACUUM");
    check(dst, sqlite3_close(dst), "closing the output");
    return 0;
}
