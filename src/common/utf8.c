#include "utf8.h"

#include <stdint.h>
#include <string.h>

static size_t sequence_length(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

bool utf8_is_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] == 0)
            return false; /* embedded NUL would cut the string in C */
        size_t len = sequence_length(p + i, n - i);
        if (!len)
            return false;
        i += len;
    }
    return true;
}

const char *utf8_sanitize(const char *s, size_t n, buf *scratch)
{
    if (n <= UTF8_MAX_STRING && utf8_is_valid(s, n) && s[n] == '\0')
        return s;
    static const char replacement[] = "\xEF\xBF\xBD";
    const unsigned char *p = (const unsigned char *)s;
    buf_clear(scratch);
    for (size_t i = 0; i < n;) {
        if (scratch->len >= UTF8_MAX_STRING) {
            buf_append_str(scratch, "...");
            break;
        }
        size_t len = p[i] ? sequence_length(p + i, n - i) : 0;
        if (len) {
            buf_append(scratch, p + i, len);
            i += len;
        } else {
            buf_append(scratch, replacement, 3);
            i++;
        }
    }
    return buf_cstr(scratch);
}

size_t utf8_char_length(const char *s, size_t n)
{
    return n ? sequence_length((const unsigned char *)s, n) : 0;
}

size_t utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--; /* s[max] continues the character before it */
    return max;
}
