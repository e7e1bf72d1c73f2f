/* Shared plumbing of the fuzz targets (fuzz_convert.c, fuzz_rows.c).
 *
 * Each input gets a private temporary directory ($TMPDIR or /tmp,
 * "nsysp-fuzz-XXXXXX"): the input report and the output trace are written
 * there, the result is checked, and the directory is removed with both. A
 * crash (which ends the process with _exit) leaves it behind:
 * tests/fuzz/run.sh points TMPDIR at its own directory and removes it
 * afterwards. */
#ifndef NSYSP_FUZZ_COMMON_H
#define NSYSP_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "nsys_perfetto.h"

/* The temporary directory (created on first use), and its removal with
 * whatever is left in it; the targets release it after each input, so that
 * nothing stays behind even when libFuzzer ends with _Exit. */
const char *fuzz_tmpdir(void);
void fuzz_tmpdir_release(void);

/* A fresh path "<tmpdir>/<stem>-<n><ext>" in out (size bytes). */
void fuzz_tmp_path(char *out, size_t size, const char *stem, const char *ext);

/* Writes size bytes to path; aborts on failure (disk full is not a finding
 * of the library, so stop loudly). */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);

/* The whole file at path, malloc'd, its length in *size; NULL (errno set)
 * when it cannot be opened. */
uint8_t *fuzz_read_file(const char *path, size_t *size);

/* Number of open file descriptors of this process. */
int fuzz_count_fds(void);

/* Checks everything a conversion promises, aborts (a libFuzzer crash) on
 * any violation, then removes the output:
 *   - the status is one nsysp_convert documents for this kind of input
 *     (allowed_mask: bit s set when status s is acceptable);
 *   - failure: a non-empty message, no output file, no temporary left;
 *   - success: empty message, the output decodes (gzip when compressed),
 *     its size matches bytes_written / bytes_uncompressed, it is a
 *     well-formed Trace whose packets all parse (protobuf-c) and whose
 *     string fields are valid UTF-8, the packet count matches, and every
 *     source accounts for each row (rows = emitted + skipped);
 *   - no file descriptor leaked (fds_before from fuzz_count_fds()). */
void fuzz_check_conversion(nsysp_status status, const nsysp_result *res, const char *out_path,
                           int compress_level, unsigned allowed_mask, int fds_before);

/* Statuses seen, printed at exit (stderr) as "fuzz: status N: count". */
void fuzz_count_status(nsysp_status status);

#define FUZZ_STATUS_BIT(s) (1u << (unsigned)(s))

#endif
