/* vk_svg: the pieces of an inline SVG chart that every chart of the HTML
 * report shares: escaping text for HTML/XML, linear and logarithmic scales
 * with readable ticks, axes with grid lines, and number formats with units
 * (durations, object counts). Markup is XHTML-compatible (every element
 * closed, attributes quoted) so the report also parses as XML. */
#ifndef VK_SVG_H
#define VK_SVG_H

#include <stddef.h>
#include <stdio.h>

/* Writes s with & < > " ' escaped, so it is safe in text and in quoted
 * attribute values; U+FFFE/U+FFFF (not XML characters) become '?'. Control
 * characters are expected to be scrubbed already (vk_text_scrub). NULL
 * writes nothing. */
void vk_svg_esc(FILE *out, const char *s);

typedef struct {
    double d0, d1; /* domain, d0 < d1 (both > 0 on a log scale) */
    double r0, r1; /* pixels */
    int log;
    int time; /* linear seconds: ticks at whole seconds, minutes or hours */
} vk_scale_t;

/* The pixel of v; values outside the domain are clamped to it. */
double vk_scale_map(const vk_scale_t *s, double v);
/* Widens [lo, hi] into a domain for data in that range: a margin on both
 * sides (a factor on a log scale), and a non-empty range for one value. */
void vk_scale_domain(vk_scale_t *s, double lo, double hi, int log);
/* Up to max tick values inside the domain: 1-2-5 steps on a linear scale;
 * decades, or 1-2-5 (or 1..9) per decade when that gives too few, on a
 * log one. Returns how many. */
size_t vk_scale_ticks(const vk_scale_t *s, double *ticks, size_t max);

/* Number formats for tick labels and tables. */
typedef void (*vk_fmt_fn)(char *buf, size_t size, double v);
/* A duration in ns with a unit: "40 ns", "250 µs", "12 ms", "1.5 s". */
void vk_fmt_duration(char *buf, size_t size, double ns);
/* A count: "500", "1K", "2.5K", "80K", "1M". */
void vk_fmt_count(char *buf, size_t size, double v);
/* A fraction as a percentage: "50%". */
void vk_fmt_percent(char *buf, size_t size, double v);
/* Seconds since the start: "0 s", "90 s", "12 min", "2 h". */
void vk_fmt_elapsed(char *buf, size_t size, double s);

/* The rectangle of a plot area inside an svg element. */
typedef struct {
    double x, y, w, h;
} vk_box_t;

/* Draws grid lines, tick marks, tick labels and the axis titles of a plot
 * area (x scale runs along box.x..box.x+w, y along box.y+h..box.y). */
void vk_svg_axes(FILE *out, const vk_box_t *box, const vk_scale_t *x, vk_fmt_fn xfmt,
                 const char *xtitle, const vk_scale_t *y, vk_fmt_fn yfmt, const char *ytitle);

/* Colour of site i: a colour-blind-safe palette, dark enough for text on
 * white; repeats after VK_SVG_NCOLOURS sites. */
#define VK_SVG_NCOLOURS 8
const char *vk_svg_colour(size_t i);

#endif
