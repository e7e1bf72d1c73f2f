/* --open: serve a finished trace to the Perfetto UI from 127.0.0.1. */
#ifndef NSYSP_CLI_SERVE_H
#define NSYSP_CLI_SERVE_H

#include <signal.h>

/* Serves path on 127.0.0.1 (port 9001, Perfetto's, or the next free one)
 * to the Perfetto UI at ui (https://ui.perfetto.dev, or a team's own copy),
 * prints the UI's link (opening it with xdg-open when there is a display),
 * and returns once the UI fetched the whole file or *stop is set (Ctrl-C).
 * Returns 0, or an nsysp_status with a message on stderr. */
int serve_trace(const char *path, const char *ui, volatile sig_atomic_t *stop, int quiet);

#endif
