#include "json.h"

#include <string.h>

#include "utf8.h"

/* Whether byte c can be copied as it is: printable ASCII but the quote and
 * the backslash, and '<' and '>' unless html_safe. (DEL and every byte of
 * a multi-byte character take the slow path.) */
static inline bool plain(unsigned char c, bool html_safe)
{
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
           (!html_safe || (c != '<' && c != '>'));
}

void json_append_string(buf *out, const char *s, size_t n, bool html_safe)
{
    static const char HEX[] = "0123456789abcdef";
    buf_reserve(out, n + 2);
    buf_append_byte(out, '"');
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && plain((unsigned char)s[run], html_safe))
            run++;
        if (run > i) {
            buf_reserve(out, run - i + 1);
            memcpy(out->data + out->len, s + i, run - i);
            out->len += run - i;
            i = run;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : utf8_char_length(s + i, n - i);
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            buf_append(out, esc, 2);
        } else if (c < 0x80) { /* a control character, or one html_safe escapes */
            char esc[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
            buf_append(out, esc, 6);
        } else if (len == 0) {
            buf_append(out, "\\ufffd", 6); /* not UTF-8: strict JSON readers refuse it */
        } else {
            buf_append(out, s + i, len);
        }
        i += len ? len : 1;
    }
    buf_append_byte(out, '"');
}

void json_string(FILE *out, const char *s)
{
    buf b = {0};
    json_append_string(&b, s, strlen(s), true);
    fwrite(b.data, 1, b.len, out);
    buf_free(&b);
}
