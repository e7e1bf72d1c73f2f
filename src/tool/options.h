/* Conversion options from text, shared by the command line and the web
 * page's form fields. */
#ifndef NSYSP_TOOL_OPTIONS_H
#define NSYSP_TOOL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "nsys_perfetto.h"

/* "kernel, cuda-api, ..." (each name once), for help and error messages. */
const char *source_names(void);

/* "short", "demangled" or "mangled"; returns 0 or -1. */
int parse_kernel_names(const char *text, nsysp_kernel_names *kind);

/* Whether text is an http:// or https:// URL (--perfetto-ui). */
bool is_http_url(const char *text);

/* A percentage 0-100; returns 0 or -1. */
int parse_percentage(const char *text, double *pct);

/* "90s", "30m", "2h" or plain seconds (fractions allowed) into seconds, for
 * series --timeout and serve --job-timeout; 0 or -1. */
int parse_duration(const char *text, double *seconds);

/* A size in bytes, with an optional K, M, G or T (powers of 1024): "2G"
 * -> 2147483648. Returns 0 or -1. */
int parse_size(const char *text, unsigned long long *bytes);

/* "START:END" with units ns, us, ms or s into opt's time range; 0 or -1. */
int parse_time_range(const char *text, nsysp_options *opt);

/* A regular expression as --nvtx-filter and --match take it: POSIX
 * extended, within the library's bounds on its cost (no back-references,
 * see common/regex_limits.h). Returns 0, or -1 with a one-line reason in
 * why. */
int parse_regex(const char *text, char *why, size_t size);

/* Splits a comma-separated list of source names in place into names[];
 * returns how many, or -1 naming the unknown one in *bad. */
int parse_sources(char *list, const char **names, size_t max, const char **bad);

#endif
