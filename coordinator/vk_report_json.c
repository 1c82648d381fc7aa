/* vk_report_json: JSON rendering of summaries and raw samples. */
#include "vk_report_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "vk_report.h"

/* A number, or null when it is not finite. */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jms(double ns)
{
    return jnum(ns / 1e6);
}

static json_t *stats_ms(const vc_stats_summary_t *d)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "min", jms(d->min), "p50", jms(d->p50), "ci95_lo",
                     jms(d->ci_ok ? d->ci_lo : NAN), "ci95_hi", jms(d->ci_ok ? d->ci_hi : NAN),
                     "ci95_coverage", jnum(d->ci_ok ? d->ci_coverage : NAN), "p90", jms(d->p90),
                     "p95", jms(d->p95), "p99", jms(d->p99), "max", jms(d->max), "mean",
                     jms(d->mean), "sd", jms(d->sd), "seed_p95", jms(d->nr_p95), "seed_p99",
                     jms(d->nr_p99));
}

/* The s3bench per-iteration rows (user, system, real seconds). */
static json_t *iters_json(const vk_group_t *g)
{
    if (!g->niters)
        return json_null();
    json_t *a = json_array();
    for (size_t i = 0; i < g->niters; i++) {
        const vk_iter_t *it = &g->iters[i];
        json_array_append_new(
            a, json_pack("{s:i, s:o, s:o, s:o, s:s?}", "run", it->run, "user_s",
                         it->cpu_user_us >= 0 ? json_real((double)it->cpu_user_us / 1e6)
                                              : json_null(),
                         "sys_s",
                         it->cpu_sys_us >= 0 ? json_real((double)it->cpu_sys_us / 1e6)
                                             : json_null(),
                         "real_s",
                         it->failed ? json_null() : json_real((double)it->duration_ns / 1e9),
                         "error", it->failed ? it->error : NULL));
    }
    return a;
}

static json_t *group_json(const vk_group_t *g)
{
    json_t *phases = json_object(), *ec = json_object();
    for (int p = 0; p < VK_PH_COUNT; p++)
        json_object_set_new(phases, vk_phase_name((vk_phase_t)p), jms(g->phase_p50_ns[p]));
    for (int c = 1; c < VC_EC_COUNT; c++)
        json_object_set_new(ec, vc_errclass_name((vc_errclass_t)c),
                            json_integer((json_int_t)g->err_by_class[c]));
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:b, s:b, s:o, s:b,"
        " s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:s?}",
        "job", g->job, "agent", g->agent, "site", g->site, "op", g->op, "label", g->label,
        "scale", g->scale >= 0 ? json_integer(g->scale) : json_null(), "n", (json_int_t)g->total,
        "ok", (json_int_t)g->ok, "errors", (json_int_t)g->errors, "saturated",
        (json_int_t)g->saturated, "warmup", (json_int_t)g->warmup, "retried",
        (json_int_t)g->retried, "duration_ms", stats_ms(&g->dur), "p95_too_small",
        g->p95_too_small, "p99_too_small", g->p99_too_small, "ratio_to_fastest",
        jnum(g->ratio_to_fastest), "fastest", g->fastest, "server_p50_ms",
        g->server.n ? jms(g->server.p50) : json_null(), "phases_p50_ms", phases, "cpu_user_s",
        jnum(g->cpu_user_s), "cpu_sys_s", jnum(g->cpu_sys_s), "real_s", jnum(g->real_s),
        "bytes_sent", (json_int_t)g->bytes_sent, "bytes_recv", (json_int_t)g->bytes_recv,
        "errors_by_class", ec, "first_error", g->first_error[0] ? g->first_error : NULL);
    if (o) {
        json_object_set_new(o, "iterations", iters_json(g));
        json_object_set_new(o, "iterations_truncated", json_boolean(g->iters_truncated));
    }
    return o;
}

static json_t *seed_path(const vk_group_t *g)
{
    if (!g || !g->ok)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:I}", "p50", jms(g->dur.p50), "p95",
                     jms(g->dur.nr_p95), "p99", jms(g->dur.nr_p99), "sd", jms(g->dur.sd), "n",
                     (json_int_t)g->ok);
}

static json_t *nbi_json(const vk_summary_t *s, const vk_nbi_table_t *t)
{
    json_t *rows = json_array();
    for (size_t r = 0; r < t->nrows; r++) {
        const vk_nbi_row_t *row = &t->rows[r];
        const vk_group_t *c = row->create;
        double cr = !c || !c->ok ? NAN : c->server.n ? c->server.p50 : c->dur.p50;
        json_array_append_new(
            rows, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:s?}", "label", row->label,
                            "scale", (json_int_t)row->scale, "creation_ms", jms(cr), "regular",
                            seed_path(row->regular), "nbi", seed_path(row->nbi), "s3_direct",
                            seed_path(row->direct), "speedup", jnum(row->speedup), "error",
                            row->failed ? row->error : NULL));
    }
    const vk_job_info_t *j = &s->jobs[t->job_index];
    return json_pack("{s:s, s:s, s:s, s:I, s:o}", "job", j->job, "agent", j->agent, "site",
                     j->site, "runs", (json_int_t)t->runs, "rows", rows);
}

json_t *vk_report_json_build(const vk_summary_t *s)
{
    json_t *jobs = json_array(), *groups = json_array(), *nbi = json_array();
    for (size_t i = 0; i < s->njobs; i++) {
        const vk_job_info_t *j = &s->jobs[i];
        json_array_append_new(
            jobs, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:s?}", "job",
                            j->job, "agent", j->agent, "site", j->site, "workload", j->workload,
                            "target", j->target, "status", j->status, "expected",
                            j->expected >= 0 ? json_integer(j->expected) : json_null(),
                            "received", (json_int_t)j->received, "duplicates",
                            (json_int_t)j->duplicates, "errors", (json_int_t)j->errors,
                            "error_text", j->error_text[0] ? j->error_text : NULL));
    }
    for (size_t i = 0; i < s->ngroups; i++)
        json_array_append_new(groups, group_json(&s->groups[i]));
    for (size_t i = 0; i < s->nnbi; i++)
        json_array_append_new(nbi, nbi_json(s, &s->nbi[i]));
    const vk_campaign_info_t *c = &s->campaign;
    return json_pack("{s:s, s:i, s:{s:s, s:o, s:o, s:s}, s:o, s:o, s:o}", "format",
                     "vantage-report", "format_version", 1, "campaign", "name", c->name,
                     "start_ns", c->start_ns ? json_integer(c->start_ns) : json_null(), "end_ns",
                     c->end_ns ? json_integer(c->end_ns) : json_null(), "vantage_version",
                     c->version, "jobs", jobs, "groups", groups, "nbi_tables", nbi);
}

vc_status_t vk_report_json(const vk_summary_t *s, FILE *out)
{
    json_t *root = vk_report_json_build(s);
    if (!root)
        return VC_ERR_NOMEM;
    int r = json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    fputc('\n', out);
    return r || ferror(out) ? VC_ERR_IO : VC_OK;
}

/* A text column as a JSON string; text that is not valid UTF-8 (a message cut
 * inside a character by an agent) is exported scrubbed rather than lost. */
static json_t *text_json(const char *v)
{
    if (!v)
        return json_null();
    json_t *j = json_string(v);
    if (j)
        return j;
    char *copy = strdup(v);
    if (!copy)
        return NULL;
    vk_text_scrub(copy);
    j = json_string(copy);
    free(copy);
    return j;
}

vc_status_t vk_report_json_raw(vk_store_t *st, const vk_filter_t *f, FILE *out)
{
    sqlite3_stmt *q = NULL;
    vc_status_t rc = vk_report_raw_query(st, f, &q);
    if (rc)
        return rc;
    int ncol = sqlite3_column_count(q);
    fputs("{\"columns\": [", out);
    for (int c = 0; c < ncol; c++)
        fprintf(out, "%s\"%s\"", c ? ", " : "", vk_report_raw_columns[c]);
    fputs("],\n\"samples\": [", out);
    int r;
    size_t n = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int c = 0; c < ncol; c++) {
            json_t *v;
            switch (sqlite3_column_type(q, c)) {
            case SQLITE_NULL: v = json_null(); break;
            case SQLITE_INTEGER: v = json_integer(sqlite3_column_int64(q, c)); break;
            case SQLITE_FLOAT: v = json_real(sqlite3_column_double(q, c)); break;
            default: v = text_json((const char *)sqlite3_column_text(q, c));
            }
            json_object_set_new(o, vk_report_raw_columns[c], v ? v : json_null());
        }
        fputs(n++ ? ",\n" : "\n", out);
        json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(o);
    }
    fputs("\n]}\n", out);
    sqlite3_finalize(q);
    if (r != SQLITE_DONE)
        return VC_ERR_IO;
    return ferror(out) ? VC_ERR_IO : VC_OK;
}
