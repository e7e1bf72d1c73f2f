#include "web_jobs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool/subprocess.h"
#include "common/cancel.h"

enum { QUEUE_MAX = 256, WORKERS_MAX = 16 };

typedef struct slot {
    web_job job;
    bool running, timed_out;
    unsigned worker;          /* which worker runs it */
    struct timespec started;  /* CLOCK_MONOTONIC */
    const char *state;
    double progress;
} slot;

struct web_jobs {
    char dir[4096];
    double timeout_s;       /* a conversion's time limit; 0 for none */
    pthread_mutex_t lock;
    pthread_cond_t wake, tick;
    slot slots[QUEUE_MAX]; /* queued and running jobs, in arrival order */
    size_t n_slots;
    bool stopping;
    /* Each worker's conversion watches its own flag: set when the server
     * stops, or when that conversion passes the time limit. */
    volatile sig_atomic_t cancel[WORKERS_MAX];
    pthread_t workers[WORKERS_MAX];
    unsigned n_workers;
    pthread_t watchdog;
    bool has_watchdog;
};

typedef struct worker_arg {
    web_jobs *jobs;
    unsigned index;
} worker_arg;

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

/* The job ran past the time limit: it fails, with a result that says so. */
static void fail_timed_out(web_jobs *jobs, const web_job *job)
{
    char limit[32], message[512];
    format_duration(jobs->timeout_s, limit, sizeof limit);
    snprintf(message, sizeof message, "%s: the conversion took longer than this server allows "
             "(--job-timeout %s) and was stopped", job->name, limit);
    web_convert_fail(jobs->dir, job, message, jobs->timeout_s);
}

static void *work(void *arg)
{
    web_jobs *jobs = ((worker_arg *)arg)->jobs;
    unsigned me = ((worker_arg *)arg)->index;
    free(arg);
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
        next->worker = me;
        clock_gettime(CLOCK_MONOTONIC, &next->started);
        next->state = "converting";
        web_job job = next->job;
        /* The workers share the CPUs: each conversion gets its part of them
         * (the output is the same whatever the part). */
        int cpus = nsysp_default_threads();
        job.threads = cpus / (int)jobs->n_workers > 1 ? cpus / (int)jobs->n_workers : 1;
        cancel_set(&jobs->cancel[me], 0);
        pthread_mutex_unlock(&jobs->lock);

        progress_ctx ctx = {jobs, job.id};
        nsysp_status rc = web_convert(jobs->dir, &job, &jobs->cancel[me], on_progress, &ctx);

        if (rc == NSYSP_ERR_INTERRUPTED) {
            pthread_mutex_lock(&jobs->lock);
            slot *s = find(jobs, job.id); /* slots moved while unlocked */
            bool timed_out = s && s->timed_out && !jobs->stopping;
            pthread_mutex_unlock(&jobs->lock);
            if (timed_out)
                fail_timed_out(jobs, &job);
            else
                report_remove(jobs->dir, job.id);
        }

        pthread_mutex_lock(&jobs->lock);
        slot *done = find(jobs, job.id);
        if (done) {
            memmove(done, done + 1, (size_t)(jobs->slots + jobs->n_slots - done - 1) * sizeof *done);
            jobs->n_slots--;
        }
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

static double seconds_since(const struct timespec *t, const struct timespec *now)
{
    return (double)(now->tv_sec - t->tv_sec) + (double)(now->tv_nsec - t->tv_nsec) * 1e-9;
}

/* Cancels the conversions past the time limit, four times a second. */
static void *watch(void *arg)
{
    web_jobs *jobs = arg;
    pthread_mutex_lock(&jobs->lock);
    while (!jobs->stopping) {
        struct timespec until, now;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&jobs->tick, &jobs->lock, &until);
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (size_t i = 0; i < jobs->n_slots; i++) {
            slot *s = &jobs->slots[i];
            if (s->running && !s->timed_out && seconds_since(&s->started, &now) > jobs->timeout_s) {
                s->timed_out = true;
                cancel_set(&jobs->cancel[s->worker], 1);
            }
        }
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

web_jobs *web_jobs_start(const char *dir, unsigned workers, double timeout_s)
{
    web_jobs *jobs = calloc(1, sizeof *jobs);
    if (!jobs)
        return NULL;
    snprintf(jobs->dir, sizeof jobs->dir, "%s", dir);
    jobs->timeout_s = timeout_s;
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->wake, NULL);
    pthread_cond_init(&jobs->tick, NULL);
    if (workers > WORKERS_MAX)
        workers = WORKERS_MAX;
    for (unsigned i = 0; i < workers; i++) {
        worker_arg *arg = malloc(sizeof *arg);
        if (!arg)
            break;
        *arg = (worker_arg){jobs, i};
        if (pthread_create(&jobs->workers[i], NULL, work, arg) != 0) {
            free(arg);
            break;
        }
        jobs->n_workers++;
    }
    jobs->has_watchdog = jobs->n_workers && timeout_s &&
                         pthread_create(&jobs->watchdog, NULL, watch, jobs) == 0;
    if (jobs->n_workers < workers || (workers && timeout_s && !jobs->has_watchdog)) {
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
    jobs->stopping = true;
    for (unsigned i = 0; i < WORKERS_MAX; i++)
        cancel_set(&jobs->cancel[i], 1);
    pthread_cond_broadcast(&jobs->wake);
    pthread_cond_broadcast(&jobs->tick);
    pthread_mutex_unlock(&jobs->lock);
    for (unsigned i = 0; i < jobs->n_workers; i++)
        pthread_join(jobs->workers[i], NULL);
    if (jobs->has_watchdog)
        pthread_join(jobs->watchdog, NULL);
    for (size_t i = 0; i < jobs->n_slots; i++) /* queued, never started */
        if (!jobs->slots[i].running)
            report_remove(jobs->dir, jobs->slots[i].job.id);
    pthread_cond_destroy(&jobs->wake);
    pthread_cond_destroy(&jobs->tick);
    pthread_mutex_destroy(&jobs->lock);
    free(jobs);
}
