/* Answers of the web server: status, body and the headers every answer
 * carries. */
#ifndef NSYSP_WEB_HTTP_H
#define NSYSP_WEB_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <microhttpd.h>

#include "web_guard.h"

/* Queues an answer with body (copied) of content type type. */
enum MHD_Result web_reply(struct MHD_Connection *c, unsigned status, const char *type,
                          const void *body, size_t len);

/* Whether the guard lets this request in (its Host, Origin and
 * Sec-Fetch-Site); if not, queues the refusal and sets *refused to what to
 * return to libmicrohttpd. */
bool web_request_allowed(const web_guard *guard, struct MHD_Connection *c, const char *method,
                         enum MHD_Result *refused);

/* Queues {"error": message} with status. */
enum MHD_Result web_reply_error(struct MHD_Connection *c, unsigned status, const char *message);

/* Queues a response made elsewhere (a file), with the common headers. */
enum MHD_Result web_reply_response(struct MHD_Connection *c, unsigned status,
                                   struct MHD_Response *r);

#endif
