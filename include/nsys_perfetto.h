/* nsys-perfetto: convert NVIDIA Nsight Systems SQLite exports into Perfetto
 * traces.
 *
 *   nsysp_options opt;
 *   nsysp_options_init(&opt);
 *   nsysp_result res;
 *   int status = nsysp_convert("report.sqlite", &opt, &res);
 *   if (status != NSYSP_OK) fprintf(stderr, "%s\n", res.message);
 *
 * The input is opened strictly read-only and never modified. The output is
 * written to a temporary file beside the destination and renamed into place
 * only when the whole conversion succeeded. */
#ifndef NSYS_PERFETTO_H
#define NSYS_PERFETTO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NSYSP_VERSION_STRING "0.1.0"

/* Results of nsysp_convert; the CLI uses them as its exit statuses. */
typedef enum nsysp_status {
    NSYSP_OK = 0,
    NSYSP_ERR_INTERNAL = 1,      /* a bug, or out of memory */
    NSYSP_ERR_USAGE = 2,         /* bad command line (CLI only) */
    NSYSP_ERR_INPUT_OPEN = 3,    /* input missing, a directory, or unreadable */
    NSYSP_ERR_INPUT_FORMAT = 4,  /* input empty, not SQLite, truncated or corrupt */
    NSYSP_ERR_NOT_NSYS = 5,      /* SQLite, but not a usable Nsight Systems export */
    NSYSP_ERR_OUTPUT = 6,        /* output cannot be created or written */
    NSYSP_ERR_INTERRUPTED = 7,   /* cancelled (SIGINT/SIGTERM in the CLI) */
} nsysp_status;

typedef enum nsysp_kernel_names {
    NSYSP_KERNEL_NAMES_SHORT = 0,     /* gemm_kernel */
    NSYSP_KERNEL_NAMES_DEMANGLED,     /* void gemm_kernel<float>(float*, int) */
    NSYSP_KERNEL_NAMES_MANGLED,       /* _Z11gemm_kernelIfEvPfi */
} nsysp_kernel_names;

/* What nsysp_convert writes. */
typedef enum nsysp_format {
    NSYSP_FORMAT_PERFETTO = 0,        /* Perfetto protobuf (.perfetto-trace) */
    /* Chrome trace JSON as PyTorch's profiler (Kineto) writes it, for HTA,
     * TraceLens and chrome://tracing: one file per rank (each process that
     * ran GPU work; the rank as `ranks` numbers it), "report.json.gz"
     * (".json" uncompressed). With several files, ".rankN" goes before
     * ".json", or output_path names a directory to write them into.
     * CPU samples and context switches have no form there and are left
     * out (nsysp_result.not_written). */
    NSYSP_FORMAT_KINETO,
} nsysp_format;

typedef struct nsysp_options {
    /* Destination; NULL means the input path with its .sqlite extension
     * replaced by .perfetto-trace (see nsysp_default_output_path), or
     * .json.gz for NSYSP_FORMAT_KINETO. */
    const char *output_path;
    nsysp_format format;
    /* deflate level 1..9 (default 7); 0 writes an uncompressed trace. */
    int compress_level;
    nsysp_kernel_names kernel_names;
    /* Hide CUDA streams whose work adds up to less than this percentage of
     * the report's duration (0: hide nothing). */
    double min_stream_activity;
    /* Keep only NVTX ranges and marks of these domains ("default" names the
     * default domain); none given keeps all. */
    const char *const *nvtx_domains;
    size_t n_nvtx_domains;
    /* Keep only NVTX ranges and marks whose name matches this POSIX extended
     * regular expression (NULL keeps all). Refused (NSYSP_ERR_USAGE) where
     * glibc's cost could run away: back-references (\1, not POSIX
     * ERE), over 1024 bytes, a {n,m} count over 255, or over 1024
     * characters once its repeats are written out. */
    const char *nvtx_filter;
    /* PyTorch's op ranges (emit_nvtx: "aten::to, seq = 12, op_id = 998949")
     * are named by their op ("aten::to"), the parts kept as args seq,
     * op_id, sizes, input_op_ids and the whole text as arg text; with
     * raw_names, named by their whole text as recorded. nvtx_filter
     * keeps a range when the op's name or the whole text matches. */
    int raw_names;
    /* Filters. Rows they leave out are counted as skipped ("filtered out").
     * sources: names as nsysp_source_name() lists them (NULL: all).
     * time range: events that start in [time_start, time_end], in ns from
     * the start of the report. gpu: one device id (-1: all). pid: one
     * process (0: all); scheduling stays whole so CPU tracks stay right. */
    const char *const *sources;
    size_t n_sources;
    int has_time_range;
    int64_t time_start, time_end;
    int64_t gpu;
    int32_t pid;
    /* Several reports (nsysp_convert_many) are aligned on their session
     * starts in UTC; with align_start they all start at zero instead. */
    int align_start;
    /* Several reports: report i's processes and GPUs are labelled
     * report_labels[i] ("before", "after") instead of its host or file
     * name, for i < n_report_labels where the label is not NULL or empty. */
    const char *const *report_labels;
    size_t n_report_labels;
    /* Called now and then with how far the conversion is (0..1), e.g. to
     * draw a progress display; NULL for none. */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
    /* Count the rows of the tables not converted (see nsysp_result). */
    int count_unread_tables;
    /* When non-NULL and set non-zero (e.g. by a signal handler), the
     * conversion stops, removes its temporary file and returns
     * NSYSP_ERR_INTERRUPTED. */
    volatile sig_atomic_t *cancel;
    /* Threads that read the report and convert it: the main thread models
     * and packs, threads - 1 readers step the tables beside it (the
     * compressor has a thread of its own besides). 0: the CPUs this
     * process may use, at most NSYSP_MAX_THREADS; 1: the main thread
     * reads too. The trace is the same bytes whatever the number. */
    int threads;
} nsysp_options;

#define NSYSP_MAX_THREADS 8

/* Per-source accounting: every row read is either written as events or
 * skipped for a counted reason. */
typedef enum nsysp_skip_reason {
    NSYSP_SKIP_NULL_TIMESTAMP,   /* start or end is NULL */
    NSYSP_SKIP_END_BEFORE_START,
    NSYSP_SKIP_MISSING_VALUE,    /* another required value is NULL */
    NSYSP_SKIP_HIDDEN_STREAM,    /* on a stream hidden by min_stream_activity */
    NSYSP_SKIP_FILTERED,         /* left out by nvtx_domains / nvtx_filter */
    NSYSP_SKIP_SCHED_REDUNDANT,  /* scheduled in where it already ran */
    NSYSP_SKIP_SCHED_INCONSISTENT, /* out of a thread not running there, bad CPU */
    NSYSP_SKIP_NOT_PERIODIC,     /* a CPU sample row that is not a periodic sample */
    NSYSP_SKIP_UNSUPPORTED,      /* a kind of row the converter does not write */
    NSYSP_SKIP_TIME_OUT_OF_RANGE, /* a timestamp beyond +-2^62 ns (146 years) */
    NSYSP_SKIP_REASONS
} nsysp_skip_reason;

/* The largest time the library reads, in ns either side of 0: beyond it a
 * time cannot be shifted or subtracted without overflow (2^62 ns is 146
 * years), so rows there are skipped (NSYSP_SKIP_TIME_OUT_OF_RANGE) and
 * times given to the library are clamped to it. */
#define NSYSP_MAX_TIME_NS ((INT64_C(1) << 62) - 1)

#define NSYSP_MAX_SOURCES 64

typedef struct nsysp_source_stats {
    const char *name;            /* "kernel", "cuda-api", ... */
    const char *table;           /* the nsys table it reads */
    uint64_t rows;               /* rows read */
    uint64_t emitted;            /* rows written as events */
    uint64_t skipped[NSYSP_SKIP_REASONS];
} nsysp_source_stats;

typedef struct nsysp_result {
    char message[512];           /* one-line error, empty on success */
    char output_path[4096];      /* where the trace went (the first file) */
    size_t n_outputs;            /* files written: 1, or one per rank (Kineto) */
    uint64_t not_written;        /* events the format has no form for (Kineto:
                                    CPU samples, context switches) */
    nsysp_source_stats sources[NSYSP_MAX_SOURCES];
    size_t n_sources;            /* sources whose table is in the report; with
                                    several reports, one entry per report
                                    and source while room stays for one of
                                    every source, then later reports count
                                    into their source's entry */
    uint64_t tracks;             /* track descriptors written */
    uint64_t packets;
    uint64_t flows;
    uint64_t flows_dropped;      /* GPU operations stamped before their call
                                    left without a flow: too many calls
                                    awaited their turn at once */
    uint64_t hidden_streams;     /* hidden by min_stream_activity */
    uint64_t bytes_uncompressed;
    uint64_t bytes_written;
    int64_t time_shift_ns;       /* added to every timestamp (negative ones) */
    char schema_version[32];     /* "3.16.1", or "" when the report has none */
    /* Tables of the report that no source reads (metadata and ENUM tables
     * aside), so users know what was left out; rows counted only when
     * opt->count_unread_tables is set, else -1. */
    struct {
        char name[64];
        int64_t rows;
    } unread[NSYSP_MAX_SOURCES];
    size_t n_unread;
} nsysp_result;

void nsysp_options_init(nsysp_options *opt);

/* Converts one report. Fills *result (which may be NULL) and returns
 * NSYSP_OK or an error status with result->message set. */
nsysp_status nsysp_convert(const char *input_path, const nsysp_options *opt, nsysp_result *result);

/* Merges several reports into one trace: one process group per process of
 * every report, named with its host (or file name), pids kept apart, times
 * aligned (see align_start). The output defaults to the first input's. */
nsysp_status nsysp_convert_many(const char *const *inputs, size_t n_inputs,
                                const nsysp_options *opt, nsysp_result *result);

/* Writes the default output path for input into out (size bytes):
 * "dir/report.sqlite" -> "dir/report.perfetto-trace". Returns 0, or -1 when
 * out is too small. */
int nsysp_default_output_path(const char *input_path, char *out, size_t size);

const char *nsysp_skip_reason_name(nsysp_skip_reason reason);

/* The names sources go by (for options.sources and --stats), i from 0
 * until NULL is returned; names repeat when one source reads several
 * tables. */
const char *nsysp_source_name(size_t i);
const char *nsysp_version(void);

/* What options.threads 0 means on this machine: the CPUs this process may
 * use, at most NSYSP_MAX_THREADS. */
int nsysp_default_threads(void);

/* ---- Summaries ----------------------------------------------------------

 * Per-name totals of a report, as `nsys-perfetto summary` prints them, each
 * with count and total, minimum and maximum duration in ns, by category:
 *   kernel        kernels (short names; nsysp_summary_set_kernel_names)
 *   memory        memory operations ("[CUDA memcpy Host-to-Device]",
 *                 "[CUDA memset]")
 *   cuda-api      CUDA API calls (without "_v7000"-style version suffix)
 *   library       cuBLAS and cuDNN calls
 *   api-gpu       the GPU time of CUDA API, cuBLAS and cuDNN calls: the
 *                 summed duration of the kernels, copies and sets a call
 *                 launched (a library call: through the CUDA calls made on
 *                 its thread while it ran); count is calls with GPU work
 *   nvtx          NVTX ranges; "DOMAIN:name" in a named domain
 *   nvtx-gpu      NVTX ranges projected onto the GPU, as nsys stats'
 *                 nvtxgpuproj: first operation's start to the last one's
 *                 end, over the work of the CUDA calls made inside the
 *                 range on its thread; "DOMAIN:name" in a named domain
 *   nvtx-gpu-ops  the same ranges' summed GPU operation durations
 * Names and totals are nsys stats 2023.4's (cuda_gpu_kern_sum:base,
 * cuda_gpu_mem_time_sum, cuda_api_sum, nvtx_sum, nvtx_gpu_proj_sum) where
 * both compute the same thing (docs/summary.md). */
typedef struct nsysp_summary_row {
    const char *category;        /* "kernel", "memory", "cuda-api", ... */
    char *name;
    uint64_t count;
    int64_t total_ns, min_ns, max_ns;
} nsysp_summary_row;

typedef struct nsysp_summary {
    nsysp_summary_row *rows;     /* by category, then total time, longest first */
    size_t n_rows;
    char message[512];           /* one-line error, empty on success */
} nsysp_summary;

/* Summarizes one report; match (NULL for all) is a POSIX extended regular
 * expression the names must match, refused as options.nvtx_filter is. */
nsysp_status nsysp_summarize(const char *input_path, const char *match, nsysp_summary *summary);
/* The same with n_match expressions; a name is kept when it matches any. */
nsysp_status nsysp_summarize_matching(const char *input_path, const char *const *match,
                                      size_t n_match, nsysp_summary *summary);
void nsysp_summary_free(nsysp_summary *summary);
/* Summaries take no options, so their cancel flag is the process's: once
 * *cancel (when not NULL) is set non-zero, e.g. by a signal handler, every
 * summary under way stops and returns NSYSP_ERR_INTERRUPTED. Set it before
 * summaries start (it is read without a lock); NULL, the default, never
 * cancels. */
void nsysp_summary_set_cancel(volatile sig_atomic_t *cancel);
/* Summaries and measures group PyTorch's op ranges by op, as the
 * converter names them (see nsysp_options.raw_names, and --match and the
 * focus range match the op's name); raw non-zero groups them by their whole
 * text instead, as nsys stats does. Process-wide, like the cancel flag:
 * set it before summaries start. */
void nsysp_summary_set_raw_names(int raw);
/* The names summaries give kernels: short (the default, as nsys stats'
 * cuda_gpu_kern_sum:base), demangled (its default) or mangled (its
 * :mangled; demangled where the report has no mangled names). Process-wide,
 * like the cancel flag: set it before summaries start. */
void nsysp_summary_set_kernel_names(nsysp_kernel_names kind);

/* ---- Measures: a run's headline times, for comparing runs ------------- */

typedef struct nsysp_gpu_busy {
    int64_t device;              /* deviceId */
    int64_t busy_ns;             /* the union of its kernels, copies and sets */
} nsysp_gpu_busy;

/* How a report's step (its unit of work) was found. */
typedef enum nsysp_step_rule {
    NSYSP_STEP_NONE,             /* none: compare per call */
    NSYSP_STEP_GIVEN,            /* the range the caller named (--step, --focus) */
    NSYSP_STEP_PROFILER,         /* PyTorch profiler's ProfilerStep#N ranges */
    NSYSP_STEP_REPEATED,         /* the most repeated top-level range that is not an op
                                  * (not a PyTorch op range, no "::"), twice or more */
} nsysp_step_rule;

typedef struct nsysp_measures {
    int64_t session_ns;          /* ANALYSIS_DETAILS stop - start, or -1 */
    int64_t gpu_span_ns;         /* first GPU operation's start to the last one's end, or -1 */
    nsysp_gpu_busy *gpus;        /* by device id */
    size_t n_gpus;
    /* The focus range's instances (CPU durations, ns) and the kernels launched
     * by CUDA calls made inside them on their thread, as the summary's
     * nvtx-gpu counts them (category "kernel"; empty without a focus). */
    int64_t *focus_ns;
    size_t n_focus;
    nsysp_summary_row *focus_kernels;
    size_t n_focus_kernels;
    /* The unit of work for comparing runs of different length: the step
     * range, how it was found, and its instances (on the thread with the
     * most of them: each rank of a job runs every step). */
    char step_name[256];         /* "" when step_rule is NSYSP_STEP_NONE */
    nsysp_step_rule step_rule;
    size_t n_steps;
    char message[512];           /* one-line error, empty on success */
} nsysp_measures;

/* Measures one report; focus_range (NULL for none) is an NVTX range name,
 * matched exactly as the summary's nvtx category names ranges (text, else
 * registered string; a PyTorch op range by its op unless raw names are
 * set). The steps are focus_range's instances when given, else found
 * (nsysp_step_rule). GPU operations 2^62 ns or more from 0 are left out,
 * as the converter leaves them out. Cancelled by the summaries' flag
 * (nsysp_summary_set_cancel). */
nsysp_status nsysp_measure(const char *input_path, const char *focus_range,
                           nsysp_measures *measures);
/* The same, with step_range (NULL: as nsysp_measure) as the step. */
nsysp_status nsysp_measure_with_step(const char *input_path, const char *focus_range,
                                     const char *step_range, nsysp_measures *measures);
void nsysp_measures_free(nsysp_measures *measures);

/* ---- Ranks: each process of a report that ran GPU work ---------------- */

/* One NCCL kernel of a rank (a collective or point-to-point), in the
 * rank's start order: the k-th of every rank is matched as one collective. */
typedef struct nsysp_collective {
    const char *name;            /* owned by the nsysp_ranks it belongs to */
    int64_t start_utc, end_utc;  /* ns since the epoch, on the job's clock */
} nsysp_collective;

typedef struct nsysp_rank {
    int32_t pid;
    int64_t device;              /* the GPU most of its work ran on */
    int64_t mpi_rank;            /* MPI_RANKS' rank of one of its threads, else -1 */
    /* Its GPU work, ns: the union of its kernels, copies and sets (busy),
     * of its NCCL kernels (communication), of its other kernels (compute),
     * of its copies and sets (memory), and the communication not hidden
     * behind compute (communication minus its overlap with compute). */
    int64_t start_utc, end_utc;  /* its first GPU operation's start, last one's end */
    int64_t busy_ns, compute_ns, comm_ns, memory_ns, exposed_comm_ns;
    /* Its steps (the report's step range, nsysp_measures), in order: start
     * (UTC) and duration, on its thread with the most of them. */
    int64_t *step_start_utc, *step_ns;
    size_t n_steps;
    /* GPU utilization (0..1) in n_bins equal bins of the window asked. */
    double *utilization;
    size_t n_bins;
    nsysp_collective *collectives;
    size_t n_collectives;
} nsysp_rank;

typedef struct nsysp_ranks {
    int64_t session_start_utc;   /* TARGET_INFO_SESSION_START_TIME, else 0 */
    int64_t session_ns;          /* ANALYSIS_DETAILS' span, -1 unknown */
    char step_name[256];         /* the report's step ("" when none) */
    nsysp_step_rule step_rule;
    nsysp_rank *ranks;           /* by device, then pid (unknown device last) */
    size_t n_ranks;
    char **names;                /* the collectives' names */
    size_t n_names;
    char message[512];           /* one-line error, empty on success */
} nsysp_ranks;

/* The report's window on the job's clock (UTC ns): from its first
 * kernel's start to its last one's end; for a job's common heatmap bins.
 * A report without a UTC session start is taken to start at 0. */
nsysp_status nsysp_ranks_window(const char *input_path, int64_t *start_utc, int64_t *end_utc,
                                char message[512]);

/* What a job's first pass reads of each report, to choose the job's clock,
 * window and step before any rank is measured (nsysp_ranks_survey). */
typedef struct nsysp_ranks_survey {
    int64_t start, end;          /* its GPU work's span, report time (start == end: none) */
    int utc_known;               /* 1: TARGET_INFO_SESSION_START_TIME gave its session start */
    int64_t session_start_utc;   /* that start in UTC ns; 0 when not known */
    char step_name[256];         /* its own step, as found ("" none; not read when given) */
    nsysp_step_rule step_rule;
    size_t n_steps;              /* instances on its thread with the most */
    char message[512];           /* one-line error, empty on success */
} nsysp_ranks_survey;

nsysp_status nsysp_ranks_survey_report(const char *input_path, const char *step_range,
                                       nsysp_ranks_survey *survey);

/* What the job decided, for measuring each of its reports alike. */
typedef struct nsysp_ranks_job {
    const char *step_range;      /* the job's step ("" none); NULL: each report's own, found */
    nsysp_step_rule step_rule;   /* how the job's step was chosen (with step_range) */
    int64_t window_start_utc, window_end_utc; /* the job's window, 0 .. 2^62 */
    size_t n_bins;
    int64_t unknown_clock_utc;   /* where a report without a UTC session start has its
                                  * session start (the job's first known one, else 0) */
} nsysp_ranks_job;

nsysp_status nsysp_measure_ranks_in_job(const char *input_path, const nsysp_ranks_job *job,
                                        nsysp_ranks *ranks);

/* Measures every process of the report that ran GPU work: its figures, its
 * steps (step_range, else found as nsysp_measure finds them), its GPU
 * utilization in n_bins bins of [window_start_utc, window_end_utc), and its
 * NCCL kernels. Times are the report's plus its session start in UTC, so
 * ranks of one job share a clock. Cancelled by the summaries' flag. */
nsysp_status nsysp_measure_ranks(const char *input_path, const char *step_range,
                                 int64_t window_start_utc, int64_t window_end_utc, size_t n_bins,
                                 nsysp_ranks *ranks);
void nsysp_ranks_free(nsysp_ranks *ranks);

/* ---- The overview trace of a job -------------------------------------- */

typedef struct nsysp_overview_rank {
    const char *label;           /* its process group's name: "rank 3" */
    const double *utilization;   /* n_bins, 0..1 */
    size_t n_bins;
    const int64_t *step_start_utc, *step_ns;
    size_t n_steps;
    const nsysp_collective *collectives;
    size_t n_collectives;
} nsysp_overview_rank;

typedef struct nsysp_overview {
    const nsysp_overview_rank *ranks;
    size_t n_ranks;
    int64_t window_start_utc, window_end_utc; /* the bins' window; time 0 of the trace */
    size_t n_bins;
    const char *step_name;       /* the steps' slice name (NULL: "step") */
    int compress_level;          /* 0: the default, 7 */
} nsysp_overview;

/* Writes one Perfetto trace for a job: per rank a group with its GPU
 * utilization (a counter, one value per bin; the track says so), its steps
 * and its NCCL kernels (on lanes where they overlap). 0, or an error status
 * with one line in message. */
nsysp_status nsysp_write_overview(const char *path, const nsysp_overview *overview,
                                  char message[512]);

/* ---- Recipes: NVIDIA's multi-report recipes ---------------------------- */

/* A recipe's options, as `nsys recipe` (2023.4) takes them. */
typedef struct nsysp_recipe_options {
    int has_start, has_end;      /* non-zero when start_ns, end_ns are given */
    int64_t start_ns, end_ns;    /* only events overlapping [start, end) */
    int base, mangled;           /* kernels by base or mangled name */
    int64_t tolerance;           /* diff: differences up to this become 0 */
    int drop;                    /* diff: leave out rows that did not change */
    int bins;                    /* time bins of the *_util_map recipes; 0: 30 */
    int cumulative;              /* util maps: concurrent kernels add up */
    const char *name;            /* the pace recipes' kernel or NVTX range */
    /* The rules recipes (cuda_api_sync, gpu_gaps, ...): */
    const char *nvtx;            /* only events of this NVTX range[@domain], or NULL */
    int has_rows, has_gap, has_threshold, has_chunks; /* non-zero when given */
    int64_t rows;                /* at most this many rows per report (default all) */
    int64_t gap_ms;              /* gpu_gaps: gaps longer than this (default 500) */
    int64_t threshold, chunks;   /* gpu_time_util: % in use below which, chunks (50, 30) */
    int threads;                 /* reports read at once (map and reduce recipes);
                                    0: the CPUs this process may use. The
                                    output is the same whatever the number */
    /* A report read apart by a recipe that surveys first: the job's window
     * (UTC ns) that nsysp_recipe_plan folded from the surveys. */
    int has_job_window;
    int64_t job_start_ns, job_end_ns;
} nsysp_recipe_options;

/* A file a recipe writes: NVIDIA's name for it ("all_stats.csv") and its
 * bytes, as `nsys recipe --csv` writes them. */
typedef struct nsysp_recipe_file {
    char *name;
    char *data;
    size_t size;
} nsysp_recipe_file;

typedef struct nsysp_recipe_result {
    nsysp_recipe_file *files;
    size_t n_files;
    char **reports, **labels;    /* the job's reports and their labels, in order */
    size_t n_reports;
    int no_data;                 /* no report has what the recipe reads: no files,
                                    message says so (nsys then writes nothing, exit 0) */
    char message[512];           /* one-line error, empty on success */
} nsysp_recipe_result;

/* The recipes the library runs, by name; NULL-terminated. */
const char *const *nsysp_recipe_names(void);
/* One line on what the recipe computes; NULL for an unknown name. */
const char *nsysp_recipe_about(const char *name);
/* Runs recipe name over n_reports SQLite exports, labels[i] naming report
 * i in the tables (NVIDIA's "File": the report's name without extension).
 * When no report has the data the recipe reads: NSYSP_OK with no files and
 * result->no_data set. */
nsysp_status nsysp_recipe_run(const char *name, const char *const *reports,
                              const char *const *labels, size_t n_reports,
                              const nsysp_recipe_options *options,
                              nsysp_recipe_result *result);
void nsysp_recipe_result_free(nsysp_recipe_result *result);
/* The tables of an nsys export that recipe name reads with these options,
 * as `nsys export --tables` patterns ("^StringIds$,^ENUM_.*,..."): an export
 * of only these gives the recipe's output of the whole export. NULL for an
 * unknown recipe or one that reads no report (diff); the caller frees it. */
char *nsysp_recipe_export_tables(const char *name, const nsysp_recipe_options *options);
/* Whether recipe name can read its reports apart (nsysp_recipe_partial). */
int nsysp_recipe_splits(const char *name);
/* The recipe's work on one report of a job, as text (*partial, malloc'd,
 * *size bytes) that nsysp_recipe_from_partials folds, on this machine or
 * another. On failure returns a status with one line in message. */
nsysp_status nsysp_recipe_partial(const char *name, const char *report, const char *label,
                                  const nsysp_recipe_options *options, char **partial,
                                  size_t *size, char *message, size_t message_size);
/* Whether recipe name reads its reports apart in two rounds: each
 * report's survey (nsysp_recipe_survey) first, folded into the job's plan
 * (nsysp_recipe_plan), which every nsysp_recipe_partial then needs. */
int nsysp_recipe_surveys(const char *name);
/* One report's survey, as text (*survey, malloc'd, *size bytes) that
 * nsysp_recipe_plan folds. On failure a status with one line in message. */
nsysp_status nsysp_recipe_survey(const char *name, const char *report, const char *label,
                                 const nsysp_recipe_options *options, char **survey,
                                 size_t *size, char *message, size_t message_size);
/* Folds the surveys of a job's reports, in job order, into *plan: options
 * with the job's window set (left unset when no report has a session). */
nsysp_status nsysp_recipe_plan(const char *name, const char *const *surveys, const size_t *sizes,
                               size_t n, const nsysp_recipe_options *options,
                               nsysp_recipe_options *plan, char *message, size_t message_size);
/* Folds the partials of a job's reports, in job order, into what
 * nsysp_recipe_run gives for the same reports (result's reports and labels
 * come from the partials). */
nsysp_status nsysp_recipe_from_partials(const char *name, const char *const *partials,
                                        const size_t *sizes, size_t n,
                                        const nsysp_recipe_options *options,
                                        nsysp_recipe_result *result);

#ifdef __cplusplus
}
#endif

#endif
