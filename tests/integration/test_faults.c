/* Storage faults between vantage's S3 client and the local Ceph RGW: each
 * test starts tests/faultproxy/faultproxy.py with one rule, runs a series of
 * requests through it and asserts that every faulted request became exactly
 * one sample of the right error class with the S3 code and status, that the
 * requests around it succeeded (the client went on, over a new connection
 * when the old one died), that nothing hung past its timeout, and that a
 * listing broken on a later page is one failed sample holding the pages it
 * got, never a short successful listing. Objects live under
 * t-faults-<pid>/ and are deleted at the end. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_ais.h"
#include "va_awscfg.h"
#include "va_http.h"
#include "va_s3.h"
#include "va_workload.h"
#include "vc_clock.h"
#include "vc_job.h"

extern char **environ;

#define NKEYS 5          /* listing set: 3 pages of at most 2 keys */
#define OBJ_SIZE 4096
#define ROUNDS 6         /* requests per case; faults on every 2nd */

static const char *bucket;
static char prefix[64];
static char obj_key[128];

/* ---- the proxy ---- */

typedef struct {
    pid_t pid;
    char endpoint[64];
} proxy_t;

/* Starts the proxy in front of RGW with the given rules and waits for its
 * READY line (its readiness signal), at most 10 s. */
static void proxy_start_to(proxy_t *p, const char *up, const char *flavour, const char *rule1,
                           const char *rule2)
{
    const char *src = getenv("VANTAGE_SRC");
    assert_non_null(src);
    assert_non_null(up);
    char script[1024];
    snprintf(script, sizeof script, "%s/tests/faultproxy/faultproxy.py", src);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    char *argv[14];
    int n = 0;
    argv[n++] = "/usr/bin/python3";
    argv[n++] = script;
    argv[n++] = "--upstream";
    argv[n++] = (char *)up;
    argv[n++] = "--flavour";
    argv[n++] = (char *)flavour;
    argv[n++] = "--rule";
    argv[n++] = (char *)rule1;
    if (rule2) {
        argv[n++] = "--rule";
        argv[n++] = (char *)rule2;
    }
    argv[n] = NULL;
    assert_int_equal(posix_spawn(&p->pid, argv[0], &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);

    char line[256] = "";
    size_t len = 0;
    vc_mono_ns_t deadline = vc_mono_now() + 10 * VC_NS_PER_S;
    while (!strchr(line, '\n')) {
        struct pollfd pf = {fds[0], POLLIN, 0};
        int left_ms = (int)((deadline - vc_mono_now()) / VC_NS_PER_MS);
        if (left_ms <= 0 || poll(&pf, 1, left_ms) <= 0)
            fail_msg("faultproxy gave no READY line within 10 s (%s)", script);
        ssize_t r = read(fds[0], line + len, sizeof line - 1 - len);
        if (r <= 0)
            fail_msg("faultproxy exited before READY (rule '%s')", rule1);
        len += (size_t)r;
        line[len] = '\0';
    }
    close(fds[0]);
    char host[64];
    int port;
    if (sscanf(line, "READY %63[^:]:%d", host, &port) != 2)
        fail_msg("faultproxy said '%s', not READY HOST:PORT", line);
    snprintf(p->endpoint, sizeof p->endpoint, "http://%s:%d", host, port);
}

/* In front of RGW, S3 error bodies. */
static void proxy_start(proxy_t *p, const char *rule1, const char *rule2)
{
    proxy_start_to(p, getenv("AWS_ENDPOINT_URL"), "s3", rule1, rule2);
}

static void proxy_stop(proxy_t *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        int st;
        waitpid(p->pid, &st, 0);
    }
    p->pid = 0;
}

/* The running proxy, stopped after each test even when an assertion failed. */
static proxy_t g_proxy;

static int stop_proxy(void **state)
{
    (void)state;
    proxy_stop(&g_proxy);
    return 0;
}

/* ---- clients and objects ---- */

static va_s3_t *client(const char *endpoint, long timeout_ms)
{
    va_awscfg_t cfg;
    char err[1024];
    va_awscfg_opts_t co = {.endpoint = endpoint};
    if (va_awscfg_load(&co, &cfg, err, sizeof err) != VC_OK)
        fail_msg("AWS settings: %s", err);
    va_s3_opts_t o = {0};
    va_s3_opts_from_awscfg(&o, &cfg);
    o.addressing = VA_S3_ADDR_PATH;
    o.timeout_ms = timeout_ms;
    va_s3_t *s3 = va_s3_new(&o, err, sizeof err);
    va_awscfg_clear(&cfg);
    if (!s3)
        fail_msg("va_s3_new: %s", err);
    return s3;
}

static int setup(void **state)
{
    (void)state;
    bucket = getenv("VANTAGE_TEST_BUCKET");
    if (!bucket || !getenv("VANTAGE_SRC"))
        return -1;
    snprintf(prefix, sizeof prefix, "t-faults-%d/", (int)getpid());
    snprintf(obj_key, sizeof obj_key, "%sobj", prefix);
    va_http_global_init();
    va_s3_t *s3 = client(NULL, 30000);
    static char data[OBJ_SIZE];
    memset(data, 'v', sizeof data);
    vc_status_t rc = va_s3_put(s3, bucket, obj_key, data, sizeof data, NULL);
    for (int i = 0; i < NKEYS && rc == VC_OK; i++) {
        char k[160];
        snprintf(k, sizeof k, "%slist/k%d", prefix, i);
        rc = va_s3_put(s3, bucket, k, "x", 1, NULL);
    }
    if (rc != VC_OK)
        fprintf(stderr, "setup: %s\n", va_s3_last_error(s3));
    va_s3_destroy(&s3);
    return rc == VC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    va_s3_t *s3 = client(NULL, 30000);
    va_s3_delete(s3, bucket, obj_key, NULL);
    for (int i = 0; i < NKEYS; i++) {
        char k[160];
        snprintf(k, sizeof k, "%slist/k%d", prefix, i);
        va_s3_delete(s3, bucket, k, NULL);
    }
    va_s3_destroy(&s3);
    return 0;
}

/* ---- object GETs under a rule that fires on every 2nd GET of obj ---- */

typedef struct {
    vc_errclass_t ec;    /* class of the faulted requests */
    const char *code;    /* err_code, NULL: any non-empty */
    int status;          /* http_status of the faulted requests; -1: any */
    long timeout_ms;     /* client request timeout */
} expect_t;

static void run_gets(const char *rule, const expect_t *x)
{
    proxy_t *p = &g_proxy;
    proxy_start(p, rule, NULL);
    va_s3_t *s3 = client(p->endpoint, x->timeout_ms);
    int failed = 0;
    for (int i = 0; i < ROUNDS; i++) {
        vc_sample_t s;
        vc_sample_init(&s);
        vc_mono_ns_t t0 = vc_mono_now();
        vc_status_t rc = va_s3_get(s3, bucket, obj_key, NULL, &s);
        int64_t took_ms = (vc_mono_now() - t0) / VC_NS_PER_MS;
        /* nothing waits past its timeout (plus scheduling slack) */
        assert_true(took_ms < x->timeout_ms + 2000);
        if (i % 2 == 0) {
            if (rc != VC_OK || s.err_class != VC_EC_NONE)
                fail_msg("GET %d (no fault) failed: %s [%s %s]", i, va_s3_last_error(s3),
                         vc_errclass_name(s.err_class), s.err_code);
            assert_int_equal(s.http_status, 200);
            assert_int_equal(s.bytes_recv, OBJ_SIZE);
        } else {
            failed++;
            assert_int_not_equal(rc, VC_OK);
            if (s.err_class != x->ec)
                fail_msg("GET %d under '%s': class %s (%s: %s), expected %s", i, rule,
                         vc_errclass_name(s.err_class), s.err_code, s.err_msg,
                         vc_errclass_name(x->ec));
            if (x->code)
                assert_string_equal(s.err_code, x->code);
            else
                assert_true(s.err_code[0] != '\0');
            if (x->status >= 0)
                assert_int_equal(s.http_status, x->status);
            assert_true(va_s3_last_error(s3)[0] != '\0');
            assert_true(s.duration_ns > 0);
        }
        vc_sample_clear(&s);
    }
    assert_int_equal(failed, ROUNDS / 2);
    va_s3_destroy(&s3);
    proxy_stop(p);
}

#define GET_RULE(action) action " method=GET path=/obj$ every=2"

static void slowdown_is_throttled(void **state)
{
    (void)state;
    run_gets(GET_RULE("slowdown"), &(expect_t){VC_EC_THROTTLED, "SlowDown", 503, 10000});
}

static void internal_error_is_server(void **state)
{
    (void)state;
    run_gets(GET_RULE("internal"), &(expect_t){VC_EC_SERVER, "InternalError", 500, 10000});
}

static void status_429_is_throttled(void **state)
{
    (void)state;
    run_gets(GET_RULE("throttle"), &(expect_t){VC_EC_THROTTLED, "TooManyRequests", 429, 10000});
}

static void reset_is_connection(void **state)
{
    (void)state;
    run_gets(GET_RULE("reset"), &(expect_t){VC_EC_CONNECT, NULL, 0, 10000});
}

static void stall_is_timeout(void **state)
{
    (void)state;
    run_gets(GET_RULE("stall") " stall=30", &(expect_t){VC_EC_TIMEOUT, "Timeout", -1, 1500});
}

static void truncated_body_is_protocol(void **state)
{
    (void)state;
    run_gets(GET_RULE("truncate"), &(expect_t){VC_EC_PROTOCOL, NULL, 200, 10000});
}

/* ---- listings: a fault on page 2 of 3 ---- */

static int count_key(void *ud, const va_s3xml_object_t *o)
{
    (void)o;
    (*(int *)ud)++;
    return 0;
}

static void run_list(const char *action, vc_errclass_t ec, const char *code)
{
    char rule[256];
    /* the 2nd list request is page 2 of the 1st listing */
    snprintf(rule, sizeof rule, "%s method=GET path=list-type=2 nth=2", action);
    proxy_t *p = &g_proxy;
    proxy_start(p, rule, NULL);
    va_s3_t *s3 = client(p->endpoint, 10000);
    char lp[96];
    snprintf(lp, sizeof lp, "%slist/", prefix);
    va_s3_list_opts_t o = {.prefix = lp, .max_keys = 2};

    vc_sample_t s;
    vc_sample_init(&s);
    int keys = 0;
    vc_status_t rc = va_s3_list(s3, bucket, &o, count_key, NULL, &keys, &s);
    if (rc == VC_OK || s.err_class != ec)
        fail_msg("listing with '%s' on page 2: rc %s, class %s (%s: %s), expected %s", action,
                 vc_strerror(rc), vc_errclass_name(s.err_class), s.err_code, s.err_msg,
                 vc_errclass_name(ec));
    if (code)
        assert_string_equal(s.err_code, code);
    assert_string_equal(s.op, "s3-direct");
    /* one failed sample holding what it got: page 1 only */
    assert_true(s.pages <= 2);
    assert_true(s.keys <= 2);
    assert_true(s.duration_ns > 0);
    vc_sample_clear(&s);

    /* the next listing runs whole, over whatever connection is left */
    vc_sample_init(&s);
    keys = 0;
    rc = va_s3_list(s3, bucket, &o, count_key, NULL, &keys, &s);
    if (rc != VC_OK)
        fail_msg("listing after the fault: %s", va_s3_last_error(s3));
    assert_int_equal(s.err_class, VC_EC_NONE);
    assert_int_equal(keys, NKEYS);
    assert_int_equal(s.keys, NKEYS);
    assert_int_equal(s.pages, 3);
    vc_sample_clear(&s);
    va_s3_destroy(&s3);
    proxy_stop(p);
}

static void list_malformed_page_is_protocol(void **state)
{
    (void)state;
    run_list("malformed", VC_EC_PROTOCOL, "MalformedReply");
}

static void list_truncated_page_is_protocol(void **state)
{
    (void)state;
    run_list("truncate", VC_EC_PROTOCOL, NULL);
}

static void list_slowdown_on_page_is_throttled(void **state)
{
    (void)state;
    run_list("slowdown", VC_EC_THROTTLED, "SlowDown");
}

static void list_reset_on_page_is_connection(void **state)
{
    (void)state;
    run_list("reset", VC_EC_CONNECT, NULL);
}

/* ---- workloads through the proxy ---- */

typedef struct {
    pthread_mutex_t mu;
    vc_sample_t *v;
    size_t n, cap;
    size_t cancel_at; /* > 0: set cancel once this many samples arrived */
    atomic_int cancel;
} sink_t;

static void on_emit(void *arg, const vc_sample_t *s)
{
    sink_t *k = arg;
    pthread_mutex_lock(&k->mu);
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        k->v = realloc(k->v, k->cap * sizeof *k->v);
        if (!k->v)
            abort();
    }
    vc_sample_init(&k->v[k->n]);
    if (vc_sample_copy(&k->v[k->n], s) != VC_OK)
        abort();
    k->n++;
    if (k->cancel_at && k->n >= k->cancel_at)
        atomic_store(&k->cancel, 1);
    pthread_mutex_unlock(&k->mu);
}

static void sink_free(sink_t *k)
{
    for (size_t i = 0; i < k->n; i++)
        vc_sample_clear(&k->v[i]);
    free(k->v);
    pthread_mutex_destroy(&k->mu);
}

static vc_status_t run_job_cancel_at(const vc_job_t *job, sink_t *k, size_t cancel_at)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
    k->cancel_at = cancel_at;
    va_workload_env_t env = {.agent_name = "faults", .site = "test", .emit = on_emit, .arg = k,
                             .cancel = &k->cancel};
    char err[512] = "";
    vc_status_t rc = va_workload_run(job, &env, err, sizeof err);
    if (rc != VC_OK)
        fprintf(stderr, "job %s: %s\n", vc_workload_name(job->kind), err);
    return rc;
}

static vc_status_t run_job(const vc_job_t *job, sink_t *k) { return run_job_cancel_at(job, k, 0); }

static void proxy_target(vc_target_t *t, const char *endpoint)
{
    vc_target_init(t);
    snprintf(t->name, sizeof t->name, "rgw-via-faultproxy");
    t->kind = VC_TK_S3;
    snprintf(t->endpoint, sizeof t->endpoint, "%s", endpoint);
    snprintf(t->bucket, sizeof t->bucket, "%s", bucket);
}

/* ops (s3bench): ROUNDS iterations of put, get, head, delete through a proxy
 * with rule; returns the samples (caller frees) after checking the job ran
 * them all. */
static void run_ops(const char *rule, int64_t timeout_ms, sink_t *k)
{
    proxy_t *p = &g_proxy;
    proxy_start(p, rule, NULL);
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    proxy_target(&job.target, p->endpoint);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sops/", prefix);
    job.iterations = ROUNDS;
    job.object_size = 1024;
    job.timeout_ms = timeout_ms;
    vc_mono_ns_t t0 = vc_mono_now();
    assert_int_equal(run_job(&job, k), VC_OK);
    /* every request ended within its timeout: the job as a whole is bounded */
    assert_true((vc_mono_now() - t0) / VC_NS_PER_MS < 4 * ROUNDS * (timeout_ms + 1000));
    assert_int_equal(k->n, 4 * ROUNDS);
    proxy_stop(p);
}

/* Samples of op: how many, and how many have class ec. */
static int count_class(const sink_t *k, const char *op, vc_errclass_t ec, int *total)
{
    int n = 0, all = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (strcmp(k->v[i].op, op))
            continue;
        all++;
        n += k->v[i].err_class == ec;
    }
    if (total)
        *total = all;
    return n;
}

static void ops_slowdown_counted_and_job_goes_on(void **state)
{
    (void)state;
    sink_t k;
    run_ops("slowdown method=GET path=/s3bench-[0-9]+$ every=2", 10000, &k);
    int total;
    assert_int_equal(count_class(&k, "get", VC_EC_THROTTLED, &total), ROUNDS / 2);
    assert_int_equal(total, ROUNDS);
    assert_int_equal(count_class(&k, "get", VC_EC_NONE, NULL), ROUNDS / 2);
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *s = &k.v[i];
        if (s->err_class == VC_EC_THROTTLED) {
            assert_string_equal(s->err_code, "SlowDown");
            assert_int_equal(s->http_status, 503);
        } else {
            assert_int_equal(s->err_class, VC_EC_NONE);
        }
    }
    sink_free(&k);
}

static void ops_stall_times_out_at_job_timeout(void **state)
{
    (void)state;
    sink_t k;
    run_ops("stall method=HEAD every=2 stall=30", 1000, &k);
    int total;
    assert_int_equal(count_class(&k, "head", VC_EC_TIMEOUT, &total), ROUNDS / 2);
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *s = &k.v[i];
        if (s->err_class == VC_EC_TIMEOUT) {
            assert_string_equal(s->op, "head");
            /* the job's 1 s timeout, not libcurl's default or the proxy's 30 s */
            assert_true(s->duration_ns >= 900 * VC_NS_PER_MS);
            assert_true(s->duration_ns < 3000 * VC_NS_PER_MS);
        } else {
            assert_int_equal(s->err_class, VC_EC_NONE);
        }
    }
    sink_free(&k);
}

/* A PUT lost to a reset is a connection error; the GET and HEAD of the object
 * it did not write are 404s; everything else succeeds. */
static void ops_reset_is_connection_and_counted(void **state)
{
    (void)state;
    sink_t k;
    run_ops("reset method=PUT path=/s3bench- every=3", 10000, &k);
    assert_int_equal(count_class(&k, "put", VC_EC_CONNECT, NULL), ROUNDS / 3);
    assert_int_equal(count_class(&k, "put", VC_EC_NONE, NULL), ROUNDS - ROUNDS / 3);
    assert_int_equal(count_class(&k, "get", VC_EC_CLIENT, NULL), ROUNDS / 3);
    assert_int_equal(count_class(&k, "head", VC_EC_CLIENT, NULL), ROUNDS / 3);
    for (size_t i = 0; i < k.n; i++)
        if (k.v[i].err_class == VC_EC_CONNECT)
            assert_int_equal(k.v[i].http_status, 0);
    sink_free(&k);
}

/* Eight workers driven by one loop thread per CPU, two fault kinds at once:
 * every 3rd GET answers 500, every 4th HEAD has its connection reset. Each
 * (operation, iteration) is exactly one sample, the faults are counted by
 * class however the requests interleave, and everything else succeeds. */
static void ops_workers_in_one_loop_count_faults_once(void **state)
{
    (void)state;
    enum { ITER = 24, WORKERS = 8 };
    proxy_t *p = &g_proxy;
    proxy_start(p, "internal method=GET path=/s3bench-[0-9]+$ every=3",
                "reset method=HEAD path=/s3bench-[0-9]+$ every=4");
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    proxy_target(&job.target, p->endpoint);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sopsw/", prefix);
    job.iterations = ITER;
    job.workers = WORKERS;
    job.object_size = 512;
    job.timeout_ms = 10000;
    sink_t k;
    assert_int_equal(run_job(&job, &k), VC_OK);
    proxy_stop(p);
    assert_int_equal(k.n, 4 * ITER);
    int seen[4][ITER] = {{0}};
    int workers_used = 0, by_worker[WORKERS] = {0};
    const char *ops[] = {"put", "get", "head", "delete"};
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *s = &k.v[i];
        int o = -1;
        for (int j = 0; j < 4; j++)
            if (strcmp(s->op, ops[j]) == 0)
                o = j;
        assert_true(o >= 0);
        assert_true(s->run >= 0 && s->run < ITER);
        seen[o][s->run]++;
        assert_true(s->worker >= 0 && s->worker < WORKERS);
        by_worker[s->worker]++;
        assert_true(s->cpu_user_us >= 0 && s->cpu_sys_us >= 0);
        if (s->err_class == VC_EC_NONE)
            assert_true(s->duration_ns > 0 && s->http_status / 100 == 2);
    }
    for (int o = 0; o < 4; o++)
        for (int r = 0; r < ITER; r++)
            if (seen[o][r] != 1)
                fail_msg("%s of iteration %d: %d samples, want 1", ops[o], r, seen[o][r]);
    for (int w = 0; w < WORKERS; w++)
        workers_used += by_worker[w] > 0;
    assert_int_equal(workers_used, WORKERS);
    assert_int_equal(count_class(&k, "get", VC_EC_SERVER, NULL), ITER / 3);
    assert_int_equal(count_class(&k, "get", VC_EC_NONE, NULL), ITER - ITER / 3);
    assert_int_equal(count_class(&k, "head", VC_EC_CONNECT, NULL), ITER / 4);
    assert_int_equal(count_class(&k, "head", VC_EC_NONE, NULL), ITER - ITER / 4);
    assert_int_equal(count_class(&k, "put", VC_EC_NONE, NULL), ITER);
    assert_int_equal(count_class(&k, "delete", VC_EC_NONE, NULL), ITER);
    for (size_t i = 0; i < k.n; i++)
        if (k.v[i].err_class == VC_EC_SERVER)
            assert_string_equal(k.v[i].err_code, "InternalError");
    sink_free(&k);
}

/* A cancel while a GET stalls (the server never answers it, the timeout is
 * 20 s) stops the job at once: the request in flight is dropped, not waited
 * for and not recorded; what was measured before it stays. Two workers: of
 * their first two GETs (of objects that are not there) one stalls, the other
 * is a quick 404, whose sample cancels the job. */
static void ops_cancel_does_not_wait_for_stalled_requests(void **state)
{
    (void)state;
    proxy_t *p = &g_proxy;
    proxy_start(p, "stall method=GET path=/s3bench-[0-9]+$ every=2 stall=60", NULL);
    vc_job_t job;
    vc_job_init(&job, VC_WL_OPS);
    proxy_target(&job.target, p->endpoint);
    snprintf(job.key_prefix, sizeof job.key_prefix, "%sopsc/", prefix);
    job.iterations = 8;
    job.workers = 2;
    job.timeout_ms = 20000;
    job.nops = 1;
    job.ops[0] = VC_OP_GET;
    sink_t k;
    vc_mono_ns_t t0 = vc_mono_now();
    assert_int_equal(run_job_cancel_at(&job, &k, 1), VC_ERR_CANCELLED);
    int64_t ms = (vc_mono_now() - t0) / VC_NS_PER_MS;
    proxy_stop(p);
    if (ms > 5000)
        fail_msg("cancel took %lld ms: it waited for the stalled request", (long long)ms);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.v[0].op, "get");
    assert_int_equal(k.v[0].http_status, 404);
    assert_int_equal(k.v[0].err_class, VC_EC_CLIENT);
    sink_free(&k);
}

/* list-scale, S3 direct, pages of 2 keys over NKEYS: the 2nd list request
 * (page 2 of the first listing) fails. That listing is one failed sample
 * with what it saw, the point's remaining runs are skipped, and the next
 * point lists whole. */
static void listscale_page_fault_is_one_failed_listing(void **state)
{
    (void)state;
    proxy_t *p = &g_proxy;
    proxy_start(p, "internal method=GET path=list-type=2 nth=2", NULL);
    vc_job_t job;
    vc_job_init(&job, VC_WL_LIST_SCALE);
    proxy_target(&job.target, p->endpoint);
    job.paths = VC_PATH_S3_DIRECT;
    job.verify_count = 0;
    job.warmup = 0;
    job.runs = 3;
    job.page_size = 2;
    job.nscale = 2;
    for (int i = 0; i < 2; i++) {
        snprintf(job.scale[i].label, sizeof job.scale[i].label, "p%d", i);
        snprintf(job.scale[i].prefix, sizeof job.scale[i].prefix, "%slist/", prefix);
        job.scale[i].count = NKEYS;
    }
    sink_t k;
    assert_int_equal(run_job(&job, &k), VC_OK);
    int failed = 0, good = 0;
    for (size_t i = 0; i < k.n; i++) {
        const vc_sample_t *s = &k.v[i];
        if (strcmp(s->op, "s3-direct"))
            continue;
        if (s->err_class == VC_EC_NONE) {
            /* never a short listing passed off as a fast one */
            assert_int_equal(s->keys, NKEYS);
            assert_int_equal(s->pages, 3);
            assert_string_equal(s->label, "p1");
            good++;
        } else {
            assert_int_equal(s->err_class, VC_EC_SERVER);
            assert_string_equal(s->err_code, "InternalError");
            assert_int_equal(s->http_status, 500);
            assert_true(s->keys < NKEYS);
            assert_string_equal(s->label, "p0");
            failed++;
        }
    }
    assert_int_equal(failed, 1);
    assert_int_equal(good, 3);
    sink_free(&k);
    proxy_stop(p);
}

/* ---- the AIS client in front of the AIS emulator ---- */

/* A listing of the NKEYS keys through the AIS emulator in pages of 2, with
 * the 2nd list request (page 2) faulted as AIS would answer (JSON errors). */
static void run_ais_list(const char *action, vc_errclass_t ec, const char *code)
{
    const char *ep = getenv("AIS_ENDPOINT");
    if (!ep || !*ep)
        fail_msg("AIS_ENDPOINT is not set (tests/servers.sh env)");
    char rule[256];
    snprintf(rule, sizeof rule, "%s method=GET path=^/v1/buckets/ nth=2", action);
    proxy_t *p = &g_proxy;
    proxy_start_to(p, ep, "ais", rule, NULL);
    char err[512], uri[160];
    va_ais_opts_t o = {.endpoint = p->endpoint, .token = "", .timeout_ms = 10000};
    va_ais_t *ais = va_ais_new(&o, err, sizeof err);
    if (!ais)
        fail_msg("va_ais_new: %s", err);
    va_ais_bck_t bck;
    snprintf(uri, sizeof uri, "aws://%s", bucket);
    assert_int_equal(va_ais_bck_parse(uri, &bck, NULL, 0, err, sizeof err), VC_OK);
    char lp[96];
    snprintf(lp, sizeof lp, "%slist/", prefix);
    va_ais_list_opts_t lo = {.prefix = lp, .page_size = 2};

    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = va_ais_list(ais, &bck, &lo, &s);
    if (rc == VC_OK || s.err_class != ec)
        fail_msg("AIS listing with '%s' on page 2: rc %s, class %s (%s: %s), expected %s",
                 action, vc_strerror(rc), vc_errclass_name(s.err_class), s.err_code, s.err_msg,
                 vc_errclass_name(ec));
    if (code)
        assert_string_equal(s.err_code, code);
    assert_true(s.keys < NKEYS);
    vc_sample_clear(&s);

    vc_sample_init(&s);
    rc = va_ais_list(ais, &bck, &lo, &s);
    if (rc != VC_OK)
        fail_msg("AIS listing after the fault: %s", va_ais_error(ais));
    assert_int_equal(s.err_class, VC_EC_NONE);
    assert_int_equal(s.keys, NKEYS);
    assert_int_equal(s.pages, 3);
    vc_sample_clear(&s);
    va_ais_destroy(&ais);
    proxy_stop(p);
}

static void ais_list_429_is_throttled(void **state)
{
    (void)state;
    run_ais_list("throttle", VC_EC_THROTTLED, "TooManyRequests");
}

static void ais_list_500_is_server(void **state)
{
    (void)state;
    run_ais_list("internal", VC_EC_SERVER, "InternalError");
}

static void ais_list_malformed_is_protocol(void **state)
{
    (void)state;
    run_ais_list("malformed", VC_EC_PROTOCOL, NULL);
}

static void ais_list_reset_is_connection(void **state)
{
    (void)state;
    run_ais_list("reset", VC_EC_CONNECT, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(slowdown_is_throttled, stop_proxy),
        cmocka_unit_test_teardown(internal_error_is_server, stop_proxy),
        cmocka_unit_test_teardown(status_429_is_throttled, stop_proxy),
        cmocka_unit_test_teardown(reset_is_connection, stop_proxy),
        cmocka_unit_test_teardown(stall_is_timeout, stop_proxy),
        cmocka_unit_test_teardown(truncated_body_is_protocol, stop_proxy),
        cmocka_unit_test_teardown(list_malformed_page_is_protocol, stop_proxy),
        cmocka_unit_test_teardown(list_truncated_page_is_protocol, stop_proxy),
        cmocka_unit_test_teardown(list_slowdown_on_page_is_throttled, stop_proxy),
        cmocka_unit_test_teardown(list_reset_on_page_is_connection, stop_proxy),
        cmocka_unit_test_teardown(ops_slowdown_counted_and_job_goes_on, stop_proxy),
        cmocka_unit_test_teardown(ops_stall_times_out_at_job_timeout, stop_proxy),
        cmocka_unit_test_teardown(ops_reset_is_connection_and_counted, stop_proxy),
        cmocka_unit_test_teardown(ops_workers_in_one_loop_count_faults_once, stop_proxy),
        cmocka_unit_test_teardown(ops_cancel_does_not_wait_for_stalled_requests, stop_proxy),
        cmocka_unit_test_teardown(listscale_page_fault_is_one_failed_listing, stop_proxy),
        cmocka_unit_test_teardown(ais_list_429_is_throttled, stop_proxy),
        cmocka_unit_test_teardown(ais_list_500_is_server, stop_proxy),
        cmocka_unit_test_teardown(ais_list_malformed_is_protocol, stop_proxy),
        cmocka_unit_test_teardown(ais_list_reset_is_connection, stop_proxy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
