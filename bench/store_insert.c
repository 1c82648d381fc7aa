/* store_insert: how fast vk_store_add_samples stores batches (samples/s),
 * and the generator of large stores for bench/report_10m.sh.
 *
 *   store_insert DIR [SAMPLES [BATCH [AGENTS]]]
 *
 * Writes SAMPLES synthetic samples (default 1,000,000) in batches of BATCH
 * (default 1000) spread over AGENTS agents (default 3) into DIR/results.db,
 * shaped like a real campaign: a list-scale job (ais-regular, ais-nbi,
 * s3-direct, nbi-create per scale point), an ops job (put/get/head/delete)
 * and a probe job, with log-normal-ish durations and a few errors. Prints
 * the insert rate. Not a test: run it through bench/store_insert.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vc_clock.h"
#include "vc_sample.h"
#include "vk_store.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void)
{
    return (double)(next_u64() >> 11) / 9007199254740992.0;
}

/* Durations with a long right tail around a median. */
static int64_t duration(double median_ms)
{
    double z = 0;
    for (int i = 0; i < 4; i++)
        z += uniform();
    z = (z - 2) * 1.7; /* roughly normal, sd ~1 */
    return (int64_t)(median_ms * 1e6 * exp(0.35 * z));
}

static const char *const list_ops[] = {"ais-regular", "ais-nbi", "s3-direct"};
static const char *const obj_ops[] = {"put", "get", "head", "delete"};
static const char *const labels[] = {"1K", "2K", "5K", "10K", "20K", "40K", "50K", "80K"};
static const int64_t scales[] = {1000, 2000, 5000, 10000, 20000, 40000, 50000, 80000};

static void fill(vc_sample_t *s, uint64_t seq, int agent, const char *job)
{
    vc_sample_init(s);
    s->seq = seq;
    s->worker = (int32_t)(seq % 4);
    s->run = (int32_t)(seq % 1000);
    s->start_wall_ns = vc_wall_now();
    s->http_status = 200;
    s->cpu_user_us = 100 + (int64_t)(next_u64() % 900);
    s->cpu_sys_us = 50 + (int64_t)(next_u64() % 300);
    s->dns_us = 20;
    s->connect_us = 400 + agent * 1000;
    s->ttfb_us = 2000 + agent * 3000;
    double site = 1.0 + agent * 0.6;
    if (strcmp(job, "list") == 0) {
        int k = (int)(seq % 8), op = (int)((seq / 8) % 3);
        VC_SAMPLE_SET(s, op, list_ops[op]);
        VC_SAMPLE_SET(s, label, labels[k]);
        s->scale = scales[k];
        s->keys = scales[k];
        s->pages = (int32_t)(scales[k] / 1000);
        s->duration_ns = duration((double)scales[k] / (op == 1 ? 100.0 : 6.0) * site);
        if (seq % 977 == 0)
            VC_SAMPLE_SET(s, op, "nbi-create"), s->server_ns = s->duration_ns * 2;
    } else if (strcmp(job, "ops") == 0) {
        int op = (int)(seq % 4);
        VC_SAMPLE_SET(s, op, obj_ops[op]);
        VC_SAMPLE_SET(s, label, "5MiB");
        s->scale = 5 << 20;
        s->bytes_sent = op == 0 ? 5 << 20 : 200;
        s->bytes_recv = op == 1 ? 5 << 20 : 300;
        s->duration_ns = duration((op < 2 ? 300.0 : 12.0) * site);
    } else {
        VC_SAMPLE_SET(s, op, seq % 2 ? "probe-connect" : "probe-head");
        s->duration_ns = duration(1.0 * site);
    }
    if (seq % 1009 == 0) {
        s->err_class = VC_EC_THROTTLED;
        s->http_status = 503;
        VC_SAMPLE_SET(s, err_code, "SlowDown");
        VC_SAMPLE_SET(s, err_msg, "Please reduce your request rate.");
    }
    if (seq % 5003 == 0)
        s->flags |= VC_SF_SATURATED;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: store_insert DIR [SAMPLES [BATCH [AGENTS]]]\n");
        return 2;
    }
    const char *dir = argv[1];
    long long total = argc > 2 ? atoll(argv[2]) : 1000000;
    long batch = argc > 3 ? atol(argv[3]) : 1000;
    int agents = argc > 4 ? atoi(argv[4]) : 3;
    if (total <= 0 || batch <= 0 || batch > 1000000 || agents <= 0 || agents > 100) {
        fprintf(stderr, "store_insert: bad numbers\n");
        return 2;
    }
    char err[512];
    vk_store_t *st = NULL;
    if (vk_store_open(dir, VK_STORE_CREATE, &st, err, sizeof err)) {
        fprintf(stderr, "store_insert: %s\n", err);
        return 1;
    }
    static const char *const sites[] = {"ec2-apse1", "fiber-tokyo", "mobile-tokyo"};
    static const char *const jobs[] = {"list", "ops", "probe"};
    char names[100][32];
    for (int a = 0; a < agents; a++) {
        snprintf(names[a], sizeof names[a], "agent%d", a);
        vk_store_agent(st, names[a], a < 3 ? sites[a] : names[a], NULL);
        for (int j = 0; j < 3; j++)
            vk_store_job(st, jobs[j], names[a], VK_JOB_RUNNING, NULL, -1);
    }
    vk_store_campaign_begin(st, "bench", "synthetic", vc_wall_now());
    vc_sample_t *v = calloc((size_t)batch, sizeof *v);
    uint64_t seq[100][3] = {{0}};
    long long done = 0;
    double busy = 0;
    int bi = 0;
    while (done < total) {
        int a = bi % agents, j = (bi / agents) % 10 < 6 ? 0 : (bi / agents) % 10 < 9 ? 1 : 2;
        bi++;
        long n = total - done < batch ? (long)(total - done) : batch;
        for (long i = 0; i < n; i++)
            fill(&v[i], ++seq[a][j], a, jobs[j]);
        size_t ins = 0, dup = 0;
        vc_mono_ns_t t0 = vc_mono_now();
        if (vk_store_add_samples(st, names[a], jobs[j], v, (size_t)n, 1000, &ins, &dup)) {
            fprintf(stderr, "store_insert: batch failed: %s\n", vk_store_errmsg(st));
            return 1;
        }
        busy += (double)(vc_mono_now() - t0) / 1e9;
        done += n;
    }
    for (int a = 0; a < agents; a++)
        for (int j = 0; j < 3; j++)
            vk_store_job_finish(st, jobs[j], names[a], VK_JOB_DONE, (int64_t)seq[a][j], 0, NULL);
    vk_store_campaign_end(st, vc_wall_now());
    vk_store_destroy(&st);
    free(v);
    printf("stored %lld samples in batches of %ld: %.2f s in vk_store_add_samples, "
           "%.0f samples/s\n",
           done, batch, busy, (double)done / busy);
    return 0;
}
