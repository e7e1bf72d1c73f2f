/* The small helpers of the public header. */
#include <stdio.h>
#include <string.h>

#include "nsys_perfetto.h"
#include "sources/source.h"

void nsysp_options_init(nsysp_options *opt)
{
    memset(opt, 0, sizeof *opt);
    /* libdeflate level 6: on two cores deflate at level 7 was a third of
     * all the work; 6 takes a fifth less of it for 2% more bytes
     * (docs/performance.md, fifth round). */
    opt->compress_level = 6;
    opt->kernel_names = NSYSP_KERNEL_NAMES_SHORT;
    opt->gpu = -1;
}

int nsysp_default_output_path(const char *input, char *out, size_t size)
{
    static const char suffix[] = ".perfetto-trace";
    size_t n = strlen(input);
    const char *slash = strrchr(input, '/');
    const char *dot = strrchr(input, '.');
    /* Replace the extension of the file name, not a dot in a directory. */
    if (dot && (!slash || dot > slash + 1))
        n = (size_t)(dot - input);
    if (n + sizeof suffix > size)
        return -1;
    memcpy(out, input, n);
    memcpy(out + n, suffix, sizeof suffix);
    return 0;
}

const char *nsysp_skip_reason_name(nsysp_skip_reason reason)
{
    switch (reason) {
    case NSYSP_SKIP_NULL_TIMESTAMP:
        return "null timestamp";
    case NSYSP_SKIP_END_BEFORE_START:
        return "end before start";
    case NSYSP_SKIP_MISSING_VALUE:
        return "missing value";
    case NSYSP_SKIP_HIDDEN_STREAM:
        return "hidden stream";
    case NSYSP_SKIP_FILTERED:
        return "filtered out";
    case NSYSP_SKIP_SCHED_REDUNDANT:
        return "already scheduled in";
    case NSYSP_SKIP_SCHED_INCONSISTENT:
        return "inconsistent scheduling";
    case NSYSP_SKIP_NOT_PERIODIC:
        return "not a periodic sample";
    case NSYSP_SKIP_UNSUPPORTED:
        return "kind not converted";
    case NSYSP_SKIP_TIME_OUT_OF_RANGE:
        return "timestamp out of range";
    default:
        return "?";
    }
}

const char *nsysp_version(void)
{
    return NSYSP_VERSION_STRING;
}

const char *nsysp_source_name(size_t i)
{
    return i < sources_count() ? source_at(i)->name : NULL;
}
