/* nsys enum values as labels: from the report's ENUM_* tables when present
 * (2022.4 on), else from built-in copies of nsys's own numbering (which
 * differs from CUPTI's for memory kinds). */
#ifndef NSYSP_NSYS_ENUMS_H
#define NSYSP_NSYS_ENUMS_H

#include <stdint.h>

#include "common/hmap.h"
#include "nsys_db.h"

typedef enum nsys_enum_kind {
    NSYS_ENUM_MEMCPY_OPER,   /* ENUM_CUDA_MEMCPY_OPER: "Host-to-Device" */
    NSYS_ENUM_MEM_KIND,      /* ENUM_CUDA_MEM_KIND: "Pageable" */
    NSYS_ENUM_SYNC_TYPE,     /* ENUM_CUPTI_SYNC_TYPE: "Stream sync" */
    NSYS_ENUM_LAUNCH_TYPE,   /* ENUM_CUDA_KERNEL_LAUNCH_TYPE: "Regular" */
    NSYS_ENUM_KINDS
} nsys_enum_kind;

typedef struct nsys_enums {
    hmap labels;             /* (kind, value) -> index into owned + 1 */
    char **owned;
    size_t n_owned, cap_owned;
} nsys_enums;

int nsys_enums_load(nsys_db *db, nsys_enums *e, buf *err);
void nsys_enums_free(nsys_enums *e);

/* The label of value, or NULL when neither the report nor nsys's built-in
 * numbering knows it. */
const char *nsys_enum_label(const nsys_enums *e, nsys_enum_kind kind, int64_t value);

/* "HtoD", "DtoH", "PtoP"...: the short copy direction nsys-ui shows in
 * memcpy names, or NULL for an unknown kind. */
const char *nsys_memcpy_short_name(int64_t copy_kind);

#endif
