/* nsys-perfetto diff: what one report brings to a comparison: the library's
 * per-name totals (nsysp_summarize_matching) and its measures
 * (nsysp_measure: GPU busy time per device, spans, the --focus range),
 * after exporting a .nsys-rep with nsys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_model.h"

#include "nsys_export.h"

int diff_run_load(diff_run *run, const char *path, const char *const *match, size_t n_match,
                  const char *focus_name)
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
            fprintf(stderr, "nsys-perfetto diff: %s\n", why);
            return status;
        }
    } else {
        snprintf(run->sqlite, sizeof run->sqlite, "%s", path);
    }
    status = nsysp_summarize_matching(run->sqlite, match, n_match, &run->sum);
    if (status != NSYSP_OK) {
        fprintf(stderr, "nsys-perfetto diff: %s\n", run->sum.message);
        return status;
    }
    status = nsysp_measure(run->sqlite, focus_name, &run->measures);
    if (status != NSYSP_OK)
        fprintf(stderr, "nsys-perfetto diff: %s\n", run->measures.message);
    return status;
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
