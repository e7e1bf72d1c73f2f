#include "web_convert.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool/nsys_export.h"
#include "tool/open_big.h"
#include "common/cancel.h"
#include "web_compare.h"
#include "web_result.h"

typedef struct progress_relay {
    web_progress_fn *fn;
    void *ctx;
} progress_relay;

static void on_progress(void *ctx, double fraction)
{
    progress_relay *relay = ctx;
    relay->fn(relay->ctx, "converting", fraction);
}

/* Messages name the server's own path of the report; users know it by the
 * file name they uploaded. */
static void name_the_upload(char *message, size_t size, const char *path, const char *name)
{
    char *at = strstr(message, path);
    if (!at)
        return;
    char rest[1024];
    snprintf(rest, sizeof rest, "%s", at + strlen(path));
    snprintf(at, size - (size_t)(at - message), "%s%s", name, rest);
}

static double seconds_since(const struct timespec *began)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - began->tv_sec) + (double)(now.tv_nsec - began->tv_nsec) * 1e-9;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

nsysp_status web_convert(const char *dir, const web_job *job, volatile sig_atomic_t *cancel,
                         web_progress_fn *progress, void *ctx)
{
    struct timespec began;
    clock_gettime(CLOCK_MONOTONIC, &began);
    char input[4096], trace[4096], sqlite[4096], tmpdir[4096] = "", error[1280] = "";
    if (report_path(input, sizeof input, dir, job->id, job->input) < 0 ||
        report_path(trace, sizeof trace, dir, job->id, REPORT_TRACE) < 0)
        return NSYSP_ERR_INTERNAL;
    snprintf(sqlite, sizeof sqlite, "%s", input);
    web_conversion c = {.id = job->id, .name = job->name, .options = &job->options,
                        .input_bytes = file_size(input)};
    nsysp_result res;
    memset(&res, 0, sizeof res);
    nsysp_summary summary = {0};
    int rc = NSYSP_OK;
    if (strcmp(job->input, "input.sqlite") != 0) {
        progress(ctx, "exporting", 0);
        /* Cancelled (the server stops, or the job's time is up): nsys export
         * is stopped with everything it started. */
        run_limits limits = {.cancel = cancel};
        rc = export_nsys_report_limited(input, sqlite, sizeof sqlite, tmpdir, sizeof tmpdir,
                                        error, sizeof error, &limits);
    }
    web_parsed_options parsed;
    if (rc == NSYSP_OK && web_options_parse(&job->options, &parsed, error, sizeof error) < 0)
        rc = NSYSP_ERR_USAGE; /* checked at upload; kept for safety */
    if (rc == NSYSP_OK) {
        progress_relay relay = {progress, ctx};
        parsed.opt.output_path = trace;
        parsed.opt.count_unread_tables = 1;
        parsed.opt.progress = on_progress;
        parsed.opt.progress_ctx = &relay;
        parsed.opt.cancel = cancel;
        parsed.opt.threads = job->threads;
        rc = nsysp_convert(sqlite, &parsed.opt, &res);
        if (rc != NSYSP_OK)
            snprintf(error, sizeof error, "%s", res.message);
    }
    if (rc == NSYSP_OK) {
        progress(ctx, "summarizing", 1);
        if (nsysp_summarize(sqlite, NULL, &summary) == NSYSP_OK &&
            web_summary_write(dir, job->id, &summary) == 0)
            c.summary = &summary;
    }
    if (tmpdir[0])
        remove_export(sqlite, tmpdir);
    unlink(input); /* the trace and result are what the page needs */
    if (rc == NSYSP_ERR_INTERRUPTED || cancel_requested(cancel)) {
        nsysp_summary_free(&summary);
        return NSYSP_ERR_INTERRUPTED;
    }
    name_the_upload(error, sizeof error, sqlite, job->name);
    name_the_upload(error, sizeof error, input, job->name);
    c.status = (nsysp_status)rc;
    c.error = error;
    c.result = &res;
    c.seconds = seconds_since(&began);
    c.trace_bytes = rc == NSYSP_OK ? file_size(trace) : 0;
    if (rc != NSYSP_OK) {
        report_write(dir, job->id, REPORT_ERROR, error, strlen(error));
    } else { /* the list shows it; result.json, written last, marks it done */
        char engine[32];
        int n = snprintf(engine, sizeof engine, "%llu",
                         (unsigned long long)open_estimated_bytes(&res));
        report_write(dir, job->id, REPORT_ENGINE, engine, (size_t)n); /* without it: 0 */
    }
    if (web_result_write(dir, &c) < 0)
        rc = NSYSP_ERR_OUTPUT;
    nsysp_summary_free(&summary);
    return (nsysp_status)rc;
}

void web_convert_fail(const char *dir, const web_job *job, const char *message, double seconds)
{
    char input[4096];
    if (report_path(input, sizeof input, dir, job->id, job->input) == 0)
        unlink(input);
    nsysp_result res;
    memset(&res, 0, sizeof res);
    web_conversion c = {.id = job->id, .name = job->name, .options = &job->options,
                        .status = NSYSP_ERR_INTERRUPTED, .error = message, .result = &res,
                        .seconds = seconds};
    report_write(dir, job->id, REPORT_ERROR, message, strlen(message));
    web_result_write(dir, &c);
}
