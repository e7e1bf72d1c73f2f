#include "web_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

enum MHD_Result web_reply_response(struct MHD_Connection *c, unsigned status,
                                   struct MHD_Response *r)
{
    if (!r)
        return MHD_NO;
    /* No sniffing, no framing by other sites, nothing from elsewhere. */
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    if (!MHD_get_response_header(r, "Cache-Control"))
        MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

enum MHD_Result web_reply(struct MHD_Connection *c, unsigned status, const char *type,
                          const void *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    return web_reply_response(c, status, r);
}

enum MHD_Result web_reply_error(struct MHD_Connection *c, unsigned status, const char *message)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return MHD_NO;
    fputs("{\"error\":", out);
    json_string(out, message);
    fputs("}\n", out);
    if (fclose(out) != 0) {
        free(text);
        return MHD_NO;
    }
    enum MHD_Result ok = web_reply(c, status, "application/json", text, len);
    free(text);
    return ok;
}

bool web_request_allowed(const web_guard *guard, struct MHD_Connection *c, const char *method,
                         enum MHD_Result *refused)
{
    unsigned status;
    const char *why;
    if (web_guard_allows(guard, method, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"),
                         MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"),
                         MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site"),
                         &status, &why))
        return true;
    *refused = web_reply_error(c, status, why);
    return false;
}
