/* The diff recipe: two outputs of the same statistics recipe, subtracted
 * (the first minus the second) table by table, as nsys 2023.4's `nsys
 * recipe diff` does: rank_stats.csv row by row matched on name and report
 * (reports paired in name order), all_stats.csv on name; only number
 * columns; --tolerance zeroes small differences, --drop leaves out rows
 * that did not change. The two directories are the job's "reports". */
#include "recipe.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* The text of dir/name, or NULL. */
static char *read_text(const char *dir, const char *name, size_t *size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf text = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(&text, chunk, n);
    bool ok = !ferror(f);
    fclose(f);
    if (!ok) {
        buf_free(&text);
        return NULL;
    }
    *size = text.len;
    buf_append_byte(&text, 0);
    return (char *)text.data;
}

/* The recipe that wrote dir, from its .nsys-analysis file ("RecipeName"). */
static char *recipe_of(const char *dir, buf *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        buf_printf(err, "%s: cannot be read as a recipe's output directory", dir);
        return NULL;
    }
    char *name = NULL;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 14 && strcmp(e->d_name + len - 14, ".nsys-analysis") == 0 && found++ == 0) {
            size_t size;
            char *text = read_text(dir, e->d_name, &size);
            const char *key = text ? strstr(text, "\"RecipeName\"") : NULL;
            const char *open = key ? strchr(key + 12, '"') : NULL;
            const char *close = open ? strchr(open + 1, '"') : NULL;
            if (close)
                name = strndup(open + 1, (size_t)(close - open - 1));
            free(text);
        }
    }
    closedir(d);
    if (found != 1 || !name) {
        free(name);
        buf_printf(err, "%s: the nsys-analysis file could not be found", dir);
        return NULL;
    }
    return name;
}

static int read_table(const char *dir, const char *file, recipe_table *t, buf *err)
{
    size_t size;
    char *text = read_text(dir, file, &size);
    if (!text) {
        buf_printf(err, "%s/%s could not be found", dir, file);
        return NSYSP_ERR_INPUT_OPEN;
    }
    buf why = {0};
    int rc = recipe_table_read_csv(t, text, size, &why);
    free(text);
    if (rc) {
        buf_printf(err, "%s/%s: not a recipe's table: %s", dir, file, buf_cstr(&why));
        recipe_table_free(t);
    }
    buf_free(&why);
    return rc ? NSYSP_ERR_INPUT_FORMAT : NSYSP_OK;
}

/* A column without text: pandas' number dtypes (all empty is NaN). */
static bool is_number_column(const recipe_table *t, size_t c)
{
    for (size_t r = 0; r < t->n_rows; r++)
        if (recipe_table_cell(t, r, c)->kind == RECIPE_TEXT)
            return false;
    return true;
}

static bool same_text(const recipe_cell *a, const recipe_cell *b)
{
    if (a->kind != RECIPE_TEXT || b->kind != RECIPE_TEXT)
        return a->kind == b->kind && recipe_cell_number(a) == recipe_cell_number(b);
    return strcmp(a->s, b->s) == 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct reports of a rank table's File column, sorted. */
static size_t files_of(const recipe_table *t, long file_column, char ***files)
{
    char **f = xcalloc(t->n_rows + 1, sizeof *f);
    size_t n = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        const recipe_cell *c = recipe_table_cell(t, r, (size_t)file_column);
        const char *name = c->kind == RECIPE_TEXT ? c->s : "";
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = strcmp(f[i], name) == 0;
        if (!seen)
            f[n++] = xstrdup(name);
    }
    qsort(f, n, sizeof *f, by_string);
    *files = f;
    return n;
}

static void free_files(char **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
}

/* first minus second, for one table (file), into out. */
static int diff_table(const char *file, const recipe_table *first, recipe_table *second,
                      const nsysp_recipe_options *o, recipe_outputs *out, buf *err)
{
    bool same_columns = first->n_columns == second->n_columns;
    for (size_t c = 0; same_columns && c < first->n_columns; c++)
        same_columns = strcmp(first->columns[c], second->columns[c]) == 0;
    if (!same_columns) {
        buf_printf(err, "%s: incompatible tables: both directories must come from the same recipe",
                   file);
        return NSYSP_ERR_USAGE;
    }
    long file_column = strcmp(file, "rank_stats.csv") == 0 ? recipe_table_column(first, "File") : -1;
    /* Reports of the second renamed to the first's, paired in name order. */
    char **files1 = NULL, **files2 = NULL;
    size_t n1 = 0, n2 = 0;
    if (file_column >= 0) {
        n1 = files_of(first, file_column, &files1);
        n2 = files_of(second, file_column, &files2);
        if (n1 != n2) {
            free_files(files1, n1);
            free_files(files2, n2);
            buf_printf(err, "%s: the tables to compare must hold the same number of reports", file);
            return NSYSP_ERR_USAGE;
        }
        for (size_t r = 0; r < second->n_rows; r++) {
            recipe_cell *c = recipe_table_cell(second, r, (size_t)file_column);
            for (size_t i = 0; i < n2; i++)
                if (c->kind == RECIPE_TEXT && strcmp(c->s, files2[i]) == 0) {
                    recipe_cell_set_text(c, files1[i]);
                    break;
                }
        }
        free_files(files1, n1);
        free_files(files2, n2);
    }

    /* The output's columns: the name, the report, then the numbers. */
    size_t n_out = 0, *from = xcalloc(first->n_columns + 1, sizeof *from);
    const char **names = xcalloc(first->n_columns + 1, sizeof *names);
    names[n_out] = first->columns[0];
    from[n_out++] = 0;
    if (file_column >= 0) {
        names[n_out] = "File";
        from[n_out++] = (size_t)file_column;
    }
    size_t first_number = n_out;
    for (size_t c = 1; c < first->n_columns; c++)
        if ((long)c != file_column && is_number_column(first, c) && is_number_column(second, c)) {
            names[n_out] = first->columns[c];
            from[n_out++] = c;
        }
    recipe_table diff;
    recipe_table_init(&diff, names, n_out);
    /* Whether a row of the first has no partner in the second: every number
     * column is then a float column, as pandas' reindex makes it. */
    bool any_missing = false;
    for (size_t r = 0; r < first->n_rows; r++) {
        const recipe_cell *a = recipe_table_cell(first, r, 0);
        const recipe_cell *af = file_column >= 0 ? recipe_table_cell(first, r, (size_t)file_column) : NULL;
        long match = -1;
        for (size_t s = 0; s < second->n_rows && match < 0; s++)
            if (same_text(a, recipe_table_cell(second, s, 0)) &&
                (!af || same_text(af, recipe_table_cell(second, s, (size_t)file_column))))
                match = (long)s;
        recipe_cell *row = recipe_table_add_row(&diff);
        for (size_t c = 0; c < first_number; c++) {
            const recipe_cell *src = recipe_table_cell(first, r, from[c]);
            if (src->kind == RECIPE_TEXT)
                recipe_cell_set_text(&row[c], src->s);
        }
        any_missing |= match < 0;
        for (size_t c = first_number; c < n_out; c++) {
            const recipe_cell *x = recipe_table_cell(first, r, from[c]);
            const recipe_cell *y = match >= 0 ? recipe_table_cell(second, (size_t)match, from[c]) : NULL;
            if (!y || x->kind == RECIPE_NULL || y->kind == RECIPE_NULL)
                recipe_cell_set_real(&row[c], NAN);
            else if (x->kind == RECIPE_INT && y->kind == RECIPE_INT)
                recipe_cell_set_int(&row[c], x->i - y->i);
            else
                recipe_cell_set_real(&row[c], recipe_cell_number(x) - recipe_cell_number(y));
        }
    }
    for (size_t c = first_number; any_missing && c < n_out; c++)
        for (size_t r = 0; r < diff.n_rows; r++) {
            recipe_cell *cell = recipe_table_cell(&diff, r, c);
            if (cell->kind == RECIPE_INT)
                recipe_cell_set_real(cell, (double)cell->i);
        }
    if (o && o->tolerance > 0)
        for (size_t c = first_number; c < n_out; c++) {
            /* pandas' applymap: a float column left with only the zeros
             * put in becomes whole numbers again. */
            bool float_left = false;
            for (size_t r = 0; r < diff.n_rows; r++) {
                recipe_cell *cell = recipe_table_cell(&diff, r, c);
                double v = recipe_cell_number(cell);
                if (fabs(v) <= (double)o->tolerance)
                    recipe_cell_set_int(cell, 0);
                else
                    float_left |= cell->kind != RECIPE_INT;
            }
            for (size_t r = 0; float_left && r < diff.n_rows; r++) {
                recipe_cell *cell = recipe_table_cell(&diff, r, c);
                if (cell->kind == RECIPE_INT)
                    recipe_cell_set_real(cell, (double)cell->i);
            }
        }
    if (o && o->drop) {
        size_t kept = 0, w = diff.n_columns;
        for (size_t r = 0; r < diff.n_rows; r++) {
            bool changed = false;
            for (size_t c = first_number; c < n_out; c++) {
                const recipe_cell *cell = recipe_table_cell(&diff, r, c);
                changed |= cell->kind == RECIPE_NULL || recipe_cell_number(cell) != 0.0;
            }
            recipe_cell *row = recipe_table_cell(&diff, r, 0);
            if (changed) {
                memmove(diff.cells + kept * w, row, w * sizeof *row);
                kept++;
            } else {
                for (size_t c = 0; c < w; c++)
                    free(row[c].s);
            }
        }
        diff.n_rows = kept;
    }
    free(from);
    free(names);
    recipe_outputs_take(out, file, &diff);
    return NSYSP_OK;
}

static int run_diff(const recipe_def *recipe, const recipe_job *job, recipe_outputs *out, buf *err)
{
    (void)recipe;
    if (job->n != 2) {
        buf_printf(err, "diff compares two recipe output directories, not %zu", job->n);
        return NSYSP_ERR_USAGE;
    }
    char *names[2] = {recipe_of(job->paths[0], err), NULL};
    if (names[0])
        names[1] = recipe_of(job->paths[1], err);
    int status = names[1] ? NSYSP_OK : NSYSP_ERR_INPUT_FORMAT;
    if (status == NSYSP_OK && strcmp(names[0], names[1]) != 0) {
        buf_printf(err, "the two directories must be outputs of the same recipe (%s, %s)", names[0],
                   names[1]);
        status = NSYSP_ERR_USAGE;
    }
    static const char *const FILES[] = {"rank_stats.csv", "all_stats.csv"};
    for (size_t f = 0; f < 2 && status == NSYSP_OK; f++) {
        recipe_table a, b;
        status = read_table(job->paths[0], FILES[f], &a, err);
        if (status != NSYSP_OK)
            break;
        status = read_table(job->paths[1], FILES[f], &b, err);
        if (status == NSYSP_OK) {
            status = diff_table(FILES[f], &a, &b, job->options, out, err);
            recipe_table_free(&b);
        }
        recipe_table_free(&a);
    }
    free(names[0]);
    free(names[1]);
    return status;
}

const recipe_def RECIPES_DIFF[] = {
    {"diff", "two outputs of the same statistics recipe, the first minus the second", run_diff,
     NULL, NULL, NULL},
};
const size_t N_RECIPES_DIFF = sizeof RECIPES_DIFF / sizeof *RECIPES_DIFF;
