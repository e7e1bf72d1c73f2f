/* result.json of a report: what the page shows of a finished conversion. */
#ifndef NSYSP_WEB_RESULT_H
#define NSYSP_WEB_RESULT_H

#include <stdint.h>

#include "nsys_perfetto.h"
#include "web_options.h"

/* How many rows per summary category the page shows (the longest). */
enum { WEB_SUMMARY_TOP = 15 };

typedef struct web_conversion {
    const char *id, *name;           /* the server's id, the client's file name */
    const web_options *options;
    nsysp_status status;
    const char *error;               /* one line, when status is not NSYSP_OK */
    const nsysp_result *result;      /* accounting (--stats) when converted */
    const nsysp_summary *summary;    /* NULL when it could not be made */
    double seconds;
    uint64_t input_bytes, trace_bytes;
} web_conversion;

/* Writes the conversion as JSON into DIR/ID/result.json; 0 or -1. */
int web_result_write(const char *dir, const web_conversion *c);

#endif
