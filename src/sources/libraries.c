/* CUBLAS_EVENTS and CUDNN_EVENTS: cuBLAS and cuDNN API calls, each on a row
 * of the calling thread, named by the call. */
#include "source.h"

typedef struct library_row {
    int64_t start;
    int64_t end;
    int64_t global_tid;
    int64_t name_id;
} library_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(library_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(library_row, end, "end", NSYS_INT),
    NSYS_COL_REQ(library_row, global_tid, "globalTid", NSYS_INT),
    NSYS_COL_REQ(library_row, name_id, "nameId", NSYS_INT),
};

static const nsys_table CUBLAS_TABLE = {"CUBLAS_EVENTS", COLUMNS, 4, NSYS_ORDER_LONGEST_FIRST};
static const nsys_table CUDNN_TABLE = {"CUDNN_EVENTS", COLUMNS, 4, NSYS_ORDER_LONGEST_FIRST};

static int emit(conv *c, const void *r, thread_row_kind kind, const char *category)
{
    const library_row *row = r;
    int check = source_check_thread_interval(row->start, row->end, row->global_tid);
    if (check != SOURCE_EMITTED)
        return check;
    const char *name = nsys_string(c->strings, row->name_id);
    pw_event ev = {.name = name ? name : "(unnamed call)", .category = category};
    slice_row *dest = model_thread_row(&c->model, row->global_tid, kind, NULL);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

static int emit_cublas(conv *c, const void *r)
{
    return emit(c, r, ROW_CUBLAS, "cublas");
}

static int emit_cudnn(conv *c, const void *r)
{
    return emit(c, r, ROW_CUDNN, "cudnn");
}

const source SOURCE_CUBLAS = {
    "cublas", &CUBLAS_TABLE, sizeof(library_row), offsetof(library_row, start), emit_cublas,
    SOURCE_CPU,
};
const source SOURCE_CUDNN = {
    "cudnn", &CUDNN_TABLE, sizeof(library_row), offsetof(library_row, start), emit_cudnn,
    SOURCE_CPU,
};
