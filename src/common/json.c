#include "json.h"

#include <string.h>

#include "utf8.h"

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const char *p = s; *p;) {
        unsigned char c = (unsigned char)*p;
        size_t len = c < 0x80 ? 1 : utf8_char_length(p, strnlen(p, 4));
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == 0x7f)
            fprintf(out, "\\u%04x", c);
        else if (len == 0)
            fputs("\\ufffd", out); /* not UTF-8: strict JSON readers refuse it */
        else
            fwrite(p, 1, len, out);
        p += len ? len : 1;
    }
    fputc('"', out);
}
