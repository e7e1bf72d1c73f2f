#include "nvtx_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

bool nvtx_resolve(const conv *c, int64_t global_pid, int64_t domain, const char *text,
                  int64_t text_id, char *scratch, size_t size, const char **domain_label,
                  const char **name)
{
    *domain_label = nvtx_domain_label(c, global_pid, domain, scratch, size);
    *name = text ? text : nsys_string(c->strings, text_id);
    if (!*name)
        *name = "";
    return nvtx_selected(c, *domain_label, *name);
}
