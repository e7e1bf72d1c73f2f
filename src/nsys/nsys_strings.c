#include "nsys_strings.h"

#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_perfetto.h"
#include "common/utf8.h"
#include "common/xalloc.h"

typedef struct string_row {
    int64_t id;
    const char *value;
} string_row;

static const nsys_column STRING_COLUMNS[] = {
    NSYS_COL_REQ(string_row, id, "id", NSYS_INT),
    NSYS_COL_REQ(string_row, value, "value", NSYS_TEXT),
};
static const nsys_table STRING_TABLE = {"StringIds", STRING_COLUMNS, 2, NSYS_UNORDERED};

typedef struct id_offset {
    int64_t id;
    size_t offset;
} id_offset;

int nsys_strings_load(nsys_db *db, nsys_strings *s, buf *err)
{
    memset(s, 0, sizeof *s);
    hmap_init(&s->sparse);
    if (!nsys_db_has_table(db, "StringIds"))
        return NSYSP_OK;
    nsys_cursor *c;
    int status = nsys_cursor_open(db, &STRING_TABLE, &c, err);
    if (status != NSYSP_OK)
        return status;

    /* Strings go into one growing buffer; ids are mapped once it stops
     * moving and the id range is known. */
    buf text = {0}, scratch = {0};
    id_offset *ids = NULL;
    size_t n_ids = 0, cap = 0;
    int64_t max_id = -1;
    string_row row;
    int rc;
    while ((rc = nsys_cursor_next(c, &row, err, &status)) == 1) {
        if (row.id < 0 || !row.value)
            continue;
        const char *v = utf8_sanitize(row.value, strlen(row.value), &scratch);
        ids = xgrow(ids, &cap, n_ids + 1, sizeof *ids);
        ids[n_ids++] = (id_offset){row.id, text.len};
        buf_append(&text, v, strlen(v) + 1);
        if (row.id > max_id)
            max_id = row.id;
    }
    nsys_cursor_close(c);
    buf_free(&scratch);
    if (rc < 0) {
        free(ids);
        buf_free(&text);
        return status;
    }
    s->storage = (char *)text.data;
    s->is_sparse = max_id >= 0 && (uint64_t)max_id > 4 * (uint64_t)n_ids + 4096;
    if (s->is_sparse) {
        for (size_t i = 0; i < n_ids; i++)
            *hmap_upsert(&s->sparse, &ids[i].id, sizeof ids[i].id, NULL) = ids[i].offset + 1;
    } else {
        s->n = (size_t)(max_id + 1);
        s->by_id = xcalloc(s->n ? s->n : 1, sizeof *s->by_id);
        for (size_t i = 0; i < n_ids; i++)
            s->by_id[ids[i].id] = s->storage + ids[i].offset;
    }
    s->count = n_ids;
    free(ids);
    return NSYSP_OK;
}

void nsys_strings_free(nsys_strings *s)
{
    free(s->by_id);
    free(s->storage);
    hmap_free(&s->sparse);
    memset(s, 0, sizeof *s);
}
