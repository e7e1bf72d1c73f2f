/* The Perfetto UI's startup commands (v58.2): a JSON array of
 * {"id": "dev.perfetto.X", "args": ["...", ...]}, as its deep link
 * (#!/?startupCommands=...), its "Startup Commands" setting and its macros
 * take them. The UI runs only the ids on its allowlist
 * (ui/src/core/startup_command_allowlist.ts) and drops the whole list when
 * one entry does not match its schema, so both are checked here, before a
 * link is given. */
#ifndef NSYSP_TOOL_UI_COMMANDS_H
#define NSYSP_TOOL_UI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

typedef struct ui_command {
    char *id;
    char **args;
    size_t n_args;
} ui_command;

typedef struct ui_commands {
    ui_command *at;
    size_t n, cap;
} ui_commands;

/* Appends a command; args are copied, the list ends with NULL. */
void ui_commands_add(ui_commands *list, const char *id, ...) __attribute__((sentinel));
void ui_commands_free(ui_commands *list);

/* Whether the UI runs id at startup (its allowlist). */
bool ui_command_allowed(const char *id);

/* Parses text (len bytes) as a list of commands into *list: 0, or -1 with
 * one sentence in err (not JSON, not the UI's shape, an id the UI blocks:
 * a macro's id too, as the UI blocks it where the macro is not defined). */
int ui_commands_parse(const char *text, size_t len, ui_commands *list, char *err,
                      size_t err_size);

/* Appends the list as compact JSON. */
void ui_commands_json(const ui_commands *list, buf *out);

/* Appends s with every byte but A-Z a-z 0-9 - _ . ~ as %XX, as a URL's
 * query value. */
void url_encode(const char *s, size_t len, buf *out);

#endif
