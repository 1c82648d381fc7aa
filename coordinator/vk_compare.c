/* vk_compare: two campaigns' groups side by side. */
#include "vk_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "vk_report_csv.h"

static const char *who(const vk_group_t *g, int by_site)
{
    return by_site ? g->site : g->agent;
}

static int same(const vk_group_t *x, const vk_group_t *y, int by_site)
{
    return x->scale == y->scale && strcmp(x->job, y->job) == 0 &&
           strcmp(who(x, by_site), who(y, by_site)) == 0 && strcmp(x->op, y->op) == 0 &&
           strcmp(x->label, y->label) == 0;
}

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && a > 0 ? b / a : NAN;
}

vc_status_t vk_compare_build(const vk_summary_t *a, const vk_summary_t *b, int by_site,
                             vk_compare_t **out)
{
    *out = NULL;
    vk_compare_t *c = calloc(1, sizeof *c);
    size_t cap = a->ngroups + b->ngroups;
    if (!c || !(c->pairs = calloc(cap ? cap : 1, sizeof *c->pairs))) {
        free(c);
        return VC_ERR_NOMEM;
    }
    c->by_site = by_site;
    char *used = calloc(b->ngroups ? b->ngroups : 1, 1);
    if (!used) {
        vk_compare_destroy(&c);
        return VC_ERR_NOMEM;
    }
    /* Groups are few (hundreds): a quadratic match is simpler than a hash. */
    for (size_t i = 0; i < a->ngroups; i++) {
        vk_compare_pair_t *p = &c->pairs[c->n++];
        p->a = &a->groups[i];
        for (size_t j = 0; j < b->ngroups; j++)
            if (!used[j] && same(p->a, &b->groups[j], by_site)) {
                p->b = &b->groups[j];
                used[j] = 1;
                break;
            }
    }
    for (size_t j = 0; j < b->ngroups; j++)
        if (!used[j])
            c->pairs[c->n++].b = &b->groups[j];
    free(used);
    for (size_t i = 0; i < c->n; i++) {
        vk_compare_pair_t *p = &c->pairs[i];
        p->p50_ratio = p->p95_ratio = p->mean_ratio = NAN;
        if (p->a && p->b && p->a->ok && p->b->ok) {
            p->p50_ratio = ratio(p->a->dur.p50, p->b->dur.p50);
            p->p95_ratio = ratio(p->a->dur.p95, p->b->dur.p95);
            p->mean_ratio = ratio(p->a->dur.mean, p->b->dur.mean);
        }
    }
    *out = c;
    return VC_OK;
}

void vk_compare_destroy(vk_compare_t **p)
{
    if (!p || !*p)
        return;
    free((*p)->pairs);
    free(*p);
    *p = NULL;
}

static const vk_group_t *any(const vk_compare_pair_t *p)
{
    return p->a ? p->a : p->b;
}

static void ms(FILE *out, const vk_group_t *g, double ns)
{
    if (!g || !g->ok || isnan(ns))
        fprintf(out, " %9s", "-");
    else
        fprintf(out, " %9.3f", ns / 1e6);
}

static void rat(FILE *out, double r)
{
    if (isnan(r))
        fprintf(out, " %7s", "-");
    else
        fprintf(out, " %6.2fx", r);
}

vc_status_t vk_compare_text(const vk_compare_t *c, const char *name_a, const char *name_b,
                            FILE *out)
{
    fprintf(out, "vantage compare: A = %s, B = %s\n(ms over successful samples; p50 = median, "
                 "p95 interpolated; B/A above 1 means B is slower; matched by %s)\n\n",
            name_a, name_b, c->by_site ? "site" : "agent");
    int wj = 3, ww = 5, wo = 2, wp = 5;
    for (size_t i = 0; i < c->n; i++) {
        const vk_group_t *g = any(&c->pairs[i]);
        wj = wj > (int)strlen(g->job) ? wj : (int)strlen(g->job);
        ww = ww > (int)strlen(who(g, c->by_site)) ? ww : (int)strlen(who(g, c->by_site));
        wo = wo > (int)strlen(g->op) ? wo : (int)strlen(g->op);
        wp = wp > (int)strlen(g->label) ? wp : (int)strlen(g->label);
    }
    fprintf(out,
            "%-*s %-*s %-*s %-*s | %7s %7s | %9s %9s %7s | %9s %9s %7s | %9s %9s %7s | %5s %5s\n",
            wj, "job", ww, c->by_site ? "site" : "agent", wo, "op", wp, "point", "n A", "n B",
            "p50 A", "p50 B", "B/A", "p95 A", "p95 B", "B/A", "mean A", "mean B", "B/A", "err A",
            "err B");
    for (size_t i = 0; i < c->n; i++) {
        const vk_compare_pair_t *p = &c->pairs[i];
        const vk_group_t *g = any(p);
        char point[32];
        snprintf(point, sizeof point, "%s", g->label[0] ? g->label : "-");
        fprintf(out, "%-*s %-*s %-*s %-*s |", wj, g->job, ww, who(g, c->by_site), wo, g->op, wp,
                point);
        if (p->a)
            fprintf(out, " %7zu", p->a->ok);
        else
            fprintf(out, " %7s", "-");
        if (p->b)
            fprintf(out, " %7zu |", p->b->ok);
        else
            fprintf(out, " %7s |", "-");
        ms(out, p->a, p->a ? p->a->dur.p50 : NAN);
        ms(out, p->b, p->b ? p->b->dur.p50 : NAN);
        rat(out, p->p50_ratio);
        fputs(" |", out);
        ms(out, p->a, p->a ? p->a->dur.p95 : NAN);
        ms(out, p->b, p->b ? p->b->dur.p95 : NAN);
        rat(out, p->p95_ratio);
        fputs(" |", out);
        ms(out, p->a, p->a ? p->a->dur.mean : NAN);
        ms(out, p->b, p->b ? p->b->dur.mean : NAN);
        rat(out, p->mean_ratio);
        fputs(" |", out);
        if (p->a)
            fprintf(out, " %5zu", p->a->errors);
        else
            fprintf(out, " %5s", "-");
        if (p->b)
            fprintf(out, " %5zu", p->b->errors);
        else
            fprintf(out, " %5s", "-");
        if (!p->a || !p->b)
            fprintf(out, "  (only in %s)", p->a ? "A" : "B");
        fputc('\n', out);
    }
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.6f", v);
    else
        fputc(',', out);
}

vc_status_t vk_compare_csv(const vk_compare_t *c, FILE *out)
{
    fprintf(out, "job,%s,op,label,scale,n_a,n_b,p50_a_ms,p50_b_ms,p50_ratio,p95_a_ms,p95_b_ms,"
                 "p95_ratio,mean_a_ms,mean_b_ms,mean_ratio,errors_a,errors_b\n",
            c->by_site ? "site" : "agent");
    for (size_t i = 0; i < c->n; i++) {
        const vk_compare_pair_t *p = &c->pairs[i];
        const vk_group_t *g = any(p);
        vk_csv_field(out, g->job);
        fputc(',', out);
        vk_csv_field(out, who(g, c->by_site));
        fputc(',', out);
        vk_csv_field(out, g->op);
        fputc(',', out);
        vk_csv_field(out, g->label);
        if (g->scale >= 0)
            fprintf(out, ",%lld", (long long)g->scale);
        else
            fputc(',', out);
        if (p->a)
            fprintf(out, ",%zu", p->a->ok);
        else
            fputc(',', out);
        if (p->b)
            fprintf(out, ",%zu", p->b->ok);
        else
            fputc(',', out);
        const vk_group_t *ab[2] = {p->a, p->b};
        double r[3] = {p->p50_ratio, p->p95_ratio, p->mean_ratio};
        for (int k = 0; k < 3; k++) {
            for (int s = 0; s < 2; s++) {
                const vk_group_t *x = ab[s];
                double v = !x || !x->ok ? NAN
                           : k == 0     ? x->dur.p50
                           : k == 1     ? x->dur.p95
                                        : x->dur.mean;
                csv_num(out, v / 1e6);
            }
            csv_num(out, r[k]);
        }
        if (p->a)
            fprintf(out, ",%zu", p->a->errors);
        else
            fputc(',', out);
        if (p->b)
            fprintf(out, ",%zu\n", p->b->errors);
        else
            fputs(",\n", out);
    }
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

static json_t *side(const vk_group_t *g)
{
    if (!g)
        return json_null();
    json_t *o = json_pack("{s:I, s:I}", "n", (json_int_t)g->ok, "errors", (json_int_t)g->errors);
    json_object_set_new(o, "p50_ms", g->ok ? json_real(g->dur.p50 / 1e6) : json_null());
    json_object_set_new(o, "p95_ms", g->ok ? json_real(g->dur.p95 / 1e6) : json_null());
    json_object_set_new(o, "mean_ms", g->ok ? json_real(g->dur.mean / 1e6) : json_null());
    return o;
}

static json_t *jr(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

vc_status_t vk_compare_json(const vk_compare_t *c, const char *name_a, const char *name_b,
                            FILE *out)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const vk_compare_pair_t *p = &c->pairs[i];
        const vk_group_t *g = any(p);
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "job", g->job,
                            c->by_site ? "site" : "agent", who(g, c->by_site), "op", g->op,
                            "label", g->label, "scale",
                            g->scale >= 0 ? json_integer(g->scale) : json_null(), "a",
                            side(p->a), "b", side(p->b), "p50_ratio", jr(p->p50_ratio),
                            "p95_ratio", jr(p->p95_ratio), "mean_ratio", jr(p->mean_ratio)));
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:o}", "format", "vantage-compare", "a", name_a,
                             "b", name_b, "rows", rows);
    int r = root ? json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : -1;
    json_decref(root);
    fputc('\n', out);
    return r || ferror(out) ? VC_ERR_IO : VC_OK;
}
