/* va_calibrate_cli: run the calibrate workload in this process and print it. */
#include "va_calibrate_cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "va_workload.h"
#include "vc_stats.h"

#define MAX_REQ 100000

typedef struct {
    pthread_mutex_t mu;
    int64_t getres, now_cost, now_step, cpu_cost;
    int64_t *signed_ns, *bare_ns, *loop_ns;
    size_t nsigned, nbare, nloop;
    int64_t loop_cpu_us;  /* summed over the loop requests */
    int64_t errors;
} collect_t;

static void on_sample(void *arg, const vc_sample_t *s)
{
    collect_t *c = arg;
    pthread_mutex_lock(&c->mu);
    if (s->err_class != VC_EC_NONE) {
        c->errors++;
    } else if (strcmp(s->op, "calibrate-timer") == 0) {
        if (strcmp(s->label, "getres") == 0)
            c->getres = s->duration_ns;
        else if (strcmp(s->label, "now-cost") == 0)
            c->now_cost = s->duration_ns;
        else if (strcmp(s->label, "now-step") == 0)
            c->now_step = s->duration_ns;
        else if (strcmp(s->label, "cpu-cost") == 0)
            c->cpu_cost = s->duration_ns;
    } else if (strcmp(s->op, "calibrate-request") == 0) {
        if (strcmp(s->label, "s3-head") == 0 && c->nsigned < MAX_REQ)
            c->signed_ns[c->nsigned++] = s->duration_ns;
        else if (strcmp(s->label, "http-get") == 0 && c->nbare < MAX_REQ)
            c->bare_ns[c->nbare++] = s->duration_ns;
        else if (strcmp(s->label, "s3-get-loop") == 0 && c->nloop < MAX_REQ) {
            c->loop_ns[c->nloop++] = s->duration_ns;
            c->loop_cpu_us += (s->cpu_user_us > 0 ? s->cpu_user_us : 0) +
                              (s->cpu_sys_us > 0 ? s->cpu_sys_us : 0);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

static void print_requests(FILE *out, const char *what, int64_t *v, size_t n)
{
    if (!n) {
        fprintf(out, "  %-34s no successful request\n", what);
        return;
    }
    vc_stats_sort_i64(v, n);
    fprintf(out, "  %-34s p50 %7.1f us   p99 %7.1f us   min %7.1f us   (n=%zu)\n", what,
            vc_stats_percentile_i64(v, n, 0.50) / 1e3, vc_stats_percentile_i64(v, n, 0.99) / 1e3,
            (double)v[0] / 1e3, n);
}

int va_calibrate_print(int64_t count, FILE *out)
{
    collect_t c = {.getres = -1, .now_cost = -1, .now_step = -1, .cpu_cost = -1};
    pthread_mutex_init(&c.mu, NULL);
    c.signed_ns = calloc(MAX_REQ, sizeof *c.signed_ns);
    c.bare_ns = calloc(MAX_REQ, sizeof *c.bare_ns);
    c.loop_ns = calloc(MAX_REQ, sizeof *c.loop_ns);
    int rc = 1;
    if (!c.signed_ns || !c.bare_ns || !c.loop_ns) {
        fprintf(stderr, "vantage agent --calibrate: out of memory\n");
        goto done;
    }
    vc_job_t job;
    vc_job_init(&job, VC_WL_CALIBRATE);
    snprintf(job.id, sizeof job.id, "calibrate");
    if (count > 0)
        job.count = count > MAX_REQ ? MAX_REQ : count;
    va_workload_env_t env = {.agent_name = "local", .site = "", .emit = on_sample, .arg = &c};
    char err[512] = "";
    vc_status_t st = va_workload_run(&job, &env, err, sizeof err);
    if (st != VC_OK) {
        fprintf(stderr, "vantage agent --calibrate: %s\n", err[0] ? err : vc_strerror(st));
        goto done;
    }
    fprintf(out, "vantage calibration: the floor under every number this host measures\n\n");
    fprintf(out, "timer (CLOCK_MONOTONIC)\n");
    fprintf(out, "  resolution (clock_getres)          %lld ns\n", (long long)c.getres);
    fprintf(out, "  smallest observed step             %lld ns\n", (long long)c.now_step);
    fprintf(out, "  cost of one reading                %lld ns\n", (long long)c.now_cost);
    fprintf(out, "  cost of one thread-CPU reading     %lld ns\n\n", (long long)c.cpu_cost);
    fprintf(out, "one request to an in-process null HTTP server on 127.0.0.1 (keep-alive)\n");
    print_requests(out, "signed S3 HEAD (SigV4 + record)", c.signed_ns, c.nsigned);
    print_requests(out, "bare HTTP GET (no signing)", c.bare_ns, c.nbare);
    fprintf(out, "\nsigned S3 GETs, 8 connections driven by one thread (as ops runs requests)\n");
    print_requests(out, "signed S3 GET, 8 at once", c.loop_ns, c.nloop);
    if (c.nloop)
        fprintf(out, "  %-34s %.1f us\n", "agent CPU per request",
                (double)c.loop_cpu_us / (double)c.nloop);
    if (c.errors)
        fprintf(out, "  %lld calibration requests failed\n", (long long)c.errors);
    fprintf(out, "\nLatencies below the signed-HEAD p50 are this host's own cost, not the "
                 "storage's.\nIn a campaign, a `calibrate` job records the same numbers with the "
                 "results.\n");
    rc = c.errors ? 1 : 0;
done:
    free(c.signed_ns);
    free(c.bare_ns);
    free(c.loop_ns);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
