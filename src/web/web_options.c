#include "web_options.h"

#include <string.h>
#include <stdio.h>

#include "tool/options.h"

static char *field(web_options *o, const char *key)
{
    static const struct {
        const char *key;
        size_t offset;
    } FIELDS[] = {
        {"kernel_names", offsetof(web_options, kernel_names)},
        {"min_stream_activity", offsetof(web_options, min_stream_activity)},
        {"nvtx_domains", offsetof(web_options, nvtx_domains)},
        {"nvtx_filter", offsetof(web_options, nvtx_filter)},
        {"time_range", offsetof(web_options, time_range)},
        {"sources", offsetof(web_options, sources)},
    };
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        if (strcmp(key, FIELDS[i].key) == 0)
            return (char *)o + FIELDS[i].offset;
    return NULL;
}

int web_options_append(web_options *o, const char *key, const char *data, size_t size)
{
    char *value = field(o, key);
    if (!value)
        return -1;
    size_t used = strlen(value);
    if (memchr(data, '\0', size) || used + size >= WEB_OPTION_MAX)
        return -1;
    memcpy(value + used, data, size);
    value[used + size] = '\0';
    return 0;
}

/* Trims spaces in place: form fields are typed by hand. */
static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
    return s;
}

/* Splits "a, b,c" in place into names[]; returns how many. */
static size_t split_list(char *list, const char **names, size_t max)
{
    size_t n = 0;
    for (char *p = list; p && *p && n < max;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *name = trim(p);
        if (*name)
            names[n++] = name;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

int web_options_parse(const web_options *o, web_parsed_options *p, char *err, size_t err_size)
{
    p->text = *o;
    web_options *t = &p->text;
    nsysp_options *opt = &p->opt;
    nsysp_options_init(opt);
    char *kernel_names = trim(t->kernel_names);
    if (*kernel_names && parse_kernel_names(kernel_names, &opt->kernel_names) < 0) {
        snprintf(err, err_size, "kernel names: expected short, demangled or mangled");
        return -1;
    }
    char *pct = trim(t->min_stream_activity);
    if (*pct && parse_percentage(pct, &opt->min_stream_activity) < 0) {
        snprintf(err, err_size, "minimum stream activity: expected a percentage 0-100");
        return -1;
    }
    opt->nvtx_domains = p->domains;
    opt->n_nvtx_domains = split_list(t->nvtx_domains, p->domains, WEB_LIST_MAX);
    char *filter = trim(t->nvtx_filter), why[256];
    if (*filter && parse_regex(filter, why, sizeof why) < 0) {
        snprintf(err, err_size, "NVTX filter: %s", why);
        return -1;
    }
    opt->nvtx_filter = *filter ? filter : NULL;
    char *range = trim(t->time_range);
    if (*range && parse_time_range(range, opt) < 0) {
        snprintf(err, err_size, "time range: expected START:END with units ns, us, ms or s "
                                "(e.g. 1.5s:2s)");
        return -1;
    }
    char sources[WEB_OPTION_MAX];
    size_t n = split_list(t->sources, p->sources, WEB_LIST_MAX);
    for (size_t i = 0; i < n; i++) { /* checked against the library's names */
        snprintf(sources, sizeof sources, "%s", p->sources[i]);
        const char *bad = NULL, *one[1];
        if (parse_sources(sources, one, 1, &bad) != 1) {
            snprintf(err, err_size, "sources: unknown source '%.64s' (known: %s)",
                     p->sources[i], source_names());
            return -1;
        }
    }
    opt->sources = n ? p->sources : NULL;
    opt->n_sources = n;
    return 0;
}
