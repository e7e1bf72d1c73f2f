/* POST /api/reports: a multipart upload (the report in field "report", the
 * conversion options in the others), streamed to disk by libmicrohttpd's
 * post processor, then queued for conversion. */
#ifndef NSYSP_WEB_UPLOAD_H
#define NSYSP_WEB_UPLOAD_H

#include "web_http.h"
#include "web_server.h"

/* One call of the access handler for the upload: the first creates the
 * upload's state in *state, the next ones stream data, the last answers. */
enum MHD_Result web_upload(web_server *srv, struct MHD_Connection *c, void **state,
                           const char *data, size_t *size);

/* The request is over: an upload not queued for conversion (refused,
 * truncated, cut off, server stopping) leaves no file behind. */
void web_upload_end(void *state);

#endif
