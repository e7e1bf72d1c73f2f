/* CUPTI_ACTIVITY_KIND_MEMCPY: copies on their stream's row, named as
 * nsys-ui names them: "Memcpy HtoD (Pageable → Device)". */
#include <stdio.h>

#include "gpu_op.h"

typedef struct memcpy_row {
    gpu_op op;
    int64_t bytes;
    int64_t copy_kind;
    int64_t src_kind;
    int64_t dst_kind;
    int64_t src_device;
    int64_t dst_device;
    int64_t graph_node;
    int64_t virtual_address;
} memcpy_row;

#define COL(field, name) NSYS_COL(memcpy_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    GPU_OP_COLUMNS(memcpy_row),
    COL(bytes, "bytes"),
    COL(copy_kind, "copyKind"),
    COL(src_kind, "srcKind"),
    COL(dst_kind, "dstKind"),
    COL(src_device, "srcDeviceId"),
    COL(dst_device, "dstDeviceId"),
    COL(graph_node, "graphNodeId"),
    COL(virtual_address, "virtualAddress"),
};
#undef COL

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_MEMCPY", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_LONGEST_FIRST,
};

/* ENUM_CUDA_MEMCPY_OPER's unified-memory migrations: UVM_HTOD, UVM_DTOH, UVM_DTOD */
static bool is_unified(int64_t copy_kind)
{
    return copy_kind >= 11 && copy_kind <= 13;
}

static int emit(conv *c, const void *r)
{
    const memcpy_row *row = r;
    int check = gpu_op_check(&row->op);
    if (check != SOURCE_EMITTED)
        return check;

    const char *direction = nsys_memcpy_short_name(row->copy_kind);
    const char *kind = nsys_enum_label(c->enums, NSYS_ENUM_MEMCPY_OPER, row->copy_kind);
    const char *src = nsys_enum_label(c->enums, NSYS_ENUM_MEM_KIND, row->src_kind);
    const char *dst = nsys_enum_label(c->enums, NSYS_ENUM_MEM_KIND, row->dst_kind);
    char name[256];
    int len = snprintf(name, sizeof name, "Memcpy %s", direction ? direction : kind ? kind : "");
    if (src && dst && len > 0 && (size_t)len < sizeof name)
        snprintf(name + len, sizeof name - (size_t)len, " (%s \xE2\x86\x92 %s)", src, dst);

    pw_arg args[GPU_OP_MAX_ARGS];
    size_t n = 0;
    if (row->bytes != NSYS_NULL)
        args[n++] = arg_int("bytes", row->bytes);
    if (kind)
        args[n++] = arg_str("kind", kind);
    if (src)
        args[n++] = arg_str("source memory", src);
    if (dst)
        args[n++] = arg_str("destination memory", dst);
    if (row->src_device != NSYS_NULL)
        args[n++] = arg_int("source device", row->src_device);
    if (row->dst_device != NSYS_NULL)
        args[n++] = arg_int("destination device", row->dst_device);
    int64_t dur = row->op.end - row->op.start;
    /* Bytes per us is MB/s. Whole MB/s are precise enough and a small
     * integer compresses; a double's mantissa does not (8 bytes an event). */
    double mb_per_s = row->bytes != NSYS_NULL && dur > 0 ? (double)row->bytes * 1e3 / (double)dur : -1;
    if (mb_per_s >= 0 && mb_per_s < 9e18)
        args[n++] = arg_int("throughput MB/s", (int64_t)(mb_per_s + 0.5));
    if (row->graph_node != NSYS_NULL)
        args[n++] = arg_int("graph node id", row->graph_node);
    /* A unified-memory migration's base address (what nsys's um_sum groups by); other
     * copies leave it NULL or 0. */
    if (is_unified(row->copy_kind) && row->virtual_address != NSYS_NULL)
        args[n++] = arg_int("virtual address", row->virtual_address);
    n = gpu_op_args(&row->op, args, n);

    pw_event ev = {.name = name, .category = "memcpy"};
    return gpu_op_emit(c, &row->op, GPU_ROW_STREAM, &ev, args, n);
}

const source SOURCE_MEMCPY = {
    "memcpy", &TABLE, sizeof(memcpy_row), offsetof(memcpy_row, op.start), emit, SOURCE_GPU_WORK,
};
