/* Tests of vp_msg: round trips of every message type with every field
 * compared, and a decoder that refuses (never crashes on) truncated,
 * random, bit-flipped and hand-broken messages, naming the field at fault.
 * Broken messages are made by decoding a valid encoding into a msgpack
 * object tree, changing one thing, and packing it again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <msgpack.h>

#include "vp_msg.h"

/* ------------------------------------------------------------- builders */

static void fill_sample(vc_sample_t *s, uint32_t i, uint32_t npages)
{
    vc_sample_init(s);
    snprintf(s->op, sizeof s->op, "%s", i % 2 ? "ais-regular" : "get");
    snprintf(s->label, sizeof s->label, "scale-%u", i);
    s->scale = 10000 + i;
    s->run = (int32_t)(i % 20);
    s->worker = (int32_t)(i % 16);
    s->start_wall_ns = INT64_C(1764488000123456789) + i;
    s->duration_ns = 1234567 + i;
    s->server_ns = i % 3 ? -1 : 999999;
    s->dns_us = 11;
    s->connect_us = 222;
    s->tls_us = -1;
    s->ttfb_us = 4444 + (int32_t)i;
    s->bytes_sent = 5 * 1024 * 1024;
    s->bytes_recv = 321;
    s->pages = (int32_t)npages;
    s->keys = npages ? 1000 * (int64_t)npages : -1;
    s->http_status = i % 5 ? 200 : 503;
    s->retries = (int32_t)(i % 4);
    s->err_class = i % 5 ? VC_EC_NONE : VC_EC_THROTTLED;
    snprintf(s->err_code, sizeof s->err_code, "%s", i % 5 ? "" : "SlowDown");
    snprintf(s->err_msg, sizeof s->err_msg, "%s", i % 5 ? "" : "Please reduce your request rate.");
    s->cpu_user_us = 77 + i;
    s->cpu_sys_us = 13;
    s->flags = VC_SF_RETRIED | (i % 2 ? VC_SF_WARMUP : 0);
    for (uint32_t p = 0; p < npages; p++)
        assert_int_equal(vc_sample_add_page(s, 100000 + p, p == npages - 1 ? 7 : 1000,
                                            (int64_t)p * 4096), VC_OK);
}

static void fill_target(vc_target_t *t, const char *name, vc_target_kind_t kind)
{
    vc_target_init(t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->kind = kind;
    snprintf(t->endpoint, sizeof t->endpoint, "https://%s.example:8443", name);
    snprintf(t->bucket, sizeof t->bucket, "bucket-%s", name);
    snprintf(t->provider, sizeof t->provider, "%s", kind == VC_TK_AIS ? "ais" : "aws");
    snprintf(t->region, sizeof t->region, "eu-north-1");
    t->addressing = VC_ADDR_VIRTUAL;
    t->verify_tls = 0;
}

/* Every field set to something other than its default, so a field the
 * encoder forgot would come back different. */
static void fill(vp_msg_t *m, vp_type_t type)
{
    vp_msg_init(m, type);
    m->request_id = UINT64_C(0xfedcba9876543210) + type;
    switch (type) {
    case VP_HELLO: {
        vp_hello_t *h = &m->u.hello;
        snprintf(h->name, sizeof h->name, "agent-fra-1");
        snprintf(h->site, sizeof h->site, "home fiber, Frankfurt");
        snprintf(h->version, sizeof h->version, "0.1.0");
        h->proto_minor = 3;
        snprintf(h->hostname, sizeof h->hostname, "box.lan");
        snprintf(h->os, sizeof h->os, "Linux 6.1.0-13-amd64 x86_64");
        h->cpus = 8;
        snprintf(h->public_ip, sizeof h->public_ip, "2001:db8::17");
        h->ncaps = 3;
        snprintf(h->caps[0], sizeof h->caps[0], "s3");
        snprintf(h->caps[1], sizeof h->caps[1], "ais");
        snprintf(h->caps[2], sizeof h->caps[2], "list-scale");
        h->wall_ns = INT64_C(1764488000000000001);
        h->nresume = 2;
        h->resume[0] = (vp_resume_t){41, 1001, 900, VP_RJ_RUNNING};
        h->resume[1] = (vp_resume_t){UINT64_MAX, 5, 4, VP_RJ_INTERRUPTED};
        break;
    }
    case VP_WELCOME: {
        vp_welcome_t *w = &m->u.welcome;
        snprintf(w->version, sizeof w->version, "0.2.0-rc1");
        w->proto_minor = 1;
        w->heartbeat_ms = 2500;
        w->wall_ns = -5;
        w->nacks = 2;
        w->acks[0] = (vp_ack_t){41, 950};
        w->acks[1] = (vp_ack_t){7, 0};
        break;
    }
    case VP_REJECT:
        snprintf(m->u.reject.reason, sizeof m->u.reject.reason, "unknown agent key");
        break;
    case VP_PING:
        m->u.ping.t1 = INT64_C(1764488000111111111);
        break;
    case VP_PONG:
        m->u.pong = (vp_pong_t){INT64_C(1764488000111111111), INT64_C(1764488003111222222),
                                INT64_C(1764488003111333333)};
        break;
    case VP_JOB: {
        vp_job_msg_t *j = &m->u.job;
        snprintf(j->campaign, sizeof j->campaign, "nbi-vs-regular");
        j->job_id = 42;
        j->start_at = INT64_C(1764488010000000000);
        vc_job_t *job = &j->job;
        vc_job_init(job, VC_WL_LIST_SCALE);
        snprintf(job->id, sizeof job->id, "list");
        fill_target(&job->target, "ais-main", VC_TK_AIS);
        job->has_direct = 1;
        fill_target(&job->direct, "s3-direct", VC_TK_S3);
        job->start_at = 77;
        job->workers = 3;
        job->runs = 21;
        job->timeout_ms = 12345;
        job->page_size = 500;
        snprintf(job->prefix, sizeof job->prefix, "bench/");
        job->count = 80000;
        job->object_size = 2;
        job->sequential_names = 1;
        job->nscale = 2;
        job->scale[0] = (vc_scale_point_t){"1K", "bench/1k/", 1000};
        job->scale[1] = (vc_scale_point_t){"80K", "bench/80k/", 80000};
        job->paths = VC_PATH_AIS_NBI | VC_PATH_S3_DIRECT;
        job->nbi_poll_ms = 150;
        job->nbi_timeout_ms = 700000;
        job->warmup = 0;
        job->iterations = 9;
        job->nops = 3;
        job->ops[0] = VC_OP_DELETE;
        job->ops[1] = VC_OP_PUT;
        job->ops[2] = VC_OP_HEAD;
        snprintf(job->key_prefix, sizeof job->key_prefix, "k/");
        snprintf(job->upload_file, sizeof job->upload_file, "/tmp/up.bin");
        job->probe_count = 4;
        job->probe_interval_ms = 250;
        job->verify_count = 0;
        job->nbi_destroy = 0;
        job->interleave = 1;
        job->run_first = 7;
        job->slice = 3;
        break;
    }
    case VP_PROGRESS:
        m->u.progress = (vp_progress_t){43, 17, 160, 2, "listing 10K run 3/20"};
        break;
    case VP_SAMPLES: {
        vp_samples_t *s = &m->u.samples;
        s->job_id = 44;
        s->first_seq = 1001;
        s->nsamples = 4;
        s->samples = calloc(s->nsamples, sizeof *s->samples);
        assert_non_null(s->samples);
        for (uint32_t i = 0; i < s->nsamples; i++)
            fill_sample(&s->samples[i], i, i == 1 ? 3 : 0);
        break;
    }
    case VP_ACK:
        m->u.ack = (vp_ack_msg_t){45, 123456789};
        break;
    case VP_DONE:
        m->u.done = (vp_done_t){46, VP_JOB_FAILED, "bucket vantage-test: AccessDenied", 99, 3};
        break;
    case VP_CANCEL:
        m->u.cancel.job_id = 47;
        break;
    case VP_BYE:
        snprintf(m->u.bye.reason, sizeof m->u.bye.reason, "shutting down (SIGTERM)");
        break;
    default:
        fail();
    }
}

/* ------------------------------------------------------------- compare */

static void eq_sample(const vc_sample_t *a, const vc_sample_t *b)
{
    assert_int_equal(a->seq, b->seq);
    assert_string_equal(a->op, b->op);
    assert_string_equal(a->label, b->label);
    assert_int_equal(a->scale, b->scale);
    assert_int_equal(a->run, b->run);
    assert_int_equal(a->worker, b->worker);
    assert_int_equal(a->start_wall_ns, b->start_wall_ns);
    assert_int_equal(a->duration_ns, b->duration_ns);
    assert_int_equal(a->server_ns, b->server_ns);
    assert_int_equal(a->dns_us, b->dns_us);
    assert_int_equal(a->connect_us, b->connect_us);
    assert_int_equal(a->tls_us, b->tls_us);
    assert_int_equal(a->ttfb_us, b->ttfb_us);
    assert_int_equal(a->bytes_sent, b->bytes_sent);
    assert_int_equal(a->bytes_recv, b->bytes_recv);
    assert_int_equal(a->pages, b->pages);
    assert_int_equal(a->keys, b->keys);
    assert_int_equal(a->http_status, b->http_status);
    assert_int_equal(a->retries, b->retries);
    assert_int_equal(a->err_class, b->err_class);
    assert_string_equal(a->err_code, b->err_code);
    assert_string_equal(a->err_msg, b->err_msg);
    assert_int_equal(a->cpu_user_us, b->cpu_user_us);
    assert_int_equal(a->cpu_sys_us, b->cpu_sys_us);
    assert_int_equal(a->flags, b->flags);
    assert_int_equal(a->npages, b->npages);
    for (uint32_t i = 0; i < a->npages; i++) {
        assert_int_equal(a->page[i].duration_ns, b->page[i].duration_ns);
        assert_int_equal(a->page[i].keys, b->page[i].keys);
        assert_int_equal(a->page[i].bytes, b->page[i].bytes);
    }
}

static void eq_target(const vc_target_t *a, const vc_target_t *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->kind, b->kind);
    assert_string_equal(a->endpoint, b->endpoint);
    assert_string_equal(a->bucket, b->bucket);
    assert_string_equal(a->provider, b->provider);
    assert_string_equal(a->region, b->region);
    assert_int_equal(a->addressing, b->addressing);
    assert_int_equal(a->verify_tls, b->verify_tls);
}

static void eq_job(const vc_job_t *a, const vc_job_t *b)
{
    assert_string_equal(a->id, b->id);
    assert_int_equal(a->kind, b->kind);
    eq_target(&a->target, &b->target);
    assert_int_equal(a->has_direct, b->has_direct);
    if (a->has_direct)
        eq_target(&a->direct, &b->direct);
    assert_int_equal(a->start_at, b->start_at);
    assert_int_equal(a->workers, b->workers);
    assert_int_equal(a->runs, b->runs);
    assert_int_equal(a->timeout_ms, b->timeout_ms);
    assert_int_equal(a->page_size, b->page_size);
    assert_string_equal(a->prefix, b->prefix);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->object_size, b->object_size);
    assert_int_equal(a->sequential_names, b->sequential_names);
    assert_int_equal(a->nscale, b->nscale);
    for (int i = 0; i < a->nscale; i++) {
        assert_string_equal(a->scale[i].label, b->scale[i].label);
        assert_string_equal(a->scale[i].prefix, b->scale[i].prefix);
        assert_int_equal(a->scale[i].count, b->scale[i].count);
    }
    assert_int_equal(a->paths, b->paths);
    assert_int_equal(a->nbi_poll_ms, b->nbi_poll_ms);
    assert_int_equal(a->nbi_timeout_ms, b->nbi_timeout_ms);
    assert_int_equal(a->warmup, b->warmup);
    assert_int_equal(a->iterations, b->iterations);
    assert_int_equal(a->nops, b->nops);
    for (int i = 0; i < a->nops; i++)
        assert_int_equal(a->ops[i], b->ops[i]);
    assert_string_equal(a->key_prefix, b->key_prefix);
    assert_string_equal(a->upload_file, b->upload_file);
    assert_int_equal(a->probe_count, b->probe_count);
    assert_int_equal(a->probe_interval_ms, b->probe_interval_ms);
    assert_int_equal(a->verify_count, b->verify_count);
    assert_int_equal(a->nbi_create, b->nbi_create);
    assert_int_equal(a->nbi_destroy, b->nbi_destroy);
    assert_int_equal(a->interleave, b->interleave);
    assert_int_equal(a->run_first, b->run_first);
    assert_int_equal(a->slice, b->slice);
}

static void eq_msg(const vp_msg_t *a, const vp_msg_t *b)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->request_id, b->request_id);
    switch (a->type) {
    case VP_HELLO: {
        const vp_hello_t *x = &a->u.hello, *y = &b->u.hello;
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->site, y->site);
        assert_string_equal(x->version, y->version);
        assert_int_equal(x->proto_minor, y->proto_minor);
        assert_string_equal(x->hostname, y->hostname);
        assert_string_equal(x->os, y->os);
        assert_int_equal(x->cpus, y->cpus);
        assert_string_equal(x->public_ip, y->public_ip);
        assert_int_equal(x->ncaps, y->ncaps);
        for (uint32_t i = 0; i < x->ncaps; i++)
            assert_string_equal(x->caps[i], y->caps[i]);
        assert_int_equal(x->wall_ns, y->wall_ns);
        assert_int_equal(x->nresume, y->nresume);
        for (uint32_t i = 0; i < x->nresume; i++) {
            assert_int_equal(x->resume[i].job_id, y->resume[i].job_id);
            assert_int_equal(x->resume[i].next_seq, y->resume[i].next_seq);
            assert_int_equal(x->resume[i].acked_seq, y->resume[i].acked_seq);
            assert_int_equal(x->resume[i].state, y->resume[i].state);
        }
        break;
    }
    case VP_WELCOME: {
        const vp_welcome_t *x = &a->u.welcome, *y = &b->u.welcome;
        assert_string_equal(x->version, y->version);
        assert_int_equal(x->proto_minor, y->proto_minor);
        assert_int_equal(x->heartbeat_ms, y->heartbeat_ms);
        assert_int_equal(x->wall_ns, y->wall_ns);
        assert_int_equal(x->nacks, y->nacks);
        for (uint32_t i = 0; i < x->nacks; i++) {
            assert_int_equal(x->acks[i].job_id, y->acks[i].job_id);
            assert_int_equal(x->acks[i].seq, y->acks[i].seq);
        }
        break;
    }
    case VP_REJECT:
        assert_string_equal(a->u.reject.reason, b->u.reject.reason);
        break;
    case VP_BYE:
        assert_string_equal(a->u.bye.reason, b->u.bye.reason);
        break;
    case VP_PING:
        assert_int_equal(a->u.ping.t1, b->u.ping.t1);
        break;
    case VP_PONG:
        assert_int_equal(a->u.pong.t1, b->u.pong.t1);
        assert_int_equal(a->u.pong.t2, b->u.pong.t2);
        assert_int_equal(a->u.pong.t3, b->u.pong.t3);
        break;
    case VP_JOB:
        assert_string_equal(a->u.job.campaign, b->u.job.campaign);
        assert_int_equal(a->u.job.job_id, b->u.job.job_id);
        assert_int_equal(a->u.job.start_at, b->u.job.start_at);
        eq_job(&a->u.job.job, &b->u.job.job);
        break;
    case VP_PROGRESS:
        assert_int_equal(a->u.progress.job_id, b->u.progress.job_id);
        assert_int_equal(a->u.progress.done, b->u.progress.done);
        assert_int_equal(a->u.progress.total, b->u.progress.total);
        assert_int_equal(a->u.progress.errors, b->u.progress.errors);
        assert_string_equal(a->u.progress.step, b->u.progress.step);
        break;
    case VP_SAMPLES:
        assert_int_equal(a->u.samples.job_id, b->u.samples.job_id);
        assert_int_equal(a->u.samples.first_seq, b->u.samples.first_seq);
        assert_int_equal(a->u.samples.nsamples, b->u.samples.nsamples);
        for (uint32_t i = 0; i < a->u.samples.nsamples; i++)
            eq_sample(&a->u.samples.samples[i], &b->u.samples.samples[i]);
        break;
    case VP_ACK:
        assert_int_equal(a->u.ack.job_id, b->u.ack.job_id);
        assert_int_equal(a->u.ack.seq, b->u.ack.seq);
        break;
    case VP_DONE:
        assert_int_equal(a->u.done.job_id, b->u.done.job_id);
        assert_int_equal(a->u.done.status, b->u.done.status);
        assert_string_equal(a->u.done.error, b->u.done.error);
        assert_int_equal(a->u.done.samples, b->u.done.samples);
        assert_int_equal(a->u.done.errors, b->u.done.errors);
        break;
    case VP_CANCEL:
        assert_int_equal(a->u.cancel.job_id, b->u.cancel.job_id);
        break;
    default:
        fail();
    }
}

/* ---------------------------------------------------------- round trips */

static void test_round_trip_every_type(void **state)
{
    (void)state;
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    for (int t = VP_HELLO; t < VP_TYPE_END; t++) {
        vp_msg_t m, d;
        fill(&m, (vp_type_t)t);
        assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
        assert_true(buf.size > 0 && buf.size <= VP_MAX_MSG_SIZE);
        char err[256] = "";
        vc_status_t rc = vp_msg_decode(buf.data, buf.size, &d, err, sizeof err);
        if (rc)
            fail_msg("%s: %s", vp_msg_type_name(t), err);
        if (t == VP_SAMPLES) /* the wire numbers samples from first_seq */
            for (uint32_t i = 0; i < m.u.samples.nsamples; i++)
                m.u.samples.samples[i].seq = m.u.samples.first_seq + i;
        eq_msg(&m, &d);
        /* a decoded message encodes to the same bytes */
        msgpack_sbuffer again;
        msgpack_sbuffer_init(&again);
        assert_int_equal(vp_msg_encode(&d, &again), VC_OK);
        assert_int_equal(again.size, buf.size);
        assert_memory_equal(again.data, buf.data, buf.size);
        msgpack_sbuffer_destroy(&again);
        vp_msg_clear(&m);
        vp_msg_clear(&d);
        assert_int_equal(d.type, t);
    }
    msgpack_sbuffer_destroy(&buf);
    assert_string_equal(vp_msg_type_name(VP_SAMPLES), "SAMPLES");
    assert_string_equal(vp_msg_type_name(0), "unknown");
    assert_string_equal(vp_msg_type_name(VP_TYPE_END), "unknown");
    assert_string_equal(vp_job_status_name(VP_JOB_CANCELLED), "cancelled");
    assert_string_equal(vp_resume_state_name(VP_RJ_FINISHED), "finished");
}

/* A JOB whose map leaves out the options gets the kind's defaults. */
static void test_job_defaults_and_no_direct(void **state)
{
    (void)state;
    vp_msg_t m, d;
    vp_msg_init(&m, VP_JOB);
    snprintf(m.u.job.campaign, sizeof m.u.job.campaign, "c");
    m.u.job.job_id = 1;
    vc_job_init(&m.u.job.job, VC_WL_OPS);
    snprintf(m.u.job.job.id, sizeof m.u.job.job.id, "ops");
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
    char err[256];
    assert_int_equal(vp_msg_decode(buf.data, buf.size, &d, err, sizeof err), VC_OK);
    assert_int_equal(d.u.job.job.has_direct, 0);
    eq_job(&m.u.job.job, &d.u.job.job);
    assert_int_equal(d.u.job.job.object_size, 5 * 1024 * 1024);
    msgpack_sbuffer_destroy(&buf);
}

/* A SAMPLES message packed by hand from PROTOCOL.md's tables (not through
 * the library), so the documented order and the code cannot drift apart. */
static void pk_s(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

static void test_documented_layout(void **state)
{
    (void)state;
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, 4);
    msgpack_pack_uint8(&pk, 1);  /* version */
    msgpack_pack_uint8(&pk, 8);  /* SAMPLES */
    msgpack_pack_uint8(&pk, 77); /* request_id */
    msgpack_pack_map(&pk, 3);
    pk_s(&pk, "job_id");
    msgpack_pack_uint64(&pk, 5);
    pk_s(&pk, "first_seq");
    msgpack_pack_uint64(&pk, 100);
    pk_s(&pk, "samples");
    msgpack_pack_array(&pk, 1);
    msgpack_pack_array(&pk, 25);
    pk_s(&pk, "ais-nbi");         /* 0 op */
    pk_s(&pk, "10K");             /* 1 label */
    msgpack_pack_int64(&pk, 10000); /* 2 scale */
    msgpack_pack_int64(&pk, 3);   /* 3 run */
    msgpack_pack_int64(&pk, -1);  /* 4 worker */
    msgpack_pack_int64(&pk, INT64_C(1764488000000000005)); /* 5 start_wall_ns */
    msgpack_pack_int64(&pk, 6);   /* 6 duration_ns */
    msgpack_pack_int64(&pk, 7);   /* 7 server_ns */
    msgpack_pack_int64(&pk, 8);   /* 8 dns_us */
    msgpack_pack_int64(&pk, 9);   /* 9 connect_us */
    msgpack_pack_int64(&pk, 10);  /* 10 tls_us */
    msgpack_pack_int64(&pk, 11);  /* 11 ttfb_us */
    msgpack_pack_int64(&pk, 12);  /* 12 bytes_sent */
    msgpack_pack_int64(&pk, 13);  /* 13 bytes_recv */
    msgpack_pack_int64(&pk, 2);   /* 14 pages */
    msgpack_pack_int64(&pk, 15);  /* 15 keys */
    msgpack_pack_int64(&pk, 404); /* 16 http_status */
    msgpack_pack_int64(&pk, 17);  /* 17 retries */
    msgpack_pack_int64(&pk, 1);   /* 18 err_class: 4xx */
    pk_s(&pk, "NoSuchKey");       /* 19 err_code */
    pk_s(&pk, "not there");       /* 20 err_msg */
    msgpack_pack_int64(&pk, 21);  /* 21 cpu_user_us */
    msgpack_pack_int64(&pk, 22);  /* 22 cpu_sys_us */
    msgpack_pack_uint32(&pk, 5);  /* 23 flags */
    msgpack_pack_array(&pk, 6);   /* 24 page: two triples */
    for (int i = 0; i < 6; i++)
        msgpack_pack_int64(&pk, 100 + i);

    vp_msg_t d;
    char err[256] = "";
    if (vp_msg_decode(b.data, b.size, &d, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(d.type, VP_SAMPLES);
    assert_int_equal(d.request_id, 77);
    assert_int_equal(d.u.samples.job_id, 5);
    assert_int_equal(d.u.samples.nsamples, 1);
    const vc_sample_t *x = &d.u.samples.samples[0];
    assert_int_equal(x->seq, 100);
    assert_string_equal(x->op, "ais-nbi");
    assert_string_equal(x->label, "10K");
    assert_int_equal(x->scale, 10000);
    assert_int_equal(x->run, 3);
    assert_int_equal(x->worker, -1);
    assert_int_equal(x->start_wall_ns, INT64_C(1764488000000000005));
    assert_int_equal(x->duration_ns, 6);
    assert_int_equal(x->server_ns, 7);
    assert_int_equal(x->dns_us, 8);
    assert_int_equal(x->connect_us, 9);
    assert_int_equal(x->tls_us, 10);
    assert_int_equal(x->ttfb_us, 11);
    assert_int_equal(x->bytes_sent, 12);
    assert_int_equal(x->bytes_recv, 13);
    assert_int_equal(x->pages, 2);
    assert_int_equal(x->keys, 15);
    assert_int_equal(x->http_status, 404);
    assert_int_equal(x->retries, 17);
    assert_int_equal(x->err_class, VC_EC_CLIENT);
    assert_string_equal(x->err_code, "NoSuchKey");
    assert_string_equal(x->err_msg, "not there");
    assert_int_equal(x->cpu_user_us, 21);
    assert_int_equal(x->cpu_sys_us, 22);
    assert_int_equal(x->flags, VC_SF_COUNT_MISMATCH | VC_SF_WARMUP);
    assert_int_equal(x->npages, 2);
    assert_int_equal(x->page[0].duration_ns, 100);
    assert_int_equal(x->page[0].keys, 101);
    assert_int_equal(x->page[0].bytes, 102);
    assert_int_equal(x->page[1].duration_ns, 103);
    assert_int_equal(x->page[1].bytes, 105);
    vp_msg_clear(&d);
    msgpack_sbuffer_destroy(&b);
}

/* ------------------------------------------------------------- breaking */

typedef struct {
    msgpack_sbuffer orig;  /* the valid encoding; the tree's strings point into it */
    msgpack_zone zone;
    msgpack_object root;
    msgpack_sbuffer out;   /* the changed message */
} mut_t;

static void mut_begin(mut_t *x, vp_type_t type)
{
    vp_msg_t m;
    fill(&m, type);
    msgpack_sbuffer_init(&x->orig);
    msgpack_sbuffer_init(&x->out);
    assert_int_equal(vp_msg_encode(&m, &x->orig), VC_OK);
    vp_msg_clear(&m);
    assert_true(msgpack_zone_init(&x->zone, 4096));
    size_t off = 0;
    assert_int_equal(msgpack_unpack(x->orig.data, x->orig.size, &off, &x->zone, &x->root),
                     MSGPACK_UNPACK_SUCCESS);
}

static void mut_end(mut_t *x)
{
    msgpack_zone_destroy(&x->zone);
    msgpack_sbuffer_destroy(&x->orig);
    msgpack_sbuffer_destroy(&x->out);
}

static msgpack_object *mut_body(mut_t *x)
{
    return &x->root.via.array.ptr[3];
}

static msgpack_object *map_val(msgpack_object *map, const char *key)
{
    assert_int_equal(map->type, MSGPACK_OBJECT_MAP);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->via.str.size == strlen(key) && !memcmp(k->via.str.ptr, key, k->via.str.size))
            return &map->via.map.ptr[i].val;
    }
    fail_msg("no key %s", key);
    return NULL;
}

static void map_remove(msgpack_object *map, const char *key)
{
    msgpack_object *v = map_val(map, key);
    msgpack_object_kv *kv = (msgpack_object_kv *)((char *)v - offsetof(msgpack_object_kv, val));
    *kv = map->via.map.ptr[map->via.map.size - 1];
    map->via.map.size--;
}

static msgpack_object mk_int(int64_t v)
{
    msgpack_object o;
    if (v >= 0) {
        o.type = MSGPACK_OBJECT_POSITIVE_INTEGER;
        o.via.u64 = (uint64_t)v;
    } else {
        o.type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
        o.via.i64 = v;
    }
    return o;
}

static msgpack_object mk_str(const char *s, size_t n)
{
    msgpack_object o;
    o.type = MSGPACK_OBJECT_STR;
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)n;
    return o;
}

/* Repeats the first element of an array until it has n elements. */
static void grow_array(mut_t *x, msgpack_object *arr, uint32_t n)
{
    msgpack_object *p = msgpack_zone_malloc(&x->zone, n * sizeof *p);
    assert_non_null(p);
    for (uint32_t i = 0; i < n; i++)
        p[i] = arr->via.array.ptr[i < arr->via.array.size ? i : 0];
    arr->via.array.ptr = p;
    arr->via.array.size = n;
}

static void mut_pack(mut_t *x)
{
    x->out.size = 0;
    msgpack_packer pk;
    msgpack_packer_init(&pk, &x->out, msgpack_sbuffer_write);
    assert_int_equal(msgpack_pack_object(&pk, x->root), 0);
}

static void expect_fail(const void *data, size_t len, vc_status_t want, const char *needle)
{
    vp_msg_t d;
    char err[512] = "";
    vc_status_t rc = vp_msg_decode(data, len, &d, err, sizeof err);
    if (rc != want)
        fail_msg("expected status %d, got %d (%s); wanted an error naming \"%s\"", want, rc, err,
                 needle);
    if (!strstr(err, needle))
        fail_msg("error \"%s\" does not name \"%s\"", err, needle);
}

static void mut_expect(mut_t *x, const char *needle)
{
    mut_pack(x);
    expect_fail(x->out.data, x->out.size, VC_ERR_PROTO, needle);
}

static void mut_expect_ok(mut_t *x)
{
    mut_pack(x);
    vp_msg_t d;
    char err[512] = "";
    vc_status_t rc = vp_msg_decode(x->out.data, x->out.size, &d, err, sizeof err);
    if (rc)
        fail_msg("expected success: %s", err);
    vp_msg_clear(&d);
}

static void test_wrong_field_types(void **state)
{
    (void)state;
    mut_t x;
    mut_begin(&x, VP_HELLO);
    *map_val(mut_body(&x), "name") = mk_int(5);
    mut_expect(&x, "HELLO.name: expected a string, got an integer");
    mut_end(&x);

    mut_begin(&x, VP_HELLO);
    *map_val(mut_body(&x), "cpus") = mk_str("8", 1);
    mut_expect(&x, "HELLO.cpus: expected an integer, got a string");
    mut_end(&x);

    mut_begin(&x, VP_HELLO);
    *map_val(mut_body(&x), "cpus") = mk_int(0);
    mut_expect(&x, "HELLO.cpus: 0 is out of range");
    mut_end(&x);

    mut_begin(&x, VP_ACK);
    *map_val(mut_body(&x), "job_id") = mk_int(-3);
    mut_expect(&x, "ACK.job_id: -3 is negative");
    mut_end(&x);

    mut_begin(&x, VP_ACK);
    *map_val(mut_body(&x), "job_id") = mk_int(0);
    mut_expect(&x, "ACK.job_id: 0 is out of range");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    msgpack_object *samples = map_val(mut_body(&x), "samples");
    samples->via.array.ptr[2].via.array.ptr[0] = mk_int(1);
    mut_expect(&x, "SAMPLES.samples[2].op: expected a string");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    samples = map_val(mut_body(&x), "samples");
    samples->via.array.ptr[0].via.array.ptr[18] = mk_int(VC_EC_COUNT);
    mut_expect(&x, "SAMPLES.samples[0].err_class: 9 is out of range");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    samples = map_val(mut_body(&x), "samples");
    samples->via.array.ptr[1].via.array.ptr[24].via.array.ptr[4] = mk_int(-2);
    mut_expect(&x, "SAMPLES.samples[1].page[4]: -2 is out of range");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    samples = map_val(mut_body(&x), "samples");
    samples->via.array.ptr[1].via.array.ptr[24].via.array.size = 4;
    mut_expect(&x, "SAMPLES.samples[1].page: 4 values is not a multiple of 3");
    mut_end(&x);

    mut_begin(&x, VP_DONE);
    *map_val(mut_body(&x), "status") = mk_str("bogus", 5);
    mut_expect(&x, "DONE.status: unknown value \"bogus\"");
    mut_end(&x);

    mut_begin(&x, VP_HELLO);
    msgpack_object *resume = map_val(mut_body(&x), "resume");
    *map_val(&resume->via.array.ptr[1], "state") = mk_str("sleeping", 8);
    mut_expect(&x, "HELLO.resume[1].state: unknown value \"sleeping\"");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    msgpack_object *job = map_val(mut_body(&x), "job");
    *map_val(map_val(job, "target"), "verify_tls") = mk_int(1);
    mut_expect(&x, "JOB.job.target.verify_tls: expected a boolean, got an integer");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    job = map_val(mut_body(&x), "job");
    map_val(job, "paths")->via.array.ptr[0] = mk_str("ftp", 3);
    mut_expect(&x, "JOB.job.paths[0]: unknown value \"ftp\"");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    *map_val(mut_body(&x), "job") = mk_int(1);
    mut_expect(&x, "JOB.job: expected a map, got an integer");
    mut_end(&x);

    /* the body itself */
    mut_begin(&x, VP_PING);
    *mut_body(&x) = mk_int(1);
    mut_expect(&x, "PING: expected a map, got an integer");
    mut_end(&x);

    /* a string with a NUL inside would be cut short silently */
    mut_begin(&x, VP_BYE);
    *map_val(mut_body(&x), "reason") = mk_str("a\0b", 3);
    mut_expect(&x, "BYE.reason: string contains a NUL byte");
    mut_end(&x);
}

static void test_missing_fields(void **state)
{
    (void)state;
    static const struct {
        vp_type_t type;
        const char *key;
        const char *needle;
    } cases[] = {
        {VP_HELLO, "hostname", "HELLO.hostname: missing"},
        {VP_HELLO, "wall_ns", "HELLO.wall_ns: missing"},
        {VP_WELCOME, "heartbeat_ms", "WELCOME.heartbeat_ms: missing"},
        {VP_REJECT, "reason", "REJECT.reason: missing"},
        {VP_PING, "t1", "PING.t1: missing"},
        {VP_PONG, "t3", "PONG.t3: missing"},
        {VP_JOB, "job", "JOB.job: missing"},
        {VP_JOB, "campaign", "JOB.campaign: missing"},
        {VP_PROGRESS, "done", "PROGRESS.done: missing"},
        {VP_SAMPLES, "first_seq", "SAMPLES.first_seq: missing"},
        {VP_SAMPLES, "samples", "SAMPLES.samples: missing"},
        {VP_ACK, "seq", "ACK.seq: missing"},
        {VP_DONE, "status", "DONE.status: missing"},
        {VP_CANCEL, "job_id", "CANCEL.job_id: missing"},
        {VP_BYE, "reason", "BYE.reason: missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mut_t x;
        mut_begin(&x, cases[i].type);
        map_remove(mut_body(&x), cases[i].key);
        mut_expect(&x, cases[i].needle);
        mut_end(&x);
    }
    /* optional ones may go */
    mut_t x;
    mut_begin(&x, VP_HELLO);
    map_remove(mut_body(&x), "caps");
    map_remove(mut_body(&x), "resume");
    map_remove(mut_body(&x), "public_ip");
    mut_expect_ok(&x);
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    msgpack_object *job = map_val(mut_body(&x), "job");
    map_remove(job, "kind");
    mut_expect(&x, "JOB.job.kind: missing");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    job = map_val(mut_body(&x), "job");
    map_remove(map_val(job, "scale")->via.array.ptr + 1, "label");
    mut_expect(&x, "JOB.job.scale[1].label: missing");
    mut_end(&x);

    /* a sample with a field too few */
    mut_begin(&x, VP_SAMPLES);
    msgpack_object *samples = map_val(mut_body(&x), "samples");
    samples->via.array.ptr[3].via.array.size = 24;
    mut_expect(&x, "SAMPLES.samples[3]: 24 fields, expected 25");
    mut_end(&x);
}

static void test_limits(void **state)
{
    (void)state;
    char big[400];
    memset(big, 'x', sizeof big);
    mut_t x;

    /* a name at the limit passes, one byte more does not */
    mut_begin(&x, VP_HELLO);
    *map_val(mut_body(&x), "name") = mk_str(big, VP_NAME_LEN);
    mut_expect_ok(&x);
    *map_val(mut_body(&x), "name") = mk_str(big, VP_NAME_LEN + 1);
    mut_expect(&x, "HELLO.name: string of 65 bytes exceeds the limit of 64");
    *map_val(mut_body(&x), "name") = mk_str(big, 0);
    mut_expect(&x, "HELLO.name: must not be empty");
    mut_end(&x);

    mut_begin(&x, VP_HELLO);
    grow_array(&x, map_val(mut_body(&x), "caps"), VP_MAX_CAPS);
    mut_expect_ok(&x);
    grow_array(&x, map_val(mut_body(&x), "caps"), VP_MAX_CAPS + 1);
    mut_expect(&x, "HELLO.caps: 33 entries exceed the limit of 32");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    msgpack_object *job = map_val(mut_body(&x), "job");
    *map_val(map_val(job, "target"), "endpoint") = mk_str(big, 300);
    mut_expect(&x, "JOB.job.target.endpoint: string of 300 bytes exceeds the limit of 255");
    mut_end(&x);

    mut_begin(&x, VP_JOB);
    job = map_val(mut_body(&x), "job");
    grow_array(&x, map_val(job, "scale"), VC_MAX_SCALE_POINTS + 1);
    mut_expect(&x, "JOB.job.scale: 33 entries exceed the limit of 32");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    msgpack_object *samples = map_val(mut_body(&x), "samples");
    grow_array(&x, samples, VP_MAX_SAMPLES);
    mut_expect_ok(&x);
    grow_array(&x, samples, VP_MAX_SAMPLES + 1);
    mut_expect(&x, "SAMPLES.samples: 10001 samples, expected 1 to 10000");
    samples->via.array.size = 0;
    mut_expect(&x, "SAMPLES.samples: 0 samples");
    mut_end(&x);

    mut_begin(&x, VP_SAMPLES);
    samples = map_val(mut_body(&x), "samples");
    msgpack_object *pages = &samples->via.array.ptr[1].via.array.ptr[24];
    grow_array(&x, pages, 3 * VP_MAX_PAGES);
    mut_expect_ok(&x);
    grow_array(&x, pages, 3 * (VP_MAX_PAGES + 1));
    mut_expect(&x, "SAMPLES.samples[1].page: 100001 pages exceed the limit of 100000");
    mut_end(&x);

    /* first_seq + n must not wrap */
    mut_begin(&x, VP_SAMPLES);
    *map_val(mut_body(&x), "first_seq") = (msgpack_object){
        .type = MSGPACK_OBJECT_POSITIVE_INTEGER, .via.u64 = UINT64_MAX - 2};
    mut_expect(&x, "SAMPLES.first_seq: seq range overflows");
    mut_end(&x);

    /* over the size limit: refused before any parsing */
    size_t n = (size_t)VP_MAX_MSG_SIZE + 1;
    char *huge = calloc(1, n);
    assert_non_null(huge);
    expect_fail(huge, n, VC_ERR_PROTO, "exceeds the limit of 16777216");
    free(huge);

    /* an array header announcing 4 billion elements in 5 bytes */
    static const unsigned char liar[] = {0xdd, 0xff, 0xff, 0xff, 0xff};
    expect_fail(liar, sizeof liar, VC_ERR_PROTO, "elements announced");
    static const unsigned char liar2[] = {0x94, 0x01, 0x08, 0x00, 0xdf, 0x7f, 0xff, 0xff, 0xff};
    expect_fail(liar2, sizeof liar2, VC_ERR_PROTO, "elements announced");
    /* deep nesting */
    unsigned char deep[64];
    memset(deep, 0x91, sizeof deep);
    deep[63] = 0x01;
    expect_fail(deep, sizeof deep, VC_ERR_PROTO, "nested deeper");
}

static void test_envelope(void **state)
{
    (void)state;
    mut_t x;
    mut_begin(&x, VP_PING);
    x.root.via.array.ptr[0] = mk_int(2);
    mut_pack(&x);
    expect_fail(x.out.data, x.out.size, VC_ERR_UNSUPPORTED, "protocol version 2 is not supported");
    x.root.via.array.ptr[0] = mk_int(0);
    mut_pack(&x);
    expect_fail(x.out.data, x.out.size, VC_ERR_UNSUPPORTED, "protocol version 0");
    x.root.via.array.ptr[0] = mk_int(1);

    x.root.via.array.ptr[1] = mk_int(99);
    mut_expect(&x, "type: unknown message type 99");
    x.root.via.array.ptr[1] = mk_int(0);
    mut_expect(&x, "type: unknown message type 0");
    x.root.via.array.ptr[1] = mk_str("PING", 4);
    mut_expect(&x, "type: expected an unsigned integer, got a string");
    x.root.via.array.ptr[1] = mk_int(VP_PING);

    x.root.via.array.ptr[2] = mk_int(-1);
    mut_expect(&x, "request_id: -1 is negative");
    x.root.via.array.ptr[2] = mk_int(7);

    x.root.via.array.size = 3;
    mut_expect(&x, "expected an array [version, type, request_id, body]");
    x.root.via.array.size = 4;

    /* unknown body keys are ignored */
    msgpack_object *body = mut_body(&x);
    msgpack_object_kv *kv = msgpack_zone_malloc(&x.zone, 2 * sizeof *kv);
    kv[0] = body->via.map.ptr[0];
    kv[1].key = mk_str("from_the_future", 15);
    kv[1].val = mk_str("ignored", 7);
    body->via.map.ptr = kv;
    body->via.map.size = 2;
    mut_pack(&x);
    vp_msg_t d;
    char err[256];
    assert_int_equal(vp_msg_decode(x.out.data, x.out.size, &d, err, sizeof err), VC_OK);
    assert_int_equal(d.type, VP_PING);
    assert_int_equal(d.request_id, 7);
    assert_int_equal(d.u.ping.t1, INT64_C(1764488000111111111));
    mut_end(&x);

    /* extra trailing sample fields (a newer minor version) are ignored */
    mut_begin(&x, VP_SAMPLES);
    msgpack_object *s0 = &map_val(mut_body(&x), "samples")->via.array.ptr[0];
    grow_array(&x, s0, 27);
    mut_expect_ok(&x);
    mut_end(&x);

    /* not an array, trailing bytes, empty */
    static const unsigned char notarr[] = {0x81, 0xa1, 'a', 0x01};
    expect_fail(notarr, sizeof notarr, VC_ERR_PROTO, "expected an array");
    vp_msg_t m;
    fill(&m, VP_CANCEL);
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
    msgpack_sbuffer_write(&buf, "\x01", 1);
    expect_fail(buf.data, buf.size, VC_ERR_PROTO, "1 unexpected bytes after the message");
    msgpack_sbuffer_destroy(&buf);
    expect_fail("", 0, VC_ERR_PROTO, "empty message");
    /* NULL err is allowed */
    assert_int_equal(vp_msg_decode("\xc1", 1, &d, NULL, 0), VC_ERR_PROTO);
}

static void test_encoder_refuses_invalid(void **state)
{
    (void)state;
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    vp_msg_t m;

    fill(&m, VP_HELLO);
    m.u.hello.name[0] = '\0';
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_HELLO);
    memset(m.u.hello.site, 'a', sizeof m.u.hello.site); /* no NUL */
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_HELLO);
    m.u.hello.ncaps = VP_MAX_CAPS + 1;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_DONE);
    m.u.done.status = VP_JOB_STATUS_END;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_CANCEL);
    m.u.cancel.job_id = 0;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_JOB);
    m.u.job.job.paths = 1u << 5;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    fill(&m, VP_JOB);
    m.u.job.job.workers = 0;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    m.type = (vp_type_t)0;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);

    fill(&m, VP_SAMPLES);
    m.u.samples.samples[2].err_class = VC_EC_COUNT;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    m.u.samples.samples[2].err_class = VC_EC_NONE;
    uint32_t n = m.u.samples.nsamples;
    m.u.samples.nsamples = 0;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    m.u.samples.nsamples = n;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
    vp_msg_clear(&m);

    /* over VP_MAX_MSG_SIZE: 7 samples of 100000 pages of 27-byte triples */
    vp_msg_init(&m, VP_SAMPLES);
    m.u.samples.job_id = 1;
    m.u.samples.first_seq = 1;
    m.u.samples.nsamples = 7;
    m.u.samples.samples = calloc(7, sizeof(vc_sample_t));
    assert_non_null(m.u.samples.samples);
    size_t bound = 64;
    for (int i = 0; i < 7; i++) {
        vc_sample_t *s = &m.u.samples.samples[i];
        vc_sample_init(s);
        snprintf(s->op, sizeof s->op, "s3-direct");
        for (int p = 0; p < VP_MAX_PAGES; p++)
            assert_int_equal(vc_sample_add_page(s, INT64_MAX - p, INT64_MAX, INT64_MAX), VC_OK);
        bound += vp_sample_wire_size(s);
    }
    assert_true(bound > VP_MAX_MSG_SIZE); /* a sender would have split this batch */
    assert_int_equal(vp_msg_encode(&m, &buf), VC_ERR_ARG);
    m.u.samples.nsamples = 5;
    assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
    assert_true(buf.size <= 64 + 5 * vp_sample_wire_size(&m.u.samples.samples[0]));
    m.u.samples.nsamples = 7;
    vp_msg_clear(&m);
    msgpack_sbuffer_destroy(&buf);
}

/* ---------------------------------------------------------- robustness */

static void decode_any(vp_decoder_t *dec, const void *data, size_t len)
{
    vp_msg_t d;
    char err[256] = "";
    vc_status_t rc = vp_decoder_decode(dec, data, len, &d, err, sizeof err);
    if (rc == VC_OK) {
        /* whatever the decoder accepts is a valid message */
        msgpack_sbuffer again;
        msgpack_sbuffer_init(&again);
        vc_status_t erc = vp_msg_encode(&d, &again);
        if (erc)
            fail_msg("decoded %s does not re-encode", vp_msg_type_name(d.type));
        msgpack_sbuffer_destroy(&again);
        vp_msg_clear(&d);
    } else {
        assert_true(err[0] != '\0');
    }
}

static void test_truncated_prefixes(void **state)
{
    (void)state;
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    for (int t = VP_HELLO; t < VP_TYPE_END; t++) {
        vp_msg_t m;
        fill(&m, (vp_type_t)t);
        assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
        vp_msg_clear(&m);
        for (size_t len = 0; len < buf.size; len++) {
            /* a copy of exactly len bytes, so ASan sees any read past it */
            char *p = malloc(len ? len : 1);
            assert_non_null(p);
            memcpy(p, buf.data, len);
            vp_msg_t d;
            char err[256] = "";
            vc_status_t rc = vp_msg_decode(p, len, &d, err, sizeof err);
            if (rc != VC_ERR_PROTO)
                fail_msg("%s cut to %zu of %zu bytes: status %d", vp_msg_type_name(t), len,
                         buf.size, rc);
            assert_true(err[0] != '\0');
            free(p);
        }
    }
    msgpack_sbuffer_destroy(&buf);
}

static void test_random_bytes(void **state)
{
    (void)state;
    vp_decoder_t *dec = vp_decoder_new();
    assert_non_null(dec);
    unsigned char buf[600];
    for (unsigned seed = 1; seed <= 20000; seed++) {
        srand(seed);
        size_t len = (size_t)rand() % sizeof buf;
        for (size_t i = 0; i < len; i++)
            buf[i] = (unsigned char)rand();
        if (seed % 2 && len >= 5) {
            /* a plausible envelope so that the body decoders get exercised */
            buf[0] = 0x94;
            buf[1] = 0x01;
            buf[2] = (unsigned char)(1 + rand() % (VP_TYPE_END - 1));
            buf[3] = 0x00;
            buf[4] = (unsigned char)(0x80 | (rand() & 0x0f));
        }
        unsigned char *p = malloc(len ? len : 1);
        assert_non_null(p);
        memcpy(p, buf, len);
        decode_any(dec, p, len);
        free(p);
    }
    vp_decoder_destroy(&dec);
    assert_null(dec);
    vp_decoder_destroy(&dec);
}

static void test_bit_flips(void **state)
{
    (void)state;
    vp_decoder_t *dec = vp_decoder_new();
    assert_non_null(dec);
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    for (int t = VP_HELLO; t < VP_TYPE_END; t++) {
        vp_msg_t m;
        fill(&m, (vp_type_t)t);
        assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
        vp_msg_clear(&m);
        unsigned char *p = malloc(buf.size);
        assert_non_null(p);
        /* every single bit, then random multi-bit damage */
        for (size_t bit = 0; bit < buf.size * 8; bit++) {
            memcpy(p, buf.data, buf.size);
            p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            decode_any(dec, p, buf.size);
        }
        srand((unsigned)t);
        for (int k = 0; k < 2000; k++) {
            memcpy(p, buf.data, buf.size);
            for (int f = 0; f < 1 + k % 8; f++)
                p[(size_t)rand() % buf.size] = (unsigned char)rand();
            decode_any(dec, p, buf.size);
        }
        free(p);
    }
    msgpack_sbuffer_destroy(&buf);
    vp_decoder_destroy(&dec);
}

/* Not a timed test: prints what one core does, for the 300,000 samples/s
 * budget of the coordinator (which also has to store them). */
static void test_samples_throughput(void **state)
{
    (void)state;
    const uint32_t batch = 1000, rounds = 200;
    vp_msg_t m;
    vp_msg_init(&m, VP_SAMPLES);
    m.u.samples.job_id = 9;
    m.u.samples.first_seq = 1;
    m.u.samples.nsamples = batch;
    m.u.samples.samples = calloc(batch, sizeof(vc_sample_t));
    assert_non_null(m.u.samples.samples);
    for (uint32_t i = 0; i < batch; i++)
        fill_sample(&m.u.samples.samples[i], i, 0);
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    vp_decoder_t *dec = vp_decoder_new();
    assert_non_null(dec);
    struct timespec a, b, c;
    double enc_s = 0, dec_s = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        assert_int_equal(vp_msg_encode(&m, &buf), VC_OK);
        clock_gettime(CLOCK_MONOTONIC, &b);
        vp_msg_t d;
        char err[256];
        assert_int_equal(vp_decoder_decode(dec, buf.data, buf.size, &d, err, sizeof err), VC_OK);
        assert_int_equal(d.u.samples.nsamples, batch);
        vp_msg_clear(&d);
        clock_gettime(CLOCK_MONOTONIC, &c);
        enc_s += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        dec_s += (double)(c.tv_sec - b.tv_sec) + (double)(c.tv_nsec - b.tv_nsec) / 1e9;
    }
    double n = (double)batch * rounds;
    printf("SAMPLES: %.1f bytes/sample; encode %.0f samples/s, decode %.0f samples/s "
           "(batches of %u%s)\n", (double)buf.size / batch, n / enc_s, n / dec_s, batch,
#if defined(__SANITIZE_ADDRESS__)
           ", sanitizer build"
#else
           ""
#endif
    );
    vp_decoder_destroy(&dec);
    msgpack_sbuffer_destroy(&buf);
    vp_msg_clear(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_job_defaults_and_no_direct),
        cmocka_unit_test(test_documented_layout),
        cmocka_unit_test(test_wrong_field_types),
        cmocka_unit_test(test_missing_fields),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_envelope),
        cmocka_unit_test(test_encoder_refuses_invalid),
        cmocka_unit_test(test_truncated_prefixes),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_samples_throughput),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
