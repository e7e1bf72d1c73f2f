/* CUPTI_ACTIVITY_KIND_KERNEL: kernels on the row of their (device, process,
 * context, stream), named by the short, demangled or mangled name. */
#include <stdio.h>
#include <string.h>

#include "gpu_op.h"

typedef struct kernel_row {
    gpu_op op;
    int64_t short_name;
    int64_t demangled_name;
    int64_t mangled_name;
    int64_t grid_x, grid_y, grid_z;
    int64_t block_x, block_y, block_z;
    int64_t registers;
    int64_t static_shared;
    int64_t dynamic_shared;
    int64_t local_memory;
    int64_t launch_type;
    int64_t graph_node;
    int64_t graph_id;
} kernel_row;

#define COL(field, name) NSYS_COL(kernel_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    GPU_OP_COLUMNS(kernel_row),
    COL(short_name, "shortName"),
    COL(demangled_name, "demangledName"),
    COL(mangled_name, "mangledName"),
    COL(grid_x, "gridX"),
    COL(grid_y, "gridY"),
    COL(grid_z, "gridZ"),
    COL(block_x, "blockX"),
    COL(block_y, "blockY"),
    COL(block_z, "blockZ"),
    COL(registers, "registersPerThread"),
    COL(static_shared, "staticSharedMemory"),
    COL(dynamic_shared, "dynamicSharedMemory"),
    COL(local_memory, "localMemoryPerThread"),
    COL(launch_type, "launchType"),
    COL(graph_node, "graphNodeId"),
    COL(graph_id, "graphId"),
};
#undef COL

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_KERNEL", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_LONGEST_FIRST,
};

/* The name asked for, falling back through the others: some exports lack
 * mangledName or leave it NULL. */
static const char *kernel_name(const conv *c, const kernel_row *row)
{
    int64_t order[3];
    switch (c->opt->kernel_names) {
    case NSYSP_KERNEL_NAMES_DEMANGLED:
        order[0] = row->demangled_name, order[1] = row->short_name, order[2] = row->mangled_name;
        break;
    case NSYSP_KERNEL_NAMES_MANGLED:
        order[0] = row->mangled_name, order[1] = row->demangled_name, order[2] = row->short_name;
        break;
    default:
        order[0] = row->short_name, order[1] = row->demangled_name, order[2] = row->mangled_name;
        break;
    }
    for (int i = 0; i < 3; i++) {
        const char *s = nsys_string(c->strings, order[i]);
        if (s && *s)
            return s;
    }
    return "(unnamed kernel)";
}

/* v in decimal at p; returns the end. */
static char *put_decimal(char *p, int64_t v)
{
    char digits[24];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = digits[--n];
    return p;
}

/* "(x, y, z)": by hand, since printf was a visible part of a kernel's cost.
 * out holds at least 3 * 20 + 7 bytes. */
static void dims(char *out, int64_t x, int64_t y, int64_t z)
{
    char *p = out;
    *p++ = '(';
    p = put_decimal(p, x);
    *p++ = ',', *p++ = ' ';
    p = put_decimal(p, y);
    *p++ = ',', *p++ = ' ';
    p = put_decimal(p, z);
    *p++ = ')';
    *p = '\0';
}

static int emit(conv *c, const void *r)
{
    const kernel_row *row = r;
    int check = gpu_op_check(&row->op);
    if (check != SOURCE_EMITTED)
        return check;

    pw_arg args[GPU_OP_MAX_ARGS];
    size_t n = 0;
    char grid[80], block[80];
    const char *demangled = nsys_string(c->strings, row->demangled_name);
    if (demangled)
        args[n++] = arg_const_str("demangled name", demangled);
    if (row->grid_x != NSYS_NULL) {
        dims(grid, row->grid_x, row->grid_y, row->grid_z);
        args[n++] = arg_str("grid", grid);
    }
    if (row->block_x != NSYS_NULL) {
        dims(block, row->block_x, row->block_y, row->block_z);
        args[n++] = arg_str("block", block);
    }
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"registers per thread", row->registers},
        {"static shared memory", row->static_shared},
        {"dynamic shared memory", row->dynamic_shared},
        {"local memory per thread", row->local_memory},
        {"graph node id", row->graph_node},
        {"graph id", row->graph_id},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    const char *launch = nsys_enum_label(c->enums, NSYS_ENUM_LAUNCH_TYPE, row->launch_type);
    if (launch)
        args[n++] = arg_const_str("launch type", launch);
    n = gpu_op_args(&row->op, args, n);

    const char *name = kernel_name(c, row);
    /* With --kernel-names demangled or mangled, the short name the slice
     * no longer shows (nsys stats reports group by it). */
    const char *short_name = nsys_string(c->strings, row->short_name);
    if (short_name && *short_name && strcmp(short_name, name) != 0)
        args[n++] = arg_const_str("short name", short_name);

    pw_event ev = {.name = name, .name_is_constant = true, .category = "kernel"};
    return gpu_op_emit(c, &row->op, GPU_ROW_STREAM, &ev, args, n);
}

const source SOURCE_KERNEL = {
    "kernel", &TABLE, sizeof(kernel_row), offsetof(kernel_row, op.start), emit, SOURCE_GPU_WORK,
};
