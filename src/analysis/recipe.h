/* What the recipes share inside the library: a job's reports, the tables a
 * recipe writes, and the list of recipes (recipe.c). Each family of
 * recipes lives in its own recipe_*.c file. */
#ifndef NSYSP_ANALYSIS_RECIPE_H
#define NSYSP_ANALYSIS_RECIPE_H

#include "nsys_perfetto.h"
#include "analysis/recipe_table.h"
#include "common/buf.h"
#include "nsys/nsys_db.h"

/* The reports of a job, in the order NVIDIA's recipes read them. */
typedef struct recipe_job {
    const char *const *paths;
    const char *const *labels; /* the File column: each report's name without extension */
    size_t n;
    const nsysp_recipe_options *options;
} recipe_job;

/* A table a recipe writes, under NVIDIA's file name ("all_stats.csv"). */
typedef struct recipe_output {
    char *file;
    recipe_table table;
} recipe_output;

typedef struct recipe_outputs {
    recipe_output *items;
    size_t n;
} recipe_outputs;

/* Adds *table, named file, to o, which now owns it. */
void recipe_outputs_take(recipe_outputs *o, const char *file, recipe_table *table);

typedef struct recipe_def recipe_def;
struct recipe_def {
    const char *name;
    const char *about;
    /* Runs the recipe over the job into out. NSYSP_OK; NSYSP_ERR_NOT_NSYS
     * with "no data" in err when no report has what it reads; another
     * status with one line naming the report otherwise. */
    int (*run)(const recipe_def *recipe, const recipe_job *job, recipe_outputs *out, buf *err);
    const void *family; /* the family's description of this recipe */
};

/* The families (listed in recipe.c's FAMILIES). */
extern const recipe_def RECIPES_STATS[]; /* recipe_stats.c: per-name statistics */
extern const size_t N_RECIPES_STATS;
extern const recipe_def RECIPES_RULES[]; /* recipe_rules.c: nsys analyze's rules */
extern const size_t N_RECIPES_RULES;

/* Opens a report of the job with the job's time filter applied (start,
 * end, nvtx: every table with start and end columns seen through a view of
 * the rows in the window, as nsys stats filters). NULL with
 * NSYSP_ERR_NOT_NSYS where the report has no such window (no such NVTX
 * range, or a start after the end), as nsys leaves such a report out. */
nsys_db *recipe_open_report(const recipe_job *job, size_t i, buf *err, int *status);

#endif
