/* CUPTI_ACTIVITY_KIND_GRAPH_TRACE: whole CUDA graph executions (nsys
 * --cuda-graph-trace=graph) as one range each, on a row beside the stream
 * they were launched on. */
#include "gpu_op.h"

typedef struct graph_row {
    gpu_op op;
    int64_t graph_id;
    int64_t graph_exec_id;
} graph_row;

static const nsys_column COLUMNS[] = {
    GPU_OP_COLUMNS(graph_row),
    NSYS_COL(graph_row, graph_id, "graphId", NSYS_INT),
    NSYS_COL(graph_row, graph_exec_id, "graphExecId", NSYS_INT),
};

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_LONGEST_FIRST,
};

static int emit(conv *c, const void *r)
{
    const graph_row *row = r;
    int check = gpu_op_check(&row->op);
    if (check != SOURCE_EMITTED)
        return check;
    pw_arg args[GPU_OP_MAX_ARGS];
    size_t n = 0;
    if (row->graph_id != NSYS_NULL)
        args[n++] = arg_int("graph id", row->graph_id);
    if (row->graph_exec_id != NSYS_NULL)
        args[n++] = arg_int("graph exec id", row->graph_exec_id);
    n = gpu_op_args(&row->op, args, n);
    pw_event ev = {.name = "CUDA graph", .category = "graph"};
    return gpu_op_emit(c, &row->op, GPU_ROW_GRAPH, &ev, args, n);
}

const source SOURCE_GRAPH_TRACE = {
    "graph", &TABLE, sizeof(graph_row), offsetof(graph_row, op.start), emit, SOURCE_GPU_WORK,
};
