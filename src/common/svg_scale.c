#include "svg_scale.h"

#include <math.h>
#include <stdio.h>

void svg_colour(double v, char out[8])
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

void svg_plain_duration(double ns, char *out, size_t size)
{
    static const struct {
        const char *unit;
        double ns;
    } UNITS[] = {{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}};
    size_t u = 0;
    while (u + 1 < sizeof UNITS / sizeof *UNITS && ns / UNITS[u].ns >= 999.5)
        u++;
    if (ns == 0)
        snprintf(out, size, "0");
    else
        snprintf(out, size, ns / UNITS[u].ns < 999.5 ? "%.3g %s" : "%.0f %s",
                 ns / UNITS[u].ns, UNITS[u].unit);
}
