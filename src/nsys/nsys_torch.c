#include "nsys_torch.h"

#include <stdio.h>
#include <string.h>

static bool skip(const char **p, const char *literal)
{
    size_t n = strlen(literal);
    if (strncmp(*p, literal, n) != 0)
        return false;
    *p += n;
    return true;
}

/* A decimal integer (negative when allowed) that fits in int64_t. */
static bool read_int(const char **p, bool negative_ok, int64_t *out)
{
    const char *s = *p;
    bool negative = negative_ok && *s == '-';
    s += negative;
    if (*s < '0' || *s > '9')
        return false;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (uint64_t)(INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = negative ? -(int64_t)v : (int64_t)v;
    *p = s;
    return true;
}

/* "[2, 3]" or "[]": one tensor's sizes. */
static bool read_shape(const char **p)
{
    int64_t v;
    if (!skip(p, "["))
        return false;
    if (skip(p, "]"))
        return true;
    do {
        if (!read_int(p, true, &v))
            return false;
    } while (skip(p, ", "));
    return skip(p, "]");
}

/* "(12,0)" (or "(12, 0)"): an input's op id and output number. */
static bool read_id_pair(const char **p)
{
    int64_t v;
    return skip(p, "(") && read_int(p, false, &v) && skip(p, ",") && (skip(p, " "), true) &&
           read_int(p, false, &v) && skip(p, ")");
}

/* "[" ITEM (", " ITEM)* "]" or "[]". */
static bool read_list(const char **p, bool (*item)(const char **))
{
    if (!skip(p, "["))
        return false;
    if (skip(p, "]"))
        return true;
    do {
        if (!item(p))
            return false;
    } while (skip(p, ", "));
    return skip(p, "]");
}

/* A count or id as getNvtxStr prints it: decimal, no leading zero. Notes
 * in *canonical when it was printed otherwise. */
static bool read_count(const char **p, int64_t *out, bool *canonical)
{
    const char *digits = *p;
    if (!read_int(p, false, out))
        return false;
    if (digits[0] == '0' && *p - digits > 1)
        *canonical = false;
    return true;
}

/* The parts after the op's name, from p (at ", ") to the end of the text. */
static bool read_parts(const char *p, nsys_torch_range *r)
{
    bool any = false;
    r->seq = r->op_id = -1;
    r->sizes = r->input_op_ids = NULL;
    r->sizes_len = r->input_op_ids_len = 0;
    r->rebuilds = true;
    if (skip(&p, ", seq = ")) {
        if (!read_count(&p, &r->seq, &r->rebuilds))
            return false;
        any = true;
    }
    if (skip(&p, ", op_id = ")) {
        if (!read_count(&p, &r->op_id, &r->rebuilds))
            return false;
        any = true;
    }
    if (skip(&p, ", sizes = ")) {
        r->sizes = p;
        if (!read_list(&p, read_shape))
            return false;
        r->sizes_len = (size_t)(p - r->sizes);
        any = true;
    }
    if (skip(&p, ", input_op_ids = ")) {
        r->input_op_ids = p;
        if (!read_list(&p, read_id_pair))
            return false;
        r->input_op_ids_len = (size_t)(p - r->input_op_ids);
        any = true;
    }
    return any && *p == '\0';
}

/* Whether p starts one of the parts' labels. */
static bool at_part(const char *p)
{
    static const char *const LABELS[] = {", seq = ", ", op_id = ", ", sizes = ",
                                         ", input_op_ids = "};
    for (size_t i = 0; i < sizeof LABELS / sizeof *LABELS; i++)
        if (strncmp(p, LABELS[i], strlen(LABELS[i])) == 0)
            return true;
    return false;
}

bool nsys_torch_parse(const char *text, nsys_torch_range *range)
{
    /* The op's name ends at the first part's label: the rest must then
     * read as the parts, exactly (a name may hold ", " but no label). */
    for (const char *c = strstr(text, ", "); c; c = strstr(c + 1, ", ")) {
        if (!at_part(c))
            continue;
        nsys_torch_range r;
        if (c == text || !read_parts(c, &r))
            return false;
        r.op_len = (size_t)(c - text);
        *range = r;
        return true;
    }
    return false;
}

const char *nsys_torch_op_name(const char *text, char *out, size_t size)
{
    nsys_torch_range r;
    size_t n = nsys_torch_parse(text, &r) ? r.op_len : strlen(text);
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), text);
    return out;
}
