#include "text_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "common/utf8.h"

/* The next character of *s as shown into out (1 to 4 bytes of UTF-8);
 * returns its length and moves *s past it. */
static size_t next_shown(const char **s, char out[4])
{
    const unsigned char *p = (const unsigned char *)*s;
    if (*p < 0x20 || *p == 0x7f) { /* its control picture, U+2400 + c (DEL: U+2421) */
        out[0] = (char)0xe2;
        out[1] = (char)0x90;
        out[2] = (char)(*p == 0x7f ? 0xa1 : 0x80 + *p);
        *s += 1;
        return 3;
    }
    if (*p < 0x80) {
        out[0] = (char)*p;
        *s += 1;
        return 1;
    }
    size_t len = utf8_char_length(*s, strnlen(*s, 4));
    if (len == 0 || (len == 2 && p[0] == 0xc2 && p[1] < 0xa0)) { /* not UTF-8, or C1 */
        memcpy(out, "\xef\xbf\xbd", 3);
        *s += len ? len : 1;
        return 3;
    }
    memcpy(out, *s, len);
    *s += len;
    return len;
}

void text_visible(const char *s, char *out, size_t size)
{
    if (size == 0)
        return;
    size_t n = 0;
    char c[4];
    for (size_t len; *s && (len = next_shown(&s, c)) < size - n;) {
        memcpy(out + n, c, len);
        n += len;
    }
    out[n] = '\0';
}

size_t text_width(const char *s)
{
    size_t n = 0;
    char c[4];
    while (*s) {
        next_shown(&s, c);
        n++;
    }
    return n;
}

void text_cell(FILE *to, const char *s, int width)
{
    int n = 0;
    char c[4];
    for (; *s && n < width; n++)
        fwrite(c, 1, next_shown(&s, c), to);
    fprintf(to, "%*s", width - n, "");
}

void text_xml(FILE *to, const char *s, size_t max)
{
    size_t shown = max > 3 && text_width(s) > max ? max - 3 : (size_t)-1;
    char c[4];
    for (size_t n = 0; *s && n < shown; n++) {
        size_t len = next_shown(&s, c);
        if (len == 3 && memcmp(c, "\xef\xbf", 2) == 0 && ((unsigned char)c[2] & 0xfe) == 0xbe)
            fputs("\xef\xbf\xbd", to); /* U+FFFE, U+FFFF: not XML characters */
        else if (len > 1)
            fwrite(c, 1, len, to);
        else if (c[0] == '&')
            fputs("&amp;", to);
        else if (c[0] == '<')
            fputs("&lt;", to);
        else if (c[0] == '>')
            fputs("&gt;", to);
        else if (c[0] == '"')
            fputs("&quot;", to);
        else
            fputc(c[0], to);
    }
    if (*s)
        fputs("...", to);
}

void text_md(FILE *to, const char *s)
{
    char c[4];
    while (*s) {
        size_t len = next_shown(&s, c);
        if (len == 1 && strchr("|\\`*_<>[]&", c[0]))
            fputc('\\', to);
        fwrite(c, 1, len, to);
    }
}

void text_csv(FILE *to, const char *s)
{
    bool quoted = strpbrk(s, ",\"") != NULL;
    if (quoted)
        fputc('"', to);
    char c[4];
    while (*s) {
        size_t len = next_shown(&s, c);
        if (len == 1 && c[0] == '"')
            fputc('"', to);
        fwrite(c, 1, len, to);
    }
    if (quoted)
        fputc('"', to);
}

void text_printf(FILE *to, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!text)
        return;
    char c[4];
    for (const char *s = text; *s;) {
        if (*s == '\n') {
            fputc(*s++, to);
            continue;
        }
        fwrite(c, 1, next_shown(&s, c), to);
    }
    free(text);
}

int text_close_stdout(const char *command, int status)
{
    /* Pending bytes are flushed first: closing a closed descriptor (EBADF)
     * then loses nothing, as in gnulib's close_stdout. */
    errno = 0;
    int flushed = fflush(stdout);
    int why = flushed != 0 ? errno : 0;
    bool failed = flushed != 0 || ferror(stdout);
    if (fclose(stdout) != 0 && errno != EBADF && !failed) {
        failed = true;
        why = errno;
    }
    if (!failed || status != NSYSP_OK) /* a failed command has said why */
        return status;
    fprintf(stderr, "nsys-perfetto %s: standard output: cannot write%s%s\n", command,
            why ? ": " : "", why ? strerror(why) : "");
    return NSYSP_ERR_OUTPUT;
}
