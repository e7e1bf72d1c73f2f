/* A small pool of worker threads converting uploaded reports one each, in
 * the order they came; the HTTP threads only queue work and read states. */
#ifndef NSYSP_WEB_JOBS_H
#define NSYSP_WEB_JOBS_H

#include <stdbool.h>

#include "web_convert.h"

typedef struct web_jobs web_jobs;

/* Starts workers threads converting reports of dir (0 workers: the queue
 * only, for the request fuzzer); a conversion running longer than
 * timeout_s seconds (0: no limit) is stopped and fails with a result that
 * says so, its worker free for the next. NULL on failure. */
web_jobs *web_jobs_start(const char *dir, unsigned workers, double timeout_s);

/* Queues job (copied); 0, or -1 when the queue is full or stopping. */
int web_jobs_submit(web_jobs *jobs, const web_job *job);

/* Whether report id is queued or being converted; then its state
 * ("queued", "exporting", "converting", "summarizing") and progress. */
bool web_jobs_find(web_jobs *jobs, const char *id, char *state, size_t size, double *progress);

/* Cancels the conversions under way, removes them and the queued reports,
 * and joins the workers. */
void web_jobs_stop(web_jobs *jobs);

#endif
