/* What the recipes share inside the library: a job's reports, the tables a
 * recipe writes, and the list of recipes (recipe.c). Each family of
 * recipes lives in its own recipe_*.c file. */
#ifndef NSYSP_ANALYSIS_RECIPE_H
#define NSYSP_ANALYSIS_RECIPE_H

#include "nsys_perfetto.h"
#include "recipes/recipe_table.h"
#include "common/buf.h"
#include "nsys/nsys_db.h"
#include "nsys/nsys_enums.h"

/* Room for the names of the tables a recipe reads (recipe_job.reads). */
enum { RECIPE_MAX_READS = 24 };

/* The reports of a job, in the order NVIDIA's recipes read them. */
typedef struct recipe_job {
    const char *const *paths;
    const char *const *labels; /* the File column: each report's name without extension */
    size_t n;
    const nsysp_recipe_options *options;
    /* The tables the recipe may read of each report (recipe.c's
     * EVENT_TABLES and DESCRIBING), NULL-terminated; empty for a job that
     * opens no report (one folding partials). */
    const char *reads[RECIPE_MAX_READS];
} recipe_job;

/* A file a recipe writes: a table under NVIDIA's file name
 * ("all_stats.csv"), or text (a picture, "heatmap.svg") or other bytes (a
 * Perfetto trace) when text is set: text_size bytes. */
typedef struct recipe_output {
    char *file;
    recipe_table table;
    char *text;
    size_t text_size;
} recipe_output;

typedef struct recipe_outputs {
    recipe_output *items;
    size_t n;
} recipe_outputs;

/* Adds *table, named file, to o, which now owns it. */
void recipe_outputs_take(recipe_outputs *o, const char *file, recipe_table *table);
/* Adds the text of a file that is no table (an SVG picture), copied. */
void recipe_outputs_add_text(recipe_outputs *o, const char *file, const char *text);
/* Adds a file of size bytes that is no text (a Perfetto trace), copied. */
void recipe_outputs_add_bytes(recipe_outputs *o, const char *file, const void *data, size_t size);

/* What a family's run or reduce returns when no report of the job has
 * the data the recipe reads (err says so): nsys then writes nothing and
 * exits 0, and so do we (nsysp_recipe_result.no_data). */
enum { RECIPE_NO_DATA = 100 };

typedef struct recipe_def recipe_def;
struct recipe_def {
    const char *name;
    const char *about;
    /* Runs the recipe over the job into out. NSYSP_OK; NSYSP_ERR_NOT_NSYS
     * with "no data" in err when no report has what it reads; another
     * status with one line naming the report otherwise. NULL when the
     * recipe runs as map and reduce. */
    int (*run)(const recipe_def *recipe, const recipe_job *job, recipe_outputs *out, buf *err);
    const void *family; /* the family's description of this recipe */
    /* The same work in two steps, so that reports can be read apart (on
     * the machines that hold them, `--mode dask`): map reads report i into
     * partial (nothing when it lacks the data), reduce folds the job's n
     * partials, in job order, into out. */
    int (*map)(const recipe_def *recipe, const recipe_job *job, size_t i, recipe_outputs *partial,
               buf *err);
    int (*reduce)(const recipe_def *recipe, const recipe_job *job, const recipe_outputs *partials,
                  recipe_outputs *out, buf *err);
    /* A first round, for a map that needs the whole job's time (the
     * binning maps: their grid spans every report's session): reads report
     * i's session into survey, a "session" table of one row, Start and End
     * (UTC ns), or nothing when it has none. The job's window, the earliest
     * start to the latest end, then reaches map as options->job_start_ns and
     * job_end_ns. NULL when map needs only its own report. */
    int (*survey)(const recipe_def *recipe, const recipe_job *job, size_t i, recipe_outputs *survey,
                  buf *err);
};

/* The families (listed in recipe.c's FAMILIES). */
extern const recipe_def RECIPES_STATS[]; /* recipe_stats.c: per-name statistics */
extern const size_t N_RECIPES_STATS;
extern const recipe_def RECIPES_DIFF[]; /* recipe_diff.c: two outputs subtracted */
extern const size_t N_RECIPES_DIFF;

/* One report's partial as text (recipe_partial.c), and back: NSYSP_OK, or
 * NSYSP_ERR_INPUT_FORMAT with the reason in err. */
void recipe_partial_write(const char *recipe, const char *report, const char *label,
                          const recipe_outputs *partial, buf *out);
int recipe_partial_read(const char *text, size_t size, const char *recipe, char **report,
                        char **label, recipe_outputs *partial, buf *err);
extern const recipe_def RECIPES_DESCRIBE[]; /* recipe_describe.c: durations described per name */
extern const size_t N_RECIPES_DESCRIBE;
extern const recipe_def RECIPES_NVTX_PROJ[]; /* recipe_nvtx_proj.c: NVTX ranges projected onto the GPU */
extern const size_t N_RECIPES_NVTX_PROJ;
extern const recipe_def RECIPES_MAPS[]; /* recipe_maps.c: utilization per time bin */
extern const size_t N_RECIPES_MAPS;
extern const recipe_def RECIPES_PACE[]; /* recipe_pace.c: a kernel's or range's iterations */
extern const size_t N_RECIPES_PACE;
extern const recipe_def RECIPES_RULES[]; /* recipe_rules.c: nsys analyze's rules */
extern const size_t N_RECIPES_RULES;

/* Appends to sql "VALUES (NULL, NULL), (id, 'label'), ..." for one of
 * nsys's enums: the report's ENUM table when it has one, else nsys's own
 * numbering, so that a query can join labels on any export. NSYSP_OK, or a
 * status with the reason in err. */
int recipe_enum_values(nsys_db *db, nsys_enum_kind kind, buf *sql, buf *err);

/* Opens a report of the job with the job's time filter applied (start,
 * end, nvtx: every table with start and end columns seen through a view of
 * the rows in the window, as nsys stats filters). NULL with
 * NSYSP_ERR_NOT_NSYS where the report has no such window (no such NVTX
 * range, or a start after the end), as nsys leaves such a report out. */
nsys_db *recipe_open_report(const recipe_job *job, size_t i, buf *err, int *status);
/* Opens report i of the job as it is, without the time filter; like
 * recipe_open_report, limited to the tables job->reads names. */
nsys_db *recipe_open_whole(const recipe_job *job, size_t i, buf *err, int *status);

#endif
