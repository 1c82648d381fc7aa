/* va_wl_calibrate: timer resolution and cost, per-request floor. */
#include "va_wl_calibrate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "va_drive.h"
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
    const va_s3_obj_t *o;
    va_s3_t *s3[LOOP_CONNS];
    vc_sample_t smp[LOOP_CONNS];
    int64_t next, n;
} loopcal_t;

static void loop_emit_failed(loopcal_t *l, int c)
{
    VC_SAMPLE_SET(&l->smp[c], op, "calibrate-request");
    if (l->smp[c].err_class == VC_EC_NONE) {
        l->smp[c].err_class = VC_EC_OTHER;
        VC_SAMPLE_SET(&l->smp[c], err_msg, "the request could not run (request loop failure)");
    }
    va_wl_emit(l->wl, &l->smp[c], 0);
}

/* va_drive: begins connection c's next GET; NULL when all n are started. */
static va_http_t *loop_next(void *ud, int c)
{
    loopcal_t *l = ud;
    while (l->next < l->n) {
        vc_sample_t *smp = &l->smp[c];
        vc_sample_init(smp);
        VC_SAMPLE_SET(smp, label, "s3-get-loop");
        smp->run = (int32_t)l->next++;
        smp->worker = c;
        if (va_s3_begin(l->s3[c], l->o, smp) == VC_OK)
            return va_s3_http(l->s3[c]);
        loop_emit_failed(l, c);
    }
    return NULL;
}

/* va_drive: connection c's GET ended. */
static void loop_end(void *ud, int c, va_drive_end_t how)
{
    loopcal_t *l = ud;
    va_s3_end(l->s3[c]);
    if (how == VA_DRIVE_DROPPED) {
        vc_sample_clear(&l->smp[c]);
    } else if (how == VA_DRIVE_FAILED) {
        loop_emit_failed(l, c);
    } else {
        VC_SAMPLE_SET(&l->smp[c], op, "calibrate-request");
        va_wl_emit(l->wl, &l->smp[c], 0);
    }
}

static int loop_cancelled(void *ud) { return va_wl_cancelled(((loopcal_t *)ud)->wl); }

/* n signed S3 GETs on LOOP_CONNS connections driven by one loop thread, as
 * the ops workload runs them: each a calibrate-request "s3-get-loop" sample
 * whose duration includes waiting for the thread while it serves the other
 * connections, and whose CPU is the loop thread's per request. */
static vc_status_t calibrate_loop(va_wl_t *wl, const va_s3_opts_t *so, int64_t n, char *err,
                                  size_t errlen)
{
    char serr[256];
    vc_status_t rc = VC_OK;
    va_s3_obj_t o = {.op = VA_S3_GET, .bucket = "calibrate", .key = "null"};
    loopcal_t *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "calibrate: out of memory");
        return VC_ERR_NOMEM;
    }
    *l = (loopcal_t){.wl = wl, .o = &o, .n = n};
    for (int c = 0; c < LOOP_CONNS; c++)
        if (!(l->s3[c] = va_s3_new(so, serr, sizeof serr))) {
            rc = VC_ERR_NOMEM;
            snprintf(err, errlen, "calibrate: cannot make the clients: %s", serr);
            goto done;
        }
    va_drive_t d = {.nworkers = LOOP_CONNS, .max_threads = 1, .next = loop_next,
                    .end = loop_end, .cancelled = loop_cancelled, .ud = l};
    if ((rc = va_drive_run(&d)) != VC_OK)
        snprintf(err, errlen, "calibrate: the request loop failed (see the agent's log)");
done:
    for (int c = 0; c < LOOP_CONNS; c++)
        va_s3_destroy(&l->s3[c]);
    free(l);
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
