/* DIAGNOSTIC_EVENT: Nsight Systems' own messages (profiling started,
 * warnings, errors) as instants on a report-level "Diagnostics" track,
 * with severity and source. */
#include "source.h"

typedef struct diagnostic_row {
    int64_t timestamp;
    int64_t source;
    int64_t severity;
    const char *text;
} diagnostic_row;

static const nsys_column COLUMNS[] = {
    NSYS_COL_REQ(diagnostic_row, timestamp, "timestamp", NSYS_INT),
    NSYS_COL(diagnostic_row, source, "source", NSYS_INT),
    NSYS_COL(diagnostic_row, severity, "severity", NSYS_INT),
    NSYS_COL(diagnostic_row, text, "text", NSYS_TEXT),
};
static const nsys_table TABLE = {"DIAGNOSTIC_EVENT", COLUMNS, 4, NSYS_ORDER_BY("timestamp")};

/* ENUM_DIAGNOSTIC_SEVERITY_LEVEL and ENUM_DIAGNOSTIC_SOURCE_TYPE */
static const char *const SEVERITIES[] = {"Unknown", "Info", "Warning", "Error", "Verbose"};
static const char *const SOURCES_OF[] = {"Unknown", "Injection", "Daemon", "Analysis"};

static int emit(conv *c, const void *r)
{
    const diagnostic_row *row = r;
    pw_arg args[2];
    size_t n = 0;
    if (row->severity >= 0 && row->severity < 5)
        args[n++] = arg_str("severity", SEVERITIES[row->severity]);
    if (row->source >= 0 && row->source < 4)
        args[n++] = arg_str("source", SOURCES_OF[row->source]);
    buf_clear(&c->scratch);
    const char *text = row->text ? utf8_sanitize(row->text, strlen(row->text), &c->scratch) : "";
    pw_event ev = {.type = PW_INSTANT, .name = text, .category = "diagnostic", .args = args,
                   .n_args = n};
    track *t = model_global_track(&c->model, "Diagnostics");
    return source_result(slicer_event(&c->model.slices, t, row->timestamp, &ev));
}

const source SOURCE_DIAGNOSTICS = {
    "diagnostics", &TABLE, sizeof(diagnostic_row), offsetof(diagnostic_row, timestamp), emit,
    SOURCE_CPU,
};
