/* Strings in a Perfetto trace must be valid UTF-8; nsys reports sometimes
 * hold other bytes (truncated names, Latin-1 text). */
#ifndef NSYSP_COMMON_UTF8_H
#define NSYSP_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Longest string written to a trace; longer ones are cut (at a character
 * boundary) and end with "...". Keeps one pathological name from bloating
 * every packet that interns it. */
#define UTF8_MAX_STRING (64 * 1024)

bool utf8_is_valid(const char *s, size_t n);

/* Length of the valid UTF-8 character at s (at most n bytes), or 0. Rejects
 * overlong forms, surrogates and code points past U+10FFFF. */
size_t utf8_char_length(const char *s, size_t n);

/* The longest prefix of s (n bytes of valid UTF-8) at most max bytes long
 * that ends at a character boundary. */
size_t utf8_cut(const char *s, size_t n, size_t max);

/* Returns s when it is valid UTF-8 no longer than UTF8_MAX_STRING; otherwise
 * writes a repaired copy (invalid bytes become U+FFFD) into scratch and
 * returns that. The result is NUL-terminated either way. */
const char *utf8_sanitize(const char *s, size_t n, buf *scratch);

#endif
