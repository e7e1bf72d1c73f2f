/* Converting one uploaded report, as the command line does: a .nsys-rep or
 * .qdrep is exported with the server's nsys first; then the trace, the
 * summary and the accounting land in the report's directory. */
#ifndef NSYSP_WEB_CONVERT_H
#define NSYSP_WEB_CONVERT_H

#include <signal.h>

#include "nsys_perfetto.h"
#include "web_options.h"
#include "web_reports.h"

typedef struct web_job {
    char id[REPORT_ID_LEN + 1];
    char name[256];       /* the client's file name, for messages */
    char input[32];       /* input.sqlite, input.nsys-rep, ... */
    web_options options;
    int threads;          /* the conversion's --threads (0: the CPUs) */
} web_job;

/* Told what the conversion is doing ("exporting", "converting",
 * "summarizing") and how far it is (0..1). */
typedef void web_progress_fn(void *ctx, const char *state, double fraction);

/* Converts DIR/job->id and writes its result (also when the conversion
 * fails). Returns NSYSP_ERR_INTERRUPTED, writing nothing, when *cancel is
 * set; the caller removes the report then. */
nsysp_status web_convert(const char *dir, const web_job *job, volatile sig_atomic_t *cancel,
                         web_progress_fn *progress, void *ctx);

/* Records job as failed with message (one line) without converting it:
 * its input goes, its error and result stay for the page. */
void web_convert_fail(const char *dir, const web_job *job, const char *message, double seconds);

#endif
