/* nsys-perfetto ranks --trace: the job's overview trace, written by the
 * library (nsysp_write_overview) from the ranks read. */
#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "ranks_trace.h"
#include "tool/open_view.h"
#include "tool/text_out.h"
#include "web/web_open.h"

/* The notes and the tab's rows: the most late first (the link's size). */
enum { NOTED_STRAGGLERS = 5, LISTED_STRAGGLERS = 100 };

int ranks_write_trace(const char *path, const job *j)
{
    nsysp_overview_rank *ranks = xcalloc(j->n_ranks, sizeof *ranks);
    char (*labels)[64] = xcalloc(j->n_ranks, sizeof *labels);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        snprintf(labels[i], sizeof labels[i], "rank %ld", r->rank);
        ranks[i] = (nsysp_overview_rank){
            .label = labels[i], .utilization = r->utilization, .n_bins = j->n_bins,
            .step_start_utc = r->step_start_utc, .step_ns = r->step_ns,
            .n_steps = r->step_start_utc ? r->n_steps : 0, .collectives = r->collectives,
            .n_collectives = r->n_collectives};
    }
    nsysp_overview ov = {.ranks = ranks, .n_ranks = j->n_ranks,
                         .window_start_utc = j->window_start_utc,
                         .window_end_utc = j->window_end_utc, .n_bins = j->n_bins,
                         .step_name = j->step_name};
    char message[512];
    nsysp_status status = nsysp_write_overview(path, &ov, message);
    if (status != NSYSP_OK)
        text_printf(stderr, "nsys-perfetto ranks: %s\n", message);
    else
        text_printf(stderr, "nsys-perfetto ranks: wrote %s\n", path);
    free(ranks);
    free(labels);
    return status;
}

/* The stragglers as a query's rows (the overview trace holds no lateness):
 * most late first, as ranks prints them. */
static void stragglers_query(const job *j, buf *sql)
{
    buf_append_str(sql, "SELECT column1 AS rank, column2 AS last_at, column3 AS late_total_ms, "
                        "column4 AS late_max_ms, column5 AS report FROM (VALUES ");
    for (size_t k = 0; k < j->n_stragglers && k < LISTED_STRAGGLERS; k++) {
        const job_rank *r = &j->ranks[j->stragglers[k]];
        buf_printf(sql, "%s(%ld, %zu, %.3f, %.3f, '", k ? ", " : "", r->rank, r->last_count,
                   (double)r->late_total_ns / 1e6, (double)r->late_max_ns / 1e6);
        for (const char *p = r->report; *p; p++) /* a quote doubled */
            buf_append_str(sql, *p == '\'' ? "''" : (char[2]){*p, 0});
        buf_append_str(sql, "')");
    }
    buf_append_str(sql, ") ORDER BY late_total_ms DESC");
}

int ranks_open_trace(const char *path, const job *j, volatile sig_atomic_t *stop)
{
    char labels[NOTED_STRAGGLERS][64];
    open_note notes[NOTED_STRAGGLERS];
    size_t n_notes = 0;
    for (size_t k = 0; k < j->n_stragglers && n_notes < NOTED_STRAGGLERS; k++) {
        const job_rank *r = &j->ranks[j->stragglers[k]];
        if (r->late_max_ns <= 0)
            continue;
        snprintf(labels[n_notes], sizeof labels[n_notes], "rank %ld: %.3f ms late (its worst)",
                 r->rank, (double)r->late_max_ns / 1e6);
        /* The overview's time 0 is the window's start. */
        notes[n_notes] = (open_note){.ts = r->late_max_at,
                                     .text = labels[n_notes]};
        n_notes++;
    }
    char slowest[64] = "";
    if (j->n_stragglers)
        snprintf(slowest, sizeof slowest, "rank %ld", j->ranks[j->stragglers[0]].rank);
    buf sql = {0};
    if (j->n_stragglers)
        stragglers_query(j, &sql);
    ui_commands view = {0};
    open_view_ranks(&view, slowest[0] ? slowest : NULL, notes, n_notes,
                    j->n_stragglers ? buf_cstr(&sql) : NULL);
    const char *ui = "https://ui.perfetto.dev";
    int status = open_view_check(ui, &view, path);
    if (status == NSYSP_OK)
        status = web_open_trace(path, ui, &view, 0, stop, 0);
    ui_commands_free(&view);
    buf_free(&sql);
    return status;
}
