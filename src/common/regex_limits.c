#include "regex_limits.h"

#include <stdio.h>
#include <string.h>

/* Sizes stop just past the limit: beyond it only "too large" matters, and
 * products of saturated sizes and counts cannot overflow. */
enum { TOO_LARGE = REGEX_MAX_ATOMS + 1, UNBOUNDED = -1 };

static size_t saturated(size_t n)
{
    return n > TOO_LARGE ? TOO_LARGE : n;
}

/* A parenthesized group being read (or the whole pattern): its atoms once
 * written out, and those of its last piece, which a repeat multiplies. */
typedef struct group {
    size_t atoms;
    size_t last;
} group;

static void add_piece(group *g, size_t atoms)
{
    g->atoms = saturated(g->atoms + atoms);
    g->last = atoms;
}

/* The last piece repeated: regcomp writes it out max times, or min times
 * and once more as a loop when unbounded (a+ is aa*). */
static void repeat(group *g, long min, long max)
{
    size_t copies = (size_t)(max == UNBOUNDED ? min + 1 : max);
    if (copies <= 1)
        return; /* a?, a*, a{0}: at most the atoms already counted */
    g->atoms = saturated(g->atoms + g->last * (copies - 1));
    g->last = saturated(g->last * copies);
}

/* The digits at *p as a number (capped, so it cannot overflow), or -1 when
 * there are none. */
static long read_count(const char **p)
{
    long n = -1;
    for (; **p >= '0' && **p <= '9'; (*p)++)
        n = n < 0 ? **p - '0' : n < 1000000 ? n * 10 + (**p - '0') : n;
    return n;
}

/* The '}' ending the interval {n}, {n,}, {n,m} or {,m} (glibc's {0,m}) at
 * p, with its counts; NULL when p starts none (regcomp judges it then). */
static const char *interval(const char *p, long *min, long *max)
{
    const char *q = p + 1;
    *min = *max = read_count(&q);
    if (*q == ',') {
        q++;
        *max = read_count(&q); /* none: unbounded */
        *min = *min < 0 ? 0 : *min;
    }
    return *q == '}' && *min >= 0 ? q : NULL;
}

/* The ']' closing the bracket expression opened at p, or the pattern's last
 * character when none does (regcomp refuses it then). Inside one a
 * backslash is an ordinary character: [\1] is no back-reference. */
static const char *bracket_end(const char *p)
{
    const char *q = p + 1;
    q += *q == '^';
    q += *q == ']'; /* first, ] is an ordinary character */
    for (; *q && *q != ']'; q++) {
        if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            const char closing[] = {q[1], ']', '\0'}; /* [:alpha:], [=a=], [.a.] */
            const char *close = strstr(q + 2, closing);
            if (!close)
                return q + strlen(q) - 1;
            q = close + 1;
        }
    }
    return *q ? q : q - 1;
}

/* Whether pattern keeps to the limits; -1 with the reason in why if not. */
static int check(const char *pattern, char *why, size_t size)
{
    if (strlen(pattern) > REGEX_MAX_BYTES) {
        snprintf(why, size, "longer than %d bytes", REGEX_MAX_BYTES);
        return -1;
    }
    group groups[REGEX_MAX_BYTES + 1] = {{0, 0}}; /* the pattern, then one per open '(' */
    size_t depth = 0;
    for (const char *p = pattern; *p; p++) {
        group *g = &groups[depth];
        long min, max;
        const char *end;
        switch (*p) {
        case '\\':
            if (p[1] >= '1' && p[1] <= '9') {
                snprintf(why, size, "back-references (\\%c) are not supported (POSIX extended "
                                    "regular expressions have none)", p[1]);
                return -1;
            }
            p += p[1] != '\0';
            add_piece(g, 1);
            break;
        case '[':
            p = bracket_end(p);
            add_piece(g, 1);
            break;
        case '(':
            groups[++depth] = (group){0, 0};
            break;
        case ')':
            if (depth)
                add_piece(&groups[--depth], g->atoms);
            else
                add_piece(g, 1);
            break;
        case '|':
            g->last = 0; /* nothing before it to repeat */
            break;
        case '*':
        case '+':
        case '?':
            repeat(g, *p == '+', *p == '?' ? 1 : UNBOUNDED);
            break;
        case '{':
            end = interval(p, &min, &max);
            if (!end) {
                add_piece(g, 1);
                break;
            }
            if (min > REGEX_MAX_COUNT || max > REGEX_MAX_COUNT) {
                snprintf(why, size, "repeat counts above %d are not supported", REGEX_MAX_COUNT);
                return -1;
            }
            repeat(g, min, max);
            p = end;
            break;
        default:
            add_piece(g, 1);
        }
        if (groups[depth].atoms > REGEX_MAX_ATOMS) {
            snprintf(why, size, "its repeats make it too large (over %d characters once written "
                                "out)", REGEX_MAX_ATOMS);
            return -1;
        }
    }
    return 0;
}

int regex_compile(regex_t *re, const char *pattern, char *why, size_t size)
{
    if (check(pattern, why, size) < 0)
        return -1;
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, re, why, size);
        return -1;
    }
    return 0;
}
