/* vk_report_csv: CSV rendering of summaries and raw samples. */
#include "vk_report_csv.h"

#include <math.h>
#include <string.h>

#include <sqlite3.h>

#include "vk_report.h"

void vk_csv_field(FILE *out, const char *v)
{
    if (!v)
        return;
    if (!strpbrk(v, ",\"\r\n")) {
        fputs(v, out);
        return;
    }
    fputc('"', out);
    for (const char *p = v; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

/* ",<ns as ms>" or "," when unknown. */
static void ms(FILE *out, double ns)
{
    if (isnan(ns) || isinf(ns))
        fputc(',', out);
    else
        fprintf(out, ",%.6f", ns / 1e6);
}

static void num(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputc(',', out);
    else
        fprintf(out, ",%.6f", v);
}

vc_status_t vk_report_csv(const vk_summary_t *s, FILE *out)
{
    fputs("job,agent,site,op,label,scale,n,ok,errors,saturated,warmup,retried,min_ms,p50_ms,"
          "ci95_lo_ms,ci95_hi_ms,p90_ms,p95_ms,p99_ms,max_ms,mean_ms,sd_ms,seed_p95_ms,"
          "seed_p99_ms,p95_too_small,p99_too_small,ratio_to_fastest,server_p50_ms",
          out);
    for (int p = 0; p < VK_PH_COUNT; p++)
        fprintf(out, ",%s_ms", vk_phase_name((vk_phase_t)p));
    fputs(",cpu_user_s,cpu_sys_s,real_s,bytes_sent,bytes_recv", out);
    for (int c = 1; c < VC_EC_COUNT; c++)
        fprintf(out, ",err_%s", vc_errclass_name((vc_errclass_t)c));
    fputs(",first_error\n", out);
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        const vc_stats_summary_t *d = &g->dur;
        vk_csv_field(out, g->job);
        fputc(',', out);
        vk_csv_field(out, g->agent);
        fputc(',', out);
        vk_csv_field(out, g->site);
        fputc(',', out);
        vk_csv_field(out, g->op);
        fputc(',', out);
        vk_csv_field(out, g->label);
        if (g->scale >= 0)
            fprintf(out, ",%lld", (long long)g->scale);
        else
            fputc(',', out);
        fprintf(out, ",%zu,%zu,%zu,%zu,%zu,%zu", g->total, g->ok, g->errors, g->saturated,
                g->warmup, g->retried);
        ms(out, d->min);
        ms(out, d->p50);
        ms(out, d->ci_ok ? d->ci_lo : NAN);
        ms(out, d->ci_ok ? d->ci_hi : NAN);
        ms(out, d->p90);
        ms(out, d->p95);
        ms(out, d->p99);
        ms(out, d->max);
        ms(out, d->mean);
        ms(out, d->sd);
        ms(out, d->nr_p95);
        ms(out, d->nr_p99);
        fprintf(out, ",%d,%d", g->p95_too_small, g->p99_too_small);
        num(out, g->ratio_to_fastest);
        ms(out, g->server.n ? g->server.p50 : NAN);
        for (int p = 0; p < VK_PH_COUNT; p++)
            ms(out, g->phase_p50_ns[p]);
        num(out, g->cpu_user_s);
        num(out, g->cpu_sys_s);
        num(out, g->real_s);
        fprintf(out, ",%lld,%lld", (long long)g->bytes_sent, (long long)g->bytes_recv);
        for (int c = 1; c < VC_EC_COUNT; c++)
            fprintf(out, ",%zu", g->err_by_class[c]);
        fputc(',', out);
        vk_csv_field(out, g->first_error);
        fputc('\n', out);
    }
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

vc_status_t vk_report_csv_raw(vk_store_t *st, const vk_filter_t *f, FILE *out)
{
    sqlite3_stmt *q = NULL;
    vc_status_t rc = vk_report_raw_query(st, f, &q);
    if (rc)
        return rc;
    int ncol = sqlite3_column_count(q);
    for (int c = 0; c < ncol; c++)
        fprintf(out, "%s%s", c ? "," : "", vk_report_raw_columns[c]);
    fputc('\n', out);
    int r;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        for (int c = 0; c < ncol; c++) {
            if (c)
                fputc(',', out);
            switch (sqlite3_column_type(q, c)) {
            case SQLITE_NULL:
                break;
            case SQLITE_INTEGER:
                fprintf(out, "%lld", (long long)sqlite3_column_int64(q, c));
                break;
            default:
                vk_csv_field(out, (const char *)sqlite3_column_text(q, c));
            }
        }
        fputc('\n', out);
    }
    sqlite3_finalize(q);
    if (r != SQLITE_DONE)
        return VC_ERR_IO;
    return ferror(out) ? VC_ERR_IO : VC_OK;
}
