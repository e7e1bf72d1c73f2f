/* StringIds: the report's string table (kernel, API and thread names,
 * registered NVTX strings). Loaded once; every string is sanitized to valid
 * UTF-8 on load so the rest of the converter can use them as they are. */
#ifndef NSYSP_NSYS_STRINGS_H
#define NSYSP_NSYS_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hmap.h"
#include "nsys_db.h"

/* Ids are dense in most exports, and then index an array; some (2026
 * exports seen with 126 strings under ids up to 3.4 million) are sparse,
 * and then go through a hash map. */
typedef struct nsys_strings {
    char **by_id;        /* dense: index = StringIds.id; NULL for gaps */
    size_t n;            /* dense ids 0..n-1 */
    hmap sparse;         /* sparse: id -> offset into storage + 1 */
    bool is_sparse;
    size_t count;        /* strings loaded */
    char *storage;       /* all strings, NUL-separated */
} nsys_strings;

int nsys_strings_load(nsys_db *db, nsys_strings *s, buf *err);
void nsys_strings_free(nsys_strings *s);

/* The string of id, or NULL when the report has none. */
static inline const char *nsys_string(const nsys_strings *s, int64_t id)
{
    if (!s->is_sparse)
        return id >= 0 && (uint64_t)id < s->n ? s->by_id[id] : NULL;
    uint64_t *offset = hmap_find(&s->sparse, &id, sizeof id);
    return offset ? s->storage + *offset - 1 : NULL;
}

#endif
