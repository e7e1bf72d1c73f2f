#include "gpu_op.h"

#include "model/gpu_utilization.h"

int gpu_op_check(const gpu_op *op)
{
    int check = source_check_interval(op->start, op->end);
    if (check != SOURCE_EMITTED)
        return check;
    if (op->device == NSYS_NULL || op->stream == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    if (op->hidden == 1)
        return SOURCE_SKIPPED(NSYSP_SKIP_HIDDEN_STREAM);
    return SOURCE_EMITTED;
}

size_t gpu_op_args(const gpu_op *op, pw_arg *args, size_t n)
{
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"device", op->device},
        {"context", op->context},
        {"stream", op->stream},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    return n;
}

int gpu_op_emit(conv *c, const gpu_op *op, gpu_row row, pw_event *ev, pw_arg *args, size_t n)
{
    int64_t context = op->context == NSYS_NULL ? 0 : op->context;
    int64_t gpid = op->global_pid == NSYS_NULL ? 0 : op->global_pid;
    slice_row *(*row_of)(model *, int64_t, int64_t, int64_t, int64_t) =
        row == GPU_ROW_SYNC ? model_sync_row : row == GPU_ROW_GRAPH ? model_graph_row
                                                                    : model_stream_row;
    slice_row *dest = row_of(&c->model, op->device, gpid, context, op->stream);
    /* Work a filter hides was not counted for its call: it takes no id. */
    uint64_t flow = op->correlation_id == NSYS_NULL || dest->hidden
                        ? 0
                        : flows_of_gpu_op(&c->flows, gpid, op->correlation_id);
    /* The call, already written, holds the correlation id; a call still
     * to come (early work) may yet be filtered out, so the op keeps it. */
    if (!flow && op->correlation_id != NSYS_NULL)
        args[n++] = arg_int("correlation id", op->correlation_id);
    if (!flow && !dest->hidden && nsys_links_has_early(c->links)) {
        int64_t call_start = 0;
        int64_t ops = nsys_links_early_call(c->links, gpid, op->correlation_id, &call_start,
                                          c->err, &c->read_status);
        if (ops < 0)
            return SOURCE_FAILED;
        if (ops > 0 && op->start < call_start)
            flow = flows_of_early_gpu_op(&c->flows, gpid, op->correlation_id, ops);
    }
    /* Kernels, memcpys and memsets make the GPU utilization counter. */
    if (row == GPU_ROW_STREAM && !dest->hidden &&
        model_gpu_work(&c->model, op->device, gpid, context, op->start, op->end) < 0)
        return SOURCE_FAILED;
    ev->args = args;
    ev->n_args = n;
    if (flow) {
        ev->flow_ids = &flow;
        ev->n_flow_ids = 1;
    }
    return source_result(model_slice(&c->model, dest, op->start, op->end, ev));
}
