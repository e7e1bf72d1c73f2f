/* The sources the converter reads, one line each. */
#include "source.h"

extern const source SOURCE_CUDA_API;
extern const source SOURCE_KERNEL;

const source *const SOURCES[] = {
    &SOURCE_CUDA_API, /* CUPTI_ACTIVITY_KIND_RUNTIME */
    &SOURCE_KERNEL,   /* CUPTI_ACTIVITY_KIND_KERNEL */
};

const size_t N_SOURCES = sizeof SOURCES / sizeof SOURCES[0];
