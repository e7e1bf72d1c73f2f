/* The origin of a URL: see url_origin.h. */
#include "url_origin.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* "HTTPS://UI.Example:443/path/" -> "https://ui.example" into out: the
 * origin as a browser sends it (scheme and host lowercased, no default
 * port). */
void url_origin(const char *url, char *out, size_t size)
{
    const char *host = strstr(url, "://");
    size_t n = host ? (size_t)(host + 3 - url) + strcspn(host + 3, "/?#") : strlen(url);
    snprintf(out, size, "%.*s", (int)n, url);
    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    static const char *const DEFAULT_PORTS[][2] = {{"https://", ":443"}, {"http://", ":80"}};
    size_t len = strlen(out);
    for (size_t i = 0; i < 2; i++) {
        size_t scheme = strlen(DEFAULT_PORTS[i][0]), port = strlen(DEFAULT_PORTS[i][1]);
        if (strncmp(out, DEFAULT_PORTS[i][0], scheme) == 0 && len > scheme + port &&
            strcmp(out + len - port, DEFAULT_PORTS[i][1]) == 0)
            out[len - port] = '\0';
    }
}
