#include "series_chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tool/text_out.h"

enum { WIDTH = 960, HEIGHT = 520, LEFT = 90, RIGHT = 330, TOP = 50, BOTTOM = 70 };

static const char *const COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                     "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* An axis maps a value to a pixel between lo_px and hi_px. */
typedef struct axis {
    double lo, hi;
    bool log;
    double lo_px, hi_px;
} axis;

static double to_px(const axis *a, double v)
{
    double f = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    return a->lo_px + f * (a->hi_px - a->lo_px);
}

/* A step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double nice_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw)));
    return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

static bool numeric(const char *const *names, size_t n, double *xs)
{
    for (size_t i = 0; i < n; i++) {
        char *end;
        xs[i] = strtod(names[i], &end);
        if (end == names[i] || *end || !isfinite(xs[i]))
            return false;
    }
    return true;
}

static void time_axis(axis *y, const chart_line *lines, size_t n_lines, size_t n_x)
{
    double lo = INFINITY, hi = 0;
    for (size_t l = 0; l < n_lines; l++)
        for (size_t i = 0; i < n_x; i++)
            if (!isnan(lines[l].y[i]) && lines[l].y[i] > 0) {
                lo = fmin(lo, lines[l].y[i]);
                hi = fmax(hi, lines[l].y[i]);
            }
    if (hi <= 0) {
        lo = 1;
        hi = 10;
    }
    y->log = hi / lo >= 100;
    if (y->log) {
        y->lo = pow(10, floor(log10(lo)));
        y->hi = pow(10, ceil(log10(hi)));
    } else {
        double step = nice_step(hi);
        y->lo = 0;
        y->hi = ceil(hi / step) * step;
    }
    y->lo_px = HEIGHT - BOTTOM;
    y->hi_px = TOP;
}

static void unit_of(double max_ns, const char **unit, double *scale)
{
    *unit = max_ns >= 1e9 ? "s" : max_ns >= 1e6 ? "ms" : max_ns >= 1e3 ? "\xc2\xb5s" : "ns";
    *scale = max_ns >= 1e9 ? 1e9 : max_ns >= 1e6 ? 1e6 : max_ns >= 1e3 ? 1e3 : 1;
}

static void draw_time_ticks(FILE *to, const axis *y, double scale)
{
    double step = y->log ? 0 : nice_step(y->hi - y->lo);
    for (double v = y->lo; v <= y->hi * 1.0001; v = y->log ? v * 10 : v + step) {
        double py = to_px(y, y->log ? v : v);
        fprintf(to, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT,
                py, WIDTH - RIGHT, py);
        fprintf(to, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 6,
                py + 4, v / scale);
    }
}

static void draw_x_ticks(FILE *to, const axis *x, const char *const *names, const double *xs,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double px = to_px(x, xs[i]);
        fprintf(to, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", px,
                TOP, px, HEIGHT - BOTTOM);
        fprintf(to, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", px, HEIGHT - BOTTOM + 18);
        text_xml(to, names[i], 0);
        fputs("</text>\n", to);
    }
}

static void draw_lines(FILE *to, const axis *x, const axis *y, const double *xs, size_t n_x,
                       const chart_line *lines, size_t n_lines)
{
    for (size_t l = 0; l < n_lines; l++) {
        const char *color = COLORS[l % (sizeof COLORS / sizeof *COLORS)];
        fprintf(to, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (size_t i = 0; i < n_x; i++) {
            double v = lines[l].y[i];
            if (!isnan(v) && (!y->log || v > 0))
                fprintf(to, "%.1f,%.1f ", to_px(x, xs[i]), to_px(y, v));
        }
        fputs("\"/>\n", to);
        for (size_t i = 0; i < n_x; i++) {
            double v = lines[l].y[i];
            if (!isnan(v) && (!y->log || v > 0))
                fprintf(to, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                        to_px(x, xs[i]), to_px(y, v), color);
        }
        int ly = TOP + 10 + 22 * (int)l;
        fprintf(to, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    "stroke-width=\"3\"/>\n<text x=\"%d\" y=\"%d\">",
                WIDTH - RIGHT + 20, ly, WIDTH - RIGHT + 44, ly, color, WIDTH - RIGHT + 50, ly + 4);
        text_xml(to, lines[l].label, 40);
        fputs("</text>\n", to);
    }
}

void chart_svg(FILE *to, const char *title, const char *x_label, const char *const *x_names,
               size_t n_x, const chart_line *lines, size_t n_lines)
{
    double *xs = calloc(n_x ? n_x : 1, sizeof *xs);
    if (!xs)
        abort();
    axis x = {.lo_px = LEFT + 20, .hi_px = WIDTH - RIGHT - 20};
    if (n_x && numeric(x_names, n_x, xs)) {
        x.lo = xs[0];
        x.hi = xs[0];
        for (size_t i = 1; i < n_x; i++) {
            x.lo = fmin(x.lo, xs[i]);
            x.hi = fmax(x.hi, xs[i]);
        }
        x.log = x.lo > 0 && x.hi / x.lo >= 100;
    } else {
        for (size_t i = 0; i < n_x; i++)
            xs[i] = (double)i;
        x.lo = 0;
        x.hi = n_x > 1 ? (double)(n_x - 1) : 1;
    }
    if (x.hi == x.lo) {
        x.lo -= 1;
        x.hi += 1;
    }
    axis y;
    time_axis(&y, lines, n_lines, n_x);
    const char *unit;
    double scale;
    unit_of(y.hi, &unit, &scale);

    fprintf(to, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            WIDTH, HEIGHT, WIDTH, HEIGHT);
    fprintf(to, "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">", LEFT);
    text_xml(to, title, 0);
    fputs("</text>\n", to);
    draw_time_ticks(to, &y, scale);
    draw_x_ticks(to, &x, x_names, xs, n_x);
    fprintf(to, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                "stroke=\"#444\"/>\n",
            LEFT, TOP, WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP);
    draw_lines(to, &x, &y, xs, n_x, lines, n_lines);
    fprintf(to, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (LEFT + WIDTH - RIGHT) / 2,
            HEIGHT - 24);
    text_xml(to, x_label, 0);
    fprintf(to, "%s</text>\n", x.log ? " (log scale)" : "");
    fprintf(to, "<text transform=\"translate(22 %d) rotate(-90)\" text-anchor=\"middle\">"
                "total time (%s%s)</text>\n</svg>\n",
            (TOP + HEIGHT - BOTTOM) / 2, unit, y.log ? ", log scale" : "");
    free(xs);
}
