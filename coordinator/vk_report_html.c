/* vk_report_html: the self-contained HTML report with SVG charts. */
#include "vk_report_html.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "vk_report_text.h"
#include "vk_svg.h"

#define esc vk_svg_esc

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1a1a1a;background:#fff;margin:0 auto;max-width:1400px;padding:16px 24px;"
    "line-height:1.4}\n"
    "h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .4em;"
    "border-bottom:2px solid #ccc;padding-bottom:.15em}h3{font-size:1.05em;margin:1em 0 .3em}\n"
    "p.note{color:#444;font-size:.9em;margin:.2em 0 .6em;max-width:80em}\n"
    "nav{font-size:.9em;margin:.4em 0}nav a{margin-right:1em;color:#0b5394}\n"
    ".facts{display:flex;flex-wrap:wrap;gap:.3em 2em;font-size:.95em}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:.3em 1.4em;margin:.5em 0}"
    ".swatch{display:inline-block;width:14px;height:14px;border-radius:3px;"
    "vertical-align:-2px;margin-right:.35em}\n"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.4em 0 1em}\n"
    "svg.chart text{font-family:inherit;fill:#1a1a1a}"
    "svg .tick{font-size:11px;fill:#333}svg .axis-title{font-size:12px;fill:#1a1a1a}"
    "svg .chart-title{font-size:14px;font-weight:600}svg .legend-text{font-size:12px}"
    "svg .panel-note{font-size:11px;fill:#444}\n"
    "svg .plot-area{fill:#fff;stroke:#888;stroke-width:1}"
    "svg .grid{stroke:#e3e3e3;stroke-width:1}"
    "svg .ref{stroke:#999;stroke-width:1;stroke-dasharray:4 3}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:0 24px}"
    ".charts svg.chart{flex:0 1 auto}\n"
    "table{border-collapse:collapse;font-size:.85em;margin:.4em 0 1em;"
    "font-variant-numeric:tabular-nums}\n"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top}"
    "th{background:#f0f0f0}td.t,th.t{text-align:left}\n"
    "td.fastest{font-weight:700}td.r1{background:#fff1d6}td.r2{background:#ffdcc2}"
    "td.err{color:#a00000}\n"
    ".scroll{overflow-x:auto}\n"
    "pre{font-size:12px;background:#f7f7f7;border:1px solid #ddd;padding:8px;"
    "overflow-x:auto;line-height:1.25}\n"
    "details.seed summary{font-family:monospace;font-size:12px;cursor:pointer;margin:.3em 0}\n"
    "dl.kv{display:grid;grid-template-columns:max-content auto;gap:0 1em;margin:0}"
    "dl.kv dt{color:#444}dl.kv dd{margin:0;overflow-wrap:anywhere}\n"
    "@media print{body{max-width:none;padding:0;font-size:11px}nav{display:none}"
    "svg.chart,tr,pre,dl{break-inside:avoid}.charts{display:block}"
    ".charts svg.chart{display:inline-block;width:48%;height:auto;vertical-align:top}"
    "h2,h3{break-after:avoid}pre{font-size:6.5px}.scroll{overflow:visible}"
    "table{font-size:7.5px}th,td{padding:1px 3px}}\n";

/* ---- small helpers -------------------------------------------------------- */

static const char *site_of_group(const vk_group_t *g)
{
    return g->site[0] ? g->site : g->agent;
}

static const char *colour_of(const vk_chartdata_t *cd, const char *site)
{
    int i = vk_cd_site_index(cd, site);
    return i < 0 ? "#555555" : vk_svg_colour((size_t)i);
}

/* A td with a value in ms, "-" when unknown; mark appends "*". */
static void td_ms(FILE *out, double ns, int prec, int mark)
{
    if (isnan(ns))
        fputs("<td>-</td>", out);
    else
        fprintf(out, "<td>%.*f%s</td>", prec, ns / 1e6, mark ? "*" : "");
}

static void td_text(FILE *out, const char *s)
{
    fputs("<td class=\"t\">", out);
    esc(out, s && *s ? s : "-");
    fputs("</td>", out);
}

static const char *point_name(const char *label, int64_t scale, char *buf, size_t size)
{
    if (label && label[0])
        return label;
    if (scale >= 0)
        snprintf(buf, size, "%lld", (long long)scale);
    else
        snprintf(buf, size, "-");
    return buf;
}

static const char *path_title(const char *op)
{
    if (strcmp(op, "ais-regular") == 0)
        return "AIS regular";
    if (strcmp(op, "ais-nbi") == 0)
        return "AIS NBI";
    if (strcmp(op, "s3-direct") == 0)
        return "S3 direct";
    return op;
}

static int is_calibration(const char *op)
{
    return strncmp(op, "calibrate-", 10) == 0;
}

/* An svg element's opening tag; the caller closes it. */
static void svg_open(FILE *out, const char *kind, double w, double h, const char *label)
{
    fprintf(out, "<svg class=\"chart %s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
                 " role=\"img\" aria-label=\"",
            kind, w, h, w, h);
    esc(out, label);
    fputs("\">\n", out);
}

static void svg_text(FILE *out, const char *cls, double x, double y, const char *anchor,
                     const char *text)
{
    fprintf(out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, x, y,
            anchor);
    esc(out, text);
    fputs("</text>\n", out);
}

/* A legend of sites (colour and name) from x, y, wrapped before max_x:
 * those with shown[i] set (all when shown is NULL; both arrays have 256
 * entries), with extra[i] appended when extra is not NULL. Returns the
 * number of rows; out NULL only measures. */
static int svg_site_legend(FILE *out, const vk_chartdata_t *cd, const int *shown, double x,
                           double y, char extra[][48], double max_x)
{
    double x0 = x;
    int rows = 1;
    for (size_t i = 0; i < cd->nsites; i++) {
        if (shown && (i >= 256 || !shown[i]))
            continue;
        char name[VK_CD_NAME_MAX + 48];
        snprintf(name, sizeof name, "%s%s", cd->sites[i].name, extra && i < 256 ? extra[i] : "");
        double w = 38 + 7.0 * (double)strlen(name);
        if (x > x0 && x + w - 14 > max_x) {
            x = x0;
            y += 17;
            rows++;
        }
        if (out) {
            fprintf(out, "<g class=\"legend-item\" data-site=\"");
            esc(out, cd->sites[i].name);
            fprintf(out, "\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                         " stroke=\"%s\" stroke-width=\"3\"/>",
                    x, y - 4, x + 18, y - 4, vk_svg_colour(i));
            svg_text(out, "legend-text", x + 24, y, "start", name);
            fputs("</g>\n", out);
        }
        x += w;
    }
    return rows;
}

/* ---- listing latency vs objects ------------------------------------------- */

static const char *const list_paths[3] = {"ais-regular", "ais-nbi", "s3-direct"};

/* "x,y " of the distributions idx[0..n) (by scale; backwards when reverse)
 * at the statistic stored at offset `stat` of vk_cd_dist_t. */
static void scale_points(FILE *out, const vk_chartdata_t *cd, const size_t *idx, size_t n,
                         const vk_scale_t *x, const vk_scale_t *y, size_t stat, int reverse)
{
    for (size_t k = 0; k < n; k++) {
        const vk_cd_dist_t *d = &cd->dists[idx[reverse ? n - 1 - k : k]];
        double v;
        memcpy(&v, (const char *)d + stat, sizeof v);
        fprintf(out, "%.1f,%.1f ", vk_scale_map(x, (double)d->scale), vk_scale_map(y, v));
    }
}

static void chart_latency_vs_scale(FILE *out, const vk_chartdata_t *cd)
{
    int have[3] = {0};
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    int shown[256] = {0};
    for (size_t i = 0; i < cd->ndists; i++) {
        const vk_cd_dist_t *d = &cd->dists[i];
        if (!vk_cd_is_listing(d->op) || d->scale <= 0 || !d->n)
            continue;
        for (int p = 0; p < 3; p++)
            have[p] |= strcmp(d->op, list_paths[p]) == 0;
        xlo = fmin(xlo, (double)d->scale);
        xhi = fmax(xhi, (double)d->scale);
        ylo = fmin(ylo, d->p5);
        yhi = fmax(yhi, d->p95);
        if (d->site < 256)
            shown[d->site] = 1;
    }
    int np = have[0] + have[1] + have[2];
    if (!np)
        return;
    fputs("<section id=\"latency-vs-scale\">\n<h2>Listing latency vs objects</h2>\n"
          "<p class=\"note\">A full listing of a prefix, by path: the line is the median (p50)"
          " of the runs at each scale point, the shaded band spans p5 to p95 (interpolated)."
          " Both axes are logarithmic; the panels share the latency axis.</p>\n",
          out);
    const double pw = 440, ph = 330, ml = 78, mr = 16, mt = 58, mb = 52;
    double W = np * pw, H = ph;
    svg_open(out, "latency-vs-scale", W, H, "listing latency vs number of objects per path");
    svg_site_legend(out, cd, shown, ml, 18, NULL, W);
    vk_scale_t x = {0}, y = {0};
    vk_scale_domain(&x, xlo, xhi, 1);
    vk_scale_domain(&y, ylo, yhi, 1);
    int panel = 0;
    for (int p = 0; p < 3; p++) {
        if (!have[p])
            continue;
        vk_box_t b = {panel * pw + ml, mt, pw - ml - mr, ph - mt - mb};
        x.r0 = b.x;
        x.r1 = b.x + b.w;
        y.r0 = b.y + b.h;
        y.r1 = b.y;
        char title[64];
        snprintf(title, sizeof title, "%s (%s)", path_title(list_paths[p]), list_paths[p]);
        fprintf(out, "<g class=\"panel\" data-path=\"%s\">\n", list_paths[p]);
        svg_text(out, "chart-title", b.x + b.w / 2, b.y - 10, "middle", title);
        vk_svg_axes(out, &b, &x, vk_fmt_count, "objects in the prefix", &y, vk_fmt_duration,
                    "listing latency");
        for (size_t si = 0; si < cd->nsites; si++) {
            /* the dists are sorted by op, scale, site */
            size_t idx[512], n = 0;
            for (size_t i = 0; i < cd->ndists && n < 512; i++) {
                const vk_cd_dist_t *d = &cd->dists[i];
                if (d->site == si && d->n && d->scale > 0 && strcmp(d->op, list_paths[p]) == 0)
                    idx[n++] = i;
            }
            if (!n)
                continue;
            const char *col = vk_svg_colour(si);
            fputs("<g class=\"series\" data-site=\"", out);
            esc(out, cd->sites[si].name);
            fprintf(out, "\" data-path=\"%s\">\n<polygon class=\"band\" data-site=\"",
                    list_paths[p]);
            esc(out, cd->sites[si].name);
            fprintf(out, "\" data-path=\"%s\" fill=\"%s\" fill-opacity=\"0.14\" stroke=\"none\""
                         " points=\"",
                    list_paths[p], col);
            scale_points(out, cd, idx, n, &x, &y, offsetof(vk_cd_dist_t, p95), 0);
            scale_points(out, cd, idx, n, &x, &y, offsetof(vk_cd_dist_t, p5), 1);
            fputs("\"/>\n<polyline class=\"p50\" data-site=\"", out);
            esc(out, cd->sites[si].name);
            fprintf(out, "\" data-path=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\""
                         " points=\"",
                    list_paths[p], col);
            scale_points(out, cd, idx, n, &x, &y, offsetof(vk_cd_dist_t, p50), 0);
            fputs("\"/>\n", out);
            for (size_t k = 0; k < n; k++) {
                const vk_cd_dist_t *d = &cd->dists[idx[k]];
                char b50[32], b5[32], b95[32], pn[32];
                vk_fmt_duration(b50, sizeof b50, d->p50);
                vk_fmt_duration(b5, sizeof b5, d->p5);
                vk_fmt_duration(b95, sizeof b95, d->p95);
                fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\"><title>",
                        vk_scale_map(&x, (double)d->scale), vk_scale_map(&y, d->p50), col);
                esc(out, cd->sites[si].name);
                fprintf(out, ", %s, ", list_paths[p]);
                esc(out, point_name(d->label, d->scale, pn, sizeof pn));
                fprintf(out, ": p50 %s (p5 %s, p95 %s), n = %zu</title></circle>\n", b50, b5,
                        b95, d->n);
            }
            fputs("</g>\n", out);
        }
        fputs("</g>\n", out);
        panel++;
    }
    fputs("</svg>\n</section>\n", out);
}

/* ---- CDFs ------------------------------------------------------------------- */

static void chart_cdf(FILE *out, const vk_chartdata_t *cd, size_t first, size_t last)
{
    const vk_cd_dist_t *d0 = &cd->dists[first];
    double lo = INFINITY, hi = -INFINITY;
    int shown[256] = {0};
    char extra[256][48];
    for (size_t i = first; i < last; i++) {
        const vk_cd_dist_t *d = &cd->dists[i];
        if (!d->ncdf)
            continue;
        lo = fmin(lo, d->cdf[0].ns);
        hi = fmax(hi, d->cdf[d->ncdf - 1].ns);
        if (d->site < 256) {
            shown[d->site] = 1;
            snprintf(extra[d->site], sizeof extra[d->site], " (n=%zu)", d->n);
        }
    }
    char title[160], pn[32];
    const char *point = point_name(d0->label, d0->scale, pn, sizeof pn);
    if (vk_cd_is_listing(d0->op))
        snprintf(title, sizeof title, "%s listing, %s objects", path_title(d0->op), point);
    else if (d0->scale >= 0 || d0->label[0])
        snprintf(title, sizeof title, "%s (%s)", d0->op, point);
    else
        snprintf(title, sizeof title, "%s", d0->op);
    const double W = 420, ml = 64, mr = 14, mb = 50;
    int rows = svg_site_legend(NULL, cd, shown, ml, 38, extra, W - mr);
    double mt = 48 + 17.0 * rows, H = mt + 190 + mb;
    vk_box_t b = {ml, mt, W - ml - mr, H - mt - mb};
    vk_scale_t x = {0}, y = {0};
    vk_scale_domain(&x, lo, hi, 1);
    y.d0 = 0;
    y.d1 = 1;
    x.r0 = b.x;
    x.r1 = b.x + b.w;
    y.r0 = b.y + b.h;
    y.r1 = b.y;
    char label[200];
    snprintf(label, sizeof label, "latency CDF: %s", title);
    svg_open(out, "cdf", W, H, label);
    fputs("<g data-op=\"", out);
    esc(out, d0->op);
    fputs("\">\n", out);
    svg_text(out, "chart-title", b.x, 16, "start", title);
    svg_site_legend(out, cd, shown, b.x, 38, extra, W - mr);
    vk_svg_axes(out, &b, &x, vk_fmt_duration, "latency (log scale)", &y, vk_fmt_percent,
                "requests at or below");
    static const double refs[2] = {0.5, 0.95};
    static const char *const ref_names[2] = {"p50", "p95"};
    for (int r = 0; r < 2; r++) {
        double py = vk_scale_map(&y, refs[r]);
        fprintf(out, "<line class=\"ref\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                b.x, py, b.x + b.w, py);
        svg_text(out, "panel-note", b.x + b.w - 4, py - 4, "end", ref_names[r]);
    }
    for (size_t i = first; i < last; i++) {
        const vk_cd_dist_t *d = &cd->dists[i];
        if (!d->ncdf)
            continue;
        fputs("<polyline class=\"cdf-curve\" data-site=\"", out);
        esc(out, cd->sites[d->site].name);
        fputs("\" data-op=\"", out);
        esc(out, d->op);
        fprintf(out, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                vk_svg_colour(d->site));
        /* a step: each sample raises the curve at its own duration */
        double prev = 0;
        for (size_t k = 0; k < d->ncdf; k++) {
            double px = vk_scale_map(&x, d->cdf[k].ns);
            fprintf(out, "%.1f,%.1f %.1f,%.1f ", px, vk_scale_map(&y, prev), px,
                    vk_scale_map(&y, d->cdf[k].frac));
            prev = d->cdf[k].frac;
        }
        fputs("\"><title>", out);
        char b50[32], b95[32];
        vk_fmt_duration(b50, sizeof b50, d->p50);
        vk_fmt_duration(b95, sizeof b95, d->p95);
        esc(out, cd->sites[d->site].name);
        fprintf(out, ": p50 %s, p95 %s, n = %zu</title></polyline>\n", b50, b95, d->n);
    }
    fputs("</g>\n</svg>\n", out);
}

static void charts_cdf(FILE *out, const vk_chartdata_t *cd)
{
    int any = 0;
    for (size_t i = 0; i < cd->ndists;) {
        size_t j = i, curves = 0, most = 0;
        while (j < cd->ndists && strcmp(cd->dists[j].op, cd->dists[i].op) == 0 &&
               cd->dists[j].scale == cd->dists[i].scale) {
            curves += cd->dists[j].ncdf > 0;
            most = cd->dists[j].n > most ? cd->dists[j].n : most;
            j++;
        }
        if (curves && most >= 2 && !is_calibration(cd->dists[i].op) &&
            strcmp(cd->dists[i].op, "nbi-create") != 0) {
            if (!any)
                fputs("<section id=\"cdf\">\n<h2>Latency distributions (CDF)</h2>\n"
                      "<p class=\"note\">For each operation, the share of successful requests"
                      " that finished within a latency, one curve per site: further left is"
                      " faster, a long flat tail to the right is a slow minority. Listings are"
                      " shown at the scale point most sites measured. Curves of more than 2,000"
                      " samples are drawn through 2,000 evenly spaced ranks, always including"
                      " the fastest and the slowest.</p>\n<div class=\"charts\">\n",
                      out);
            any = 1;
            chart_cdf(out, cd, i, j);
        }
        i = j;
    }
    if (any)
        fputs("</div>\n</section>\n", out);
}

/* ---- phases ------------------------------------------------------------------- */

static const char *const phase_colours[VK_PH_COUNT] = {"#9e9ac8", "#6baed6", "#74c476",
                                                       "#fd8d3c", "#bdbdbd"};
static const char *const phase_titles[VK_PH_COUNT] = {"DNS", "connect", "TLS", "first byte",
                                                      "transfer"};

static int has_phases(const vk_group_t *g)
{
    for (int p = 0; p < VK_PH_COUNT; p++)
        if (g->phase_n[p])
            return 1;
    return 0;
}

/* Ops whose phases the charts show: single requests. A listing is many
 * requests (pages), so its phases would be the first page's and "transfer"
 * all the others: not a breakdown. */
static int phases_shown(const char *op)
{
    return !vk_cd_is_listing(op) && !is_calibration(op) && strncmp(op, "nbi-", 4) != 0;
}

static void chart_phases(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd,
                         const char *op)
{
    const vk_group_t *bars[256];
    size_t n = 0;
    double hi = 0;
    int points = 0;
    int64_t scale0 = -2;
    for (size_t i = 0; i < s->ngroups && n < 256; i++) {
        const vk_group_t *g = &s->groups[i];
        if (strcmp(g->op, op) != 0 || !g->ok || !has_phases(g))
            continue;
        bars[n++] = g;
        double sum = 0;
        for (int p = 0; p < VK_PH_COUNT; p++)
            sum += isnan(g->phase_p50_ns[p]) ? 0 : g->phase_p50_ns[p];
        hi = fmax(hi, fmax(sum, g->dur.p50));
        if (scale0 != -2 && g->scale != scale0)
            points = 1;
        scale0 = g->scale;
    }
    if (!n)
        return;
    const double W = 640, bh = 22, gap = 8, ml = 180, mr = 70, mt = 62, mb = 48;
    double H = mt + mb + (double)n * (bh + gap);
    vk_box_t b = {ml, mt, W - ml - mr, (double)n * (bh + gap)};
    vk_scale_t x = {0};
    x.d0 = 0;
    x.d1 = hi > 0 ? hi * 1.05 : 1;
    x.r0 = b.x;
    x.r1 = b.x + b.w;
    char title[96];
    snprintf(title, sizeof title, "%s: median time per phase", op);
    svg_open(out, "phases", W, H, title);
    fputs("<g data-op=\"", out);
    esc(out, op);
    fputs("\">\n", out);
    svg_text(out, "chart-title", 10, 16, "start", title);
    double lx = 10;
    for (int p = 0; p < VK_PH_COUNT; p++) {
        fprintf(out, "<rect x=\"%.1f\" y=\"28\" width=\"14\" height=\"14\" fill=\"%s\"/>", lx,
                phase_colours[p]);
        svg_text(out, "legend-text", lx + 19, 40, "start", phase_titles[p]);
        lx += 34 + 7.5 * (double)strlen(phase_titles[p]);
    }
    fprintf(out, "<line x1=\"%.1f\" y1=\"27\" x2=\"%.1f\" y2=\"43\" stroke=\"#000\""
                 " stroke-width=\"2\"/>",
            lx + 6, lx + 6);
    svg_text(out, "legend-text", lx + 14, 40, "start", "median of the whole request");
    /* x axis only: the bars are labelled on the left */
    double t[16];
    size_t nt = vk_scale_ticks(&x, t, 8);
    for (size_t i = 0; i < nt; i++) {
        char lab[32];
        double px = vk_scale_map(&x, t[i]);
        vk_fmt_duration(lab, sizeof lab, t[i]);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
                px, b.y - 4, px, b.y + b.h);
        svg_text(out, "tick", px, b.y + b.h + 16, "middle", lab);
    }
    svg_text(out, "axis-title", b.x + b.w / 2, b.y + b.h + 36, "middle",
             "median duration (linear)");
    for (size_t k = 0; k < n; k++) {
        const vk_group_t *g = bars[k];
        const char *site = site_of_group(g);
        double top = b.y + (double)k * (bh + gap) + gap / 2;
        char name[VK_CD_NAME_MAX + VC_NAME_MAX + VC_LABEL_MAX + 16], pn[32];
        if (points)
            snprintf(name, sizeof name, "%s · %s", site,
                     point_name(g->label, g->scale, pn, sizeof pn));
        else
            snprintf(name, sizeof name, "%s", site);
        if (strcmp(site, g->agent) != 0 && strlen(name) < 40)
            snprintf(name + strlen(name), sizeof name - strlen(name), " (%s)", g->agent);
        fputs("<g class=\"bar\" data-site=\"", out);
        esc(out, site);
        fputs("\" data-agent=\"", out);
        esc(out, g->agent);
        fputs("\" data-op=\"", out);
        esc(out, g->op);
        fprintf(out, "\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"%.1f\" fill=\"%s\"/>",
                b.x - 16, top + 4, bh - 8, colour_of(cd, site));
        fprintf(out, "<text class=\"legend-text\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                b.x - 22, top + bh / 2 + 4);
        esc(out, name);
        fputs("</text>\n", out);
        double at = 0;
        for (int p = 0; p < VK_PH_COUNT; p++) {
            double v = g->phase_p50_ns[p];
            if (isnan(v) || v <= 0)
                continue;
            double x0 = vk_scale_map(&x, at), x1 = vk_scale_map(&x, at + v);
            char d[32];
            vk_fmt_duration(d, sizeof d, v);
            fprintf(out, "<rect class=\"phase phase-%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\""
                         " height=\"%.1f\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\">"
                         "<title>%s: %s (median of %zu)</title></rect>",
                    vk_phase_name((vk_phase_t)p), x0, top, x1 - x0, bh, phase_colours[p],
                    phase_titles[p], d, g->phase_n[p]);
            at += v;
        }
        char d50[32];
        vk_fmt_duration(d50, sizeof d50, g->dur.p50);
        double px = vk_scale_map(&x, g->dur.p50);
        fprintf(out, "<line class=\"p50\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                     " stroke=\"#000\" stroke-width=\"2\"/>",
                px, top - 2, px, top + bh + 2);
        fprintf(out, "<text class=\"legend-text\" x=\"%.1f\" y=\"%.1f\">%s</text>\n</g>\n",
                fmax(px, vk_scale_map(&x, at)) + 6, top + bh / 2 + 4, d50);
    }
    fputs("</g>\n</svg>\n", out);
}

static void charts_phases(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd)
{
    int any = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        if (!has_phases(g) || !phases_shown(g->op))
            continue;
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(s->groups[k].op, g->op) == 0 && has_phases(&s->groups[k]);
        if (seen)
            continue;
        if (!any)
            fputs("<section id=\"phases\">\n<h2>Where the time goes</h2>\n"
                  "<p class=\"note\">Per site, the median of each phase of a request over the"
                  " successful requests that report it: DNS lookup, TCP connect, TLS"
                  " handshake, first byte (request sent to the first byte of the answer: the"
                  " server's time plus one round trip) and transfer (first byte to the end)."
                  " Medians of phases need not add up to the median of the whole request,"
                  " which the black mark shows. Reused connections have no DNS, connect or"
                  " TLS phase. Listings are left out: they are many requests, one per"
                  " page.</p>\n<div class=\"charts\">\n",
                  out);
        any = 1;
        chart_phases(out, s, cd, g->op);
    }
    if (any)
        fputs("</div>\n</section>\n", out);
}

/* ---- time series ---------------------------------------------------------------- */

static void chart_timeseries(FILE *out, const vk_chartdata_t *cd)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t panels = 0;
    for (size_t i = 0; i < cd->nsites; i++) {
        const vk_cd_site_t *s = &cd->sites[i];
        panels += s->npt > 0;
        for (size_t k = 0; k < s->npt; k++)
            if (s->pt[k].dur_ns > 0) {
                lo = fmin(lo, (double)s->pt[k].dur_ns);
                hi = fmax(hi, (double)s->pt[k].dur_ns);
            }
    }
    if (!panels)
        return;
    fputs("<section id=\"timeseries\">\n<h2>Samples over the run</h2>\n"
          "<p class=\"note\">Every request by its start time on the coordinator's clock (each"
          " agent's clock offset removed) and its latency (log scale), one panel per site on"
          " a shared time axis: a burst of slow requests or failures at one moment shows as"
          " a vertical streak. &#215; marks a failed request (at the top when it has no"
          " duration). A site with more than 2,000 samples shows, per time slice, its fastest"
          " and slowest successful request and its first failure.</p>\n",
          out);
    const double W = 1240, ph = 150, gap = 34, ml = 78, mr = 20, mt = 30, mb = 50;
    double H = mt + (double)panels * (ph + gap) + mb - gap;
    svg_open(out, "timeseries", W, H, "latency of each request over the run, per site");
    vk_scale_t x = {0}, y = {0};
    double span = (double)(cd->t_max - cd->t_min) / 1e9;
    vk_scale_domain(&x, 0, span > 0 ? span : 1, 0);
    x.d0 = 0;
    x.time = 1;
    vk_scale_domain(&y, lo, hi, 1);
    size_t k = 0;
    for (size_t i = 0; i < cd->nsites; i++) {
        const vk_cd_site_t *s = &cd->sites[i];
        if (!s->npt)
            continue;
        vk_box_t b = {ml, mt + (double)k * (ph + gap), W - ml - mr, ph};
        x.r0 = b.x;
        x.r1 = b.x + b.w;
        y.r0 = b.y + b.h;
        y.r1 = b.y;
        const char *col = vk_svg_colour(i);
        fputs("<g class=\"panel\" data-site=\"", out);
        esc(out, s->name);
        fputs("\">\n", out);
        char note[200];
        snprintf(note, sizeof note, "%zu requests, %zu failed%s", s->n, s->failed,
                 s->downsampled ? " (downsampled: fastest, slowest and first failure per"
                                  " time slice)"
                                : "");
        fprintf(out, "<text class=\"chart-title\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", b.x,
                b.y - 8, col);
        esc(out, s->name);
        fprintf(out, "</text><text class=\"panel-note\" x=\"%.1f\" y=\"%.1f\""
                     " text-anchor=\"end\">%s</text>\n",
                b.x + b.w, b.y - 8, note);
        vk_svg_axes(out, &b, &x, vk_fmt_elapsed,
                    k + 1 == panels ? "time since the first request" : "", &y, vk_fmt_duration,
                    "latency");
        /* dots as zero-length round-capped strokes: a few bytes each */
        fputs("<path class=\"points\" data-site=\"", out);
        esc(out, s->name);
        fprintf(out, "\" fill=\"none\" stroke=\"%s\" stroke-opacity=\"0.6\" stroke-width=\"3.6\""
                     " stroke-linecap=\"round\" d=\"",
                col);
        for (size_t p = 0; p < s->npt; p++) {
            const vk_ts_pt_t *t = &s->pt[p];
            if (t->failed)
                continue;
            fprintf(out, "M%.1f %.1fh0", vk_scale_map(&x, (double)(t->t_ns - cd->t_min) / 1e9),
                    vk_scale_map(&y, (double)t->dur_ns));
        }
        fputs("\"/>\n<path class=\"errors\" data-site=\"", out);
        esc(out, s->name);
        fputs("\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.3\" d=\"", out);
        for (size_t p = 0; p < s->npt; p++) {
            const vk_ts_pt_t *t = &s->pt[p];
            if (!t->failed)
                continue;
            double px = vk_scale_map(&x, (double)(t->t_ns - cd->t_min) / 1e9);
            double py = t->dur_ns > 0 ? vk_scale_map(&y, (double)t->dur_ns) : b.y + 4;
            fprintf(out, "M%.1f %.1fl6 6m0 -6l-6 6", px - 3, py - 3);
        }
        fputs("\"/>\n</g>\n", out);
        k++;
    }
    fputs("</svg>\n</section>\n", out);
}

/* ---- tables ---------------------------------------------------------------------- */

static void table_compare(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd,
                          const char *job)
{
    size_t agents[64], na = 0;
    for (size_t i = 0; i < s->njobs && na < 64; i++)
        if (strcmp(s->jobs[i].job, job) == 0)
            agents[na++] = i;
    if (!na)
        return;
    fputs("<h3>Job ", out);
    esc(out, job);
    fputs("</h3>\n<div class=\"scroll\"><table class=\"compare\">\n<tr><th class=\"t\""
          " rowspan=\"2\">op</th><th class=\"t\" rowspan=\"2\">point</th>",
          out);
    for (size_t a = 0; a < na; a++) {
        const vk_job_info_t *j = &s->jobs[agents[a]];
        const char *site = j->site[0] ? j->site : j->agent;
        fprintf(out, "<th colspan=\"6\" class=\"t\"><span class=\"swatch\" style=\"background:"
                     "%s\"></span>",
                colour_of(cd, site));
        esc(out, j->agent);
        fputs(" @ ", out);
        esc(out, j->site[0] ? j->site : "-");
        fputs("</th>", out);
    }
    fputs("</tr>\n<tr>", out);
    for (size_t a = 0; a < na; a++)
        fputs("<th>p50 ms</th><th>p95 ms</th><th>mean ms</th><th>n</th><th>err</th>"
              "<th>ratio</th>",
              out);
    fputs("</tr>\n", out);
    for (size_t i = 0; i < s->ngroups;) {
        const vk_group_t *g0 = &s->groups[i];
        size_t k = i;
        while (k < s->ngroups && strcmp(s->groups[k].job, g0->job) == 0 &&
               strcmp(s->groups[k].op, g0->op) == 0 && s->groups[k].scale == g0->scale &&
               strcmp(s->groups[k].label, g0->label) == 0)
            k++;
        if (strcmp(g0->job, job) == 0) {
            char pn[32];
            fputs("<tr>", out);
            td_text(out, g0->op);
            td_text(out, point_name(g0->label, g0->scale, pn, sizeof pn));
            for (size_t a = 0; a < na; a++) {
                const vk_group_t *m = NULL;
                for (size_t q = i; q < k; q++)
                    if (s->groups[q].job_index == agents[a])
                        m = &s->groups[q];
                if (!m) {
                    fputs("<td></td><td></td><td></td><td></td><td></td><td></td>", out);
                    continue;
                }
                if (m->ok && m->fastest)
                    fprintf(out, "<td class=\"fastest\">%.2f</td>", m->dur.p50 / 1e6);
                else
                    td_ms(out, m->ok ? m->dur.p50 : NAN, 2, 0);
                td_ms(out, m->ok ? m->dur.p95 : NAN, 2, m->ok && m->p95_too_small);
                td_ms(out, m->ok ? m->dur.mean : NAN, 2, 0);
                fprintf(out, "<td>%zu</td><td%s>%zu</td>", m->ok,
                        m->errors ? " class=\"err\"" : "", m->errors);
                double r = m->ratio_to_fastest;
                if (isnan(r))
                    fputs("<td>-</td>", out);
                else
                    fprintf(out, "<td%s>%.2fx</td>",
                            r >= 2 ? " class=\"r2\"" : r >= 1.25 ? " class=\"r1\"" : "", r);
            }
            fputs("</tr>\n", out);
        }
        i = k;
    }
    fputs("</table></div>\n", out);
}

static void tables_compare(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd)
{
    fputs("<section id=\"compare\">\n<h2>Cross-site comparison</h2>\n"
          "<p class=\"note\">Per job, op and scale point, each site's median (p50), p95"
          " (interpolated; * = too few samples for a p95), mean, successful samples n and"
          " errors; ratio = this site's p50 / the fastest site's p50 (bold: the fastest;"
          " shaded: 1.25x and 2x slower or more). Milliseconds.</p>\n",
          out);
    for (size_t j = 0; j < s->njobs; j++)
        if (j == 0 || strcmp(s->jobs[j].job, s->jobs[j - 1].job) != 0)
            table_compare(out, s, cd, s->jobs[j].job);
    fputs("</section>\n", out);
}

/* What a text renderer wrote into tmp, as escaped preformatted text; a
 * block of more than PRE_OPEN_LINES lines (s3bench's per-iteration rows)
 * is folded under its first line. */
#define PRE_OPEN_LINES 40

static vc_status_t pre_from(FILE *out, FILE *tmp)
{
    long n = ftell(tmp);
    if (n <= 0)
        return VC_OK;
    char *buf = malloc((size_t)n + 1);
    if (!buf)
        return VC_ERR_NOMEM;
    rewind(tmp);
    size_t got = fread(buf, 1, (size_t)n, tmp);
    buf[got] = '\0';
    while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
        buf[--got] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < got; i++)
        lines += buf[i] == '\n';
    if (lines > PRE_OPEN_LINES) {
        size_t first = strcspn(buf, "\n");
        buf[first] = '\0';
        fputs("<details class=\"seed\"><summary>", out);
        esc(out, buf);
        fprintf(out, " (%zu lines)</summary>\n<pre>", lines);
        esc(out, buf + first + 1);
        fputs("</pre></details>\n", out);
    } else {
        fputs("<pre>", out);
        esc(out, buf);
        fputs("</pre>\n", out);
    }
    free(buf);
    return VC_OK;
}

static vc_status_t seed_tables(FILE *out, const vk_summary_t *s)
{
    int header = 0;
    for (size_t t = 0; t < s->nnbi + s->njobs; t++) {
        FILE *tmp = tmpfile();
        if (!tmp)
            return VC_ERR_IO;
        if (t < s->nnbi)
            vk_report_text_nbi(s, &s->nbi[t], tmp);
        else
            vk_report_text_s3bench(s, t - s->nnbi, tmp);
        if (ftell(tmp) > 0) {
            if (!header)
                fputs("<section id=\"seed-tables\">\n<h2>The seed benchmarks' tables</h2>\n"
                      "<p class=\"note\">Column for column as the original programs print them"
                      " (NBI latency-vs-scale: integer ms, p95/p99 by nearest rank; s3bench:"
                      " Ruby Benchmark.bm seconds). Long blocks are folded: click to open.</p>\n",
                      out);
            header = 1;
        }
        vc_status_t rc = ferror(tmp) ? VC_ERR_IO : pre_from(out, tmp);
        fclose(tmp);
        if (rc)
            return rc;
    }
    if (header)
        fputs("</section>\n", out);
    return VC_OK;
}

static void group_names(FILE *out, const vk_group_t *g)
{
    char pn[32];
    td_text(out, g->job);
    td_text(out, g->agent);
    td_text(out, g->site);
    td_text(out, g->op);
    td_text(out, point_name(g->label, g->scale, pn, sizeof pn));
}

static void table_detailed(FILE *out, const vk_summary_t *s)
{
    fputs("<section id=\"statistics\">\n<h2>Detailed statistics</h2>\n"
          "<p class=\"note\">Milliseconds over the successful samples of each (job, agent, op,"
          " point): percentiles interpolated (type 7), the 95% confidence interval of the"
          " median from order statistics (none under 6 samples), * = too few samples for"
          " that percentile (it is then the maximum). sat = samples the agent flagged as"
          " saturated (behind schedule or CPU-bound).</p>\n<div class=\"scroll\">"
          "<table class=\"statistics\">\n<tr><th class=\"t\">job</th><th class=\"t\">agent</th>"
          "<th class=\"t\">site</th><th class=\"t\">op</th><th class=\"t\">point</th><th>n</th>"
          "<th>err</th><th>sat</th><th>min</th><th>p50</th><th>ci95 lo</th><th>ci95 hi</th>"
          "<th>p90</th><th>p95</th><th>p99</th><th>max</th><th>mean</th><th>sd</th></tr>\n",
          out);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        const vc_stats_summary_t *d = &g->dur;
        fputs("<tr>", out);
        group_names(out, g);
        fprintf(out, "<td>%zu</td><td%s>%zu</td><td>%zu</td>", g->ok,
                g->errors ? " class=\"err\"" : "", g->errors, g->saturated);
        td_ms(out, d->min, 3, 0);
        td_ms(out, d->p50, 3, 0);
        td_ms(out, d->ci_ok ? d->ci_lo : NAN, 3, 0);
        td_ms(out, d->ci_ok ? d->ci_hi : NAN, 3, 0);
        td_ms(out, d->p90, 3, 0);
        td_ms(out, d->p95, 3, g->ok && g->p95_too_small);
        td_ms(out, d->p99, 3, g->ok && g->p99_too_small);
        td_ms(out, d->max, 3, 0);
        td_ms(out, d->mean, 3, 0);
        td_ms(out, d->sd, 3, 0);
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n</section>\n", out);
}

static void table_errors(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd)
{
    fputs("<section id=\"errors\">\n<h2>Errors by class</h2>\n", out);
    size_t total = 0;
    for (size_t i = 0; i < s->ngroups; i++)
        total += s->groups[i].errors;
    if (!total) {
        fputs("<p>No request failed.</p>\n</section>\n", out);
        return;
    }
    fputs("<p class=\"note\">Failed requests per site and op, by class, with the first error"
          " seen. Failed requests are in no latency statistic.</p>\n<div class=\"scroll\">"
          "<table class=\"errors\">\n<tr><th class=\"t\">site</th><th class=\"t\">op</th>"
          "<th>requests</th><th>failed</th>",
          out);
    for (int c = 1; c < VC_EC_COUNT; c++)
        fprintf(out, "<th>%s</th>", vc_errclass_name((vc_errclass_t)c));
    fputs("<th class=\"t\">first error</th></tr>\n", out);
    /* pooled per (site, op): counts add up, nothing else is combined */
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        const char *site = site_of_group(g);
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(site_of_group(&s->groups[k]), site) == 0 &&
                   strcmp(s->groups[k].op, g->op) == 0;
        if (seen)
            continue;
        size_t req = 0, failed = 0, by[VC_EC_COUNT] = {0};
        const char *first = NULL;
        for (size_t k = i; k < s->ngroups; k++) {
            const vk_group_t *h = &s->groups[k];
            if (strcmp(site_of_group(h), site) != 0 || strcmp(h->op, g->op) != 0)
                continue;
            req += h->total;
            failed += h->errors;
            for (int c = 0; c < VC_EC_COUNT; c++)
                by[c] += h->err_by_class[c];
            if (!first && h->first_error[0])
                first = h->first_error;
        }
        if (!failed)
            continue;
        fprintf(out, "<tr><td class=\"t\"><span class=\"swatch\" style=\"background:%s\">"
                     "</span>",
                colour_of(cd, site));
        esc(out, site);
        fputs("</td>", out);
        td_text(out, g->op);
        fprintf(out, "<td>%zu</td><td class=\"err\">%zu</td>", req, failed);
        for (int c = 1; c < VC_EC_COUNT; c++)
            fprintf(out, "<td>%zu</td>", by[c]);
        td_text(out, first);
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n</section>\n", out);
}

/* The host facts: a JSON object's members, values as compact JSON. */
static void host_facts(FILE *out, const char *text)
{
    json_error_t jerr;
    json_t *o = text ? json_loads(text, 0, &jerr) : NULL;
    if (!json_is_object(o)) {
        esc(out, text ? "(not a JSON object)" : "-");
        json_decref(o);
        return;
    }
    const char *key;
    json_t *v;
    size_t shown = 0;
    fputs("<dl class=\"kv\">", out);
    json_object_foreach(o, key, v)
    {
        if (shown++ == 40) {
            fputs("<dt>...</dt><dd>(more facts in the store)</dd>", out);
            break;
        }
        char *val = json_is_string(v) ? strdup(json_string_value(v))
                                       : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        char k[128];
        snprintf(k, sizeof k, "%s", key);
        vk_text_scrub(k);
        if (val) {
            if (strlen(val) > 300)
                strcpy(val + 296, "...");
            vk_text_scrub(val);
        }
        fputs("<dt>", out);
        esc(out, k);
        fputs("</dt><dd>", out);
        esc(out, val ? val : "?");
        fputs("</dd>", out);
        free(val);
    }
    fputs("</dl>", out);
    json_decref(o);
}

static void facts(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd)
{
    fputs("<section id=\"facts\">\n<h2>Campaign facts</h2>\n<h3>Jobs</h3>\n"
          "<div class=\"scroll\"><table class=\"jobs\">\n<tr><th class=\"t\">job</th>"
          "<th class=\"t\">agent</th><th class=\"t\">site</th><th class=\"t\">workload</th>"
          "<th class=\"t\">target</th><th class=\"t\">status</th><th>received</th>"
          "<th>expected</th><th>duplicates</th><th>errors</th><th class=\"t\">error</th></tr>\n",
          out);
    for (size_t i = 0; i < s->njobs; i++) {
        const vk_job_info_t *j = &s->jobs[i];
        fputs("<tr>", out);
        td_text(out, j->job);
        td_text(out, j->agent);
        td_text(out, j->site);
        td_text(out, j->workload);
        td_text(out, j->target);
        td_text(out, j->status);
        fprintf(out, "<td>%lld</td>", (long long)j->received);
        if (j->expected >= 0)
            fprintf(out, "<td%s>%lld</td>", j->received < j->expected ? " class=\"err\"" : "",
                    (long long)j->expected);
        else
            fputs("<td>-</td>", out);
        fprintf(out, "<td>%lld</td><td>%lld</td>", (long long)j->duplicates,
                (long long)j->errors);
        td_text(out, j->error_text);
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n<h3>Agents</h3>\n<p class=\"note\">Clock offset = the agent's clock"
          " minus the coordinator's, estimated from heartbeats (NTP-style), with its error"
          " bound; sample start times in this report have it removed.</p>\n"
          "<div class=\"scroll\"><table class=\"agents\">\n<tr><th class=\"t\">agent</th>"
          "<th class=\"t\">site</th><th>clock offset</th><th>error bound</th><th>round trip</th>"
          "<th>estimates</th><th>offset range</th><th class=\"t\">host facts</th></tr>\n",
          out);
    for (size_t i = 0; i < cd->nagents; i++) {
        const vk_cd_agent_t *a = &cd->agents[i];
        char b[3][32];
        fprintf(out, "<tr><td class=\"t\"><span class=\"swatch\" style=\"background:%s\">"
                     "</span>",
                colour_of(cd, a->site[0] ? a->site : a->name));
        esc(out, a->name);
        fputs("</td>", out);
        td_text(out, a->site);
        if (a->noffsets) {
            vk_fmt_duration(b[0], sizeof b[0], (double)a->offset_ns);
            vk_fmt_duration(b[1], sizeof b[1], (double)a->error_ns);
            vk_fmt_duration(b[2], sizeof b[2], (double)a->rtt_ns);
            fprintf(out, "<td>%s</td><td>&#177; %s</td><td>%s</td><td>%zu</td>", b[0],
                    a->error_ns >= 0 ? b[1] : "-", a->rtt_ns >= 0 ? b[2] : "-", a->noffsets);
            vk_fmt_duration(b[0], sizeof b[0], (double)a->min_offset_ns);
            vk_fmt_duration(b[1], sizeof b[1], (double)a->max_offset_ns);
            fprintf(out, "<td>%s .. %s</td>", b[0], b[1]);
        } else {
            fputs("<td>-</td><td>-</td><td>-</td><td>0</td><td>-</td>", out);
        }
        fputs("<td class=\"t\">", out);
        host_facts(out, a->host_facts);
        fputs("</td></tr>\n", out);
    }
    fputs("</table></div>\n", out);

    /* the measurement floor, when the agents calibrated */
    int any = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        if (!is_calibration(g->op))
            continue;
        if (!any)
            fputs("<h3>Calibration floor</h3>\n<p class=\"note\">What the agent measures when"
                  " there is nothing to measure: calibrate-timer is the clock (getres: its"
                  " resolution, now-cost: one reading, now-step: the smallest step, cpu-cost:"
                  " one CPU-time reading), calibrate-request a request to a server inside the"
                  " agent on 127.0.0.1 (s3-head signed, http-get bare, s3-get-loop signed with"
                  " 8 connections on one loop thread). Latencies near these"
                  " values are at the instrument's floor.</p>\n"
                  "<table class=\"calibration\">\n<tr><th class=\"t\">agent</th>"
                  "<th class=\"t\">site</th><th class=\"t\">op</th><th class=\"t\">what</th>"
                  "<th>n</th><th>min</th><th>p50</th><th>p95</th><th>max</th></tr>\n",
                  out);
        any = 1;
        fputs("<tr>", out);
        td_text(out, g->agent);
        td_text(out, g->site);
        td_text(out, g->op);
        td_text(out, g->label);
        fprintf(out, "<td>%zu</td>", g->ok);
        double v[4] = {g->dur.min, g->dur.p50, g->dur.p95, g->dur.max};
        for (int k = 0; k < 4; k++) {
            char d[32];
            vk_fmt_duration(d, sizeof d, v[k]);
            fprintf(out, "<td>%s%s</td>", d, k == 2 && g->ok && g->p95_too_small ? "*" : "");
        }
        fputs("</tr>\n", out);
    }
    if (any)
        fputs("</table>\n", out);

    size_t sat = 0;
    for (size_t i = 0; i < s->ngroups; i++)
        sat += s->groups[i].saturated;
    fputs("<h3>Saturated samples</h3>\n", out);
    if (!sat) {
        fputs("<p>No sample was flagged saturated: the agents kept their schedule and were"
              " not CPU-bound.</p>\n",
              out);
    } else {
        fprintf(out, "<p class=\"note\">%zu samples were flagged saturated (the agent was"
                     " behind schedule or CPU-bound): their latency may be the agent's, not the"
                     " service's.</p>\n<table class=\"saturated\">\n<tr><th class=\"t\">job</th>"
                     "<th class=\"t\">agent</th><th class=\"t\">site</th><th class=\"t\">op</th>"
                     "<th class=\"t\">point</th><th>saturated</th><th>of</th></tr>\n",
                sat);
        for (size_t i = 0; i < s->ngroups; i++) {
            const vk_group_t *g = &s->groups[i];
            if (!g->saturated)
                continue;
            fputs("<tr>", out);
            group_names(out, g);
            fprintf(out, "<td>%zu</td><td>%zu</td></tr>\n", g->saturated, g->total);
        }
        fputs("</table>\n", out);
    }
    if (s->campaign.config[0]) {
        fputs("<details><summary>Campaign configuration as run</summary>\n<pre>", out);
        esc(out, s->campaign.config);
        fputs("</pre></details>\n", out);
    }
    fputs("</section>\n", out);
}

/* ---- the page ---------------------------------------------------------------------- */

static void header(FILE *out, const vk_summary_t *s, const vk_chartdata_t *cd)
{
    char start[40], end[40];
    vk_report_fmt_time(start, sizeof start, s->campaign.start_ns);
    vk_report_fmt_time(end, sizeof end, s->campaign.end_ns);
    const char *name = s->campaign.name[0] ? s->campaign.name : "-";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"vantage\"/>\n<title>vantage report: ",
          out);
    esc(out, name);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>"
                 "vantage report: ",
            css);
    esc(out, name);
    fputs("</h1>\n<div class=\"facts\">", out);
    fprintf(out, "<span><b>from</b> %s</span><span><b>to</b> %s</span>", start, end);
    if (s->campaign.start_ns > 0 && s->campaign.end_ns > s->campaign.start_ns) {
        char d[32];
        vk_fmt_elapsed(d, sizeof d, (double)(s->campaign.end_ns - s->campaign.start_ns) / 1e9);
        fprintf(out, "<span><b>took</b> %s</span>", d);
    }
    size_t samples = 0, failed = 0;
    for (size_t i = 0; i < cd->nsites; i++) {
        samples += cd->sites[i].n;
        failed += cd->sites[i].failed;
    }
    fprintf(out, "<span><b>requests</b> %zu (%zu failed)</span><span><b>sites</b> %zu</span>"
                 "<span><b>agents</b> %zu</span><span><b>vantage</b> ",
            samples, failed, cd->nsites, cd->nagents);
    esc(out, s->campaign.version[0] ? s->campaign.version : "-");
    fputs("</span></div>\n<div class=\"legend\">", out);
    for (size_t i = 0; i < cd->nsites; i++) {
        fprintf(out, "<span data-site=\"");
        esc(out, cd->sites[i].name);
        fprintf(out, "\"><span class=\"swatch\" style=\"background:%s\"></span>",
                vk_svg_colour(i));
        esc(out, cd->sites[i].name);
        fputs("</span>", out);
    }
    fputs("</div>\n<nav>", out);
    static const char *const toc[][2] = {
        {"latency-vs-scale", "listing vs objects"}, {"cdf", "distributions"},
        {"phases", "phases"},       {"timeseries", "over time"},
        {"compare", "cross-site"},  {"seed-tables", "seed tables"},
        {"statistics", "statistics"}, {"errors", "errors"},
        {"facts", "campaign facts"},
    };
    for (size_t i = 0; i < sizeof toc / sizeof toc[0]; i++)
        fprintf(out, "<a href=\"#%s\">%s</a>", toc[i][0], toc[i][1]);
    fputs("</nav>\n</header>\n", out);
}

vc_status_t vk_report_html(const vk_summary_t *s, const vk_chartdata_t *cd, FILE *out)
{
    header(out, s, cd);
    if (!s->ngroups && !cd->ndists)
        fputs("<p>No samples stored (for the selected agent and job).</p>\n", out);
    chart_latency_vs_scale(out, cd);
    charts_cdf(out, cd);
    charts_phases(out, s, cd);
    chart_timeseries(out, cd);
    if (s->ngroups) {
        tables_compare(out, s, cd);
        vc_status_t rc = seed_tables(out, s);
        if (rc)
            return rc;
        table_detailed(out, s);
        table_errors(out, s, cd);
    }
    facts(out, s, cd);
    fputs("<footer><p class=\"note\">Made by vantage from the raw samples in results.db;"
          " every number is computed from them (docs/report-formats.md).</p></footer>\n"
          "</body>\n</html>\n",
          out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

vc_status_t vk_report_html_store(vk_store_t *st, const vk_filter_t *filter, FILE *out,
                                 char *err, size_t errlen)
{
    vk_chartdata_t *cd = NULL;
    vk_summary_t *sum = NULL;
    vc_status_t rc;
    if ((rc = vk_chartdata_build(st, filter, &cd, err, errlen)) ||
        (rc = vk_summary_build(st, filter, &sum, err, errlen)))
        goto done;
    if ((rc = vk_report_html(sum, cd, out)))
        snprintf(err, errlen, "writing the HTML report failed: %s", vc_strerror(rc));
done:
    vk_summary_destroy(&sum);
    vk_chartdata_destroy(&cd);
    return rc;
}

vc_status_t vk_report_write_html(const char *dir, const char *path, const vk_filter_t *filter,
                                 char *err, size_t errlen)
{
    vk_store_t *st = NULL;
    vc_status_t rc = vk_store_open(dir, VK_STORE_READONLY, &st, err, errlen);
    if (rc)
        return rc;
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= sizeof tmp) {
        snprintf(err, errlen, "report path too long: %s", path);
        vk_store_destroy(&st);
        return VC_ERR_ARG;
    }
    FILE *out = fopen(tmp, "w");
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s (check the directory exists and is"
                              " writable)", tmp, strerror(errno));
        vk_store_destroy(&st);
        return VC_ERR_IO;
    }
    rc = vk_report_html_store(st, filter, out, err, errlen);
    if (fclose(out) != 0 && !rc) {
        snprintf(err, errlen, "writing %s failed: %s", tmp, strerror(errno));
        rc = VC_ERR_IO;
    }
    if (!rc && rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        rc = VC_ERR_IO;
    }
    if (rc)
        unlink(tmp);
    vk_store_destroy(&st);
    return rc;
}
