/* NVTX_EVENTS: the ranges and marks users put in their code.
 *
 *   push/pop ranges (59, NVTXT 70)  nested, on the thread's "NVTX" row of
 *                                   their domain ("NVTX · NCCL")
 *   start/end ranges (60, 71)       on lanes of a process-wide row per domain
 *                                   ("NVTX start/end · NCCL"): they overlap
 *                                   freely and may end on another thread
 *   marks (34)                      instants on the thread's NVTX row
 *
 * Names come from text or from a registered string (textId); a PyTorch op
 * range is named by its op, its parts args (nvtx_common.h); category,
 * colour and payload become args. Ranges still open at the end of the
 * report are closed there and say so. Naming rows (domains, categories,
 * threads) are read up front with the report's metadata (nsys_meta.c). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "nvtx_common.h"
#include "nsys/nsys_ids.h"

typedef struct nvtx_row {
    int64_t start;
    int64_t end;
    int64_t event_type;
    int64_t category;
    int64_t color;
    const char *text;
    int64_t global_tid;
    int64_t end_global_tid;
    int64_t text_id;
    int64_t domain;
    int64_t u64;
    int64_t i64;
    double dbl;
    int64_t u32;
    int64_t i32;
    double flt;
    const char *json;
    int64_t json_id;
} nvtx_row;

#define INT(field, name) NSYS_COL(nvtx_row, field, name, NSYS_INT)
#define TEXT(field, name) NSYS_COL(nvtx_row, field, name, NSYS_TEXT)
static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(nvtx_row, start, "start", NSYS_INT),
    NSYS_COL_REQ(nvtx_row, end, "end", NSYS_INT),
    NSYS_COL_REQ(nvtx_row, event_type, "eventType", NSYS_INT),
    INT(category, "category"),
    INT(color, "color"),
    TEXT(text, "text"),
    NSYS_COL_REQ(nvtx_row, global_tid, "globalTid", NSYS_INT),
    INT(end_global_tid, "endGlobalTid"),
    INT(text_id, "textId"),
    INT(domain, "domainId"),
    INT(u64, "uint64Value"),
    INT(i64, "int64Value"),
    NSYS_COL(nvtx_row, dbl, "doubleValue", NSYS_REAL),
    INT(u32, "uint32Value"),
    INT(i32, "int32Value"),
    NSYS_COL(nvtx_row, flt, "floatValue", NSYS_REAL),
    TEXT(json, "jsonText"),
    INT(json_id, "jsonTextId"),
};
#undef INT
#undef TEXT

enum {
    NVTX_MARK = 34,
    NVTX_PUSH_POP = 59,
    NVTX_START_END = 60,
    NVTXT_PUSH_POP = 70,
    NVTXT_START_END = 71,
};

static const nsys_table TABLE = {
    /* Open ranges (end NULL) are the longest: they come first at equal start. */
    "NVTX_EVENTS", COLUMNS, sizeof COLUMNS / sizeof COLUMNS[0],
    NSYS_ORDER_LONGEST_FIRST,
    "eventType IN (34, 59, 60, 70, 71)",
};

/* The payload as one arg; nsys stores it in the column of its type. */
static bool payload_arg(const nvtx_row *row, const conv *c, pw_arg *arg)
{
    if (row->i64 != NSYS_NULL)
        *arg = arg_int("payload", row->i64);
    else if (row->u64 != NSYS_NULL)
        *arg = (pw_arg){.name = "payload", .type = PW_ARG_UINT, .v.u = (uint64_t)row->u64};
    else if (row->i32 != NSYS_NULL)
        *arg = arg_int("payload", row->i32);
    else if (row->u32 != NSYS_NULL)
        *arg = arg_int("payload", row->u32);
    else if (!isnan(row->dbl) || !isnan(row->flt))
        *arg = (pw_arg){.name = "payload", .type = PW_ARG_DOUBLE,
                        .v.d = isnan(row->dbl) ? row->flt : row->dbl};
    else if (row->json || nsys_string(c->strings, row->json_id))
        *arg = arg_str("payload", row->json ? row->json : nsys_string(c->strings, row->json_id));
    else
        return false;
    return true;
}

static int emit(conv *c, const void *r)
{
    const nvtx_row *row = r;
    if (row->start == NSYS_NULL)
        return SOURCE_SKIPPED(NSYSP_SKIP_NULL_TIMESTAMP);
    bool is_mark = row->event_type == NVTX_MARK;
    bool open_range = !is_mark && row->end == NSYS_NULL;
    if (!is_mark && !open_range && !source_time_in_range(row->end))
        return SOURCE_SKIPPED(NSYSP_SKIP_TIME_OUT_OF_RANGE);
    /* Ranges still open at the end of the report end there. */
    int64_t end = is_mark ? row->start : open_range ? c->report_end : row->end;
    if (end < row->start) {
        if (!open_range)
            return SOURCE_SKIPPED(NSYSP_SKIP_END_BEFORE_START);
        end = row->start;
    }

    int64_t gpid = nsys_global_pid_of(row->global_tid);
    nvtx_name names;
    if (!nvtx_resolve(c, gpid, row->domain, row->text, row->text_id, &names))
        return SOURCE_SKIPPED(NSYSP_SKIP_FILTERED);
    const char *domain_name = names.domain_label;
    int64_t domain = row->domain == NSYS_NULL ? 0 : row->domain;

    pw_arg args[10 + NVTX_TORCH_ARGS];
    size_t n = 0;
    /* No domain arg means the default domain (docs/timeline.md): it was a tenth of
     * an NVTX slice's bytes. */
    if (domain_name)
        args[n++] = arg_str("domain", domain_name);
    if (row->category != NSYS_NULL && row->category != 0) {
        const char *cat = nsys_nvtx_category_name(c->meta, gpid, domain, row->category);
        args[n++] = cat ? arg_str("category", cat) : arg_int("category", row->category);
    }
    char color[16];
    if (row->color != NSYS_NULL) {
        snprintf(color, sizeof color, "#%06" PRIx64, (uint64_t)row->color & 0xFFFFFF);
        args[n++] = arg_str("color", color);
    }
    if (payload_arg(row, c, &args[n]))
        n++;
    if (open_range)
        args[n++] = (pw_arg){.name = "unterminated", .type = PW_ARG_BOOL, .v.b = true};
    if (row->end_global_tid != NSYS_NULL && row->end_global_tid != row->global_tid)
        args[n++] = arg_int("end thread", nsys_tid_of(row->end_global_tid));
    bool start_end = row->event_type == NVTX_START_END || row->event_type == NVTXT_START_END;
    /* Start/end ranges sit on a process row: their thread is an arg. Marks
     * are flagged, since an instant reads back like an empty range. */
    if (start_end && !is_mark)
        args[n++] = arg_int("tid", model_tid(&c->model, row->global_tid));
    if (is_mark)
        args[n++] = (pw_arg){.name = "mark", .type = PW_ARG_BOOL, .v.b = true};
    n += nvtx_torch_args(&names, args + n);

    pw_event ev = {.name = names.name, .category = "nvtx", .args = args, .n_args = n};
    int rc;
    if (is_mark) {
        slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_NVTX, domain_name);
        rc = model_instant(&c->model, dest, row->start, &ev);
    } else if (start_end) {
        slice_row *dest = model_process_row(&c->model, gpid, "NVTX start/end", domain_name);
        rc = model_slice(&c->model, dest, row->start, end, &ev);
    } else {
        slice_row *dest = model_thread_row(&c->model, row->global_tid, ROW_NVTX, domain_name);
        rc = model_slice(&c->model, dest, row->start, end, &ev);
    }
    return source_result(rc);
}

const source SOURCE_NVTX = {
    "nvtx", &TABLE, sizeof(nvtx_row), offsetof(nvtx_row, start), emit, SOURCE_CPU,
};
