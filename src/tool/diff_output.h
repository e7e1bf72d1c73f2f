/* The formats of a comparison (table, Markdown, CSV, JSON): what `diff`,
 * `series` and the team page print. */
#ifndef NSYSP_TOOL_DIFF_OUTPUT_H
#define NSYSP_TOOL_DIFF_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/diff_model.h"

typedef enum diff_format { DIFF_TABLE, DIFF_MD, DIFF_CSV, DIFF_JSON } diff_format;

typedef struct diff_print_options {
    diff_format format;
    bool color;                  /* table only */
    size_t top;                  /* table and md: at most this many changed rows (0: all) */
    bool all;                    /* table and md: unchanged and minor rows too */
} diff_print_options;

/* One comparison; value is the series value it belongs to (NULL for none).
 * For csv, header says whether to print the header line; for json, the
 * object is printed without a trailing newline. */
void diff_print(FILE *to, const diff_result *r, const diff_side *before, const diff_side *after,
                const char *value, const diff_print_options *o, bool header);

#endif
