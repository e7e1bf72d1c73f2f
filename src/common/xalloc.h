/* Allocation that never returns NULL: out of memory prints one line and
 * exits, because every caller would otherwise have to unwind a half-written
 * trace for a condition it cannot fix. */
#ifndef NSYSP_COMMON_XALLOC_H
#define NSYSP_COMMON_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array of elem_size elements so that it holds at least need. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem_size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
