/* Integration test of va_ais against the AIS emulator (tests/ais_emulator)
 * fronting the local Ceph RGW. The test starts its own emulator instance on
 * free ports (fault knobs, settings and inventories are per instance, so it
 * never disturbs other tests using the shared one) and stops it by its pid.
 *
 * Data: 1,000 and 5,000 one-byte objects with aisloader-style names under
 * t-aisclient/1k/ and t-aisclient/5k/ of $VANTAGE_TEST_BUCKET, written once
 * through the emulator by 16 workers and reused (existing ones are skipped);
 * per-run objects go under t-aisclient/run-<pid>/ and are deleted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "va_ais.h"
#include "va_http.h"
#include "it_aisemu.h"

#define RUNS_PREFIX "t-aisclient/"

static it_aisemu_t g_emu; /* our private emulator */
static const char *g_ep = g_emu.ep;
static char g_bucket_uri[160];
static va_ais_bck_t g_bck;

typedef struct {
    const char *prefix;
    int n;
    uint64_t seed;
    char **names; /* sorted */
} dataset_t;

static dataset_t d1k = {RUNS_PREFIX "1k/", 1000, 1001, NULL};
static dataset_t d5k = {RUNS_PREFIX "5k/", 5000, 5005, NULL};

/* ---- the private emulator ---- */

static va_ais_t *client(int json)
{
    char err[512];
    va_ais_opts_t o = {.endpoint = g_ep, .token = "", .timeout_ms = 60000, .prefer_json = json};
    va_ais_t *a = va_ais_new(&o, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    return a;
}

/* ---- data sets ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dataset_make(dataset_t *d)
{
    uint64_t rng = d->seed;
    d->names = calloc((size_t)d->n, sizeof *d->names);
    for (int i = 0; i < d->n; i++) {
        char buf[128];
        assert_int_equal(va_ais_random_name(buf, sizeof buf, d->prefix, &rng), VC_OK);
        d->names[i] = strdup(buf);
    }
    qsort(d->names, (size_t)d->n, sizeof *d->names, cmp_str);
    for (int i = 1; i < d->n; i++)
        assert_string_not_equal(d->names[i - 1], d->names[i]);
}

typedef struct {
    char **v;
    int n, cap;
} strs_t;

static int collect(void *arg, const va_ais_entry_t *e)
{
    strs_t *s = arg;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
    }
    s->v[s->n++] = strdup(e->name);
    return 0;
}

static void strs_free(strs_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* A full listing; keys land in *out (in server order). */
static vc_status_t list_all(va_ais_t *a, const char *prefix, int nbi, const char *inv,
                            int64_t page_size, strs_t *out, vc_sample_t *s)
{
    va_ais_list_opts_t o = {.prefix = prefix, .nbi = nbi, .inv_name = inv,
                            .page_size = page_size, .on_entry = collect, .arg = out};
    return va_ais_list(a, &g_bck, &o, s);
}

static void assert_same_keys(const strs_t *got, char **want, int n)
{
    if (got->n != n)
        fail_msg("listed %d keys, expected %d", got->n, n);
    for (int i = 0; i < n; i++)
        if (strcmp(got->v[i], want[i]) != 0)
            fail_msg("key %d: listed '%s', expected '%s'", i, got->v[i], want[i]);
}

typedef struct {
    char **names;
    int n;
    atomic_int next;
    atomic_int failed;
} put_job_t;

static void *put_worker(void *arg)
{
    put_job_t *j = arg;
    va_ais_t *a = client(0);
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->n;)
        if (va_ais_put(a, &g_bck, j->names[i], "x", 1, NULL)) {
            fprintf(stderr, "populate: %s\n", va_ais_error(a));
            atomic_fetch_add(&j->failed, 1);
        }
    va_ais_destroy(&a);
    return NULL;
}

/* Puts what is missing, with 16 workers like the benchmark's aisloader. */
static void put_many(char **names, int n)
{
    put_job_t j = {.names = names, .n = n};
    pthread_t th[16];
    for (int i = 0; i < 16; i++)
        pthread_create(&th[i], NULL, put_worker, &j);
    for (int i = 0; i < 16; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&j.failed), 0);
}

static void dataset_populate(dataset_t *d)
{
    va_ais_t *a = client(0);
    strs_t have = {0};
    assert_int_equal(list_all(a, d->prefix, 0, NULL, 0, &have, NULL), VC_OK);
    char **missing = calloc((size_t)d->n, sizeof *missing);
    int nm = 0, h = 0;
    for (int i = 0; i < d->n; i++) {
        while (h < have.n && strcmp(have.v[h], d->names[i]) < 0) {
            /* a stray key from some other run: remove it */
            assert_int_equal(va_ais_delete(a, &g_bck, have.v[h], NULL), VC_OK);
            h++;
        }
        if (h < have.n && strcmp(have.v[h], d->names[i]) == 0)
            h++;
        else
            missing[nm++] = d->names[i];
    }
    for (; h < have.n; h++)
        assert_int_equal(va_ais_delete(a, &g_bck, have.v[h], NULL), VC_OK);
    if (nm)
        fprintf(stderr, "populate: putting %d of %d objects under %s\n", nm, d->n, d->prefix);
    put_many(missing, nm);
    free(missing);
    strs_free(&have);
    va_ais_destroy(&a);
}

static int group_setup(void **state)
{
    (void)state;
    const char *bucket = getenv("VANTAGE_TEST_BUCKET");
    if (!bucket || !getenv("VANTAGE_SRC")) {
        fprintf(stderr, "VANTAGE_TEST_BUCKET and VANTAGE_SRC must be set (run through ctest)\n");
        return -1;
    }
    if (it_aisemu_start(&g_emu, "aisclient") != 0)
        return -1;
    snprintf(g_bucket_uri, sizeof g_bucket_uri, "s3://%s", bucket);
    char err[256];
    if (va_ais_bck_parse(g_bucket_uri, &g_bck, NULL, 0, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    dataset_make(&d1k);
    dataset_make(&d5k);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    it_aisemu_stop(&g_emu);
    dataset_t *ds[] = {&d1k, &d5k};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; ds[k]->names && i < ds[k]->n; i++)
            free(ds[k]->names[i]);
        free(ds[k]->names);
    }
    return 0;
}

/* ---- tests ---- */

static void populates_and_probes(void **state)
{
    (void)state;
    dataset_populate(&d1k);
    dataset_populate(&d5k);
    va_ais_t *a = client(0);
    va_ais_cluster_t cl;
    assert_int_equal(va_ais_probe(a, 10000, 100, 1, NULL, &cl), VC_OK);
    assert_true(cl.smap.nactive >= 1);
    assert_true(cl.major > 4 || (cl.major == 4 && cl.minor >= 3));
    va_ais_destroy(&a);
}

static void regular_listing_returns_exactly_the_keys(void **state)
{
    (void)state;
    dataset_t *ds[] = {&d1k, &d5k};
    /* msgpack, then JSON. (The emulator's opaque_tokens knob would check that
     * tokens are echoed, never made up, but it garbles about one token in 40:
     * its unwrap cuts at the last NUL, which may fall in its random nonce.) */
    for (int json = 0; json < 2; json++) {
        va_ais_t *a = client(json);
        for (int k = 0; k < 2; k++) {
            strs_t got = {0};
            vc_sample_t s;
            vc_sample_init(&s);
            assert_int_equal(list_all(a, ds[k]->prefix, 0, NULL, 0, &got, &s), VC_OK);
            assert_same_keys(&got, ds[k]->names, ds[k]->n);
            assert_string_equal(s.op, "ais-regular");
            assert_int_equal(s.keys, ds[k]->n);
            assert_int_equal(s.err_class, VC_EC_NONE);
            /* one S3 ListObjectsV2 page (at most 1000 keys) per AIS page */
            assert_true(s.pages >= ds[k]->n / 1000);
            int64_t sum = 0, dsum = 0;
            for (uint32_t p = 0; p < s.npages; p++) {
                assert_true(s.page[p].keys <= 1000);
                assert_true(s.page[p].duration_ns > 0);
                sum += s.page[p].keys;
                dsum += s.page[p].duration_ns;
            }
            assert_int_equal(sum, ds[k]->n);
            assert_true(s.duration_ns >= dsum);
            assert_true(s.bytes_recv > ds[k]->n * 10);
            vc_sample_clear(&s);
            strs_free(&got);
        }
        va_ais_destroy(&a);
    }
}

static void nbi_create_wait_show_list_destroy(void **state)
{
    (void)state;
    va_ais_t *a = client(0);
    va_ais_nbi_opts_t o = {.prefix = d5k.prefix, .force = 1};
    char job[VA_AIS_JOB_ID_MAX];
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_ais_nbi_create_wait(a, &g_bck, &o, 50, 120000, NULL, job, sizeof job, &s),
                     VC_OK);
    assert_string_equal(s.op, "nbi-create");
    assert_true(s.server_ns > 0);
    assert_true(s.duration_ns > 0);
    assert_int_equal(s.keys, d5k.n);
    assert_int_equal(s.err_class, VC_EC_NONE);
    assert_memory_equal(job, "inv-", 4);
    vc_sample_clear(&s);

    /* show: a nameless create names the inventory after the job */
    va_ais_inv_t *inv;
    size_t n;
    assert_int_equal(va_ais_nbi_show(a, &g_bck, NULL, &inv, &n, NULL), VC_OK);
    assert_int_equal(n, 1);
    assert_string_equal(inv[0].name, job);
    assert_string_equal(inv[0].prefix, d5k.prefix);
    assert_int_equal(inv[0].ntotal, d5k.n);
    free(inv);

    /* regular listing's page pattern, to compare */
    strs_t reg = {0};
    vc_sample_t rs;
    vc_sample_init(&rs);
    assert_int_equal(list_all(a, d5k.prefix, 0, NULL, 0, &reg, &rs), VC_OK);

    /* NBI listing, default page size and 700: the same keys in order */
    int64_t sizes[] = {0, 700};
    for (int i = 0; i < 2; i++) {
        strs_t got = {0};
        vc_sample_init(&s);
        assert_int_equal(list_all(a, d5k.prefix, 1, job, sizes[i], &got, &s), VC_OK);
        assert_string_equal(s.op, "ais-nbi");
        assert_same_keys(&got, d5k.names, d5k.n);
        assert_int_equal(s.keys, d5k.n);
        int same = s.npages == rs.npages;
        for (uint32_t p = 0; same && p < s.npages; p++)
            same = s.page[p].keys == rs.page[p].keys;
        if (same)
            fail_msg("NBI page pattern (page size %lld) equals the regular one",
                     (long long)sizes[i]);
        if (sizes[i] == 700) {
            /* approximate pages: neither exactly 700 nor the S3 1000 */
            assert_true(s.npages > 1);
            assert_true(s.page[0].keys != 700 && s.page[0].keys != 1000);
        }
        vc_sample_clear(&s);
        strs_free(&got);
    }
    /* without the header: the bucket's only inventory */
    strs_t got = {0};
    assert_int_equal(list_all(a, d5k.prefix, 1, NULL, 0, &got, NULL), VC_OK);
    assert_int_equal(got.n, d5k.n);
    strs_free(&got);
    /* a narrower prefix inside the snapshot */
    char sub[64];
    snprintf(sub, sizeof sub, "%sA", d5k.prefix);
    assert_int_equal(list_all(a, sub, 1, job, 0, &got, NULL), VC_OK);
    int want = 0;
    for (int i = 0; i < d5k.n; i++)
        want += strncmp(d5k.names[i], sub, strlen(sub)) == 0;
    assert_int_equal(got.n, want);
    strs_free(&got);

    /* destroy removes it */
    vc_sample_init(&s);
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, job, &s), VC_OK);
    assert_string_equal(s.op, "nbi-destroy");
    vc_sample_clear(&s);
    assert_int_equal(va_ais_nbi_show(a, &g_bck, job, &inv, &n, NULL), VC_OK);
    assert_int_equal(n, 0);
    vc_sample_init(&s);
    assert_int_not_equal(list_all(a, d5k.prefix, 1, job, 0, &got, &s), VC_OK);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_int_equal(s.pages, 0);
    assert_non_null(strstr(va_ais_error(a), job));
    vc_sample_clear(&s);
    strs_free(&got);
    /* destroy is idempotent */
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, NULL, NULL), VC_OK);
    vc_sample_clear(&rs);
    strs_free(&reg);
    va_ais_destroy(&a);
}

static void nbi_is_a_frozen_snapshot(void **state)
{
    (void)state;
    va_ais_t *a = client(0);
    char prefix[64], inv_name[64];
    snprintf(prefix, sizeof prefix, RUNS_PREFIX "run-%d/", (int)getpid());
    snprintf(inv_name, sizeof inv_name, "vt-%d", (int)getpid());
    dataset_t d = {prefix, 40, (uint64_t)getpid(), NULL};
    dataset_make(&d);
    put_many(d.names, 30); /* the first 30 before the snapshot */
    va_ais_nbi_opts_t o = {.prefix = prefix, .name = inv_name, .force = 1};
    char job[VA_AIS_JOB_ID_MAX];
    assert_int_equal(va_ais_nbi_create_wait(a, &g_bck, &o, 50, 60000, NULL, job, sizeof job,
                                            NULL), VC_OK);
    put_many(d.names + 30, 10); /* 10 after */
    assert_int_equal(va_ais_delete(a, &g_bck, d.names[0], NULL), VC_OK);

    strs_t reg = {0}, nbi = {0};
    assert_int_equal(list_all(a, prefix, 0, NULL, 0, &reg, NULL), VC_OK);
    assert_int_equal(list_all(a, prefix, 1, inv_name, 0, &nbi, NULL), VC_OK);
    /* regular sees the 10 new ones and not the deleted one */
    assert_int_equal(reg.n, 39);
    /* NBI lists exactly the first 30, including the deleted one */
    assert_int_equal(nbi.n, 30);
    qsort(d.names, 30, sizeof *d.names, cmp_str);
    assert_same_keys(&nbi, d.names, 30);
    for (int i = 30; i < 40; i++)
        for (int k = 0; k < nbi.n; k++)
            assert_string_not_equal(nbi.v[k], d.names[i]);

    /* cleanup: objects and inventory */
    for (int i = 0; i < reg.n; i++)
        assert_int_equal(va_ais_delete(a, &g_bck, reg.v[i], NULL), VC_OK);
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, inv_name, NULL), VC_OK);
    strs_free(&reg);
    strs_free(&nbi);
    for (int i = 0; i < d.n; i++)
        free(d.names[i]);
    free(d.names);
    va_ais_destroy(&a);
}

static void objects_through_redirects(void **state)
{
    (void)state;
    va_ais_t *a = client(0);
    char key[128];
    snprintf(key, sizeof key, RUNS_PREFIX "run-%d/obj with space", (int)getpid());
    enum { N = 300 * 1024 };
    char *data = malloc(N);
    for (int i = 0; i < N; i++)
        data[i] = (char)(i * 31 + 7);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_ais_put(a, &g_bck, key, data, 100 * 1024, &s), VC_OK);
    assert_int_equal(s.bytes_sent, 100 * 1024);
    assert_int_equal(s.http_status, 200);
    vc_sample_clear(&s);

    FILE *f = tmpfile();
    assert_int_equal(fwrite(data, 1, N, f), N);
    fflush(f);
    assert_int_equal(va_ais_put_file(a, &g_bck, key, f, N, &s), VC_OK);
    assert_int_equal(s.bytes_sent, N);
    fclose(f);
    vc_sample_clear(&s);

    int64_t size = -1;
    assert_int_equal(va_ais_head(a, &g_bck, key, &size, &s), VC_OK);
    assert_int_equal(size, N);
    vc_sample_clear(&s);

    f = tmpfile();
    int64_t got = -1;
    assert_int_equal(va_ais_get(a, &g_bck, key, f, &got, &s), VC_OK);
    assert_int_equal(got, N);
    assert_int_equal(s.bytes_recv, N);
    char *back = malloc(N);
    rewind(f);
    assert_int_equal(fread(back, 1, N, f), N);
    assert_memory_equal(back, data, N);
    fclose(f);
    free(back);
    vc_sample_clear(&s);
    assert_int_equal(va_ais_get(a, &g_bck, key, NULL, &got, NULL), VC_OK);
    assert_int_equal(got, N);

    assert_int_equal(va_ais_delete(a, &g_bck, key, &s), VC_OK);
    vc_sample_clear(&s);
    assert_int_equal(va_ais_head(a, &g_bck, key, &size, &s), VC_ERR_NOTFOUND);
    assert_int_equal(s.http_status, 404);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_true(strlen(s.err_msg) > 0);
    vc_sample_clear(&s);
    assert_int_equal(va_ais_get(a, &g_bck, key, NULL, &got, &s), VC_ERR_NOTFOUND);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    vc_sample_clear(&s);
    free(data);
    va_ais_destroy(&a);
}

static void error_replies_are_clear(void **state)
{
    (void)state;
    va_ais_t *a = client(0);
    vc_sample_t s;
    strs_t got = {0};
    /* an inventory that does not exist */
    vc_sample_init(&s);
    assert_int_equal(list_all(a, d1k.prefix, 1, "no-such-inv", 0, &got, &s), VC_ERR_NOTFOUND);
    assert_int_equal(s.http_status, 404);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_non_null(strstr(va_ais_error(a), "no-such-inv"));
    assert_non_null(strstr(va_ais_error(a), "404"));
    vc_sample_clear(&s);
    /* a bucket that does not exist */
    va_ais_bck_t bad;
    char err[256], uri[96];
    snprintf(uri, sizeof uri, "s3://vantage-no-such-bucket-%d", (int)getpid());
    assert_int_equal(va_ais_bck_parse(uri, &bad, NULL, 0, err, sizeof err), VC_OK);
    va_ais_list_opts_t o = {.prefix = ""};
    vc_sample_init(&s);
    assert_int_equal(va_ais_list(a, &bad, &o, &s), VC_ERR_NOTFOUND);
    assert_non_null(strstr(va_ais_error(a), "vantage-no-such-bucket"));
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    vc_sample_clear(&s);
    /* NBI on a bucket without inventories */
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, NULL, NULL), VC_OK);
    vc_sample_init(&s);
    assert_int_not_equal(list_all(a, d1k.prefix, 1, NULL, 0, &got, &s), VC_OK);
    assert_non_null(strstr(va_ais_error(a), "no inventories"));
    vc_sample_clear(&s);
    va_ais_destroy(&a);

    /* an endpoint nobody listens on */
    char ep[64];
    int port = it_free_port();
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", port);
    va_ais_opts_t oo = {.endpoint = ep, .token = ""};
    a = va_ais_new(&oo, err, sizeof err);
    vc_sample_init(&s);
    assert_int_equal(list_all(a, "", 0, NULL, 0, &got, &s), VC_ERR_NET);
    snprintf(ep, sizeof ep, "127.0.0.1:%d", port);
    assert_non_null(strstr(va_ais_error(a), ep));
    assert_int_equal(s.err_class, VC_EC_CONNECT);
    vc_sample_clear(&s);
    va_ais_destroy(&a);
    strs_free(&got);
}

static void job_that_never_finishes_times_out(void **state)
{
    (void)state;
    it_aisemu_control(&g_emu, "POST", "config", "{\"nbi_page_delay_ms\": 2000}");
    va_ais_t *a = client(0);
    va_ais_nbi_opts_t o = {.prefix = d5k.prefix, .force = 1};
    char job[VA_AIS_JOB_ID_MAX];
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_ais_nbi_create_wait(a, &g_bck, &o, 50, 700, NULL, job, sizeof job, &s),
                     VC_ERR_TIMEOUT);
    assert_non_null(strstr(va_ais_error(a), job));
    assert_int_equal(s.err_class, VC_EC_TIMEOUT);
    assert_string_equal(s.err_code, "JobTimeout");
    assert_true(s.duration_ns >= 700 * VC_NS_PER_MS);
    assert_int_equal(s.server_ns, -1);
    vc_sample_clear(&s);
    it_aisemu_control(&g_emu, "POST", "config", "{\"nbi_page_delay_ms\": 0}");
    /* destroying it aborts the running creation; the job ends aborted */
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, NULL, NULL), VC_OK);
    vc_sample_init(&s);
    vc_status_t rc = va_ais_job_wait(a, job, VA_AIS_KIND_NBI_CREATE, 50, 30000, NULL, NULL, &s);
    assert_true(rc == VC_OK || rc == VC_ERR_SERVER);
    if (rc == VC_ERR_SERVER)
        assert_non_null(strstr(va_ais_error(a), job));
    vc_sample_clear(&s);
    assert_int_equal(va_ais_nbi_destroy(a, &g_bck, NULL, NULL), VC_OK);
    va_ais_destroy(&a);
}

typedef struct {
    strs_t keys;
    int armed;
    void (*arm)(void *);
    void *arg;
} midrun_t;

/* Runs the arm action while the first page is delivered, so the failure
 * hits a later page. */
static int arm_on_first(void *p, const va_ais_entry_t *e)
{
    midrun_t *m = p;
    if (!m->armed) {
        m->armed = 1;
        m->arm(m->arg);
    }
    return collect(&m->keys, e);
}

static void destroy_inventory(void *arg)
{
    va_ais_t *other = client(0);
    assert_int_equal(va_ais_nbi_destroy(other, &g_bck, arg, NULL), VC_OK);
    va_ais_destroy(&other);
}

static void inventory_vanishing_mid_listing_keeps_pages(void **state)
{
    (void)state;
    va_ais_t *a = client(0);
    va_ais_nbi_opts_t o = {.prefix = d5k.prefix, .name = "vt-vanish", .force = 1};
    char job[VA_AIS_JOB_ID_MAX];
    assert_int_equal(va_ais_nbi_create_wait(a, &g_bck, &o, 50, 60000, NULL, job, sizeof job,
                                            NULL), VC_OK);
    midrun_t m = {.arm = destroy_inventory, .arg = "vt-vanish"};
    va_ais_list_opts_t lo = {.prefix = d5k.prefix, .nbi = 1, .inv_name = "vt-vanish",
                             .page_size = 300, .on_entry = arm_on_first, .arg = &m};
    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = va_ais_list(a, &g_bck, &lo, &s);
    assert_int_equal(rc, VC_ERR_NOTFOUND);
    assert_int_equal(s.pages, 1);
    assert_int_equal(s.npages, 1);
    assert_int_equal(s.keys, m.keys.n);
    assert_true(s.keys > 0 && s.keys < d5k.n);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_non_null(strstr(va_ais_error(a), "vt-vanish"));
    vc_sample_clear(&s);
    strs_free(&m.keys);
    va_ais_destroy(&a);
}

static void arm_fault(void *arg)
{
    it_aisemu_control(&g_emu, "POST", "fault", arg);
}

static void malformed_and_failing_replies_mid_listing(void **state)
{
    (void)state;
    static const struct {
        const char *fault;
        int json;
        vc_status_t rc;
        vc_errclass_t ec;
        const char *code;
    } cases[] = {
        {"{\"fault\":\"list-malformed\",\"variant\":\"msgpack-truncated\"}", 0, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadMsgpack"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"msgpack-huge-array\"}", 0, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadMsgpack"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"msgpack-wrong-type\"}", 0, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadMsgpack"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"msgpack-not-map\"}", 0, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadMsgpack"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"json-truncated\"}", 1, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadJSON"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"json-wrong-type\"}", 1, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadJSON"},
        {"{\"fault\":\"list-malformed\",\"variant\":\"json-garbage\"}", 1, VC_ERR_PROTO,
         VC_EC_PROTOCOL, "BadJSON"},
        {"{\"fault\":\"list-token-repeat\"}", 0, VC_ERR_PROTO, VC_EC_PROTOCOL, "TokenRepeated"},
        {"{\"fault\":\"list-error\",\"status\":503}", 0, VC_ERR_SERVER, VC_EC_SERVER, NULL},
        {"{\"fault\":\"list-error\",\"status\":429}", 0, VC_ERR_SERVER, VC_EC_THROTTLED, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        va_ais_t *a = client(cases[i].json);
        midrun_t m = {.arm = arm_fault, .arg = (void *)cases[i].fault};
        va_ais_list_opts_t lo = {.prefix = d5k.prefix, .on_entry = arm_on_first, .arg = &m};
        vc_sample_t s;
        vc_sample_init(&s);
        vc_status_t rc = va_ais_list(a, &g_bck, &lo, &s);
        int want_pages = strstr(cases[i].fault, "token-repeat") ? 2 : 1;
        if (rc != cases[i].rc || s.err_class != cases[i].ec || s.pages != want_pages)
            fail_msg("%s: rc %d class %s pages %d: %s", cases[i].fault, rc,
                     vc_errclass_name(s.err_class), s.pages, va_ais_error(a));
        if (cases[i].code)
            assert_string_equal(s.err_code, cases[i].code);
        assert_int_equal(s.keys, m.keys.n);
        assert_true(s.keys >= 1000 && s.keys < d5k.n);
        assert_true(strlen(va_ais_error(a)) > 20);
        vc_sample_clear(&s);
        strs_free(&m.keys);
        it_aisemu_control(&g_emu, "DELETE", "fault", NULL);
        va_ais_destroy(&a);
    }
}

static void refuses_nbi_before_4_3(void **state)
{
    (void)state;
    it_aisemu_control(&g_emu, "POST", "config", "{\"version\": \"4.2\"}");
    va_ais_t *a = client(0);
    va_ais_cluster_t cl;
    assert_int_equal(va_ais_probe(a, 5000, 100, 1, NULL, &cl), VC_ERR_UNSUPPORTED);
    assert_non_null(strstr(va_ais_error(a), "4.2"));
    assert_non_null(strstr(va_ais_error(a), "4.3"));
    assert_int_equal(va_ais_probe(a, 5000, 100, 0, NULL, &cl), VC_OK);
    it_aisemu_control(&g_emu, "POST", "config", "{\"version\": \"5.0\"}");
    assert_int_equal(va_ais_probe(a, 5000, 100, 1, NULL, &cl), VC_OK);
    va_ais_destroy(&a);
}

int main(void)
{
    va_http_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(populates_and_probes),
        cmocka_unit_test(regular_listing_returns_exactly_the_keys),
        cmocka_unit_test(nbi_create_wait_show_list_destroy),
        cmocka_unit_test(nbi_is_a_frozen_snapshot),
        cmocka_unit_test(objects_through_redirects),
        cmocka_unit_test(error_replies_are_clear),
        cmocka_unit_test(job_that_never_finishes_times_out),
        cmocka_unit_test(inventory_vanishing_mid_listing_keeps_pages),
        cmocka_unit_test(malformed_and_failing_replies_mid_listing),
        cmocka_unit_test(refuses_nbi_before_4_3),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
