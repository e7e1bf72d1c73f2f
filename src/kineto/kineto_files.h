/* Which files a Kineto JSON conversion writes: one per rank, as a
 * multi-rank PyTorch capture gives them (HTA loads a directory of them),
 * each rank of the job as `ranks` numbers it (analysis/rank_numbers.h
 * finds and numbers them: convert.c hands them over). A report where no
 * process ran GPU work gets one file of its own, ranked after the others. */
#ifndef NSYSP_KINETO_KINETO_FILES_H
#define NSYSP_KINETO_KINETO_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct kineto_file {
    size_t report;           /* index of its report */
    int32_t pid;             /* the rank's process (the report's pid); -1: none */
    int64_t device;          /* the GPU most of its kernels ran on, or -1 */
    long rank;               /* distributedInfo.rank */
    char *path;
} kineto_file;

typedef struct kineto_files {
    kineto_file *files;      /* by rank */
    size_t n;
    bool compressed;         /* gzip (.json.gz), else plain .json */
} kineto_files;

/* Plans the files of reports inputs[] for their ranks: ranks[0..n_ranks),
 * their report, pid, device and rank set (rank_numbers_of_reports finds
 * them), path NULL; out takes the array. Fills in the paths. output_path (NULL: beside each report) names the one file, or,
 * with several, the name that ".rankN" goes into, or a directory (one that
 * exists, or a name ending in '/') to write them into. A name ending in
 * ".json", or compress_level 0, writes plain JSON. only_pid > 0 (--pid)
 * keeps the file of that process's rank alone. Returns an nsysp_status with
 * one line in err. */
int kineto_files_plan(const char *const *inputs, kineto_file *ranks, size_t n_ranks,
                      const char *output_path, int compress_level, int32_t only_pid,
                      kineto_files *out, buf *err);
void kineto_files_free(kineto_files *files);

#endif
