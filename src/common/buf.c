#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void buf_reserve(buf *b, size_t extra)
{
    b->data = xgrow(b->data, &b->cap, b->len + extra + 1, 1);
}

void buf_append(buf *b, const void *data, size_t n)
{
    buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, data, n);
    b->len += n;
}

void buf_append_byte(buf *b, uint8_t byte)
{
    buf_reserve(b, 1);
    b->data[b->len++] = byte;
}

void buf_append_str(buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *buf_cstr(buf *b)
{
    buf_reserve(b, 0);
    b->data[b->len] = '\0';
    return (const char *)b->data;
}

void buf_clear(buf *b)
{
    b->len = 0;
}

void buf_free(buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
