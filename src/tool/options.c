#include "options.h"

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/regex_limits.h"

const char *source_names(void)
{
    static char names[1024];
    if (names[0])
        return names;
    size_t used = 0;
    const char *name;
    for (size_t i = 0; (name = nsysp_source_name(i)) != NULL; i++) {
        bool seen = false; /* several tables go by one name */
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(nsysp_source_name(j), name) == 0;
        if (seen)
            continue;
        int n = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
        if (n < 0 || (size_t)n >= sizeof names - used)
            break;
        used += (size_t)n;
    }
    return names;
}

int parse_kernel_names(const char *text, nsysp_kernel_names *kind)
{
    static const char *const NAMES[] = {"short", "demangled", "mangled"};
    static const nsysp_kernel_names KINDS[] = {NSYSP_KERNEL_NAMES_SHORT,
                                               NSYSP_KERNEL_NAMES_DEMANGLED,
                                               NSYSP_KERNEL_NAMES_MANGLED};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(text, NAMES[i]) == 0) {
            *kind = KINDS[i];
            return 0;
        }
    return -1;
}

int parse_percentage(const char *text, double *pct)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0 && v <= 100))
        return -1;
    *pct = v;
    return 0;
}

int parse_duration(const char *text, double *seconds)
{
    if (text[0] < '0' || text[0] > '9')
        return -1;
    char *unit;
    double n = strtod(text, &unit);
    double scale = strcmp(unit, "") == 0 || strcmp(unit, "s") == 0 ? 1
                   : strcmp(unit, "m") == 0                         ? 60
                   : strcmp(unit, "h") == 0                         ? 3600
                                                                    : -1;
    if (scale < 0 || !(n * scale < 1e9)) /* also refuses inf and nan */
        return -1;
    *seconds = n * scale;
    return 0;
}

bool is_http_url(const char *text)
{
    return strncasecmp(text, "https://", 8) == 0 || strncasecmp(text, "http://", 7) == 0;
}

/* "1.5ms" -> 1500000 (ns); a bare number is ns. Returns 0 or -1. */
static int parse_time(const char *text, int64_t *ns)
{
    char *end;
    double v = strtod(text, &end);
    static const struct {
        const char *unit;
        double scale;
    } UNITS[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; end != text && i < sizeof UNITS / sizeof UNITS[0]; i++) {
        if (strcmp(end, UNITS[i].unit) == 0 && v * UNITS[i].scale < 9.2e18 &&
            v * UNITS[i].scale > -9.2e18) {
            *ns = (int64_t)(v * UNITS[i].scale + (v < 0 ? -0.5 : 0.5));
            return 0;
        }
    }
    return -1;
}

int parse_time_range(const char *text, nsysp_options *opt)
{
    const char *colon = strchr(text, ':');
    char start[64];
    if (!colon || (size_t)(colon - text) >= sizeof start)
        return -1;
    memcpy(start, text, (size_t)(colon - text));
    start[colon - text] = '\0';
    if (parse_time(start, &opt->time_start) < 0 || parse_time(colon + 1, &opt->time_end) < 0 ||
        opt->time_end < opt->time_start)
        return -1;
    opt->has_time_range = 1;
    return 0;
}

int parse_sources(char *list, const char **names, size_t max, const char **bad)
{
    size_t n = 0;
    char *save = NULL; /* strtok_r: the web server parses on several threads */
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        bool known = false;
        const char *s;
        for (size_t i = 0; (s = nsysp_source_name(i)) != NULL && !known; i++)
            known = strcmp(s, name) == 0;
        if (!known || n == max) {
            *bad = name;
            return -1;
        }
        names[n++] = name;
    }
    return (int)n;
}

int parse_regex(const char *text, char *why, size_t size)
{
    regex_t re;
    if (regex_compile(&re, text, why, size) < 0)
        return -1;
    regfree(&re);
    return 0;
}

int parse_size(const char *text, unsigned long long *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno || text[0] == '-')
        return -1;
    static const char UNITS[] = "KMGT";
    const char *unit = *end ? strchr(UNITS, *end) : NULL;
    if (*end && (!unit || end[1]))
        return -1;
    for (int shift = unit ? (int)(unit - UNITS + 1) * 10 : 0; shift > 0; shift -= 10) {
        if (v > (~0ull >> 10))
            return -1;
        v <<= 10;
    }
    *bytes = v;
    return 0;
}
