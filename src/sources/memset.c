/* CUPTI_ACTIVITY_KIND_MEMSET: memsets on their stream's row. */
#include "gpu_op.h"

typedef struct memset_row {
    gpu_op op;
    int64_t bytes;
    int64_t value;
    int64_t mem_kind;
    int64_t graph_node;
} memset_row;

#define COL(field, name) NSYS_COL(memset_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    GPU_OP_COLUMNS(memset_row),
    COL(bytes, "bytes"),
    COL(value, "value"),
    COL(mem_kind, "memKind"),
    COL(graph_node, "graphNodeId"),
};
#undef COL

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_MEMSET", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_LONGEST_FIRST,
};

static int emit(conv *c, const void *r)
{
    const memset_row *row = r;
    int check = gpu_op_check(&row->op);
    if (check != SOURCE_EMITTED)
        return check;
    pw_arg args[GPU_OP_MAX_ARGS];
    size_t n = 0;
    if (row->bytes != NSYS_NULL)
        args[n++] = arg_int("bytes", row->bytes);
    if (row->value != NSYS_NULL)
        args[n++] = arg_int("value", row->value);
    const char *kind = nsys_enum_label(c->enums, NSYS_ENUM_MEM_KIND, row->mem_kind);
    if (kind)
        args[n++] = arg_str("memory kind", kind);
    if (row->graph_node != NSYS_NULL)
        args[n++] = arg_int("graph node id", row->graph_node);
    n = gpu_op_args(&row->op, args, n);
    pw_event ev = {.name = "Memset", .category = "memset"};
    return gpu_op_emit(c, &row->op, GPU_ROW_STREAM, &ev, args, n);
}

const source SOURCE_MEMSET = {
    "memset", &TABLE, sizeof(memset_row), offsetof(memset_row, op.start), emit, SOURCE_GPU_WORK,
};
