/* Writing JSON text with stdio. */
#ifndef NSYSP_COMMON_JSON_H
#define NSYSP_COMMON_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal; '<' and '>' are escaped too, so the
 * text is safe wherever a page puts it, and bytes that are not UTF-8 become
 * U+FFFD, so the JSON is valid whatever a report or a client named. */
void json_string(FILE *out, const char *s);

#endif
