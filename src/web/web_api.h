/* The routes that read or remove reports (uploads: web_upload.h). */
#ifndef NSYSP_WEB_API_H
#define NSYSP_WEB_API_H

#include "web_server.h"
#include "web_http.h"

enum MHD_Result web_api_page(web_server *srv, struct MHD_Connection *c);
enum MHD_Result web_api_config(web_server *srv, struct MHD_Connection *c);
enum MHD_Result web_api_list(web_server *srv, struct MHD_Connection *c);
/* id is checked by the router (report_id_valid). */
enum MHD_Result web_api_report(web_server *srv, struct MHD_Connection *c, const char *id);
enum MHD_Result web_api_trace(web_server *srv, struct MHD_Connection *c, const char *id);
enum MHD_Result web_api_delete(web_server *srv, struct MHD_Connection *c, const char *id);

#endif
