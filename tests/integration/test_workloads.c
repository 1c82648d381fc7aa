/* Integration test of the agent's workloads (va_workload_run) against the
 * local Ceph RGW and a private AIS emulator in front of it, with a collecting
 * emit callback: populate (S3 and AIS, idempotence), ops (s3bench order,
 * bytes), probe, calibrate, and list-scale with all three paths, including a
 * wrong expected count, unreachable servers, a failing NBI creation and a
 * cancellation.
 *
 * Data: list-scale reads two small prefixes, t-workloads/ls-250/ and
 * t-workloads/ls-1100/ (sequential names, one byte each), written once by the
 * populate workload itself and reused; everything else goes under
 * t-workloads-<pid>/ and is deleted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "va_http.h"
#include "va_target.h"
#include "va_workload.h"
#include "it_aisemu.h"

#define LS_SMALL "t-workloads/ls-250/"
#define LS_LARGE "t-workloads/ls-1100/"

static it_aisemu_t g_emu; /* our private emulator */
static const char *g_ep = g_emu.ep;
static char g_run[64], g_bucket[128], g_closed_ep[64];

/* ---- collecting callbacks ---- */

typedef struct {
    pthread_mutex_t mu;
    vc_sample_t *v;
    size_t n, cap;
    int progress_calls;
    int64_t last_done, last_total;
    int cancel_after; /* > 0: set cancel once this many samples arrived */
    atomic_int cancel;
} sink_t;

static void on_emit(void *arg, const vc_sample_t *s)
{
    sink_t *k = arg;
    pthread_mutex_lock(&k->mu);
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 256;
        k->v = realloc(k->v, k->cap * sizeof *k->v);
        if (!k->v)
            abort(); /* worker threads: no cmocka assertions here */
    }
    vc_sample_init(&k->v[k->n]);
    if (vc_sample_copy(&k->v[k->n], s) != VC_OK)
        abort();
    k->n++;
    if (getenv("VANTAGE_TEST_VERBOSE"))
        fprintf(stderr, "sample op=%s label=%s run=%d worker=%d dur=%lldus server=%lldus keys=%lld "
                        "pages=%d status=%d class=%d flags=%#x code=%s msg=%s\n",
                s->op, s->label, s->run, s->worker, (long long)s->duration_ns / 1000,
                (long long)s->server_ns / 1000, (long long)s->keys, s->pages, s->http_status,
                s->err_class, s->flags, s->err_code, s->err_msg);
    if (k->cancel_after > 0 && (int)k->n >= k->cancel_after)
        atomic_store(&k->cancel, 1);
    pthread_mutex_unlock(&k->mu);
}

static void on_progress(void *arg, int64_t done, int64_t total, int64_t errors, const char *what)
{
    sink_t *k = arg;
    (void)errors;
    if (!what)
        abort();
    pthread_mutex_lock(&k->mu);
    k->progress_calls++;
    k->last_done = done;
    k->last_total = total;
    pthread_mutex_unlock(&k->mu);
}

static void sink_init(sink_t *k)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
}

static void sink_free(sink_t *k)
{
    for (size_t i = 0; i < k->n; i++)
        vc_sample_clear(&k->v[i]);
    free(k->v);
    pthread_mutex_destroy(&k->mu);
}

static vc_status_t run(const vc_job_t *job, sink_t *k, const char *work_dir, char *err,
                       size_t errlen)
{
    va_workload_env_t env = {.agent_name = "it-agent", .site = "test", .work_dir = work_dir,
                             .emit = on_emit, .progress = on_progress, .arg = k,
                             .cancel = &k->cancel};
    err[0] = '\0';
    return va_workload_run(job, &env, err, errlen);
}

static size_t count_op(const sink_t *k, const char *op, const char *label)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].op, op) == 0 && (!label || strcmp(k->v[i].label, label) == 0))
            n++;
    return n;
}

static const vc_sample_t *find_op(const sink_t *k, const char *op, const char *label)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].op, op) == 0 && (!label || strcmp(k->v[i].label, label) == 0))
            return &k->v[i];
    return NULL;
}

/* ---- targets and the private emulator ---- */

static void s3_target(vc_target_t *t)
{
    vc_target_init(t);
    snprintf(t->name, sizeof t->name, "rgw");
    t->kind = VC_TK_S3;
    snprintf(t->bucket, sizeof t->bucket, "%s", g_bucket);
}

static void ais_target(vc_target_t *t, const char *endpoint)
{
    vc_target_init(t);
    snprintf(t->name, sizeof t->name, "aisemu");
    t->kind = VC_TK_AIS;
    snprintf(t->endpoint, sizeof t->endpoint, "%s", endpoint);
    snprintf(t->bucket, sizeof t->bucket, "%s", g_bucket);
    snprintf(t->provider, sizeof t->provider, "aws");
}

/* Keys under prefix as the S3 target lists them, -1 on failure. */
static int64_t s3_count(const char *prefix)
{
    vc_target_t t;
    char err[512];
    s3_target(&t);
    va_target_t *c = va_target_new(&t, NULL, err, sizeof err);
    assert_non_null(c);
    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = va_target_list(c, prefix, 1000, NULL, NULL, NULL, &s);
    int64_t n = rc == VC_OK ? s.keys : -1;
    vc_sample_clear(&s);
    va_target_destroy(&c);
    return n;
}

static int delete_key(void *ud, const char *key)
{
    char **keys = ud;
    size_t n = 0;
    while (keys[n])
        n++;
    keys[n] = strdup(key);
    return 0;
}

/* Removes everything under prefix (small test prefixes only). */
static void s3_wipe(const char *prefix)
{
    vc_target_t t;
    char err[512];
    s3_target(&t);
    va_target_t *c = va_target_new(&t, NULL, err, sizeof err);
    assert_non_null(c);
    char **keys = calloc(5001, sizeof *keys);
    assert_int_equal(va_target_list(c, prefix, 1000, delete_key, keys, NULL, NULL), VC_OK);
    for (size_t i = 0; keys[i]; i++) {
        assert_int_equal(va_target_delete(c, keys[i], NULL), VC_OK);
        free(keys[i]);
    }
    free(keys);
    va_target_destroy(&c);
}

static void populate_prefix(const char *prefix, int64_t count)
{
    vc_job_t job;
    sink_t k;
    char err[512];
    vc_job_init(&job, VC_WL_POPULATE);
    s3_target(&job.target);
    snprintf(job.prefix, sizeof job.prefix, "%s", prefix);
    job.count = count;
    job.sequential_names = 1;
    sink_init(&k);
    if (run(&job, &k, NULL, err, sizeof err) != VC_OK)
        fail_msg("populating %s: %s", prefix, err);
    sink_free(&k);
    assert_int_equal(s3_count(prefix), count);
}

static int group_setup(void **state)
{
    (void)state;
    const char *bucket = getenv("VANTAGE_TEST_BUCKET");
    if (!bucket || !getenv("VANTAGE_SRC") || !getenv("AWS_ENDPOINT_URL")) {
        fprintf(stderr, "VANTAGE_TEST_BUCKET, VANTAGE_SRC and AWS_ENDPOINT_URL must be set "
                        "(run through ctest)\n");
        return -1;
    }
    snprintf(g_bucket, sizeof g_bucket, "%s", bucket);
    snprintf(g_run, sizeof g_run, "t-workloads-%d/", (int)getpid());
    int closed = it_free_port(); /* nothing listens there */
    snprintf(g_closed_ep, sizeof g_closed_ep, "http://127.0.0.1:%d", closed);
    if (closed < 0 || it_aisemu_start(&g_emu, "workloads") != 0)
        return -1;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    it_aisemu_stop(&g_emu);
    return 0;
}

/* ---- populate ---- */

static void populate_s3_then_again_adds_nothing(void **state)
{
    (void)state;
    char prefix[128], err[512];
    snprintf(prefix, sizeof prefix, "%spop/", g_run);
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    assert_int_equal(job.workers, 16);
    s3_target(&job.target);
    snprintf(job.prefix, sizeof job.prefix, "%s", prefix);
    job.count = 300;

    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 300);
    int seen_run[300] = {0};
    int workers_used = 0, seen_worker[16] = {0};
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *s = &k.v[i];
        assert_string_equal(s->op, "put");
        assert_string_equal(s->label, prefix);
        assert_int_equal(s->scale, 1);
        assert_int_equal(s->err_class, VC_EC_NONE);
        assert_int_equal(s->http_status, 200);
        assert_int_equal(s->bytes_sent, 1);
        assert_true(s->duration_ns > 0);
        assert_true(s->start_wall_ns > 0);
        assert_in_range(s->run, 0, 299);
        seen_run[s->run]++;
        assert_in_range(s->worker, 0, 15);
        if (!seen_worker[s->worker]++)
            workers_used++;
    }
    for (int i = 0; i < 300; i++)
        assert_int_equal(seen_run[i], 1);
    assert_true(workers_used > 1);
    assert_true(k.progress_calls >= 2);
    assert_int_equal(k.last_done, 300);
    assert_int_equal(k.last_total, 300);
    sink_free(&k);
    assert_int_equal(s3_count(prefix), 300);

    /* the same job again: everything is there, nothing is written */
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 0);
    sink_free(&k);
    assert_int_equal(s3_count(prefix), 300);

    /* a larger count adds only the difference */
    job.count = 320;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 20);
    sink_free(&k);
    assert_int_equal(s3_count(prefix), 320);
    s3_wipe(prefix);
}

static void populate_through_ais_sequential(void **state)
{
    (void)state;
    char prefix[128], err[512];
    snprintf(prefix, sizeof prefix, "%spop-ais/", g_run);
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    ais_target(&job.target, g_ep);
    snprintf(job.prefix, sizeof job.prefix, "%s", prefix);
    job.count = 40;
    job.workers = 4;
    job.sequential_names = 1;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 40);
    for (size_t i = 0; i < k.n; i++) {
        assert_string_equal(k.v[i].op, "put");
        assert_int_equal(k.v[i].err_class, VC_EC_NONE);
    }
    sink_free(&k);
    assert_int_equal(s3_count(prefix), 40);

    /* one object removed behind its back: the next run puts exactly that one */
    vc_target_t t;
    s3_target(&t);
    va_target_t *c = va_target_new(&t, NULL, err, sizeof err);
    char key[160];
    snprintf(key, sizeof key, "%s0000000007", prefix);
    assert_int_equal(va_target_delete(c, key, NULL), VC_OK);
    va_target_destroy(&c);
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 1);
    assert_int_equal(k.v[0].run, 7); /* sequential: run is the object's index */
    sink_free(&k);
    assert_int_equal(s3_count(prefix), 40);
    s3_wipe(prefix);
}

static void populate_unreachable_fails_before_any_sample(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    s3_target(&job.target);
    snprintf(job.target.endpoint, sizeof job.target.endpoint, "%s", g_closed_ep);
    snprintf(job.prefix, sizeof job.prefix, "%snowhere/", g_run);
    job.count = 10;
    sink_t k;
    sink_init(&k);
    assert_int_not_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 0);
    assert_non_null(strstr(err, g_closed_ep + 7)); /* names host:port */
    sink_free(&k);
}

static void populate_stops_when_puts_keep_failing(void **state)
{
    (void)state;
    char err[512], prefix[128];
    snprintf(prefix, sizeof prefix, "%spop-fail/", g_run);
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    ais_target(&job.target, g_ep);
    snprintf(job.prefix, sizeof job.prefix, "%s", prefix);
    job.count = 300;
    job.workers = 4;
    it_aisemu_control(&g_emu, "POST", "fault", "{\"fault\": \"object-error\", \"count\": 1000, \"status\": 500}");
    sink_t k;
    sink_init(&k);
    vc_status_t rc = run(&job, &k, NULL, err, sizeof err);
    it_aisemu_control(&g_emu, "DELETE", "fault", NULL);
    assert_int_equal(rc, VC_ERR_SERVER);
    assert_non_null(strstr(err, "100 failed PUTs in a row"));
    assert_non_null(strstr(err, prefix));
    /* it stopped at the limit, give or take the PUTs already in flight */
    assert_in_range(k.n, 100, 100 + 4);
    for (size_t i = 0; i < k.n; i++)
        assert_int_equal(k.v[i].err_class, VC_EC_SERVER);
    sink_free(&k);
    s3_wipe(prefix);
}

static void populate_cancel_stops_promptly(void **state)
{
    (void)state;
    char err[512], prefix[128];
    snprintf(prefix, sizeof prefix, "%spop-cancel/", g_run);
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    s3_target(&job.target);
    snprintf(job.prefix, sizeof job.prefix, "%s", prefix);
    job.count = 5000;
    sink_t k;
    sink_init(&k);
    k.cancel_after = 50;
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_CANCELLED);
    assert_in_range(k.n, 50, 50 + 16);
    sink_free(&k);
    assert_in_range(s3_count(prefix), 50, 50 + 16);
    s3_wipe(prefix);
}

/* ---- ops ---- */

static void ops_s3bench_order_and_bytes(void **state)
{
    (void)state;
    char err[512], wd[128];
    snprintf(wd, sizeof wd, "/tmp/vantage-ops-wd-%d", (int)getpid());
    assert_int_equal(mkdir(wd, 0700), 0);
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    assert_int_equal(job.object_size, 5 * 1024 * 1024);
    s3_target(&job.target);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sops/", g_run);
    job.iterations = 3;
    job.object_size = 256 * 1024;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, wd, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 12);
    const char *order[] = {"put", "get", "head", "delete"};
    char label[128];
    snprintf(label, sizeof label, "%sops/", g_run); /* the same on every agent */
    for (size_t i = 0; i < 12; i++) {
        const vc_sample_t *s = &k.v[i];
        assert_string_equal(s->op, order[i / 3]);
        assert_int_equal(s->run, (int)(i % 3));
        assert_int_equal(s->scale, 256 * 1024);
        assert_string_equal(s->label, label);
        assert_int_equal(s->err_class, VC_EC_NONE);
        assert_true(s->duration_ns > 0);
        assert_true(s->cpu_user_us >= 0 && s->cpu_sys_us >= 0);
        assert_true(s->connect_us >= -1);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(k.v[i].bytes_sent, 256 * 1024);
        assert_int_equal(k.v[3 + i].bytes_recv, 256 * 1024);
        assert_int_equal(k.v[6 + i].http_status, 200);
        assert_int_equal(k.v[6 + i].bytes_recv, 0);
        assert_int_equal(k.v[9 + i].http_status, 204);
    }
    sink_free(&k);
    /* the downloads were removed, the objects deleted */
    DIR *d = opendir(wd);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 0);
    rmdir(wd);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%sops/", g_run);
    assert_int_equal(s3_count(prefix), 0);

    /* get of what is not there: error samples, the job still ran */
    job.nops = 1;
    job.ops[0] = VC_OP_GET;
    job.iterations = 2;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 2);
    assert_int_equal(k.v[0].err_class, VC_EC_CLIENT);
    assert_int_equal(k.v[0].http_status, 404);
    assert_string_equal(k.v[0].err_code, "NoSuchKey");
    sink_free(&k);

    /* downloads into a directory that does not exist: refused up front */
    sink_init(&k);
    assert_int_equal(run(&job, &k, "/nonexistent-vantage-dir", err, sizeof err), VC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent-vantage-dir"));
    assert_int_equal(k.n, 0);
    sink_free(&k);
}

/* Run-major iterations numbered from run_first, as an interleaved schedule
 * sends them: each iteration puts, reads and deletes its own key. */
static void ops_interleaved_from_run_first(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    s3_target(&job.target);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sops-il/", g_run);
    job.object_size = 1000;
    job.iterations = 2;
    job.run_first = 5;
    job.interleave = 1;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 8);
    const char *order[] = {"put", "get", "head", "delete"};
    for (size_t i = 0; i < 8; i++) {
        assert_string_equal(k.v[i].op, order[i % 4]);
        assert_int_equal(k.v[i].run, 5 + (int)(i / 4));
        assert_int_equal(k.v[i].err_class, VC_EC_NONE);
    }
    sink_free(&k);
}

static void ops_through_ais_with_file_upload(void **state)
{
    (void)state;
    char err[512], path[128];
    snprintf(path, sizeof path, "/tmp/vantage-ops-up-%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 5000; i++)
        fputc('a' + i % 26, f);
    fclose(f);
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    ais_target(&job.target, g_ep);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sops-ais/", g_run);
    snprintf(job.upload_file, sizeof job.upload_file, "%s", path);
    job.iterations = 2;
    job.workers = 2;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    unlink(path);
    assert_int_equal(k.n, 8);
    const char *order[] = {"put", "get", "head", "delete"};
    for (size_t i = 0; i < 8; i++) {
        assert_string_equal(k.v[i].op, order[i / 2]);
        assert_int_equal(k.v[i].err_class, VC_EC_NONE);
        assert_int_equal(k.v[i].scale, 5000);
    }
    assert_int_equal(k.v[2].bytes_recv + k.v[3].bytes_recv, 10000);
    sink_free(&k);
}


/* Through AIS with four workers in the loop: gets of objects that are not
 * there are one 404 sample each (class client, AIS's error code), and the
 * puts, heads and deletes around them all succeed. */
static void ops_through_ais_errors_per_request(void **state)
{
    (void)state;
    char err[512];
    enum { N = 12 };
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    ais_target(&job.target, g_ep);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sops-ais-miss/", g_run);
    job.iterations = N;
    job.workers = 4;
    job.object_size = 100;
    job.nops = 4; /* delete first: every get then misses */
    job.ops[0] = VC_OP_PUT;
    job.ops[1] = VC_OP_DELETE;
    job.ops[2] = VC_OP_GET;
    job.ops[3] = VC_OP_HEAD;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 4 * N);
    int runs[4][N] = {{0}};
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *x = &k.v[i];
        int o = strcmp(x->op, "put") == 0      ? 0
                : strcmp(x->op, "delete") == 0 ? 1
                : strcmp(x->op, "get") == 0    ? 2
                                               : 3;
        assert_true(x->run >= 0 && x->run < N);
        runs[o][x->run]++;
        if (o < 2) {
            assert_int_equal(x->err_class, VC_EC_NONE);
        } else {
            /* the object is gone: 404 from AIS, an error of that request only */
            assert_int_equal(x->http_status, 404);
            assert_int_equal(x->err_class, VC_EC_CLIENT);
            assert_true(x->err_code[0] != '\0');
        }
    }
    for (int o = 0; o < 4; o++)
        for (int r = 0; r < N; r++)
            assert_int_equal(runs[o][r], 1);
    sink_free(&k);
}

/* ---- probe and calibrate ---- */

static void probe_counts_404_as_success(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    vc_job_init(&job, VC_WL_PROBE);
    s3_target(&job.target);
    job.probe_count = 3;
    job.probe_interval_ms = 100;
    sink_t k;
    sink_init(&k);
    vc_mono_ns_t t0 = vc_mono_now();
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    /* scheduled every 100 ms: the third round starts 200 ms after the first */
    assert_true(vc_mono_now() - t0 >= 200 * VC_NS_PER_MS);
    assert_int_equal(k.n, 6);
    for (size_t i = 0; i < 6; i++) {
        const vc_sample_t *s = &k.v[i];
        assert_string_equal(s->op, i % 2 ? "probe-head" : "probe-connect");
        assert_int_equal(s->run, (int)(i / 2));
        assert_string_equal(s->label, "rgw"); /* the target's name, the same from every site */
        assert_int_equal(s->err_class, VC_EC_NONE);
        assert_true(s->duration_ns > 0);
        if (i % 2)
            assert_int_equal(s->http_status, 404);
        else
            assert_int_equal(s->connect_us, (int32_t)(s->duration_ns / 1000));
    }
    sink_free(&k);

    /* a closed port: connect refused, the HEAD fails to connect too */
    snprintf(job.target.endpoint, sizeof job.target.endpoint, "%s", g_closed_ep);
    job.probe_count = 1;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(k.n, 2);
    assert_int_equal(k.v[0].err_class, VC_EC_CONNECT);
    assert_string_equal(k.v[0].err_code, "ECONNREFUSED");
    assert_non_null(strstr(k.v[0].err_msg, g_closed_ep + 7));
    assert_int_equal(k.v[1].err_class, VC_EC_CONNECT);
    sink_free(&k);

    /* a cancel stops it between rounds, not after the remaining schedule */
    s3_target(&job.target);
    job.probe_count = 100;
    job.probe_interval_ms = 1000;
    sink_init(&k);
    k.cancel_after = 2;
    t0 = vc_mono_now();
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_CANCELLED);
    assert_true(vc_mono_now() - t0 < 500 * VC_NS_PER_MS);
    assert_int_equal(k.n, 2);
    sink_free(&k);
}

static void calibrate_measures_the_floor(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    vc_job_init(&job, VC_WL_CALIBRATE);
    job.count = 50;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_int_equal(count_op(&k, "calibrate-timer", NULL), 4);
    assert_int_equal(count_op(&k, "calibrate-request", "s3-head"), 50);
    assert_int_equal(count_op(&k, "calibrate-request", "http-get"), 50);
    assert_int_equal(count_op(&k, "calibrate-request", "s3-get-loop"), 50);
    int seen_run[50] = {0}, seen_worker[8] = {0};
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *x = &k.v[i];
        if (strcmp(x->label, "s3-get-loop") != 0)
            continue;
        assert_true(x->run >= 0 && x->run < 50 && x->worker >= 0 && x->worker < 8);
        seen_run[x->run]++;
        seen_worker[x->worker]++;
        assert_true(x->cpu_user_us >= 0 && x->cpu_sys_us >= 0);
        assert_true(x->ttfb_us >= 0 && x->ttfb_us * 1000 <= x->duration_ns);
    }
    for (int r = 0; r < 50; r++)
        assert_int_equal(seen_run[r], 1);
    for (int w = 0; w < 8; w++)
        assert_true(seen_worker[w] > 0); /* all eight connections carried requests */
    const vc_sample_t *res = find_op(&k, "calibrate-timer", "getres");
    const vc_sample_t *cost = find_op(&k, "calibrate-timer", "now-cost");
    assert_non_null(res);
    assert_non_null(cost);
    assert_in_range(res->duration_ns, 1, 1000000);
    assert_in_range(cost->duration_ns, 1, 100000);
    for (size_t i = 0; i < k.n; i++) {
        assert_int_equal(k.v[i].flags & VC_SF_SATURATED, 0);
        if (strcmp(k.v[i].op, "calibrate-request") == 0) {
            assert_int_equal(k.v[i].err_class, VC_EC_NONE);
            assert_int_equal(k.v[i].http_status, 200);
            assert_true(k.v[i].duration_ns > 0);
        }
    }
    sink_free(&k);
}

/* ---- list-scale ---- */

static void listscale_job(vc_job_t *job, const char *ais_ep, int64_t small, int64_t large)
{
    vc_job_init(job, VC_WL_LIST_SCALE);
    ais_target(&job->target, ais_ep);
    job->has_direct = 1;
    s3_target(&job->direct);
    job->runs = 3;
    job->nbi_poll_ms = 50;
    job->nbi_timeout_ms = 60000;
    job->nscale = 2;
    snprintf(job->scale[0].label, sizeof job->scale[0].label, "250");
    snprintf(job->scale[0].prefix, sizeof job->scale[0].prefix, LS_SMALL);
    job->scale[0].count = small;
    snprintf(job->scale[1].label, sizeof job->scale[1].label, "1.1K");
    snprintf(job->scale[1].prefix, sizeof job->scale[1].prefix, LS_LARGE);
    job->scale[1].count = large;
}

/* The point labelled label completed: its count check, creation, runs x 3
 * listings with the right count, and the inventory removal. */
static void assert_point_complete(const sink_t *k, const char *label, int64_t count, int runs)
{
    assert_int_equal(count_op(k, "count-check", label), 1);
    const vc_sample_t *cc = find_op(k, "count-check", label);
    assert_int_equal(cc->err_class, VC_EC_NONE);
    assert_int_equal(cc->keys, count);
    assert_true(cc->flags & VC_SF_WARMUP);
    assert_int_equal(count_op(k, "nbi-create", label), 1);
    const vc_sample_t *nc = find_op(k, "nbi-create", label);
    assert_int_equal(nc->err_class, VC_EC_NONE);
    assert_true(nc->duration_ns > 0);
    assert_true(nc->server_ns > 0);
    assert_true(nc->server_ns <= nc->duration_ns + 1000 * VC_NS_PER_MS);
    assert_int_equal(nc->scale, count);
    const char *ops[] = {"ais-regular", "ais-nbi", "s3-direct"};
    for (int p = 0; p < 3; p++) {
        int seen = 0;
        for (size_t i = 0; i < k->n; i++) {
            const vc_sample_t *s = &k->v[i];
            if (strcmp(s->op, ops[p]) || strcmp(s->label, label) || (s->flags & VC_SF_WARMUP))
                continue;
            assert_int_equal(s->run, seen);
            assert_int_equal(s->err_class, VC_EC_NONE);
            assert_int_equal(s->flags & VC_SF_COUNT_MISMATCH, 0);
            assert_int_equal(s->keys, count);
            assert_int_equal(s->scale, count);
            assert_true(s->pages >= 1);
            assert_int_equal((int)s->npages, s->pages);
            int64_t keys = 0;
            for (uint32_t j = 0; j < s->npages; j++)
                keys += s->page[j].keys;
            assert_int_equal(keys, count);
            if (p == 2)
                assert_int_equal(s->pages, (int)((count + 999) / 1000)); /* MaxKeys 1000 */
            seen++;
        }
        if (seen != runs)
            fail_msg("point %s: %d %s listings, expected %d", label, seen, ops[p], runs);
    }
    assert_int_equal(count_op(k, "nbi-destroy", label), 1);
    assert_int_equal(find_op(k, "nbi-destroy", label)->err_class, VC_EC_NONE);
}

/* No inventory is left behind in the emulator. */
static void assert_no_inventory(void)
{
    vc_target_t t;
    char err[512];
    ais_target(&t, g_ep);
    va_target_t *c = va_target_new(&t, NULL, err, sizeof err);
    assert_non_null(c);
    va_ais_inv_t *inv = NULL;
    size_t n = 99;
    assert_int_equal(va_ais_nbi_show(va_target_ais(c), va_target_bck(c), NULL, &inv, &n, NULL),
                     VC_OK);
    assert_int_equal(n, 0);
    free(inv);
    va_target_destroy(&c);
}

static void listscale_all_paths(void **state)
{
    (void)state;
    populate_prefix(LS_SMALL, 250);
    populate_prefix(LS_LARGE, 1100);
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_ep, 250, 1100);
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    /* the warm-up came first */
    assert_string_equal(k.v[0].op, "s3-direct");
    assert_true(k.v[0].flags & VC_SF_WARMUP);
    assert_int_equal(k.v[0].err_class, VC_EC_NONE);
    assert_point_complete(&k, "250", 250, 3);
    assert_point_complete(&k, "1.1K", 1100, 3);
    assert_int_equal(k.n, 1 + 2 * (1 + 1 + 9 + 1));
    assert_int_equal(k.last_done, k.last_total);
    sink_free(&k);
    assert_no_inventory();
}

static void listscale_wrong_count_skips_that_point(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_ep, 251, 1100);
    job.warmup = 0;
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    const vc_sample_t *cc = find_op(&k, "count-check", "250");
    assert_non_null(cc);
    assert_int_equal(cc->err_class, VC_EC_MISMATCH);
    assert_true(cc->flags & VC_SF_COUNT_MISMATCH);
    assert_int_equal(cc->flags & VC_SF_WARMUP, 0);
    assert_string_equal(cc->err_code, "CountMismatch");
    assert_int_equal(cc->keys, 250);
    assert_non_null(strstr(cc->err_msg, "250"));
    assert_non_null(strstr(cc->err_msg, "251"));
    assert_non_null(strstr(cc->err_msg, LS_SMALL));
    size_t n250 = 0;
    for (size_t i = 0; i < k.n; i++)
        n250 += strcmp(k.v[i].label, "250") == 0;
    assert_int_equal(n250, 1); /* nothing else for that point */
    assert_point_complete(&k, "1.1K", 1100, 3);
    sink_free(&k);
    assert_no_inventory();
}

static void listscale_unreachable_ais(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_closed_ep, 250, 1100);
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    /* the warm-up (S3) worked; each point failed at its count check */
    assert_int_equal(k.v[0].err_class, VC_EC_NONE);
    assert_int_equal(k.n, 3);
    for (int i = 1; i < 3; i++) {
        const vc_sample_t *s = &k.v[i];
        assert_string_equal(s->op, "count-check");
        assert_string_equal(s->label, i == 1 ? "250" : "1.1K");
        assert_int_equal(s->err_class, VC_EC_CONNECT);
        assert_int_equal(s->flags & VC_SF_WARMUP, 0); /* an error, not a warm-up */
        assert_non_null(strstr(s->err_msg, "count check"));
        assert_non_null(strstr(s->err_msg, g_closed_ep + 7));
    }
    sink_free(&k);
}

static void listscale_unreachable_direct_s3(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_ep, 250, 1100);
    job.runs = 1;
    snprintf(job.direct.endpoint, sizeof job.direct.endpoint, "%s", g_closed_ep);
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    assert_true(k.v[0].flags & VC_SF_WARMUP);
    assert_int_equal(k.v[0].err_class, VC_EC_CONNECT);
    const char *labels[] = {"250", "1.1K"};
    for (int p = 0; p < 2; p++) {
        assert_int_equal(find_op(&k, "ais-regular", labels[p])->err_class, VC_EC_NONE);
        assert_int_equal(find_op(&k, "ais-nbi", labels[p])->err_class, VC_EC_NONE);
        const vc_sample_t *s = find_op(&k, "s3-direct", labels[p]);
        assert_non_null(s);
        assert_int_equal(s->err_class, VC_EC_CONNECT);
        assert_non_null(strstr(s->err_msg, "s3-direct listing"));
        assert_int_equal(count_op(&k, "nbi-destroy", labels[p]), 1);
    }
    sink_free(&k);
    assert_no_inventory();
}

static void listscale_failing_nbi_creation(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_ep, 250, 1100);
    job.warmup = 0;
    it_aisemu_control(&g_emu, "POST", "fault", "{\"fault\": \"nbi-fail\", \"count\": 1}");
    sink_t k;
    sink_init(&k);
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
    it_aisemu_control(&g_emu, "DELETE", "fault", NULL);
    const vc_sample_t *nc = find_op(&k, "nbi-create", "250");
    assert_non_null(nc);
    assert_int_not_equal(nc->err_class, VC_EC_NONE);
    assert_non_null(strstr(nc->err_msg, "inventory creation"));
    assert_non_null(strstr(nc->err_msg, LS_SMALL));
    assert_int_equal(count_op(&k, "ais-regular", "250"), 0);
    assert_int_equal(count_op(&k, "ais-nbi", "250"), 0);
    assert_int_equal(count_op(&k, "s3-direct", "250"), 0);
    assert_int_equal(count_op(&k, "nbi-destroy", "250"), 1);
    assert_point_complete(&k, "1.1K", 1100, 3);
    sink_free(&k);
    assert_no_inventory();
}

static void listscale_cancel_destroys_the_inventory(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    listscale_job(&job, g_ep, 250, 1100);
    job.warmup = 0;
    job.runs = 20;
    sink_t k;
    sink_init(&k);
    k.cancel_after = 4; /* count check, creation, two listings */
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_CANCELLED);
    assert_true(k.n >= 4 && k.n < 10);
    assert_int_equal(count_op(&k, "count-check", "1.1K"), 0);
    sink_free(&k);
    assert_no_inventory();
}

/* An interleaved schedule cuts a point into one-run steps (vc_plan): the
 * first checks and creates, the last destroys, each lists every path once
 * in an order rotated by its run, and the middle ones use the inventory the
 * first one made. */
static void listscale_interleaved_steps(void **state)
{
    (void)state;
    char err[512];
    const char *order[3][3] = {{"ais-regular", "ais-nbi", "s3-direct"},
                               {"ais-nbi", "s3-direct", "ais-regular"},
                               {"s3-direct", "ais-regular", "ais-nbi"}};
    for (int r = 0; r < 3; r++) {
        vc_job_t job;
        listscale_job(&job, g_ep, 250, 1100);
        job.nscale = 1;
        job.runs = 1;
        job.run_first = r;
        job.interleave = 1;
        job.warmup = r == 0;
        job.verify_count = r == 0;
        job.nbi_create = r == 0;
        job.nbi_destroy = r == 2;
        sink_t k;
        sink_init(&k);
        assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_OK);
        size_t first = 0;
        if (r == 0) {
            assert_int_equal(k.n, 1 + 1 + 1 + 3);
            assert_true(k.v[0].flags & VC_SF_WARMUP);
            assert_string_equal(k.v[1].op, "count-check");
            assert_string_equal(k.v[2].op, "nbi-create");
            assert_int_equal(k.v[2].err_class, VC_EC_NONE);
            first = 3;
        } else {
            assert_int_equal(k.n, r == 2 ? 4 : 3);
        }
        for (int p = 0; p < 3; p++) {
            const vc_sample_t *s = &k.v[first + (size_t)p];
            assert_string_equal(s->op, order[r][p]);
            assert_int_equal(s->run, r);
            assert_int_equal(s->err_class, VC_EC_NONE);
            assert_int_equal(s->keys, 250);
        }
        if (r == 2)
            assert_string_equal(k.v[3].op, "nbi-destroy");
        sink_free(&k);
    }
    assert_no_inventory();
}

static void listscale_rejects_bad_jobs(void **state)
{
    (void)state;
    char err[512];
    vc_job_t job;
    sink_t k;
    sink_init(&k);
    listscale_job(&job, g_ep, 250, 1100);
    s3_target(&job.target); /* AIS paths on an S3 target */
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "AIS target"));
    listscale_job(&job, g_ep, 250, 1100);
    job.has_direct = 0; /* s3-direct without an S3 target */
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "direct"));
    listscale_job(&job, g_ep, 250, 1100);
    job.nscale = 0;
    assert_int_equal(run(&job, &k, NULL, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(k.n, 0);
    sink_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(populate_s3_then_again_adds_nothing),
        cmocka_unit_test(populate_through_ais_sequential),
        cmocka_unit_test(populate_unreachable_fails_before_any_sample),
        cmocka_unit_test(populate_stops_when_puts_keep_failing),
        cmocka_unit_test(populate_cancel_stops_promptly),
        cmocka_unit_test(ops_s3bench_order_and_bytes),
        cmocka_unit_test(ops_interleaved_from_run_first),
        cmocka_unit_test(ops_through_ais_with_file_upload),
        cmocka_unit_test(ops_through_ais_errors_per_request),
        cmocka_unit_test(probe_counts_404_as_success),
        cmocka_unit_test(calibrate_measures_the_floor),
        cmocka_unit_test(listscale_all_paths),
        cmocka_unit_test(listscale_wrong_count_skips_that_point),
        cmocka_unit_test(listscale_unreachable_ais),
        cmocka_unit_test(listscale_unreachable_direct_s3),
        cmocka_unit_test(listscale_failing_nbi_creation),
        cmocka_unit_test(listscale_cancel_destroys_the_inventory),
        cmocka_unit_test(listscale_interleaved_steps),
        cmocka_unit_test(listscale_rejects_bad_jobs),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
