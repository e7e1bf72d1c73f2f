/* What --open asks the Perfetto UI to show once the trace is loaded: the
 * UI's startup commands (ui_commands.h) in its deep link, and the nsys
 * SQL package loaded (docs/open.md, "Opens ready to work"). Shared by the
 * converter's --open, `ranks --open` and the team page's Open. */
#ifndef NSYSP_TOOL_OPEN_VIEW_H
#define NSYSP_TOOL_OPEN_VIEW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "ui_commands.h"

/* The longest link given: Linux passes one argument of at most 128 KiB
 * (MAX_ARG_STRLEN, NUL included) to a program, so xdg-open, and the browser
 * it starts, get a longer link cut off (E2BIG). Chromium itself takes 2 MB
 * and the UI's router any length (measured: docs/open.md). */
enum { OPEN_LINK_MAX = 128 * 1024 - 1 };

/* Who runs the trace's queries: the UI's WebAssembly engine (the package
 * then runs as a script at start) or trace_processor_shell --httpd (the
 * package is given to it with --add-sql-package). */
typedef enum open_engine { OPEN_ENGINE_BROWSER, OPEN_ENGINE_NATIVE } open_engine;

/* A note on the timeline: ts in the trace's nanoseconds. */
typedef struct open_note {
    int64_t ts;
    const char *text;
} open_note;

/* The view of a converted trace: GPU groups expanded, the utilization rows
 * pinned, the package loaded and a tab with the busiest GPU's kernels.
 * The package's script (browser) is the whole package when the link holds
 * it, else the modules the tab needs (whole: false). */
void open_view_trace(ui_commands *list, open_engine engine, bool whole);

/* The view of a `ranks --trace` overview: rank groups expanded, the
 * slowest rank's (its group's name; NULL: none) pinned with its GPU
 * utilization, notes, and a tab of the stragglers (a query's text). */
void open_view_ranks(ui_commands *list, const char *slowest, const open_note *notes,
                     size_t n_notes, const char *stragglers_sql);

/* The commands of --open-view's value: NULL for the view given in *list
 * (kept), "none" for none (list emptied), else a file of the user's
 * (replaces it). 0, or NSYSP_ERR_USAGE after one line naming the file. */
int open_view_choose(const char *view_arg, ui_commands *list);

/* The UI's link, ui + "#!/?" + url=trace_url (NULL: none, the native
 * engine) + startupCommands=list (none when empty), into link. 0, or -1
 * when it passes OPEN_LINK_MAX. */
int open_view_link(const char *ui, const char *trace_url, const ui_commands *list, buf *link);

/* Whether list's link stays within OPEN_LINK_MAX with any trace --open
 * serves (measured with the longest URL it gives): 0, or NSYSP_ERR_USAGE
 * after one line naming source (the view's file). */
int open_view_check(const char *ui, const ui_commands *list, const char *source);

/* Our view for --open of a converted trace, into list (empty): the whole
 * package when the link holds it, else the tab's modules (said on stderr). */
void open_view_ours(open_engine engine, const char *ui, ui_commands *list);

/* The nsys package as files for trace_processor_shell --add-sql-package:
 * written under a new temporary directory, its package directory (…/nsys)
 * into dir. 0, or -1 with errno. */
int open_view_write_package(char dir[PATH_MAX]);

/* Removes what open_view_write_package wrote. */
void open_view_remove_package(const char *dir);

/* The JSON `nsys-perfetto sql --ui-settings` prints: per setting id of the
 * UI, its value: startupCommands (GPU groups expanded, utilization pinned,
 * harmless on other traces) and perfetto.CoreCommands#Macros ("nsys: ..."
 * macros, each loading the package modules it reads). */
void open_view_ui_settings(buf *out);

/* The package as one script, comments and repeated blanks taken out (the
 * link's size), of every module (n 0) or those named and their includes. */
void open_view_package_script(const char *const *names, size_t n, buf *out);

#endif
