#include "nvtx_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nsys/nsys_torch.h"

const char *nvtx_domain_label(const conv *c, int64_t global_pid, int64_t domain, char *scratch,
                              size_t size)
{
    if (domain == NSYS_NULL || domain == 0)
        return NULL;
    const char *name = nsys_nvtx_domain_name(c->meta, global_pid, domain);
    if (name)
        return name;
    snprintf(scratch, size, "domain %" PRId64, domain);
    return scratch;
}

/* The filters see both names of a PyTorch op range: a regular expression
 * written for the op ("^aten::mm$") or for the whole text keeps it. */
static bool names_selected(const conv *c, const nvtx_name *n)
{
    if (!nvtx_selected(c, n->domain_label, n->name))
        return n->torch && nvtx_selected(c, n->domain_label, n->text);
    return true;
}

bool nvtx_selected(const conv *c, const char *domain_label, const char *name)
{
    const nsysp_options *opt = c->opt;
    if (opt->n_nvtx_domains) {
        const char *domain = domain_label ? domain_label : "default";
        bool listed = false;
        for (size_t i = 0; i < opt->n_nvtx_domains && !listed; i++)
            listed = strcmp(opt->nvtx_domains[i], domain) == 0;
        if (!listed)
            return false;
    }
    return !c->nvtx_filter || regexec(c->nvtx_filter, name, 0, NULL, 0) == 0;
}

/* Appends text[0, n) and a NUL to c->scratch; returns its offset. */
static size_t scratch_put(conv *c, const char *text, size_t n)
{
    size_t at = c->scratch.len;
    buf_append(&c->scratch, text, n);
    buf_append_byte(&c->scratch, 0);
    return at;
}

bool nvtx_resolve(conv *c, int64_t global_pid, int64_t domain, const char *text, int64_t text_id,
                  nvtx_name *out)
{
    out->domain_label = nvtx_domain_label(c, global_pid, domain, out->unnamed_domain,
                                          sizeof out->unnamed_domain);
    out->text = text ? text : nsys_string(c->strings, text_id);
    if (!out->text)
        out->text = "";
    out->name = out->text;
    out->torch = false;
    out->text_rebuilds = false;
    nsys_torch_range r;
    if (!c->opt->raw_names && nsys_torch_parse(out->text, &r)) {
        buf_clear(&c->scratch);
        size_t op = scratch_put(c, out->text, r.op_len);
        size_t sizes = r.sizes ? scratch_put(c, r.sizes, r.sizes_len) : 0;
        size_t ids = r.input_op_ids ? scratch_put(c, r.input_op_ids, r.input_op_ids_len) : 0;
        const char *base = (const char *)c->scratch.data; /* after the last append */
        out->torch = true;
        out->text_rebuilds = r.rebuilds;
        out->name = base + op;
        out->seq = r.seq;
        out->op_id = r.op_id;
        out->sizes = r.sizes ? base + sizes : NULL;
        out->input_op_ids = r.input_op_ids ? base + ids : NULL;
    }
    return names_selected(c, out);
}

size_t nvtx_torch_args(const nvtx_name *n, pw_arg *args)
{
    if (!n->torch)
        return 0;
    size_t k = 0;
    if (!n->text_rebuilds)
        args[k++] = arg_str("text", n->text);
    if (n->seq >= 0)
        args[k++] = arg_int("seq", n->seq);
    if (n->op_id >= 0)
        args[k++] = arg_int("op_id", n->op_id);
    if (n->sizes)
        args[k++] = arg_str("sizes", n->sizes);
    if (n->input_op_ids)
        args[k++] = arg_str("input_op_ids", n->input_op_ids);
    return k;
}
