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
