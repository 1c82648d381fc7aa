/* Tests of va_wl, the per-job sample path: counting, the saturation flag,
 * progress at most a few times a second, cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "va_wl.h"

typedef struct {
    int samples, progress;
    uint32_t last_flags;
    int64_t done, total, errors;
    char what[32];
} rec_t;

static void emit(void *arg, const vc_sample_t *s)
{
    rec_t *r = arg;
    r->samples++;
    r->last_flags = s->flags;
}

static void progress(void *arg, int64_t done, int64_t total, int64_t errors, const char *what)
{
    rec_t *r = arg;
    r->progress++;
    r->done = done;
    r->total = total;
    r->errors = errors;
    snprintf(r->what, sizeof r->what, "%s", what);
}

static void counts_errors_and_clears_samples(void **state)
{
    (void)state;
    rec_t r = {0};
    vc_job_t job;
    vc_job_init(&job, VC_WL_NULL);
    va_workload_env_t env = {.emit = emit, .progress = progress, .arg = &r};
    va_wl_t *wl = va_wl_new(&job, &env, "test", 0);
    assert_non_null(wl);
    va_wl_set_total(wl, 10);
    for (int i = 0; i < 5; i++) {
        vc_sample_t s;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, op, "x");
        assert_int_equal(vc_sample_add_page(&s, 1, 1, 1), VC_OK);
        if (i % 2)
            s.err_class = VC_EC_SERVER;
        va_wl_emit(wl, &s, 0);
        assert_null(s.page); /* cleared after the call */
        assert_string_equal(s.op, "");
    }
    va_wl_skip(wl, 5);
    va_wl_progress(wl, 1);
    assert_int_equal(r.samples, 5);
    assert_int_equal(va_wl_done(wl), 10);
    assert_int_equal(va_wl_errors(wl), 2);
    assert_int_equal(r.done, 10);
    assert_int_equal(r.total, 10);
    assert_int_equal(r.errors, 2);
    assert_string_equal(r.what, "test");
    va_wl_destroy(&wl);
    assert_null(wl);
}

static void late_samples_are_saturated(void **state)
{
    (void)state;
    rec_t r = {0};
    vc_job_t job;
    vc_job_init(&job, VC_WL_NULL);
    va_workload_env_t env = {.emit = emit, .arg = &r};
    va_wl_t *wl = va_wl_new(&job, &env, "test", 1);
    vc_sample_t s;
    vc_sample_init(&s);
    va_wl_emit(wl, &s, 1);
    assert_true(r.last_flags & VC_SF_SATURATED);
    /* just started: less than 200 ms of CPU history, so no CPU verdict */
    vc_sample_init(&s);
    s.flags = VC_SF_WARMUP;
    va_wl_emit(wl, &s, 0);
    assert_int_equal(r.last_flags, VC_SF_WARMUP);
    va_wl_destroy(&wl);
}

static void the_cpu_rule(void **state)
{
    (void)state;
    assert_false(va_wl_cpu_saturated(-1));
    assert_false(va_wl_cpu_saturated(0.5));
    assert_false(va_wl_cpu_saturated(0.9));
    assert_true(va_wl_cpu_saturated(0.91));
    assert_true(va_wl_cpu_saturated(1.7));
}

static void progress_is_rate_limited(void **state)
{
    (void)state;
    rec_t r = {0};
    vc_job_t job;
    vc_job_init(&job, VC_WL_NULL);
    va_workload_env_t env = {.emit = emit, .progress = progress, .arg = &r};
    va_wl_t *wl = va_wl_new(&job, &env, "test", 0);
    vc_mono_ns_t t0 = vc_mono_now();
    for (int i = 0; i < 100000; i++) {
        vc_sample_t s;
        vc_sample_init(&s);
        va_wl_emit(wl, &s, 0);
    }
    int64_t secs = (vc_mono_now() - t0) / VC_NS_PER_S + 1;
    assert_true(r.progress <= 4 * secs + 1);
    va_wl_destroy(&wl);
}

static void cancellation_is_seen(void **state)
{
    (void)state;
    rec_t r = {0};
    atomic_int cancel = 0;
    vc_job_t job;
    vc_job_init(&job, VC_WL_NULL);
    va_workload_env_t env = {.emit = emit, .arg = &r, .cancel = &cancel};
    va_wl_t *wl = va_wl_new(&job, &env, "test", 0);
    assert_false(va_wl_cancelled(wl));
    atomic_store(&cancel, 1);
    assert_true(va_wl_cancelled(wl));
    assert_ptr_equal(va_wl_cancel_flag(wl), &cancel);
    va_wl_destroy(&wl);
    env.cancel = NULL;
    wl = va_wl_new(&job, &env, "test", 0);
    assert_false(va_wl_cancelled(wl));
    va_wl_destroy(&wl);
}

static void unknown_workload_and_missing_callback(void **state)
{
    (void)state;
    char err[256];
    vc_job_t job;
    vc_job_init(&job, VC_WL_NULL);
    va_workload_env_t env = {0};
    assert_int_equal(va_workload_run(&job, &env, err, sizeof err), VC_ERR_ARG);
    job.kind = VC_WL_COUNT;
    env.emit = emit;
    rec_t r = {0};
    env.arg = &r;
    assert_int_equal(va_workload_run(&job, &env, err, sizeof err), VC_ERR_UNSUPPORTED);
    assert_int_equal(r.samples, 0);
    vc_job_init(&job, VC_WL_PROBE);
    job.timeout_ms = -5;
    assert_int_equal(va_workload_run(&job, &env, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "timeout_ms"));
    assert_int_equal(r.samples, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_errors_and_clears_samples),
        cmocka_unit_test(late_samples_are_saturated),
        cmocka_unit_test(the_cpu_rule),
        cmocka_unit_test(progress_is_rate_limited),
        cmocka_unit_test(cancellation_is_seen),
        cmocka_unit_test(unknown_workload_and_missing_callback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
