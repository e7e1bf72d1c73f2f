/* MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS and
 * MPI_OTHER_EVENTS (2023.4 on): MPI calls on an "MPI" row of the calling
 * thread, named by the call (textId), with the caller's rank (MPI_RANKS),
 * communicator, peer or root rank, tag, sizes and request as args. One column list serves all four
 * tables; columns a table lacks read as NULL. */
#include "source.h"

typedef struct mpi_row {
    int64_t start;
    int64_t end;
    int64_t global_tid;
    int64_t text_id;
    int64_t comm_handle;
    int64_t comm_uid;
    int64_t tag;
    int64_t remote_rank;
    int64_t root_rank;
    int64_t size;
    int64_t recv_size;
    int64_t request;
} mpi_row;

#define COL(field, name) NSYS_COL(mpi_row, field, name, NSYS_INT)
static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(mpi_row, start, "start", NSYS_INT),
    COL(end, "end"),
    NSYS_COL_REQ(mpi_row, global_tid, "globalTid", NSYS_INT),
    COL(text_id, "textId"),
    COL(comm_handle, "commHandle"),
    COL(comm_uid, "commUid"),
    COL(tag, "tag"),
    COL(remote_rank, "remoteRank"),
    COL(root_rank, "rootRank"),
    COL(size, "size"),
    COL(recv_size, "recvSize"),
    COL(request, "requestHandle"),
};
#undef COL
#define N_COLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])

static const nsys_table P2P = {"MPI_P2P_EVENTS", COLUMNS, N_COLUMNS, NSYS_ORDER_LONGEST_FIRST};
static const nsys_table COLLECTIVES = {"MPI_COLLECTIVES_EVENTS", COLUMNS, N_COLUMNS,
                                       NSYS_ORDER_LONGEST_FIRST};
static const nsys_table START_WAIT = {"MPI_START_WAIT_EVENTS", COLUMNS, N_COLUMNS,
                                      NSYS_ORDER_LONGEST_FIRST};
static const nsys_table OTHER = {"MPI_OTHER_EVENTS", COLUMNS, N_COLUMNS, NSYS_ORDER_LONGEST_FIRST};

static int emit(conv *c, const void *r)
{
    const mpi_row *row = r;
    /* end is NULL for calls unfinished at the end of the capture. */
    bool open_call = row->end == NSYS_NULL && row->start != NSYS_NULL;
    int64_t end = open_call ? (c->report_end > row->start ? c->report_end : row->start) : row->end;
    int check = source_check_interval(row->start, end);
    if (check != SOURCE_EMITTED)
        return check;
    if (row->global_tid == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    const struct {
        const char *name;
        int64_t value;
    } ints[] = {
        {"communicator", row->comm_handle}, {"communicator uid", row->comm_uid},
        {"tag", row->tag},                  {"remote rank", row->remote_rank},
        {"root rank", row->root_rank},      {"size", row->size},
        {"receive size", row->recv_size},   {"request", row->request},
    };
    pw_arg args[11];
    size_t n = 0;
    int64_t rank = nsys_mpi_rank(c->meta, row->global_tid);
    if (rank >= 0)
        args[n++] = arg_int("rank", rank);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (ints[i].value != NSYS_NULL)
            args[n++] = arg_int(ints[i].name, ints[i].value);
    if (open_call)
        args[n++] = (pw_arg){.name = "unterminated", .type = PW_ARG_BOOL, .v.b = true};
    const char *name = nsys_string(c->strings, row->text_id);
    pw_event ev = {.name = name ? name : "MPI call", .category = "mpi", .args = args,
                   .n_args = n};
    slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_MPI, NULL);
    return source_result(model_slice(&c->model, dest, row->start, end, &ev));
}

#define MPI_SOURCE(id, name, table) \
    const source id = {name, &table, sizeof(mpi_row), offsetof(mpi_row, start), emit, SOURCE_CPU}
MPI_SOURCE(SOURCE_MPI_P2P, "mpi", P2P);
MPI_SOURCE(SOURCE_MPI_COLLECTIVES, "mpi", COLLECTIVES);
MPI_SOURCE(SOURCE_MPI_START_WAIT, "mpi", START_WAIT);
MPI_SOURCE(SOURCE_MPI_OTHER, "mpi", OTHER);
