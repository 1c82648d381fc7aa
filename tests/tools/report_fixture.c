/* report_fixture: writes a store shaped like a real three-site campaign, for
 * the HTML report's integration test and its screenshot.
 *
 *   report_fixture DIR [ITERATIONS]
 *
 * Sites: aws-apse1 (agent ec2, next to the bucket), home-fiber (fiber) and
 * mobile-lte (mobile), with round trips of 1, 12 and 45 ms. Jobs: list
 * (list-scale at the NBI seed's eight scale points, 20 runs of each path,
 * plus nbi-create), ops (s3bench: ITERATIONS x put/get/head/delete of
 * 5 MiB, default 50, each on a fresh connection as the seed's separate
 * processes do), probe (connect/head baseline every 10 s) and calibrate.
 * Some failures (a throttling burst on mobile, a timeout, a reset), a few
 * saturated samples, clock offsets with error bounds and host facts.
 * Durations are log-normal around a model of each path and site from a
 * fixed seed, so the store is the same on every run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vc_sample.h"
#include "vk_store.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A log-normal factor with median 1. */
static double noise(double sigma)
{
    double u1 = uniform(), u2 = uniform();
    double z = sqrt(-2 * log(u1 > 1e-12 ? u1 : 1e-12)) * cos(6.283185307179586 * u2);
    return exp(sigma * z);
}

typedef struct {
    const char *agent, *site;
    double rtt_ms;    /* round trip to the store */
    double bw_up, bw_down; /* MB/s */
    int64_t offset_ns, offset_err_ns; /* agent clock - coordinator clock */
    const char *facts;
} site_t;

static const site_t sites[3] = {
    {"ec2", "aws-apse1", 1.0, 160, 300, 800000, 250000,
     "{\"os\":\"Debian GNU/Linux 12\",\"kernel\":\"6.1.0-18-cloud-amd64\",\"cpu\":\"Intel Xeon"
     " Platinum 8375C\",\"cores\":4,\"libcurl\":\"7.88.1\",\"instance\":\"c6i.xlarge\"}"},
    {"fiber", "home-fiber", 12.0, 40, 110, -35000000, 4000000,
     "{\"os\":\"Debian GNU/Linux 12\",\"kernel\":\"6.1.0-21-amd64\",\"cpu\":\"AMD Ryzen 7"
     " 5800U\",\"cores\":8,\"libcurl\":\"7.88.1\",\"link\":\"1 Gbit/s fiber\"}"},
    {"mobile", "mobile-lte", 45.0, 6, 25, 120000000, 20000000,
     "{\"os\":\"Debian GNU/Linux 12\",\"kernel\":\"6.1.0-21-arm64\",\"cpu\":\"Cortex-A76\","
     "\"cores\":4,\"libcurl\":\"7.88.1\",\"link\":\"LTE, tethered\"}"},
};

static const char *const labels[8] = {"1K", "2K", "5K", "10K", "20K", "40K", "50K", "80K"};
static const int64_t scales[8] = {1000, 2000, 5000, 10000, 20000, 40000, 50000, 80000};
static const char *const paths[3] = {"ais-regular", "ais-nbi", "s3-direct"};

#define T0 1767225600000000000LL /* 2026-01-01 00:00:00 UTC */
#define MS 1000000LL

typedef struct {
    vc_sample_t *v;
    size_t n, cap;
    uint64_t seq;
} batch_t;

static vc_sample_t *add(batch_t *b, const char *op, const char *label, int64_t scale, int run)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->v = realloc(b->v, b->cap * sizeof *b->v);
        if (!b->v) {
            fprintf(stderr, "report_fixture: out of memory\n");
            exit(1);
        }
    }
    vc_sample_t *s = &b->v[b->n++];
    vc_sample_init(s);
    s->seq = ++b->seq;
    VC_SAMPLE_SET(s, op, op);
    VC_SAMPLE_SET(s, label, label);
    s->scale = scale;
    s->run = run;
    s->worker = 0;
    s->http_status = 200;
    return s;
}

/* Phase ends of a request on a fresh connection, and its total duration. */
static void timed_request(vc_sample_t *s, const site_t *st, double server_ms, double bytes_up,
                          double bytes_down, int fresh)
{
    double rtt = st->rtt_ms * noise(0.15);
    double dns = fresh ? 1.5 * noise(0.3) : 0, conn = fresh ? dns + rtt : 0;
    double tls = fresh ? conn + 2 * rtt + 1.2 : 0;
    double ready = fresh ? tls : 0;
    double up = bytes_up / (st->bw_up * 1e6) * 1e3 * noise(0.1);
    double ttfb = ready + up + server_ms * noise(0.25) + rtt;
    double down = bytes_down / (st->bw_down * 1e6) * 1e3 * noise(0.1);
    double total = ttfb + down + 0.05;
    if (fresh) {
        s->dns_us = (int32_t)(dns * 1000);
        s->connect_us = (int32_t)(conn * 1000);
        s->tls_us = (int32_t)(tls * 1000);
    }
    s->ttfb_us = (int32_t)(ttfb * 1000);
    s->duration_ns = (int64_t)(total * MS);
    s->bytes_sent = (int64_t)bytes_up + 300;
    s->bytes_recv = (int64_t)bytes_down + 400;
    s->cpu_user_us = 200 + (int64_t)(bytes_up + bytes_down) / 20000;
    s->cpu_sys_us = 150 + (int64_t)(bytes_up + bytes_down) / 9000;
}

static void store(vk_store_t *st, const site_t *site, const char *job, batch_t *b)
{
    for (size_t i = 0; i < b->n; i++)
        b->v[i].start_wall_ns += site->offset_ns; /* as the agent's clock reads it */
    size_t ins = 0;
    if (vk_store_add_samples(st, site->agent, job, b->v, b->n, site->offset_ns, &ins, NULL) ||
        ins != b->n) {
        fprintf(stderr, "report_fixture: storing %s/%s failed: %s\n", site->agent, job,
                vk_store_errmsg(st));
        exit(1);
    }
    vk_store_job_finish(st, job, site->agent, VK_JOB_DONE, (int64_t)b->seq, 0, NULL);
    for (size_t i = 0; i < b->n; i++)
        vc_sample_clear(&b->v[i]);
    b->n = 0;
}

static int64_t list_job(vk_store_t *st, const site_t *s)
{
    batch_t b = {0};
    int64_t t = T0 + 5 * 1000 * MS;
    for (int k = 0; k < 8; k++) {
        double pages = (double)scales[k] / 1000;
        vc_sample_t *c = add(&b, "nbi-create", labels[k], scales[k], 0);
        c->server_ns = (int64_t)((300 + 2.2 * pages * 40) * noise(0.1) * MS);
        c->duration_ns = c->server_ns + (int64_t)(s->rtt_ms * 6 * MS);
        c->start_wall_ns = t;
        t += c->duration_ns + 200 * MS;
        for (int p = 0; p < 3; p++) {
            for (int r = 0; r < 20; r++) {
                vc_sample_t *x = add(&b, paths[p], labels[k], scales[k], r);
                double ms;
                if (p == 0) /* AIS walks S3 page by page, in the cluster */
                    ms = 80 + 92 * pages + s->rtt_ms * 1.5 + 0.02 * pages * s->rtt_ms;
                else if (p == 1) /* AIS serves the inventory: few large pages */
                    ms = 14 + 3.1 * pages + s->rtt_ms * (1 + pages / 10) +
                         pages * 1000 * 60 / (s->bw_down * 1e6) * 1e3;
                else /* the client pages ListObjectsV2 itself: one round trip a page */
                    ms = 120 + 105 * pages + pages * s->rtt_ms * 1.1;
                x->duration_ns = (int64_t)(ms * noise(0.12) * MS);
                x->pages = (int32_t)ceil(pages);
                x->keys = scales[k];
                x->start_wall_ns = t;
                x->ttfb_us = (int32_t)(s->rtt_ms * 1000 + 15000);
                x->connect_us = 0;
                x->dns_us = 0;
                t += x->duration_ns + 50 * MS;
            }
        }
    }
    store(st, s, "list", &b);
    free(b.v);
    return t;
}

static int64_t ops_job(vk_store_t *st, const site_t *s, int iterations, int64_t t)
{
    static const char *const ops[4] = {"put", "get", "head", "delete"};
    static const double server_ms[4] = {35, 12, 4, 6};
    batch_t b = {0};
    const double size = 5 << 20;
    for (int i = 0; i < iterations; i++) {
        for (int o = 0; o < 4; o++) {
            vc_sample_t *x = add(&b, ops[o], "5MiB", 5 << 20, i);
            timed_request(x, s, server_ms[o], o == 0 ? size : 0, o == 1 ? size : 0, 1);
            x->start_wall_ns = t;
            /* mobile: a burst of throttling a third of the way in */
            if (s->rtt_ms > 40 && o == 1 && i >= iterations / 3 && i < iterations / 3 + 4) {
                x->err_class = VC_EC_THROTTLED;
                x->http_status = 503;
                VC_SAMPLE_SET(x, err_code, "SlowDown");
                VC_SAMPLE_SET(x, err_msg, "Please reduce your request rate.");
                x->duration_ns /= 20;
            }
            if (s->rtt_ms > 40 && o == 0 && i == iterations / 2) {
                x->err_class = VC_EC_TIMEOUT;
                x->http_status = 0;
                VC_SAMPLE_SET(x, err_code, "OPERATION_TIMEDOUT");
                VC_SAMPLE_SET(x, err_msg, "upload of 5242880 bytes timed out after 30 s");
                x->duration_ns = 30000 * MS;
            }
            if (s->rtt_ms > 10 && s->rtt_ms < 40 && o == 2 && i == iterations - 3) {
                x->err_class = VC_EC_CONNECT;
                x->http_status = 0;
                VC_SAMPLE_SET(x, err_code, "RECV_ERROR");
                VC_SAMPLE_SET(x, err_msg, "connection reset by peer");
                x->duration_ns = -1;
            }
            if (s->rtt_ms > 40 && i % 17 == 5)
                x->flags |= VC_SF_SATURATED;
            t += (x->duration_ns > 0 ? x->duration_ns : 0) + 100 * MS;
        }
    }
    store(st, s, "ops", &b);
    free(b.v);
    return t;
}

static void probe_job(vk_store_t *st, const site_t *s, int64_t until)
{
    batch_t b = {0};
    int r = 0;
    for (int64_t t = T0 + 2000 * MS; t < until; t += 10000 * MS, r++) {
        vc_sample_t *c = add(&b, "probe-connect", "", -1, r);
        double rtt = s->rtt_ms * noise(0.15);
        c->dns_us = (int32_t)(1500 * noise(0.3));
        c->connect_us = c->dns_us + (int32_t)(rtt * 1000);
        c->duration_ns = (int64_t)c->connect_us * 1000;
        c->start_wall_ns = t;
        vc_sample_t *h = add(&b, "probe-head", "", -1, r);
        timed_request(h, s, 3, 0, 0, 0);
        h->start_wall_ns = t + 500 * MS;
    }
    store(st, s, "probe", &b);
    free(b.v);
}

/* As va_wl_calibrate reports it: one sample per clock figure, then
 * requests to a server inside the agent. */
static void calibrate_job(vk_store_t *st, const site_t *s)
{
    static const char *const timer[4] = {"getres", "now-cost", "now-step", "cpu-cost"};
    static const double timer_ns[4] = {1, 21, 30, 260};
    batch_t b = {0};
    for (int k = 0; k < 4; k++) {
        vc_sample_t *c = add(&b, "calibrate-timer", timer[k], k == 1 ? 1000000 : -1, 0);
        c->duration_ns = (int64_t)(timer_ns[k] * (k ? noise(0.1) : 1));
        c->start_wall_ns = T0 + 100 * MS + k * MS;
    }
    for (int r = 0; r < 200; r++) {
        vc_sample_t *q = add(&b, "calibrate-request", r % 2 ? "http-get" : "s3-head", 200, r / 2);
        q->duration_ns = (int64_t)((r % 2 ? 35000 : 60000) * noise(0.2));
        q->start_wall_ns = T0 + 200 * MS + r * 100000;
    }
    store(st, s, "calibrate", &b);
    free(b.v);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: report_fixture DIR [ITERATIONS]\n");
        return 2;
    }
    int iterations = argc > 2 ? atoi(argv[2]) : 50;
    if (iterations < 4 || iterations > 1000000) {
        fprintf(stderr, "report_fixture: ITERATIONS must be 4..1000000\n");
        return 2;
    }
    char err[512];
    vk_store_t *st = NULL;
    if (vk_store_open(argv[1], VK_STORE_CREATE, &st, err, sizeof err)) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return 1;
    }
    vk_store_campaign_begin(st, "apse1-three-sites",
                            "campaign = \"apse1-three-sites\"\n# fixture of the report tests\n",
                            T0);
    int64_t end = T0;
    for (int i = 0; i < 3; i++) {
        const site_t *s = &sites[i];
        vk_store_agent(st, s->agent, s->site, s->facts);
        for (int k = 0; k < 12; k++)
            vk_store_clock_offset(st, s->agent, T0 + k * 60000 * MS,
                                  s->offset_ns + (int64_t)((uniform() - 0.5) * 0.6 *
                                                           (double)s->offset_err_ns),
                                  s->offset_err_ns, (int64_t)(s->rtt_ms * 2.2 * MS));
        calibrate_job(st, s);
        int64_t t = ops_job(st, s, iterations, list_job(st, s) + 10000 * MS);
        end = t > end ? t : end;
    }
    /* the probes run through the whole campaign */
    for (int i = 0; i < 3; i++)
        probe_job(st, &sites[i], end);
    vk_store_campaign_end(st, end + 5000 * MS);
    vk_store_destroy(&st);
    return 0;
}
