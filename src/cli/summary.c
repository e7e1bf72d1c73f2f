/* nsys-perfetto summary: per-name totals of one or more reports, as an
 * aligned table or CSV, one column group per report, for comparing runs
 * that vary one parameter. */
#include <errno.h>
#include <getopt.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary_cli.h"
#include "tool/options.h"
#include "tool/report_summary.h"
#include "tool/text_out.h"

#include "tool/report_dir.h"
#include "series.h"
#include "series_reports.h"

enum { MAX_REPORTS = 64 };

typedef struct merged_row {
    const char *category;
    const char *name;
    const nsysp_summary_row *per_report[MAX_REPORTS];
} merged_row;

static void summary_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto summary [OPTIONS] REPORT|DIR...\n"
          "       nsys-perfetto summary --series DIR [-o PATTERN | --label VALUE...]\n"
          "Per-name totals of kernels, memory operations, CUDA API calls, cuBLAS/cuDNN\n"
          "calls and NVTX ranges, and the GPU time of calls and ranges (api-gpu, nvtx-gpu,\n"
          "nvtx-gpu-ops): count, total, mean, min and max duration (ns), one column group\n"
          "per report. A directory stands for its reports (.sqlite, .nsys-rep, .qdrep) in\n"
          "natural order (bs8 before bs16).\n"
          "\n"
          "Options:\n"
          "      --match REGEX  only names matching REGEX (POSIX extended); repeatable: a\n"
          "                     name matching any is kept\n"
          "      --label TEXT   the column label of the next report (repeat once per report;\n"
          "                     default: the file name)\n"
          "      --csv          comma-separated values instead of an aligned table\n"
          "      --raw-names    group PyTorch op ranges by their whole text, as nsys stats\n"
          "                     does (default: by op, 'aten::to, op_id = 7' is aten::to)\n"
          "      --kernel-names KIND\n"
          "                     short | demangled | mangled (default: short, as nsys\n"
          "                     stats' cuda_gpu_kern_sum:base; demangled is its default)\n"
          "      --series DIR   write DIR/series.csv, series.md and series.svg from the\n"
          "                     reports in DIR, as `nsys-perfetto series` does\n"
          "  -o, --output PATTERN\n"
          "                     with --series: the report names, '$p' for the value\n"
          "                     (default: p$p; a '-runN' suffix is the run); or give\n"
          "                     the values with --label, one per report\n"
          "  -h, --help         show this help\n",
          to);
}

static int by_category_and_name(const void *pa, const void *pb)
{
    const merged_row *a = pa, *b = pb;
    int c = strcmp(a->category, b->category);
    return c ? c : strcmp(a->name, b->name);
}

/* Rows of all reports merged by (category, name), in the first report's
 * order, then the others' new names; a search tree finds a name's row. */
static size_t merge(const nsysp_summary *sums, size_t n_reports, merged_row **out)
{
    size_t n = 0, cap = 0;
    for (size_t r = 0; r < n_reports; r++)
        cap += sums[r].n_rows;
    merged_row *rows = calloc(cap ? cap : 1, sizeof *rows);
    void *tree = NULL;
    if (!rows)
        abort();
    for (size_t r = 0; r < n_reports; r++) {
        for (size_t i = 0; i < sums[r].n_rows; i++) {
            const nsysp_summary_row *s = &sums[r].rows[i];
            rows[n].category = s->category;
            rows[n].name = s->name;
            merged_row **found = tsearch(&rows[n], &tree, by_category_and_name);
            if (!found)
                abort();
            if (*found == &rows[n])
                n++;
            (*found)->per_report[r] = s;
        }
    }
    for (size_t i = 0; i < n; i++)
        tdelete(&rows[i], &tree, by_category_and_name);
    *out = rows;
    return n;
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void print_csv(const merged_row *rows, size_t n, const char *const *labels, size_t reports)
{
    fputs("category,name", stdout);
    for (size_t r = 0; r < reports; r++) {
        static const char *const FIELDS[] = {"count", "total_ns", "mean_ns", "min_ns", "max_ns"};
        for (int f = 0; f < 5; f++) {
            putchar(',');
            char head[256];
            snprintf(head, sizeof head, "%s %s", labels[r], FIELDS[f]);
            text_csv(stdout, head);
        }
    }
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        text_csv(stdout, rows[i].category);
        putchar(',');
        text_csv(stdout, rows[i].name);
        for (size_t r = 0; r < reports; r++) {
            const nsysp_summary_row *s = rows[i].per_report[r];
            if (s)
                printf(",%llu,%lld,%lld,%lld,%lld", (unsigned long long)s->count,
                       (long long)s->total_ns, (long long)(s->total_ns / (int64_t)s->count),
                       (long long)s->min_ns, (long long)s->max_ns);
            else
                fputs(",,,,,", stdout);
        }
        putchar('\n');
    }
}

static void print_table(const merged_row *rows, size_t n, const char *const *labels,
                        size_t reports)
{
    int name_width = 4;
    for (size_t i = 0; i < n; i++) {
        int len = (int)text_width(rows[i].name);
        name_width = len > name_width ? (len < 60 ? len : 60) : name_width;
    }
    printf("%-12s %-*s", "category", name_width, "name");
    for (size_t r = 0; r < reports; r++) {
        fputs(" | ", stdout);
        text_cell(stdout, labels[r], 52);
    }
    printf("\n%-12s %-*s", "", name_width, "");
    for (size_t r = 0; r < reports; r++)
        printf(" | %8s %14s %12s %12s", "count", "total ns", "mean ns", "max ns");
    putchar('\n');
    for (size_t i = 0; i < n; i++) {
        printf("%-12s ", rows[i].category);
        text_cell(stdout, rows[i].name, name_width);
        for (size_t r = 0; r < reports; r++) {
            const nsysp_summary_row *s = rows[i].per_report[r];
            if (s)
                printf(" | %8llu %14lld %12lld %12lld", (unsigned long long)s->count,
                       (long long)s->total_ns, (long long)(s->total_ns / (int64_t)s->count),
                       (long long)s->max_ns);
            else
                printf(" | %8s %14s %12s %12s", "-", "-", "-", "-");
        }
        putchar('\n');
    }
}

/* The reports named on the command line, directories expanded (their
 * reports in natural order). Returns how many, or -1 after saying why
 * (*status: NSYSP_ERR_INPUT_OPEN for a directory that cannot be read,
 * NSYSP_ERR_USAGE for more than MAX_REPORTS, as diff). */
static long expand_inputs(char **args, size_t n_args, char **out, int *status)
{
    *status = NSYSP_ERR_INPUT_OPEN;
    size_t n = 0;
    for (size_t i = 0; i < n_args; i++) {
        if (!is_directory(args[i])) {
            if (n == MAX_REPORTS)
                goto too_many;
            out[n++] = strdup(args[i]);
            continue;
        }
        char **found;
        size_t n_found;
        if (list_reports("nsys-perfetto summary", args[i], &found, &n_found) != 0 ||
            n_found == 0) {
            text_printf(stderr, "nsys-perfetto summary: %s: %s\n", args[i],
                    n_found == 0 && found ? "no reports (.sqlite, .nsys-rep, .qdrep) in it"
                                          : strerror(errno));
            free_reports(found, found ? n_found : 0);
            for (size_t k = 0; k < n; k++)
                free(out[k]);
            return -1;
        }
        for (size_t k = 0; k < n_found; k++) {
            if (n == MAX_REPORTS) {
                free_reports(found, n_found);
                goto too_many;
            }
            out[n++] = strdup(found[k]);
        }
        free_reports(found, n_found);
    }
    size_t kept = keep_each_report_once("nsys-perfetto summary", out, n);
    for (size_t k = kept; k < n; k++)
        free(out[k]);
    return (long)kept;
too_many:
    for (size_t k = 0; k < n; k++)
        free(out[k]);
    fprintf(stderr, "nsys-perfetto summary: at most %d reports\n", MAX_REPORTS);
    *status = NSYSP_ERR_USAGE;
    return -1;
}

static int summarize_all(char **paths, size_t reports, const char *const *labels,
                         const char *const *matches, size_t n_matches, int csv)
{
    nsysp_summary sums[MAX_REPORTS];
    const char *shown[MAX_REPORTS];
    int status = NSYSP_OK;
    size_t done = 0;
    for (; done < reports && status == NSYSP_OK; done++) {
        const char *slash = strrchr(paths[done], '/');
        shown[done] = labels ? labels[done] : slash ? slash + 1 : paths[done];
        status = summarize_report(paths[done], matches, n_matches, &sums[done]);
        if (status != NSYSP_OK && sums[done].message[0])
            text_printf(stderr, "nsys-perfetto summary: %s\n", sums[done].message);
    }
    if (status == NSYSP_OK) {
        merged_row *rows;
        size_t n = merge(sums, reports, &rows);
        if (csv)
            print_csv(rows, n, shown, reports);
        else
            print_table(rows, n, shown, reports);
        free(rows);
    }
    for (size_t i = 0; i < done; i++)
        nsysp_summary_free(&sums[i]);
    return status;
}

int summary_main(int argc, char **argv)
{
    enum { OPT_MATCH = 256, OPT_LABEL, OPT_CSV, OPT_SERIES, OPT_RAW_NAMES, OPT_KERNEL_NAMES };
    static const struct option options[] = {
        {"match", required_argument, NULL, OPT_MATCH},
        {"label", required_argument, NULL, OPT_LABEL},
        {"csv", no_argument, NULL, OPT_CSV},
        {"series", required_argument, NULL, OPT_SERIES},
        {"raw-names", no_argument, NULL, OPT_RAW_NAMES},
        {"kernel-names", required_argument, NULL, OPT_KERNEL_NAMES},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *matches[64], *labels[MAX_REPORTS], *series_dir = NULL;
    const char *pattern = SERIES_DEFAULT_PATTERN;
    size_t n_labels = 0, n_matches = 0;
    int csv = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (c) {
        case OPT_MATCH:
            if (n_matches == sizeof matches / sizeof *matches) {
                fputs("nsys-perfetto summary: at most 64 --match\n", stderr);
                return NSYSP_ERR_USAGE;
            }
            matches[n_matches++] = optarg;
            break;
        case OPT_LABEL:
            if (n_labels == MAX_REPORTS) {
                fprintf(stderr, "nsys-perfetto summary: at most %d reports\n", MAX_REPORTS);
                return NSYSP_ERR_USAGE;
            }
            labels[n_labels++] = optarg;
            break;
        case OPT_CSV:
            csv = 1;
            break;
        case OPT_SERIES:
            series_dir = optarg;
            break;
        case OPT_RAW_NAMES:
            nsysp_summary_set_raw_names(1);
            break;
        case OPT_KERNEL_NAMES: {
            nsysp_kernel_names kind;
            if (parse_kernel_names(optarg, &kind) < 0) {
                fprintf(stderr, "nsys-perfetto summary: --kernel-names: expected short, "
                                "demangled or mangled, got '%s'\n", optarg);
                return NSYSP_ERR_USAGE;
            }
            nsysp_summary_set_kernel_names(kind);
            break;
        }
        case 'o':
            pattern = optarg;
            break;
        case 'h':
            summary_usage(stdout);
            return 0;
        default:
            fputs("Try 'nsys-perfetto summary --help'.\n", stderr);
            return NSYSP_ERR_USAGE;
        }
    }
    if (series_dir && optind == argc)
        return series_from_reports(series_dir, pattern, labels, n_labels, matches, n_matches);
    char *paths[MAX_REPORTS];
    int failed;
    long reports = series_dir ? -2
                              : expand_inputs(argv + optind, (size_t)(argc - optind), paths,
                                              &failed);
    if (reports < 0 && reports != -2)
        return failed;
    if (reports <= 0 || (n_labels && n_labels != (size_t)reports)) {
        fprintf(stderr, "nsys-perfetto summary: %s\nTry 'nsys-perfetto summary --help'.\n",
                series_dir ? "--series takes a directory and no other report"
                : reports == 0 ? "no report given"
                               : "give one --label per report");
        for (long i = 0; i < reports; i++)
            free(paths[i]);
        return NSYSP_ERR_USAGE;
    }
    int status = summarize_all(paths, (size_t)reports, n_labels ? labels : NULL, matches,
                               n_matches, csv);
    for (long i = 0; i < reports; i++)
        free(paths[i]);
    return status;
}
