/* CUPTI_ACTIVITY_KIND_RUNTIME: CUDA runtime and driver API calls, on a
 * "CUDA API" row of the calling thread. Driver calls made inside runtime
 * calls nest under them. */
#include <string.h>

#include "source.h"
#include "nsys/nsys_ids.h"

typedef struct cuda_api_row {
    int64_t start;
    int64_t end;
    int64_t event_class;     /* 0 runtime, 1 driver */
    int64_t global_tid;
    int64_t correlation_id;
    int64_t name_id;
    int64_t return_value;
} cuda_api_row;

#define COL(field, name) NSYS_COL(cuda_api_row, field, name, NSYS_INT)
#define REQ(field, name) NSYS_COL_REQ(cuda_api_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    REQ(start, "start"),
    REQ(end, "end"),
    COL(event_class, "eventClass"),
    REQ(global_tid, "globalTid"),
    COL(correlation_id, "correlationId"),
    REQ(name_id, "nameId"),
    COL(return_value, "returnValue"),
};
#undef COL
#undef REQ

static const nsys_table TABLE = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0],
    NSYS_ORDER_LONGEST_FIRST,
};

/* "cudaLaunchKernel_v7000" -> length of "cudaLaunchKernel": nsys-ui shows
 * API names without the ABI version suffix. */
static size_t display_length(const char *name)
{
    size_t n = strlen(name);
    size_t i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i < n && i >= 3 && name[i - 1] == 'v' && name[i - 2] == '_')
        return i - 2;
    return n;
}

static int emit(conv *c, const void *r)
{
    const cuda_api_row *row = r;
    int check = source_check_thread_interval(row->start, row->end, row->global_tid);
    if (check != SOURCE_EMITTED)
        return check;

    const char *full = nsys_string(c->strings, row->name_id);
    if (!full)
        full = "(unnamed CUDA call)";
    size_t n = display_length(full);
    buf_clear(&c->scratch);
    buf_append(&c->scratch, full, n);

    pw_arg args[3];
    size_t n_args = 0;
    /* Only a failure's: each call's arg set is its own (the correlation id),
     * and trace_processor stores every arg of it; 0, success, is the rule
     * (docs/timeline.md, "Args on every event"). */
    if (row->return_value != NSYS_NULL && row->return_value != 0)
        args[n_args++] = arg_int("return value", row->return_value);
    if (row->correlation_id != NSYS_NULL)
        args[n_args++] = arg_int("correlation id", row->correlation_id);
    if (full[n] != '\0')
        args[n_args++] = arg_str("full name", full);

    pw_event ev = {
        .name = buf_cstr(&c->scratch),
        .category = row->event_class == 1 ? "cuda_driver" : "cuda_runtime",
        .args = args,
        .n_args = n_args,
    };
    int64_t gpid = nsys_global_pid_of(row->global_tid);
    int64_t first_op;
    int64_t ops = nsys_links_ops_of_call(c->links, gpid, row->correlation_id, &first_op,
                                         c->err, &c->read_status);
    if (ops < 0)
        return SOURCE_FAILED;
    /* Work that started before the call was written before it: with its
     * flow when the early calls are known (nsys_links.h), else the
     * conversion starts again knowing them. Work whose flow was refused,
     * or a duplicate call, leaves the call without arrows. */
    if (ops > 0 && first_op != NSYS_NULL && first_op < row->start &&
        !flows_awaited(&c->flows, gpid, row->correlation_id)) {
        if (!nsys_links_has_early(c->links)) {
            c->read_status = SOURCE_CONVERT_AGAIN_EARLY_WORK;
            return SOURCE_FAILED;
        }
        ops = 0;
    }
    if (ops > 0 && (ev.flow_ids = flows_of_call(&c->flows, gpid, row->correlation_id, ops)))
        ev.n_flow_ids = (size_t)ops;
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_CUDA_API, NULL);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

const source SOURCE_CUDA_API = {
    "cuda-api", &TABLE, sizeof(cuda_api_row), offsetof(cuda_api_row, start), emit, SOURCE_CPU,
};
