/* va_wl_calibrate: timer resolution and cost, per-request floor. */
#include "va_wl_calibrate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "va_http.h"
#include "va_nullsrv.h"
#include "va_s3.h"
#include "va_wl.h"

#define NOW_CALLS 1000000
#define CPU_CALLS 100000
#define DEFAULT_REQUESTS 1000
#define MAX_REQUESTS 1000000
#define LOOP_CONNS 8 /* connections one loop thread drives in the loop calibration */

static void timer_sample(va_wl_t *wl, const char *label, int64_t ns, int64_t calls,
                         int64_t u0, int64_t s0)
{
    int64_t u1, s1;
    vc_thread_cpu_us(&u1, &s1);
    vc_sample_t s;
    vc_sample_init(&s);
    VC_SAMPLE_SET(&s, op, "calibrate-timer");
    VC_SAMPLE_SET(&s, label, label);
    s.start_wall_ns = vc_wall_now();
    s.duration_ns = ns;
    s.scale = calls;
    s.run = 0;
    s.worker = 0;
    s.cpu_user_us = u1 - u0;
    s.cpu_sys_us = s1 - s0;
    va_wl_emit(wl, &s, 0);
}

static void calibrate_timer(va_wl_t *wl)
{
    int64_t u0, s0;
    struct timespec res = {0, 0};
    vc_thread_cpu_us(&u0, &s0);
    clock_getres(CLOCK_MONOTONIC, &res);
    timer_sample(wl, "getres", (int64_t)res.tv_sec * VC_NS_PER_S + res.tv_nsec, 1, u0, s0);

    vc_thread_cpu_us(&u0, &s0);
    volatile vc_mono_ns_t sink = 0;
    int64_t step = INT64_MAX;
    vc_mono_ns_t t0 = vc_mono_now(), prev = t0;
    for (int i = 0; i < NOW_CALLS; i++) {
        vc_mono_ns_t t = vc_mono_now();
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
        sink = t;
    }
    (void)sink;
    int64_t total = vc_mono_now() - t0;
    timer_sample(wl, "now-cost", total / NOW_CALLS, NOW_CALLS, u0, s0);
    timer_sample(wl, "now-step", step == INT64_MAX ? -1 : step, NOW_CALLS, u0, s0);

    vc_thread_cpu_us(&u0, &s0);
    int64_t a, b;
    t0 = vc_mono_now();
    for (int i = 0; i < CPU_CALLS; i++)
        vc_thread_cpu_us(&a, &b);
    total = vc_mono_now() - t0;
    timer_sample(wl, "cpu-cost", total / CPU_CALLS, CPU_CALLS, u0, s0);
}

typedef struct {
    va_wl_t *wl;
    va_http_loop_t *loop;
    const va_s3_obj_t *o;
    int64_t next, n;
} loopcal_t;

/* Starts the next request on connection c (client s3, record smp); a
 * request that cannot start is emitted as failed and the next one tried. */
static void loop_next(loopcal_t *l, va_s3_t *s3, vc_sample_t *smp, int c)
{
    while (l->next < l->n && !va_wl_cancelled(l->wl)) {
        vc_sample_init(smp);
        VC_SAMPLE_SET(smp, label, "s3-get-loop");
        smp->run = (int32_t)l->next++;
        smp->worker = c;
        if (va_s3_begin(s3, l->o, smp) == VC_OK &&
            va_http_loop_add(l->loop, va_s3_http(s3)) == VC_OK)
            return;
        VC_SAMPLE_SET(smp, op, "calibrate-request");
        if (smp->err_class == VC_EC_NONE)
            smp->err_class = VC_EC_OTHER;
        va_wl_emit(l->wl, smp, 0);
    }
}

/* n signed S3 GETs through one va_http_loop on LOOP_CONNS connections, as
 * the ops workload runs them: each a calibrate-request "s3-get-loop" sample
 * whose duration includes waiting for the thread while it serves the other
 * connections, and whose CPU is the loop thread's per request. */
static vc_status_t calibrate_loop(va_wl_t *wl, const va_s3_opts_t *so, int64_t n, char *err,
                                  size_t errlen)
{
    va_s3_t *s3[LOOP_CONNS] = {0};
    vc_sample_t smp[LOOP_CONNS];
    int idx[LOOP_CONNS];
    va_http_t *done[LOOP_CONNS];
    char serr[256];
    vc_status_t rc = VC_OK;
    va_s3_obj_t o = {.op = VA_S3_GET, .bucket = "calibrate", .key = "null"};
    loopcal_t l = {.wl = wl, .loop = va_http_loop_new(), .o = &o, .n = n};
    if (!l.loop) {
        snprintf(err, errlen, "calibrate: out of memory");
        return VC_ERR_NOMEM;
    }
    for (int c = 0; c < LOOP_CONNS; c++) {
        idx[c] = c;
        if (!(s3[c] = va_s3_new(so, serr, sizeof serr))) {
            rc = VC_ERR_NOMEM;
            snprintf(err, errlen, "calibrate: cannot make the clients: %s", serr);
            goto done;
        }
        va_http_set_owner(va_s3_http(s3[c]), &idx[c]);
    }
    for (int c = 0; c < LOOP_CONNS; c++)
        loop_next(&l, s3[c], &smp[c], c);
    while (va_http_loop_active(l.loop) > 0 && !va_wl_cancelled(wl)) {
        int k = va_http_loop_run(l.loop, 200, done, LOOP_CONNS);
        if (k < 0) {
            rc = VC_ERR_INTERNAL;
            snprintf(err, errlen, "calibrate: the request loop failed");
            break;
        }
        for (int i = 0; i < k; i++) {
            int c = *(int *)va_http_owner(done[i]);
            va_s3_end(s3[c]);
            VC_SAMPLE_SET(&smp[c], op, "calibrate-request");
            va_wl_emit(wl, &smp[c], 0);
            loop_next(&l, s3[c], &smp[c], c);
        }
    }
done:
    va_http_loop_destroy(&l.loop); /* after a cancel: drops what is in flight */
    for (int c = 0; c < LOOP_CONNS; c++)
        va_s3_destroy(&s3[c]);
    return rc;
}

vc_status_t va_wl_calibrate(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen)
{
    int64_t n = job->count > 0 ? job->count : DEFAULT_REQUESTS;
    if (n > MAX_REQUESTS) {
        snprintf(err, errlen, "calibrate: count %" PRId64 " is out of range (1..%d)", n,
                 MAX_REQUESTS);
        return VC_ERR_ARG;
    }
    vc_status_t rc = VC_OK;
    va_nullsrv_t *srv = NULL;
    va_s3_t *s3 = NULL;
    va_http_t *http = NULL;
    va_wl_t *wl = va_wl_new(job, env, "calibrate", 0);
    if (!wl) {
        snprintf(err, errlen, "calibrate: out of memory");
        return VC_ERR_NOMEM;
    }
    va_wl_set_total(wl, 4 + 3 * n);
    va_wl_progress(wl, 1);
    calibrate_timer(wl);

    char ep[64], url[96], serr[256];
    if (!(srv = va_nullsrv_new(200, serr, sizeof serr))) {
        rc = VC_ERR_IO;
        snprintf(err, errlen, "calibrate: %s", serr);
        goto done;
    }
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", va_nullsrv_port(srv));
    snprintf(url, sizeof url, "%s/calibrate", ep);
    /* throwaway credentials: the null server checks nothing, but the request
     * is signed exactly as a real one */
    va_s3_opts_t so = {.endpoint = ep, .region = "us-east-1", .access_key = "AKIDCALIBRATE",
                       .secret_key = "calibrate-secret", .addressing = VA_S3_ADDR_PATH,
                       .timeout_ms = job->timeout_ms};
    if (!(s3 = va_s3_new(&so, serr, sizeof serr)) || !(http = va_http_new(NULL))) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "calibrate: cannot make the clients: %s", s3 ? "no memory" : serr);
        goto done;
    }
    for (int64_t i = 0; i < n && !va_wl_cancelled(wl); i++) {
        vc_sample_t s;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, label, "s3-head");
        s.run = (int32_t)i;
        s.scale = 0;
        s.worker = 0;
        va_s3_head(s3, "calibrate", "null", NULL, &s);
        VC_SAMPLE_SET(&s, op, "calibrate-request");
        va_wl_emit(wl, &s, 0);
    }
    for (int64_t i = 0; i < n && !va_wl_cancelled(wl); i++) {
        vc_sample_t s;
        va_http_resp_t r;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, op, "calibrate-request");
        VC_SAMPLE_SET(&s, label, "http-get");
        s.run = (int32_t)i;
        s.scale = 0;
        s.worker = 0;
        s.start_wall_ns = vc_wall_now();
        va_http_req_t req = {.method = "GET", .url = url, .sink = VA_SINK_DISCARD,
                             .timeout_ms = job->timeout_ms};
        if (va_http_do(http, &req, &r) == VC_OK && r.status != 200) {
            s.err_class = va_http_status_class(r.status, NULL);
            VC_SAMPLE_SET(&s, err_msg, "the null server answered an unexpected status");
        }
        va_http_fill_sample(&r, &s);
        if (s.err_class != VC_EC_NONE && !s.err_msg[0])
            VC_SAMPLE_SET(&s, err_msg, r.error);
        va_wl_emit(wl, &s, 0);
    }
    if (!va_wl_cancelled(wl))
        rc = calibrate_loop(wl, &so, n, err, errlen);
    if (rc == VC_OK && va_wl_cancelled(wl)) {
        rc = VC_ERR_CANCELLED;
        snprintf(err, errlen, "calibrate: cancelled");
    }
done:
    va_wl_progress(wl, 1);
    va_http_destroy(&http);
    va_s3_destroy(&s3);
    va_nullsrv_destroy(&srv);
    va_wl_destroy(&wl);
    return rc;
}
