/* nsys-perfetto serve: the HTTP server (libmicrohttpd) and its routes.
 *   GET  /                        the page
 *   GET  /api/config              what the page needs to know of the server
 *   GET  /api/reports             the converted reports, newest first
 *   POST /api/reports             upload a report (multipart), converted in the background
 *   GET  /api/reports/ID          its state, or its summary and accounting
 *   GET  /api/reports/ID/trace    its trace
 *   DELETE /api/reports/ID        remove it
 *   GET  /api/compare?before=ID&after=ID   the two side by side (diff's JSON) */
#ifndef NSYSP_WEB_SERVER_H
#define NSYSP_WEB_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "web_clients.h"
#include "web_guard.h"
#include "web_jobs.h"

typedef struct web_server {
    const char *dir;           /* the reports (see web_reports.h) */
    const char *perfetto_ui;   /* the Perfetto UI the page opens */
    uint64_t max_upload;       /* bytes; 0 for no limit but the disk's */
    uint64_t disk_reserve;     /* bytes an upload must leave free on the disk */
    uint64_t open_limit;       /* past this estimate (open_big.h), the page offers
                                  the download and the native engine's command */
    char address[160];         /* host:port served, as the page shows it */
    web_guard guard;           /* the host names it answers to */
    web_jobs *jobs;
    web_clients *clients;
    struct MHD_Daemon *daemon;
} web_server;

/* Listens on bind:port (port 0: any free one) and serves until stopped;
 * 0, or -1 with a one-line reason in err. */
int web_server_start(web_server *srv, const char *bind, int port, char *err, size_t err_size);

/* For the request fuzzer: a server with no listening socket and no thread
 * of its own; connections come by MHD_add_connection and are served by
 * MHD_run. 0 or -1. */
int web_server_start_unlistened(web_server *srv);

/* Stops serving; uploads under way are dropped and their files removed. */
void web_server_stop(web_server *srv);

#endif
