/* The origin of a URL as a browser sends it in Origin headers: what --open
 * and `serve` compare a Perfetto UI's requests with. */
#ifndef NSYSP_TOOL_URL_ORIGIN_H
#define NSYSP_TOOL_URL_ORIGIN_H

#include <stddef.h>

/* "HTTPS://UI.Example:443/path/" -> "https://ui.example" into out. */
void url_origin(const char *url, char *out, size_t size);

#endif
