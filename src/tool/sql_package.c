/* The nsys PerfettoSQL package as one script: see sql_package.h. */
#include "sql_package.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nsys_perfetto.h"

#define PACKAGE_PREFIX "nsys."

enum { UNSEEN, VISITING, DONE };

typedef struct walk {
    unsigned char *state;    /* per module */
    FILE *out;
    char *err;
    size_t err_size;
} walk;

static long find_module(const char *name, size_t len)
{
    for (size_t i = 0; i < nsysp_sql_n_modules; i++)
        if (strlen(nsysp_sql_modules[i].name) == len &&
            memcmp(nsysp_sql_modules[i].name, name, len) == 0)
            return (long)i;
    return -1;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* Whether [p, end) starts with word (ASCII case-insensitive) followed by a
 * blank; *after is past the blanks. */
static bool keyword(const char *p, const char *end, const char *word, const char **after)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) <= n || strncasecmp(p, word, n) != 0 ||
        (p[n] != ' ' && p[n] != '\t'))
        return false;
    *after = skip_blanks(p + n, end);
    return true;
}

/* For the line [p, end): when it is "INCLUDE PERFETTO MODULE name;", the
 * name's span; else false. */
static bool include_line(const char *p, const char *end, const char **name, size_t *len)
{
    p = skip_blanks(p, end);
    if (!keyword(p, end, "INCLUDE", &p) || !keyword(p, end, "PERFETTO", &p) ||
        !keyword(p, end, "MODULE", &p))
        return false;
    const char *q = p;
    while (q < end && *q != ';' && *q != ' ' && *q != '\t')
        q++;
    *name = p;
    *len = (size_t)(q - p);
    return *len > 0;
}

static bool own_module(const char *name, size_t len)
{
    return len > strlen(PACKAGE_PREFIX) && strncmp(name, PACKAGE_PREFIX, strlen(PACKAGE_PREFIX)) == 0;
}

static int emit_module(walk *w, size_t i);

/* Emits the package modules a (possibly wildcard: "nsys.stats.*") include
 * names. */
static int emit_included(walk *w, const char *name, size_t len, const char *from)
{
    if (len >= 2 && name[len - 1] == '*' && name[len - 2] == '.') {
        for (size_t j = 0; j < nsysp_sql_n_modules; j++)
            if (strncmp(nsysp_sql_modules[j].name, name, len - 1) == 0 && emit_module(w, j))
                return 2;
        return 0;
    }
    long j = find_module(name, len);
    if (j < 0) {
        snprintf(w->err, w->err_size, "module %s includes %.*s, which the package lacks", from,
                 (int)len, name);
        return 2;
    }
    return emit_module(w, (size_t)j);
}

static int emit_module(walk *w, size_t i)
{
    const nsysp_sql_module *m = &nsysp_sql_modules[i];
    if (w->state[i] == DONE)
        return 0;
    if (w->state[i] == VISITING) {
        snprintf(w->err, w->err_size, "module %s includes itself (an include cycle)", m->name);
        return 2;
    }
    w->state[i] = VISITING;
    const char *text = m->text, *end = m->text + m->size;
    /* Dependencies first. */
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        const char *name;
        size_t len;
        if (include_line(p, line_end, &name, &len) && own_module(name, len) &&
            emit_included(w, name, len, m->name))
            return 2;
        p = nl ? nl + 1 : end;
    }
    fprintf(w->out, "-- ---- module %s ----\n", m->name);
    for (const char *p = text; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        const char *name, *after;
        size_t len;
        const char *s = skip_blanks(p, line_end);
        if (include_line(p, line_end, &name, &len) && own_module(name, len)) {
            fprintf(w->out, "-- (%.*s: above)\n", (int)len, name);
        } else if (keyword(s, line_end, "CREATE", &after) && keyword(after, line_end, "PERFETTO", &after)) {
            fwrite(p, 1, (size_t)(s - p), w->out);
            fputs("CREATE OR REPLACE PERFETTO ", w->out);
            fwrite(after, 1, (size_t)(line_end - after), w->out);
            fputc('\n', w->out);
        } else {
            fwrite(p, 1, (size_t)(line_end - p), w->out);
            fputc('\n', w->out);
        }
        p = nl ? nl + 1 : end;
    }
    fputc('\n', w->out);
    w->state[i] = DONE;
    return 0;
}

int sql_script(const char *const *names, size_t n, FILE *out, char *err, size_t err_size)
{
    walk w = {calloc(nsysp_sql_n_modules + 1, 1), out, err, err_size};
    if (!w.state) {
        snprintf(err, err_size, "out of memory");
        return 1;
    }
    long *picked = calloc(n + 1, sizeof *picked);
    int rc = picked ? 0 : 1;
    /* Every name checked before anything is printed. */
    for (size_t k = 0; k < n && rc == 0; k++) {
        const char *name = names[k];
        size_t len = strlen(name);
        long i = find_module(name, len);
        if (i < 0 && !own_module(name, len)) {
            char full[256];
            snprintf(full, sizeof full, PACKAGE_PREFIX "%s", name);
            i = find_module(full, strlen(full));
        }
        if (i < 0) {
            snprintf(err, err_size, "no module %s (nsys-perfetto sql --list names them)", name);
            rc = 2;
        }
        picked[k] = i;
    }
    if (rc == 0) {
        fprintf(out, "-- The nsys PerfettoSQL package of nsys-perfetto %s, as one script for the\n"
                     "-- Perfetto UI's query page (docs/sql.md). Modules:",
                nsysp_version());
        /* The list of what follows, in order, is only known after the walk:
         * name what was asked for instead. */
        if (n == 0)
            fputs(" all", out);
        for (size_t k = 0; k < n; k++)
            fprintf(out, " %s", nsysp_sql_modules[picked[k]].name);
        fputs(" (and what they include).\n\n", out);
        for (size_t k = 0; k < (n ? n : nsysp_sql_n_modules) && rc == 0; k++)
            rc = emit_module(&w, n ? (size_t)picked[k] : k);
    }
    free(picked);
    free(w.state);
    return rc;
}
