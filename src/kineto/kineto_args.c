#include "kineto_args.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"

void kineto_append_uint(buf *out, uint64_t v)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[sizeof digits - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    kineto_put(out, digits + sizeof digits - n, n);
}

void kineto_append_int(buf *out, int64_t v)
{
    if (v < 0) {
        KINETO_PUT_LITERAL(out, "-");
        kineto_append_uint(out, 0 - (uint64_t)v);
    } else {
        kineto_append_uint(out, (uint64_t)v);
    }
}

void kineto_append_us(buf *out, uint64_t ns)
{
    kineto_append_uint(out, ns / 1000);
    unsigned frac = (unsigned)(ns % 1000);
    char tail[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                    (char)('0' + frac % 10)};
    kineto_put(out, tail, 4);
}

void kineto_append_double(buf *out, double v)
{
    if (!isfinite(v)) {
        KINETO_PUT_LITERAL(out, "null");
        return;
    }
    if (v == (double)(int64_t)v && fabs(v) < 9e15) {
        kineto_append_int(out, (int64_t)v);
        return;
    }
    char text[32];
    int n = snprintf(text, sizeof text, "%.17g", v);
    kineto_put(out, text, (size_t)n);
}

/* ---- Strings written many times ------------------------------------------ */

/* What an arg name means to the args writer. */
enum role {
    ROLE_NONE, ROLE_SHARED, ROLE_BYTES, ROLE_DIMS, ROLE_SIZES, ROLE_CORRELATION,
};

/* Cache kinds: a constant string value, or an arg's key on an event that
 * is GPU work or not (the key "stream" differs). */
enum { CACHE_VALUE = 0, CACHE_KEY = 1, CACHE_KEY_GPU_WORK = 2 };

void kineto_strings_init(kineto_strings *c)
{
    memset(c, 0, sizeof *c);
    hmap_init(&c->by_address);
}

void kineto_strings_free(kineto_strings *c)
{
    hmap_free(&c->by_address);
    buf_free(&c->text);
}

/* The cached entry of (s, kind), made by make when missing. */
static uint64_t cached(kineto_strings *c, const char *s, int kind,
                       uint64_t (*make)(kineto_strings *, const char *, int))
{
    size_t slot = (((uintptr_t)s >> 3) ^ ((uintptr_t)s >> 13) ^ (size_t)kind) % KINETO_RECENT;
    if (c->recent[slot].s == s && c->recent[slot].kind == kind)
        return c->recent[slot].entry;
    struct {
        const char *s;
        int64_t kind;
    } key = {s, kind};
    uint64_t *v = hmap_find(&c->by_address, &key, sizeof key);
    uint64_t entry = v ? *v : make(c, s, kind);
    if (!v)
        *hmap_upsert(&c->by_address, &key, sizeof key, NULL) = entry;
    c->recent[slot].s = s;
    c->recent[slot].kind = kind;
    c->recent[slot].entry = entry;
    return entry;
}

static void put_cached(const kineto_strings *c, buf *out, uint64_t entry)
{
    kineto_put(out, c->text.data + (entry >> 32), (entry >> 8) & 0xFFFFFF);
}

static uint64_t make_value(kineto_strings *c, const char *s, int kind)
{
    (void)kind;
    size_t at = c->text.len;
    json_append_string(&c->text, s, strlen(s), false);
    return (uint64_t)at << 32 | (uint64_t)(c->text.len - at) << 8;
}

void kineto_append_constant(kineto_strings *c, buf *out, const char *s)
{
    put_cached(c, out, cached(c, s, CACHE_VALUE, make_value));
}

/* Kineto's name for our arg name on an event of kind k, or NULL. */
static const char *renamed(bool gpu_work, const char *name)
{
    static const struct {
        const char *ours, *kineto;
    } NAMES[] = {
        {"correlation id", "correlation"},
        {"seq", "Sequence number"},
        {"op_id", "Record function id"},
        {"sizes", "Input Dims"},
    };
    if (strcmp(name, "stream") == 0)
        return gpu_work ? NULL : "stream id";
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(name, NAMES[i].ours) == 0)
            return NAMES[i].kineto;
    return NULL;
}

static enum role role_of(const char *name)
{
    static const struct {
        const char *name;
        enum role role;
    } ROLES[] = {
        {"static shared memory", ROLE_SHARED}, {"dynamic shared memory", ROLE_SHARED},
        {"bytes", ROLE_BYTES}, {"grid", ROLE_DIMS}, {"block", ROLE_DIMS},
        {"sizes", ROLE_SIZES}, {"correlation id", ROLE_CORRELATION},
    };
    for (size_t i = 0; i < sizeof ROLES / sizeof ROLES[0]; i++)
        if (strcmp(name, ROLES[i].name) == 0)
            return ROLES[i].role;
    return ROLE_NONE;
}

/* An arg name's key text, "name":, under Kineto's name, with its role. */
static uint64_t make_key(kineto_strings *c, const char *name, int kind)
{
    const char *written = renamed(kind == CACHE_KEY_GPU_WORK, name);
    size_t at = c->text.len;
    written = written ? written : name;
    json_append_string(&c->text, written, strlen(written), false);
    buf_append_byte(&c->text, ':');
    return (uint64_t)at << 32 | (uint64_t)(c->text.len - at) << 8 | role_of(name);
}

/* Skips the blanks at *p. */
static void blanks(const char **p)
{
    while (**p == ' ')
        (*p)++;
}

/* Parses a list of integers and lists ("[[2, 3], []]", as emit_nvtx writes
 * sizes) at *p; false when it is anything else. */
static bool int_list(const char **p, int depth)
{
    if (**p != '[' || depth > 16)
        return false;
    (*p)++;
    blanks(p);
    if (**p == ']') {
        (*p)++;
        return true;
    }
    for (;;) {
        blanks(p);
        if (**p == '[') {
            if (!int_list(p, depth + 1))
                return false;
        } else {
            if (**p == '-')
                (*p)++;
            if (**p < '0' || **p > '9')
                return false;
            while (**p >= '0' && **p <= '9')
                (*p)++;
        }
        blanks(p);
        if (**p == ']') {
            (*p)++;
            return true;
        }
        if (**p != ',')
            return false;
        (*p)++;
    }
}

static bool is_int_list(const char *s)
{
    const char *p = s;
    return int_list(&p, 0) && *p == '\0';
}

/* "(x, y, z)", as kernels.c writes grid and block, as [x, y, z]. */
static bool append_dims(buf *out, const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!(s[i] >= '0' && s[i] <= '9') && s[i] != ',' && s[i] != ' ' && s[i] != '-')
            return false;
    KINETO_PUT_LITERAL(out, "[");
    kineto_put(out, s + 1, n - 2);
    KINETO_PUT_LITERAL(out, "]");
    return true;
}

/* The separator before the next arg; the first opens the args object. */
static void next_arg(buf *out, bool *first)
{
    if (*first)
        KINETO_PUT_LITERAL(out, ",\"args\":{");
    else
        KINETO_PUT_LITERAL(out, ",");
    *first = false;
}

static void append_value(kineto_strings *c, buf *out, kineto_kind k, const pw_arg *a,
                         enum role role)
{
    switch (a->type) {
    case PW_ARG_INT:
        kineto_append_int(out, a->v.i);
        break;
    case PW_ARG_UINT:
        kineto_append_uint(out, a->v.u);
        break;
    case PW_ARG_DOUBLE:
        kineto_append_double(out, a->v.d);
        break;
    case PW_ARG_BOOL:
        if (a->v.b)
            KINETO_PUT_LITERAL(out, "true");
        else
            KINETO_PUT_LITERAL(out, "false");
        break;
    case PW_ARG_CONSTANT_STRING:
        if (a->v.s) {
            kineto_append_constant(c, out, a->v.s);
            break;
        }
        /* fall through */
    case PW_ARG_STRING: {
        const char *s = a->v.s ? a->v.s : "";
        if (k == KINETO_KERNEL && role == ROLE_DIMS && append_dims(out, s))
            break;
        if ((k == KINETO_CPU_OP || k == KINETO_GPU_USER_ANNOTATION) && role == ROLE_SIZES &&
            is_int_list(s)) {
            kineto_put(out, s, strlen(s)); /* Input Dims: a list, as Kineto writes it */
            break;
        }
        json_append_string(out, s, strlen(s), false);
        break;
    }
    }
}

kineto_kind kineto_kind_of(const pw_event *ev)
{
    static const struct {
        const char *ours;
        kineto_kind kind;
    } KINDS[] = {
        {"kernel", KINETO_KERNEL},         {"memcpy", KINETO_MEMCPY},
        {"memset", KINETO_MEMSET},         {"cuda_runtime", KINETO_RUNTIME},
        {"cuda_driver", KINETO_DRIVER},    {"nvtx", KINETO_USER_ANNOTATION},
        {"nvtx_gpu", KINETO_GPU_USER_ANNOTATION}, {"sync", KINETO_SYNC},
    };
    if (!ev->category)
        return KINETO_OTHER;
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (strcmp(ev->category, KINDS[i].ours) == 0) {
            if (KINDS[i].kind != KINETO_USER_ANNOTATION)
                return KINDS[i].kind;
            /* An op range that emit_nvtx named (nvtx_common.c split it). */
            for (size_t a = 0; a < ev->n_args; a++)
                if (strcmp(ev->args[a].name, "op_id") == 0 || strcmp(ev->args[a].name, "seq") == 0)
                    return KINETO_CPU_OP;
            return KINETO_USER_ANNOTATION;
        }
    return KINETO_OTHER;
}

const char *kineto_category(kineto_kind k, const char *ours)
{
    static const char *const NAMES[] = {
        [KINETO_KERNEL] = "kernel",
        [KINETO_MEMCPY] = "gpu_memcpy",
        [KINETO_MEMSET] = "gpu_memset",
        [KINETO_RUNTIME] = "cuda_runtime",
        [KINETO_DRIVER] = "cuda_driver",
        [KINETO_CPU_OP] = "cpu_op",
        [KINETO_USER_ANNOTATION] = "user_annotation",
        [KINETO_GPU_USER_ANNOTATION] = "gpu_user_annotation",
        [KINETO_SYNC] = "cuda_sync",
    };
    return k == KINETO_OTHER ? (ours ? ours : "") : NAMES[k];
}

int64_t kineto_correlation_of(const pw_event *ev)
{
    for (size_t i = 0; i < ev->n_args; i++)
        if (ev->args[i].type == PW_ARG_INT && strcmp(ev->args[i].name, "correlation id") == 0)
            return ev->args[i].v.i;
    return -1;
}

void kineto_append_args(kineto_strings *c, buf *out, kineto_kind k, const pw_event *ev,
                        uint64_t dur_ns, int64_t correlation)
{
    bool first = true, has_shared = false, has_correlation = false;
    int64_t shared = 0, bytes = -1;
    int key_kind = kineto_is_gpu_work(k) ? CACHE_KEY_GPU_WORK : CACHE_KEY;
    for (size_t i = 0; i < ev->n_args; i++) {
        const pw_arg *a = &ev->args[i];
        uint64_t key = cached(c, a->name, key_kind, make_key);
        enum role role = (enum role)(key & 0xFF);
        /* The NVTX sources already leave out what readers rebuild (the
         * default domain, an op range's text made of its parts). */
        next_arg(out, &first);
        put_cached(c, out, key);
        append_value(c, out, k, a, role);
        if (a->type == PW_ARG_INT && role == ROLE_SHARED) {
            shared += a->v.i;
            has_shared = true;
        } else if (a->type == PW_ARG_INT && role == ROLE_BYTES) {
            bytes = a->v.i;
        } else if (role == ROLE_CORRELATION) {
            has_correlation = true;
        }
    }
    /* Kineto's own figures from ours: a kernel's shared memory (static
     * and dynamic), a copy's or set's bandwidth (bytes per ns is GB/s). */
    if (k == KINETO_KERNEL && has_shared) {
        next_arg(out, &first);
        KINETO_PUT_LITERAL(out, "\"shared memory\":");
        kineto_append_int(out, shared);
    }
    if ((k == KINETO_MEMCPY || k == KINETO_MEMSET) && bytes >= 0 && dur_ns > 0) {
        next_arg(out, &first);
        KINETO_PUT_LITERAL(out, "\"memory bandwidth (GB/s)\":");
        kineto_append_double(out, (double)bytes / (double)dur_ns);
    }
    if (correlation >= 0 && !has_correlation) {
        next_arg(out, &first);
        KINETO_PUT_LITERAL(out, "\"correlation\":");
        kineto_append_int(out, correlation);
    }
    if (!first)
        KINETO_PUT_LITERAL(out, "}");
}
