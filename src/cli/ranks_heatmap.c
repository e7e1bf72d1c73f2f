/* nsys-perfetto ranks --heatmaps: rank x time GPU utilization (as nsys
 * recipe gpu_time_util_map) and rank x step step time, hand-written SVG:
 * one rect per cell, labelled axes, a colour legend. Thousands of ranks
 * make rows thinner; past MAX_CELLS a column draws the mean of several bins
 * (or steps), so that the SVG stays a few MB whatever --bins asks. */
#include <math.h>
#include <stdio.h>

#include "common/svg_scale.h"
#include "ranks_heatmap.h"
#include "tool/text_out.h"

enum { LEFT = 70, TOP = 50, PLOT_W = 800, PLOT_H = 480, LEGEND_W = 140, BOTTOM = 60 };

/* About 70 bytes of SVG a cell: 65,536 cells are 4.6 MB. Columns narrower
 * than 2 px show nothing more. */
enum { MAX_CELLS = 65536, MAX_COLUMNS = PLOT_W / 2, TITLE_CHARS = 100 };

static size_t columns_drawn(size_t n_ranks, size_t n_values)
{
    size_t columns = MAX_CELLS / (n_ranks ? n_ranks : 1);
    columns = columns < MAX_COLUMNS ? columns : MAX_COLUMNS;
    columns = columns ? columns : 1;
    return n_values < columns ? n_values : columns;
}

/* Column c of n_columns over n_values: values [*first, *end). */
static void column_span(size_t c, size_t n_columns, size_t n_values, size_t *first,
                        size_t *end)
{
    *first = c * n_values / n_columns;
    *end = (c + 1) * n_values / n_columns;
}

static void open_svg(FILE *to, const char *title)
{
    fprintf(to, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "font-family=\"sans-serif\" font-size=\"12\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"%d\" y=\"24\" font-size=\"15\">",
            LEFT + PLOT_W + LEGEND_W, TOP + PLOT_H + BOTTOM, LEFT);
    text_xml(to, title, TITLE_CHARS); /* a long step name would run past the edge */
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
        svg_colour(1.0 - k / 49.0, c);
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

static void cell(FILE *to, double x, double y, double w, double h, double v)
{
    char c[8];
    svg_colour(v, c);
    fprintf(to, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
            x, y, w + 0.3, h + 0.3, c);
}

/* "(100 bins)", or "(100000 bins in 400 columns)" when capped. */
static void values_drawn(char *out, size_t size, size_t n_values, size_t columns,
                         const char *what)
{
    if (columns < n_values)
        snprintf(out, size, "%zu %s in %zu columns", n_values, what, columns);
    else
        snprintf(out, size, "%zu %s", n_values, what);
}

heatmap_drawn ranks_heatmap_utilization(FILE *to, const job *j)
{
    size_t columns = columns_drawn(j->n_ranks, j->n_bins);
    char title[512], drawn[128];
    values_drawn(drawn, sizeof drawn, j->n_bins, columns, "bins");
    snprintf(title, sizeof title, "GPU utilization, rank x time (%zu ranks, %s)", j->n_ranks,
             drawn);
    open_svg(to, title);
    double row_h = (double)PLOT_H / (double)(j->n_ranks ? j->n_ranks : 1);
    double bin_w = (double)PLOT_W / (double)(j->n_bins ? j->n_bins : 1);
    for (size_t i = 0; i < j->n_ranks; i++)
        for (size_t c = 0; c < columns; c++) {
            size_t first, end;
            column_span(c, columns, j->n_bins, &first, &end);
            double sum = 0; /* equal bins: their mean is the wider bin's utilization */
            for (size_t b = first; b < end; b++)
                sum += j->ranks[i].utilization[b];
            cell(to, LEFT + (double)first * bin_w, TOP + (double)i * row_h,
                 (double)(end - first) * bin_w, row_h, sum / (double)(end - first));
        }
    rank_axis(to, j, row_h);
    double window_ns = (double)(j->window_end_utc - j->window_start_utc);
    for (int t = 0; t <= 4; t++) {
        char tick[32];
        svg_plain_duration(window_ns * t / 4, tick, sizeof tick);
        fprintf(to, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                LEFT + t * PLOT_W / 4.0, TOP + PLOT_H + 18, tick);
    }
    fprintf(to, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the job's start"
                "</text>\n",
            LEFT + PLOT_W / 2, TOP + PLOT_H + 42);
    legend(to, "0%", "100%", "GPU busy");
    fputs("</svg>\n", to);
    return (heatmap_drawn){.values = j->n_bins, .columns = columns};
}

/* The mean of rank r's steps in [first, end) (those it has); -1 if none. */
static double mean_step(const job_rank *r, size_t first, size_t end)
{
    end = end < r->n_steps ? end : r->n_steps;
    if (first >= end)
        return -1;
    double sum = 0;
    for (size_t k = first; k < end; k++)
        sum += (double)r->step_ns[k];
    return sum / (double)(end - first);
}

heatmap_drawn ranks_heatmap_steps(FILE *to, const job *j)
{
    size_t steps = 0;
    for (size_t i = 0; i < j->n_ranks; i++)
        steps = j->ranks[i].n_steps > steps ? j->ranks[i].n_steps : steps;
    size_t columns = columns_drawn(j->n_ranks, steps);
    /* The colour scale spans the cells drawn. */
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < j->n_ranks; i++)
        for (size_t c = 0; c < columns; c++) {
            size_t first, end;
            column_span(c, columns, steps, &first, &end);
            double v = mean_step(&j->ranks[i], first, end);
            if (v >= 0) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    char title[512], drawn[128];
    values_drawn(drawn, sizeof drawn, steps, columns, "steps");
    snprintf(title, sizeof title, "Step time, rank x step (%s%s%s)",
             j->step_name[0] ? j->step_name : "no step found", j->step_name[0] ? ": " : ", ",
             drawn);
    open_svg(to, title);
    double row_h = (double)PLOT_H / (double)(j->n_ranks ? j->n_ranks : 1);
    double step_w = (double)PLOT_W / (double)(steps ? steps : 1);
    for (size_t i = 0; i < j->n_ranks; i++)
        for (size_t c = 0; c < columns; c++) {
            size_t first, end;
            column_span(c, columns, steps, &first, &end);
            double v = mean_step(&j->ranks[i], first, end);
            if (v >= 0)
                cell(to, LEFT + (double)first * step_w, TOP + (double)i * row_h,
                     (double)(end - first) * step_w, row_h, hi > lo ? (v - lo) / (hi - lo) : 0.5);
        }
    rank_axis(to, j, row_h);
    for (int t = 0; t <= 4 && steps; t++)
        fprintf(to, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%zu</text>\n",
                LEFT + t * PLOT_W / 4.0, TOP + PLOT_H + 18, (size_t)(steps * t / 4));
    fprintf(to, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step</text>\n",
            LEFT + PLOT_W / 2, TOP + PLOT_H + 42);
    char low[32], high[32];
    svg_plain_duration(lo == INFINITY ? 0 : lo, low, sizeof low);
    svg_plain_duration(hi, high, sizeof high);
    legend(to, low, high, "step time");
    fputs("</svg>\n", to);
    return (heatmap_drawn){.values = steps, .columns = columns};
}
