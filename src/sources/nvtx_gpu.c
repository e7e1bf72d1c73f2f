/* NVTX ranges projected onto the GPU (see nsys_nvtx_gpu.h): one "NVTX" row
 * per domain in each GPU's group, nested like the CPU ranges, lanes where
 * projections overlap. The arg "GPU operations" says how much work a range
 * covers on that device. */
#include <inttypes.h>
#include <stdio.h>

#include "nvtx_common.h"
#include "nsys/nsys_ids.h"
#include "nsys/nsys_nvtx_gpu.h"

typedef struct nvtx_gpu_row {
    int64_t start;
    int64_t end;
    int64_t device;
    int64_t ops;
    const char *text;
    int64_t text_id;
    int64_t domain;
    int64_t global_tid;
} nvtx_gpu_row;

#define INT(field, name) NSYS_COL_REQ(nvtx_gpu_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    INT(start, "start"),
    INT(end, "end"),
    INT(device, "deviceId"),
    INT(ops, "ops"),
    NSYS_COL(nvtx_gpu_row, text, "text", NSYS_TEXT),
    NSYS_COL(nvtx_gpu_row, text_id, "textId", NSYS_INT),
    NSYS_COL(nvtx_gpu_row, domain, "domainId", NSYS_INT),
    INT(global_tid, "globalTid"),
};
#undef INT

static const nsys_table TABLE = {
    NSYS_NVTX_GPU_TABLE, COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0],
    NSYS_ORDER_SQL("start, \"end\" DESC"), /* written in range-end order: SQLite sorts it */
};

static int emit(conv *c, const void *r)
{
    const nvtx_gpu_row *row = r;
    int check = source_check_interval(row->start, row->end);
    if (check != SOURCE_EMITTED)
        return check;
    int64_t gpid = nsys_global_pid_of(row->global_tid);
    nvtx_name names;
    if (!nvtx_resolve(c, gpid, row->domain, row->text, row->text_id, &names))
        return SOURCE_SKIPPED(NSYSP_SKIP_FILTERED);
    pw_arg args[4 + NVTX_TORCH_ARGS];
    size_t n = 0;
    args[n++] = arg_int("GPU operations", row->ops);
    if (names.domain_label) /* none: the default domain, as on the CPU */
        args[n++] = arg_str("domain", names.domain_label);
    args[n++] = arg_int("pid", nsys_pid_of(row->global_tid));
    args[n++] = arg_int("tid", nsys_tid_of(row->global_tid));
    n += nvtx_torch_args(&names, args + n);
    pw_event ev = {.name = names.name, .category = "nvtx_gpu", .args = args, .n_args = n};
    slice_row *dest = model_gpu_row(&c->model, row->device, GPU_PLACE_NVTX, "NVTX",
                                    names.domain_label);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

const source SOURCE_NVTX_GPU = {
    "nvtx-gpu", &TABLE, sizeof(nvtx_gpu_row), offsetof(nvtx_gpu_row, start), emit, SOURCE_CPU,
};
