/* What the hand-written SVG pictures share (ranks' heatmaps, the recipes'
 * maps): the sequential colour scale and durations in plain units. */
#ifndef NSYSP_COMMON_SVG_SCALE_H
#define NSYSP_COMMON_SVG_SCALE_H

#include <stddef.h>

/* "#rrggbb" for v in 0..1 (clamped; NaN as 0): pale yellow to dark blue. */
void svg_colour(double v, char out[8]);

/* A duration in the unit that shows it in three digits at most: "350 ms",
 * "3.51 s", "12 µs", "2.5 min" (never "3.51e+03 ms"). */
void svg_plain_duration(double ns, char *out, size_t size);

#endif
