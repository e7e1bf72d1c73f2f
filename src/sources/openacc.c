/* CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH and _OTHER: OpenACC runtime
 * events on an "OpenACC" row of the thread, named as nsys names them
 * (event name, then "@file:line" when the source is known), with the
 * event kind, device, data and launch details as args. One column list
 * serves the three tables; columns a table lacks read as NULL. */
#include <inttypes.h>
#include <stdio.h>

#include "source.h"

typedef struct openacc_row {
    int64_t start;
    int64_t end;
    int64_t name_id;
    int64_t global_tid;
    int64_t event_kind;
    int64_t device_type;
    int64_t line;
    int64_t cu_device;
    int64_t cu_context;
    int64_t cu_stream;
    int64_t src_file;
    int64_t func_name;
    int64_t bytes;
    int64_t var_name;
    int64_t gangs;
    int64_t workers;
    int64_t vector_length;
    int64_t kernel_name;
} openacc_row;

#define COL(field, name) NSYS_COL(openacc_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(openacc_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(openacc_row, end, "end", NSYS_INT),
    COL(name_id, "nameId"),
    NSYS_COL_REQ(openacc_row, global_tid, "globalTid", NSYS_INT),
    COL(event_kind, "eventKind"),
    COL(device_type, "DeviceType"),
    COL(line, "lineNo"),
    COL(cu_device, "cuDeviceId"),
    COL(cu_context, "cuContextId"),
    COL(cu_stream, "cuStreamId"),
    COL(src_file, "srcFile"),
    COL(func_name, "funcName"),
    COL(bytes, "bytes"),
    COL(var_name, "varName"),
    COL(gangs, "numGangs"),
    COL(workers, "numWorkers"),
    COL(vector_length, "vectorLength"),
    COL(kernel_name, "kernelName"),
};
#undef COL
#define N_COLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

static const nsys_table DATA = {"CUPTI_ACTIVITY_KIND_OPENACC_DATA", COLUMNS, N_COLUMNS,
                                NSYS_ORDER_LONGEST_FIRST};
static const nsys_table LAUNCH = {"CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", COLUMNS, N_COLUMNS,
                                  NSYS_ORDER_LONGEST_FIRST};
static const nsys_table OTHER = {"CUPTI_ACTIVITY_KIND_OPENACC_OTHER", COLUMNS, N_COLUMNS,
                                 NSYS_ORDER_LONGEST_FIRST};

/* ENUM_OPENACC_EVENT_KIND */
static const char *const EVENT_KINDS[] = {
    "Invalid", "Device init", "Device shutdown", "Runtime shutdown", "Enqueue launch",
    "Enqueue upload", "Enqueue download", "Wait", "Implicit wait", "Compute construct",
    "Update", "Enter data", "Exit data", "Create", "Delete", "Alloc", "Free",
};

static int emit(conv *c, const void *r)
{
    const openacc_row *row = r;
    int check = source_check_interval(row->start, row->end);
    if (check != SOURCE_EMITTED)
        return check;
    const char *kind = row->event_kind >= 0 &&
                               (uint64_t)row->event_kind < sizeof EVENT_KINDS / sizeof *EVENT_KINDS
                           ? EVENT_KINDS[row->event_kind]
                           : NULL;
    const char *event = nsys_string(c->strings, row->name_id);
    const char *file = nsys_string(c->strings, row->src_file);
    char name[512];
    if (file && row->line != NSYS_NULL)
        snprintf(name, sizeof name, "%s@%s:%" PRId64, event ? event : kind ? kind : "OpenACC",
                 file, row->line);
    else
        snprintf(name, sizeof name, "%s", event ? event : kind ? kind : "OpenACC");

    pw_arg args[16];
    size_t n = 0;
    if (kind)
        args[n++] = arg_str("event kind", kind);
    const struct {
        const char *name;
        int64_t id;
    } strs[] = {
        {"function", row->func_name}, {"variable", row->var_name}, {"kernel", row->kernel_name},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        const char *s = nsys_string(c->strings, strs[i].id);
        if (s)
            args[n++] = arg_str(strs[i].name, s);
    }
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"device type", row->device_type}, {"line", row->line},
        {"device", row->cu_device},        {"context", row->cu_context},
        {"stream", row->cu_stream},        {"bytes", row->bytes},
        {"gangs", row->gangs},             {"workers", row->workers},
        {"vector length", row->vector_length},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    pw_event ev = {.name = name, .category = "openacc", .args = args, .n_args = n};
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_OPENACC, NULL);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

#define OPENACC_SOURCE(id, name, table)                                                   \
    const source id = {name, &table, sizeof(openacc_row), offsetof(openacc_row, start), emit, \
                       SOURCE_CPU}
OPENACC_SOURCE(SOURCE_OPENACC_DATA, "openacc", DATA);
OPENACC_SOURCE(SOURCE_OPENACC_LAUNCH, "openacc", LAUNCH);
OPENACC_SOURCE(SOURCE_OPENACC_OTHER, "openacc", OTHER);
