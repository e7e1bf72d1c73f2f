#include "nsys_enums.h"

#include <stdlib.h>
#include <string.h>

#include "nsys_cursor.h"
#include "nsys_perfetto.h"
#include "common/utf8.h"
#include "common/xalloc.h"

/* The tables, newest spelling first (2022.4-2023.1 wrote "KRENEL"). */
static const char *const TABLES[NSYS_ENUM_KINDS][2] = {
    [NSYS_ENUM_MEMCPY_OPER] = {"ENUM_CUDA_MEMCPY_OPER", NULL},
    [NSYS_ENUM_MEM_KIND] = {"ENUM_CUDA_MEM_KIND", NULL},
    [NSYS_ENUM_SYNC_TYPE] = {"ENUM_CUPTI_SYNC_TYPE", NULL},
    [NSYS_ENUM_LAUNCH_TYPE] = {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", "ENUM_CUDA_KRENEL_LAUNCH_TYPE"},
};

/* nsys's numbering, for exports without ENUM tables (schema < 3.0). */
static const char *const MEMCPY_OPER[] = {
    "Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host",
    "Array-to-Array", "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host",
    "Peer-to-Peer", "Unified Host-to-Device", "Unified Device-to-Host",
    "Unified Device-to-Device",
};
static const char *const MEM_KIND[] = {
    "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static",
    "Unknown",
};
static const char *const SYNC_TYPE[] = {
    "Unknown", "Event sync", "Stream wait sync", "Stream sync", "Context sync",
};
static const char *const LAUNCH_TYPE[] = {
    "Unknown", "Regular", "Coop Single Device", "Coop Multi Device",
};
static const struct {
    const char *const *labels;
    size_t n;
} BUILTIN[NSYS_ENUM_KINDS] = {
    [NSYS_ENUM_MEMCPY_OPER] = {MEMCPY_OPER, sizeof MEMCPY_OPER / sizeof *MEMCPY_OPER},
    [NSYS_ENUM_MEM_KIND] = {MEM_KIND, sizeof MEM_KIND / sizeof *MEM_KIND},
    [NSYS_ENUM_SYNC_TYPE] = {SYNC_TYPE, sizeof SYNC_TYPE / sizeof *SYNC_TYPE},
    [NSYS_ENUM_LAUNCH_TYPE] = {LAUNCH_TYPE, sizeof LAUNCH_TYPE / sizeof *LAUNCH_TYPE},
};

static const char *const MEMCPY_SHORT[] = {
    NULL, "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
    "HtoD (unified)", "DtoH (unified)", "DtoD (unified)",
};

typedef struct enum_row {
    int64_t id;
    const char *label;
} enum_row;

static const nsys_column ENUM_COLUMNS[] = {
    NSYS_COL_REQ(enum_row, id, "id", NSYS_INT),
    NSYS_COL_REQ(enum_row, label, "label", NSYS_TEXT),
};

static void add_label(nsys_enums *e, nsys_enum_kind kind, int64_t id, const char *label)
{
    int64_t key[2] = {kind, id};
    bool inserted;
    uint64_t *slot = hmap_upsert(&e->labels, key, sizeof key, &inserted);
    if (!inserted)
        return;
    buf scratch = {0};
    e->owned = xgrow(e->owned, &e->cap_owned, e->n_owned + 1, sizeof *e->owned);
    e->owned[e->n_owned++] = xstrdup(utf8_sanitize(label, strlen(label), &scratch));
    *slot = e->n_owned;
    buf_free(&scratch);
}

int nsys_enums_load(nsys_db *db, nsys_enums *e, buf *err)
{
    memset(e, 0, sizeof *e);
    hmap_init(&e->labels);
    for (int k = 0; k < NSYS_ENUM_KINDS; k++) {
        for (int i = 0; i < 2 && TABLES[k][i]; i++) {
            if (!nsys_db_has_table(db, TABLES[k][i]))
                continue;
            nsys_table t = {TABLES[k][i], ENUM_COLUMNS, 2, NSYS_UNORDERED};
            nsys_cursor *c;
            int status = nsys_cursor_open(db, &t, &c, err);
            if (status == NSYSP_ERR_NOT_NSYS) { /* odd shape: built-ins will do */
                buf_clear(err);
                continue;
            }
            if (status != NSYSP_OK)
                return status;
            enum_row row;
            int rc;
            while ((rc = nsys_cursor_next(c, &row, err, &status)) == 1)
                if (row.id != NSYS_NULL && row.label)
                    add_label(e, (nsys_enum_kind)k, row.id, row.label);
            nsys_cursor_close(c);
            if (rc < 0)
                return status;
            break;
        }
    }
    return NSYSP_OK;
}

void nsys_enums_free(nsys_enums *e)
{
    for (size_t i = 0; i < e->n_owned; i++)
        free(e->owned[i]);
    free(e->owned);
    hmap_free(&e->labels);
    memset(e, 0, sizeof *e);
}

const char *nsys_enum_label(const nsys_enums *e, nsys_enum_kind kind, int64_t value)
{
    int64_t key[2] = {kind, value};
    uint64_t *slot = hmap_find(&e->labels, key, sizeof key);
    if (slot)
        return e->owned[*slot - 1];
    if (value >= 0 && (uint64_t)value < BUILTIN[kind].n)
        return BUILTIN[kind].labels[value];
    return NULL;
}

const char *nsys_memcpy_short_name(int64_t copy_kind)
{
    if (copy_kind > 0 && (uint64_t)copy_kind < sizeof MEMCPY_SHORT / sizeof *MEMCPY_SHORT)
        return MEMCPY_SHORT[copy_kind];
    return NULL;
}
