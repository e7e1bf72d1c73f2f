/* What the CPU and GPU NVTX sources share: domain labels and the
 * --nvtx-domain / --nvtx-filter test. */
#ifndef NSYSP_SOURCES_NVTX_COMMON_H
#define NSYSP_SOURCES_NVTX_COMMON_H

#include <stdbool.h>

#include "source.h"

/* The label of a domain for row names: NULL for the default domain, its
 * name, or "domain N" when the report never named it. scratch holds the
 * latter. */
const char *nvtx_domain_label(const conv *c, int64_t global_pid, int64_t domain, char *scratch,
                              size_t size);

/* Whether a range or mark of that domain label and name passes the
 * options' filters. */
bool nvtx_selected(const conv *c, const char *domain_label, const char *name);

/* An NVTX row's names. A PyTorch op range (nsys/nsys_torch.h) is named by
 * its op, unless the options ask for raw names; its parts become args. */
typedef struct nvtx_name {
    const char *domain_label;    /* NULL for the default domain */
    const char *name;            /* the slice's name */
    const char *text;            /* the whole text as recorded (text, else textId) */
    bool torch;                  /* name is a PyTorch op's: the args below apply */
    bool text_rebuilds;          /* text is name and the parts as PyTorch prints them */
    int64_t seq, op_id;          /* -1 when absent */
    const char *sizes, *input_op_ids; /* NULL when absent */
    char unnamed_domain[48];     /* "domain N" */
} nvtx_name;

/* Resolves an NVTX row's names into *out (its strings live in c->scratch
 * until the next row); false when the filters leave it out. */
bool nvtx_resolve(conv *c, int64_t global_pid, int64_t domain, const char *text, int64_t text_id,
                  nvtx_name *out);

/* The args of a PyTorch op range (none for other names) into args; how
 * many (at most NVTX_TORCH_ARGS). The whole text is an arg only when the
 * op's name and the parts do not give it back (numbers with leading
 * zeros): otherwise it is a unique string per range that readers rebuild
 * (the SQL package's text column), and leaving it out saves a third of the
 * bytes of a PyTorch trace and the memory of a string per range in
 * trace_processor. */
enum { NVTX_TORCH_ARGS = 5 };
size_t nvtx_torch_args(const nvtx_name *n, pw_arg *args);

#endif
