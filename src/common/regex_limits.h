/* The regular expressions users give (--nvtx-filter, summary --match, the
 * web form's filter), kept to a bounded cost before glibc compiles them.
 * glibc accepts more than POSIX extended regular expressions, at costs
 * with no bound:
 * - back-references (\1 to \9, a GNU extension) make regexec exponential:
 *   ^(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1$ takes over 20 s on one 68-byte name;
 * - regcomp writes every counted repeat out, nested ones multiplied:
 *   (a{1000}){1000} becomes a million nodes (200 MB), and regexec's time
 *   grows with the nodes: (.{0,64}){64}x takes 3 s on a 100-byte name.
 * Within these limits regcomp takes milliseconds, and regexec's time grows
 * with the name's length, not exponentially: the worst patterns allowed
 * took under a second on a 1000-byte name, then milliseconds on the next. */
#ifndef NSYSP_COMMON_REGEX_LIMITS_H
#define NSYSP_COMMON_REGEX_LIMITS_H

#include <regex.h>
#include <stddef.h>

enum {
    REGEX_MAX_BYTES = 1024,  /* the pattern's length */
    REGEX_MAX_COUNT = 255,   /* a {n,m} count: the most POSIX promises (_POSIX_RE_DUP_MAX) */
    REGEX_MAX_ATOMS = 1024,  /* characters and bracket expressions once every
                                repeat is written out, as regcomp does */
};

/* regcomp(REG_EXTENDED | REG_NOSUB) of a pattern within the limits.
 * Returns 0, or -1 with a one-line reason in why (nothing to free). */
int regex_compile(regex_t *re, const char *pattern, char *why, size_t size);

#endif
