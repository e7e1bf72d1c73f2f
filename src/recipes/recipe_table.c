#include "recipe_table.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void recipe_table_init(recipe_table *t, const char *const *columns, size_t n_columns)
{
    memset(t, 0, sizeof *t);
    t->n_columns = n_columns;
    t->columns = xcalloc(n_columns, sizeof *t->columns);
    for (size_t i = 0; i < n_columns; i++)
        t->columns[i] = xstrdup(columns[i]);
}

void recipe_table_free(recipe_table *t)
{
    for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
        free(t->cells[i].s);
    for (size_t i = 0; i < t->n_columns; i++)
        free(t->columns[i]);
    free(t->cells);
    free(t->columns);
    memset(t, 0, sizeof *t);
}

recipe_cell *recipe_table_add_row(recipe_table *t)
{
    if (t->n_rows == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 16;
        t->cells = xrealloc(t->cells, t->capacity * t->n_columns * sizeof *t->cells);
    }
    recipe_cell *row = t->cells + t->n_rows++ * t->n_columns;
    memset(row, 0, t->n_columns * sizeof *row);
    return row;
}

void recipe_table_append(recipe_table *t, const recipe_table *from)
{
    for (size_t r = 0; r < from->n_rows; r++) {
        recipe_cell *row = recipe_table_add_row(t);
        for (size_t c = 0; c < t->n_columns && c < from->n_columns; c++) {
            row[c] = *recipe_table_cell(from, r, c);
            if (row[c].s)
                row[c].s = xstrdup(row[c].s);
        }
    }
}

recipe_cell *recipe_table_cell(const recipe_table *t, size_t row, size_t column)
{
    return t->cells + row * t->n_columns + column;
}

long recipe_table_column(const recipe_table *t, const char *name)
{
    for (size_t i = 0; i < t->n_columns; i++)
        if (strcmp(t->columns[i], name) == 0)
            return (long)i;
    return -1;
}

void recipe_cell_set_int(recipe_cell *c, int64_t v)
{
    free(c->s);
    *c = (recipe_cell){.kind = RECIPE_INT, .i = v};
}

void recipe_cell_set_real(recipe_cell *c, double v)
{
    free(c->s);
    *c = (recipe_cell){.kind = isnan(v) ? RECIPE_NULL : RECIPE_REAL, .r = v};
}

void recipe_cell_set_text(recipe_cell *c, const char *s)
{
    free(c->s);
    *c = s ? (recipe_cell){.kind = RECIPE_TEXT, .s = xstrdup(s)} : (recipe_cell){0};
}

double recipe_cell_number(const recipe_cell *c)
{
    return c->kind == RECIPE_INT ? (double)c->i : c->kind == RECIPE_REAL ? c->r : NAN;
}

void recipe_table_promote_column(recipe_table *t, size_t column)
{
    bool any_real = false, any_null = false, any_int = false;
    for (size_t r = 0; r < t->n_rows; r++) {
        recipe_cell_kind kind = recipe_table_cell(t, r, column)->kind;
        any_real |= kind == RECIPE_REAL;
        any_null |= kind == RECIPE_NULL;
        any_int |= kind == RECIPE_INT;
    }
    any_real |= any_null && any_int;
    for (size_t r = 0; any_real && r < t->n_rows; r++) {
        recipe_cell *c = recipe_table_cell(t, r, column);
        if (c->kind == RECIPE_INT)
            recipe_cell_set_real(c, (double)c->i);
    }
}

size_t *recipe_sorted_indexes(size_t n, int (*cmp)(size_t a, size_t b, const void *ctx),
                              const void *ctx)
{
    size_t *idx = xcalloc(n ? n : 1, sizeof *idx), *tmp = xcalloc(n ? n : 1, sizeof *tmp);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp(idx[j], idx[i], ctx) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
    return idx;
}

/* Rows compared by a row comparator. */
typedef struct row_order {
    const recipe_table *t;
    int (*cmp)(const recipe_cell *, const recipe_cell *, const void *);
    const void *ctx;
} row_order;

static int by_rows(size_t a, size_t b, const void *ctx)
{
    const row_order *o = ctx;
    return o->cmp(recipe_table_cell(o->t, a, 0), recipe_table_cell(o->t, b, 0), o->ctx);
}

/* Rows in the order of sorted (row indexes). */
static void reorder_rows(recipe_table *t, const size_t *sorted)
{
    size_t w = t->n_columns;
    recipe_cell *cells = xcalloc(t->capacity * w, sizeof *cells);
    for (size_t i = 0; i < t->n_rows; i++)
        memcpy(cells + i * w, t->cells + sorted[i] * w, w * sizeof *cells);
    free(t->cells);
    t->cells = cells;
}

void recipe_table_sort(recipe_table *t, int (*cmp)(const recipe_cell *, const recipe_cell *,
                                                   const void *),
                       const void *ctx)
{
    if (t->n_rows < 2)
        return;
    row_order o = {t, cmp, ctx};
    size_t *sorted = recipe_sorted_indexes(t->n_rows, by_rows, &o);
    reorder_rows(t, sorted);
    free(sorted);
}

/* numpy 1.24's argsort(kind='quicksort') of v[0..n) into tosort (which
 * holds 0..n-1): median-of-three quicksort down to 16 elements, then
 * insertion sort; heapsort past 2 log2(n) levels. Ties come out as numpy
 * leaves them, which pandas' single-column sort shows. */
static void numpy_heapsort(const double *v, size_t *tosort, size_t n)
{
    size_t *a = tosort - 1; /* one-based, as numpy's */
    size_t i, j, l, tmp;
    for (l = n >> 1; l > 0; --l) {
        tmp = a[l];
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]])
                j += 1;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
    for (; n > 1;) {
        tmp = a[n];
        a[n] = a[1];
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]])
                j++;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
}

static void numpy_argsort(const double *v, size_t *tosort, size_t num)
{
    enum { SMALL = 15, STACK = 128 }; /* numpy's SMALL_QUICKSORT and stack */
    if (num < 2)
        return;
    size_t *pl = tosort, *pr = tosort + num - 1;
    size_t *stack[STACK], **sptr = stack;
    int depth[STACK], *psdepth = depth;
    int cdepth = 0;
    for (size_t m = num; m > 1; m >>= 1)
        cdepth++;
    cdepth *= 2;
#define SWAP(a, b) do { size_t t_ = (a); (a) = (b); (b) = t_; } while (0)
    for (;;) {
        if (cdepth < 0) {
            numpy_heapsort(v, pl, (size_t)(pr - pl) + 1);
            goto pop;
        }
        while (pr - pl > SMALL) {
            size_t *pm = pl + ((pr - pl) >> 1);
            if (v[*pm] < v[*pl])
                SWAP(*pm, *pl);
            if (v[*pr] < v[*pm])
                SWAP(*pr, *pm);
            if (v[*pm] < v[*pl])
                SWAP(*pm, *pl);
            double vp = v[*pm];
            size_t *pi = pl, *pj = pr - 1;
            SWAP(*pm, *pj);
            for (;;) {
                do
                    ++pi;
                while (v[*pi] < vp);
                do
                    --pj;
                while (vp < v[*pj]);
                if (pi >= pj)
                    break;
                SWAP(*pi, *pj);
            }
            size_t *pk = pr - 1;
            SWAP(*pi, *pk);
            if (pi - pl < pr - pi) {
                *sptr++ = pi + 1;
                *sptr++ = pr;
                pr = pi - 1;
            } else {
                *sptr++ = pl;
                *sptr++ = pi - 1;
                pl = pi + 1;
            }
            *psdepth++ = --cdepth;
        }
        for (size_t *pi = pl + 1; pi <= pr; ++pi) {
            size_t vi = *pi;
            double vp = v[vi];
            size_t *pj = pi, *pk = pi - 1;
            while (pj > pl && vp < v[*pk])
                *pj-- = *pk--;
            *pj = vi;
        }
    pop:
        if (sptr == stack)
            break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
#undef SWAP
}

void recipe_table_sort_like_pandas(recipe_table *t, size_t column, bool ascending)
{
    size_t n = t->n_rows;
    if (n < 2)
        return;
    /* pandas' nargsort: the non-NaN values (reversed when descending)
     * argsorted, the order reversed back, NaN after them. */
    size_t *idx = xcalloc(n, sizeof *idx), *order = xcalloc(n, sizeof *order);
    double *v = xcalloc(n, sizeof *v);
    size_t k = 0, n_nan = 0;
    for (size_t r = 0; r < n; r++) {
        double x = recipe_cell_number(recipe_table_cell(t, r, column));
        if (!isnan(x))
            idx[k++] = r;
    }
    for (size_t i = 0; i < k; i++) {
        size_t r = ascending ? idx[i] : idx[k - 1 - i];
        v[i] = recipe_cell_number(recipe_table_cell(t, r, column));
        order[i] = i;
    }
    numpy_argsort(v, order, k);
    size_t *sorted = xcalloc(n, sizeof *sorted);
    for (size_t i = 0; i < k; i++) {
        size_t pos = ascending ? order[i] : order[k - 1 - i];
        sorted[i] = ascending ? idx[pos] : idx[k - 1 - pos];
    }
    for (size_t r = 0; r < n; r++)
        if (isnan(recipe_cell_number(recipe_table_cell(t, r, column))))
            sorted[k + n_nan++] = r;
    reorder_rows(t, sorted);
    free(idx);
    free(order);
    free(v);
    free(sorted);
}

double recipe_round1(double x)
{
    if (!isfinite(x))
        return x;
    return nearbyint(x * 10.0) / 10.0; /* the default mode rounds half to even */
}

void recipe_format_real(double x, char *out, size_t size)
{
    if (isnan(x)) {
        snprintf(out, size, "nan");
        return;
    }
    if (isinf(x)) {
        snprintf(out, size, x < 0 ? "-inf" : "inf");
        return;
    }
    /* The fewest significant digits that read back as x. */
    char sci[40];
    for (int precision = 0; precision < 17; precision++) {
        snprintf(sci, sizeof sci, "%.*e", precision, x);
        if (strtod(sci, NULL) == x)
            break;
    }
    /* sci is [-]d[.ddd]e[+-]XX: split into digits and exponent. */
    char digits[24] = {0};
    size_t n = 0;
    const char *p = sci;
    bool negative = *p == '-';
    if (negative)
        p++;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[n++] = *p;
    int exponent = atoi(p + 1);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    char text[64];
    size_t k = 0;
    if (negative)
        text[k++] = '-';
    if (exponent >= 16 || exponent < -4) {
        text[k++] = digits[0];
        if (n > 1) {
            text[k++] = '.';
            memcpy(text + k, digits + 1, n - 1);
            k += n - 1;
        }
        k += (size_t)snprintf(text + k, sizeof text - k, "e%c%02d", exponent < 0 ? '-' : '+',
                              abs(exponent));
    } else if (exponent < 0) {
        text[k++] = '0';
        text[k++] = '.';
        for (int z = -1; z > exponent; z--)
            text[k++] = '0';
        memcpy(text + k, digits, n);
        k += n;
    } else {
        size_t whole = (size_t)exponent + 1;
        for (size_t i = 0; i < whole; i++)
            text[k++] = i < n ? digits[i] : '0';
        text[k++] = '.';
        if (n > whole) {
            memcpy(text + k, digits + whole, n - whole);
            k += n - whole;
        } else {
            text[k++] = '0';
        }
    }
    text[k] = '\0';
    snprintf(out, size, "%s", text);
}

/* Python's csv module quotes a field holding the delimiter, the quote or a
 * line end, doubling its quotes. */
static void csv_text(buf *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        buf_append_str(out, s);
        return;
    }
    buf_append_byte(out, '"');
    for (; *s; s++) {
        if (*s == '"')
            buf_append_byte(out, '"');
        buf_append_byte(out, (uint8_t)*s);
    }
    buf_append_byte(out, '"');
}

void recipe_table_csv(recipe_table *t, buf *out)
{
    for (size_t c = 0; c < t->n_columns; c++)
        recipe_table_promote_column(t, c);
    for (size_t c = 0; c < t->n_columns; c++) {
        if (c)
            buf_append_byte(out, ',');
        csv_text(out, t->columns[c]);
    }
    buf_append_byte(out, '\n');
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_columns; c++) {
            const recipe_cell *cell = recipe_table_cell(t, r, c);
            if (c)
                buf_append_byte(out, ',');
            if (cell->kind == RECIPE_INT) {
                buf_printf(out, "%lld", (long long)cell->i);
            } else if (cell->kind == RECIPE_REAL) {
                char text[64];
                recipe_format_real(cell->r, text, sizeof text);
                buf_append_str(out, text);
            } else if (cell->kind == RECIPE_TEXT) {
                csv_text(out, cell->s);
            }
        }
        buf_append_byte(out, '\n');
    }
}

/* One CSV field from *p (quotes undone) into field; sets *end_of_row. */
static void csv_field(const char **p, const char *end, buf *field, bool *end_of_row)
{
    buf_clear(field);
    const char *s = *p;
    if (s < end && *s == '"') {
        for (s++; s < end; s++) {
            if (*s == '"' && s + 1 < end && s[1] == '"')
                buf_append_byte(field, (uint8_t)*s++);
            else if (*s == '"')
                break;
            else
                buf_append_byte(field, (uint8_t)*s);
        }
        if (s < end)
            s++; /* the closing quote */
    }
    while (s < end && *s != ',' && *s != '\n' && *s != '\r')
        buf_append_byte(field, (uint8_t)*s++);
    *end_of_row = s >= end || *s != ',';
    if (s < end && *s == '\r')
        s++;
    if (s < end)
        s++;
    *p = s;
}

typedef enum column_type { COLUMN_INT, COLUMN_REAL, COLUMN_TEXT } column_type;

static bool is_integer(const char *s)
{
    char *end;
    if (!*s)
        return false;
    (void)strtoll(s, &end, 10);
    return *end == '\0';
}

static bool is_real(const char *s)
{
    char *end;
    if (!*s)
        return false;
    (void)strtod(s, &end);
    return *end == '\0';
}

int recipe_table_read_csv(recipe_table *t, const char *text, size_t size, buf *err)
{
    const char *p = text, *end = text + size;
    buf field = {0};
    bool end_of_row = false;
    size_t n = 0;
    const char *names[256] = {0};
    char *owned[256];
    while (p < end && !end_of_row && n < 256) {
        csv_field(&p, end, &field, &end_of_row);
        owned[n] = xstrdup(buf_cstr(&field));
        names[n] = owned[n];
        n++;
    }
    recipe_table_init(t, names, n);
    for (size_t i = 0; i < n; i++)
        free(owned[i]);
    if (n == 0) {
        buf_free(&field);
        buf_printf(err, "no header");
        return -1;
    }
    while (p < end) {
        recipe_cell *row = recipe_table_add_row(t);
        size_t c = 0;
        end_of_row = false;
        while (!end_of_row && p < end) {
            csv_field(&p, end, &field, &end_of_row);
            if (c < n && field.len)
                recipe_cell_set_text(&row[c], buf_cstr(&field));
            c++;
        }
        if (c != n) {
            buf_free(&field);
            buf_printf(err, "row %zu has %zu fields, not %zu", t->n_rows, c, n);
            return -1;
        }
    }
    buf_free(&field);
    /* Type each column as read_csv would. */
    for (size_t c = 0; c < n; c++) {
        column_type type = COLUMN_INT;
        bool any_empty = false;
        for (size_t r = 0; r < t->n_rows; r++) {
            const recipe_cell *cell = recipe_table_cell(t, r, c);
            if (cell->kind == RECIPE_NULL || strcmp(cell->s, "nan") == 0) {
                any_empty = true;
                continue;
            }
            if (type == COLUMN_INT && !is_integer(cell->s))
                type = COLUMN_REAL;
            if (type == COLUMN_REAL && !is_real(cell->s))
                type = COLUMN_TEXT;
        }
        if (type == COLUMN_TEXT)
            continue;
        for (size_t r = 0; r < t->n_rows; r++) {
            recipe_cell *cell = recipe_table_cell(t, r, c);
            if (cell->kind == RECIPE_NULL || strcmp(cell->s, "nan") == 0)
                recipe_cell_set_real(cell, NAN);
            else if (type == COLUMN_INT && !any_empty)
                recipe_cell_set_int(cell, strtoll(cell->s, NULL, 10));
            else
                recipe_cell_set_real(cell, strtod(cell->s, NULL));
        }
    }
    return 0;
}
