/* Hand-written SVG for the recipes' pictures: labelled axes in plain units
 * and a legend, a rect per heatmap cell and a polyline per series. Large
 * tables are drawn thinned (a column per few bins, at most MAX_CELLS). */
#include "recipe_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/svg_scale.h"

enum { LEFT = 290, TOP = 50, PLOT_W = 760, BOTTOM = 60, LEGEND_W = 300 };
enum { MAX_CELLS = 65536, MAX_ROW_LABELS = 40, MAX_LEGEND = 12, MAX_NAME = 38 };

static void xml_text(buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': buf_append_str(out, "&lt;"); break;
        case '>': buf_append_str(out, "&gt;"); break;
        case '&': buf_append_str(out, "&amp;"); break;
        case '"': buf_append_str(out, "&quot;"); break;
        default: buf_append_byte(out, (uint8_t)*s);
        }
    }
}

/* A name cut to its last MAX_NAME characters (report names differ at
 * their ends), whole UTF-8 characters. */
static void short_name(buf *out, const char *name)
{
    size_t len = strlen(name);
    if (len > MAX_NAME) {
        name += len - MAX_NAME;
        while ((*name & 0xC0) == 0x80)
            name++;
        buf_append_str(out, "…");
    }
    xml_text(out, name);
}

/* The unit that shows the largest value in at most three digits (or in
 * hours past them). */
static void time_unit(double max_ns, const char **unit, double *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } UNITS[] = {{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}};
    size_t u = 0;
    while (u + 1 < sizeof UNITS / sizeof *UNITS && fabs(max_ns) / UNITS[u].ns >= 1000)
        u++;
    *unit = UNITS[u].unit;
    *ns = UNITS[u].ns;
}

/* A tick's number: plain digits, never an exponent. */
static void tick_number(buf *out, double v)
{
    double a = fabs(v);
    buf_printf(out, a >= 100 || a == 0 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
}

static void open_svg(buf *out, double width, double height, const char *title)
{
    buf_printf(out,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
               " font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">",
               width, height, LEFT);
    xml_text(out, title);
    buf_append_str(out, "</text>\n");
}

/* Ticks 0..max on the x axis (5 steps), labelled in unit. */
static void x_axis(buf *out, double plot_h, double max, double unit_ns, const char *label)
{
    for (int t = 0; t <= 5; t++) {
        double x = LEFT + PLOT_W * t / 5.0;
        buf_printf(out,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                   x, TOP + plot_h, x, TOP + plot_h + 5, x, TOP + plot_h + 18);
        tick_number(out, max * t / 5.0 / unit_ns);
        buf_append_str(out, "</text>\n");
    }
    buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", LEFT + PLOT_W / 2.0,
               TOP + plot_h + 40);
    xml_text(out, label);
    buf_append_str(out, "</text>\n");
}

void recipe_svg_heatmap(buf *out, const recipe_heatmap *h)
{
    size_t rows = h->n_rows ? h->n_rows : 1;
    double row_h = rows <= 30 ? 18 : rows <= 200 ? 540.0 / (double)rows : 3;
    double plot_h = row_h * (double)rows;
    size_t columns = MAX_CELLS / rows;
    columns = columns < (size_t)PLOT_W ? columns : (size_t)PLOT_W;
    columns = columns < h->n_bins ? columns : h->n_bins;
    columns = columns ? columns : 1;
    double span = (double)h->bin_ns * (double)h->n_bins;
    const char *unit;
    double unit_ns;
    time_unit(span, &unit, &unit_ns);

    /* The title says the bins' size; the picture is tall enough for the
     * legend's scale. */
    char bin[32];
    svg_plain_duration((double)h->bin_ns, bin, sizeof bin);
    buf title = {0};
    buf_printf(&title, "%s (%zu bins of %s)", h->title, h->n_bins, bin);
    open_svg(out, LEFT + PLOT_W + LEGEND_W, fmax(TOP + plot_h + BOTTOM, TOP + 220),
             buf_cstr(&title));
    buf_free(&title);
    double cell_w = (double)PLOT_W / (double)columns;
    for (size_t r = 0; r < h->n_rows; r++) {
        double y = TOP + row_h * (double)r;
        buf_printf(out, "<g><title>");
        xml_text(out, h->row_names[r]);
        buf_append_str(out, "</title>\n");
        for (size_t c = 0; c < columns; c++) {
            size_t first = c * h->n_bins / columns, end = (c + 1) * h->n_bins / columns;
            double sum = 0;
            size_t n = 0;
            for (size_t b = first; b < end; b++) {
                double v = h->values[r * h->n_bins + b];
                if (!isnan(v)) {
                    sum += v;
                    n++;
                }
            }
            char fill[8] = "#d9d9d9";
            if (n)
                svg_colour(sum / (double)n / (h->max > 0 ? h->max : 1), fill);
            buf_printf(out,
                       "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\""
                       " fill=\"%s\"/>\n",
                       LEFT + cell_w * (double)c, y, cell_w + 0.05, row_h, fill);
        }
        buf_append_str(out, "</g>\n");
        /* Every row named while names fit; else every few. */
        size_t every =
            h->n_rows > MAX_ROW_LABELS ? (h->n_rows + MAX_ROW_LABELS - 1) / MAX_ROW_LABELS : 1;
        if (r % every == 0) {
            buf_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">",
                       LEFT - 6, y + row_h / 2 + 3);
            short_name(out, h->row_names[r]);
            buf_append_str(out, "</text>\n");
        }
    }
    buf_printf(out, "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
               TOP + plot_h / 2);
    xml_text(out, h->row_label);
    buf_append_str(out, "</text>\n");
    char x_label[64];
    snprintf(x_label, sizeof x_label, "Time since the earliest session start (%s)", unit);
    x_axis(out, plot_h, span, unit_ns, x_label);

    /* Legend: the colour scale, and grey for outside a session. */
    double lx = LEFT + PLOT_W + 20;
    buf_printf(out, "<text x=\"%.1f\" y=\"%d\">", lx, TOP - 8);
    xml_text(out, h->value_label);
    buf_append_str(out, "</text>\n");
    for (int i = 0; i <= 10; i++) {
        char fill[8];
        svg_colour(1 - i / 10.0, fill);
        buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"16\" fill=\"%s\"/>\n",
                   lx, TOP + 16.0 * i, fill);
    }
    buf_printf(out,
               "<text x=\"%.1f\" y=\"%d\">%g</text><text x=\"%.1f\" y=\"%d\">0</text>\n"
               "<rect x=\"%.1f\" y=\"%d\" width=\"16\" height=\"16\" fill=\"#d9d9d9\"/>"
               "<text x=\"%.1f\" y=\"%d\">",
               lx + 22, TOP + 12, h->max, lx + 22, TOP + 172, lx, TOP + 186, lx + 22, TOP + 198);
    xml_text(out, h->empty_label);
    buf_append_str(out, "</text>\n");
    buf_append_str(out, "</svg>\n");
}

static const char *const PALETTE[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

void recipe_svg_lines(buf *out, const recipe_lines *l)
{
    enum { PLOT_H = 400 };
    double lo = 0, hi = 0;
    for (size_t i = 0; i < l->n_series * l->n_points; i++) {
        double v = l->values[i];
        if (!isnan(v)) {
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    }
    if (hi == lo)
        hi = lo + 1;
    const char *unit;
    double unit_ns;
    time_unit(fabs(hi) > fabs(lo) ? hi : lo, &unit, &unit_ns);
    open_svg(out, LEFT + PLOT_W + LEGEND_W, TOP + PLOT_H + BOTTOM, l->title);

    for (int t = 0; t <= 5; t++) {
        double v = lo + (hi - lo) * t / 5.0, y = TOP + PLOT_H - PLOT_H * t / 5.0;
        buf_printf(out,
                   "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                   LEFT, y, LEFT + PLOT_W, y, LEFT - 6, y + 4);
        tick_number(out, v / unit_ns);
        buf_append_str(out, "</text>\n");
    }
    buf_printf(out, "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\">",
               LEFT - 70, TOP + PLOT_H / 2);
    xml_text(out, l->y_label);
    buf_printf(out, " (%s)</text>\n", unit);
    size_t last = l->n_points > 1 ? l->n_points - 1 : 1; /* x of the last point, from first_x */
    for (int t = 0; t <= 5; t++) {
        double x = LEFT + PLOT_W * t / 5.0;
        buf_printf(out,
                   "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
                   x, TOP + PLOT_H, x, TOP + PLOT_H + 5, x, TOP + PLOT_H + 18,
                   (double)l->first_x + (double)last * t / 5.0);
    }
    buf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", LEFT + PLOT_W / 2.0,
               TOP + PLOT_H + 40);
    xml_text(out, l->x_label);
    buf_append_str(out, "</text>\n");

    size_t n_colours = sizeof PALETTE / sizeof *PALETTE;
    for (size_t s = 0; s < l->n_series; s++) {
        const char *stroke = PALETTE[s % n_colours];
        buf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                   stroke);
        /* Past two points a pixel, each pixel's lowest and highest, so
         * that spikes stay. */
        const double *v = l->values + s * l->n_points;
        size_t step = l->n_points > 2 * PLOT_W ? l->n_points / PLOT_W : 1;
        for (size_t p = 0; p < l->n_points; p += step) {
            size_t end = p + step < l->n_points ? p + step : l->n_points, low = p, high = p;
            for (size_t k = p; k < end; k++) {
                low = isnan(v[low]) || v[k] < v[low] ? k : low;
                high = isnan(v[high]) || v[k] > v[high] ? k : high;
            }
            size_t pick[2] = {low < high ? low : high, low < high ? high : low};
            for (int k = 0; k < (step > 1 ? 2 : 1); k++)
                if (!isnan(v[pick[k]]))
                    buf_printf(out, "%.1f,%.1f ", LEFT + PLOT_W * (double)pick[k] / (double)last,
                               TOP + PLOT_H - PLOT_H * (v[pick[k]] - lo) / (hi - lo));
        }
        buf_append_str(out, "\"/>\n");
        if (s < MAX_LEGEND) {
            double y = TOP + 16.0 * (double)s;
            buf_printf(out,
                       "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\""
                       " stroke-width=\"3\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\">",
                       LEFT + PLOT_W + 14, y, LEFT + PLOT_W + 30, y, stroke, LEFT + PLOT_W + 34,
                       y + 4);
            short_name(out, l->series_names[s]);
            buf_append_str(out, "</text>\n");
        } else if (s == MAX_LEGEND) {
            buf_printf(out, "<text x=\"%d\" y=\"%.1f\">and %zu more</text>\n",
                       LEFT + PLOT_W + 14, TOP + 16.0 * (double)s + 4, l->n_series - s);
        }
    }
    buf_append_str(out, "</svg>\n");
}
