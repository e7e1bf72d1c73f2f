/* nsys-perfetto diff: what one report brings to a comparison: the library's
 * per-name totals (nsysp_summarize_matching) and its measures
 * (nsysp_measure: GPU busy time per device, spans, the --focus range),
 * after exporting a .nsys-rep with nsys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_report.h"

#include "nsys_export.h"
#include "text_out.h"

int diff_run_measure(diff_run *run, const char *focus, const char *step)
{
    nsysp_measures_free(&run->measures);
    int status = nsysp_measure_with_step(run->sqlite, focus, step, &run->measures);
    if (status != NSYSP_OK)
        text_printf(stderr, "nsys-perfetto diff: %s\n", run->measures.message);
    return status;
}

int diff_run_load(diff_run *run, const char *path, const char *const *match, size_t n_match,
                  const char *focus_name, const char *step)
{
    memset(run, 0, sizeof *run);
    run->path = strdup(path);
    int status = NSYSP_OK;
    if (is_nsys_report(path)) {
        char why[1200];
        status = export_nsys_report(path, run->sqlite, sizeof run->sqlite, run->tmpdir,
                                    sizeof run->tmpdir, why, sizeof why);
        if (status != NSYSP_OK) {
            run->sqlite[0] = run->tmpdir[0] = '\0';
            text_printf(stderr, "nsys-perfetto diff: %s\n", why);
            return status;
        }
    } else {
        snprintf(run->sqlite, sizeof run->sqlite, "%s", path);
    }
    status = nsysp_summarize_matching(run->sqlite, match, n_match, &run->sum);
    if (status != NSYSP_OK) {
        text_printf(stderr, "nsys-perfetto diff: %s\n", run->sum.message);
        return status;
    }
    status = nsysp_measure_with_step(run->sqlite, focus_name, step, &run->measures);
    if (status != NSYSP_OK)
        text_printf(stderr, "nsys-perfetto diff: %s\n", run->measures.message);
    return status;
}

/* Runs find their most repeated top-level range each on its own, and may
 * find different ones; then every run is measured with the first run's,
 * so that both sides count the same step (or do not have it). */
int diff_agree_step(diff_side *before, diff_side *after, const char *focus, const char *step)
{
    if (step || focus)
        return NSYSP_OK; /* given: every run was measured with it */
    const nsysp_measures *first = &before->runs[0].measures;
    if (first->step_rule != NSYSP_STEP_REPEATED)
        return NSYSP_OK; /* none, or ProfilerStep#N: the same rule in every run */
    char name[sizeof first->step_name];
    memcpy(name, first->step_name, sizeof name);
    for (size_t i = 0; i < before->n_runs + after->n_runs; i++) {
        diff_run *run = i < before->n_runs ? &before->runs[i] : &after->runs[i - before->n_runs];
        if (run->measures.step_rule == NSYSP_STEP_REPEATED &&
            strcmp(run->measures.step_name, name) == 0)
            continue;
        int status = diff_run_measure(run, focus, name);
        if (status != NSYSP_OK)
            return status;
        if (run->measures.n_steps)
            run->measures.step_rule = NSYSP_STEP_REPEATED; /* found in the first run */
    }
    return NSYSP_OK;
}

void diff_run_free(diff_run *run)
{
    if (run->tmpdir[0])
        remove_export(run->sqlite, run->tmpdir);
    nsysp_summary_free(&run->sum);
    nsysp_measures_free(&run->measures);
    free(run->path);
    memset(run, 0, sizeof *run);
}
