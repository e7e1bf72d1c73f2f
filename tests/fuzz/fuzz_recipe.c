/* libFuzzer target: the input bytes are the partials `nsys-perfetto recipe
 * --from-partials` folds (what a Dask worker sends back, so what a hostile
 * or broken worker could send). The first byte picks the recipe, the rest
 * is split at each "\n\x01\n" into one partial per report; each recipe
 * family's reduce then reads them.
 *
 *   fuzz_recipe [libFuzzer flags] CORPUS_DIR
 *   fuzz_recipe crash-<sha1>             # replay one input
 *
 * The promise checked: a status the API documents for bad input (usage,
 * input format, no data as NSYSP_OK with no files) with a one-line message,
 * never a crash, a sanitizer report, a hang or a leak. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Where the separator "\n\x01\n" starts in text[0..n), or NULL. */
static const char *find_cut(const char *text, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (text[i] == '\n' && text[i + 1] == '\x01' && text[i + 2] == '\n')
            return text + i;
    return NULL;
}

/* One recipe of each family that reads reports apart. */
static const char *const RECIPES[] = {
    "cuda_api_sum",      "cuda_gpu_mem_size_sum", "nvtx_sum",           "cuda_api_sync",
    "gpu_time_util",     "nvtx_gpu_proj_sum",     "nvtx_gpu_proj_pace", "cuda_gpu_kern_pace",
    "cuda_gpu_time_util_map", "gpu_metric_util_map", "nccl_gpu_time_util_map",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *name = RECIPES[data[0] % (sizeof RECIPES / sizeof *RECIPES)];
    const char *text = (const char *)data + 1;
    size_t left = size - 1;
    enum { MAX_PARTS = 16 };
    const char *parts[MAX_PARTS];
    size_t sizes[MAX_PARTS], n = 0;
    while (n < MAX_PARTS) {
        const char *cut = n + 1 < MAX_PARTS ? find_cut(text, left) : NULL;
        parts[n] = text;
        sizes[n++] = cut ? (size_t)(cut - text) + 1 : left;
        if (!cut)
            break;
        left -= (size_t)(cut - text) + 3;
        text = cut + 3;
    }
    nsysp_recipe_options options;
    memset(&options, 0, sizeof options);
    options.name = "x";
    options.threads = 1;
    if (data[0] & 0x80) { /* a job window, as --plan gives the binning maps */
        options.has_job_window = 1;
        options.job_start_ns = 0;
        options.job_end_ns = 1000000000;
    }
    nsysp_recipe_result res;
    nsysp_status status = nsysp_recipe_from_partials(name, parts, sizes, n, &options, &res);
    if (status != NSYSP_OK && status != NSYSP_ERR_USAGE && status != NSYSP_ERR_INPUT_FORMAT &&
        status != NSYSP_ERR_NOT_NSYS) {
        fprintf(stderr, "fuzz_recipe: %s: status %d: %s\n", name, status, res.message);
        abort();
    }
    if (status != NSYSP_OK && (!res.message[0] || strchr(res.message, '\n'))) {
        fprintf(stderr, "fuzz_recipe: %s: status %d without a one-line message\n", name, status);
        abort();
    }
    nsysp_recipe_result_free(&res);
    return 0;
}
