/* nsys-perfetto recipe: NVIDIA's multi-report recipes (nsys 2023.4's `nsys
 * recipe`) on SQLite exports or reports, their tables written as CSV into
 * a new directory, whole or not at all. */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsys_perfetto.h"
#include "recipe_cli.h"
#include "common/json.h"
#include "tool/nsys_export.h"
#include "tool/report_dir.h"

#define WHO "nsys-perfetto recipe"

static void recipe_usage(FILE *to)
{
    fputs("Usage: nsys-perfetto recipe NAME --output DIR [OPTIONS] REPORT|DIR...\n"
          "       nsys-perfetto recipe diff --output DIR [--tolerance N] [--drop] DIR1 DIR2\n"
          "       nsys-perfetto recipe --list\n"
          "Runs NVIDIA's recipe NAME (as nsys 2023.4's `nsys recipe NAME --csv` does) over\n"
          "the reports: SQLite exports, or .nsys-rep/.qdrep reports exported with nsys\n"
          "first; a directory stands for its reports, in name order. Writes the recipe's\n"
          "tables as CSV under NVIDIA's file names, and a README.md, into the new\n"
          "directory DIR.\n"
          "\n"
          "Options:\n"
          "      --output DIR       the directory to create (required)\n"
          "      --force-overwrite  replace DIR if it exists (a directory of files only)\n"
          "      --input PATH...    reports or directories (as after the options)\n"
          "      --start NS         only events overlapping [NS, end) of each report\n"
          "      --end NS           only events overlapping [start, NS)\n"
          "      --base             kernels by base name (cuda_gpu_kern_sum)\n"
          "      --mangled          kernels by mangled name (cuda_gpu_kern_sum)\n"
          "      --tolerance N      diff: differences of at most N become 0\n"
          "      --drop             diff: leave out rows where nothing changed\n"
          "      --bins N           time bins of the *_util_map recipes (default 30)\n"
          "      --cumulative       util maps: concurrent kernels add up (can pass 100%)\n"
          "      --name NAME        the kernel (cuda_gpu_kern_pace) or NVTX range\n"
          "                         (nvtx_pace, nvtx_gpu_proj_pace) whose instances are\n"
          "                         the iterations\n"
          "      --nvtx RANGE[@DOMAIN]  only events in the first such NVTX range (RANGE/N:\n"
          "                         its instance N) of each report (rules recipes)\n"
          "      --rows N           at most N rows per report (rules recipes; default all)\n"
          "      --gap MS           gaps longer than MS milliseconds (gpu_gaps; 500)\n"
          "      --threshold PCT    chunks in use less than PCT % (gpu_time_util; 50)\n"
          "      --chunks N         chunks of each GPU's span (gpu_time_util; 1-1000, 30)\n"
          "      --threads N        reports read at once, 1-256 (default: the CPUs);\n"
          "                         the output is the same whatever N\n"
          "      --csv              accepted for nsys's command line; CSV is always written\n"
          "      --list             the recipes, one per line, with what each computes\n"
          "      --mode MODE        none or concurrent: on this machine (the default);\n"
          "                         dask-futures: each report read by a Dask worker that\n"
          "                         holds it (tools/recipe_dask.py; the scheduler from\n"
          "                         $DASK_SCHEDULER_ADDRESS, else a local cluster), the\n"
          "                         same files as on this machine\n"
          "Reading reports apart (tools/recipe_dask.py runs these on a Dask cluster):\n"
          "      --list-reports     print the job's reports in the order the recipe reads\n"
          "                         them, one per line (--null: NUL-terminated)\n"
          "      --partial          the recipe's work on one report, as text on stdout\n"
          "      --from-partials    the inputs are partials, in job order: fold them into\n"
          "                         DIR as a run over their reports writes it\n"
          "      --rounds           print the rounds of reading apart, one per line:\n"
          "                         survey (where the bins need the whole job's time)\n"
          "                         and partial\n"
          "      --survey           a report's survey (its session), as text on stdout\n"
          "      --plan             the inputs are surveys, in job order: print the job's\n"
          "                         plan, an option a line, for every --partial\n"
          "      --job-window START:END  the job's window (UTC ns), from --plan\n"
          "  -h, --help             show this help\n",
          to);
}

typedef struct recipe_args {
    const char *name, *output;
    int force, list;
    int partial, from_partials, list_reports, null; /* for running reports apart (Dask) */
    int rounds, survey, plan;
    int dask; /* --mode dask-futures */
    nsysp_recipe_options options;
    char **inputs;
    size_t n_inputs;
} recipe_args;

/* A whole number from min to max for option (what: what the option wants,
 * for the message), as Python's int() reads nsys's recipe options. */
static int parse_whole(const char *text, const char *option, int64_t min, int64_t max,
                       const char *what, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) {
        fprintf(stderr, WHO ": %s needs %s, not '%s'\n", option, what, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_time(const char *text, const char *option, int64_t *out)
{
    return parse_whole(text, option, 0, INT64_MAX, "a time in nanoseconds", out);
}

static int parse_count(const char *text, const char *option, int64_t *out)
{
    return parse_whole(text, option, INT64_MIN, INT64_MAX, "a whole number", out);
}

/* An int option from min to max (--bins: a picture draws at most 65,536
 * cells; --threads). */
static int parse_int(const char *text, const char *option, int min, int max, const char *what,
                     int *out)
{
    int64_t v;
    if (parse_whole(text, option, min, max, what, &v))
        return -1;
    *out = (int)v;
    return 0;
}

/* --job-window START:END, the job's window in UTC ns (as --plan prints it). */
static int parse_window(const char *text, nsysp_recipe_options *o)
{
    char *mid, *end = NULL;
    errno = 0;
    long long start = strtoll(text, &mid, 10);
    long long stop = mid != text && *mid == ':' ? strtoll(mid + 1, &end, 10) : 0;
    if (errno || mid == text || *mid != ':' || end == mid + 1 || *end || stop < start) {
        fprintf(stderr, WHO ": --job-window needs START:END in nanoseconds (from --plan), not "
                        "'%s'\n", text);
        return -1;
    }
    o->has_job_window = 1;
    o->job_start_ns = start;
    o->job_end_ns = stop;
    return 0;
}

static int parse_args(int argc, char **argv, recipe_args *a)
{
    enum { OPT_OUTPUT = 256, OPT_FORCE, OPT_INPUT, OPT_START, OPT_END, OPT_BASE, OPT_MANGLED,
           OPT_CSV, OPT_LIST, OPT_TOLERANCE, OPT_DROP, OPT_PARTIAL, OPT_FROM_PARTIALS,
           OPT_LIST_REPORTS, OPT_NULL, OPT_NAME, OPT_BINS, OPT_CUMULATIVE, OPT_NVTX, OPT_ROWS,
           OPT_GAP, OPT_THRESHOLD, OPT_CHUNKS, OPT_MODE, OPT_THREADS, OPT_ROUNDS, OPT_SURVEY,
           OPT_PLAN, OPT_JOB_WINDOW };
    static const struct option LONG[] = {
        {"output", required_argument, NULL, OPT_OUTPUT},
        {"force-overwrite", no_argument, NULL, OPT_FORCE},
        {"input", required_argument, NULL, OPT_INPUT},
        {"start", required_argument, NULL, OPT_START},
        {"end", required_argument, NULL, OPT_END},
        {"base", no_argument, NULL, OPT_BASE},
        {"mangled", no_argument, NULL, OPT_MANGLED},
        {"csv", no_argument, NULL, OPT_CSV},
        {"list", no_argument, NULL, OPT_LIST},
        {"tolerance", required_argument, NULL, OPT_TOLERANCE},
        {"drop", no_argument, NULL, OPT_DROP},
        {"partial", no_argument, NULL, OPT_PARTIAL},
        {"from-partials", no_argument, NULL, OPT_FROM_PARTIALS},
        {"list-reports", no_argument, NULL, OPT_LIST_REPORTS},
        {"null", no_argument, NULL, OPT_NULL},
        {"rounds", no_argument, NULL, OPT_ROUNDS},
        {"survey", no_argument, NULL, OPT_SURVEY},
        {"plan", no_argument, NULL, OPT_PLAN},
        {"job-window", required_argument, NULL, OPT_JOB_WINDOW},
        {"mode", required_argument, NULL, OPT_MODE},
        {"bins", required_argument, NULL, OPT_BINS},
        {"cumulative", no_argument, NULL, OPT_CUMULATIVE},
        {"name", required_argument, NULL, OPT_NAME},
        {"nvtx", required_argument, NULL, OPT_NVTX},
        {"rows", required_argument, NULL, OPT_ROWS},
        {"gap", required_argument, NULL, OPT_GAP},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"chunks", required_argument, NULL, OPT_CHUNKS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    a->inputs = calloc((size_t)argc + 1, sizeof *a->inputs);
    if (!a->inputs)
        return NSYSP_ERR_INTERNAL;
    /* The recipe's name comes first; options and inputs may mix after it. */
    int first = 1;
    if (argc > 1 && argv[1][0] != '-')
        a->name = argv[first++];
    opterr = 0;
    optind = first;
    for (;;) {
        int c = getopt_long(argc, argv, "+h", LONG, NULL);
        if (c == -1) {
            if (optind >= argc)
                break;
            if (strcmp(argv[optind - 1], "--") == 0) { /* the rest are inputs */
                while (optind < argc)
                    a->inputs[a->n_inputs++] = argv[optind++];
                break;
            }
            a->inputs[a->n_inputs++] = argv[optind++];
            continue;
        }
        switch (c) {
        case OPT_OUTPUT: a->output = optarg; break;
        case OPT_FORCE: a->force = 1; break;
        case OPT_INPUT: a->inputs[a->n_inputs++] = optarg; break;
        case OPT_START:
            if (parse_time(optarg, "--start", &a->options.start_ns))
                return NSYSP_ERR_USAGE;
            a->options.has_start = 1;
            break;
        case OPT_END:
            if (parse_time(optarg, "--end", &a->options.end_ns))
                return NSYSP_ERR_USAGE;
            a->options.has_end = 1;
            break;
        case OPT_BASE: a->options.base = 1; break;
        case OPT_MANGLED: a->options.mangled = 1; break;
        case OPT_CSV: break;
        case OPT_LIST: a->list = 1; break;
        case OPT_TOLERANCE:
            if (parse_time(optarg, "--tolerance", &a->options.tolerance))
                return NSYSP_ERR_USAGE;
            break;
        case OPT_DROP: a->options.drop = 1; break;
        case OPT_PARTIAL: a->partial = 1; break;
        case OPT_FROM_PARTIALS: a->from_partials = 1; break;
        case OPT_LIST_REPORTS: a->list_reports = 1; break;
        case OPT_NULL: a->null = 1; break;
        case OPT_ROUNDS: a->rounds = 1; break;
        case OPT_SURVEY: a->survey = 1; break;
        case OPT_PLAN: a->plan = 1; break;
        case OPT_JOB_WINDOW:
            if (parse_window(optarg, &a->options))
                return NSYSP_ERR_USAGE;
            break;
        case OPT_MODE:
            if (strcmp(optarg, "dask-futures") == 0 || strcmp(optarg, "dask") == 0) {
                a->dask = 1;
            } else if (strcmp(optarg, "none") != 0 && strcmp(optarg, "concurrent") != 0) {
                fprintf(stderr, WHO ": --mode is none, concurrent or dask-futures, not '%s'\n",
                        optarg);
                return NSYSP_ERR_USAGE;
            }
            break;
        case OPT_BINS:
            if (parse_int(optarg, "--bins", 1, 1000000, "a number of bins from 1 to 1000000",
                          &a->options.bins))
                return NSYSP_ERR_USAGE;
            break;
        case OPT_CUMULATIVE: a->options.cumulative = 1; break;
        case OPT_NAME: a->options.name = optarg; break;
        case OPT_NVTX: a->options.nvtx = optarg; break;
        case OPT_ROWS:
            if (parse_count(optarg, "--rows", &a->options.rows))
                return NSYSP_ERR_USAGE;
            a->options.has_rows = 1;
            break;
        case OPT_GAP:
            if (parse_count(optarg, "--gap", &a->options.gap_ms))
                return NSYSP_ERR_USAGE;
            a->options.has_gap = 1;
            break;
        case OPT_THRESHOLD:
            if (parse_count(optarg, "--threshold", &a->options.threshold))
                return NSYSP_ERR_USAGE;
            a->options.has_threshold = 1;
            break;
        case OPT_CHUNKS:
            if (parse_count(optarg, "--chunks", &a->options.chunks))
                return NSYSP_ERR_USAGE;
            a->options.has_chunks = 1;
            break;
        case OPT_THREADS:
            if (parse_int(optarg, "--threads", 1, 256, "a number from 1 to 256", &a->options.threads))
                return NSYSP_ERR_USAGE;
            break;
        case 'h': recipe_usage(stdout); return -1;
        default:
            fprintf(stderr, WHO ": unknown or incomplete option '%s' (see --help)\n",
                    argv[optind - 1]);
            return NSYSP_ERR_USAGE;
        }
    }
    if (a->list)
        return NSYSP_OK;
    if (!a->name) {
        fprintf(stderr, WHO ": name a recipe (see --list)\n");
        return NSYSP_ERR_USAGE;
    }
    if (!nsysp_recipe_about(a->name)) {
        fprintf(stderr, WHO ": no recipe named '%s' (see --list)\n", a->name);
        return NSYSP_ERR_USAGE;
    }
    int apart = a->partial + a->from_partials + a->list_reports + a->rounds + a->survey + a->plan;
    if (apart && !nsysp_recipe_splits(a->name)) {
        fprintf(stderr, WHO ": %s cannot read its reports apart (run it on one machine)\n",
                a->name);
        return NSYSP_ERR_USAGE;
    }
    if (apart > 1) {
        fprintf(stderr, WHO ": --partial, --from-partials, --list-reports, --rounds, --survey "
                        "and --plan go alone\n");
        return NSYSP_ERR_USAGE;
    }
    if ((a->survey || a->plan) && !nsysp_recipe_surveys(a->name)) {
        fprintf(stderr, WHO ": %s needs no survey (see --rounds)\n", a->name);
        return NSYSP_ERR_USAGE;
    }
    if (a->options.has_job_window && !(a->partial && nsysp_recipe_surveys(a->name))) {
        fprintf(stderr, WHO ": --job-window goes with --partial of a recipe that surveys "
                        "(see --rounds)\n");
        return NSYSP_ERR_USAGE;
    }
    if (a->rounds)
        return NSYSP_OK;
    if (!a->output && !a->partial && !a->list_reports && !a->survey && !a->plan) {
        fprintf(stderr, WHO ": --output DIR is required\n");
        return NSYSP_ERR_USAGE;
    }
    if (!a->n_inputs) {
        fprintf(stderr, WHO ": give the reports or directories to read\n");
        return NSYSP_ERR_USAGE;
    }
    return NSYSP_OK;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reports of the inputs: each directory's in name order (as nsys's
 * recipes list them), every file once. */
static int collect_reports(const recipe_args *a, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    if (strcmp(a->name, "diff") == 0) { /* two output directories, as given */
        *paths = calloc(a->n_inputs + 1, sizeof **paths);
        for (size_t i = 0; *paths && i < a->n_inputs; i++)
            (*paths)[(*n)++] = strdup(a->inputs[i]);
        return *paths ? NSYSP_OK : NSYSP_ERR_INTERNAL;
    }
    for (size_t i = 0; i < a->n_inputs; i++) {
        char **found;
        size_t n_found;
        int status = expand_reports(WHO, &a->inputs[i], 1, &found, &n_found);
        if (status != NSYSP_OK) {
            free_reports(*paths, *n);
            *paths = NULL;
            *n = 0;
            return status;
        }
        qsort(found, n_found, sizeof *found, by_path);
        char **grown = realloc(*paths, (*n + n_found) * sizeof *grown);
        if (!grown) {
            free_reports(found, n_found);
            free_reports(*paths, *n);
            *paths = NULL;
            *n = 0;
            return NSYSP_ERR_INTERNAL;
        }
        *paths = grown;
        memcpy(*paths + *n, found, n_found * sizeof *found);
        *n += n_found;
        free(found);
    }
    size_t kept = keep_each_report_once(WHO, *paths, *n);
    for (size_t i = kept; i < *n; i++)
        free((*paths)[i]);
    *n = kept;
    return NSYSP_OK;
}

/* The report's name without its directory and last extension, as NVIDIA's
 * File column names it. */
static char *report_label(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *label = strdup(base);
    char *dot = label ? strrchr(label, '.') : NULL;
    if (dot && dot != label)
        *dot = '\0';
    return label;
}

static int write_file(const char *dir, const char *name, const char *data, size_t size)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, size, f);
    return fclose(f) == 0 && written == size ? 0 : -1;
}

/* A short README.md: what ran, on which reports, and the files. */
static char *readme_text(const recipe_args *a, char *const *labels, size_t n,
                         const nsysp_recipe_result *res)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    fprintf(f, "# %s\n\n%s.\n\nReports (%zu):\n\n", a->name, nsysp_recipe_about(a->name), n);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "- %s\n", labels[i]);
    /* Pictures first: a user would rather look than read. */
    for (size_t i = 0; i < res->n_files; i++) {
        const char *dot = strrchr(res->files[i].name, '.');
        if (dot && strcmp(dot, ".svg") == 0)
            fprintf(f, "\n![%s](%s)\n", res->files[i].name, res->files[i].name);
    }
    fprintf(f, "\nFiles, as `nsys recipe %s --csv` (nsys 2023.4) names them:\n\n", a->name);
    for (size_t i = 0; i < res->n_files; i++)
        fprintf(f, "- [%s](%s)\n", res->files[i].name, res->files[i].name);
    fclose(f);
    return text;
}

/* What ran, on what, into which files: as NVIDIA's .nsys-analysis file
 * records it, so that `recipe diff` knows the recipe of a directory. */
static char *analysis_text(const recipe_args *a, char **paths, size_t n,
                           const nsysp_recipe_result *res)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    fputs("{\n    \"RecipeName\": ", f);
    json_string(f, a->name);
    fputs(",\n    \"InputFiles\": [", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, paths[i]);
    }
    fputs("],\n    \"Outputs\": [", f);
    for (size_t i = 0; i < res->n_files; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, res->files[i].name);
    }
    fputs("]\n}\n", f);
    fclose(f);
    return text;
}

/* Removes dir when it holds only files; -1 otherwise. */
static int remove_file_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int status = 0;
    while (status == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || unlink(path) != 0)
            status = -1;
    }
    closedir(d);
    return status == 0 ? rmdir(dir) : -1;
}

/* Writes every file into a new directory beside output, then renames it
 * to output, so that output is whole or absent. */
static int write_outputs(const recipe_args *a, const nsysp_recipe_result *res, const char *readme,
                         const char *analysis)
{
    struct stat st;
    if (lstat(a->output, &st) == 0 && !a->force) {
        fprintf(stderr, WHO ": %s: already exists (use --force-overwrite to replace it)\n",
                a->output);
        return NSYSP_ERR_OUTPUT;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.partial-XXXXXX", a->output) >= (int)sizeof tmp ||
        !mkdtemp(tmp)) {
        fprintf(stderr, WHO ": %s: cannot create: %s\n", a->output, strerror(errno));
        return NSYSP_ERR_OUTPUT;
    }
    int ok = 1;
    for (size_t i = 0; ok && i < res->n_files; i++)
        ok = write_file(tmp, res->files[i].name, res->files[i].data, res->files[i].size) == 0;
    if (ok && readme)
        ok = write_file(tmp, "README.md", readme, strlen(readme)) == 0;
    if (ok && analysis) {
        const char *base = strrchr(a->output, '/');
        char name[1024];
        base = base && base[1] ? base + 1 : a->output;
        ok = snprintf(name, sizeof name, "%.1000s.nsys-analysis", base) < (int)sizeof name &&
             write_file(tmp, name, analysis, strlen(analysis)) == 0;
    }
    if (ok && lstat(a->output, &st) == 0 && (!S_ISDIR(st.st_mode) || remove_file_dir(a->output))) {
        fprintf(stderr, WHO ": %s: not replaced: it is not a directory of files only\n",
                a->output);
        remove_file_dir(tmp);
        return NSYSP_ERR_OUTPUT;
    }
    if (!ok || rename(tmp, a->output) != 0) {
        fprintf(stderr, WHO ": %s: cannot write: %s\n", a->output, strerror(errno));
        remove_file_dir(tmp);
        return NSYSP_ERR_OUTPUT;
    }
    return NSYSP_OK;
}

/* Reports exported to SQLite first (.nsys-rep, .qdrep) and their labels. */
typedef struct job_inputs {
    char **sqlite, **labels, **tmpdirs;
    size_t n;
} job_inputs;

static void free_inputs(job_inputs *j)
{
    for (size_t i = 0; i < j->n; i++) {
        if (j->tmpdirs[i])
            remove_export(j->sqlite[i], j->tmpdirs[i]);
        free(j->sqlite[i]);
        free(j->labels[i]);
        free(j->tmpdirs[i]);
    }
    free(j->sqlite);
    free(j->labels);
    free(j->tmpdirs);
}

/* X.sqlite beside the report X.nsys-rep, written since the report was (as
 * nsys's own recipes reuse the export they made), or NULL. */
static char *export_beside(const char *report)
{
    const char *dot = strrchr(report, '.');
    const char *slash = strrchr(report, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    size_t stem = (size_t)(dot - report);
    char *sqlite = malloc(stem + sizeof ".sqlite");
    if (!sqlite)
        return NULL;
    memcpy(sqlite, report, stem);
    memcpy(sqlite + stem, ".sqlite", sizeof ".sqlite");
    struct stat r, e;
    if (stat(report, &r) == 0 && stat(sqlite, &e) == 0 && S_ISREG(e.st_mode) && e.st_size > 0 &&
        (e.st_mtim.tv_sec > r.st_mtim.tv_sec ||
         (e.st_mtim.tv_sec == r.st_mtim.tv_sec && e.st_mtim.tv_nsec >= r.st_mtim.tv_nsec)))
        return sqlite;
    free(sqlite);
    return NULL;
}

/* The reports still to export, shared by the exporting threads. */
typedef struct export_work {
    char **paths;
    const char *tables; /* nsys export --tables patterns, or NULL: every table */
    job_inputs *j;
    size_t next, n;
    int *status;
    char (*errs)[512];
    pthread_mutex_t lock;
} export_work;

static void *export_some(void *arg)
{
    export_work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        size_t i = w->next;
        while (i < w->n && (w->j->sqlite[i] || !is_nsys_report(w->paths[i])))
            i++;
        w->next = i + 1;
        pthread_mutex_unlock(&w->lock);
        if (i >= w->n)
            return NULL;
        char sqlite[4096], tmpdir[4096];
        w->status[i] = export_nsys_tables(w->paths[i], w->tables, sqlite, sizeof sqlite, tmpdir,
                                          sizeof tmpdir, w->errs[i], sizeof w->errs[i], NULL);
        if (w->status[i] == NSYSP_OK) {
            w->j->sqlite[i] = strdup(sqlite);
            w->j->tmpdirs[i] = strdup(tmpdir);
        }
    }
}

/* Each report as SQLite: an export as given, else the up-to-date export
 * beside it, else exported with nsys now, `threads` at a time, into a
 * temporary directory, of only the tables the recipe reads where nsys can
 * (2023.2 on): most of an export's time goes to tables a recipe never
 * reads, such as GPU metrics. On failure, the first failed report in job
 * order is named. */
static int prepare_inputs(const recipe_args *a, char **paths, size_t n, job_inputs *j)
{
    int threads = a->options.threads;
    j->n = n;
    j->sqlite = calloc(n ? n : 1, sizeof *j->sqlite);
    j->labels = calloc(n ? n : 1, sizeof *j->labels);
    j->tmpdirs = calloc(n ? n : 1, sizeof *j->tmpdirs);
    if (!j->sqlite || !j->labels || !j->tmpdirs)
        return NSYSP_ERR_INTERNAL;
    size_t to_export = 0;
    for (size_t i = 0; i < n; i++) {
        j->labels[i] = report_label(paths[i]);
        if (!is_nsys_report(paths[i]))
            j->sqlite[i] = strdup(paths[i]);
        else if (!(j->sqlite[i] = export_beside(paths[i])))
            to_export++;
    }
    if (!to_export)
        return NSYSP_OK;
    const char *nsys = find_nsys();
    char *tables = nsys && nsys_exports_tables(nsys)
                       ? nsysp_recipe_export_tables(a->name, &a->options)
                       : NULL;
    export_work w = {paths, tables, j, 0, n, calloc(n, sizeof *w.status),
                     calloc(n, sizeof *w.errs), PTHREAD_MUTEX_INITIALIZER};
    if (!w.status || !w.errs) {
        free(w.status);
        free(w.errs);
        free(tables);
        return NSYSP_ERR_INTERNAL;
    }
    if (threads <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (int)online : 1;
    }
    size_t n_helpers = (size_t)threads < to_export ? (size_t)threads - 1 : to_export - 1;
    pthread_t *helpers = calloc(n_helpers + 1, sizeof *helpers);
    size_t started = 0;
    while (helpers && started < n_helpers &&
           pthread_create(&helpers[started], NULL, export_some, &w) == 0)
        started++;
    export_some(&w);
    for (size_t k = 0; k < started; k++)
        pthread_join(helpers[k], NULL);
    free(helpers);
    int status = NSYSP_OK;
    for (size_t i = 0; i < n && status == NSYSP_OK; i++)
        if (w.status[i] != NSYSP_OK) {
            fprintf(stderr, WHO ": %s\n", w.errs[i]);
            status = w.status[i];
        }
    free(w.status);
    free(w.errs);
    free(tables);
    return status;
}

/* Writes what res holds into a.output, with the README and the record of
 * the reports (paths as the user named them). */
static int write_result(const recipe_args *a, const nsysp_recipe_result *res, char **paths,
                        size_t n)
{
    if (res->no_data) { /* as nsys: nothing written, and no failure */
        fprintf(stderr, WHO ": %s; no output generated\n", res->message);
        return NSYSP_OK;
    }
    char *readme = readme_text(a, res->labels, res->n_reports, res);
    char *analysis = analysis_text(a, paths, n, res);
    int status = write_outputs(a, res, readme, analysis);
    free(readme);
    free(analysis);
    return status;
}

typedef nsysp_status (*report_step)(const char *name, const char *report, const char *label,
                                    const nsysp_recipe_options *options, char **text,
                                    size_t *size, char *message, size_t message_size);

/* --partial, --survey: the one report's partial or survey on stdout. */
static int print_step(const recipe_args *a, char **paths, size_t n, report_step step)
{
    if (n != 1) {
        fprintf(stderr, WHO ": %s reads one report, not %zu\n",
                a->survey ? "--survey" : "--partial", n);
        return NSYSP_ERR_USAGE;
    }
    job_inputs j = {0};
    int status = prepare_inputs(a, paths, n, &j);
    if (status == NSYSP_OK) {
        char *partial, message[512] = "";
        size_t size;
        status = step(a->name, j.sqlite[0], j.labels[0], &a->options, &partial, &size, message,
                      sizeof message);
        if (status != NSYSP_OK)
            fprintf(stderr, WHO ": %s\n", message);
        else if (fwrite(partial, 1, size, stdout) != size)
            status = NSYSP_ERR_OUTPUT;
        free(partial);
    }
    free_inputs(&j);
    return status;
}

/* The partial in path, read whole. */
static char *read_partial(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, WHO ": %s: cannot read: %s\n", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t cap = 0;
    *size = 0;
    for (;;) {
        if (*size + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            char *grown = realloc(text, cap);
            if (!grown)
                break;
            text = grown;
        }
        size_t got = fread(text + *size, 1, cap - *size - 1, f);
        *size += got;
        if (got == 0)
            break;
    }
    bool ok = text && !ferror(f);
    fclose(f);
    if (!ok) {
        fprintf(stderr, WHO ": %s: cannot read\n", path);
        free(text);
        return NULL;
    }
    text[*size] = '\0';
    return text;
}

/* --from-partials, --plan: each input's text, read whole, and its size. */
static int read_partials(const recipe_args *a, char ***texts, size_t **sizes)
{
    *texts = calloc(a->n_inputs + 1, sizeof **texts);
    *sizes = calloc(a->n_inputs + 1, sizeof **sizes);
    int status = *texts && *sizes ? NSYSP_OK : NSYSP_ERR_INTERNAL;
    for (size_t i = 0; i < a->n_inputs && status == NSYSP_OK; i++)
        if (!((*texts)[i] = read_partial(a->inputs[i], &(*sizes)[i])))
            status = NSYSP_ERR_INPUT_OPEN;
    return status;
}

static void free_partials(const recipe_args *a, char **texts, size_t *sizes)
{
    for (size_t i = 0; texts && i < a->n_inputs; i++)
        free(texts[i]);
    free(texts);
    free(sizes);
}

/* --plan: the job's plan from its reports' surveys, as the options every
 * --partial takes, one a line (none when no report has a session). */
static int print_plan(const recipe_args *a)
{
    char **texts, message[512] = "";
    size_t *sizes;
    int status = read_partials(a, &texts, &sizes);
    nsysp_recipe_options plan = {0};
    if (status == NSYSP_OK)
        status = nsysp_recipe_plan(a->name, (const char *const *)texts, sizes, a->n_inputs,
                                   &a->options, &plan, message, sizeof message);
    if (status != NSYSP_OK && *message)
        fprintf(stderr, WHO ": %s\n", message);
    else if (status == NSYSP_OK && plan.has_job_window)
        printf("--job-window\n%" PRId64 ":%" PRId64 "\n", plan.job_start_ns, plan.job_end_ns);
    free_partials(a, texts, sizes);
    return status;
}

/* --from-partials: the job folded from its reports' partials. */
static int fold_partials(const recipe_args *a)
{
    char **texts;
    size_t *sizes;
    int status = read_partials(a, &texts, &sizes);
    if (status == NSYSP_OK) {
        nsysp_recipe_result res;
        status = nsysp_recipe_from_partials(a->name, (const char *const *)texts, sizes,
                                            a->n_inputs, &a->options, &res);
        if (status != NSYSP_OK)
            fprintf(stderr, WHO ": %s\n", res.message);
        else
            status = write_result(a, &res, res.reports, res.n_reports);
        nsysp_recipe_result_free(&res);
    }
    free_partials(a, texts, sizes);
    return status;
}

static int run_job(const recipe_args *a, char **paths, size_t n)
{
    job_inputs j = {0};
    int status = prepare_inputs(a, paths, n, &j);
    if (status == NSYSP_OK) {
        nsysp_recipe_result res;
        status = nsysp_recipe_run(a->name, (const char *const *)j.sqlite,
                                  (const char *const *)j.labels, j.n, &a->options, &res);
        if (status != NSYSP_OK)
            fprintf(stderr, WHO ": %s\n", res.message);
        else
            status = write_result(a, &res, paths, n);
        nsysp_recipe_result_free(&res);
    }
    free_inputs(&j);
    return status;
}

/* The Dask driver: $NSYSP_TOOLS, the installed tools, or this build's
 * source tree, whichever holds it. */
static const char *dask_driver(char *path, size_t size)
{
    const char *dirs[] = {getenv("NSYSP_TOOLS"), NSYSP_INSTALLED_TOOLS_DIR, NSYSP_SOURCE_TOOLS_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        if (dirs[i] && *dirs[i] &&
            snprintf(path, size, "%s/recipe_dask.py", dirs[i]) < (int)size &&
            access(path, X_OK) == 0)
            return path;
    return NULL;
}

/* --mode dask-futures: the same command line, less --mode, through
 * tools/recipe_dask.py with this very binary on the workers (as nsys's
 * dask-futures mode, the scheduler in $DASK_SCHEDULER_ADDRESS, else a local
 * cluster of one worker per CPU). Returns only on failure. */
static int run_on_dask(int argc, char **argv)
{
    char driver[4096], self[4096];
    if (!dask_driver(driver, sizeof driver)) {
        fprintf(stderr, WHO ": --mode dask-futures needs tools/recipe_dask.py: not found (set "
                        "NSYSP_TOOLS to the folder that holds it)\n");
        return NSYSP_ERR_USAGE;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, WHO ": cannot find this program's own path for the workers\n");
        return NSYSP_ERR_INTERNAL;
    }
    self[n] = '\0';
    char cpus[32];
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(cpus, sizeof cpus, "%ld", online > 0 ? online : 1);
    const char *scheduler = getenv("DASK_SCHEDULER_ADDRESS");
    char **args = calloc((size_t)argc + 8, sizeof *args);
    if (!args)
        return NSYSP_ERR_INTERNAL;
    size_t k = 0;
    args[k++] = driver; /* its #! line names Debian's python3, which has Dask */
    args[k++] = scheduler && *scheduler ? "--scheduler" : "--local";
    args[k++] = scheduler && *scheduler ? (char *)scheduler : cpus;
    args[k++] = "--nsys-perfetto";
    args[k++] = self;
    for (int i = 1; i < argc; i++) { /* argv[0] is "recipe"; --mode goes */
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--mode=", 7) == 0)
            continue;
        args[k++] = argv[i];
    }
    fflush(NULL);
    execv(driver, args);
    fprintf(stderr, WHO ": --mode dask-futures: cannot run %s: %s\n", driver, strerror(errno));
    free(args);
    return NSYSP_ERR_INTERNAL;
}

int recipe_main(int argc, char **argv)
{
    recipe_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status != NSYSP_OK || a.list) {
        if (a.list && status == NSYSP_OK)
            for (const char *const *n = nsysp_recipe_names(); *n; n++)
                printf("%s\t%s\n", *n, nsysp_recipe_about(*n));
        free(a.inputs);
        return status < 0 ? NSYSP_OK : status;
    }
    if (a.rounds) {
        printf("%spartial\n", nsysp_recipe_surveys(a.name) ? "survey\n" : "");
        free(a.inputs);
        return NSYSP_OK;
    }
    if (a.dask && !a.partial && !a.from_partials && !a.list_reports && !a.survey && !a.plan) {
        free(a.inputs);
        return run_on_dask(argc, argv);
    }
    if (a.from_partials || a.plan) {
        status = a.plan ? print_plan(&a) : fold_partials(&a);
        free(a.inputs);
        return status;
    }
    char **paths = NULL;
    size_t n = 0;
    status = collect_reports(&a, &paths, &n);
    if (status == NSYSP_OK && a.list_reports) {
        for (size_t i = 0; i < n; i++)
            printf("%s%c", paths[i], a.null ? '\0' : '\n');
    } else if (status == NSYSP_OK && (a.partial || a.survey)) {
        status = print_step(&a, paths, n, a.survey ? nsysp_recipe_survey : nsysp_recipe_partial);
    } else if (status == NSYSP_OK) {
        status = run_job(&a, paths, n);
    }
    free_reports(paths, n);
    free(a.inputs);
    return status;
}
