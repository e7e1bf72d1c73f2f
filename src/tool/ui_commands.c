/* The Perfetto UI's startup commands: parsed and checked as the UI's own
 * schema (zod, ui/src/core/command_manager.ts) and allowlist do, and
 * written back as compact JSON (ui_commands.h). */
#include "ui_commands.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/xalloc.h"

/* ui/src/core/startup_command_allowlist.ts at v58.2. */
static const char *const ALLOWLIST[] = {
    "dev.perfetto.PinTracksByRegex",
    "dev.perfetto.ExpandTracksByRegex",
    "dev.perfetto.CollapseTracksByRegex",
    "dev.perfetto.AddDebugSliceTrack",
    "dev.perfetto.AddDebugSliceTrackWithPivot",
    "dev.perfetto.AddDebugCounterTrack",
    "dev.perfetto.AddDebugCounterTrackWithPivot",
    "dev.perfetto.CreateWorkspace",
    "dev.perfetto.SwitchWorkspace",
    "dev.perfetto.CopyTracksToWorkspaceByRegex",
    "dev.perfetto.CopyTracksToWorkspaceByRegexWithAncestors",
    "dev.perfetto.RunQuery",
    "dev.perfetto.RunQueryAndShowTab",
    "dev.perfetto.AddNoteAtTimestamp",
};

enum { MAX_DEPTH = 64 };

bool ui_command_allowed(const char *id)
{
    for (size_t i = 0; i < sizeof ALLOWLIST / sizeof ALLOWLIST[0]; i++)
        if (strcmp(id, ALLOWLIST[i]) == 0)
            return true;
    return false;
}

static void add_command(ui_commands *list, const char *id)
{
    if (list->n == list->cap) {
        list->cap = list->cap ? 2 * list->cap : 8;
        list->at = xrealloc(list->at, list->cap * sizeof *list->at);
    }
    list->at[list->n++] = (ui_command){.id = xstrdup(id)};
}

static void add_arg(ui_command *c, const char *arg)
{
    c->args = xrealloc(c->args, (c->n_args + 1) * sizeof *c->args);
    c->args[c->n_args++] = xstrdup(arg);
}

void ui_commands_add(ui_commands *list, const char *id, ...)
{
    add_command(list, id);
    va_list ap;
    va_start(ap, id);
    for (const char *arg; (arg = va_arg(ap, const char *));)
        add_arg(&list->at[list->n - 1], arg);
    va_end(ap);
}

void ui_commands_free(ui_commands *list)
{
    for (size_t i = 0; i < list->n; i++) {
        for (size_t k = 0; k < list->at[i].n_args; k++)
            free(list->at[i].args[k]);
        free(list->at[i].args);
        free(list->at[i].id);
    }
    free(list->at);
    *list = (ui_commands){0};
}

/* ---- Reading: a JSON text, checked against the UI's shape ------------- */

typedef struct reader {
    const char *p, *end;
    char *err;
    size_t err_size;
    bool failed;
} reader;

static int fail(reader *r, const char *what)
{
    if (!r->failed)
        snprintf(r->err, r->err_size, "%s", what);
    r->failed = true;
    return -1;
}

static void skip_space(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool take(reader *r, char c)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

static int hex4(reader *r, uint32_t *v)
{
    if (r->end - r->p < 4)
        return fail(r, "not JSON: a \\u escape is cut short");
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return fail(r, "not JSON: a \\u escape is not hexadecimal");
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

static void append_utf8(buf *out, uint32_t cp)
{
    if (cp < 0x80) {
        buf_append_byte(out, (uint8_t)cp);
    } else if (cp < 0x800) {
        buf_append_byte(out, (uint8_t)(0xC0 | cp >> 6));
        buf_append_byte(out, (uint8_t)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        buf_append_byte(out, (uint8_t)(0xE0 | cp >> 12));
        buf_append_byte(out, (uint8_t)(0x80 | (cp >> 6 & 0x3F)));
        buf_append_byte(out, (uint8_t)(0x80 | (cp & 0x3F)));
    } else {
        buf_append_byte(out, (uint8_t)(0xF0 | cp >> 18));
        buf_append_byte(out, (uint8_t)(0x80 | (cp >> 12 & 0x3F)));
        buf_append_byte(out, (uint8_t)(0x80 | (cp >> 6 & 0x3F)));
        buf_append_byte(out, (uint8_t)(0x80 | (cp & 0x3F)));
    }
}

/* A string literal, decoded into out (NULL: checked only). A NUL inside
 * ends the text for C, so it is refused. */
static int read_string(reader *r, buf *out)
{
    if (!take(r, '"'))
        return fail(r, "not JSON: a string was expected");
    while (r->p < r->end && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p++;
        if (c < 0x20)
            return fail(r, "not JSON: a control character inside a string");
        if (c != '\\') {
            if (out)
                buf_append_byte(out, c);
            continue;
        }
        if (r->p == r->end)
            break;
        char e = *r->p++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            static const char DECODED[] = "\"\\/\b\f\n\r\t";
            if (out)
                buf_append_byte(out, (uint8_t)DECODED[simple - "\"\\/bfnrt"]);
            continue;
        }
        uint32_t cp, low;
        if (e != 'u' || hex4(r, &cp) != 0)
            return fail(r, "not JSON: a bad escape inside a string");
        if (cp >= 0xD800 && cp < 0xDC00) {
            if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                return fail(r, "not JSON: a lone surrogate escape");
            r->p += 2;
            if (hex4(r, &low) != 0 || low < 0xDC00 || low > 0xDFFF)
                return fail(r, "not JSON: a lone surrogate escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            return fail(r, "not JSON: a lone surrogate escape");
        }
        if (cp == 0)
            return fail(r, "a string holds a NUL character");
        if (out)
            append_utf8(out, cp);
    }
    if (r->p == r->end)
        return fail(r, "not JSON: a string is not closed");
    r->p++;
    return 0;
}

static int skip_value(reader *r, int depth);

/* The elements of an array or the members of an object, after its opening
 * bracket. */
static int skip_members(reader *r, char close, int depth)
{
    if (take(r, close))
        return 0;
    do {
        if (close == '}' && (read_string(r, NULL) != 0 || !take(r, ':')))
            return fail(r, "not JSON: an object member is malformed");
        if (skip_value(r, depth + 1) != 0)
            return -1;
    } while (take(r, ','));
    return take(r, close) ? 0 : fail(r, "not JSON: an array or object is not closed");
}

/* Any JSON value, checked and passed over (members the UI ignores). */
static int skip_value(reader *r, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(r, "not JSON the UI reads: nested too deeply");
    skip_space(r);
    if (r->p == r->end)
        return fail(r, "not JSON: it ends where a value was expected");
    if (*r->p == '"')
        return read_string(r, NULL);
    if (take(r, '['))
        return skip_members(r, ']', depth);
    if (take(r, '{'))
        return skip_members(r, '}', depth);
    static const char *const WORDS[] = {"true", "false", "null"};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(WORDS[i]);
        if ((size_t)(r->end - r->p) >= n && memcmp(r->p, WORDS[i], n) == 0) {
            r->p += n;
            return 0;
        }
    }
    const char *start = r->p;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    while (r->p < r->end && *r->p && strchr("0123456789.eE+-", *r->p))
        r->p++;
    char *after;
    char number[64];
    size_t n = (size_t)(r->p - start);
    if (n == 0 || n >= sizeof number)
        return fail(r, "not JSON: an unexpected character");
    memcpy(number, start, n);
    number[n] = '\0';
    strtod(number, &after);
    return *after ? fail(r, "not JSON: a malformed number") : 0;
}

/* The "args" member's value: strings only, as the UI's schema asks. */
static int read_args(reader *r, ui_command *c, buf *s)
{
    if (!take(r, '['))
        return fail(r, "a command's \"args\" is not an array of strings");
    if (take(r, ']'))
        return 0;
    do {
        skip_space(r);
        if (r->p == r->end || *r->p != '"')
            return fail(r, "a command's \"args\" is not an array of strings");
        buf_clear(s);
        if (read_string(r, s) != 0)
            return -1;
        add_arg(c, buf_cstr(s));
    } while (take(r, ','));
    return take(r, ']') ? 0 : fail(r, "not JSON: an array is not closed");
}

/* One {"id": ..., "args": [...]} object; other members are passed over, as
 * the UI's schema strips them. */
static int read_command(reader *r, ui_commands *list, buf *s)
{
    if (!take(r, '{'))
        return fail(r, "each command must be an object {\"id\": ..., \"args\": [...]}");
    add_command(list, "");
    ui_command *c = &list->at[list->n - 1];
    bool has_id = false, has_args = false;
    if (!take(r, '}')) {
        do {
            buf_clear(s);
            if (read_string(r, s) != 0 || !take(r, ':'))
                return fail(r, "not JSON: an object member is malformed");
            const char *key = buf_cstr(s);
            if (strcmp(key, "id") == 0) {
                skip_space(r);
                buf_clear(s);
                if (r->p == r->end || *r->p != '"')
                    return fail(r, "a command's \"id\" is not a string");
                if (read_string(r, s) != 0)
                    return -1;
                free(c->id);
                c->id = xstrdup(buf_cstr(s));
                has_id = true;
            } else if (strcmp(key, "args") == 0) {
                if (has_args)
                    return fail(r, "a command has \"args\" twice");
                if (read_args(r, c, s) != 0)
                    return -1;
                has_args = true;
            } else if (skip_value(r, 2) != 0) {
                return -1;
            }
        } while (take(r, ','));
        if (!take(r, '}'))
            return fail(r, "not JSON: an object is not closed");
    }
    if (!has_id || !has_args)
        return fail(r, has_id ? "a command has no \"args\" (the UI then drops every command; "
                                "give \"args\": [] for none)"
                              : "a command has no \"id\"");
    if (!ui_command_allowed(c->id)) {
        char what[512];
        snprintf(what, sizeof what, "%.200s is not on the Perfetto UI's startup allowlist: the "
                 "UI would block it", c->id);
        return fail(r, what);
    }
    return 0;
}

int ui_commands_parse(const char *text, size_t len, ui_commands *list, char *err,
                      size_t err_size)
{
    reader r = {.p = text, .end = text + len, .err = err, .err_size = err_size};
    buf s = {0};
    *list = (ui_commands){0};
    int rc = -1;
    if (!take(&r, '[')) {
        fail(&r, "not a JSON array of startup commands ([{\"id\": ..., \"args\": [...]}, ...])");
    } else if (!take(&r, ']')) {
        do {
            if (read_command(&r, list, &s) != 0)
                break;
        } while (take(&r, ','));
        if (!r.failed && !take(&r, ']'))
            fail(&r, "not JSON: the array is not closed");
    }
    skip_space(&r);
    if (!r.failed && r.p != r.end)
        fail(&r, "not JSON: text follows the array");
    rc = r.failed ? -1 : 0;
    if (rc != 0)
        ui_commands_free(list);
    buf_free(&s);
    return rc;
}

/* ---- Writing ---------------------------------------------------------- */

void ui_commands_json(const ui_commands *list, buf *out)
{
    buf_append_byte(out, '[');
    for (size_t i = 0; i < list->n; i++) {
        const ui_command *c = &list->at[i];
        buf_append_str(out, i ? ",{\"id\":" : "{\"id\":");
        json_append_string(out, c->id, strlen(c->id), false);
        buf_append_str(out, ",\"args\":[");
        for (size_t k = 0; k < c->n_args; k++) {
            if (k)
                buf_append_byte(out, ',');
            json_append_string(out, c->args[k], strlen(c->args[k]), false);
        }
        buf_append_str(out, "]}");
    }
    buf_append_byte(out, ']');
}

void url_encode(const char *s, size_t len, buf *out)
{
    static const char HEX[] = "0123456789ABCDEF";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            buf_append_byte(out, c);
        } else {
            buf_append_byte(out, '%');
            buf_append_byte(out, (uint8_t)HEX[c >> 4]);
            buf_append_byte(out, (uint8_t)HEX[c & 15]);
        }
    }
}
