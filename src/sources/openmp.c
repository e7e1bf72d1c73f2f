/* OPENMP_EVENT_KIND_*: OpenMP (OMPT) events, 18 tables sharing one column
 * layout, on an "OpenMP" row of the thread where parallel regions, tasks
 * and barriers nest as they ran. Events with start == end (task creation,
 * mutex release) are instants. Names come from nameId; a few
 * rows (MUTEX_RELEASED) carry 0xFFFFFFFF there, and take the table's
 * event name instead. */
#include "source.h"

typedef struct openmp_row {
    int64_t start;
    int64_t end;
    int64_t global_tid;
    int64_t name_id;
    int64_t event_kind;
    int64_t kind;
    int64_t parallel_id;
    int64_t task_id;
    int64_t parent_task_id;
    int64_t new_task_id;
    int64_t prior_task_id;
    int64_t next_task_id;
    int64_t thread_id;
    int64_t wait_id;
    int64_t count;
} openmp_row;

#define COL(field, name) NSYS_COL(openmp_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(openmp_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(openmp_row, end, "end", NSYS_INT),
    NSYS_COL_REQ(openmp_row, global_tid, "globalTid", NSYS_INT),
    COL(name_id, "nameId"),
    COL(event_kind, "eventKind"),
    COL(kind, "kind"),
    COL(parallel_id, "parallelId"),
    COL(task_id, "taskId"),
    COL(parent_task_id, "parentTaskId"),
    COL(new_task_id, "newTaskId"),
    COL(prior_task_id, "priorTaskId"),
    COL(next_task_id, "nextTaskId"),
    COL(thread_id, "threadId"),
    COL(wait_id, "waitId"),
    COL(count, "count"),
};
#undef COL
#define N_COLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

/* The tables, and the name of their events when nameId has none. */
#define OPENMP_TABLES(X)                                              \
    X(THREAD, "Thread")                                               \
    X(PARALLEL, "Parallel region")                                    \
    X(SYNC_REGION_WAIT, "Sync region wait")                           \
    X(SYNC_REGION, "Sync region")                                     \
    X(TASK, "Task")                                                   \
    X(MASTER, "Master region")                                        \
    X(REDUCTION, "Reduction")                                         \
    X(TASK_CREATE, "Task creation")                                   \
    X(TASK_SCHEDULE, "Task schedule")                                 \
    X(CANCEL, "Cancel")                                               \
    X(MUTEX_WAIT, "Mutex wait")                                       \
    X(MUTEX_RELEASED, "Mutex released")                               \
    X(CRITICAL_SECTION, "Critical section")                           \
    X(LOCK_INIT, "Lock init")                                         \
    X(LOCK_DESTROY, "Lock destroy")                                   \
    X(WORKSHARE, "Workshare")                                         \
    X(DISPATCH, "Dispatch")                                           \
    X(FLUSH, "Flush")

static int emit_named(conv *c, const void *r, const char *fallback)
{
    const openmp_row *row = r;
    int check = source_check_thread_interval(row->start, row->end, row->global_tid);
    if (check != SOURCE_EMITTED)
        return check;
    const char *name = nsys_string(c->strings, row->name_id);
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"kind", row->kind},           {"parallel id", row->parallel_id},
        {"task id", row->task_id},     {"parent task id", row->parent_task_id},
        {"new task id", row->new_task_id}, {"prior task id", row->prior_task_id},
        {"next task id", row->next_task_id}, {"thread id", row->thread_id},
        {"wait id", row->wait_id},     {"count", row->count},
    };
    pw_arg args[12];
    size_t n = 0;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    pw_event ev = {.name = name ? name : fallback, .category = "openmp", .args = args,
                   .n_args = n};
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_OPENMP, NULL);
    /* start == end marks an event (task creation, mutex release). */
    if (row->start == row->end)
        return source_result(model_instant(&c->model, dest, row->start, &ev));
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

#define DEFINE_SOURCE(KIND, NAME)                                                          \
    static const nsys_table TABLE_##KIND = {"OPENMP_EVENT_KIND_" #KIND, COLUMNS, N_COLUMNS,    \
                                            NSYS_ORDER_LONGEST_FIRST};                        \
    static int emit_##KIND(conv *c, const void *r)                                         \
    {                                                                                      \
        return emit_named(c, r, NAME);                                                     \
    }
OPENMP_TABLES(DEFINE_SOURCE)
#undef DEFINE_SOURCE

#define SOURCE_ENTRY(KIND, NAME)                                                          \
    {"openmp", &TABLE_##KIND, sizeof(openmp_row), offsetof(openmp_row, start), emit_##KIND, \
     SOURCE_CPU},
const source SOURCES_OPENMP[] = {OPENMP_TABLES(SOURCE_ENTRY)};
#undef SOURCE_ENTRY
const size_t N_SOURCES_OPENMP = sizeof SOURCES_OPENMP / sizeof SOURCES_OPENMP[0];
