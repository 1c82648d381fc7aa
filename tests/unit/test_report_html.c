/* Tests of the HTML report: a store built from a known sample set is
 * rendered and the page parsed as XML (expat) to check it is well-formed,
 * that each chart has one series per site (and path), that the chart data
 * carries the percentiles this file computes on its own, that hostile texts
 * from agents are escaped, that nothing is fetched from the network, and
 * that a large store gives a bounded page. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <expat.h>

#include "vc_sample.h"
#include "vk_chartdata.h"
#include "vk_cmd.h"
#include "vk_report_html.h"
#include "vk_store.h"
#include "vk_summary.h"
#include "vk_svg.h"

#define HOSTILE_SITE "<script>alert('x')</script>&amp;\"q\""
#define HOSTILE_ERR "<img src=x onerror=alert(1)> & \"boom\""
#define HOSTILE_FACTS "{\"cpu\":\"</td><script>evil()</script>\",\"cores\":2}"

static const char *const paths[3] = {"ais-regular", "ais-nbi", "s3-direct"};
static const char *const agents[3] = {"ec2", "fiber", "evil"};
static const char *const sites[3] = {"aws-apse1", "home-fiber", HOSTILE_SITE};
static const int64_t scales[3] = {1000, 10000, 80000};
static const char *const labels[3] = {"1K", "10K", "80K"};

/* The known durations of a listing: base ms times a spread over the runs. */
static int64_t list_dur(int agent, int path, int scale, int run)
{
    double ms = (10.0 + 30 * agent + 7 * path) * (1 + scale * 2) * (1 + 0.01 * ((run * 7) % 20));
    return (int64_t)llround(ms * 1e6);
}

static int64_t op_dur(int agent, int op, int run)
{
    return (int64_t)(1000000 * (5 + 10 * agent + op) + 10000 * ((run * 13) % 31));
}

static const char *const ops[4] = {"put", "get", "head", "delete"};
#define RUNS 20
#define OPS_RUNS 30
#define T0 1767225600000000000LL

typedef struct {
    char dir[256];
    vk_store_t *st;
} fixture_t;

static void add_batch(vk_store_t *st, const char *agent, const char *job, vc_sample_t *v, size_t n)
{
    size_t ins = 0;
    assert_int_equal(vk_store_add_samples(st, agent, job, v, n, 0, &ins, NULL), VC_OK);
    assert_int_equal(ins, n);
    for (size_t i = 0; i < n; i++)
        vc_sample_clear(&v[i]);
}

static void store_dataset(vk_store_t *st)
{
    assert_int_equal(vk_store_campaign_begin(st, "html<&>", "x = \"<b>\"\n", T0), VC_OK);
    vc_sample_t *v = calloc(1000, sizeof *v);
    assert_non_null(v);
    for (int a = 0; a < 3; a++) {
        assert_int_equal(vk_store_agent(st, agents[a], sites[a], a == 2 ? HOSTILE_FACTS : NULL),
                         VC_OK);
        assert_int_equal(vk_store_clock_offset(st, agents[a], T0, 1000000 * (a + 1), 50000,
                                               200000),
                         VC_OK);
        uint64_t seq = 0;
        size_t n = 0;
        int64_t t = T0;
        /* listings: the evil site only at 1K, so its line has one point */
        for (int k = 0; k < 3; k++)
            for (int p = 0; p < 3; p++)
                for (int r = 0; r < RUNS && !(a == 2 && k > 0); r++) {
                    vc_sample_t *s = &v[n++];
                    vc_sample_init(s);
                    s->seq = ++seq;
                    VC_SAMPLE_SET(s, op, paths[p]);
                    VC_SAMPLE_SET(s, label, labels[k]);
                    s->scale = scales[k];
                    s->run = r;
                    s->duration_ns = list_dur(a, p, k, r);
                    s->start_wall_ns = t += 1000000000;
                }
        /* a warm-up far slower than anything: in no chart */
        vc_sample_init(&v[n]);
        v[n].seq = ++seq;
        VC_SAMPLE_SET(&v[n], op, "ais-regular");
        VC_SAMPLE_SET(&v[n], label, "1K");
        v[n].scale = 1000;
        v[n].duration_ns = 999000000000LL;
        v[n].flags = VC_SF_WARMUP;
        v[n].start_wall_ns = t;
        n++;
        add_batch(st, agents[a], "list", v, n);
        n = 0;
        seq = 0;
        for (int r = 0; r < OPS_RUNS; r++)
            for (int o = 0; o < 4; o++) {
                vc_sample_t *s = &v[n++];
                vc_sample_init(s);
                s->seq = ++seq;
                VC_SAMPLE_SET(s, op, ops[o]);
                VC_SAMPLE_SET(s, label, "5MiB");
                s->scale = 5 << 20;
                s->run = r;
                s->duration_ns = op_dur(a, o, r);
                s->dns_us = 1000;
                s->connect_us = 3000;
                s->tls_us = 6000;
                s->ttfb_us = 8000;
                s->start_wall_ns = t += 100000000;
                if (a == 2 && o == 1 && r == 4) {
                    s->err_class = VC_EC_THROTTLED;
                    s->http_status = 503;
                    VC_SAMPLE_SET(s, err_code, "SlowDown");
                    VC_SAMPLE_SET(s, err_msg, HOSTILE_ERR);
                }
                if (r == 3)
                    s->flags |= VC_SF_SATURATED;
            }
        add_batch(st, agents[a], "ops", v, n);
        assert_int_equal(vk_store_job_finish(st, "ops", agents[a], VK_JOB_DONE, (int64_t)seq, 0,
                                             NULL),
                         VC_OK);
    }
    free(v);
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/vantage-test-html-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    char err[512];
    if (vk_store_open(f->dir, VK_STORE_CREATE, &f->st, err, sizeof err))
        return -1;
    store_dataset(f->st);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    vk_store_destroy(&f->st);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", f->dir);
    free(f);
    return 0;
}

/* Renders the store's report into a string; caller frees. */
static char *render(vk_store_t *st, const vk_filter_t *filter)
{
    FILE *m = tmpfile();
    assert_non_null(m);
    char err[512] = "";
    vc_status_t rc = vk_report_html_store(st, filter, m, err, sizeof err);
    if (rc)
        fail_msg("render failed: %s", err);
    long n = ftell(m);
    assert_true(n > 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    rewind(m);
    assert_int_equal(fread(buf, 1, (size_t)n, m), (size_t)n);
    buf[n] = '\0';
    fclose(m);
    return buf;
}

/* ---- the page as XML -------------------------------------------------------- */

#define MAXREC 4096

/* A chart element with a data-site attribute. */
typedef struct {
    int kind;            /* index into kinds, -1 another svg */
    char elem[16], cls[32], site[128], key[32]; /* key: data-path, else data-op */
    size_t npoints;      /* pairs in points, or M commands in d */
} rec_t;

/* What the parser saw. */
typedef struct {
    int depth_svg;           /* inside an svg element */
    char chart[64];          /* class of the current svg */
    int charts[4];           /* svg.chart of each kind */
    rec_t rec[MAXREC];
    size_t nrec;
    size_t svg_open, svg_close;
    int bad_ref;             /* src=, an external href, <script>, <link>, <iframe>... */
    char bad_what[128];
    char text[1 << 20];      /* all character data, for escaping checks */
    size_t ntext;
} page_t;

static const char *const kinds[4] = {"chart latency-vs-scale", "chart cdf", "chart phases",
                                     "chart timeseries"};

static const char *attr(const XML_Char **a, const char *name)
{
    for (; a && a[0]; a += 2)
        if (strcmp(a[0], name) == 0)
            return a[1];
    return NULL;
}

static size_t count_points(const char *pts)
{
    size_t n = 0;
    for (const char *p = pts; p && *p; p++)
        n += *p == ',';
    return n;
}

static size_t count_moves(const char *d)
{
    size_t n = 0;
    for (const char *p = d; p && *p; p++)
        n += *p == 'M';
    return n;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **a)
{
    page_t *pg = ud;
    static const char *const banned[] = {"script", "link", "iframe", "img", "object", "embed",
                                         "image", "use", "audio", "video", "source", NULL};
    for (int i = 0; banned[i]; i++)
        if (strcmp(name, banned[i]) == 0) {
            pg->bad_ref = 1;
            snprintf(pg->bad_what, sizeof pg->bad_what, "element <%s>", name);
        }
    for (const XML_Char **p = a; p && p[0]; p += 2) {
        const char *k = p[0], *v = p[1];
        if (strcmp(k, "src") == 0 || strncmp(k, "on", 2) == 0 ||
            ((strcmp(k, "href") == 0 || strcmp(k, "xlink:href") == 0) && v[0] != '#') ||
            strstr(v, "url(") || strstr(v, "://")) {
            pg->bad_ref = 1;
            snprintf(pg->bad_what, sizeof pg->bad_what, "<%s %s=\"%.60s\">", name, k, v);
        }
    }
    if (strcmp(name, "svg") == 0) {
        pg->svg_open++;
        pg->depth_svg++;
        const char *cls = attr(a, "class");
        snprintf(pg->chart, sizeof pg->chart, "%s", cls ? cls : "");
        for (int k = 0; k < 4; k++)
            if (cls && strcmp(cls, kinds[k]) == 0)
                pg->charts[k]++;
        return;
    }
    const char *site = attr(a, "data-site");
    if (!pg->depth_svg || !site || pg->nrec == MAXREC)
        return;
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(pg->chart, kinds[k]) == 0)
            kind = k;
    const char *key = attr(a, "data-path");
    if (!key)
        key = attr(a, "data-op");
    const char *cls = attr(a, "class");
    rec_t *r = &pg->rec[pg->nrec++];
    r->kind = kind;
    snprintf(r->elem, sizeof r->elem, "%s", name);
    snprintf(r->cls, sizeof r->cls, "%s", cls ? cls : "");
    snprintf(r->site, sizeof r->site, "%s", site);
    snprintf(r->key, sizeof r->key, "%s", key ? key : "");
    r->npoints = attr(a, "points") ? count_points(attr(a, "points"))
                                   : count_moves(attr(a, "d"));
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    page_t *pg = ud;
    if (strcmp(name, "svg") == 0) {
        pg->svg_close++;
        pg->depth_svg--;
        pg->chart[0] = '\0';
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    page_t *pg = ud;
    if (pg->ntext + (size_t)len + 1 < sizeof pg->text) {
        memcpy(pg->text + pg->ntext, s, (size_t)len);
        pg->ntext += (size_t)len;
        pg->text[pg->ntext] = '\0';
    }
}

/* Parses html as XML; fails the test with expat's message when malformed. */
static page_t *parse(const char *html)
{
    page_t *pg = calloc(1, sizeof *pg);
    assert_non_null(pg);
    XML_Parser p = XML_ParserCreate("UTF-8");
    XML_SetUserData(p, pg);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    if (XML_Parse(p, html, (int)strlen(html), 1) != XML_STATUS_OK)
        fail_msg("the report is not well-formed at line %lu: %s",
                 (unsigned long)XML_GetCurrentLineNumber(p),
                 XML_ErrorString(XML_GetErrorCode(p)));
    XML_ParserFree(p);
    return pg;
}

static size_t count_rec(const page_t *pg, int kind, const char *cls, const char *site,
                        const char *key)
{
    size_t n = 0;
    for (size_t i = 0; i < pg->nrec; i++) {
        const rec_t *r = &pg->rec[i];
        if (r->kind == kind && strcmp(r->cls, cls) == 0 && (!site || !strcmp(r->site, site)) &&
            (!key || !strcmp(r->key, key)))
            n++;
    }
    return n;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_well_formed_and_charts(void **state)
{
    fixture_t *f = *state;
    char *html = render(f->st, NULL);
    page_t *pg = parse(html);
    assert_true(pg->svg_open > 0);
    assert_int_equal(pg->svg_open, pg->svg_close);
    assert_int_equal(pg->charts[0], 1);             /* latency vs scale */
    assert_int_equal(pg->charts[1], 3 + 4);         /* a CDF per path and per object op */
    assert_int_equal(pg->charts[2], 4);             /* phases of put/get/head/delete */
    assert_int_equal(pg->charts[3], 1);             /* time series */
    for (int a = 0; a < 3; a++) {
        for (int p = 0; p < 3; p++) {
            /* one p50 line and one band per (site, path), with all its points */
            assert_int_equal(count_rec(pg, 0, "p50", sites[a], paths[p]), 1);
            assert_int_equal(count_rec(pg, 0, "band", sites[a], paths[p]), 1);
            assert_int_equal(count_rec(pg, 1, "cdf-curve", sites[a], paths[p]), 1);
        }
        for (int o = 0; o < 4; o++) {
            assert_int_equal(count_rec(pg, 1, "cdf-curve", sites[a], ops[o]), 1);
            assert_int_equal(count_rec(pg, 2, "bar", sites[a], ops[o]), 1);
        }
        assert_int_equal(count_rec(pg, 3, "points", sites[a], NULL), 1);
        assert_int_equal(count_rec(pg, 3, "errors", sites[a], NULL), 1);
    }
    for (size_t i = 0; i < pg->nrec; i++) {
        const rec_t *r = &pg->rec[i];
        int evil = strcmp(r->site, HOSTILE_SITE) == 0;
        if (r->kind == 0 && strcmp(r->cls, "p50") == 0)
            assert_int_equal(r->npoints, evil ? 1 : 3);
        if (r->kind == 0 && strcmp(r->cls, "band") == 0)
            assert_int_equal(r->npoints, evil ? 2 : 6);
        /* a CDF of n samples drawn as steps: two points per sample */
        if (r->kind == 1 && vk_cd_is_listing(r->key))
            assert_int_equal(r->npoints, 2 * RUNS);
        /* every request of a site is on the time series (few samples: no downsampling) */
        if (r->kind == 3 && strcmp(r->cls, "points") == 0)
            assert_int_equal(r->npoints, (evil ? 3 * RUNS : 9 * RUNS) + 4 * OPS_RUNS - evil);
        if (r->kind == 3 && strcmp(r->cls, "errors") == 0)
            assert_int_equal(r->npoints, evil ? 1 : 0);
    }
    /* the tables are there */
    assert_non_null(strstr(html, "<table class=\"compare\">"));
    assert_non_null(strstr(html, "<table class=\"statistics\">"));
    assert_non_null(strstr(html, "<table class=\"errors\">"));
    assert_non_null(strstr(html, "<table class=\"agents\">"));
    assert_non_null(strstr(html, "<table class=\"saturated\">"));
    assert_non_null(strstr(html, "NBI latency-vs-scale  (20 runs each)"));
    assert_non_null(strstr(html, "Benchmark: download (30 times)"));
    free(pg);
    free(html);
}

static void test_escaping_and_no_fetch(void **state)
{
    fixture_t *f = *state;
    char *html = render(f->st, NULL);
    page_t *pg = parse(html);
    if (pg->bad_ref)
        fail_msg("the report refers to something outside itself: %s", pg->bad_what);
    /* the hostile texts are shown, as text: the parser gives them back
     * verbatim, and the raw markup never occurs */
    assert_non_null(strstr(pg->text, HOSTILE_SITE));
    assert_non_null(strstr(pg->text, HOSTILE_ERR));
    assert_non_null(strstr(pg->text, "</td><script>evil()</script>"));
    assert_non_null(strstr(pg->text, "html<&>"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<img"));
    assert_null(strstr(html, "</td><script>"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;"));
    /* and no URL at all: nothing can be fetched */
    assert_null(strstr(html, "http://"));
    assert_null(strstr(html, "https://"));
    assert_null(strstr(html, "@import"));
    free(pg);
    free(html);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Type-7 quantile written out longhand. */
static double q7(const int64_t *sorted, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo + 1 >= n)
        return (double)sorted[n - 1];
    return (double)sorted[lo] + (h - lo) * (double)(sorted[lo + 1] - sorted[lo]);
}

static void test_chart_numbers(void **state)
{
    fixture_t *f = *state;
    vk_chartdata_t *cd = NULL;
    char err[256];
    assert_int_equal(vk_chartdata_build(f->st, NULL, &cd, err, sizeof err), VC_OK);
    assert_int_equal(cd->nsites, 3);
    /* sites by name: the colour order */
    for (size_t i = 1; i < cd->nsites; i++)
        assert_true(strcmp(cd->sites[i - 1].name, cd->sites[i].name) < 0);
    size_t checked = 0;
    for (size_t i = 0; i < cd->ndists; i++) {
        const vk_cd_dist_t *d = &cd->dists[i];
        int a = -1, p = -1, k = -1;
        for (int x = 0; x < 3; x++) {
            if (!strcmp(cd->sites[d->site].name, sites[x]))
                a = x;
            if (!strcmp(d->op, paths[x]))
                p = x;
            if (d->scale == scales[x])
                k = x;
        }
        assert_true(a >= 0);
        if (p < 0)
            continue;
        int64_t v[RUNS];
        for (int r = 0; r < RUNS; r++)
            v[r] = list_dur(a, p, k, r);
        qsort(v, RUNS, sizeof v[0], cmp_i64);
        assert_int_equal(d->n, RUNS); /* the warm-up is not in it */
        assert_true(fabs(d->p50 - (double)(v[9] + v[10]) / 2) < 1e-6);
        assert_true(fabs(d->p5 - q7(v, RUNS, 0.05)) < 1e-6);
        assert_true(fabs(d->p95 - q7(v, RUNS, 0.95)) < 1e-6);
        assert_true(d->min == (double)v[0] && d->max == (double)v[RUNS - 1]);
        /* the CDF is at the largest scale every site measured... or most sites did */
        if (d->cdf) {
            assert_int_equal(d->scale, 1000); /* the only scale all three sites have */
            assert_int_equal(d->ncdf, RUNS);
            assert_true(d->cdf[0].ns == (double)v[0]);
            assert_true(fabs(d->cdf[RUNS - 1].frac - 1) < 1e-12);
        }
        checked++;
    }
    assert_int_equal(checked, 2 * 9 + 3);
    /* clock offsets and host facts */
    assert_int_equal(cd->nagents, 3);
    assert_int_equal(cd->agents[0].noffsets, 1);
    assert_int_equal(cd->agents[0].error_ns, 50000);
    vk_chartdata_destroy(&cd);
    assert_null(cd);
}

static void test_cdf_points(void **state)
{
    (void)state;
    enum { N = 100000 };
    int64_t *v = malloc(N * sizeof *v);
    vk_cdf_pt_t *pt = malloc(VK_CD_MAX_POINTS * sizeof *pt);
    assert_non_null(v);
    assert_non_null(pt);
    for (int i = 0; i < N; i++)
        v[i] = 1000 + (int64_t)i * 3;
    size_t n = vk_cd_cdf_points(v, N, pt, VK_CD_MAX_POINTS);
    assert_int_equal(n, VK_CD_MAX_POINTS);
    assert_true(pt[0].ns == 1000 && fabs(pt[0].frac - 1.0 / N) < 1e-15);
    assert_true(pt[n - 1].ns == (double)v[N - 1] && pt[n - 1].frac == 1.0);
    for (size_t i = 1; i < n; i++) {
        assert_true(pt[i].ns > pt[i - 1].ns);
        assert_true(pt[i].frac > pt[i - 1].frac);
        /* frac is the share of samples at or below ns */
        assert_true(fabs(pt[i].frac * N - ((pt[i].ns - 1000) / 3 + 1)) < 1e-6);
    }
    /* a few samples: every one, exactly */
    int64_t few[3] = {5, 7, 9};
    assert_int_equal(vk_cd_cdf_points(few, 3, pt, VK_CD_MAX_POINTS), 3);
    assert_true(pt[1].ns == 7 && fabs(pt[1].frac - 2.0 / 3) < 1e-15);
    assert_int_equal(vk_cd_cdf_points(few, 0, pt, VK_CD_MAX_POINTS), 0);
    free(v);
    free(pt);
}

static void test_scales(void **state)
{
    (void)state;
    double t[16];
    vk_scale_t s = {.d0 = 800, .d1 = 90000, .r0 = 0, .r1 = 100, .log = 1};
    size_t n = vk_scale_ticks(&s, t, 10);
    assert_true(n >= 3 && n <= 10);
    for (size_t i = 0; i < n; i++)
        assert_true(t[i] >= s.d0 && t[i] <= s.d1);
    assert_true(fabs(vk_scale_map(&s, 800) - 0) < 1e-9);
    assert_true(fabs(vk_scale_map(&s, 90000) - 100) < 1e-9);
    assert_true(fabs(vk_scale_map(&s, sqrt(800.0 * 90000)) - 50) < 1e-9);
    vk_scale_t lin = {.d0 = 0, .d1 = 1, .r0 = 200, .r1 = 0};
    n = vk_scale_ticks(&lin, t, 8);
    assert_true(n >= 3 && n <= 8);
    assert_true(t[0] == 0 && fabs(t[n - 1] - 1) < 1e-12); /* the whole range is labelled */
    vk_scale_t tm = {.d0 = 0, .d1 = 1340, .r0 = 0, .r1 = 1, .time = 1};
    n = vk_scale_ticks(&tm, t, 10);
    assert_true(n >= 3 && n <= 8);
    for (size_t i = 0; i < n; i++)
        assert_true(fmod(t[i], 60) == 0); /* whole minutes */
    char b[32];
    vk_fmt_duration(b, sizeof b, 2.5e6);
    assert_string_equal(b, "2.5 ms");
    vk_fmt_duration(b, sizeof b, 40);
    assert_string_equal(b, "40 ns");
    vk_fmt_count(b, sizeof b, 80000);
    assert_string_equal(b, "80K");
}

/* A store of many samples gives a page of bounded size, with at most
 * VK_CD_MAX_POINTS points per time series and per CDF. */
static void test_large_store(void **state)
{
    (void)state;
    char dir[] = "/tmp/vantage-test-html-big-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char err[512];
    vk_store_t *st = NULL;
    assert_int_equal(vk_store_open(dir, VK_STORE_CREATE, &st, err, sizeof err), VC_OK);
    enum { N = 200000, B = 5000 };
    vc_sample_t *v = calloc(B, sizeof *v);
    assert_non_null(v);
    uint64_t seq = 0;
    int64_t slowest = 0, fastest = INT64_MAX;
    for (int b = 0; b < N / B; b++) {
        for (int i = 0; i < B; i++) {
            vc_sample_t *s = &v[i];
            vc_sample_init(s);
            s->seq = ++seq;
            VC_SAMPLE_SET(s, op, (seq % 2) ? "get" : "head");
            VC_SAMPLE_SET(s, label, "1KiB");
            s->scale = 1024;
            s->start_wall_ns = T0 + (int64_t)seq * 1000000;
            s->duration_ns = 1000000 + (int64_t)((seq * 7919) % 100000) * 100;
            if (seq == N / 3)
                s->duration_ns = 5000000000LL; /* one spike the time series must keep */
            if (seq % 1000 == 0) {
                s->err_class = VC_EC_TIMEOUT;
                VC_SAMPLE_SET(s, err_code, "OPERATION_TIMEDOUT");
            } else if (s->duration_ns > slowest) {
                slowest = s->duration_ns;
            }
            if (!s->err_class && s->duration_ns < fastest)
                fastest = s->duration_ns;
        }
        add_batch(st, "a", "ops", v, B);
    }
    free(v);
    char *html = render(st, NULL);
    size_t size = strlen(html);
    page_t *pg = parse(html);
    assert_true(size < 1500000);
    size_t curves = 0;
    for (size_t i = 0; i < pg->nrec; i++) {
        const rec_t *r = &pg->rec[i];
        if (r->kind == 1 && !strcmp(r->cls, "cdf-curve")) {
            assert_true(r->npoints <= 2 * VK_CD_MAX_POINTS);
            curves++;
        }
        if (r->kind == 3)
            assert_true(r->npoints <= VK_CD_MAX_POINTS);
    }
    assert_int_equal(curves, 2);
    /* downsampling keeps the extremes and the failures */
    vk_chartdata_t *cd = NULL;
    assert_int_equal(vk_chartdata_build(st, NULL, &cd, err, sizeof err), VC_OK);
    assert_int_equal(cd->nsites, 1);
    const vk_cd_site_t *s = &cd->sites[0];
    assert_true(s->downsampled);
    assert_int_equal(s->n, N);
    assert_int_equal(s->failed, N / 1000);
    assert_true(s->npt <= VK_CD_MAX_POINTS);
    int64_t lo = INT64_MAX, hi = 0;
    size_t failed = 0;
    for (size_t i = 0; i < s->npt; i++) {
        if (i)
            assert_true(s->pt[i].t_ns >= s->pt[i - 1].t_ns);
        if (s->pt[i].failed) {
            failed++;
            continue;
        }
        lo = s->pt[i].dur_ns < lo ? s->pt[i].dur_ns : lo;
        hi = s->pt[i].dur_ns > hi ? s->pt[i].dur_ns : hi;
    }
    assert_int_equal(hi, slowest);
    assert_int_equal(lo, fastest);
    assert_true(failed > 0);
    for (size_t i = 0; i < cd->ndists; i++) {
        const vk_cd_dist_t *d = &cd->dists[i];
        assert_true(d->ncdf <= VK_CD_MAX_POINTS);
        assert_true(d->cdf[0].ns == d->min && d->cdf[d->ncdf - 1].ns == d->max);
    }
    vk_chartdata_destroy(&cd);
    free(pg);
    free(html);
    vk_store_destroy(&st);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_write_and_command(void **state)
{
    fixture_t *f = *state;
    char path[400], err[512];
    snprintf(path, sizeof path, "%s/report.html", f->dir);
    assert_int_equal(vk_report_write_html(f->dir, path, NULL, err, sizeof err), VC_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(sb.st_size > 10000);
    /* a report of one agent only has that agent's site */
    vk_filter_t only = {.agent = "fiber"};
    assert_int_equal(vk_report_write_html(f->dir, path, &only, err, sizeof err), VC_OK);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char *html = calloc(1, (size_t)sb.st_size * 2 + 1);
    size_t n = fread(html, 1, (size_t)sb.st_size * 2, in);
    fclose(in);
    html[n] = '\0';
    page_t *pg = parse(html);
    for (size_t i = 0; i < pg->nrec; i++)
        assert_string_equal(pg->rec[i].site, "home-fiber");
    free(pg);
    free(html);
    /* a directory that cannot take the file: an error that names it */
    assert_int_not_equal(
        vk_report_write_html(f->dir, "/nonexistent-dir/report.html", NULL, err, sizeof err),
        VC_OK);
    assert_non_null(strstr(err, "/nonexistent-dir/report.html"));
    assert_int_not_equal(vk_report_write_html("/nonexistent-vantage", path, NULL, err, sizeof err),
                         VC_OK);
    /* the command writes the same report */
    char out[400];
    snprintf(out, sizeof out, "%s/cmd.html", f->dir);
    char *argv[] = {"report", f->dir, "--format", "html", "-o", out, NULL};
    assert_int_equal(vk_cmd_report(6, argv), 0);
    assert_int_equal(stat(out, &sb), 0);
    assert_true(sb.st_size > 10000);
}

/* A store with no samples, and one whose only samples failed, from an
 * agent without a site label: pages without charts or with empty ones,
 * still well-formed. */
static void test_empty_and_failed(void **state)
{
    (void)state;
    char dir[] = "/tmp/vantage-test-html-empty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char err[512];
    vk_store_t *st = NULL;
    assert_int_equal(vk_store_open(dir, VK_STORE_CREATE, &st, err, sizeof err), VC_OK);
    char *html = render(st, NULL);
    page_t *pg = parse(html);
    assert_int_equal(pg->svg_open, 0);
    assert_non_null(strstr(html, "No samples stored"));
    free(pg);
    free(html);
    assert_int_equal(vk_store_agent(st, "lonely", "", "not json \xef\xbf\xbe"), VC_OK);
    vc_sample_t v[3];
    for (int i = 0; i < 3; i++) {
        vc_sample_init(&v[i]);
        v[i].seq = (uint64_t)i + 1;
        VC_SAMPLE_SET(&v[i], op, i == 2 ? "ais-nbi" : "get");
        VC_SAMPLE_SET(&v[i], label, "1K");
        v[i].scale = 1000;
        v[i].start_wall_ns = T0 + i;
        v[i].duration_ns = i ? 5000000 : -1;
        v[i].err_class = VC_EC_CONNECT;
        VC_SAMPLE_SET(&v[i], err_code, "COULDNT_CONNECT");
    }
    add_batch(st, "lonely", "ops", v, 3);
    html = render(st, NULL);
    pg = parse(html);
    /* no successful sample: no latency chart, the failures on the time series */
    assert_int_equal(pg->charts[0] + pg->charts[1] + pg->charts[2], 0);
    assert_int_equal(pg->charts[3], 1);
    assert_int_equal(count_rec(pg, 3, "errors", "lonely", NULL), 1);
    for (size_t i = 0; i < pg->nrec; i++)
        if (pg->rec[i].kind == 3 && !strcmp(pg->rec[i].cls, "errors"))
            assert_int_equal(pg->rec[i].npoints, 3);
    assert_non_null(strstr(pg->text, "COULDNT_CONNECT"));
    free(pg);
    free(html);
    vk_store_destroy(&st);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_well_formed_and_charts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_escaping_and_no_fetch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chart_numbers, setup, teardown),
        cmocka_unit_test(test_cdf_points),
        cmocka_unit_test(test_scales),
        cmocka_unit_test(test_large_store),
        cmocka_unit_test(test_empty_and_failed),
        cmocka_unit_test_setup_teardown(test_write_and_command, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
