/* Tests of the probe workload: endpoint parsing, the lateness rule, and a
 * whole probe against an in-process server that answers 404 (the expected
 * answer to a probe) or 403 (a real failure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "va_nullsrv.h"
#include "va_wl_probe.h"

static void splits_host_and_port(void **state)
{
    (void)state;
    char h[64], p[8];
    assert_int_equal(va_wl_split_hostport("127.0.0.1:7480", h, sizeof h, p, sizeof p), VC_OK);
    assert_string_equal(h, "127.0.0.1");
    assert_string_equal(p, "7480");
    assert_int_equal(va_wl_split_hostport("[::1]:443", h, sizeof h, p, sizeof p), VC_OK);
    assert_string_equal(h, "::1");
    assert_string_equal(p, "443");
    assert_int_equal(va_wl_split_hostport("s3.amazonaws.com:443", h, sizeof h, p, sizeof p),
                     VC_OK);
    const char *bad[] = {"", "host", "host:", ":80", "host:0", "host:65536", "host:8x",
                         "::1:80", "[::1]80", "[::1", "h:123456"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (va_wl_split_hostport(bad[i], h, sizeof h, p, sizeof p) != VC_ERR_ARG)
            fail_msg("'%s' was accepted", bad[i]);
    assert_int_equal(va_wl_split_hostport("averylonghostname:80", h, 8, p, sizeof p), VC_ERR_ARG);
}

static void lateness_rule(void **state)
{
    (void)state;
    int64_t ms = VC_NS_PER_MS;
    assert_false(va_wl_probe_late(0, 1000 * ms));
    assert_false(va_wl_probe_late(100 * ms, 1000 * ms));
    assert_true(va_wl_probe_late(101 * ms, 1000 * ms));
    /* short intervals keep a 10 ms floor */
    assert_false(va_wl_probe_late(10 * ms, 20 * ms));
    assert_true(va_wl_probe_late(11 * ms, 0));
}

typedef struct {
    vc_sample_t s[16];
    int n;
} rec_t;

static void emit(void *arg, const vc_sample_t *s)
{
    rec_t *r = arg;
    if (r->n < 16)
        r->s[r->n++] = *s; /* probe samples have no pages */
}

static vc_status_t probe(int status, int count, rec_t *r, int *requests)
{
    char err[256];
    va_nullsrv_t *srv = va_nullsrv_new(status, err, sizeof err);
    assert_non_null(srv);
    vc_job_t job;
    vc_job_init(&job, VC_WL_PROBE);
    snprintf(job.target.endpoint, sizeof job.target.endpoint, "http://127.0.0.1:%d",
             va_nullsrv_port(srv));
    snprintf(job.target.bucket, sizeof job.target.bucket, "probe-bucket");
    job.probe_count = count;
    job.probe_interval_ms = 10;
    va_workload_env_t env = {.agent_name = "unit", .emit = emit, .arg = r};
    vc_status_t rc = va_workload_run(&job, &env, err, sizeof err);
    *requests = (int)va_nullsrv_requests(srv);
    va_nullsrv_destroy(&srv);
    return rc;
}

static void a_404_is_a_successful_probe(void **state)
{
    (void)state;
    rec_t r = {0};
    int requests;
    assert_int_equal(probe(404, 3, &r, &requests), VC_OK);
    assert_int_equal(r.n, 6);
    assert_int_equal(requests, 3);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(r.s[i].op, i % 2 ? "probe-head" : "probe-connect");
        assert_int_equal(r.s[i].run, i / 2);
        assert_int_equal(r.s[i].err_class, VC_EC_NONE);
        assert_string_equal(r.s[i].err_code, "");
        assert_true(r.s[i].duration_ns > 0);
        assert_non_null(strstr(r.s[i].label, "127.0.0.1:"));
    }
    assert_int_equal(r.s[1].http_status, 404);
}

static void a_403_is_a_failed_probe(void **state)
{
    (void)state;
    rec_t r = {0};
    int requests;
    assert_int_equal(probe(403, 1, &r, &requests), VC_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.s[0].err_class, VC_EC_NONE);
    assert_int_equal(r.s[1].err_class, VC_EC_CLIENT);
    assert_int_equal(r.s[1].http_status, 403);
}

int main(void)
{
    /* the probe's S3 client signs with the agent's own credentials */
    setenv("AWS_ACCESS_KEY_ID", "AKIDUNITTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "unit-test-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_PROFILE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splits_host_and_port),
        cmocka_unit_test(lateness_rule),
        cmocka_unit_test(a_404_is_a_successful_probe),
        cmocka_unit_test(a_403_is_a_failed_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
