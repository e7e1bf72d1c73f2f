/* OSRT_API: OS runtime calls (pthread, file and socket I/O, sleeps...) on an
 * "OS runtime" row of the calling thread, nested as recorded, with their
 * call chain (OSRT_CALLCHAINS) when nsys sampled one. */
#include "source.h"
#include "common/pairmap.h"

typedef struct osrt_row {
    int64_t start;
    int64_t end;
    int64_t global_tid;
    int64_t name_id;
    int64_t return_value;
    int64_t nesting_level;
    int64_t callchain_id;
} osrt_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(osrt_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(osrt_row, end, "end", NSYS_INT),
    NSYS_COL_REQ(osrt_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(osrt_row, name_id, "nameId", NSYS_INT),
    NSYS_COL(osrt_row, return_value, "returnValue", NSYS_INT),
    NSYS_COL(osrt_row, nesting_level, "nestingLevel", NSYS_INT),
    NSYS_COL(osrt_row, callchain_id, "callchainId", NSYS_INT),
};

static const nsys_table TABLE = {
    "OSRT_API", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0], NSYS_ORDER_LONGEST_FIRST,
};

static int emit(conv *c, const void *r)
{
    const osrt_row *row = r;
    int check = source_check_thread_interval(row->start, row->end, row->global_tid);
    if (check != SOURCE_EMITTED)
        return check;
    const char *name = nsys_string(c->strings, row->name_id);
    pw_arg args[3];
    size_t n = 0;
    if (row->return_value != NSYS_NULL)
        args[n++] = arg_int("return value", row->return_value);
    if (row->nesting_level != NSYS_NULL)
        args[n++] = arg_int("nesting level", row->nesting_level);
    bool kernel_leaf;
    pw_event ev = {
        .name = name ? name : "(unnamed OS runtime call)",
        .name_is_constant = true, /* StringIds or a literal */
        .category = "osrt",
        .args = args,
        .n_args = n,
        .callstack_iid = source_callstack(c, NSYS_CALLCHAIN_OSRT, row->callchain_id, c->state,
                                          &kernel_leaf),
    };
    if (c->read_status != NSYSP_OK)
        return SOURCE_FAILED;
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_OSRT, NULL);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

static void free_seen_chains(void *state)
{
    pairmap_free(state);
}

const source SOURCE_OSRT = {
    "osrt", &TABLE, sizeof(osrt_row), offsetof(osrt_row, start), emit, SOURCE_CPU,
    /* The chains seen: nsys shares one chain id among calls with one stack. */
    .state_size = sizeof(pairmap), .free_state = free_seen_chains,
};
