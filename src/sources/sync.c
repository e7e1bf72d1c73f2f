/* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: CUDA synchronization (event, stream,
 * context syncs) on a row of their own beside the stream's row, as nsys-ui
 * shows them, so waits never hide the work. */
#include "gpu_op.h"

typedef struct sync_row {
    gpu_op op;
    int64_t sync_type;
    int64_t event_id;
} sync_row;

static const nsys_column COLUMNS[] = {
    GPU_OP_COLUMNS(sync_row),
    NSYS_COL(sync_row, sync_type, "syncType", NSYS_INT),
    NSYS_COL(sync_row, event_id, "eventId", NSYS_INT),
};

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0],
    NSYS_ORDER_LONGEST_FIRST,
};

/* CUPTI writes all ones for "no event" (and "no stream"). */
#define CUPTI_INVALID_ID 4294967295LL

static int emit(conv *c, const void *r)
{
    const sync_row *row = r;
    int check = gpu_op_check(&row->op);
    if (check != SOURCE_EMITTED)
        return check;
    const char *type = nsys_enum_label(c->enums, NSYS_ENUM_SYNC_TYPE, row->sync_type);
    pw_arg args[GPU_OP_MAX_ARGS];
    size_t n = 0;
    if (type)
        args[n++] = arg_str("sync type", type);
    if (row->event_id != NSYS_NULL && row->event_id != CUPTI_INVALID_ID)
        args[n++] = arg_int("event id", row->event_id);
    n = gpu_op_args(&row->op, args, n);
    pw_event ev = {.name = type ? type : "Synchronization", .category = "sync"};
    return gpu_op_emit(c, &row->op, GPU_ROW_SYNC, &ev, args, n);
}

const source SOURCE_SYNC = {
    "sync", &TABLE, sizeof(sync_row), offsetof(sync_row, op.start), emit, SOURCE_GPU_SYNC,
};
