/* --open for traces too big for the browser: Perfetto's native trace
 * processor serves them to the UI (open_big.c). */
#ifndef NSYSP_TOOL_OPEN_BIG_H
#define NSYSP_TOOL_OPEN_BIG_H

#include <signal.h>
#include <stdint.h>

#include "nsys_perfetto.h"

/* What a trace costs trace_processor at its peak, per event written (a flow
 * counts half): 183 B on the generated mix, 198 B on the GindaChen report
 * scaled 100 times (docs/performance.md, "What a trace costs to open"),
 * rounded up. */
enum { OPEN_BYTES_PER_EVENT = 200 };

/* The browser's share: past this estimate, --open uses the native engine
 * (--open-limit changes it). */
#define OPEN_DEFAULT_LIMIT (2ull << 30)

/* The memory trace_processor would need for the trace res describes. */
uint64_t open_estimated_bytes(const nsysp_result *res);

/* Runs the trace processor (engine_path, else trace_processor_shell or
 * trace_processor on PATH) with --httpd on trace, prints the UI's link, and
 * stops it on *stop (Ctrl-C) or after timeout_s (0: none). -1 when there is
 * no such program (nothing printed), else 0 or an nsysp_status after one
 * line. */
int open_with_engine(const char *trace, const char *engine_path, const char *ui,
                     unsigned timeout_s, volatile sig_atomic_t *stop, int quiet);

/* The one line without the program: how to get it, and a --time-range of
 * about the part that fits (session_ns < 0: unknown, not said). */
void open_say_too_big(const char *trace, uint64_t estimate, uint64_t limit, int64_t session_ns);

#endif
