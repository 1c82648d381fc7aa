/* Tests of the report: a store built from a known sample set, and every
 * number of the seed tables, the cross-site ratios and the CSV/JSON exports
 * checked against values this file computes on its own (nearest rank, sd,
 * speedup, s3bench sums), parsed back from the rendered output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "vc_job_json.h"
#include "vc_sample.h"
#include "vk_cmd.h"
#include "vk_compare.h"
#include "vk_report.h"
#include "vk_report_csv.h"
#include "vk_report_json.h"
#include "vk_report_text.h"
#include "vk_store.h"
#include "vk_summary.h"

/* ---- the known data set -------------------------------------------------- */

#define MAXN 64

/* One (agent, job, op, point) as the test knows it. */
typedef struct {
    const char *agent, *job, *op, *label;
    int64_t scale;
    int n;
    int64_t dur_ns[MAXN];
    int64_t cpu_user_us[MAXN], cpu_sys_us[MAXN];
    int fail_at; /* run index of a failed sample, -1 none */
} series_t;

static const char *const paths[3] = {"ais-regular", "ais-nbi", "s3-direct"};

/* Durations: whole ms + 0.25 ms, spread so nothing rounds on a tie. */
static void fill_series(series_t *s, const char *agent, const char *job, const char *op,
                        const char *label, int64_t scale, int n, double base_ms, double step_ms,
                        int salt)
{
    memset(s, 0, sizeof *s);
    s->agent = agent;
    s->job = job;
    s->op = op;
    s->label = label;
    s->scale = scale;
    s->n = n;
    s->fail_at = -1;
    for (int r = 0; r < n; r++) {
        int k = (r * 37 + salt * 11) % 29;
        double ms = base_ms + k * step_ms + (r == 7 ? 9 * step_ms * 5 : 0) + 0.25;
        s->dur_ns[r] = (int64_t)llround(ms * 1e6);
        s->cpu_user_us[r] = 10000 + 1000 * ((r * 7 + salt) % 5); /* 0.01 .. 0.05 s */
        s->cpu_sys_us[r] = 20000 + 10000 * ((r * 3 + salt) % 4);
    }
}

static series_t series[40];
static int nseries;

static series_t *add_series(void)
{
    assert_true(nseries < (int)(sizeof series / sizeof series[0]));
    return &series[nseries++];
}

static void build_dataset(void)
{
    nseries = 0;
    /* ec2: list-scale 1K with 20 runs, 2K with 25 runs, 5K whose creation fails */
    for (int p = 0; p < 3; p++) {
        fill_series(add_series(), "ec2", "list", paths[p], "1K", 1000, 20,
                    p == 1 ? 20 : 170 + 80 * p, p == 1 ? 3 : 11, p);
        fill_series(add_series(), "ec2", "list", paths[p], "2K", 2000, 25,
                    p == 1 ? 30 : 320 + 200 * p, p == 1 ? 4 : 13, p + 3);
    }
    series_t *c = add_series();
    fill_series(c, "ec2", "list", "nbi-create", "1K", 1000, 1, 400, 0, 0);
    c = add_series();
    fill_series(c, "ec2", "list", "nbi-create", "2K", 2000, 1, 500, 0, 0);
    c = add_series();
    fill_series(c, "ec2", "list", "nbi-create", "5K", 5000, 1, 900, 0, 0);
    c->fail_at = 0;
    /* fiber: the same job at 1K only, slower */
    fill_series(add_series(), "fiber", "list", "nbi-create", "1K", 1000, 1, 650, 0, 0);
    for (int p = 0; p < 3; p++)
        fill_series(add_series(), "fiber", "list", paths[p], "1K", 1000, 20,
                    p == 1 ? 31 : 260 + 90 * p, p == 1 ? 5 : 17, p + 7);
    /* ops (s3bench): 10 iterations each on ec2 and fiber; one fiber get fails */
    static const char *const ops[4] = {"put", "get", "head", "delete"};
    for (int o = 0; o < 4; o++) {
        fill_series(add_series(), "ec2", "ops", ops[o], "5MiB", 5 << 20, 10,
                    o < 2 ? 300 : 12, o < 2 ? 9 : 1, o);
        series_t *f = add_series();
        fill_series(f, "fiber", "ops", ops[o], "5MiB", 5 << 20, 10, o < 2 ? 7000 : 180,
                    o < 2 ? 90 : 3, o + 1);
        if (o == 1)
            f->fail_at = 3;
    }
    /* network baseline */
    fill_series(add_series(), "ec2", "probe", "probe-connect", "", -1, 10, 1, 0.1, 1);
    fill_series(add_series(), "fiber", "probe", "probe-connect", "", -1, 10, 9, 0.5, 2);
}

/* ---- independent statistics ---------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int n;
    double p50, nr95, nr99, sd, mean, interp95; /* ms */
} expect_t;

/* Statistics of a series' successful samples, written out longhand. */
static expect_t expect_of(const series_t *s)
{
    int64_t v[MAXN];
    int n = 0;
    for (int r = 0; r < s->n; r++)
        if (r != s->fail_at)
            v[n++] = s->dur_ns[r];
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    expect_t e = {.n = n};
    double ms[MAXN], sum = 0;
    for (int i = 0; i < n; i++) {
        ms[i] = (double)v[i] / 1e6;
        sum += ms[i];
    }
    e.mean = sum / n;
    e.p50 = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
    int i95 = (int)(0.95 * n), i99 = (int)(0.99 * n); /* Python's int(q * n) */
    e.nr95 = ms[i95 < n - 1 ? i95 : n - 1];
    e.nr99 = ms[i99 < n - 1 ? i99 : n - 1];
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (ms[i] - e.mean) * (ms[i] - e.mean);
    e.sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
    double h = (n - 1) * 0.95;
    int lo = (int)h;
    e.interp95 = lo + 1 < n ? ms[lo] + (h - lo) * (ms[lo + 1] - ms[lo]) : ms[n - 1];
    return e;
}

static const series_t *find_series(const char *agent, const char *job, const char *op,
                                   const char *label)
{
    for (int i = 0; i < nseries; i++)
        if (!strcmp(series[i].agent, agent) && !strcmp(series[i].job, job) &&
            !strcmp(series[i].op, op) && !strcmp(series[i].label, label))
            return &series[i];
    fail_msg("no series %s %s %s %s", agent, job, op, label);
    return NULL;
}

/* ---- the store ------------------------------------------------------------ */

typedef struct {
    char dir[256];
    vk_store_t *st;
    vk_summary_t *sum;
} fixture_t;

/* B campaigns of the compare test store every duration times this and skip
 * the fiber probe. */
static int64_t dur_factor = 1;

static void store_dataset(vk_store_t *st)
{
    assert_int_equal(vk_store_campaign_begin(st, "apse1", "# campaign", 1700000000000000000),
                     VC_OK);
    assert_int_equal(vk_store_agent(st, "ec2", "aws-apse1", NULL), VC_OK);
    assert_int_equal(vk_store_agent(st, "fiber", "home-fiber", NULL), VC_OK);
    assert_int_equal(vk_store_agent(st, "mobile", "mobile-lte", NULL), VC_OK);
    uint64_t seq[3][3] = {{0}};
    static const char *const agents[3] = {"ec2", "fiber", "mobile"};
    static const char *const jobs[3] = {"list", "ops", "probe"};
    for (int i = 0; i < nseries; i++) {
        const series_t *s = &series[i];
        if (dur_factor != 1 && !strcmp(s->agent, "fiber") && !strcmp(s->job, "probe"))
            continue;
        int a = !strcmp(s->agent, "ec2") ? 0 : !strcmp(s->agent, "fiber") ? 1 : 2;
        int j = !strcmp(s->job, "list") ? 0 : !strcmp(s->job, "ops") ? 1 : 2;
        vc_sample_t v[MAXN + 1];
        int n = 0;
        /* a warm-up listing first, which no statistic may include */
        if (!strcmp(s->op, "s3-direct")) {
            vc_sample_init(&v[n]);
            v[n].seq = ++seq[a][j];
            VC_SAMPLE_SET(&v[n], op, s->op);
            VC_SAMPLE_SET(&v[n], label, s->label);
            v[n].scale = s->scale;
            v[n].duration_ns = 999999999999;
            v[n].flags = VC_SF_WARMUP;
            n++;
        }
        for (int r = 0; r < s->n; r++, n++) {
            vc_sample_init(&v[n]);
            v[n].seq = ++seq[a][j];
            VC_SAMPLE_SET(&v[n], op, s->op);
            VC_SAMPLE_SET(&v[n], label, s->label);
            v[n].scale = s->scale;
            v[n].run = r;
            v[n].duration_ns = s->dur_ns[r] * dur_factor;
            v[n].cpu_user_us = s->cpu_user_us[r];
            v[n].cpu_sys_us = s->cpu_sys_us[r];
            v[n].connect_us = 100;
            v[n].dns_us = 40;
            v[n].ttfb_us = 1000;
            if (!strcmp(s->op, "nbi-create"))
                v[n].server_ns = s->dur_ns[r] - 123456789; /* server's own, shorter */
            if (r == s->fail_at) {
                v[n].err_class = VC_EC_SERVER;
                v[n].http_status = 500;
                VC_SAMPLE_SET(&v[n], err_code, "InternalError");
                VC_SAMPLE_SET(&v[n], err_msg, "inventory job failed");
            }
            if (r == 2)
                v[n].flags |= VC_SF_SATURATED;
        }
        size_t ins = 0;
        assert_int_equal(vk_store_add_samples(st, agents[a], jobs[j], v, (size_t)n, 0, &ins,
                                              NULL),
                         VC_OK);
        assert_int_equal(ins, (size_t)n);
    }
    for (int a = 0; a < 2; a++)
        for (int j = 0; j < 3; j++)
            assert_int_equal(vk_store_job_finish(st, jobs[j], agents[a],
                                                 a == 0 && j == 0 ? VK_JOB_FAILED : VK_JOB_DONE,
                                                 (int64_t)seq[a][j], 0,
                                                 a == 0 && j == 0 ? "5K: inventory job failed"
                                                                  : NULL),
                             VC_OK);
    /* the ops job's spec as the coordinator stores it: names the target */
    vc_job_t *job = malloc(sizeof *job);
    vc_job_init(job, VC_WL_OPS);
    snprintf(job->id, sizeof job->id, "ops");
    snprintf(job->target.name, sizeof job->target.name, "s3-apse1");
    snprintf(job->target.bucket, sizeof job->target.bucket, "bench-bucket");
    char *spec = vc_job_to_json(job, 0);
    assert_non_null(spec);
    assert_int_equal(vk_store_job(st, "ops", "ec2", VK_JOB_DONE, spec, -1), VC_OK);
    free(spec);
    free(job);
    /* a third site whose job failed before sending anything */
    assert_int_equal(vk_store_job(st, "ops", "mobile", VK_JOB_RUNNING, "{}", -1), VC_OK);
    assert_int_equal(vk_store_job_finish(st, "ops", "mobile", VK_JOB_FAILED, 40, 1,
                                         "agent lost: no heartbeat for 30 s"),
                     VC_OK);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/vantage-test-report-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    build_dataset();
    char err[512];
    if (vk_store_open(f->dir, VK_STORE_CREATE, &f->st, err, sizeof err))
        return -1;
    store_dataset(f->st);
    if (vk_summary_build(f->st, NULL, &f->sum, err, sizeof err))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    vk_summary_destroy(&f->sum);
    vk_store_destroy(&f->st);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", f->dir);
    free(f);
    return 0;
}

/* Output is captured in a temporary file rather than a memstream: GCC's
 * -O2 dangling-pointer check misreads open_memstream's buffer. */
static FILE *cap_open(void)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    return f;
}

/* Closes f and returns what was written to it; caller frees. */
static char *cap_close(FILE *f)
{
    long n = ftell(f);
    assert_true(n >= 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Renders with fn into a string; caller frees. */
static char *render(vc_status_t (*fn)(const vk_summary_t *, FILE *), const vk_summary_t *s)
{
    FILE *m = cap_open();
    assert_non_null(m);
    assert_int_equal(fn(s, m), VC_OK);
    char *buf = cap_close(m);
    return buf;
}

/* The line after `after` (a substring that must occur) that starts with `prefix`. */
static const char *line_after(const char *text, const char *after, const char *prefix,
                              char *out, size_t size)
{
    const char *p = strstr(text, after);
    assert_non_null(p);
    size_t plen = strlen(prefix);
    while ((p = strchr(p, '\n'))) {
        p++;
        if (strncmp(p, prefix, plen) == 0) {
            size_t n = strcspn(p, "\n");
            assert_true(n < size);
            memcpy(out, p, n);
            out[n] = '\0';
            return out;
        }
    }
    fail_msg("no line starting with '%s' after '%s'", prefix, after);
    return NULL;
}

/* ---- the NBI table ---------------------------------------------------------- */

/* Where each field ends in the original's published row (seed-benchmarks.md). */
static void published_ends(int ends[14])
{
    static const char published[] =
        " 1K             472ms       179      429      429       90        25      110      110"
        "       20       259      302      302       21     7.2x";
    int k = 0, all[32];
    for (int i = 0; published[i] && k < 32; i++)
        if (published[i] != ' ' && (published[i + 1] == ' ' || published[i + 1] == '\0'))
            all[k++] = i;
    assert_int_equal(k, 15); /* label + 14 fields */
    memcpy(ends, all + 1, 14 * sizeof ends[0]);
}

static void check_nbi_row(const char *table, const char *agent, const char *label)
{
    char line[512], key[16];
    snprintf(key, sizeof key, "%3s ", label);
    char anchor[128];
    snprintf(anchor, sizeof anchor, "agent %s (site", agent);
    line_after(table, anchor, key, line, sizeof line);
    /* the columns end where the original's do */
    int ends[14];
    published_ends(ends);
    assert_int_equal(strlen(line), 141);
    for (int i = 0; i < 14; i++) {
        assert_true(line[ends[i]] != ' ');
        assert_true(line[ends[i] + 1] == ' ' || line[ends[i] + 1] == '\0');
    }
    double v[13];
    char lab[16];
    int got = sscanf(line, "%15s %lfms %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
                     lab, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
                     &v[10], &v[11], &v[12]);
    assert_int_equal(got, 14);
    double speedup;
    assert_int_equal(sscanf(strrchr(line, ' ') + 1, "%lfx", &speedup), 1);
    assert_string_equal(lab, label);
    /* creation = the server-side duration of nbi-create */
    const series_t *cs = find_series(agent, "list", "nbi-create", label);
    assert_true(v[0] == (double)llround((double)(cs->dur_ns[0] - 123456789) / 1e6));
    expect_t e[3];
    for (int p = 0; p < 3; p++) {
        e[p] = expect_of(find_series(agent, "list", paths[p], label));
        assert_true(v[1 + 4 * p] == (double)llround(e[p].p50));
        assert_true(v[2 + 4 * p] == (double)llround(e[p].nr95));
        assert_true(v[3 + 4 * p] == (double)llround(e[p].nr99));
        assert_true(v[4 + 4 * p] == (double)llround(e[p].sd));
    }
    double want = e[0].p50 / e[1].p50;
    assert_true(fabs(speedup - want) <= 0.05 + 1e-9);
}

static void test_nbi_table(void **state)
{
    fixture_t *f = *state;
    char *text = render(vk_report_text, f->sum);
    check_nbi_row(text, "ec2", "1K");
    check_nbi_row(text, "ec2", "2K");
    check_nbi_row(text, "fiber", "1K");
    /* 2K has 25 runs: nearest-rank p95 is the 24th value, not the max */
    const series_t *s2 = find_series("ec2", "list", "ais-regular", "2K");
    expect_t e2 = expect_of(s2);
    assert_true(e2.nr95 < e2.nr99);
    /* the failed point: "<label>  ERROR: <message>", the other rows still there */
    char line[512];
    line_after(text, "agent ec2 (site", " 5K", line, sizeof line);
    assert_string_equal(line, " 5K  ERROR: nbi-create: InternalError: inventory job failed");
    assert_non_null(strstr(text, "NBI latency-vs-scale  (25 runs each)"));
    assert_non_null(strstr(text, "NBI latency-vs-scale  (20 runs each)"));
    assert_non_null(strstr(text, "job list on agent ec2: failed: 5K: inventory job failed"));
    /* the header lines are the original's */
    assert_non_null(strstr(text, "\nObjects     Creation           --- Regular (ms) ---     "));
    free(text);
}

/* ---- the s3bench table ------------------------------------------------------ */

static void check_tms(const char *line, const char *label, double user, double sys,
                      double real)
{
    char lab[16];
    double u, s, t, r;
    assert_int_equal(sscanf(line, "%15s %lf %lf %lf (%lf)", lab, &u, &s, &t, &r), 5);
    assert_string_equal(lab, label);
    assert_true(fabs(u - user) < 1e-6);
    assert_true(fabs(s - sys) < 1e-6);
    assert_true(fabs(t - (user + sys)) < 1e-6);
    assert_true(fabs(r - real) < 1e-6);
    /* Ruby's Benchmark layout: label in 7, "%10.6f" x3 then "(%10.6f)" */
    assert_int_equal(strlen(line), 7 + 10 + 1 + 10 + 1 + 10 + 1 + 12);
}

static void check_s3bench(const char *text, const char *agent, const char *op,
                          const char *seed_label)
{
    const series_t *s = find_series(agent, "ops", op, "5MiB");
    char anchor[128], line[512];
    snprintf(anchor, sizeof anchor, "(agent %s, job ops)", agent);
    const char *block = strstr(text, anchor);
    assert_non_null(block);
    char head[64];
    snprintf(head, sizeof head, "Benchmark: %s (%d times)", seed_label, s->n);
    assert_non_null(strstr(block, head));
    double u = 0, sy = 0, re = 0;
    int ok = 0;
    for (int r = 0; r < s->n; r++) {
        char lab[8];
        snprintf(lab, sizeof lab, "%-7d", r);
        line_after(block, head, lab, line, sizeof line);
        if (r == s->fail_at) {
            assert_non_null(strstr(line, "ERROR: InternalError: inventory job failed"));
            continue;
        }
        char l2[8];
        snprintf(l2, sizeof l2, "%d", r);
        check_tms(line, l2, s->cpu_user_us[r] / 1e6, s->cpu_sys_us[r] / 1e6,
                  s->dur_ns[r] / 1e9);
        u += s->cpu_user_us[r] / 1e6;
        sy += s->cpu_sys_us[r] / 1e6;
        re += s->dur_ns[r] / 1e9;
        ok++;
    }
    check_tms(line_after(block, head, ">total:", line, sizeof line), ">total:", u, sy, re);
    check_tms(line_after(block, head, ">avg:", line, sizeof line), ">avg:", u / ok, sy / ok,
              re / ok);
}

static void test_s3bench_table(void **state)
{
    fixture_t *f = *state;
    char *text = render(vk_report_text, f->sum);
    static const char *const ops[4][2] = {
        {"put", "upload"}, {"get", "download"}, {"head", "exists?"}, {"delete", "delete"}};
    for (int o = 0; o < 4; o++) {
        check_s3bench(text, "ec2", ops[o][0], ops[o][1]);
        check_s3bench(text, "fiber", ops[o][0], ops[o][1]);
    }
    assert_non_null(strstr(text, "1 of 10 failed"));
    /* the heading names the site and, from the stored spec, the target */
    assert_non_null(
        strstr(text, "From aws-apse1 to s3-apse1 (bench-bucket)  (agent ec2, job ops)"));
    assert_non_null(strstr(text, "From home-fiber to -  (agent fiber, job ops)"));
    /* the header row is Ruby's CAPTION after a 7-wide label */
    assert_non_null(strstr(text, "\n             user     system      total        real\n"));
    free(text);
}

/* ---- cross-site --------------------------------------------------------------- */

static void test_cross_site(void **state)
{
    fixture_t *f = *state;
    const vk_group_t *a = vk_summary_find(f->sum, "list", "ec2", "ais-regular", 1000, "1K");
    const vk_group_t *b = vk_summary_find(f->sum, "list", "fiber", "ais-regular", 1000, "1K");
    assert_non_null(a);
    assert_non_null(b);
    expect_t ea = expect_of(find_series("ec2", "list", "ais-regular", "1K"));
    expect_t eb = expect_of(find_series("fiber", "list", "ais-regular", "1K"));
    assert_true(ea.p50 < eb.p50);
    assert_true(fabs(a->ratio_to_fastest - 1) < 1e-12);
    assert_true(fabs(b->ratio_to_fastest - eb.p50 / ea.p50) < 1e-9);
    assert_true(a->fastest && !b->fastest);

    char *text = render(vk_report_text, f->sum);
    char line[1024];
    line_after(text, "Cross-site comparison: job list", "ais-regular    1K", line, sizeof line);
    /* two cell groups: p50 p95 mean n err ratio */
    double v[2][5];
    int n[2], err[2];
    /* with 20 samples the p95 carries the too-few-samples mark */
    int marks = 0;
    for (char *q = line; *q; q++)
        if (*q == '*') {
            *q = ' ';
            marks++;
        }
    assert_int_equal(marks, 2);
    char *p = strchr(line, '|');
    for (int k = 0; k < 2; k++) {
        assert_non_null(p);
        assert_int_equal(sscanf(p + 1, "%lf %lf %lf %d %d %lfx", &v[k][0], &v[k][1], &v[k][2],
                                &n[k], &err[k], &v[k][3]),
                         6);
        p = strchr(p + 1, '|');
    }
    expect_t e[2] = {ea, eb};
    for (int k = 0; k < 2; k++) {
        assert_true(fabs(v[k][0] - e[k].p50) < 0.006);
        assert_true(fabs(v[k][1] - e[k].interp95) < 0.006);
        assert_true(fabs(v[k][2] - e[k].mean) < 0.006);
        assert_int_equal(n[k], 20);
        assert_int_equal(err[k], 0);
    }
    assert_true(fabs(v[0][3] - 1.0) < 1e-9);
    assert_true(fabs(v[1][3] - eb.p50 / ea.p50) < 0.006);
    /* the network baseline beside it */
    line_after(text, "Cross-site comparison: job list", "probe-connect (probe)", line,
               sizeof line);
    expect_t pa = expect_of(find_series("ec2", "probe", "probe-connect", ""));
    double p50;
    assert_int_equal(sscanf(strchr(line, '|') + 1, "%lf", &p50), 1);
    assert_true(fabs(p50 - pa.p50) < 0.006);
    /* a failed iteration counts as an error, not as a duration */
    const vk_group_t *g = vk_summary_find(f->sum, "ops", "fiber", "get", 5 << 20, "5MiB");
    assert_int_equal(g->errors, 1);
    assert_int_equal(g->ok, 9);
    assert_int_equal(g->err_by_class[VC_EC_SERVER], 1);
    /* warm-ups are counted apart and kept out of the statistics */
    g = vk_summary_find(f->sum, "list", "ec2", "s3-direct", 1000, "1K");
    assert_int_equal(g->warmup, 1);
    assert_int_equal(g->ok, 20);
    assert_int_equal(g->saturated, 1);
    assert_true(g->dur.max < 999999999999.0);
    /* phases: dns 40, connect 60, first byte 900 µs, transfer = duration - 1 ms */
    assert_true(fabs(g->phase_p50_ns[VK_PH_DNS] - 40000) < 1e-6);
    assert_true(fabs(g->phase_p50_ns[VK_PH_CONNECT] - 60000) < 1e-6);
    assert_true(fabs(g->phase_p50_ns[VK_PH_FIRST_BYTE] - 900000) < 1e-6);
    assert_int_equal(g->phase_n[VK_PH_TLS], 0);
    free(text);
}

static void test_text_sections(void **state)
{
    fixture_t *f = *state;
    char *text = render(vk_report_text, f->sum);
    /* the job that failed without samples is shown with its reason */
    char line[1024];
    line_after(text, "Jobs\n", "ops   mobile", line, sizeof line);
    assert_non_null(strstr(line, "failed"));
    assert_non_null(strstr(line, "agent lost: no heartbeat for 30 s"));
    assert_non_null(strstr(text, "40 samples missing"));
    /* percentile warnings where n is too small */
    assert_non_null(strstr(text, "p95 needs n >= 21, p99 needs n >= 101"));
    assert_non_null(strstr(text, "samples are flagged saturated"));
    assert_non_null(strstr(text, "Errors by class\n"));
    assert_non_null(strstr(text, "Phase breakdown"));
    free(text);
}

/* ---- CSV and JSON --------------------------------------------------------------- */

static int csv_col(const char *header, const char *name)
{
    int i = 0;
    const char *p = header;
    size_t len = strlen(name);
    while (p) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\n' || !p[len]))
            return i;
        p = strchr(p, ',');
        if (p)
            p++;
        i++;
    }
    return -1;
}

static void csv_cell(const char *line, int col, char *out, size_t size)
{
    const char *p = line;
    for (int i = 0; i < col; i++) {
        p = strchr(p, ',');
        assert_non_null(p);
        p++;
    }
    size_t n = strcspn(p, ",\n");
    assert_true(n < size);
    memcpy(out, p, n);
    out[n] = '\0';
}

static void test_csv(void **state)
{
    fixture_t *f = *state;
    char *csv = render(vk_report_csv, f->sum);
    static const char *const documented[] = {
        "job", "agent", "site", "op", "label", "scale", "n", "ok", "errors", "saturated",
        "warmup", "min_ms", "p50_ms", "ci95_lo_ms", "ci95_hi_ms", "p95_ms", "p99_ms", "max_ms",
        "mean_ms", "sd_ms", "seed_p95_ms", "seed_p99_ms", "p95_too_small", "ratio_to_fastest",
        "server_p50_ms", "dns_ms", "transfer_ms", "cpu_user_s", "real_s", "err_5xx",
        "first_error", NULL};
    for (int i = 0; documented[i]; i++)
        assert_true(csv_col(csv, documented[i]) >= 0);
    char line[4096], cell[128];
    line_after(csv, "\n", "list,ec2,aws-apse1,ais-regular,2K,2000,", line, sizeof line);
    expect_t e = expect_of(find_series("ec2", "list", "ais-regular", "2K"));
    csv_cell(line, csv_col(csv, "p50_ms"), cell, sizeof cell);
    assert_true(fabs(atof(cell) - e.p50) < 1e-6);
    csv_cell(line, csv_col(csv, "seed_p95_ms"), cell, sizeof cell);
    assert_true(fabs(atof(cell) - e.nr95) < 1e-6);
    csv_cell(line, csv_col(csv, "sd_ms"), cell, sizeof cell);
    assert_true(fabs(atof(cell) - e.sd) < 1e-6);
    csv_cell(line, csv_col(csv, "n"), cell, sizeof cell);
    assert_string_equal(cell, "25");
    csv_cell(line, csv_col(csv, "p95_too_small"), cell, sizeof cell);
    assert_string_equal(cell, "0");
    /* every data row has as many cells as the header */
    int header_cols = csv_col(csv, "first_error") + 1;
    for (const char *p = strchr(csv, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
        int commas = 0;
        for (const char *q = p; *q && *q != '\n'; q++)
            commas += *q == ',';
        assert_int_equal(commas + 1, header_cols); /* no error text here holds a comma */
    }
    free(csv);
}

static json_t *find_group(json_t *groups, const char *job, const char *agent, const char *op,
                          const char *label)
{
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        if (!strcmp(json_string_value(json_object_get(g, "job")), job) &&
            !strcmp(json_string_value(json_object_get(g, "agent")), agent) &&
            !strcmp(json_string_value(json_object_get(g, "op")), op) &&
            !strcmp(json_string_value(json_object_get(g, "label")), label))
            return g;
    }
    return NULL;
}

static void test_json(void **state)
{
    fixture_t *f = *state;
    char *text = render(vk_report_json, f->sum);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "vantage-report");
    json_t *groups = json_object_get(root, "groups");
    json_t *g = find_group(groups, "list", "fiber", "ais-nbi", "1K");
    assert_non_null(g);
    expect_t e = expect_of(find_series("fiber", "list", "ais-nbi", "1K"));
    json_t *d = json_object_get(g, "duration_ms");
    assert_true(fabs(json_real_value(json_object_get(d, "p50")) - e.p50) < 1e-6);
    assert_true(fabs(json_real_value(json_object_get(d, "seed_p99")) - e.nr99) < 1e-6);
    assert_true(fabs(json_real_value(json_object_get(d, "sd")) - e.sd) < 1e-6);
    assert_true(fabs(json_real_value(json_object_get(d, "p95")) - e.interp95) < 1e-6);
    assert_true(json_is_true(json_object_get(g, "p99_too_small")));
    /* s3bench iterations, sorted by run, the failed one without a time */
    json_t *get = find_group(groups, "ops", "fiber", "get", "5MiB");
    json_t *its = json_object_get(get, "iterations");
    const series_t *gs = find_series("fiber", "ops", "get", "5MiB");
    assert_int_equal(json_array_size(its), (size_t)gs->n);
    for (int k = 0; k < gs->n; k++) {
        json_t *it = json_array_get(its, (size_t)k);
        assert_int_equal(json_integer_value(json_object_get(it, "run")), k);
        if (k == gs->fail_at) {
            assert_true(json_is_null(json_object_get(it, "real_s")));
            continue;
        }
        assert_true(fabs(json_real_value(json_object_get(it, "real_s")) - gs->dur_ns[k] / 1e9) <
                    1e-12);
        assert_true(fabs(json_real_value(json_object_get(it, "user_s")) -
                         gs->cpu_user_us[k] / 1e6) < 1e-12);
    }
    expect_t ea = expect_of(find_series("ec2", "list", "ais-nbi", "1K"));
    double ratio = json_real_value(json_object_get(g, "ratio_to_fastest"));
    assert_true(fabs(ratio - (e.p50 > ea.p50 ? e.p50 / ea.p50 : 1)) < 1e-9);
    /* the NBI table with its speedup and the failed point */
    json_t *tables = json_object_get(root, "nbi_tables"), *t = NULL, *row;
    size_t i;
    json_array_foreach(tables, i, t) if (!strcmp(json_string_value(json_object_get(t, "agent")),
                                                "ec2")) break;
    assert_non_null(t);
    assert_string_equal(json_string_value(json_object_get(t, "agent")), "ec2");
    json_t *rows = json_object_get(t, "rows");
    assert_int_equal(json_array_size(rows), 3);
    row = json_array_get(rows, 0);
    expect_t r = expect_of(find_series("ec2", "list", "ais-regular", "1K"));
    assert_true(fabs(json_real_value(json_object_get(row, "speedup")) - r.p50 / ea.p50) < 1e-9);
    assert_true(json_is_null(json_object_get(row, "error")));
    row = json_array_get(rows, 2);
    assert_string_equal(json_string_value(json_object_get(row, "label")), "5K");
    assert_non_null(strstr(json_string_value(json_object_get(row, "error")), "inventory"));
    /* the failed job is listed */
    json_t *jobs = json_object_get(root, "jobs"), *j;
    int found = 0;
    json_array_foreach(jobs, i, j) if (!strcmp(json_string_value(json_object_get(j, "agent")),
                                               "mobile")) {
        assert_string_equal(json_string_value(json_object_get(j, "status")), "failed");
        found = 1;
    }
    assert_true(found);
    json_decref(root);
    free(text);
}

static void test_raw_exports(void **state)
{
    fixture_t *f = *state;
    int total = 0;
    for (int i = 0; i < nseries; i++)
        total += series[i].n + !strcmp(series[i].op, "s3-direct");
    /* JSON: every sample, every documented column */
    FILE *m = cap_open();
    assert_int_equal(vk_report_json_raw(f->st, NULL, m), VC_OK);
    char *buf = cap_close(m);
    json_error_t jerr;
    json_t *root = json_loads(buf, 0, &jerr);
    assert_non_null(root);
    json_t *samples = json_object_get(root, "samples");
    assert_int_equal(json_array_size(samples), (size_t)total);
    json_t *first = json_array_get(samples, 0);
    for (int c = 0; vk_report_raw_columns[c]; c++)
        assert_non_null(json_object_get(first, vk_report_raw_columns[c]));
    assert_string_equal(json_string_value(json_object_get(first, "site")), "aws-apse1");
    json_decref(root);
    free(buf);
    /* CSV with a filter: only fiber's ops samples */
    m = cap_open();
    vk_filter_t flt = {.agent = "fiber", .job = "ops"};
    assert_int_equal(vk_report_csv_raw(f->st, &flt, m), VC_OK);
    buf = cap_close(m);
    int lines = 0;
    for (char *p = buf; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 1 + 40);
    assert_int_equal(strncmp(buf, "id,job,agent,site,seq,op,", 25), 0);
    assert_non_null(strstr(buf, ",InternalError,inventory job failed,"));
    free(buf);
}

static void test_filter(void **state)
{
    fixture_t *f = *state;
    vk_summary_t *s = NULL;
    char err[256];
    vk_filter_t flt = {.agent = "fiber"};
    assert_int_equal(vk_summary_build(f->st, &flt, &s, err, sizeof err), VC_OK);
    for (size_t i = 0; i < s->ngroups; i++)
        assert_string_equal(s->groups[i].agent, "fiber");
    assert_int_equal(s->njobs, 3);
    /* alone, fiber is its own fastest site */
    const vk_group_t *g = vk_summary_find(s, "list", "fiber", "ais-regular", 1000, "1K");
    assert_true(fabs(g->ratio_to_fastest - 1) < 1e-12);
    vk_summary_destroy(&s);
}

static void test_cmd_report(void **state)
{
    fixture_t *f = *state;
    char out[300];
    snprintf(out, sizeof out, "%s/r.json", f->dir);
    char *ok[] = {"report", f->dir, "--format", "json", "--output", out, NULL};
    assert_int_equal(vk_cmd_report(6, ok), 0);
    json_error_t jerr;
    json_t *root = json_load_file(out, 0, &jerr);
    assert_non_null(root);
    json_decref(root);
    char *raw_text[] = {"report", f->dir, "--raw", NULL};
    assert_int_equal(vk_cmd_report(3, raw_text), 2);
    char *html_raw[] = {"report", f->dir, "--format", "html", "--raw", NULL};
    assert_int_equal(vk_cmd_report(5, html_raw), 2);
    char *bad[] = {"report", f->dir, "--format", "xml", NULL};
    assert_int_equal(vk_cmd_report(4, bad), 2);
    char *missing[] = {"report", "/nonexistent/vantage-dir", NULL};
    assert_int_equal(vk_cmd_report(2, missing), 1);
    char *help[] = {"report", "--help", NULL};
    assert_int_equal(vk_cmd_report(2, help), 0);
}

static void test_compare(void **state)
{
    fixture_t *f = *state;
    char dir_b[300], err[512];
    snprintf(dir_b, sizeof dir_b, "%s/b", f->dir);
    vk_store_t *st = NULL;
    assert_int_equal(vk_store_open(dir_b, VK_STORE_CREATE, &st, err, sizeof err), VC_OK);
    dur_factor = 2;
    store_dataset(st);
    dur_factor = 1;
    vk_summary_t *b = NULL;
    assert_int_equal(vk_summary_build(st, NULL, &b, err, sizeof err), VC_OK);
    vk_compare_t *c = NULL;
    assert_int_equal(vk_compare_build(f->sum, b, 0, &c), VC_OK);
    assert_int_equal(c->n, f->sum->ngroups);
    size_t only_a = 0, matched = 0;
    for (size_t i = 0; i < c->n; i++) {
        const vk_compare_pair_t *p = &c->pairs[i];
        assert_non_null(p->a);
        if (!p->b) {
            only_a++;
            assert_string_equal(p->a->agent, "fiber");
            assert_string_equal(p->a->op, "probe-connect");
            continue;
        }
        assert_string_equal(p->a->op, p->b->op);
        assert_string_equal(p->a->agent, p->b->agent);
        if (!p->a->ok)
            continue;
        /* every duration doubled: each statistic doubles */
        assert_true(fabs(p->p50_ratio - 2) < 1e-12);
        assert_true(fabs(p->p95_ratio - 2) < 1e-12);
        assert_true(fabs(p->mean_ratio - 2) < 1e-12);
        matched++;
    }
    assert_int_equal(only_a, 1);
    assert_true(matched > 20);
    FILE *m = cap_open();
    assert_int_equal(vk_compare_text(c, "A", "B", m), VC_OK);
    char *buf = cap_close(m);
    assert_non_null(strstr(buf, "(only in A)"));
    assert_non_null(strstr(buf, "2.00x"));
    free(buf);
    vk_compare_destroy(&c);
    vk_summary_destroy(&b);
    vk_store_destroy(&st);
    char *ok[] = {"compare", f->dir, dir_b, "--format", "csv", "--by", "site", NULL};
    assert_int_equal(vk_cmd_compare(7, ok), 0);
    char *bad[] = {"compare", f->dir, NULL};
    assert_int_equal(vk_cmd_compare(2, bad), 2);
    char *missing[] = {"compare", f->dir, "/nonexistent/x", NULL};
    assert_int_equal(vk_cmd_compare(3, missing), 1);
}

/* Messages from peers: a terminal escape and a UTF-8 character cut in half
 * must neither reach the terminal nor break the JSON. */
static void test_hostile_text(void **state)
{
    fixture_t *f = *state;
    char t[32] = "ok \xc3\xa9 \x1b[31m \xc3";
    vk_text_scrub(t);
    assert_string_equal(t, "ok \xc3\xa9 ?[31m ?");
    vc_sample_t v;
    vc_sample_init(&v);
    v.seq = 1;
    VC_SAMPLE_SET(&v, op, "get");
    v.duration_ns = 5;
    v.err_class = VC_EC_CLIENT;
    VC_SAMPLE_SET(&v, err_code, "Bad\x1b]0;title\x07");
    VC_SAMPLE_SET(&v, err_msg, "cut \xe2\x82");
    assert_int_equal(vk_store_add_samples(f->st, "evil", "x", &v, 1, 0, NULL, NULL), VC_OK);
    vk_summary_t *s = NULL;
    char err[256];
    assert_int_equal(vk_summary_build(f->st, NULL, &s, err, sizeof err), VC_OK);
    char *text = render(vk_report_text, s);
    assert_null(strchr(text, '\x1b'));
    assert_null(strchr(text, '\x07'));
    assert_non_null(strstr(text, "Bad?]0;title?: cut ??"));
    free(text);
    json_t *root = vk_report_json_build(s);
    assert_non_null(root);
    json_decref(root);
    vk_summary_destroy(&s);
    FILE *m = cap_open();
    assert_int_equal(vk_report_json_raw(f->st, &(vk_filter_t){.agent = "evil"}, m), VC_OK);
    char *buf = cap_close(m);
    json_error_t jerr;
    root = json_loads(buf, 0, &jerr);
    assert_non_null(root);
    json_t *one = json_array_get(json_object_get(root, "samples"), 0);
    assert_string_equal(json_string_value(json_object_get(one, "err_msg")), "cut ??");
    json_decref(root);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nbi_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_s3bench_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cross_site, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_sections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_raw_exports, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cmd_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_text, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
