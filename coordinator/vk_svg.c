/* vk_svg: scales, ticks, axes and escaping for the HTML report's charts. */
#include "vk_svg.h"

#include <math.h>
#include <string.h>

void vk_svg_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        /* U+FFFE and U+FFFF are valid UTF-8 but not XML characters */
        if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBF &&
            ((unsigned char)s[2] == 0xBE || (unsigned char)s[2] == 0xBF)) {
            fputc('?', out);
            s += 2;
            continue;
        }
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

double vk_scale_map(const vk_scale_t *s, double v)
{
    double a = s->d0, b = s->d1;
    if (!(v >= a))
        v = a; /* also NAN */
    if (v > b)
        v = b;
    double t;
    if (s->log)
        t = (log10(v) - log10(a)) / (log10(b) - log10(a));
    else
        t = (v - a) / (b - a);
    return s->r0 + t * (s->r1 - s->r0);
}

void vk_scale_domain(vk_scale_t *s, double lo, double hi, int log)
{
    s->log = log;
    if (!isfinite(lo) || !isfinite(hi) || hi < lo) {
        lo = log ? 1 : 0;
        hi = log ? 10 : 1;
    }
    if (log) {
        if (lo <= 0)
            lo = hi > 0 ? hi / 1000 : 1;
        if (hi <= 0)
            hi = 10;
        if (hi / lo < 1.5) {
            lo /= 1.5;
            hi *= 1.5;
        }
        s->d0 = lo / 1.15;
        s->d1 = hi * 1.15;
    } else {
        double span = hi - lo;
        if (span <= 0)
            span = fabs(hi) > 0 ? fabs(hi) : 1;
        s->d0 = lo - span * 0.03;
        s->d1 = hi + span * 0.03;
    }
}

static size_t log_ticks(const vk_scale_t *s, double *t, size_t max, const int *mult, int nm,
                        int every)
{
    size_t n = 0;
    int e0 = (int)floor(log10(s->d0)), e1 = (int)ceil(log10(s->d1));
    for (int e = e0; e <= e1; e++) {
        if ((e - e0) % every)
            continue;
        for (int m = 0; m < nm; m++) {
            double v = mult[m] * pow(10, e);
            if (v < s->d0 || v > s->d1)
                continue;
            if (n == max)
                return max + 1;
            t[n++] = v;
        }
    }
    return n;
}

size_t vk_scale_ticks(const vk_scale_t *s, double *ticks, size_t max)
{
    if (!max)
        return 0;
    if (s->log) {
        static const int m1[] = {1}, m125[] = {1, 2, 5}, m19[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        size_t n = log_ticks(s, ticks, max, m125, 3, 1);
        if (n <= max && n < 3) {
            size_t k = log_ticks(s, ticks, max, m19, 9, 1);
            if (k <= max)
                return k;
            return log_ticks(s, ticks, max, m125, 3, 1);
        }
        if (n <= max)
            return n;
        for (int every = 1; every < 400; every++)
            if ((n = log_ticks(s, ticks, max, m1, 1, every)) <= max)
                return n;
        return 0;
    }
    double span = s->d1 - s->d0;
    if (!(span > 0))
        return 0;
    if (s->time) {
        static const double ts[] = {1,    2,    5,    10,    15,    30,    60,    120,
                                    300,  600,  900,  1800,  3600,  7200,  10800, 21600,
                                    43200, 86400, 172800, 604800};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
            double first = ceil(s->d0 / ts[k] - 1e-9) * ts[k];
            size_t count = (size_t)floor((s->d1 - first) / ts[k] + 1e-9) + 1;
            if (count > max || count > 8)
                continue;
            for (size_t i = 0; i < count; i++)
                ticks[i] = first + (double)i * ts[k];
            return count;
        }
    }
    /* the smallest 1-2-5 step that gives at most max ticks (and about 6) */
    double target = span / (max < 6 ? (double)max : 6.0);
    double mag = pow(10, floor(log10(target)));
    static const double steps[] = {1, 2, 5, 10, 20, 50};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        double step = steps[k] * mag;
        if (step < target * 0.999 && k + 1 < sizeof steps / sizeof steps[0])
            continue;
        double first = ceil(s->d0 / step - 1e-9) * step;
        size_t count = 0;
        for (double v = first; v <= s->d1 * (1 + 1e-12) && count <= max; v += step)
            count++;
        if (count > max)
            continue;
        for (size_t i = 0; i < count; i++) {
            double v = first + (double)i * step;
            ticks[i] = fabs(v) < step * 1e-9 ? 0 : v;
        }
        return count;
    }
    return 0;
}

/* "%.*g" without a trailing ".0". */
static void num(char *buf, size_t size, double v)
{
    if (fabs(v) >= 100 || v == floor(v))
        snprintf(buf, size, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, size, "%.1f", v);
    else
        snprintf(buf, size, "%.2g", v);
}

void vk_fmt_duration(char *buf, size_t size, double ns)
{
    char n[32];
    if (!isfinite(ns)) {
        snprintf(buf, size, "-");
        return;
    }
    if (ns == 0) {
        snprintf(buf, size, "0");
        return;
    }
    if (fabs(ns) < 1e3) {
        num(n, sizeof n, ns);
        snprintf(buf, size, "%s ns", n);
    } else if (fabs(ns) < 1e6) {
        num(n, sizeof n, ns / 1e3);
        snprintf(buf, size, "%s µs", n);
    } else if (fabs(ns) < 1e9) {
        num(n, sizeof n, ns / 1e6);
        snprintf(buf, size, "%s ms", n);
    } else {
        num(n, sizeof n, ns / 1e9);
        snprintf(buf, size, "%s s", n);
    }
}

void vk_fmt_count(char *buf, size_t size, double v)
{
    char n[32];
    if (fabs(v) >= 1e6) {
        num(n, sizeof n, v / 1e6);
        snprintf(buf, size, "%sM", n);
    } else if (fabs(v) >= 1e3) {
        num(n, sizeof n, v / 1e3);
        snprintf(buf, size, "%sK", n);
    } else {
        num(buf, size, v);
    }
}

void vk_fmt_percent(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.0f%%", v * 100);
}

void vk_fmt_elapsed(char *buf, size_t size, double s)
{
    char n[32];
    if (s == 0) {
        snprintf(buf, size, "0");
        return;
    }
    if (fabs(s) < 120) {
        num(n, sizeof n, s);
        snprintf(buf, size, "%s s", n);
    } else if (fabs(s) < 7200) {
        num(n, sizeof n, s / 60);
        snprintf(buf, size, "%s min", n);
    } else {
        num(n, sizeof n, s / 3600);
        snprintf(buf, size, "%s h", n);
    }
}

void vk_svg_axes(FILE *out, const vk_box_t *b, const vk_scale_t *x, vk_fmt_fn xfmt,
                 const char *xtitle, const vk_scale_t *y, vk_fmt_fn yfmt, const char *ytitle)
{
    double t[64];
    char lab[64];
    fprintf(out, "<g class=\"axes\">\n");
    fprintf(out, "<rect class=\"plot-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            b->x, b->y, b->w, b->h);
    size_t n = vk_scale_ticks(x, t, 10);
    double free_from = -1e9; /* labels that would overlap the previous one are left out */
    for (size_t i = 0; i < n; i++) {
        double px = vk_scale_map(x, t[i]);
        xfmt(lab, sizeof lab, t[i]);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                px, b->y, px, b->y + b->h);
        double half = 3.4 * (double)strlen(lab);
        if (px - half < free_from)
            continue;
        free_from = px + half + 6;
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px,
                b->y + b->h + 16);
        vk_svg_esc(out, lab);
        fputs("</text>\n", out);
    }
    n = vk_scale_ticks(y, t, 8);
    for (size_t i = 0; i < n; i++) {
        double py = vk_scale_map(y, t[i]);
        yfmt(lab, sizeof lab, t[i]);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                b->x, py, b->x + b->w, py);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", b->x - 6,
                py + 4);
        vk_svg_esc(out, lab);
        fputs("</text>\n", out);
    }
    fprintf(out, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            b->x + b->w / 2, b->y + b->h + 36);
    vk_svg_esc(out, xtitle);
    fputs("</text>\n", out);
    fprintf(out, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
                 " transform=\"rotate(-90 %.1f %.1f)\">",
            b->x - 56, b->y + b->h / 2, b->x - 56, b->y + b->h / 2);
    vk_svg_esc(out, ytitle);
    fputs("</text>\n</g>\n", out);
}

const char *vk_svg_colour(size_t i)
{
    /* Distinct hues (after Okabe-Ito), each at least 3:1 against white so
     * lines and markers stay visible, printed too. */
    static const char *const c[VK_SVG_NCOLOURS] = {
        "#0072B2", "#D55E00", "#007F5F", "#A3488B", "#8F6A00", "#5E4FA2", "#000000", "#2F8FA8",
    };
    return c[i % VK_SVG_NCOLOURS];
}
