/* Writes the seed inputs that are easier made than captured: one encoded
 * message of each protocol type, spool files as the agent writes them, and
 * job specs as the store keeps them (from the campaigns given). Run it after
 * a protocol or spool format change:
 *   build-fuzz/fuzz/make_seeds tests/fuzz/corpus campaigns/demo.cfg ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "va_spool.h"
#include "vc_campaign.h"
#include "vc_job_json.h"
#include "vp_msg.h"

static const char *g_out;

static void save(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", g_out, dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
        exit(1);
    }
}

static void fill_sample(vc_sample_t *s, uint32_t i, uint32_t npages)
{
    vc_sample_init(s);
    VC_SAMPLE_SET(s, op, i % 2 ? "s3-direct" : "get");
    VC_SAMPLE_SET(s, label, "10K");
    s->scale = 10000;
    s->run = (int32_t)i;
    s->start_wall_ns = INT64_C(1764488000123456789) + i;
    s->duration_ns = 1234567 + i;
    s->dns_us = 11, s->connect_us = 222, s->ttfb_us = 4444;
    s->bytes_recv = 321;
    s->pages = (int32_t)npages;
    s->keys = npages ? 1000 * (int64_t)npages : -1;
    s->http_status = i % 3 ? 200 : 503;
    s->err_class = i % 3 ? VC_EC_NONE : VC_EC_THROTTLED;
    VC_SAMPLE_SET(s, err_code, i % 3 ? "" : "SlowDown");
    for (uint32_t p = 0; p < npages; p++)
        vc_sample_add_page(s, 100000 + p, 1000, 4096);
}

static void proto_seeds(const vc_job_t *job)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    for (int t = VP_HELLO; t < VP_TYPE_END; t++) {
        vp_msg_t m;
        vp_msg_init(&m, (vp_type_t)t);
        m.request_id = (uint64_t)t;
        switch (t) {
        case VP_HELLO:
            snprintf(m.u.hello.name, sizeof m.u.hello.name, "agent-fra-1");
            snprintf(m.u.hello.version, sizeof m.u.hello.version, "0.1.0");
            snprintf(m.u.hello.hostname, sizeof m.u.hello.hostname, "box.lan");
            m.u.hello.cpus = 8;
            m.u.hello.ncaps = 2;
            snprintf(m.u.hello.caps[0], sizeof m.u.hello.caps[0], "s3");
            snprintf(m.u.hello.caps[1], sizeof m.u.hello.caps[1], "ais");
            m.u.hello.wall_ns = INT64_C(1764488000000000001);
            m.u.hello.nresume = 1;
            m.u.hello.resume[0] = (vp_resume_t){41, 1001, 900, VP_RJ_RUNNING};
            break;
        case VP_WELCOME:
            snprintf(m.u.welcome.version, sizeof m.u.welcome.version, "0.1.0");
            m.u.welcome.heartbeat_ms = 2000;
            m.u.welcome.wall_ns = 5;
            m.u.welcome.nacks = 1;
            m.u.welcome.acks[0] = (vp_ack_t){41, 950};
            break;
        case VP_REJECT:
            snprintf(m.u.reject.reason, sizeof m.u.reject.reason, "unknown agent key");
            break;
        case VP_PING:
            m.u.ping.t1 = INT64_C(1764488000111111111);
            break;
        case VP_PONG:
            m.u.pong = (vp_pong_t){1, 2, 3};
            break;
        case VP_JOB:
            snprintf(m.u.job.campaign, sizeof m.u.job.campaign, "demo");
            m.u.job.job_id = 42;
            m.u.job.job = *job;
            break;
        case VP_PROGRESS:
            m.u.progress = (vp_progress_t){43, 17, 160, 2, "listing 10K run 3/20"};
            break;
        case VP_SAMPLES:
            m.u.samples.job_id = 44;
            m.u.samples.first_seq = 1;
            m.u.samples.nsamples = 3;
            m.u.samples.samples = calloc(3, sizeof(vc_sample_t));
            for (uint32_t i = 0; i < 3; i++)
                fill_sample(&m.u.samples.samples[i], i, i == 1 ? 2 : 0);
            break;
        case VP_ACK:
            m.u.ack = (vp_ack_msg_t){45, 1234};
            break;
        case VP_DONE:
            m.u.done = (vp_done_t){46, VP_JOB_FAILED, "bucket vantage-test: AccessDenied", 99, 3};
            break;
        case VP_CANCEL:
            m.u.cancel.job_id = 47;
            break;
        case VP_BYE:
            snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "shutting down");
            break;
        }
        if (vp_msg_encode(&m, &sb) != VC_OK) {
            fprintf(stderr, "make_seeds: cannot encode %s\n", vp_msg_type_name(t));
            exit(1);
        }
        char name[64];
        snprintf(name, sizeof name, "%s.msgpack", vp_msg_type_name(t));
        save("fuzz_proto", name, sb.data, sb.size);
        vp_msg_clear(&m);
    }
    msgpack_sbuffer_destroy(&sb);
}

static void spool_seeds(void)
{
    char dir[] = "/tmp/vantage-seeds-XXXXXX";
    if (!mkdtemp(dir))
        exit(1);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/spool", dir);
    va_spool_t *sp = va_spool_open(path, err, sizeof err);
    if (!sp) {
        fprintf(stderr, "make_seeds: %s\n", err);
        exit(1);
    }
    va_spool_set_fsync(sp, 0);
    vc_sample_t s[3];
    for (uint32_t i = 0; i < 3; i++)
        fill_sample(&s[i], i, i == 2 ? 2 : 0);
    va_spool_append(sp, 7, 1, s, 2, NULL, err, sizeof err);
    va_spool_append(sp, 7, 3, s + 2, 1, NULL, err, sizeof err);
    va_spool_append(sp, 9, 1, s, 1, NULL, err, sizeof err);
    va_spool_ack(sp, 7, 2, err, sizeof err);
    vp_done_t done = {9, VP_JOB_OK, "", 1, 0};
    va_spool_finish(sp, &done, err, sizeof err);
    va_spool_forget(sp, 11, err, sizeof err);
    va_spool_destroy(&sp);
    for (uint32_t i = 0; i < 3; i++)
        vc_sample_clear(&s[i]);
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    save("fuzz_spool", "spool-batches-ack-finish.bin", buf, n);
    save("fuzz_spool", "spool-torn-tail.bin", buf, n > 10 ? n - 10 : n);
    save("fuzz_spool", "spool-header-only.bin", buf, n > 8 ? 8 : n);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_seeds CORPUS_DIR CAMPAIGN.cfg...\n");
        return 2;
    }
    g_out = argv[1];
    vc_job_t first;
    int have = 0;
    for (int a = 2; a < argc; a++) {
        vc_campaign_t *c = NULL;
        if (vc_campaign_load(argv[a], &c, NULL) != VC_OK) {
            fprintf(stderr, "make_seeds: %s does not load\n", argv[a]);
            return 1;
        }
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
            const vc_job_t *job = &vc_campaign_job(c, i)->job;
            if (!have)
                first = *job, have = 1;
            char *json = vc_job_to_json(job, 0);
            char name[256];
            snprintf(name, sizeof name, "%.*s-%zu.json", (int)(strcspn(base, ".")), base, i);
            save("fuzz_job_json", name, json, strlen(json));
            free(json);
        }
        vc_campaign_destroy(&c);
    }
    if (!have)
        return 1;
    proto_seeds(&first);
    spool_seeds();
    return 0;
}
