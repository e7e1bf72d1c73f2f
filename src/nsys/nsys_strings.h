/* StringIds: the report's string table (kernel, API and thread names,
 * registered NVTX strings). Loaded once; every string is sanitized to valid
 * UTF-8 on load so the rest of the converter can use them as they are. */
#ifndef NSYSP_NSYS_STRINGS_H
#define NSYSP_NSYS_STRINGS_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_db.h"

typedef struct nsys_strings {
    char **by_id;        /* index = StringIds.id; NULL for gaps */
    size_t n;            /* ids 0..n-1 */
    char *storage;       /* all strings, NUL-separated */
} nsys_strings;

int nsys_strings_load(nsys_db *db, nsys_strings *s, buf *err);
void nsys_strings_free(nsys_strings *s);

/* The string of id, or NULL when the report has none. */
static inline const char *nsys_string(const nsys_strings *s, int64_t id)
{
    return id >= 0 && (uint64_t)id < s->n ? s->by_id[id] : NULL;
}

#endif
