/* A recipe's work on one report as text (a "partial"), so that reports can
 * be read on the machines that hold them and folded on another
 * (`recipe --partial`, `recipe --from-partials`, tools/recipe_dask.py).
 * Line-based and typed, so that the fold sees exactly the cells the local
 * run sees:
 *
 *   nsys-perfetto recipe partial 1
 *   recipe <TAB> NAME
 *   report <TAB> PATH
 *   label <TAB> LABEL
 *   table <TAB> FILE            then one "c" line of column names and
 *   c <TAB> NAME <TAB> ...      one "r" line per row: a cell is "n" (none),
 *   r <TAB> CELL <TAB> ...      "i" and an integer, "r" and a %.17g real, or
 *   end                         "s" and text; text escapes \\, TAB, LF, CR. */
#include "recipe.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define MAGIC "nsys-perfetto recipe partial 1"

static void put_text(buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\': buf_append_str(out, "\\\\"); break;
        case '\t': buf_append_str(out, "\\t"); break;
        case '\n': buf_append_str(out, "\\n"); break;
        case '\r': buf_append_str(out, "\\r"); break;
        default: buf_append_byte(out, (uint8_t)*s);
        }
    }
}

static void put_cell(buf *out, const recipe_cell *c)
{
    switch (c->kind) {
    case RECIPE_INT: buf_printf(out, "i%" PRId64, c->i); break;
    case RECIPE_REAL: buf_printf(out, "r%.17g", c->r); break;
    case RECIPE_TEXT: buf_append_byte(out, 's'); put_text(out, c->s); break;
    default: buf_append_byte(out, 'n');
    }
}

void recipe_partial_write(const char *recipe, const char *report, const char *label,
                          const recipe_outputs *partial, buf *out)
{
    buf_printf(out, MAGIC "\nrecipe\t");
    put_text(out, recipe);
    buf_append_str(out, "\nreport\t");
    put_text(out, report);
    buf_append_str(out, "\nlabel\t");
    put_text(out, label);
    buf_append_byte(out, '\n');
    for (size_t t = 0; t < partial->n; t++) {
        const recipe_table *table = &partial->items[t].table;
        buf_append_str(out, "table\t");
        put_text(out, partial->items[t].file);
        buf_append_str(out, "\nc");
        for (size_t c = 0; c < table->n_columns; c++) {
            buf_append_byte(out, '\t');
            put_text(out, table->columns[c]);
        }
        buf_append_byte(out, '\n');
        for (size_t r = 0; r < table->n_rows; r++) {
            buf_append_byte(out, 'r');
            for (size_t c = 0; c < table->n_columns; c++) {
                buf_append_byte(out, '\t');
                put_cell(out, recipe_table_cell(table, r, c));
            }
            buf_append_byte(out, '\n');
        }
    }
    buf_append_str(out, "end\n");
}

/* The fields of one line (escapes undone), NUL-separated in line. */
static size_t split_line(const char **p, const char *end, buf *line, const char **fields,
                         size_t max)
{
    buf_clear(line);
    size_t starts[4096], n = 0;
    starts[n++] = 0;
    const char *s = *p;
    for (; s < end && *s != '\n'; s++) {
        if (*s == '\t') {
            buf_append_byte(line, 0);
            if (n < sizeof starts / sizeof *starts)
                starts[n++] = line->len;
        } else if (*s == '\\' && s + 1 < end) {
            s++;
            buf_append_byte(line, *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : (uint8_t)*s);
        } else {
            buf_append_byte(line, (uint8_t)*s);
        }
    }
    buf_append_byte(line, 0);
    *p = s < end ? s + 1 : s;
    size_t k = 0;
    for (; k < n && k < max; k++)
        fields[k] = (const char *)line->data + starts[k];
    return n;
}

static int read_cell(const char *text, recipe_cell *cell)
{
    char *end;
    switch (text[0]) {
    case 'n': return text[1] ? -1 : 0;
    case 's': recipe_cell_set_text(cell, text + 1); return 0;
    case 'i': recipe_cell_set_int(cell, strtoll(text + 1, &end, 10)); return *end || !text[1] ? -1 : 0;
    case 'r': recipe_cell_set_real(cell, strtod(text + 1, &end)); return *end || !text[1] ? -1 : 0;
    default: return -1;
    }
}

int recipe_partial_read(const char *text, size_t size, const char *recipe, char **report,
                        char **label, recipe_outputs *partial, buf *err)
{
    const char *p = text, *end = text + size;
    buf line = {0};
    const char *f[4096];
    size_t max = sizeof f / sizeof *f;
    int status = NSYSP_ERR_INPUT_FORMAT;
    *report = *label = NULL;
    recipe_table table = {0};
    char *file = NULL;
    if (split_line(&p, end, &line, f, max) != 1 || strcmp(f[0], MAGIC) != 0)
        goto bad;
    if (split_line(&p, end, &line, f, max) != 2 || strcmp(f[0], "recipe") != 0)
        goto bad;
    if (strcmp(f[1], recipe) != 0) {
        buf_printf(err, "a partial of recipe %s, not %s", f[1], recipe);
        goto fail;
    }
    if (split_line(&p, end, &line, f, max) != 2 || strcmp(f[0], "report") != 0)
        goto bad;
    *report = xstrdup(f[1]);
    if (split_line(&p, end, &line, f, max) != 2 || strcmp(f[0], "label") != 0)
        goto bad;
    *label = xstrdup(f[1]);
    for (;;) {
        if (p >= end)
            goto bad; /* cut short */
        size_t n = split_line(&p, end, &line, f, max);
        if (n == 1 && strcmp(f[0], "end") == 0)
            break;
        if (n == 2 && strcmp(f[0], "table") == 0) {
            if (file)
                recipe_outputs_take(partial, file, &table);
            free(file);
            file = xstrdup(f[1]);
            n = split_line(&p, end, &line, f, max);
            if (n < 1 || n > max || strcmp(f[0], "c") != 0)
                goto bad;
            recipe_table_init(&table, f + 1, n - 1);
        } else if (n >= 1 && strcmp(f[0], "r") == 0 && file && n - 1 == table.n_columns) {
            recipe_cell *row = recipe_table_add_row(&table);
            for (size_t c = 0; c + 1 < n; c++)
                if (read_cell(f[c + 1], &row[c]))
                    goto bad;
        } else {
            goto bad;
        }
    }
    if (file)
        recipe_outputs_take(partial, file, &table);
    status = NSYSP_OK;
    goto done;
bad:
    buf_printf(err, "not a partial written by nsys-perfetto recipe --partial");
fail:
    free(*report);
    free(*label);
    *report = *label = NULL;
    recipe_table_free(&table);
done:
    free(file);
    buf_free(&line);
    return status;
}
