/* libFuzzer target: the input bytes are the report file itself.
 *
 *   fuzz_convert [libFuzzer flags] CORPUS_DIR SEEDS_DIR
 *   fuzz_convert crash-<sha1>             # replay one input
 *
 * Each input is written to a fresh file in a temporary directory and converted with nsysp_convert (options as the CLI's
 * `--compress-level 1`) into another fresh file there; fuzz_common.c then
 * checks the outcome (status, message, no partial output, the trace
 * decodes and parses, row accounting, no leaked descriptor or temporary)
 * and removes both files. Since an input is a plain SQLite file, any crash
 * file reproduces with the CLI too: `nsys-perfetto crash-<sha1>`.
 *
 * Raw byte mutation mostly exercises SQLite's own page parser (which is not
 * instrumented here); fuzz_rows.c reaches the converter far deeper. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

/* Statuses that a file of arbitrary bytes may legitimately get. INPUT_OPEN
 * ("cannot read") is counted but only allowed unless NSYSP_FUZZ_STRICT=1:
 * SQLite reports some truncated files as I/O errors. */
static unsigned allowed = FUZZ_STATUS_BIT(NSYSP_OK) | FUZZ_STATUS_BIT(NSYSP_ERR_INPUT_FORMAT) |
                          FUZZ_STATUS_BIT(NSYSP_ERR_NOT_NSYS);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *strict = getenv("NSYSP_FUZZ_STRICT");
    if (!strict || strcmp(strict, "1") != 0)
        allowed |= FUZZ_STATUS_BIT(NSYSP_ERR_INPUT_OPEN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[4200], out[4200];
    fuzz_tmp_path(in, sizeof in, "input", ".sqlite");
    fuzz_tmp_path(out, sizeof out, "out", ".perfetto-trace");
    fuzz_write_file(in, data, size);

    nsysp_options opt;
    nsysp_options_init(&opt);
    opt.output_path = out;
    opt.compress_level = 1;
    nsysp_result res;
    int fds = fuzz_count_fds();
    nsysp_status status = nsysp_convert(in, &opt, &res);

    static int open_reported;
    if (status == NSYSP_ERR_INPUT_OPEN && !open_reported++)
        fprintf(stderr, "fuzz: note: status 3 (input unreadable) for a readable file: %s\n",
                res.message);
    fuzz_check_conversion(status, &res, out, opt.compress_level, allowed, fds);
    unlink(in);
    fuzz_tmpdir_release();
    return 0;
}
