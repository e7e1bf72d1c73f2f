/* Writing JSON text. */
#ifndef NSYSP_COMMON_JSON_H
#define NSYSP_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "buf.h"

/* Writes s as a JSON string literal; '<' and '>' are escaped too, so the
 * text is safe wherever a page puts it, and bytes that are not UTF-8 become
 * U+FFFD, so the JSON is valid whatever a report or a client named. */
void json_string(FILE *out, const char *s);

/* Appends the n bytes at s to out as a JSON string literal, quotes
 * included: '"', '\\' and control characters escaped, bytes that are not
 * UTF-8 written as U+FFFD; with html_safe, '<', '>' and DEL escaped too (as
 * json_string). Runs of plain ASCII are copied whole: trace files hold
 * millions of names. */
void json_append_string(buf *out, const char *s, size_t n, bool html_safe);

#endif
