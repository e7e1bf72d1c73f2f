/* Fair to every client: deadlines that libmicrohttpd's idle timeout lacks.
 *
 * The idle timeout fires only on silence, so a client that trickles one
 * header byte a second, or an upload that brings a few bytes a minute, holds
 * its connection forever; a few hundred of them fill the server. Here every
 * connection is registered while open, and a reaper thread cuts off (with
 * shutdown(), which libmicrohttpd then sees as the client leaving):
 *   - a request whose headers are not all in WEB_HEADER_DEADLINE_S seconds
 *     after the connection opened or its previous request ended;
 *   - an upload that brings less than WEB_BODY_MIN_BYTES in any
 *     WEB_BODY_WINDOW_S seconds.
 * (The number of connections per client address is libmicrohttpd's own
 * limit: see web_server.c.) */
#ifndef NSYSP_WEB_CLIENTS_H
#define NSYSP_WEB_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <microhttpd.h>

enum {
    WEB_HEADER_DEADLINE_S = 20,
    WEB_BODY_WINDOW_S = 20,
    WEB_BODY_MIN_BYTES = 16 * 1024,
};

typedef struct web_clients web_clients;

/* Starts the reaper; NULL on failure. */
web_clients *web_clients_start(void);

/* Stops the reaper (after the daemon stopped: no connection is left). */
void web_clients_stop(web_clients *clients);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback (cls: the
 * web_clients): registers connections as they open, forgets them as they
 * close. */
void web_clients_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode code);

/* The request's headers are in: until it is answered, its body (if any)
 * must keep coming. */
void web_clients_headers_in(struct MHD_Connection *c);

/* Bytes of the request's body arrived. */
void web_clients_body_in(struct MHD_Connection *c, size_t bytes);

/* The server answers: the client's pace is its own (the idle timeout). */
void web_clients_answering(struct MHD_Connection *c);

/* The request was answered: the connection waits for the next one's
 * headers (keep-alive). */
void web_clients_request_done(struct MHD_Connection *c);

#endif
