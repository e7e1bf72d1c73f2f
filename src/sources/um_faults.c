/* CUDA_UM_CPU_PAGE_FAULT_EVENTS and CUDA_UM_GPU_PAGE_FAULT_EVENTS: unified
 * memory page faults. CPU faults are instants on a "Unified memory" row of
 * the process; GPU fault groups are slices on a "Page faults" row of the
 * GPU, with the number of faults and the access type. (Migrations are
 * memcpy rows of the unified kinds, on their streams.) */
#include "source.h"
#include "nsys/nsys_ids.h"

typedef struct cpu_fault_row {
    int64_t start;
    int64_t global_pid;
    int64_t address;
    int64_t fault_pc;
    int64_t module;
    int64_t instruction;
} cpu_fault_row;

static const nsys_column CPU_COLUMNS[] = {
    NSYS_COL_REQ(cpu_fault_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(cpu_fault_row, global_pid, "globalPid", NSYS_INT),
    NSYS_COL(cpu_fault_row, address, "address", NSYS_INT),
    NSYS_COL(cpu_fault_row, fault_pc, "originalFaultPc", NSYS_INT),
    NSYS_COL(cpu_fault_row, module, "module", NSYS_INT),
    NSYS_COL(cpu_fault_row, instruction, "CpuInstruction", NSYS_INT),
};
static const nsys_table CPU_TABLE = {"CUDA_UM_CPU_PAGE_FAULT_EVENTS", CPU_COLUMNS, 6, NSYS_ORDER_BY("start")};

static int emit_cpu(conv *c, const void *r)
{
    const cpu_fault_row *row = r;
    if (row->global_pid == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    pw_arg args[4];
    size_t n = 0;
    if (row->address != NSYS_NULL)
        args[n++] = arg_int("address", row->address);
    if (row->fault_pc != NSYS_NULL)
        args[n++] = arg_int("fault pc", row->fault_pc);
    const char *module = nsys_string(c->strings, row->module);
    if (module)
        args[n++] = arg_str("module", module);
    /* The faulting code as nsys resolved it: a function name, or its address as text. */
    const char *instruction = nsys_string(c->strings, row->instruction);
    if (instruction)
        args[n++] = arg_str("cpu instruction", instruction);
    pw_event ev = {.name = "CPU page fault", .category = "unified_memory", .args = args,
                   .n_args = n};
    slice_row *dest = model_process_row(&c->model, nsys_global_pid_of(row->global_pid),
                                        "Unified memory", NULL);
    return source_result(model_instant(&c->model, dest, row->start, &ev));
}

const source SOURCE_UM_CPU_FAULTS = {
    "um-faults", &CPU_TABLE, sizeof(cpu_fault_row), offsetof(cpu_fault_row, start), emit_cpu,
    SOURCE_CPU,
};

typedef struct gpu_fault_row {
    int64_t start;
    int64_t end;
    int64_t global_pid;
    int64_t device;
    int64_t address;
    int64_t faults;
    int64_t access_type;
} gpu_fault_row;

static const nsys_column GPU_COLUMNS[] = {
    NSYS_COL_REQ(gpu_fault_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(gpu_fault_row, end, "end", NSYS_INT),
    NSYS_COL(gpu_fault_row, global_pid, "globalPid", NSYS_INT),
    NSYS_COL_REQ(gpu_fault_row, device, "deviceId", NSYS_INT),
    NSYS_COL(gpu_fault_row, address, "address", NSYS_INT),
    NSYS_COL(gpu_fault_row, faults, "numberOfPageFaults", NSYS_INT),
    NSYS_COL(gpu_fault_row, access_type, "faultAccessType", NSYS_INT),
};
static const nsys_table GPU_TABLE = {"CUDA_UM_GPU_PAGE_FAULT_EVENTS", GPU_COLUMNS, 7,
                                     NSYS_ORDER_LONGEST_FIRST};

/* ENUM_CUDA_UNIF_MEM_ACCESS_TYPE */
static const char *const ACCESS_TYPES[] = {"Unknown", "Read", "Write", "Atomic", "Prefetch"};

static int emit_gpu(conv *c, const void *r)
{
    const gpu_fault_row *row = r;
    int check = source_check_interval(row->start, row->end);
    if (check != SOURCE_EMITTED)
        return check;
    if (row->device == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_MISSING_VALUE);
    pw_arg args[4];
    size_t n = 0;
    if (row->faults != NSYS_NULL)
        args[n++] = arg_int("page faults", row->faults);
    if (row->address != NSYS_NULL)
        args[n++] = arg_int("address", row->address);
    if (row->access_type >= 0 && row->access_type < 5)
        args[n++] = arg_str("access type", ACCESS_TYPES[row->access_type]);
    if (row->global_pid != NSYS_NULL)
        args[n++] = arg_int("pid", nsys_pid_of(row->global_pid));
    pw_event ev = {.name = "GPU page faults", .category = "unified_memory", .args = args,
                   .n_args = n};
    slice_row *dest = model_gpu_row(&c->model, row->device, GPU_PLACE_PAGE_FAULTS, "Page faults", NULL);
    return source_result(model_slice(&c->model, dest, row->start, row->end, &ev));
}

const source SOURCE_UM_GPU_FAULTS = {
    "um-faults", &GPU_TABLE, sizeof(gpu_fault_row), offsetof(gpu_fault_row, start),
    emit_gpu, SOURCE_CPU,
};
