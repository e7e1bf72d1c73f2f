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

/* The domain label and the name (text, else the registered string textId)
 * of an NVTX row; false when the filters leave it out. */
bool nvtx_resolve(const conv *c, int64_t global_pid, int64_t domain, const char *text,
                  int64_t text_id, char *scratch, size_t size, const char **domain_label,
                  const char **name);

#endif
