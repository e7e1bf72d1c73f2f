/* The job's plan (ranks_plan.h): one clock, one window and one step for
 * every report of a job, from what each report says of itself. */
#include "ranks_plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/hmap.h"
#include "tool/text_out.h"

typedef struct planning {
    const nsysp_ranks_survey *surveys;
    char *const *paths;
    size_t n;
    const char *given_step;
    ranks_plan *plan;
} planning;

/* A report time on the job's clock, clamped to 0 .. 2^62 as the library
 * clamps it (nsysp_measure_ranks_in_job). */
static int64_t job_time(int64_t t, int64_t offset)
{
    t += offset; /* t within 2^62 (a survey's span), offset 0 .. 2^62 */
    return t < 0 ? 0 : t > NSYSP_MAX_TIME_NS ? NSYSP_MAX_TIME_NS : t;
}

/* Up to 8 of the reports for which pick says true, as one line's list. */
static void list_reports_where(const planning *p, bool (*pick)(const planning *, size_t),
                               buf *out)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        if (pick(p, i) && ++n <= 8)
            buf_printf(out, "%s%s", n > 1 ? ", " : "", p->paths[i]);
    if (n > 8)
        buf_printf(out, " and %zu more", n - 8);
}

static bool clock_unknown(const planning *p, size_t i)
{
    return !p->surveys[i].utc_known;
}

/* Ranks share a clock: each report's times plus its session start in UTC.
 * A report without one (no TARGET_INFO_SESSION_START_TIME) is taken to have
 * started its session with the job's first known one, and said so: its
 * ranks' lateness is then a guess. With none known, every report keeps its
 * own times (each from its session start). The job's window spans the
 * reports' GPU work on that clock. */
static void plan_clock(planning *p)
{
    size_t unknown = 0;
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < p->n; i++) {
        const nsysp_ranks_survey *s = &p->surveys[i];
        if (!s->utc_known)
            unknown++;
        else if (s->session_start_utc < first)
            first = s->session_start_utc;
    }
    p->plan->unknown_clock_utc = first == INT64_MAX ? 0 : first;
    if (unknown && p->n > 1) {
        buf which = {0};
        list_reports_where(p, clock_unknown, &which);
        if (unknown == p->n)
            text_printf(stderr, "nsys-perfetto ranks: no report has a UTC session start "
                                "(TARGET_INFO_SESSION_START_TIME): ranks compared on their own "
                                "clocks, as if every session started at once\n");
        else
            text_printf(stderr, "nsys-perfetto ranks: %zu of %zu reports have no UTC session "
                                "start (TARGET_INFO_SESSION_START_TIME): %s; taken to start with "
                                "the job's first session, so their lateness is a guess\n",
                        unknown, p->n, buf_cstr(&which));
        buf_free(&which);
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < p->n; i++) {
        const nsysp_ranks_survey *s = &p->surveys[i];
        int64_t offset = s->utc_known ? s->session_start_utc : p->plan->unknown_clock_utc;
        if (s->start < s->end) {
            int64_t start = job_time(s->start, offset), end = job_time(s->end, offset);
            lo = start < lo ? start : lo;
            hi = end > hi ? end : hi;
        }
    }
    p->plan->window_start_utc = lo < hi ? lo : 0;
    p->plan->window_end_utc = lo < hi ? hi : 0;
}

/* A step found (name and rule) as one key. */
static size_t step_key(const nsysp_ranks_survey *s, char *key, size_t size)
{
    int n = snprintf(key, size, "%d %s", (int)s->step_rule, s->step_name);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static bool step_differs(const planning *p, size_t i)
{
    const nsysp_ranks_survey *s = &p->surveys[i];
    return s->step_rule != p->plan->step_rule || strcmp(s->step_name, p->plan->step) != 0;
}

/* One step for the whole job, whatever order the reports are read in: the
 * one given, else the step most reports find on their own (the first
 * report's among equals). Every report is measured on it, and those that
 * find another are named. */
static void plan_step(planning *p)
{
    if (p->given_step) {
        snprintf(p->plan->step, sizeof p->plan->step, "%s", p->given_step);
        p->plan->step_rule = NSYSP_STEP_GIVEN;
        return;
    }
    hmap votes;
    hmap_init(&votes);
    char key[300];
    size_t best = SIZE_MAX;
    uint64_t most = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p->n; i++) {
            if (p->surveys[i].step_rule == NSYSP_STEP_NONE)
                continue;
            bool inserted;
            uint64_t *n = hmap_upsert(&votes, key, step_key(&p->surveys[i], key, sizeof key),
                                      &inserted);
            if (pass == 0)
                ++*n;
            else if (*n > most)
                most = *n, best = i;
        }
    hmap_free(&votes);
    p->plan->step[0] = '\0';
    p->plan->step_rule = NSYSP_STEP_NONE;
    if (best == SIZE_MAX)
        return;
    snprintf(p->plan->step, sizeof p->plan->step, "%s", p->surveys[best].step_name);
    p->plan->step_rule = p->surveys[best].step_rule;
    if (most < p->n) {
        buf which = {0};
        list_reports_where(p, step_differs, &which);
        text_printf(stderr, "nsys-perfetto ranks: the job's step is \"%s\" (what %llu of %zu "
                            "reports find); measured on it too, though on their own they find "
                            "another or none: %s\n",
                    p->plan->step, (unsigned long long)most, p->n, buf_cstr(&which));
        buf_free(&which);
    }
}

void ranks_plan_make(const nsysp_ranks_survey *surveys, char *const *paths, size_t n,
                     const char *given_step, ranks_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    planning p = {surveys, paths, n, given_step, plan};
    plan_clock(&p);
    plan_step(&p);
}
