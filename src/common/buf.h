/* A growable byte buffer. Allocation failure is fatal (see xalloc.h): the
 * converter has no useful way to continue without memory. */
#ifndef NSYSP_COMMON_BUF_H
#define NSYSP_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} buf;

void buf_reserve(buf *b, size_t extra);
void buf_append(buf *b, const void *data, size_t n);
void buf_append_byte(buf *b, uint8_t byte);
void buf_append_str(buf *b, const char *s);
/* printf-style append; the buffer stays NUL-terminated after it. */
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* NUL-terminates without counting the NUL in len; returns data. */
const char *buf_cstr(buf *b);
void buf_clear(buf *b);
void buf_free(buf *b);

#endif
