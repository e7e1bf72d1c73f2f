/* --open: serve one finished trace to the Perfetto UI from 127.0.0.1, on
 * the HTTP stack and behind the guard of `serve` (libmicrohttpd,
 * web_guard). The UI opens https://ui.perfetto.dev/#!/?url=http://127.0.0.1:PORT/NAME
 * (or the same on the UI given by --perfetto-ui) and fetches the trace; the
 * link's startupCommands lay it out (tool/open_view.h). */
#ifndef NSYSP_WEB_OPEN_H
#define NSYSP_WEB_OPEN_H

#include <signal.h>

struct ui_commands; /* tool/ui_commands.h */

enum { WEB_OPEN_FIRST_PORT = 9001, WEB_OPEN_PORTS_TRIED = 20 };

/* Serves the file at path on 127.0.0.1 (port 9001, Perfetto's, or the
 * next free one) to the Perfetto UI at ui (https://ui.perfetto.dev, or a
 * team's own copy), prints the UI's link with view's commands (opening it with xdg-open when
 * there is a display), and returns once the UI fetched the whole file (a
 * complete GET without Range whose Origin is the UI's), *stop is set
 * (Ctrl-C), or timeout_s seconds passed (0: no limit). Only loopback host
 * names are answered (web_guard): other Hosts get 403 and the serving goes
 * on, as it does for every other fetch.
 * Returns 0, or an nsysp_status with a message on stderr. */
int web_open_trace(const char *path, const char *ui, const struct ui_commands *view,
                   unsigned timeout_s, volatile sig_atomic_t *stop, int quiet);

#endif
