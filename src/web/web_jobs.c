#include "web_jobs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { QUEUE_MAX = 256, WORKERS_MAX = 16 };

typedef struct slot {
    web_job job;
    bool running;
    const char *state;
    double progress;
} slot;

struct web_jobs {
    char dir[4096];
    pthread_mutex_t lock;
    pthread_cond_t wake;
    slot slots[QUEUE_MAX]; /* queued and running jobs, in arrival order */
    size_t n_slots;
    volatile sig_atomic_t stopping; /* the conversions' cancel flag */
    pthread_t workers[WORKERS_MAX];
    unsigned n_workers;
};

static slot *find(web_jobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->n_slots; i++)
        if (strcmp(jobs->slots[i].job.id, id) == 0)
            return &jobs->slots[i];
    return NULL;
}

typedef struct progress_ctx {
    web_jobs *jobs;
    const char *id;
} progress_ctx;

static void on_progress(void *ctx, const char *state, double fraction)
{
    progress_ctx *p = ctx;
    pthread_mutex_lock(&p->jobs->lock);
    slot *s = find(p->jobs, p->id);
    if (s) {
        s->state = state;
        s->progress = fraction;
    }
    pthread_mutex_unlock(&p->jobs->lock);
}

static void *work(void *arg)
{
    web_jobs *jobs = arg;
    pthread_mutex_lock(&jobs->lock);
    for (;;) {
        slot *next = NULL;
        for (size_t i = 0; i < jobs->n_slots && !next; i++)
            if (!jobs->slots[i].running)
                next = &jobs->slots[i];
        if (jobs->stopping)
            break;
        if (!next) {
            pthread_cond_wait(&jobs->wake, &jobs->lock);
            continue;
        }
        next->running = true;
        next->state = "converting";
        web_job job = next->job;
        pthread_mutex_unlock(&jobs->lock);

        progress_ctx ctx = {jobs, job.id};
        if (web_convert(jobs->dir, &job, &jobs->stopping, on_progress, &ctx) ==
            NSYSP_ERR_INTERRUPTED)
            report_remove(jobs->dir, job.id);

        pthread_mutex_lock(&jobs->lock);
        slot *done = find(jobs, job.id); /* slots moved while unlocked */
        if (done) {
            memmove(done, done + 1, (size_t)(jobs->slots + jobs->n_slots - done - 1) * sizeof *done);
            jobs->n_slots--;
        }
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

web_jobs *web_jobs_start(const char *dir, unsigned workers)
{
    web_jobs *jobs = calloc(1, sizeof *jobs);
    if (!jobs)
        return NULL;
    snprintf(jobs->dir, sizeof jobs->dir, "%s", dir);
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->wake, NULL);
    if (workers > WORKERS_MAX)
        workers = WORKERS_MAX;
    for (unsigned i = 0; i < workers; i++) {
        if (pthread_create(&jobs->workers[i], NULL, work, jobs) != 0)
            break;
        jobs->n_workers++;
    }
    if (jobs->n_workers == 0) {
        web_jobs_stop(jobs);
        return NULL;
    }
    return jobs;
}

int web_jobs_submit(web_jobs *jobs, const web_job *job)
{
    pthread_mutex_lock(&jobs->lock);
    int rc = -1;
    if (!jobs->stopping && jobs->n_slots < QUEUE_MAX) {
        slot *s = &jobs->slots[jobs->n_slots++];
        memset(s, 0, sizeof *s);
        s->job = *job;
        s->state = "queued";
        pthread_cond_signal(&jobs->wake);
        rc = 0;
    }
    pthread_mutex_unlock(&jobs->lock);
    return rc;
}

bool web_jobs_find(web_jobs *jobs, const char *id, char *state, size_t size, double *progress)
{
    pthread_mutex_lock(&jobs->lock);
    slot *s = find(jobs, id);
    if (s) {
        snprintf(state, size, "%s", s->state);
        *progress = s->progress;
    }
    pthread_mutex_unlock(&jobs->lock);
    return s != NULL;
}

void web_jobs_stop(web_jobs *jobs)
{
    pthread_mutex_lock(&jobs->lock);
    jobs->stopping = 1;
    pthread_cond_broadcast(&jobs->wake);
    pthread_mutex_unlock(&jobs->lock);
    for (unsigned i = 0; i < jobs->n_workers; i++)
        pthread_join(jobs->workers[i], NULL);
    for (size_t i = 0; i < jobs->n_slots; i++) /* queued, never started */
        if (!jobs->slots[i].running)
            report_remove(jobs->dir, jobs->slots[i].job.id);
    pthread_cond_destroy(&jobs->wake);
    pthread_mutex_destroy(&jobs->lock);
    free(jobs);
}
