/* nsysp_measure on a report built here, every figure worked by hand: GPU
 * busy time per device (overlapping, touching and nested operations across
 * kernels and copies), the session's and the GPU work's spans, a focus
 * range's instances and the kernels launched inside them; the step found
 * (a repeated top-level range, not an op's or a library's; ProfilerStep#N
 * first) and a focus on a PyTorch op by its op; a report without
 * these tables measures nothing; a file that is not a report fails with
 * one line naming it. Only the public header is used. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "nsys_perfetto.h"

/* Device 0: kernels [100,200] and [150,300] overlap, [300,350] touches the
 *   end (one stretch, 100..350 = 250), copy [400,410] nested in kernel
 *   [400,500] (100): busy 350.
 * Device 1: copy [1000,1100] and kernel [1200,1250]: busy 150.
 * A kernel with end < start is not GPU work; one without a device is left
 * out of the busy time and the span.
 * GPU span: 100 .. 1250 = 1150. Session: ANALYSIS_DETAILS 50 .. 2050.
 * Focus "step" (text) twice on thread 7, [90,260] and [390,520], and once
 * under a registered string; "other" once. The calls inside a "step"
 * instance launched corr 1 and 2 (kernel "k_a", twice) and 4 (kernel
 * "k_b"); corr 3's call ends after its instance, so its kernel is not
 * counted. */
static const char *const REPORT_SQL =
    "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringIds VALUES (1, 'k_a'), (2, 'k_b'), (3, 'step'), (4, 'k_c');"
    "CREATE TABLE ANALYSIS_DETAILS(startTime INTEGER, stopTime INTEGER);"
    "INSERT INTO ANALYSIS_DETAILS VALUES (50, 2050);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(deviceId INTEGER, start INTEGER, \"end\" INTEGER,"
    " globalPid INTEGER, correlationId INTEGER, shortName INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
    " (0, 100, 200, 16777216, 1, 1), (0, 150, 300, 16777216, 2, 1),"
    " (0, 300, 350, 16777216, 3, 4), (0, 400, 500, 16777216, 4, 2),"
    " (1, 1200, 1250, 16777216, 5, 2), (1, 1300, 1290, 16777216, 6, 2),"
    " (NULL, 5, 6000, 16777216, 7, 2);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(deviceId INTEGER, start INTEGER, \"end\" INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (0, 400, 410), (1, 1000, 1100);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, \"end\" INTEGER,"
    " globalTid INTEGER, correlationId INTEGER);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
    " (95, 99, 16777223, 1), (100, 120, 16777223, 2), (250, 270, 16777223, 3),"
    " (395, 398, 16777223, 4);"
    "CREATE TABLE NVTX_EVENTS(start INTEGER, \"end\" INTEGER, eventType INTEGER,"
    " globalTid INTEGER, text TEXT, textId INTEGER);"
    "INSERT INTO NVTX_EVENTS VALUES"
    " (90, 260, 59, 16777223, 'step', NULL), (390, 520, 59, 16777223, 'step', NULL),"
    " (600, 640, 59, 16777223, NULL, 3), (700, 900, 59, 16777223, 'other', NULL);";

static void write_report(const char *path, const char *sql)
{
    sqlite3 *db;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "cannot write %s: %s\n", path, sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_close(db);
}

static const nsysp_summary_row *kernel(const nsysp_measures *m, const char *name)
{
    for (size_t i = 0; i < m->n_focus_kernels; i++)
        if (strcmp(m->focus_kernels[i].name, name) == 0)
            return &m->focus_kernels[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/measure.sqlite", dir);
    write_report(path, REPORT_SQL);

    nsysp_measures m;
    CHECK_EQ_INT(nsysp_measure(path, "step", &m), NSYSP_OK);
    CHECK_EQ_STR(m.message, "");
    CHECK_EQ_INT(m.session_ns, 2000);
    CHECK_EQ_INT(m.gpu_span_ns, 1150);
    CHECK_EQ_INT(m.n_gpus, 2);
    if (m.n_gpus == 2) {
        CHECK_EQ_INT(m.gpus[0].device, 0);
        CHECK_EQ_INT(m.gpus[0].busy_ns, 350);
        CHECK_EQ_INT(m.gpus[1].device, 1);
        CHECK_EQ_INT(m.gpus[1].busy_ns, 150);
    }
    CHECK_EQ_INT(m.n_focus, 3); /* two by text, one by registered string */
    int64_t focus_total = 0;
    for (size_t i = 0; i < m.n_focus; i++)
        focus_total += m.focus_ns[i];
    CHECK_EQ_INT(focus_total, 170 + 130 + 40);
    CHECK_EQ_INT(m.n_focus_kernels, 2);
    const nsysp_summary_row *a = kernel(&m, "k_a"), *b = kernel(&m, "k_b");
    CHECK(a && b && !kernel(&m, "k_c"));
    if (a) {
        CHECK_EQ_STR(a->category, "kernel");
        CHECK_EQ_INT(a->count, 2);
        CHECK_EQ_INT(a->total_ns, 100 + 150);
        CHECK_EQ_INT(a->min_ns, 100);
        CHECK_EQ_INT(a->max_ns, 150);
    }
    if (b)
        CHECK_EQ_INT(b->total_ns, 100);
    nsysp_measures_free(&m);

    /* Without a focus: no instances; the rest as before. */
    CHECK_EQ_INT(nsysp_measure(path, NULL, &m), NSYSP_OK);
    CHECK_EQ_INT(m.n_focus + m.n_focus_kernels, 0);
    CHECK_EQ_INT(m.gpu_span_ns, 1150);
    nsysp_measures_free(&m);

    /* Hostile times: an operation from INT64_MIN to INT64_MAX is left out,
     * as the converter leaves it out, instead of overflowing the sums. */
    write_report(path, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(deviceId INTEGER, start INTEGER,"
                       " \"end\" INTEGER);"
                       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                       " (0, -9223372036854775808, 9223372036854775807), (0, 10, 30),"
                       " (0, -4611686018427387904, 0), (0, 20, 4611686018427387904);");
    CHECK_EQ_INT(nsysp_measure(path, NULL, &m), NSYSP_OK);
    CHECK_EQ_INT(m.n_gpus, 1);
    if (m.n_gpus == 1)
        CHECK_EQ_INT(m.gpus[0].busy_ns, 20);
    CHECK_EQ_INT(m.gpu_span_ns, 20);
    nsysp_measures_free(&m);

    /* Steps. Thread 7: "train" three times at the top, each holding PyTorch
     * op ranges; "c10d::barrier" (an op: "::") and a NCCL-domain "allreduce"
     * (a library's call) repeat more at the top, and are no steps. Thread 8:
     * "train" once. The step is "train", 3 instances (the most on a thread). */
    static const char *const STEPS_SQL =
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, \"end\" INTEGER, eventType INTEGER,"
        " globalTid INTEGER, text TEXT, textId INTEGER, domainId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES"
        " (0, 100, 59, 16777223, 'train', NULL, 0),"
        " (10, 20, 59, 16777223, 'aten::mm, seq = 1, op_id = 11', NULL, 0),"
        " (200, 300, 59, 16777223, 'train', NULL, 0),"
        " (210, 220, 59, 16777223, 'aten::mm, seq = 2, op_id = 12', NULL, 0),"
        " (400, 500, 59, 16777223, 'train', NULL, NULL),"
        " (410, 430, 59, 16777223, 'aten::mm, seq = 3, op_id = 13', NULL, 0),"
        " (600, 601, 59, 16777223, 'c10d::barrier', NULL, 0),"
        " (610, 611, 59, 16777223, 'c10d::barrier', NULL, 0),"
        " (620, 621, 59, 16777223, 'c10d::barrier', NULL, 0),"
        " (630, 631, 59, 16777223, 'c10d::barrier', NULL, 0),"
        " (700, 701, 59, 16777223, 'allreduce', NULL, 5),"
        " (710, 711, 59, 16777223, 'allreduce', NULL, 5),"
        " (720, 721, 59, 16777223, 'allreduce', NULL, 5),"
        " (730, 731, 59, 16777223, 'allreduce', NULL, 5),"
        " (0, 100, 59, 16777224, 'train', NULL, 0);";
    write_report(path, STEPS_SQL);
    CHECK_EQ_INT(nsysp_measure(path, NULL, &m), NSYSP_OK);
    CHECK_EQ_INT(m.step_rule, NSYSP_STEP_REPEATED);
    CHECK_EQ_STR(m.step_name, "train");
    CHECK_EQ_INT(m.n_steps, 3);
    nsysp_measures_free(&m);
    /* The focus matches a PyTorch op range by its op: three instances. */
    CHECK_EQ_INT(nsysp_measure(path, "aten::mm", &m), NSYSP_OK);
    CHECK_EQ_INT(m.n_focus, 3);
    nsysp_measures_free(&m);
    /* ProfilerStep#N ranges win over a repeated range, whatever their N. */
    char with_profiler[4096];
    snprintf(with_profiler, sizeof with_profiler, "%s%s", STEPS_SQL,
             "INSERT INTO NVTX_EVENTS VALUES (1000, 1100, 59, 16777223, 'ProfilerStep#7', NULL, 0),"
             " (1200, 1300, 59, 16777223, 'ProfilerStep#8', NULL, 0);");
    write_report(path, with_profiler);
    CHECK_EQ_INT(nsysp_measure(path, NULL, &m), NSYSP_OK);
    CHECK_EQ_INT(m.step_rule, NSYSP_STEP_PROFILER);
    CHECK_EQ_INT(m.n_steps, 2);
    nsysp_measures_free(&m);

    /* A report with none of these tables: nothing measured, no error. */
    write_report(path, "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);");
    CHECK_EQ_INT(nsysp_measure(path, "step", &m), NSYSP_OK);
    CHECK_EQ_INT(m.session_ns, -1);
    CHECK_EQ_INT(m.gpu_span_ns, -1);
    CHECK_EQ_INT(m.n_gpus + m.n_focus, 0);
    nsysp_measures_free(&m);

    /* Not a report: one line naming the file. */
    FILE *f = fopen(path, "w");
    fputs("not a database, not at all, not even close to one................", f);
    fclose(f);
    CHECK(nsysp_measure(path, NULL, &m) != NSYSP_OK);
    CHECK(strstr(m.message, path) != NULL && !strchr(m.message, '\n'));
    nsysp_measures_free(&m);
    unlink(path);
    return CHECK_DONE();
}
