/* nsys-perfetto ranks: the job as a terminal table, Markdown, CSV and JSON
 * (schema in docs/ranks.md). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/json.h"
#include "ranks_output.h"
#include "tool/text_out.h"

enum { STRAGGLERS_SHOWN = 10 };

/* "12.34 ms" into out: a duration people read. */
static const char *ms(int64_t ns, char *out, size_t size)
{
    if (ns < 0)
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.2f", (double)ns / 1e6);
    return out;
}

static const char *report_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void heading(FILE *to, const job *j, bool md)
{
    fprintf(to, "%snsys-perfetto ranks: %zu ranks in %zu report%s\n", md ? "### " : "",
            j->n_ranks, j->n_reports, j->n_reports == 1 ? "" : "s");
    if (md)
        fputc('\n', to);
    fprintf(to, "%s  rank rule: %s\n", md ? "-" : "", rank_rule_text(j->rule));
    fprintf(to, "%s  step: ", md ? "-" : "");
    if (j->step_name[0]) {
        if (md)
            text_md(to, j->step_name);
        else
            text_printf(to, "%s", j->step_name);
        fprintf(to, " (%s)\n", j->step_rule);
    } else {
        fputs("none found (give one with --step)\n", to);
    }
    fprintf(to, "%s  stragglers: from %zu %s matched on every rank (the k-th of each rank)\n",
            md ? "-" : "", j->n_matched, j->matched_what);
    fputc('\n', to);
}

static const char *const FIGURES[] = {"busy", "idle", "compute", "comm", "memory", "exposed comm",
                                      "step p50", "step p90", "step max"};

static void figures_of(const job_rank *r, int64_t v[9])
{
    int64_t all[9] = {r->busy_ns, r->idle_ns, r->compute_ns, r->comm_ns, r->memory_ns,
                      r->exposed_comm_ns, r->step_p50_ns, r->step_p90_ns, r->step_max_ns};
    memcpy(v, all, sizeof all);
}

static void print_table(FILE *to, const job *j)
{
    heading(to, j, false);
    fprintf(to, "%6s %7s %-28s", "rank", "device", "report");
    for (size_t f = 0; f < 9; f++)
        fprintf(to, " %12s", FIGURES[f]);
    fputs("   (ms)\n", to);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        int64_t v[9];
        char b[32];
        figures_of(r, v);
        fprintf(to, "%6ld %7lld ", r->rank, (long long)r->device);
        text_cell(to, report_name(r->report), 28);
        for (size_t f = 0; f < 9; f++)
            fprintf(to, " %12s", ms(v[f], b, sizeof b));
        fputc('\n', to);
    }
    fputs("\nstragglers (arrived last, by how much: its arrival - the others' mean):\n", to);
    if (!j->n_stragglers)
        fputs("  none\n", to);
    for (size_t s = 0; s < j->n_stragglers && s < STRAGGLERS_SHOWN; s++) {
        const job_rank *r = &j->ranks[j->stragglers[s]];
        char a[32], b[32];
        fprintf(to, "  rank %ld: last at %zu of %zu %s, late by %s ms in all (at most %s ms)\n",
                r->rank, r->last_count, j->n_matched, j->matched_what,
                ms(r->late_total_ns, a, sizeof a), ms(r->late_max_ns, b, sizeof b));
    }
    if (j->n_stragglers > STRAGGLERS_SHOWN)
        fprintf(to, "  (%zu more ranks were last at least once)\n",
                j->n_stragglers - STRAGGLERS_SHOWN);
}

static void print_md(FILE *to, const job *j)
{
    heading(to, j, true);
    fputs("| rank | device | report |", to);
    for (size_t f = 0; f < 9; f++)
        fprintf(to, " %s ms |", FIGURES[f]);
    fputs("\n| ---: | ---: | --- |", to);
    for (size_t f = 0; f < 9; f++)
        fputs(" ---: |", to);
    fputc('\n', to);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        int64_t v[9];
        char b[32];
        figures_of(r, v);
        fprintf(to, "| %ld | %lld | ", r->rank, (long long)r->device);
        text_md(to, report_name(r->report));
        fputs(" |", to);
        for (size_t f = 0; f < 9; f++)
            fprintf(to, " %s |", ms(v[f], b, sizeof b));
        fputc('\n', to);
    }
    fputs("\n| straggler rank | last at | late in all ms | late at most ms |\n"
          "| ---: | ---: | ---: | ---: |\n", to);
    for (size_t s = 0; s < j->n_stragglers && s < STRAGGLERS_SHOWN; s++) {
        const job_rank *r = &j->ranks[j->stragglers[s]];
        char a[32], b[32];
        fprintf(to, "| %ld | %zu of %zu | %s | %s |\n", r->rank, r->last_count, j->n_matched,
                ms(r->late_total_ns, a, sizeof a), ms(r->late_max_ns, b, sizeof b));
    }
}

static void print_csv(FILE *to, const job *j)
{
    fputs("rank,report,pid,device,busy_ns,idle_ns,compute_ns,comm_ns,memory_ns,exposed_comm_ns,"
          "steps,step_p50_ns,step_p90_ns,step_max_ns,last_count,late_total_ns,late_max_ns\n", to);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        fprintf(to, "%ld,", r->rank);
        text_csv(to, r->report);
        fprintf(to, ",%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%zu,%lld,%lld,%lld,%zu,%lld,%lld\n",
                (int)r->pid, (long long)r->device, (long long)r->busy_ns, (long long)r->idle_ns,
                (long long)r->compute_ns, (long long)r->comm_ns, (long long)r->memory_ns,
                (long long)r->exposed_comm_ns, r->n_steps, (long long)r->step_p50_ns,
                (long long)r->step_p90_ns, (long long)r->step_max_ns, r->last_count,
                (long long)r->late_total_ns, (long long)r->late_max_ns);
    }
}

static void json_int_or_null(FILE *to, int64_t v)
{
    if (v < 0)
        fputs("null", to);
    else
        fprintf(to, "%lld", (long long)v);
}

static void print_json(FILE *to, const job *j)
{
    static const char *const RULES[] = {"mpi", "file_name", "order"};
    fprintf(to, "{\"rank_rule\": \"%s\", \"reports\": %zu, \"window\": {\"start_utc_ns\": %lld, "
                "\"end_utc_ns\": %lld, \"bins\": %zu},\n \"step\": ",
            RULES[j->rule], j->n_reports, (long long)j->window_start_utc,
            (long long)j->window_end_utc, j->n_bins);
    if (j->step_name[0]) {
        fputs("{\"name\": ", to);
        json_string(to, j->step_name);
        fputs(", \"rule\": ", to);
        json_string(to, j->step_rule);
        fputc('}', to);
    } else {
        fputs("null", to);
    }
    fprintf(to, ",\n \"matched\": {\"what\": \"%s\", \"count\": %zu},\n \"ranks\": [",
            j->matched_what, j->n_matched);
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        fprintf(to, "%s\n  {\"rank\": %ld, \"report\": ", i ? "," : "", r->rank);
        json_string(to, r->report);
        fprintf(to, ", \"pid\": %d, \"devices\": [%lld], \"busy_ns\": %lld, \"idle_ns\": %lld, "
                    "\"compute_ns\": %lld, \"comm_ns\": %lld, \"memory_ns\": %lld, "
                    "\"exposed_comm_ns\": %lld, \"steps\": %zu, \"step_p50_ns\": ",
                (int)r->pid, (long long)r->device, (long long)r->busy_ns, (long long)r->idle_ns,
                (long long)r->compute_ns, (long long)r->comm_ns, (long long)r->memory_ns,
                (long long)r->exposed_comm_ns, r->n_steps);
        json_int_or_null(to, r->step_p50_ns);
        fputs(", \"step_p90_ns\": ", to);
        json_int_or_null(to, r->step_p90_ns);
        fputs(", \"step_max_ns\": ", to);
        json_int_or_null(to, r->step_max_ns);
        fprintf(to, ", \"last_count\": %zu, \"late_total_ns\": %lld, \"late_max_ns\": %lld}",
                r->last_count, (long long)r->late_total_ns, (long long)r->late_max_ns);
    }
    fputs("\n ],\n \"stragglers\": [", to);
    for (size_t s = 0; s < j->n_stragglers; s++) {
        const job_rank *r = &j->ranks[j->stragglers[s]];
        fprintf(to, "%s\n  {\"rank\": %ld, \"last_count\": %zu, \"late_total_ns\": %lld, "
                    "\"late_max_ns\": %lld}",
                s ? "," : "", r->rank, r->last_count, (long long)r->late_total_ns,
                (long long)r->late_max_ns);
    }
    fputs("\n ]}\n", to);
}

void ranks_print(FILE *to, const job *j, ranks_format format)
{
    switch (format) {
    case RANKS_MD:
        print_md(to, j);
        break;
    case RANKS_CSV:
        print_csv(to, j);
        break;
    case RANKS_JSON:
        print_json(to, j);
        break;
    default:
        print_table(to, j);
    }
}
