/* Two reports of the server side by side: GET /api/compare?before=ID&after=ID
 * answers `nsys-perfetto diff`'s JSON (docs/diff.md) for them, from the
 * full summaries kept beside their traces (one run a side: noise is not
 * judged). */
#ifndef NSYSP_WEB_COMPARE_H
#define NSYSP_WEB_COMPARE_H

#include "nsys_perfetto.h"
#include "web_http.h"
#include "web_server.h"

/* Keeps a converted report's whole summary in DIR/ID/summary.tsv; 0 or -1. */
int web_summary_write(const char *dir, const char *id, const nsysp_summary *summary);

enum MHD_Result web_api_compare(web_server *srv, struct MHD_Connection *c);

#endif
