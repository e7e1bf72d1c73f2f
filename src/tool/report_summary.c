/* One report summarized, whatever its kind: see report_summary.h. */
#include "report_summary.h"

#include <stdio.h>
#include <string.h>

#include "nsys_export.h"

int summarize_report(const char *path, const char *const *matches, size_t n_matches,
                     nsysp_summary *sum)
{
    if (!is_nsys_report(path))
        return nsysp_summarize_matching(path, matches, n_matches, sum);
    char sqlite[4096], tmpdir[4096];
    char why[sizeof sum->message];
    int status = export_nsys_report(path, sqlite, sizeof sqlite, tmpdir, sizeof tmpdir, why,
                                    sizeof why);
    if (status != NSYSP_OK) {
        memset(sum, 0, sizeof *sum);
        snprintf(sum->message, sizeof sum->message, "%s", why);
        return status;
    }
    status = nsysp_summarize_matching(sqlite, matches, n_matches, sum);
    remove_export(sqlite, tmpdir);
    return status;
}
