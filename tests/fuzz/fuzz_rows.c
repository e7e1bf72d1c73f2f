/* libFuzzer target: structured mutation of a valid report's rows.
 *
 * Raw byte mutation of a SQLite file mostly breaks SQLite's page format, so
 * the converter sees "corrupt database" and little else. Here the input is
 * instead a small program of edits applied, through SQL, to a copy of a
 * valid nsys export (a "base", made by make_seeds.sh from nsys-fixture plus
 * NVTX rows); the edited report is then converted and checked like in
 * fuzz_convert.c. The edits reach the reader and the row-to-packet path with
 * the values real exports get wrong: NULLs, negative and extreme
 * timestamps, ends before starts, unknown enum values, string ids with no
 * string, invalid UTF-8 and huge strings, duplicated rows and correlation
 * ids, TEXT/REAL/BLOB in INTEGER columns, dropped or renamed columns and
 * tables, tables turned into views.
 *
 * Input layout (all records fixed-size, so libFuzzer's byte-level mutations
 * and comparison tracing stay meaningful):
 *
 *   byte 0   base report: bases[b % n_bases] (modern, 2022, legacy, and
 *            two cut from real reports when make_seeds.sh found the corpus)
 *   byte 1   bits 0-1 kernel names (3 = short), bit 2 no gzip,
 *            bits 3-4 min_stream_activity {0, 0, 1.5, 60},
 *            bits 5-7 NVTX filter (none, or one of 3 regexes)
 *   byte 2   bits 0-6: NVTX domain filter (mostly none); bit 7: convert the
 *            edited report together with the unedited base (nsysp_convert_many)
 *   byte 3   bits 0-1 time range (none, none, [0, 200 us], [100 us, 1000 s]),
 *            bit 2 GPU 0 only, bit 3 the base's first process only, bit 4
 *            align_start, bit 5 count_unread_tables, bits 6-7 source filter
 *   then up to MAX_OPS records of 16 bytes:
 *     op, table, column, row (u16 LE), kind, aux (u16 LE), value[8]
 *
 * Tables and columns are picked by index (modulo) in the chosen base's own
 * schema, sorted by name, so every record names something real. A failed
 * edit (a constraint, a column already dropped) is simply skipped.
 *
 * Environment:
 *   NSYSP_FUZZ_ROWS_BASES  colon-separated base reports (default: the ones
 *                          make_seeds.sh wrote into the build directory)
 *   NSYSP_FUZZ_ROWS_DUMP   when set, each input's edited report is copied to
 *                          this path and the equivalent CLI options are
 *                          printed: `fuzz_rows crash-X` with it set turns a
 *                          finding into a stand-alone .sqlite reproducer
 *   NSYSP_FUZZ_VERBOSE=1   print each SQL edit and its outcome */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

#ifndef NSYSP_FUZZ_DEFAULT_BASES
#define NSYSP_FUZZ_DEFAULT_BASES "rows_base_modern.sqlite:rows_base_2022.sqlite:rows_base_legacy.sqlite"
#endif

enum { HEADER = 4, RECORD = 16, MAX_OPS = 64, MAX_BASES = 8 };
/* Bytes of text all huge-string edits of one input may add together, and
 * the size past which the edited report takes no more edits (huge strings
 * times thousands of copied rows would otherwise build gigabytes: a
 * harness out-of-memory, not a converter finding). */
enum { HUGE_BUDGET = 8 << 20, MAX_REPORT_BYTES = 64 << 20 };

typedef struct table_info {
    char *name;
    char **columns;
    int n_columns;
    int rows;            /* rows in the base */
    bool has_start_end;
} table_info;

typedef struct base {
    char *path;
    int32_t first_pid;   /* of PROCESSES, for the pid filter (0: none) */
    unsigned char *bytes;
    size_t size;
    table_info *tables;
    int n_tables;
} base;

static base bases[MAX_BASES];
static int n_bases;
static bool verbose;
static const char *dump_path;

/* ---- Loading the bases ------------------------------------------------------ */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_rows: %s: %s\n", what, detail);
    exit(1);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_base(const char *path)
{
    base *b = &bases[n_bases];
    b->path = strdup(path);
    b->bytes = slurp(path, &b->size);
    if (!b->bytes)
        die("cannot read base report (run tests/fuzz/make_seeds.sh, or set NSYSP_FUZZ_ROWS_BASES)",
            path);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        die("cannot open base report", path);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "SELECT name FROM sqlite_master WHERE type = 'table'"
                       " AND name NOT LIKE 'sqlite_%' ORDER BY name",
                       -1, &st, NULL);
    char **names = NULL;
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        names = realloc(names, sizeof *names * (size_t)(n + 1));
        names[n++] = strdup((const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    if (!n)
        die("base report has no tables", path);
    b->tables = calloc((size_t)n, sizeof *b->tables);
    b->n_tables = n;
    for (int i = 0; i < n; i++) {
        table_info *t = &b->tables[i];
        t->name = names[i];
        sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
        sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
        bool has_start = false, has_end = false;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *c = (const char *)sqlite3_column_text(st, 0);
            t->columns = realloc(t->columns, sizeof *t->columns * (size_t)(t->n_columns + 1));
            t->columns[t->n_columns++] = strdup(c);
            has_start |= strcmp(c, "start") == 0;
            has_end |= strcmp(c, "end") == 0;
        }
        sqlite3_finalize(st);
        qsort(t->columns, (size_t)t->n_columns, sizeof *t->columns, cmp_str);
        t->has_start_end = has_start && has_end;
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", t->name);
        sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        if (sqlite3_step(st) == SQLITE_ROW)
            t->rows = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    free(names);
    if (sqlite3_prepare_v2(db, "SELECT pid FROM PROCESSES WHERE pid > 0 ORDER BY rowid LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            b->first_pid = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    n_bases++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    verbose = getenv("NSYSP_FUZZ_VERBOSE") && strcmp(getenv("NSYSP_FUZZ_VERBOSE"), "1") == 0;
    dump_path = getenv("NSYSP_FUZZ_ROWS_DUMP");
    const char *list = getenv("NSYSP_FUZZ_ROWS_BASES");
    if (!list || !*list)
        list = NSYSP_FUZZ_DEFAULT_BASES;
    char *copy = strdup(list);
    for (char *save = NULL, *p = strtok_r(copy, ":", &save); p && n_bases < MAX_BASES;
         p = strtok_r(NULL, ":", &save)) {
        /* The bases cut from real reports exist only where the corpus is. */
        if (access(p, R_OK) != 0 && n_bases >= 3)
            continue;
        load_base(p);
    }
    free(copy);
    if (!n_bases)
        die("no base report", list);
    return 0;
}

/* ---- Edits ------------------------------------------------------------------- */

typedef struct op {
    uint8_t code, table, column;
    uint16_t row;
    uint8_t kind;
    uint16_t aux;
    uint8_t value[8];
} op;

static op decode_op(const uint8_t *p)
{
    op o;
    o.code = p[0];
    o.table = p[1];
    o.column = p[2];
    o.row = (uint16_t)(p[3] | p[4] << 8);
    o.kind = p[5];
    o.aux = (uint16_t)(p[6] | p[7] << 8);
    memcpy(o.value, p + 8, 8);
    return o;
}

static int64_t value_i64(const op *o)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | o->value[i];
    return (int64_t)v;
}

static const int64_t SPECIAL_INTS[] = {
    INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, -1, 0, 1, 2,
    INT32_MAX, INT32_MIN, UINT32_MAX, (int64_t)1 << 32, (int64_t)1 << 53, -((int64_t)1 << 62),
    (int64_t)1 << 62, 16777215, 16777216, -16777216, 255, 256, 65535, 1000000000000000000,
    -1000000000000000000,
};
static const double SPECIAL_REALS[] = {
    INFINITY, -INFINITY, 1e300, -1e300, -0.0, 0.5, 9.3e18, -9.3e18, 1e-300, 1.5,
};
static const char *const NUMERIC_SUFFIXES[] = {"", "abc", " ", ".5", "e3", "\xff", "0x10"};

typedef struct editor {
    sqlite3 *db;
    const base *b;
    size_t huge_used;
    int rows_hit;        /* rows the current edit may touch (for the budget) */
} editor;

static void quote(char *out, size_t size, const char *ident)
{
    size_t n = 0;
    if (size < 3)
        return;
    out[n++] = '"';
    for (const char *p = ident; *p && n + 3 < size; p++) {
        if (*p == '"')
            out[n++] = '"';
        out[n++] = *p;
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* Runs sql with up to two bound values (blob/text/int picked by the caller
 * through a small closure-free convention: each bind callback sees the
 * statement). Failures are expected and ignored. */
typedef void (*binder)(sqlite3_stmt *st, const op *o, editor *ed);

static void run(editor *ed, const char *sql, binder bind, const op *o)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(ed->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        if (bind)
            bind(st, o, ed);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ;
        sqlite3_finalize(st);
    }
    if (verbose)
        fprintf(stderr, "fuzz_rows: %s -> %s\n", sql,
                rc == SQLITE_DONE || rc == SQLITE_OK ? "ok" : sqlite3_errmsg(ed->db));
}

static void bind_value_text(sqlite3_stmt *st, const op *o, editor *ed)
{
    (void)ed;
    /* 1..8 raw bytes: invalid UTF-8, embedded NULs, control characters. */
    int n = 1 + (o->aux & 7);
    sqlite3_bind_text(st, 1, (const char *)o->value, n, SQLITE_TRANSIENT);
}

static void bind_value_blob(sqlite3_stmt *st, const op *o, editor *ed)
{
    (void)ed;
    sqlite3_bind_blob(st, 1, o->value, 1 + (o->aux & 7), SQLITE_TRANSIENT);
}

static void bind_numeric_text(sqlite3_stmt *st, const op *o, editor *ed)
{
    (void)ed;
    char s[64];
    snprintf(s, sizeof s, "%" PRId64 "%s", (int64_t)(int8_t)o->value[0] * (o->value[1] + 1),
             NUMERIC_SUFFIXES[o->aux % (sizeof NUMERIC_SUFFIXES / sizeof *NUMERIC_SUFFIXES)]);
    sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT);
}

static void bind_real_bits(sqlite3_stmt *st, const op *o, editor *ed)
{
    (void)ed;
    double d;
    memcpy(&d, o->value, sizeof d);
    sqlite3_bind_double(st, 1, d);
}

static void bind_step(sqlite3_stmt *st, const op *o, editor *ed)
{
    (void)ed;
    sqlite3_bind_int64(st, 1, (int64_t)(int8_t)o->value[0] * 97);
}

static void bind_huge(sqlite3_stmt *st, const op *o, editor *ed)
{
    /* piece repeated count times: up to 2 MiB of one byte pattern. */
    int piece = 1 + (o->value[7] & 3);
    int64_t count = (int64_t)(o->aux + 1) * 32;
    size_t bytes = (size_t)(count * piece) * (size_t)(ed->rows_hit > 0 ? ed->rows_hit : 1);
    if (ed->huge_used + bytes > HUGE_BUDGET) {
        count = 1;
        bytes = (size_t)piece;
    }
    ed->huge_used += bytes;
    sqlite3_bind_int64(st, 1, count);
    sqlite3_bind_text(st, 2, (const char *)o->value, piece, SQLITE_TRANSIENT);
}

/* The new value of a cell, as an SQL expression over the row (aliased by
 * the UPDATE's own table) and maybe ?1/?2, plus how to bind them. */
static const char *value_expr(editor *ed, const table_info *t, const op *o, const char *qcol,
                              char *buf, size_t size, binder *bind)
{
    *bind = NULL;
    char qtab[300];
    quote(qtab, sizeof qtab, t->name);
    switch (o->kind % 17) {
    case 0:
        return "NULL";
    case 1:
        snprintf(buf, size, "%" PRId64, value_i64(o));
        if (value_i64(o) == INT64_MIN) /* the literal would parse as a real */
            snprintf(buf, size, "(-9223372036854775807 - 1)");
        return buf;
    case 2:
        snprintf(buf, size, "%d", (int)(int8_t)o->value[0]);
        return buf;
    case 3: {
        int64_t v = SPECIAL_INTS[o->value[0] % (sizeof SPECIAL_INTS / sizeof *SPECIAL_INTS)];
        if (v == INT64_MIN)
            snprintf(buf, size, "(-9223372036854775807 - 1)");
        else
            snprintf(buf, size, "%" PRId64, v);
        return buf;
    }
    case 4: /* nudge the current value (SQLite turns an overflow into REAL) */
        snprintf(buf, size, "(%s + %d)", qcol, (int)(int16_t)(o->value[0] | o->value[1] << 8));
        return buf;
    case 5: { /* the same column of another row: duplicates, swapped ids */
        int other = t->rows ? 1 + o->value[0] % t->rows : 1;
        snprintf(buf, size, "(SELECT %s FROM %s WHERE rowid = %d)", qcol, qtab, other);
        return buf;
    }
    case 6: { /* another column of the same row: type confusion */
        char q2[300];
        quote(q2, sizeof q2, t->columns[o->value[0] % t->n_columns]);
        snprintf(buf, size, "%s", q2);
        return buf;
    }
    case 7:
        *bind = bind_value_text;
        return "?1";
    case 8:
        *bind = bind_numeric_text;
        return "?1";
    case 9:
        *bind = bind_huge;
        return "replace(hex(zeroblob(?1)), '00', ?2)";
    case 10:
        *bind = bind_value_blob;
        return "?1";
    case 11:
        *bind = bind_real_bits;
        return "?1";
    case 12: {
        double d = SPECIAL_REALS[o->value[0] % (sizeof SPECIAL_REALS / sizeof *SPECIAL_REALS)];
        if (isinf(d))
            snprintf(buf, size, "%s9e999", d < 0 ? "-" : "");
        else
            snprintf(buf, size, "%.17g", d);
        return buf;
    }
    case 13: /* a string id with no string */
        snprintf(buf, size, "(SELECT coalesce(max(id), 0) + %d FROM StringIds)",
                 1 + o->value[0]);
        return buf;
    case 14: /* some existing string id */
        snprintf(buf, size,
                 "(SELECT id FROM StringIds ORDER BY id LIMIT 1 OFFSET"
                 " (%d %% max(1, (SELECT count(*) FROM StringIds))))",
                 o->value[0] | o->value[1] << 8);
        return buf;
    case 15: /* relative to the row's own interval: ends before starts, zero length */
        if (t->has_start_end) {
            int delta = (int)(int8_t)o->value[0];
            if (strcmp(qcol, "\"end\"") == 0)
                snprintf(buf, size, "(start + %d)", delta);
            else
                snprintf(buf, size, "(\"end\" + %d)", delta);
            return buf;
        }
        return "NULL";
    default: { /* a far-away time: before the session, past the end */
        static const char *const FAR[] = {"-1000000000", "-9223372036854775000",
                                          "9223372036854775000", "4611686018427387904",
                                          "-4611686018427387904"};
        (void)ed;
        return FAR[o->value[0] % (sizeof FAR / sizeof *FAR)];
    }
    }
}

/* Copies of a row: fewer once huge strings are in the report, which would
 * be copied too. */
static int copies(const editor *ed, int n)
{
    return ed->huge_used > 4096 && n > 16 ? 16 : n;
}

static void apply(editor *ed, const op *o)
{
    const base *b = ed->b;
    const table_info *t = &b->tables[o->table % b->n_tables];
    const char *col = t->columns[o->column % t->n_columns];
    char qtab[300], qcol[300], qcol2[300];
    quote(qtab, sizeof qtab, t->name);
    quote(qcol, sizeof qcol, col);
    int row = t->rows ? 1 + o->row % t->rows : 1;
    ed->rows_hit = o->code % 24 == 14 ? t->rows : 1;
    char sql[2048], val[512];
    binder bind = NULL;
    const char *expr;

    switch (o->code % 24) {
    default: /* 0-13: one cell */
        expr = value_expr(ed, t, o, qcol, val, sizeof val, &bind);
        snprintf(sql, sizeof sql, "UPDATE %s SET %s = %s WHERE rowid = %d", qtab, qcol, expr,
                 row);
        run(ed, sql, bind, o);
        return;
    case 14: /* a whole column, or every other row of it */
        expr = value_expr(ed, t, o, qcol, val, sizeof val, &bind);
        snprintf(sql, sizeof sql, "UPDATE %s SET %s = %s WHERE %s", qtab, qcol, expr,
                 o->row & 1 ? "rowid % 2 = 0" : "1");
        run(ed, sql, bind, o);
        return;
    case 15:
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE rowid = %d", qtab, row);
        run(ed, sql, NULL, o);
        return;
    case 16: /* duplicate a row: same correlation id, same start, same name id */
        snprintf(sql, sizeof sql, "INSERT INTO %s SELECT * FROM %s WHERE rowid = %d", qtab, qtab,
                 row);
        run(ed, sql, NULL, o);
        return;
    case 17: /* many copies of a row: deep nesting, many lanes, big tables */
        snprintf(sql, sizeof sql,
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
                 " INSERT INTO %s SELECT t.* FROM %s AS t, c WHERE t.rowid = %d",
                 copies(ed, 1 + o->aux % 3000), qtab, qtab, row);
        run(ed, sql, NULL, o);
        return;
    case 18: { /* many copies, each shifted: long busy streams, overlaps, lanes */
        if (!t->has_start_end)
            return;
        char cols[4096], sel[4096];
        size_t nc = 0, ns = 0;
        for (int i = 0; i < t->n_columns; i++) {
            char q[300];
            quote(q, sizeof q, t->columns[i]);
            bool shifted = strcmp(t->columns[i], "start") == 0 || strcmp(t->columns[i], "end") == 0;
            nc += (size_t)snprintf(cols + nc, sizeof cols - nc, "%s%s", i ? ", " : "", q);
            ns += (size_t)snprintf(sel + ns, sizeof sel - ns, "%st.%s%s", i ? ", " : "", q,
                                   shifted ? " + c.x * ?1" : "");
            if (nc >= sizeof cols || ns >= sizeof sel)
                return;
        }
        snprintf(sql, sizeof sql,
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
                 " INSERT INTO %s (%s) SELECT %s FROM %s AS t, c WHERE t.rowid = %d",
                 copies(ed, 1 + o->aux % 500), qtab, cols, sel, qtab, row);
        run(ed, sql, bind_step, o);
        return;
    }
    case 19:
        snprintf(sql, sizeof sql, "DROP TABLE %s", qtab);
        run(ed, sql, NULL, o);
        return;
    case 20:
        snprintf(sql, sizeof sql, "ALTER TABLE %s DROP COLUMN %s", qtab, qcol);
        run(ed, sql, NULL, o);
        return;
    case 21: { /* rename: the column is absent under its name, its data remain */
        char renamed[280];
        snprintf(renamed, sizeof renamed, "%.200s_x", col);
        quote(qcol2, sizeof qcol2, renamed);
        snprintf(sql, sizeof sql, "ALTER TABLE %s RENAME COLUMN %s TO %s", qtab, qcol, qcol2);
        run(ed, sql, NULL, o);
        return;
    }
    case 22: { /* the table becomes a view over itself (maybe with a cast column) */
        char hidden[300], qhidden[320];
        snprintf(hidden, sizeof hidden, "%.200s__base", t->name);
        quote(qhidden, sizeof qhidden, hidden);
        snprintf(sql, sizeof sql, "ALTER TABLE %s RENAME TO %s", qtab, qhidden);
        run(ed, sql, NULL, o);
        if (o->aux & 1)
            snprintf(sql, sizeof sql, "CREATE VIEW %s AS SELECT * FROM %s", qtab, qhidden);
        else
            snprintf(sql, sizeof sql,
                     "CREATE VIEW %s AS SELECT *, CAST(%s AS TEXT) AS %s FROM %s ORDER BY random()",
                     qtab, qcol, qcol, qhidden);
        run(ed, sql, NULL, o);
        return;
    }
    case 23:
        snprintf(sql, sizeof sql, "DELETE FROM %s%s", qtab, o->row & 1 ? " WHERE rowid % 2 = 1" : "");
        run(ed, sql, NULL, o);
        return;
    }
}

/* Size of the edited report so far. */
static int64_t report_bytes(sqlite3 *db)
{
    int64_t pages = 0, page_size = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT page_count, page_size FROM pragma_page_count(),"
                               " pragma_page_size()", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            pages = sqlite3_column_int64(st, 0);
            page_size = sqlite3_column_int64(st, 1);
        }
        sqlite3_finalize(st);
    }
    return pages * page_size;
}

/* ---- Options ------------------------------------------------------------------ */

static const char *const FILTERS[] = {"^(step|forward)", ".*", "[a-z]+ (copy|range)"};
static const char *const DOMAINS_A[] = {"default"};
static const char *const DOMAINS_B[] = {"NCCL"};
static const char *const DOMAINS_C[] = {"default", "NCCL", "NCCL"};
static const double ACTIVITY[] = {0, 0, 1.5, 60};
static const char *const SOURCES_A[] = {"kernel", "cuda-api"};
static const char *const SOURCES_B[] = {"nvtx", "nvtx-gpu", "osrt", "sched", "sampling"};
static const char *const SOURCES_C[] = {"memcpy", "memset", "sync", "graph", "cuda-graph"};

static void decode_options(const uint8_t *h, const base *b, nsysp_options *opt)
{
    nsysp_options_init(opt);
    int names = h[1] & 3;
    opt->kernel_names = names == 1   ? NSYSP_KERNEL_NAMES_DEMANGLED
                        : names == 2 ? NSYSP_KERNEL_NAMES_MANGLED
                                     : NSYSP_KERNEL_NAMES_SHORT;
    opt->compress_level = h[1] & 4 ? 0 : 1;
    opt->min_stream_activity = ACTIVITY[(h[1] >> 3) & 3];
    int f = h[1] >> 5;
    opt->nvtx_filter = f >= 5 ? FILTERS[f - 5] : NULL;
    switch (h[3] & 3) {
    case 2:
        opt->has_time_range = 1;
        opt->time_start = 0;
        opt->time_end = 200000;
        break;
    case 3:
        opt->has_time_range = 1;
        opt->time_start = 100000;
        opt->time_end = 1000000000000;
        break;
    default:
        break;
    }
    opt->gpu = h[3] & 4 ? 0 : -1;
    opt->pid = h[3] & 8 ? b->first_pid : 0;
    opt->align_start = (h[3] >> 4) & 1;
    opt->count_unread_tables = (h[3] >> 5) & 1;
    switch (h[3] >> 6) {
    case 1:
        opt->sources = SOURCES_A;
        opt->n_sources = sizeof SOURCES_A / sizeof *SOURCES_A;
        break;
    case 2:
        opt->sources = SOURCES_B;
        opt->n_sources = sizeof SOURCES_B / sizeof *SOURCES_B;
        break;
    case 3:
        opt->sources = SOURCES_C;
        opt->n_sources = sizeof SOURCES_C / sizeof *SOURCES_C;
        break;
    default:
        break;
    }
    switch ((h[2] & 0x7F) % 12) {
    case 9:
        opt->nvtx_domains = DOMAINS_A;
        opt->n_nvtx_domains = 1;
        break;
    case 10:
        opt->nvtx_domains = DOMAINS_B;
        opt->n_nvtx_domains = 1;
        break;
    case 11:
        opt->nvtx_domains = DOMAINS_C;
        opt->n_nvtx_domains = 3;
        break;
    default:
        break;
    }
}

static void print_cli(const base *b, const nsysp_options *opt)
{
    static const char *const KN[] = {"short", "demangled", "mangled"};
    fprintf(stderr, "fuzz_rows: base %s\nfuzz_rows: equivalent command: nsys-perfetto", b->path);
    if (opt->kernel_names != NSYSP_KERNEL_NAMES_SHORT)
        fprintf(stderr, " --kernel-names %s", KN[opt->kernel_names]);
    if (opt->compress_level == 0)
        fprintf(stderr, " --no-compress");
    else
        fprintf(stderr, " --compress-level %d", opt->compress_level);
    if (opt->min_stream_activity > 0)
        fprintf(stderr, " --min-stream-activity %g", opt->min_stream_activity);
    if (opt->nvtx_filter)
        fprintf(stderr, " --nvtx-filter '%s'", opt->nvtx_filter);
    for (size_t i = 0; i < opt->n_nvtx_domains; i++)
        fprintf(stderr, " --nvtx-domain %s", opt->nvtx_domains[i]);
    fprintf(stderr, "\nfuzz_rows: library options: time range %s [%lld, %lld], gpu %lld, pid %d,"
                    " align_start %d, count_unread_tables %d, %zu source names\n",
            opt->has_time_range ? "on" : "off", (long long)opt->time_start,
            (long long)opt->time_end, (long long)opt->gpu, (int)opt->pid, opt->align_start,
            opt->count_unread_tables, opt->n_sources);
    fprintf(stderr, "fuzz_rows: report: %s\n", dump_path);
}

/* ---- The target --------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER)
        return 0;
    const base *b = &bases[data[0] % n_bases];
    nsysp_options opt;
    decode_options(data, b, &opt);
    bool with_base = data[2] & 0x80;

    /* An in-memory copy of the base, edited, then written out as a file. */
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("sqlite3_open", ":memory:");
    unsigned char *copy = sqlite3_malloc64(b->size);
    memcpy(copy, b->bytes, b->size);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)b->size, (sqlite3_int64)b->size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
        SQLITE_OK)
        die("sqlite3_deserialize", sqlite3_errmsg(db));
    editor ed = {db, b, 0};
    size_t n_ops = (size - HEADER) / RECORD;
    if (n_ops > MAX_OPS)
        n_ops = MAX_OPS;
    for (size_t i = 0; i < n_ops; i++) {
        op o = decode_op(data + HEADER + i * RECORD);
        apply(&ed, &o);
        if (report_bytes(db) > MAX_REPORT_BYTES)
            break;
    }
    sqlite3_int64 db_size = 0;
    unsigned char *bytes = sqlite3_serialize(db, "main", &db_size, 0);
    sqlite3_close(db);
    if (!bytes)
        die("sqlite3_serialize", "failed");

    char in[4200], out[4200];
    fuzz_tmp_path(in, sizeof in, "input", ".sqlite");
    fuzz_tmp_path(out, sizeof out, "out", ".perfetto-trace");
    fuzz_write_file(in, bytes, (size_t)db_size);
    if (dump_path) {
        fuzz_write_file(dump_path, bytes, (size_t)db_size);
        print_cli(b, &opt);
    }
    sqlite3_free(bytes);

    /* The unedited base beside the edited report: two sequences, aligned. */
    char in2[4200] = "";
    if (with_base) {
        fuzz_tmp_path(in2, sizeof in2, "input", ".sqlite");
        fuzz_write_file(in2, b->bytes, b->size);
    }

    opt.output_path = out;
    nsysp_result res;
    int fds = fuzz_count_fds();
    nsysp_status status;
    if (with_base) {
        const char *inputs[2] = {in, in2};
        status = nsysp_convert_many(inputs, 2, &opt, &res);
    } else {
        status = nsysp_convert(in, &opt, &res);
    }
    if (verbose || dump_path)
        fprintf(stderr, "fuzz_rows: status %d %s\n", (int)status, res.message);

    /* The edits keep a valid SQLite file whose tables may no longer make a
     * usable export: NOT_NSYS (a required column gone) and INPUT_FORMAT (a
     * value SQLite itself rejects while reading) are fair answers. */
    unsigned allowed = FUZZ_STATUS_BIT(NSYSP_OK) | FUZZ_STATUS_BIT(NSYSP_ERR_NOT_NSYS) |
                       FUZZ_STATUS_BIT(NSYSP_ERR_INPUT_FORMAT);
    fuzz_check_conversion(status, &res, out, opt.compress_level, allowed, fds);
    unlink(in);
    if (with_base)
        unlink(in2);
    fuzz_tmpdir_release();
    return 0;
}
