/* One run of a program under the user's `nsys profile`, to a .nsys-rep.
 * Installs that leave only a .qdstrm (Debian's nsight-systems 2022.4) get
 * it imported with the QdstrmImporter that ships beside nsys, as nsys
 * itself does where the importer is bundled. */
#ifndef NSYSP_TOOL_NSYS_PROFILE_H
#define NSYSP_TOOL_NSYS_PROFILE_H

#include <stddef.h>

#include "subprocess.h"

typedef struct profile_request {
    const char *nsys;                    /* the nsys to run */
    const char *const *options;          /* profile options, e.g. "--trace=..." */
    size_t n_options;
    const char *const *command;          /* the program and its arguments */
    size_t n_command;
    const char *gpu;                     /* CUDA_VISIBLE_DEVICES, or NULL */
    const char *stem;                    /* output: stem.nsys-rep */
    const char *log;                     /* nsys's and the program's output */
    run_limits limits;                   /* each nsys command's timeout; Ctrl-C */
} profile_request;

/* Returns 0 with stem.nsys-rep written, or -1 with why (why_size bytes)
 * saying what failed ("timed out after 30m" when the session was stopped
 * at the timeout, "interrupted" when cancelled). */
int nsys_profile(const profile_request *req, char *why, size_t why_size);

#endif
