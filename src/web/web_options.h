/* The conversion options of the page's form, as text fields, and how they
 * become nsysp_options (with the command line's parsers). */
#ifndef NSYSP_WEB_OPTIONS_H
#define NSYSP_WEB_OPTIONS_H

#include <stddef.h>

#include "nsys_perfetto.h"

enum { WEB_OPTION_MAX = 1024, WEB_LIST_MAX = 64 };

typedef struct web_options {
    char kernel_names[WEB_OPTION_MAX];        /* short | demangled | mangled */
    char min_stream_activity[WEB_OPTION_MAX]; /* percentage */
    char nvtx_domains[WEB_OPTION_MAX];        /* comma-separated */
    char nvtx_filter[WEB_OPTION_MAX];         /* POSIX extended regex */
    char time_range[WEB_OPTION_MAX];          /* START:END */
    char sources[WEB_OPTION_MAX];             /* comma-separated */
} web_options;

/* Appends a chunk of form field key's value; -1 for an unknown field or a
 * value longer than WEB_OPTION_MAX - 1. */
int web_options_append(web_options *o, const char *key, const char *data, size_t size);

/* The parsed form of web_options; the option strings point into it. */
typedef struct web_parsed_options {
    web_options text;
    nsysp_options opt;
    const char *domains[WEB_LIST_MAX], *sources[WEB_LIST_MAX];
} web_parsed_options;

/* Fills p from o; -1 with a one-line reason in err for a bad field. */
int web_options_parse(const web_options *o, web_parsed_options *p, char *err, size_t err_size);

#endif
