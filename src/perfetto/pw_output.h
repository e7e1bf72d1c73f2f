/* The trace file: a gzip (or raw) byte stream written to a temporary file
 * beside the destination and renamed over it only on success, so a failed or
 * interrupted conversion never leaves a partial trace or clobbers an old one. */
#ifndef NSYSP_PERFETTO_PW_OUTPUT_H
#define NSYSP_PERFETTO_PW_OUTPUT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct pw_output pw_output;

/* level: deflate level 1..9 for gzip (libdeflate's levels), 0 for raw output;
 * compressors: threads that deflate (at least 1; the file is the same bytes
 * whatever the number). On failure returns NULL and writes a message into
 * err. */
pw_output *pw_output_open(const char *path, int level, size_t compressors, buf *err);

/* Makes pw_output_commit fail, as "interrupted", when *cancel (if not NULL)
 * is set once the file is complete: the rename is the last moment a
 * conversion can still be stopped. */
void pw_output_set_cancel(pw_output *out, volatile sig_atomic_t *cancel);

/* Returns 0, or -1 after which the output is failed (see pw_output_commit). */
int pw_output_write(pw_output *out, const void *data, size_t n);

typedef struct pw_output_totals {
    uint64_t bytes_in;       /* uncompressed */
    uint64_t bytes_out;      /* in the file */
} pw_output_totals;

/* Finishes the stream and renames it into place. Returns 0, or -1 with a
 * message in err (the temporary file is removed). Frees out either way;
 * totals (may be NULL) receives the final byte counts. */
int pw_output_commit(pw_output *out, buf *err, pw_output_totals *totals);

/* The errno of the first failed write, or 0. */
int pw_output_error(pw_output *out);

/* Removes the temporary file and frees out. */
void pw_output_discard(pw_output *out);


#endif
