#include "nsys_strings.h"

#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_perfetto.h"
#include "../common/utf8.h"
#include "../common/xalloc.h"

typedef struct string_row {
    int64_t id;
    const char *value;
} string_row;

static const nsys_column STRING_COLUMNS[] = {
    NSYS_COL_REQ(string_row, id, "id", NSYS_INT),
    NSYS_COL_REQ(string_row, value, "value", NSYS_TEXT),
};
static const nsys_table STRING_TABLE = {"StringIds", STRING_COLUMNS, 2, NULL};

/* Ids are dense in every export seen; a sparse table (ids far beyond the
 * row count) would waste memory in the array, so cap it. */
enum { MAX_ID_SLACK = 1 << 20 };

int nsys_strings_load(nsys_db *db, nsys_strings *s, buf *err)
{
    memset(s, 0, sizeof *s);
    if (!nsys_db_has_table(db, "StringIds"))
        return NSYSP_OK;
    nsys_cursor *c;
    int status = nsys_cursor_open(db, &STRING_TABLE, &c, err);
    if (status != NSYSP_OK)
        return status;

    /* Strings go into one growing buffer; ids map to offsets first and to
     * pointers once the buffer stops moving. */
    buf text = {0}, scratch = {0};
    size_t *offset = NULL, cap = 0, rows = 0;
    string_row row;
    int rc;
    while ((rc = nsys_cursor_next(c, &row, err, &status)) == 1) {
        rows++;
        if (row.id < 0 || row.id == NSYS_NULL || !row.value ||
            (uint64_t)row.id > rows * 4 + MAX_ID_SLACK)
            continue;
        size_t id = (size_t)row.id;
        if (id >= s->n) {
            offset = xgrow(offset, &cap, id + 1, sizeof *offset);
            for (size_t i = s->n; i <= id; i++)
                offset[i] = SIZE_MAX;
            s->n = id + 1;
        }
        const char *v = utf8_sanitize(row.value, strlen(row.value), &scratch);
        offset[id] = text.len;
        buf_append(&text, v, strlen(v) + 1);
    }
    nsys_cursor_close(c);
    buf_free(&scratch);
    if (rc < 0) {
        free(offset);
        buf_free(&text);
        return status;
    }
    s->storage = (char *)text.data;
    s->by_id = xcalloc(s->n ? s->n : 1, sizeof *s->by_id);
    for (size_t i = 0; i < s->n; i++)
        s->by_id[i] = offset[i] == SIZE_MAX ? NULL : s->storage + offset[i];
    free(offset);
    return NSYSP_OK;
}

void nsys_strings_free(nsys_strings *s)
{
    free(s->by_id);
    free(s->storage);
    memset(s, 0, sizeof *s);
}
