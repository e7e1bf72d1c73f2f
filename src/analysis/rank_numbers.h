/* Which rank of a distributed job each GPU process is: the rule `ranks`
 * numbers its table with, and the Kineto JSON writer its files
 * (distributedInfo.rank), so that both say the same rank for a process. */
#ifndef NSYSP_ANALYSIS_RANK_NUMBERS_H
#define NSYSP_ANALYSIS_RANK_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "nsys/nsys_db.h"
#include "nsys_perfetto.h"

/* How the ranks were numbered. */
typedef enum rank_rule {
    RANK_BY_MPI,          /* MPI_RANKS of every process */
    RANK_BY_FILE_NAME,    /* a number in every report's name (rank3, .3.) */
    RANK_BY_ORDER,        /* the reports' order, then device and pid within one */
} rank_rule;

/* The rule in words, as the outputs name it. */
const char *rank_rule_text(rank_rule rule);

/* The rank in a report's file name: "rank3", "rank_3", "rank-3" (any case),
 * else a number between dots ("report.3.sqlite", from %q{SLURM_PROCID}),
 * else -1. */
long rank_in_name(const char *path);

/* Numbers n ranks, given in the job's order (by report, then as
 * nsysp_measure_ranks lists a report's processes): mpi_ranks[i] is rank i's
 * MPI_RANKS rank (-1 unknown), reports[i] the index of its report among
 * paths. The first rule that gives every rank a distinct number wins: MPI,
 * then the file name (when every report holds at most one rank), then the
 * order. Writes numbers[0..n). */
rank_rule rank_numbers(const int64_t *mpi_ranks, const size_t *reports, size_t n,
                       const char *const *paths, size_t n_paths, long *numbers);

/* The processes of an open report that ran GPU work, as
 * nsysp_measure_ranks finds and orders them, with their pid, device, MPI
 * rank and the count of their NCCL kernels (n_collectives; collectives
 * itself NULL) only, no figures: cheap enough to run before a conversion.
 * Returns an nsysp_status, with a message in err. */
int ranks_identify(nsys_db *db, nsysp_ranks *out, buf *err);

/* A process of a job and its rank, as `ranks` numbers the job: what the
 * Kineto files are named and numbered by (kineto_files.h). */
typedef struct rank_of_process {
    size_t report;           /* index of its report */
    int32_t pid;             /* -1: a report where no process ran GPU work */
    int64_t device;          /* the GPU most of its kernels ran on, or -1 */
    long rank;               /* the reports without GPU work after the ranks */
} rank_of_process;

/* The ranks of reports paths[0..n) (open as dbs), in the job's order (by
 * report, then device, then pid), numbered by rank_numbers. A helper, a
 * process without NCCL kernels in a report whose other processes ran some
 * (a data loader's one copy), is no rank: its events go with its report's
 * ranks. (`ranks` also tells helpers by steps when no process ran NCCL;
 * steps are not read before a conversion, so here every process is a rank
 * then.) Returns an nsysp_status, with a message in err. */
int rank_numbers_of_reports(const char *const *paths, nsys_db *const *dbs, size_t n,
                            rank_of_process **out, size_t *n_out, buf *err);

#endif
