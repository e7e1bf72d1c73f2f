/* --open for traces too big for the browser: Perfetto's native trace
 * processor serves them to the UI (open_big.c). */
#ifndef NSYSP_TOOL_OPEN_BIG_H
#define NSYSP_TOOL_OPEN_BIG_H

#include <signal.h>
#include <stdint.h>

#include "nsys_perfetto.h"

struct ui_commands; /* ui_commands.h */

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
 * trace_processor on PATH) with --httpd on trace and the nsys SQL package
 * (--add-sql-package, a temporary copy removed after), in a process group of
 * its own that ends with us, prints the UI's link with view's commands once
 * it listens, and stops it
 * on *stop (Ctrl-C) or timeout_s after its start (0: none; its loading then
 * has 10 minutes). -1 when there is no program on PATH (nothing printed),
 * else an nsysp_status, after one line unless 0: NSYSP_ERR_INTERRUPTED for
 * Ctrl-C before it listened (no link), NSYSP_ERR_INTERNAL when it did not
 * listen in time or ended by itself. */
int open_with_engine(const char *trace, const char *engine_path, const char *ui,
                     const struct ui_commands *view, unsigned timeout_s, volatile sig_atomic_t *stop,
                     int quiet);

/* A --trace-processor PATH we cannot run: one line naming it and why,
 * NSYSP_ERR_USAGE; NSYSP_OK when it can be run. */
int open_check_engine(const char *given);

/* The one line without the program: how to get it, and a --time-range of
 * about the part that fits (session_ns < 0: unknown, not said). */
void open_say_too_big(const char *trace, uint64_t estimate, uint64_t limit, int64_t session_ns);

#endif
