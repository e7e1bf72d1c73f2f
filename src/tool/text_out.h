/* Names in the command line's text outputs (tables, CSV, Markdown, SVG,
 * error lines). A report's names and a log's lines are other programs'
 * bytes: they may be invalid UTF-8 or hold control characters that a
 * terminal obeys (ESC[2J clears it) and that break a table's row. Every
 * text output writes them through here, so that it is valid UTF-8 and
 * shows every character:
 *   - bytes that are not UTF-8 become U+FFFD, as the trace repairs them;
 *   - C0 controls and DEL become their pictures (U+2400-U+241F, U+2421:
 *     ESC shows as "␛", a newline as "␊"), C1 controls (U+0080-U+009F,
 *     which some terminals also obey) become U+FFFD.
 * JSON needs none of this: json_string escapes. */
#ifndef NSYSP_TOOL_TEXT_OUT_H
#define NSYSP_TOOL_TEXT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* printf to `to`, the text as shown but its line ends kept: for messages
 * that quote paths and names (a file name may hold ESC too). */
void text_printf(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s as shown into out (NUL-terminated, cut at a character boundary when
 * out is too small). */
void text_visible(const char *s, char *out, size_t size);

/* How many characters s shows as. */
size_t text_width(const char *s);

/* s as shown, left-aligned in a column of width characters: cut to width,
 * or padded with blanks (a terminal table). */
void text_cell(FILE *to, const char *s, int width);

/* s as shown, cut to max characters with "..." in the last three when
 * longer (max 3 or less: never cut), escaped for XML text and attributes;
 * U+FFFE and U+FFFF, which XML 1.0 excludes, become U+FFFD. */
void text_xml(FILE *to, const char *s, size_t max);

/* s as shown in a Markdown table cell: | \ ` * _ < > [ ] & escaped. */
void text_md(FILE *to, const char *s);

/* s as shown as one CSV field (RFC 4180: quoted when it holds a comma or
 * a quote, quotes doubled). */
void text_csv(FILE *to, const char *s);

/* Flushes and closes standard output at a command's end: output lost to a
 * full disk or a closed pipe is an error (one line, exit 6), not a silent
 * success. Returns status, or NSYSP_ERR_OUTPUT when status was OK and the
 * output failed (a command that failed has said why: nothing more). */
int text_close_stdout(const char *command, int status);

#endif
