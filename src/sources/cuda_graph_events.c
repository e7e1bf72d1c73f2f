/* CUDA_GRAPH_EVENTS and CUDA_GRAPH_NODE_EVENTS: graphs, executable graphs
 * and graph nodes being created, on the creating thread's CUDA API row,
 * inside the call that created them. */
#include "source.h"

typedef struct graph_event_row {
    int64_t start;
    int64_t end;
    int64_t event_class;
    int64_t global_tid;
    int64_t name_id;         /* the creating call */
    int64_t graph_id;
    int64_t original_graph_id;
    int64_t graph_exec_id;
    int64_t graph_node_id;
    int64_t original_graph_node_id;
} graph_event_row;

#define COL(field, name) NSYS_COL(graph_event_row, field, name, NSYS_INT)
#define REQ(field, name) NSYS_COL_REQ(graph_event_row, field, name, NSYS_INT)
#define COMMON_COLUMNS                                                            \
    REQ(start, "start"), REQ(end, "end"), COL(event_class, "eventClass"),       \
        REQ(global_tid, "globalTid"), COL(name_id, "nameId")
static const nsys_column GRAPH_COLUMNS[] = {
    COMMON_COLUMNS,
    COL(graph_id, "graphId"),
    COL(original_graph_id, "originalGraphId"),
    COL(graph_exec_id, "graphExecId"),
    COL(graph_node_id, "noSuchColumn"), /* keeps the row layout shared */
    COL(original_graph_node_id, "noSuchColumn"),
};
static const nsys_column NODE_COLUMNS[] = {
    COMMON_COLUMNS,
    COL(graph_id, "noSuchColumn"),
    COL(original_graph_id, "noSuchColumn"),
    COL(graph_exec_id, "noSuchColumn"),
    COL(graph_node_id, "graphNodeId"),
    COL(original_graph_node_id, "originalGraphNodeId"),
};
#undef COMMON_COLUMNS
#undef COL
#undef REQ

static const nsys_table GRAPH_TABLE = {
    "CUDA_GRAPH_EVENTS", GRAPH_COLUMNS, sizeof GRAPH_COLUMNS / sizeof GRAPH_COLUMNS[0],
    NSYS_ORDER_LONGEST_FIRST,
};
static const nsys_table NODE_TABLE = {
    "CUDA_GRAPH_NODE_EVENTS", NODE_COLUMNS, sizeof NODE_COLUMNS / sizeof NODE_COLUMNS[0],
    NSYS_ORDER_LONGEST_FIRST,
};

/* ENUM_NSYS_EVENT_CLASS values of these tables. */
static const char *event_name(int64_t event_class)
{
    switch (event_class) {
    case 77:
        return "CUDA graph node creation";
    case 94:
        return "CUDA graph exec creation";
    case 95:
        return "CUDA graph creation";
    default:
        return "CUDA graph event";
    }
}

static int emit(conv *c, const void *r)
{
    const graph_event_row *row = r;
    int check = source_check_thread_interval(row->start, row->end, row->global_tid);
    if (check != SOURCE_EMITTED)
        return check;
    pw_arg args[8];
    size_t n = 0;
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"graph id", row->graph_id},
        {"original graph id", row->original_graph_id},
        {"graph exec id", row->graph_exec_id},
        {"graph node id", row->graph_node_id},
        {"original graph node id", row->original_graph_node_id},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    const char *call = nsys_string(c->strings, row->name_id);
    if (call)
        args[n++] = arg_str("call", call);
    pw_event ev = {.name = event_name(row->event_class), .category = "cuda_graph", .args = args,
                   .n_args = n};
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_CUDA_API, NULL);
    /* nsys records these as points in time (start == end). */
    if (row->start == row->end)
        return source_result(model_instant(&c->model, dest, row->start, &ev));
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

const source SOURCE_CUDA_GRAPH_EVENTS = {
    "cuda-graph", &GRAPH_TABLE, sizeof(graph_event_row), offsetof(graph_event_row, start), emit,
    SOURCE_CPU,
};
const source SOURCE_CUDA_GRAPH_NODE_EVENTS = {
    "cuda-graph", &NODE_TABLE, sizeof(graph_event_row), offsetof(graph_event_row, start),
    emit, SOURCE_CPU,
};
