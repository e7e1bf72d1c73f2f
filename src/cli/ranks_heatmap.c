/* nsys-perfetto ranks --heatmaps: rank x time GPU utilization (as nsys
 * recipe gpu_time_util_map) and rank x step step time, hand-written SVG:
 * one rect per cell, labelled axes, a colour legend. Thousands of ranks
 * make rows thinner, never more than a few MB of SVG. */
#include <math.h>
#include <stdio.h>

#include "ranks.h"
#include "tool/text_out.h"

enum { LEFT = 70, TOP = 50, PLOT_W = 800, PLOT_H = 480, LEGEND_W = 120, BOTTOM = 60 };

/* A sequential colour for v in 0..1: pale yellow to dark blue. */
static void colour(double v, char out[8])
{
    static const double STOPS[][3] = {{255, 255, 204}, {161, 218, 180}, {65, 182, 196},
                                      {44, 127, 184}, {37, 52, 148}};
    if (!(v >= 0))
        v = 0;
    if (v > 1)
        v = 1;
    double at = v * 4;
    int i = at >= 4 ? 3 : (int)at;
    double f = at - i;
    int rgb[3];
    for (int c = 0; c < 3; c++)
        rgb[c] = (int)lround(STOPS[i][c] + f * (STOPS[i + 1][c] - STOPS[i][c]));
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void open_svg(FILE *to, const char *title)
{
    fprintf(to, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"%d\" y=\"24\" font-size=\"15\">",
            LEFT + PLOT_W + LEGEND_W, TOP + PLOT_H + BOTTOM, LEFT);
    text_xml(to, title, 0);
    fputs("</text>\n", to);
}

/* The rank axis: a tick at the first, last and a few ranks between. */
static void rank_axis(FILE *to, const job *j, double row_h)
{
    size_t n = j->n_ranks, step = n > 8 ? (n + 7) / 8 : 1;
    for (size_t i = 0; i < n; i += step) {
        double y = TOP + ((double)i + 0.5) * row_h;
        fprintf(to, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%ld</text>\n", LEFT - 6,
                y + 4, j->ranks[i].rank);
    }
    fprintf(to, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
                "text-anchor=\"middle\">rank</text>\n",
            TOP + PLOT_H / 2, TOP + PLOT_H / 2);
}

static void legend(FILE *to, const char *low, const char *high, const char *what)
{
    int x = LEFT + PLOT_W + 30;
    for (int k = 0; k < 50; k++) {
        char c[8];
        colour(1.0 - k / 49.0, c);
        fprintf(to, "<rect x=\"%d\" y=\"%d\" width=\"20\" height=\"%.1f\" fill=\"%s\"/>\n", x,
                TOP + k * PLOT_H / 50, (double)PLOT_H / 50 + 0.5, c);
    }
    fprintf(to, "<text x=\"%d\" y=\"%d\">", x + 26, TOP + 10);
    text_xml(to, high, 0);
    fprintf(to, "</text>\n<text x=\"%d\" y=\"%d\">", x + 26, TOP + PLOT_H);
    text_xml(to, low, 0);
    fprintf(to, "</text>\n<text x=\"%d\" y=\"%d\">", x, TOP - 8);
    text_xml(to, what, 0);
    fputs("</text>\n", to);
}

void ranks_heatmap_utilization(FILE *to, const job *j)
{
    char title[512];
    snprintf(title, sizeof title, "GPU utilization, rank x time (%zu ranks, %zu bins)",
             j->n_ranks, j->n_bins);
    open_svg(to, title);
    double row_h = (double)PLOT_H / (double)(j->n_ranks ? j->n_ranks : 1);
    double col_w = (double)PLOT_W / (double)(j->n_bins ? j->n_bins : 1);
    for (size_t i = 0; i < j->n_ranks; i++)
        for (size_t b = 0; b < j->n_bins; b++) {
            char c[8];
            colour(j->ranks[i].utilization[b], c);
            fprintf(to, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                        "fill=\"%s\"/>\n",
                    LEFT + (double)b * col_w, TOP + (double)i * row_h, col_w + 0.3, row_h + 0.3,
                    c);
        }
    rank_axis(to, j, row_h);
    double seconds = (double)(j->window_end_utc - j->window_start_utc) / 1e9;
    for (int t = 0; t <= 4; t++)
        fprintf(to, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3g</text>\n",
                LEFT + t * PLOT_W / 4.0, TOP + PLOT_H + 18, seconds * t / 4);
    fprintf(to, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the job's start (s)"
                "</text>\n",
            LEFT + PLOT_W / 2, TOP + PLOT_H + 42);
    legend(to, "0%", "100%", "GPU busy");
    fputs("</svg>\n", to);
}

void ranks_heatmap_steps(FILE *to, const job *j)
{
    size_t steps = 0;
    int64_t lo = INT64_MAX, hi = 0;
    for (size_t i = 0; i < j->n_ranks; i++) {
        const job_rank *r = &j->ranks[i];
        steps = r->n_steps > steps ? r->n_steps : steps;
        for (size_t k = 0; k < r->n_steps; k++) {
            lo = r->step_ns[k] < lo ? r->step_ns[k] : lo;
            hi = r->step_ns[k] > hi ? r->step_ns[k] : hi;
        }
    }
    char title[512];
    snprintf(title, sizeof title, "Step time, rank x step (%s%s%zu steps)",
             j->step_name[0] ? j->step_name : "no step found", j->step_name[0] ? ": " : ", ",
             steps);
    open_svg(to, title);
    double row_h = (double)PLOT_H / (double)(j->n_ranks ? j->n_ranks : 1);
    double col_w = (double)PLOT_W / (double)(steps ? steps : 1);
    for (size_t i = 0; i < j->n_ranks; i++)
        for (size_t k = 0; k < j->ranks[i].n_steps; k++) {
            char c[8];
            colour(hi > lo ? (double)(j->ranks[i].step_ns[k] - lo) / (double)(hi - lo) : 0.5, c);
            fprintf(to, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                        "fill=\"%s\"/>\n",
                    LEFT + (double)k * col_w, TOP + (double)i * row_h, col_w + 0.3, row_h + 0.3,
                    c);
        }
    rank_axis(to, j, row_h);
    for (int t = 0; t <= 4 && steps; t++)
        fprintf(to, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
                LEFT + t * PLOT_W / 4.0, TOP + PLOT_H + 18, (size_t)(steps * t / 4));
    fprintf(to, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step</text>\n",
            LEFT + PLOT_W / 2, TOP + PLOT_H + 42);
    char low[64], high[64];
    snprintf(low, sizeof low, "%.3g ms", lo == INT64_MAX ? 0 : (double)lo / 1e6);
    snprintf(high, sizeof high, "%.3g ms", (double)hi / 1e6);
    legend(to, low, high, "step time");
    fputs("</svg>\n", to);
}
