#include "rank_numbers.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

long rank_in_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *p = base; *p; p++)
        if (strncasecmp(p, "rank", 4) == 0) {
            const char *d = p + 4 + (p[4] == '_' || p[4] == '-');
            if (isdigit((unsigned char)*d))
                return strtol(d, NULL, 10);
        }
    for (const char *p = strchr(base, '.'); p; p = strchr(p + 1, '.'))
        if (isdigit((unsigned char)p[1])) {
            char *end;
            long n = strtol(p + 1, &end, 10);
            if (*end == '.')
                return n;
        }
    return -1;
}

/* Whether values (n of them, each >= 0 wanted) are all known and distinct. */
static bool distinct_ranks(const long *values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (values[i] < 0)
            return false;
        for (size_t k = 0; k < i; k++)
            if (values[k] == values[i])
                return false;
    }
    return true;
}

rank_rule rank_numbers(const int64_t *mpi_ranks, const size_t *reports, size_t n,
                       const char *const *paths, size_t n_paths, long *numbers)
{
    for (size_t i = 0; i < n; i++)
        numbers[i] = (long)mpi_ranks[i];
    if (distinct_ranks(numbers, n))
        return RANK_BY_MPI;
    /* A name says one rank: only when no report holds two. */
    size_t *per_report = xcalloc(n_paths ? n_paths : 1, sizeof *per_report);
    bool one_each = true;
    for (size_t i = 0; i < n; i++)
        one_each &= ++per_report[reports[i]] <= 1;
    free(per_report);
    for (size_t i = 0; i < n; i++)
        numbers[i] = one_each ? rank_in_name(paths[reports[i]]) : -1;
    if (distinct_ranks(numbers, n))
        return RANK_BY_FILE_NAME;
    for (size_t i = 0; i < n; i++)
        numbers[i] = (long)i;
    return RANK_BY_ORDER;
}

const char *rank_rule_text(rank_rule rule)
{
    switch (rule) {
    case RANK_BY_MPI:
        return "MPI (MPI_RANKS of every process)";
    case RANK_BY_FILE_NAME:
        return "file name (a rank number in every report's name)";
    default:
        return "order (the reports' order, then device and pid within a report)";
    }
}

/* Whether a process of the report ran NCCL kernels: then those that ran
 * none are its helpers (see rank_numbers_of_reports). */
static bool ran_nccl(const nsysp_ranks *got)
{
    for (size_t k = 0; k < got->n_ranks; k++)
        if (got->ranks[k].n_collectives > 0)
            return true;
    return false;
}

static void add_process(rank_of_process **out, size_t *n, size_t *cap, rank_of_process p)
{
    *out = xgrow(*out, cap, *n + 1, sizeof **out);
    (*out)[(*n)++] = p;
}

int rank_numbers_of_reports(const char *const *paths, nsys_db *const *dbs, size_t n,
                            rank_of_process **out, size_t *n_out, buf *err)
{
    *out = NULL;
    *n_out = 0;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        nsysp_ranks got;
        int status = ranks_identify(dbs[i], &got, err);
        if (status != NSYSP_OK) {
            free(*out);
            *out = NULL;
            *n_out = 0;
            return status;
        }
        bool helpers = ran_nccl(&got);
        size_t kept = 0;
        for (size_t k = 0; k < got.n_ranks; k++) {
            const nsysp_rank *r = &got.ranks[k];
            if (helpers && r->n_collectives == 0)
                continue;
            add_process(out, n_out, &cap, (rank_of_process){i, r->pid, r->device, r->mpi_rank});
            kept++;
        }
        if (!kept)
            add_process(out, n_out, &cap, (rank_of_process){i, -1, -1, -1});
        nsysp_ranks_free(&got);
    }
    size_t n_ranks = 0;
    for (size_t i = 0; i < *n_out; i++)
        n_ranks += (*out)[i].pid >= 0;
    int64_t *mpi = xcalloc(n_ranks + 1, sizeof *mpi);
    size_t *reports = xcalloc(n_ranks + 1, sizeof *reports);
    long *numbers = xcalloc(n_ranks + 1, sizeof *numbers);
    for (size_t i = 0, k = 0; i < *n_out; i++)
        if ((*out)[i].pid >= 0) {
            mpi[k] = (*out)[i].rank;
            reports[k++] = (*out)[i].report;
        }
    rank_numbers(mpi, reports, n_ranks, paths, n, numbers);
    long next = 0;
    for (size_t i = 0; i < n_ranks; i++)
        if (numbers[i] >= next)
            next = numbers[i] + 1;
    for (size_t i = 0, k = 0; i < *n_out; i++)
        (*out)[i].rank = (*out)[i].pid >= 0 ? numbers[k++] : next++;
    free(mpi);
    free(reports);
    free(numbers);
    return NSYSP_OK;
}
