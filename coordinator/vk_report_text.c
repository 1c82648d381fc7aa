/* vk_report_text: text rendering of a vk_summary_t. */
#include "vk_report_text.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define RULE_WIDTH 122 /* the NBI seed's separator lines */

static void rule(FILE *out, char c, int n)
{
    for (int i = 0; i < n; i++)
        fputc(c, out);
    fputc('\n', out);
}

void vk_report_fmt_time(char *buf, size_t size, int64_t ns)
{
    if (ns <= 0) {
        snprintf(buf, size, "-");
        return;
    }
    time_t t = (time_t)(ns / 1000000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* A value in ms in a field of `width`, or "-" when it is not a number. */
static void put_ms(FILE *out, int width, int prec, double ns)
{
    if (isnan(ns))
        fprintf(out, "%*s", width, "-");
    else
        fprintf(out, "%*.*f", width, prec, ns / 1e6);
}

/* A scale point's name: its label, or the scale, or "-". */
static const char *point_name(const vk_group_t *g, char *buf, size_t size)
{
    if (g->label[0])
        return g->label;
    if (g->scale >= 0)
        snprintf(buf, size, "%lld", (long long)g->scale);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* --- the seeds' tables --------------------------------------------------- */

/* One path's "p50 p95 p99 sd" with the seed's statistics: two spaces before
 * the group, each value right-aligned in 8, integer ms. */
static void nbi_group(FILE *out, const vk_group_t *g)
{
    fputs(" ", out);
    if (!g || !g->ok) {
        for (int i = 0; i < 4; i++)
            fprintf(out, " %8s", "-");
        return;
    }
    double v[4] = {g->dur.p50, g->dur.nr_p95, g->dur.nr_p99, g->dur.sd};
    for (int i = 0; i < 4; i++) {
        if (isnan(v[i]))
            fprintf(out, " %8s", "-");
        else
            fprintf(out, " %8.0f", v[i] / 1e6);
    }
}

void vk_report_text_nbi(const vk_summary_t *s, const vk_nbi_table_t *t, FILE *out)
{
    const vk_job_info_t *j = &s->jobs[t->job_index];
    fprintf(out, "Listing latency vs scale: job %s, agent %s (site %s)\n", j->job, j->agent,
            j->site[0] ? j->site : "-");
    rule(out, '=', RULE_WIDTH);
    fprintf(out, "NBI latency-vs-scale  (%zu runs each)\n", t->runs);
    rule(out, '=', RULE_WIDTH);
    fputs("Objects     Creation           --- Regular (ms) ---                 --- NBI (ms) ---"
          "                   --- S3 Direct (ms) ---          Speedup\n",
          out);
    fputs("                           p50      p95      p99       sd       p50      p95      p99"
          "       sd       p50      p95      p99       sd    (R/N)\n",
          out);
    rule(out, '-', RULE_WIDTH);
    for (size_t r = 0; r < t->nrows; r++) {
        const vk_nbi_row_t *row = &t->rows[r];
        char label[VC_LABEL_MAX + 4];
        snprintf(label, sizeof label, "%3s", row->label);
        if (row->failed) {
            fprintf(out, "%s  ERROR: %s\n", label, row->error);
            continue;
        }
        fprintf(out, "%-9s", label);
        /* Creation is the server's job duration; the client's wait when the
         * server gave none. */
        const vk_group_t *c = row->create;
        double cr = !c || !c->ok ? NAN : c->server.n ? c->server.p50 : c->dur.p50;
        if (isnan(cr))
            fprintf(out, "%10s  ", "-");
        else
            fprintf(out, "%10.0fms", cr / 1e6);
        nbi_group(out, row->regular);
        nbi_group(out, row->nbi);
        nbi_group(out, row->direct);
        if (isnan(row->speedup))
            fprintf(out, "  %6s \n", "-");
        else
            fprintf(out, "  %6.1fx\n", row->speedup);
    }
    rule(out, '=', RULE_WIDTH);
    if (t->runs && vc_stats_too_small(t->runs, 0.95))
        fprintf(out, "(with %zu runs p95 and p99 above are both the maximum: nearest rank, as the "
                     "seed computes them; see the detailed statistics)\n",
                t->runs);
    if (strcmp(j->status, "done") != 0 && j->status[0])
        fprintf(out, "job %s on agent %s: %s%s%s\n", j->job, j->agent, j->status,
                j->error_text[0] ? ": " : "", j->error_text);
    fputc('\n', out);
}

/* Ruby's Benchmark::Tms format "%10.6u %10.6y %10.6t %10.6r" after a label
 * left-justified in 7 (Benchmark.bm(7)). */
static void tms_row(FILE *out, const char *label, double user, double sys, double real)
{
    fprintf(out, "%-7s%10.6f %10.6f %10.6f (%10.6f)\n", label, user, sys, user + sys, real);
}

void vk_report_text_s3bench(const vk_summary_t *s, size_t job_index, FILE *out)
{
    static const char *const ops[] = {"put", "get", "head", "delete"};
    const vk_job_info_t *j = &s->jobs[job_index];
    int header = 0;
    for (size_t o = 0; o < 4; o++) {
        for (size_t gi = 0; gi < s->ngroups; gi++) {
            const vk_group_t *g = &s->groups[gi];
            if (g->job_index != job_index || strcmp(g->op, ops[o]) != 0)
                continue;
            if (!header) {
                fprintf(out, "From %s to %s  (agent %s, job %s)\n\n", j->site[0] ? j->site : "-",
                        j->target[0] ? j->target : "-", j->agent, j->job);
                header = 1;
            }
            fprintf(out, "Benchmark: %s (%zu times)", vk_s3bench_label(g->op), g->total);
            if (g->label[0])
                fprintf(out, "  [%s]", g->label);
            fputc('\n', out);
            fprintf(out, "%-7s      user     system      total        real\n", "");
            if (g->iters_truncated) {
                fprintf(out, "(%zu iterations: per-iteration rows omitted, see --raw)\n",
                        g->total);
            } else {
                for (size_t i = 0; i < g->niters; i++) {
                    const vk_iter_t *it = &g->iters[i];
                    char label[16];
                    snprintf(label, sizeof label, "%d", it->run);
                    if (it->failed)
                        fprintf(out, "%-7sERROR: %s\n", label, it->error);
                    else
                        tms_row(out, label,
                                it->cpu_user_us > 0 ? (double)it->cpu_user_us / 1e6 : 0,
                                it->cpu_sys_us > 0 ? (double)it->cpu_sys_us / 1e6 : 0,
                                (double)it->duration_ns / 1e9);
                }
            }
            tms_row(out, ">total:", g->cpu_user_s, g->cpu_sys_s, g->real_s);
            double n = g->ok ? (double)g->ok : 1;
            tms_row(out, ">avg:", g->cpu_user_s / n, g->cpu_sys_s / n, g->real_s / n);
            if (g->errors)
                fprintf(out, "(%zu of %zu failed and are not in >total: and >avg:, which are "
                             "over %zu)\n",
                        g->errors, g->total, g->ok);
            fputc('\n', out);
        }
    }
}

/* --- cross-site ------------------------------------------------------------ */

#define CS_GROUP_WIDTH 50

static void cs_cells(FILE *out, const vk_group_t *g)
{
    if (!g) {
        fprintf(out, " | %*s", CS_GROUP_WIDTH - 3, "");
        return;
    }
    fputs(" |", out);
    put_ms(out, 9, 2, g->ok ? g->dur.p50 : NAN);
    put_ms(out, 9, 2, g->ok ? g->dur.p95 : NAN);
    fputc(g->ok && g->p95_too_small ? '*' : ' ', out);
    put_ms(out, 9, 2, g->ok ? g->dur.mean : NAN);
    fprintf(out, " %7zu %5zu", g->ok, g->errors);
    if (isnan(g->ratio_to_fastest))
        fprintf(out, " %6s", "-");
    else
        fprintf(out, " %5.2fx", g->ratio_to_fastest);
}

void vk_report_text_compare(const vk_summary_t *s, const char *job, FILE *out)
{
    /* The agents that ran this job, in the summary's (name) order. */
    size_t agents[256], na = 0;
    for (size_t i = 0; i < s->njobs && na < 256; i++)
        if (strcmp(s->jobs[i].job, job) == 0)
            agents[na++] = i;
    if (!na)
        return;
    fprintf(out, "Cross-site comparison: job %s  (ms; p50 = median, p95 interpolated, "
                 "* = too few samples for p95; ratio = p50 / fastest site's p50)\n",
            job);
    fprintf(out, "%-26s", "");
    for (size_t a = 0; a < na; a++) {
        char head[160];
        snprintf(head, sizeof head, "%s @ %s", s->jobs[agents[a]].agent,
                 s->jobs[agents[a]].site[0] ? s->jobs[agents[a]].site : "-");
        fprintf(out, " | %-*.*s", CS_GROUP_WIDTH - 3, CS_GROUP_WIDTH - 3, head);
    }
    fputc('\n', out);
    fprintf(out, "%-14s %-11s", "op", "point");
    for (size_t a = 0; a < na; a++)
        fprintf(out, " | %8s %8s  %8s %7s %5s %6s", "p50", "p95", "mean", "n", "err", "ratio");
    fputc('\n', out);
    for (size_t i = 0; i < s->ngroups;) {
        const vk_group_t *g0 = &s->groups[i];
        size_t k = i;
        while (k < s->ngroups && strcmp(s->groups[k].job, g0->job) == 0 &&
               strcmp(s->groups[k].op, g0->op) == 0 && s->groups[k].scale == g0->scale &&
               strcmp(s->groups[k].label, g0->label) == 0)
            k++;
        if (strcmp(g0->job, job) == 0) {
            char buf[32];
            fprintf(out, "%-14s %-11s", g0->op, point_name(g0, buf, sizeof buf));
            for (size_t a = 0; a < na; a++) {
                const vk_group_t *match = NULL;
                for (size_t m = i; m < k; m++)
                    if (s->groups[m].job_index == agents[a])
                        match = &s->groups[m];
                cs_cells(out, match);
            }
            fputc('\n', out);
        }
        i = k;
    }
    /* The network baseline of the same agents, from whichever job measured it. */
    int any = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        if (!vk_op_is_baseline(g->op) || strcmp(g->job, job) == 0)
            continue;
        int mine = 0;
        for (size_t a = 0; a < na; a++)
            if (strcmp(s->jobs[agents[a]].agent, g->agent) == 0)
                mine = 1;
        if (!mine)
            continue;
        /* print each baseline (job, op) once, with every agent's cell */
        int seen = 0;
        for (size_t p = 0; p < i; p++)
            if (vk_op_is_baseline(s->groups[p].op) && strcmp(s->groups[p].op, g->op) == 0 &&
                strcmp(s->groups[p].job, g->job) == 0)
                seen = 1;
        if (seen)
            continue;
        if (!any)
            fprintf(out, "network baseline:\n");
        any = 1;
        char name[64];
        snprintf(name, sizeof name, "%s (%s)", g->op, g->job);
        fprintf(out, "%-26.26s", name);
        for (size_t a = 0; a < na; a++) {
            const vk_group_t *match = NULL;
            for (size_t m = 0; m < s->ngroups; m++) {
                const vk_group_t *b = &s->groups[m];
                if (strcmp(b->op, g->op) == 0 && strcmp(b->job, g->job) == 0 &&
                    strcmp(b->agent, s->jobs[agents[a]].agent) == 0)
                    match = b;
            }
            cs_cells(out, match);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* --- better statistics ------------------------------------------------------- */

typedef struct {
    int job, agent, site, op, point;
} widths_t;

static int imax(int a, int b)
{
    return a > b ? a : b;
}

static widths_t name_widths(const vk_summary_t *s)
{
    widths_t w = {3, 5, 4, 2, 5};
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        char buf[32];
        w.job = imax(w.job, (int)strlen(g->job));
        w.agent = imax(w.agent, (int)strlen(g->agent));
        w.site = imax(w.site, (int)strlen(g->site));
        w.op = imax(w.op, (int)strlen(g->op));
        w.point = imax(w.point, (int)strlen(point_name(g, buf, sizeof buf)));
    }
    return w;
}

static void names(FILE *out, const widths_t *w, const vk_group_t *g)
{
    char buf[32];
    fprintf(out, "%-*s %-*s %-*s %-*s %-*s", w->job, g->job, w->agent, g->agent, w->site,
            g->site[0] ? g->site : "-", w->op, g->op, w->point, point_name(g, buf, sizeof buf));
}

static void names_header(FILE *out, const widths_t *w)
{
    fprintf(out, "%-*s %-*s %-*s %-*s %-*s", w->job, "job", w->agent, "agent", w->site, "site",
            w->op, "op", w->point, "point");
}

static void detailed(const vk_summary_t *s, FILE *out)
{
    widths_t w = name_widths(s);
    fputs("Detailed statistics  (ms over successful samples; percentiles interpolated "
          "(type 7); 95% CI of the median by order statistics)\n",
          out);
    names_header(out, &w);
    fprintf(out, " %7s %5s %5s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "n", "err",
            "sat", "min", "p50", "ci95-lo", "ci95-hi", "p90", "p95", "p99", "max", "mean", "sd");
    size_t saturated = 0, small = 0, noci = 0;
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        const vc_stats_summary_t *d = &g->dur;
        names(out, &w, g);
        fprintf(out, " %7zu %5zu %5zu", g->ok, g->errors, g->saturated);
        put_ms(out, 11, 3, d->min);
        put_ms(out, 11, 3, d->p50);
        put_ms(out, 11, 3, d->ci_ok ? d->ci_lo : NAN);
        put_ms(out, 11, 3, d->ci_ok ? d->ci_hi : NAN);
        put_ms(out, 11, 3, d->p90);
        put_ms(out, 10, 3, d->p95);
        fputc(g->ok && g->p95_too_small ? '*' : ' ', out);
        put_ms(out, 10, 3, d->p99);
        fputc(g->ok && g->p99_too_small ? '*' : ' ', out);
        put_ms(out, 10, 3, d->max);
        put_ms(out, 11, 3, d->mean);
        put_ms(out, 11, 3, d->sd);
        fputc('\n', out);
        saturated += g->saturated;
        small += g->ok && g->p99_too_small;
        noci += g->ok && !d->ci_ok;
    }
    if (small)
        fprintf(out, "* too few samples for this percentile: it is the sample maximum under "
                     "nearest rank (p95 needs n >= %zu, p99 needs n >= %zu)\n",
                vc_stats_min_n(0.95), vc_stats_min_n(0.99));
    if (noci)
        fprintf(out, "- in ci95: fewer than 6 samples, no 95%% interval for the median exists\n");
    if (saturated)
        fprintf(out, "%zu samples are flagged saturated (the agent was behind schedule or "
                     "CPU-bound): their groups may overstate the service's latency\n",
                saturated);
    fputc('\n', out);
}

static void phases(const vk_summary_t *s, FILE *out)
{
    widths_t w = name_widths(s);
    fputs("Phase breakdown  (median ms of the successful requests that report the phase; "
          "first_byte = request sent to first byte)\n",
          out);
    names_header(out, &w);
    for (int p = 0; p < VK_PH_COUNT; p++)
        fprintf(out, " %11s", vk_phase_name((vk_phase_t)p));
    fputc('\n', out);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        int any = 0;
        for (int p = 0; p < VK_PH_COUNT; p++)
            any |= g->phase_n[p] > 0;
        if (!any)
            continue;
        names(out, &w, g);
        for (int p = 0; p < VK_PH_COUNT; p++) {
            fputc(' ', out);
            put_ms(out, 11, 3, g->phase_p50_ns[p]);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

static void errors(const vk_summary_t *s, FILE *out)
{
    widths_t w = name_widths(s);
    size_t total = 0;
    for (size_t i = 0; i < s->ngroups; i++)
        total += s->groups[i].errors;
    fputs("Errors by class", out);
    if (!total) {
        fputs(": none\n\n", out);
        return;
    }
    fputc('\n', out);
    names_header(out, &w);
    fprintf(out, " %7s", "errors");
    for (int c = 1; c < VC_EC_COUNT; c++)
        fprintf(out, " %*s", imax(5, (int)strlen(vc_errclass_name((vc_errclass_t)c))),
                vc_errclass_name((vc_errclass_t)c));
    fputs("  first error\n", out);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        if (!g->errors)
            continue;
        names(out, &w, g);
        fprintf(out, " %7zu", g->errors);
        for (int c = 1; c < VC_EC_COUNT; c++)
            fprintf(out, " %*zu", imax(5, (int)strlen(vc_errclass_name((vc_errclass_t)c))),
                    g->err_by_class[c]);
        fprintf(out, "  %s\n", g->first_error);
    }
    fputc('\n', out);
}

static void jobs_table(const vk_summary_t *s, FILE *out)
{
    fputs("Jobs\n", out);
    int wj = 3, wa = 5, ws = 4;
    for (size_t i = 0; i < s->njobs; i++) {
        wj = imax(wj, (int)strlen(s->jobs[i].job));
        wa = imax(wa, (int)strlen(s->jobs[i].agent));
        ws = imax(ws, (int)strlen(s->jobs[i].site));
    }
    fprintf(out, "%-*s %-*s %-*s %-9s %9s %9s %6s %7s  %s\n", wj, "job", wa, "agent", ws, "site",
            "status", "received", "expected", "dups", "errors", "error");
    for (size_t i = 0; i < s->njobs; i++) {
        const vk_job_info_t *j = &s->jobs[i];
        char expected[24] = "-";
        if (j->expected >= 0)
            snprintf(expected, sizeof expected, "%lld", (long long)j->expected);
        fprintf(out, "%-*s %-*s %-*s %-9s %9lld %9s %6lld %7lld  %s\n", wj, j->job, wa, j->agent,
                ws, j->site[0] ? j->site : "-", j->status, (long long)j->received, expected,
                (long long)j->duplicates, (long long)j->errors, j->error_text);
        if (j->expected >= 0 && j->received < j->expected)
            fprintf(out, "  ^ %lld samples missing\n", (long long)(j->expected - j->received));
    }
    fputc('\n', out);
}

vc_status_t vk_report_text(const vk_summary_t *s, FILE *out)
{
    char start[40], end[40];
    vk_report_fmt_time(start, sizeof start, s->campaign.start_ns);
    vk_report_fmt_time(end, sizeof end, s->campaign.end_ns);
    fprintf(out, "vantage report: campaign %s (run by vantage %s), %s .. %s\n\n",
            s->campaign.name[0] ? s->campaign.name : "-",
            s->campaign.version[0] ? s->campaign.version : "-", start, end);
    jobs_table(s, out);
    if (!s->ngroups) {
        fputs("no samples stored (for the selected agent and job)\n", out);
        return ferror(out) ? VC_ERR_IO : VC_OK;
    }
    for (size_t t = 0; t < s->nnbi; t++)
        vk_report_text_nbi(s, &s->nbi[t], out);
    for (size_t j = 0; j < s->njobs; j++)
        vk_report_text_s3bench(s, j, out);
    for (size_t j = 0; j < s->njobs; j++)
        if (j == 0 || strcmp(s->jobs[j].job, s->jobs[j - 1].job) != 0)
            vk_report_text_compare(s, s->jobs[j].job, out);
    detailed(s, out);
    phases(s, out);
    errors(s, out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}
