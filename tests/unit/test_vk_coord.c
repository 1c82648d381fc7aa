/* Tests of the coordinator and agent runtimes together, in one process over
 * inproc:// (no CURVE there: admission is tested over TCP in
 * tests/integration/test_runtime_keys.py):
 * - three agents register, run one null job in parallel, and every sample is
 *   stored exactly once (checked in results.db with SQLite);
 * - a registered peer that sends random bytes, truncated and mistyped
 *   messages, a multipart message and another agent's job id is refused
 *   message by message, logged with its name, still answered (PING/PONG), and
 *   the campaign completes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <czmq.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "va_agent.h"
#include "vc_campaign.h"
#include "vc_clock.h"
#include "vk_coord.h"
#include "vp_msg.h"

#define EP "inproc://vk-coord-test"
#define N 20000

typedef struct {
    va_agent_t *agent;
    pthread_t th;
    vc_status_t rc;
} agent_thread_t;

static void *agent_main(void *arg)
{
    agent_thread_t *t = arg;
    t->rc = va_agent_run(t->agent);
    return NULL;
}

static va_agent_t *make_agent(const char *dir, const char *name)
{
    char spool[256], err[512];
    snprintf(spool, sizeof spool, "%s/%s.spool", dir, name);
    va_agent_opts_t o;
    va_agent_opts_init(&o);
    o.endpoint = EP;
    o.name = name;
    o.site = "test";
    o.insecure = 1;
    o.spool_path = spool;
    o.batch_max = 500;
    o.heartbeat_ms = 200;
    o.lost_after_ms = 5000;
    va_agent_t *a = va_agent_new(&o, err, sizeof err);
    if (!a)
        fprintf(stderr, "agent %s: %s\n", name, err);
    return a;
}

/* The peer that misbehaves: registers as agent "bad", then sends garbage. */
typedef struct {
    pthread_t th;
    const char *dir;
    int registered, during_run, pong_after_garbage, sent;
} bad_peer_t;

/* Readiness: samples of the good agents are being stored. */
static int wait_for_samples(const char *dir, int timeout_ms)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results.db", dir);
    vc_mono_ns_t end = vc_mono_now() + timeout_ms * VC_NS_PER_MS;
    while (vc_mono_now() < end) {
        sqlite3 *db = NULL;
        sqlite3_stmt *q = NULL;
        int64_t n = 0;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(db, "SELECT count(*) FROM samples", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            n = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        sqlite3_close(db);
        if (n > 0 && n < 3 * N)
            return 1;
        vc_sleep_ns(5 * VC_NS_PER_MS);
    }
    return 0;
}

static int send_bytes(zsock_t *s, const void *p, size_t n)
{
    return zmq_send(zsock_resolve(s), p, n, 0) >= 0;
}

static int recv_type(zsock_t *s, int want, int timeout_ms)
{
    vc_mono_ns_t end = vc_mono_now() + timeout_ms * VC_NS_PER_MS;
    zsock_set_rcvtimeo(s, 100);
    while (vc_mono_now() < end) {
        zframe_t *f = zframe_recv(s);
        if (!f)
            continue;
        vp_msg_t m;
        int type = -1;
        if (vp_msg_decode(zframe_data(f), zframe_size(f), &m, NULL, 0) == VC_OK) {
            type = m.type;
            vp_msg_clear(&m);
        }
        zframe_destroy(&f);
        if (type == want)
            return 1;
    }
    return 0;
}

static void *bad_main(void *arg)
{
    bad_peer_t *b = arg;
    zsock_t *s = zsock_new(ZMQ_DEALER);
    zsock_set_identity(s, "bad-peer");
    zsock_connect(s, EP);
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    vp_msg_t m;
    vp_msg_init(&m, VP_HELLO);
    snprintf(m.u.hello.name, sizeof m.u.hello.name, "bad");
    snprintf(m.u.hello.version, sizeof m.u.hello.version, "0.1.0");
    snprintf(m.u.hello.hostname, sizeof m.u.hello.hostname, "here");
    m.u.hello.cpus = 1;
    m.u.hello.wall_ns = vc_wall_now();
    if (vp_msg_encode(&m, &buf) != VC_OK)
        goto out;
    send_bytes(s, buf.data, buf.size);
    b->registered = recv_type(s, VP_WELCOME, 10000);
    if (!b->registered)
        goto out;
    b->during_run = wait_for_samples(b->dir, 30000);
    /* random bytes */
    srand(42);
    for (int i = 0; i < 20; i++) {
        unsigned char junk[512];
        size_t n = 1 + (size_t)rand() % sizeof junk;
        for (size_t k = 0; k < n; k++)
            junk[k] = (unsigned char)rand();
        b->sent += send_bytes(s, junk, n);
    }
    /* every truncation of a valid HELLO */
    for (size_t cut = 0; cut < buf.size; cut += 3)
        b->sent += send_bytes(s, buf.data, cut);
    /* a SAMPLES batch for a job id that is not this peer's */
    vc_sample_t smp;
    vc_sample_init(&smp);
    VC_SAMPLE_SET(&smp, op, "null");
    smp.duration_ns = 1;
    vp_msg_init(&m, VP_SAMPLES);
    m.u.samples.job_id = 12345;
    m.u.samples.first_seq = 1;
    m.u.samples.nsamples = 1;
    m.u.samples.samples = &smp;
    if (vp_msg_encode(&m, &buf) == VC_OK) {
        b->sent += send_bytes(s, buf.data, buf.size);
        b->sent += send_bytes(s, buf.data, buf.size / 2); /* and truncated */
    }
    /* other major version, unknown type, wrong shape, a JOB (wrong direction) */
    const unsigned char other_version[] = {0x94, 0x63, 0x04, 0x00, 0x80};
    const unsigned char unknown_type[] = {0x94, 0x01, 0x7f, 0x00, 0x80};
    const unsigned char not_array[] = {0x81, 0xa1, 'x', 0x01};
    b->sent += send_bytes(s, other_version, sizeof other_version);
    b->sent += send_bytes(s, unknown_type, sizeof unknown_type);
    b->sent += send_bytes(s, not_array, sizeof not_array);
    vp_msg_init(&m, VP_CANCEL);
    m.u.cancel.job_id = 1;
    if (vp_msg_encode(&m, &buf) == VC_OK)
        b->sent += send_bytes(s, buf.data, buf.size);
    /* multipart */
    zmq_send(zsock_resolve(s), "a", 1, ZMQ_SNDMORE);
    b->sent += send_bytes(s, "b", 1);
    b->sent += send_bytes(s, "", 0);
    /* still served */
    vp_msg_init(&m, VP_PING);
    m.u.ping.t1 = vc_wall_now();
    if (vp_msg_encode(&m, &buf) == VC_OK && send_bytes(s, buf.data, buf.size))
        b->pong_after_garbage = recv_type(s, VP_PONG, 10000);
out:
    msgpack_sbuffer_destroy(&buf);
    zsock_destroy(&s);
    return NULL;
}

static void count_samples(const char *dir, const char *agent, int64_t *n, int64_t *distinct,
                          int64_t *lo, int64_t *hi)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results.db", dir);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT count(*), count(DISTINCT run), min(seq), max(seq)"
                                        " FROM samples_v WHERE agent = ?1 AND job = 'j'",
                                        -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(q, 1, agent, -1, SQLITE_STATIC);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    *n = sqlite3_column_int64(q, 0);
    *distinct = sqlite3_column_int64(q, 1);
    *lo = sqlite3_column_int64(q, 2);
    *hi = sqlite3_column_int64(q, 3);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_three_agents_and_a_bad_peer(void **state)
{
    (void)state;
    char dir[] = "/tmp/vantage-coord-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char text[1024];
    snprintf(text, sizeof text,
             "name = \"unit\";\nagent_wait = \"30s\";\n"
             "agents = ( { name = \"a1\"; }, { name = \"a2\"; }, { name = \"a3\"; },"
             " { name = \"bad\"; } );\n"
             "jobs = ( { name = \"j\"; kind = \"null\"; count = %d;"
             " agents = [ \"a1\", \"a2\", \"a3\" ]; schedule = \"parallel\"; } );\n",
             N);
    vc_campaign_t *c = NULL;
    assert_int_equal(vc_campaign_load_string(text, "unit.cfg", &c, NULL), VC_OK);

    /* The coordinator's log goes to a file the test reads afterwards. */
    char logpath[256];
    snprintf(logpath, sizeof logpath, "%s/log", dir);
    int saved = dup(STDERR_FILENO);
    int lfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(lfd >= 0);
    dup2(lfd, STDERR_FILENO);

    vk_coord_opts_t o;
    vk_coord_opts_init(&o);
    o.bind = EP;
    o.out_dir = dir;
    o.insecure = 1;
    o.heartbeat_ms = 200;
    o.lost_after_ms = 5000;
    o.rejoin_wait_ms = 1000;
    o.progress_tty = 0;
    char err[512];
    vk_coord_t *k = vk_coord_new(&o, c, err, sizeof err);
    assert_non_null(k);

    const char *names[3] = {"a1", "a2", "a3"};
    agent_thread_t ag[3];
    for (int i = 0; i < 3; i++) {
        ag[i].agent = make_agent(dir, names[i]);
        assert_non_null(ag[i].agent);
        assert_int_equal(pthread_create(&ag[i].th, NULL, agent_main, &ag[i]), 0);
    }
    bad_peer_t bad = {.dir = dir};
    assert_int_equal(pthread_create(&bad.th, NULL, bad_main, &bad), 0);

    vc_status_t rc = vk_coord_run(k);
    pthread_join(bad.th, NULL);
    for (int i = 0; i < 3; i++) {
        va_agent_stop(ag[i].agent);
        pthread_join(ag[i].th, NULL);
        assert_int_equal(ag[i].rc, VC_OK);
        va_agent_destroy(&ag[i].agent);
    }
    vk_coord_destroy(&k);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(lfd);

    assert_int_equal(rc, VC_OK);
    for (int i = 0; i < 3; i++) {
        int64_t n, distinct, lo, hi;
        count_samples(dir, names[i], &n, &distinct, &lo, &hi);
        assert_int_equal(n, N);
        assert_int_equal(distinct, N);
        assert_int_equal(lo, 1);
        assert_int_equal(hi, N);
    }
    assert_true(bad.registered);
    assert_true(bad.during_run);
    assert_true(bad.sent > 40);
    assert_true(bad.pong_after_garbage);
    const char *log = slurp(logpath);
    assert_non_null(log);
    assert_non_null(strstr(log, "agent bad: message rejected"));
    char expect[128];
    snprintf(expect, sizeof expect, "agent bad: %d messages rejected", bad.sent);
    assert_non_null(strstr(log, expect));
    assert_non_null(strstr(log, "agent a1 registered"));
    vc_campaign_destroy(&c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_agents_and_a_bad_peer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
