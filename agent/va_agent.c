/* va_agent: link to the coordinator, job thread, spool-backed sample stream. */
#include "va_agent.h"

#include <czmq.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "va_batcher.h"
#include "va_spool.h"
#include "va_workload.h"
#include "vc_clock.h"
#include "vc_endpoint.h"
#include "vc_log.h"
#include "vc_secretfile.h"
#include "vp_msg.h"

#define LOG "agent"
#define HELLO_BACKOFF_MIN_MS 1000
#define HELLO_BACKOFF_MAX_MS 30000
#define PROGRESS_EVERY_MS 1000
#define DRAIN_TIMEOUT_MS 3000
#define MAX_AUTH_FAILURES 1

/* Sender state of one job the spool knows. */
typedef struct {
    uint64_t job_id;
    uint64_t acked;          /* highest seq acknowledged */
    uint64_t spooled;        /* highest seq in the spool */
    uint64_t sent;           /* highest seq sent on the current link */
    vc_mono_ns_t moved_at;   /* last ACK progress (or first send with nothing in flight) */
    int finished;            /* a DONE is recorded in the spool */
    vp_done_t done;
    uint64_t done_rid;       /* request id of the DONE sent last; 0: not sent on this link */
    int done_confirmed;      /* the coordinator answered that DONE */
    vc_mono_ns_t done_sent_at;
    int in_hello;            /* listed in the last HELLO's resume list */
} jobstate_t;

typedef enum { LINK_DOWN = 0, LINK_UP } link_state_t;

struct va_agent {
    va_agent_opts_t o;
    char name[VP_NAME_LEN + 1], site[VP_NAME_LEN + 1], endpoint[256];
    char spool_path[PATH_MAX], work_dir[PATH_MAX];
    zcert_t *cert;          /* own key pair; NULL when insecure */
    char server_key[41];    /* coordinator public key (Z85) */
    va_spool_t *spool;
    va_batcher_t *batcher;
    vp_decoder_t *dec;
    msgpack_sbuffer sbuf;   /* encodes outgoing messages */
    msgpack_sbuffer spoolbuf;

    /* link */
    zsock_t *sock, *mon;
    int mon_seq;
    link_state_t link;
    vc_mono_ns_t last_rx, next_ping, next_hello, hello_backoff_ms;
    int64_t hb_ms;
    int hello_waiting_logged;
    int auth_failures;
    vc_mono_ns_t link_logged_at; /* last handshake/disconnect message */
    unsigned link_events;        /* since then */
    uint64_t rid;

    /* jobs the spool knows */
    jobstate_t *js;
    size_t njs, capjs;

    /* the running job */
    struct {
        int active;
        pthread_t th;
        uint64_t job_id;
        vp_job_msg_t msg;
        atomic_int cancel;
        atomic_int ended;
        atomic_llong errors;
        atomic_llong emitted;
        vc_mono_ns_t started;
        vc_status_t rc;
        char err[VP_TEXT_LEN + 1];
        int stopped_by_agent; /* interrupted by shutdown, not by CANCEL */
        pthread_mutex_t pmu;
        int pdirty;
        vp_progress_t prog;
        vc_mono_ns_t prog_sent_at;
    } run;
    vc_mono_ns_t last_partial;
    int spool_full;          /* the job is paused until ACKs free spool space */

    atomic_int stop;
    vc_status_t fatal;
    char error[512];
};

/* ---------------------------------------------------------------- helpers */

static uint64_t next_rid(va_agent_t *a) { return ++a->rid; }

static jobstate_t *js_find(va_agent_t *a, uint64_t job_id)
{
    for (size_t i = 0; i < a->njs; i++)
        if (a->js[i].job_id == job_id)
            return &a->js[i];
    return NULL;
}

static jobstate_t *js_add(va_agent_t *a, uint64_t job_id)
{
    jobstate_t *j = js_find(a, job_id);
    if (j)
        return j;
    if (a->njs == a->capjs) {
        size_t cap = a->capjs ? a->capjs * 2 : 8;
        jobstate_t *p = realloc(a->js, cap * sizeof *p);
        if (!p)
            return NULL;
        a->js = p;
        a->capjs = cap;
    }
    j = &a->js[a->njs++];
    memset(j, 0, sizeof *j);
    j->job_id = job_id;
    j->moved_at = vc_mono_now();
    return j;
}

static void js_remove(va_agent_t *a, uint64_t job_id)
{
    for (size_t i = 0; i < a->njs; i++)
        if (a->js[i].job_id == job_id) {
            a->js[i] = a->js[--a->njs];
            return;
        }
}

static void set_fatal(va_agent_t *a, vc_status_t rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fatal(va_agent_t *a, vc_status_t rc, const char *fmt, ...)
{
    if (a->fatal)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof a->error, fmt, ap);
    va_end(ap);
    a->fatal = rc;
    vc_error(LOG, "%s", a->error);
}

/* Sends the encoded message in a->sbuf (or data/len). 0 sent, -1 not now. */
static int send_bytes(va_agent_t *a, const void *data, size_t len)
{
    if (!a->sock)
        return -1;
    int rc = zmq_send(zsock_resolve(a->sock), data, len, ZMQ_DONTWAIT);
    return rc < 0 ? -1 : 0;
}

static int send_msg(va_agent_t *a, const vp_msg_t *m)
{
    vc_status_t rc = vp_msg_encode(m, &a->sbuf);
    if (rc) {
        vc_error(LOG, "cannot encode %s: %s", vp_msg_type_name(m->type), vc_strerror(rc));
        return -1;
    }
    return send_bytes(a, a->sbuf.data, a->sbuf.size);
}

/* ------------------------------------------------------------------- link */

static void link_close(va_agent_t *a, int linger_ms)
{
    if (a->sock) {
        /* Stop the monitor while its reading end still exists: libzmq's I/O
         * thread sends monitor events blocking, and an event for a closing
         * socket sent to a PAIR nobody reads would block that thread for
         * good, and with it every later connection of this process. */
        if (a->mon)
            zmq_socket_monitor(zsock_resolve(a->sock), NULL, 0);
        zsock_set_linger(a->sock, linger_ms);
        zsock_destroy(&a->sock);
    }
    zsock_destroy(&a->mon);
    a->link = LINK_DOWN;
}

static vc_status_t link_open(va_agent_t *a)
{
    a->sock = zsock_new(ZMQ_DEALER);
    if (!a->sock) {
        set_fatal(a, VC_ERR_NET, "cannot create a ZeroMQ socket");
        return VC_ERR_NET;
    }
    /* A routing id that survives ZeroMQ's own reconnects (the coordinator
     * uses ROUTER_HANDOVER) but is new for every session of ours. */
    char id[VP_NAME_LEN + 24];
    snprintf(id, sizeof id, "%s/%08x", a->name, (unsigned)(zclock_usecs() ^ (uint64_t)getpid() << 16));
    zsock_set_identity(a->sock, id);
    zsock_set_maxmsgsize(a->sock, (int)VP_MAX_MSG_SIZE);
    zsock_set_immediate(a->sock, 1);
    zsock_set_reconnect_ivl(a->sock, 100);
    zsock_set_reconnect_ivl_max(a->sock, 5000);
    zsock_set_sndhwm(a->sock, 1000);
    zsock_set_rcvhwm(a->sock, 1000);
    zsock_set_linger(a->sock, 0);
    if (a->cert) {
        zcert_apply(a->cert, a->sock);
        zsock_set_curve_serverkey(a->sock, a->server_key);
    }
    char monep[64];
    snprintf(monep, sizeof monep, "inproc://va-monitor-%p-%d", (void *)a, ++a->mon_seq);
    if (zmq_socket_monitor(zsock_resolve(a->sock), monep,
                           ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                               ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED) == 0) {
        a->mon = zsock_new(ZMQ_PAIR);
        if (a->mon && zsock_connect(a->mon, "%s", monep) != 0)
            zsock_destroy(&a->mon);
    }
    if (zsock_connect(a->sock, "%s", a->endpoint) != 0) {
        set_fatal(a, VC_ERR_ARG, "cannot connect to %s: %s", a->endpoint, zmq_strerror(zmq_errno()));
        return VC_ERR_ARG;
    }
    a->link = LINK_DOWN;
    a->hello_waiting_logged = 0;
    return VC_OK;
}

/* Forget the link: a new socket (new session) and a HELLO after delay_ms.
 * Everything unacknowledged goes again from the spool after WELCOME. */
static void link_reset(va_agent_t *a, int64_t delay_ms)
{
    link_close(a, 0);
    for (size_t i = 0; i < a->njs; i++) {
        a->js[i].sent = a->js[i].acked;
        a->js[i].done_rid = 0;
    }
    if (link_open(a) != VC_OK)
        return;
    a->next_hello = vc_mono_now() + delay_ms * VC_NS_PER_MS;
}

/* Counts a link event; 1 when it is time to log (at most every 30 s). */
static int link_note(va_agent_t *a)
{
    vc_mono_ns_t now = vc_mono_now();
    a->link_events++;
    if (a->link_logged_at && now - a->link_logged_at < 30 * VC_NS_PER_S)
        return 0;
    a->link_logged_at = now;
    return 1;
}

static void monitor_event(va_agent_t *a)
{
    zmsg_t *m = zmsg_recv(a->mon);
    if (!m)
        return;
    zframe_t *f = zmsg_first(m);
    if (f && zframe_size(f) >= 6) {
        uint16_t ev;
        memcpy(&ev, zframe_data(f), sizeof ev);
        switch (ev) {
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
            a->auth_failures++;
            vc_error(LOG,
                     "the coordinator at %s refused this agent's key (public key %s): ask its "
                     "operator to copy this agent's .key file into the coordinator's allow-list "
                     "directory",
                     a->endpoint, a->cert ? zcert_public_txt(a->cert) : "none");
            /* A ZAP refusal is final: retrying with the same key cannot succeed. */
            if (a->auth_failures >= MAX_AUTH_FAILURES)
                set_fatal(a, VC_ERR_AUTH, "giving up: %s refused this agent's key", a->endpoint);
            break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
            if (link_note(a))
                vc_warn(LOG,
                        "handshake with %s failed (%u times): wrong coordinator key "
                        "(--coordinator-key), one side without CURVE (--insecure), or the "
                        "coordinator is gone behind a proxy?",
                        a->endpoint, a->link_events);
            break;
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
            a->auth_failures = 0;
            a->link_events = 0;
            a->link_logged_at = 0;
            vc_debug(LOG, "connected to %s", a->endpoint);
            break;
        case ZMQ_EVENT_DISCONNECTED:
            if (link_note(a))
                vc_info(LOG, "disconnected from %s (%u times); reconnecting", a->endpoint,
                        a->link_events);
            break;
        default:
            break;
        }
    }
    zmsg_destroy(&m);
}

/* ---------------------------------------------------------------- sending */

static uint64_t window_samples(const va_agent_t *a)
{
    return (uint64_t)a->o.window * (uint64_t)a->o.batch_max;
}

typedef struct {
    va_agent_t *a;
    jobstate_t *j;
    int blocked;
} pump_ctx_t;

static int pump_batch(void *arg, const va_spool_batch_t *b)
{
    pump_ctx_t *c = arg;
    uint64_t last = b->first_seq + b->nsamples - 1;
    if (last <= c->j->sent)
        return 0;
    if (c->j->sent - c->j->acked >= window_samples(c->a))
        return 1;
    if (send_bytes(c->a, b->msg, b->len) != 0) {
        c->blocked = 1;
        return 1;
    }
    if (c->j->sent == c->j->acked)
        c->j->moved_at = vc_mono_now();
    c->j->sent = last;
    return 0;
}

/* Sends unsent spooled batches of every job, as far as the window allows. */
static void pump(va_agent_t *a)
{
    if (a->link != LINK_UP)
        return;
    for (size_t i = 0; i < a->njs; i++) {
        jobstate_t *j = &a->js[i];
        if (j->sent >= j->spooled || j->sent - j->acked >= window_samples(a))
            continue;
        pump_ctx_t c = {a, j, 0};
        char err[256];
        vc_status_t rc = va_spool_foreach(a->spool, j->job_id, j->sent + 1, pump_batch, &c, err,
                                          sizeof err);
        if (rc && rc != VC_ERR_CANCELLED) {
            set_fatal(a, rc, "cannot read back spooled samples of job %llx from %s: %s",
                      (unsigned long long)j->job_id, a->spool_path, err);
            return;
        }
        if (c.blocked)
            return;
    }
}

static void send_done(va_agent_t *a, jobstate_t *j)
{
    if (a->link != LINK_UP)
        return;
    vp_msg_t m;
    vp_msg_init(&m, VP_DONE);
    m.request_id = next_rid(a);
    m.u.done = j->done;
    if (send_msg(a, &m) == 0) {
        j->done_rid = m.request_id;
        j->done_sent_at = vc_mono_now();
    }
}

/* Spools one batch of the running job, then sends it if the link and the
 * window allow (otherwise pump() sends it later from the spool). */
static void spool_batch(va_agent_t *a, vc_sample_t *s, size_t n)
{
    uint64_t job_id = a->run.job_id;
    jobstate_t *j = js_find(a, job_id);
    if (!j) {
        set_fatal(a, VC_ERR_INTERNAL, "no sender state for job %llx", (unsigned long long)job_id);
        return;
    }
    uint64_t first = va_spool_next_seq(a->spool, job_id);
    char err[256];
    vc_status_t rc = va_spool_append(a->spool, job_id, first, s, n, &a->spoolbuf, err, sizeof err);
    if (rc) {
        set_fatal(a, rc, "cannot spool %zu samples of job %llx to %s: %s (free disk space?)", n,
                  (unsigned long long)job_id, a->spool_path, err);
        return;
    }
    j->spooled = first + n - 1;
    if (a->link == LINK_UP && j->sent == first - 1 && j->sent - j->acked < window_samples(a) &&
        send_bytes(a, a->spoolbuf.data, a->spoolbuf.size) == 0) {
        if (j->sent == j->acked)
            j->moved_at = vc_mono_now();
        j->sent = j->spooled;
    }
}

static void drain_batches(va_agent_t *a, int partial)
{
    vc_sample_t *s;
    size_t n;
    while (!a->fatal && (n = va_batcher_take(a->batcher, partial, &s)) > 0) {
        spool_batch(a, s, n);
        va_batcher_release(a->batcher, s, n);
    }
}

/* ------------------------------------------------------------------- jobs */

/* Tests only: hold the workload to a.o.test_max_rate samples per second so
 * that a job is still running when the test breaks something. */
static void throttle(va_agent_t *a)
{
    long long n = atomic_fetch_add(&a->run.emitted, 1) + 1;
    if (n % 64)
        return;
    vc_mono_ns_t due = a->run.started + (vc_mono_ns_t)((double)n / (double)a->o.test_max_rate * 1e9);
    vc_mono_ns_t now = vc_mono_now();
    if (due > now && !atomic_load(&a->run.cancel))
        vc_sleep_ns(due - now);
}

static void emit_cb(void *arg, const vc_sample_t *s)
{
    va_agent_t *a = arg;
    if (a->o.test_max_rate > 0)
        throttle(a);
    if (s->err_class != VC_EC_NONE)
        atomic_fetch_add(&a->run.errors, 1);
    if (va_batcher_add(a->batcher, s) == VC_ERR_NOMEM)
        atomic_store(&a->run.cancel, 1);
}

static void progress_cb(void *arg, int64_t done, int64_t total, int64_t errors, const char *what)
{
    va_agent_t *a = arg;
    pthread_mutex_lock(&a->run.pmu);
    a->run.prog.done = done;
    a->run.prog.total = total;
    a->run.prog.errors = errors;
    snprintf(a->run.prog.step, sizeof a->run.prog.step, "%s", what ? what : "");
    a->run.pdirty = 1;
    pthread_mutex_unlock(&a->run.pmu);
}

static void *job_main(void *arg)
{
    va_agent_t *a = arg;
    const vp_job_msg_t *jm = &a->run.msg;
    vc_wall_ns_t start = jm->start_at;
    if (start > 0) {
        vc_wall_ns_t now = vc_wall_now();
        if (start - now > 600 * VC_NS_PER_S) {
            vc_warn(LOG, "job %llx: start time is %.0f s away; starting now instead",
                    (unsigned long long)a->run.job_id, (double)(start - now) / 1e9);
            start = 0;
        }
        while (start > 0 && !atomic_load(&a->run.cancel) && (now = vc_wall_now()) < start) {
            int64_t d = start - now;
            vc_sleep_ns(d < 10 * VC_NS_PER_MS ? d : 10 * VC_NS_PER_MS);
        }
    }
    va_workload_env_t env = {
        .agent_name = a->name,
        .site = a->site,
        .work_dir = a->work_dir[0] ? a->work_dir : NULL,
        .emit = emit_cb,
        .progress = progress_cb,
        .arg = a,
        .cancel = &a->run.cancel,
    };
    char err[VP_TEXT_LEN + 1] = "";
    vc_status_t rc = atomic_load(&a->run.cancel)
                         ? VC_ERR_CANCELLED
                         : va_workload_run(&jm->job, &env, err, sizeof err);
    a->run.rc = rc;
    snprintf(a->run.err, sizeof a->run.err, "%s", err);
    atomic_store(&a->run.ended, 1);
    return NULL;
}

static void record_done(va_agent_t *a, jobstate_t *j, vp_job_status_t st, const char *error,
                        int64_t errors)
{
    vp_done_t d;
    memset(&d, 0, sizeof d);
    d.job_id = j->job_id;
    d.status = st;
    snprintf(d.error, sizeof d.error, "%s", error ? error : "");
    d.samples = (int64_t)j->spooled;
    d.errors = errors;
    char err[256];
    vc_status_t rc = va_spool_finish(a->spool, &d, err, sizeof err);
    if (rc) {
        set_fatal(a, rc, "cannot record the end of job %llx in %s: %s",
                  (unsigned long long)j->job_id, a->spool_path, err);
        return;
    }
    j->done = d;
    j->finished = 1;
    j->done_confirmed = 0;
    j->done_rid = 0;
}

/* The job thread has returned: spool the rest, record and send DONE. */
static void finish_running(va_agent_t *a)
{
    pthread_join(a->run.th, NULL);
    a->run.active = 0;
    drain_batches(a, 1);
    jobstate_t *j = js_find(a, a->run.job_id);
    if (!j || a->fatal)
        return;
    vp_job_status_t st;
    const char *why = a->run.err;
    if (a->run.rc == VC_OK)
        st = VP_JOB_OK;
    else if (a->run.rc == VC_ERR_CANCELLED && a->run.stopped_by_agent) {
        st = VP_JOB_INTERRUPTED;
        why = "the agent was stopped while the job ran";
    } else if (a->run.rc == VC_ERR_CANCELLED) {
        st = VP_JOB_CANCELLED;
        why = "cancelled by the coordinator";
    } else {
        st = VP_JOB_FAILED;
        if (!why[0])
            why = vc_strerror(a->run.rc);
    }
    int64_t errors = atomic_load(&a->run.errors);
    record_done(a, j, st, st == VP_JOB_OK ? "" : why, errors);
    vc_info(LOG, "job %llx (%s) ended: %s, %llu samples, %lld errors%s%s",
            (unsigned long long)j->job_id, a->run.msg.job.id, vp_job_status_name(st),
            (unsigned long long)j->spooled, (long long)errors, st == VP_JOB_OK ? "" : ": ",
            st == VP_JOB_OK ? "" : why);
    send_done(a, j);
}

static void start_job(va_agent_t *a, const vp_job_msg_t *jm)
{
    jobstate_t *known = js_find(a, jm->job_id);
    if (a->run.active && a->run.job_id == jm->job_id)
        return; /* a repeated JOB after a reconnect: already running */
    if (known && known->finished) {
        send_done(a, known); /* the coordinator missed the end of it */
        return;
    }
    jobstate_t *j = known ? known : js_add(a, jm->job_id);
    if (!j) {
        set_fatal(a, VC_ERR_NOMEM, "out of memory");
        return;
    }
    j->spooled = va_spool_next_seq(a->spool, jm->job_id) - 1;
    j->acked = va_spool_acked_seq(a->spool, jm->job_id);
    j->sent = j->spooled > j->acked ? j->spooled : j->acked;
    char why[VP_TEXT_LEN + 1] = "";
    if (a->run.active)
        snprintf(why, sizeof why, "agent %s is busy with job %llx", a->name,
                 (unsigned long long)a->run.job_id);
    else if (jm->job.workers > a->o.max_workers)
        snprintf(why, sizeof why, "the job asks for %d workers; agent %s allows %d (max_workers)",
                 jm->job.workers, a->name, a->o.max_workers);
    if (why[0]) {
        vc_warn(LOG, "job %llx refused: %s", (unsigned long long)jm->job_id, why);
        record_done(a, j, VP_JOB_FAILED, why, 0);
        send_done(a, j);
        return;
    }
    a->run.msg = *jm;
    a->run.job_id = jm->job_id;
    atomic_store(&a->run.cancel, 0);
    atomic_store(&a->run.ended, 0);
    atomic_store(&a->run.errors, 0);
    atomic_store(&a->run.emitted, 0);
    a->run.started = vc_mono_now();
    a->run.rc = VC_OK;
    a->run.err[0] = '\0';
    a->run.stopped_by_agent = 0;
    memset(&a->run.prog, 0, sizeof a->run.prog);
    a->run.prog.job_id = jm->job_id;
    a->run.prog.total = -1;
    a->run.pdirty = 0;
    a->run.prog_sent_at = 0;
    va_batcher_reset(a->batcher);
    a->last_partial = vc_mono_now();
    if (pthread_create(&a->run.th, NULL, job_main, a) != 0) {
        record_done(a, j, VP_JOB_FAILED, "cannot start the job thread", 0);
        send_done(a, j);
        return;
    }
    a->run.active = 1;
    vc_wall_ns_t now = vc_wall_now();
    vc_info(LOG, "job %llx (%s, %s) received from campaign %s; starts %s%.3f s", 
            (unsigned long long)jm->job_id, jm->job.id, vc_workload_name(jm->job.kind),
            jm->campaign, jm->start_at > now ? "in " : "now, ",
            jm->start_at > now ? (double)(jm->start_at - now) / 1e9 : 0.0);
}

static void send_progress(va_agent_t *a, vc_mono_ns_t now)
{
    if (!a->run.active || a->link != LINK_UP ||
        now - a->run.prog_sent_at < PROGRESS_EVERY_MS * VC_NS_PER_MS)
        return;
    vp_msg_t m;
    vp_msg_init(&m, VP_PROGRESS);
    pthread_mutex_lock(&a->run.pmu);
    int dirty = a->run.pdirty;
    m.u.progress = a->run.prog;
    a->run.pdirty = 0;
    pthread_mutex_unlock(&a->run.pmu);
    if (!dirty)
        return;
    m.u.progress.job_id = a->run.job_id;
    if (m.u.progress.done < 0)
        m.u.progress.done = 0;
    if (m.u.progress.errors < 0)
        m.u.progress.errors = 0;
    m.request_id = next_rid(a);
    send_msg(a, &m);
    a->run.prog_sent_at = now;
}

/* --------------------------------------------------------------- receiving */

static void send_hello(va_agent_t *a)
{
    vp_msg_t m;
    vp_msg_init(&m, VP_HELLO);
    m.request_id = next_rid(a);
    vp_hello_t *h = &m.u.hello;
    snprintf(h->name, sizeof h->name, "%s", a->name);
    snprintf(h->site, sizeof h->site, "%s", a->site);
    snprintf(h->version, sizeof h->version, "%s", VANTAGE_VERSION);
    h->proto_minor = VP_PROTO_MINOR;
    if (gethostname(h->hostname, sizeof h->hostname) != 0 || !h->hostname[0])
        snprintf(h->hostname, sizeof h->hostname, "unknown");
    h->hostname[sizeof h->hostname - 1] = '\0';
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->os, sizeof h->os, "%s %s %s", u.sysname, u.release, u.machine);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus = cpus > 0 && cpus < INT32_MAX ? (int32_t)cpus : 1;
    /* Never asked of an outside service: left empty unless configured. */
    h->public_ip[0] = '\0';
    for (int k = 0; k < VC_WL_COUNT && h->ncaps < VP_MAX_CAPS; k++)
        snprintf(h->caps[h->ncaps++], sizeof h->caps[0], "%s", vc_workload_name((vc_workload_t)k));
    for (size_t i = 0; i < a->njs; i++)
        a->js[i].in_hello = 0;
    for (size_t i = 0; i < a->njs && h->nresume < VP_MAX_RESUME; i++) {
        jobstate_t *j = &a->js[i];
        j->in_hello = 1;
        vp_resume_t *r = &h->resume[h->nresume++];
        r->job_id = j->job_id;
        r->next_seq = j->spooled + 1;
        r->acked_seq = j->acked;
        if (a->run.active && a->run.job_id == j->job_id)
            r->state = VP_RJ_RUNNING;
        else if (j->finished && j->done.status == VP_JOB_INTERRUPTED)
            r->state = VP_RJ_INTERRUPTED;
        else
            r->state = VP_RJ_FINISHED;
    }
    h->wall_ns = vc_wall_now();
    vc_mono_ns_t now = vc_mono_now();
    if (send_msg(a, &m) != 0) {
        /* No connection yet (ZMQ_IMMEDIATE): try again shortly. */
        if (!a->hello_waiting_logged) {
            vc_info(LOG, "waiting for the coordinator at %s", a->endpoint);
            a->hello_waiting_logged = 1;
        }
        a->next_hello = now + 200 * VC_NS_PER_MS;
        return;
    }
    vc_debug(LOG, "HELLO sent to %s (%u jobs to resume)", a->endpoint, h->nresume);
    a->next_hello = now + a->hello_backoff_ms * VC_NS_PER_MS;
    a->hello_backoff_ms = a->hello_backoff_ms * 2 > HELLO_BACKOFF_MAX_MS
                              ? HELLO_BACKOFF_MAX_MS
                              : a->hello_backoff_ms * 2;
}

static void on_welcome(va_agent_t *a, const vp_welcome_t *w)
{
    char err[256];
    /* Jobs the coordinator acknowledges are known to it; the others are from
     * a campaign it does not run, and nobody will ever collect them. */
    for (size_t i = 0; i < a->njs;) {
        jobstate_t *j = &a->js[i];
        const vp_ack_t *ack = NULL;
        for (uint32_t k = 0; k < w->nacks; k++)
            if (w->acks[k].job_id == j->job_id)
                ack = &w->acks[k];
        int running = a->run.active && a->run.job_id == j->job_id;
        /* More jobs than a HELLO can list: the rest is asked about next time. */
        if (!ack && !running && j->in_hello) {
            vc_warn(LOG,
                    "job %llx is unknown to the coordinator at %s: dropping its %llu "
                    "unacknowledged samples from the spool",
                    (unsigned long long)j->job_id, a->endpoint,
                    (unsigned long long)(j->spooled - j->acked));
            va_spool_forget(a->spool, j->job_id, err, sizeof err);
            js_remove(a, j->job_id);
            continue;
        }
        if (!ack && !running) {
            i++;
            continue;
        }
        if (ack && ack->seq > j->acked) {
            if (va_spool_ack(a->spool, j->job_id, ack->seq, err, sizeof err) == VC_OK)
                j->acked = ack->seq;
            else
                vc_warn(LOG, "WELCOME acknowledges job %llx up to %llu: %s",
                        (unsigned long long)j->job_id, (unsigned long long)ack->seq, err);
        }
        j->sent = j->acked;
        j->moved_at = vc_mono_now();
        j->done_rid = 0;
        i++;
    }
    a->link = LINK_UP;
    a->hb_ms = w->heartbeat_ms < 100 ? 100 : w->heartbeat_ms > 60000 ? 60000 : w->heartbeat_ms;
    a->hello_backoff_ms = HELLO_BACKOFF_MIN_MS;
    a->next_ping = vc_mono_now();
    vc_info(LOG, "registered with the coordinator at %s (coordinator %s)", a->endpoint,
            w->version);
    for (size_t i = 0; i < a->njs; i++)
        if (a->js[i].finished)
            send_done(a, &a->js[i]);
    pump(a);
}

static void on_ack(va_agent_t *a, const vp_msg_t *m)
{
    jobstate_t *j = js_find(a, m->u.ack.job_id);
    if (!j) {
        vc_debug(LOG, "ACK for job %llx, which this agent does not hold",
                 (unsigned long long)m->u.ack.job_id);
        return;
    }
    uint64_t seq = m->u.ack.seq;
    if (seq > j->spooled) {
        vc_warn(LOG, "ACK for job %llx up to seq %llu, beyond the %llu samples sent: ignored",
                (unsigned long long)j->job_id, (unsigned long long)seq,
                (unsigned long long)j->spooled);
        return;
    }
    if (seq > j->acked) {
        char err[256];
        if (va_spool_ack(a->spool, j->job_id, seq, err, sizeof err) != VC_OK) {
            vc_warn(LOG, "spool refused ACK of job %llx up to %llu: %s",
                    (unsigned long long)j->job_id, (unsigned long long)seq, err);
            return;
        }
        j->acked = seq;
        j->moved_at = vc_mono_now();
        if (j->sent < j->acked)
            j->sent = j->acked;
    }
    if (j->finished && j->done_rid && m->request_id == j->done_rid)
        j->done_confirmed = 1;
    if (j->finished && j->done_confirmed && j->acked == j->spooled) {
        char err[256];
        va_spool_forget(a->spool, j->job_id, err, sizeof err);
        vc_debug(LOG, "job %llx fully acknowledged", (unsigned long long)j->job_id);
        js_remove(a, j->job_id);
        return;
    }
    pump(a);
}

static void on_message(va_agent_t *a, const vp_msg_t *m, vc_wall_ns_t t_rx)
{
    switch (m->type) {
    case VP_WELCOME:
        on_welcome(a, &m->u.welcome);
        return;
    case VP_REJECT:
        set_fatal(a, VC_ERR_AUTH, "the coordinator at %s rejected agent %s: %s", a->endpoint,
                  a->name, m->u.reject.reason);
        return;
    case VP_BYE:
        vc_info(LOG, "the coordinator at %s said goodbye: %s", a->endpoint, m->u.bye.reason);
        link_reset(a, HELLO_BACKOFF_MIN_MS * 2);
        return;
    default:
        break;
    }
    if (a->link != LINK_UP) {
        vc_debug(LOG, "%s before WELCOME ignored", vp_msg_type_name(m->type));
        return;
    }
    switch (m->type) {
    case VP_PING: {
        vp_msg_t r;
        vp_msg_init(&r, VP_PONG);
        r.request_id = m->request_id;
        r.u.pong.t1 = m->u.ping.t1;
        r.u.pong.t2 = t_rx;
        r.u.pong.t3 = vc_wall_now();
        send_msg(a, &r);
        break;
    }
    case VP_PONG:
        break; /* liveness only: the coordinator estimates the offsets */
    case VP_JOB:
        start_job(a, &m->u.job);
        break;
    case VP_CANCEL:
        if (a->run.active && a->run.job_id == m->u.cancel.job_id) {
            vc_info(LOG, "job %llx cancelled by the coordinator",
                    (unsigned long long)m->u.cancel.job_id);
            atomic_store(&a->run.cancel, 1);
        } else {
            vc_info(LOG, "CANCEL for job %llx, which is not running here: ignored",
                    (unsigned long long)m->u.cancel.job_id);
        }
        break;
    case VP_ACK:
        on_ack(a, m);
        break;
    default:
        vc_warn(LOG, "unexpected %s from the coordinator ignored", vp_msg_type_name(m->type));
        break;
    }
}

static void receive_all(va_agent_t *a)
{
    void *s = zsock_resolve(a->sock);
    for (int k = 0; k < 256 && a->sock && !a->fatal; k++) {
        zmq_msg_t zm;
        zmq_msg_init(&zm);
        if (zmq_msg_recv(&zm, s, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&zm);
            return;
        }
        vc_wall_ns_t t_rx = vc_wall_now();
        int more = zmq_msg_more(&zm);
        if (more) {
            /* Our protocol is single-frame: drop the whole multipart message. */
            while (more) {
                zmq_msg_close(&zm);
                zmq_msg_init(&zm);
                if (zmq_msg_recv(&zm, s, ZMQ_DONTWAIT) < 0)
                    break;
                more = zmq_msg_more(&zm);
            }
            zmq_msg_close(&zm);
            vc_warn(LOG, "multipart message from the coordinator dropped");
            continue;
        }
        vp_msg_t m;
        char err[256];
        vc_status_t rc = vp_decoder_decode(a->dec, zmq_msg_data(&zm), zmq_msg_size(&zm), &m, err,
                                           sizeof err);
        zmq_msg_close(&zm);
        if (rc) {
            vc_warn(LOG, "malformed message from the coordinator dropped: %s", err);
            continue;
        }
        a->last_rx = vc_mono_now();
        on_message(a, &m, t_rx);
        vp_msg_clear(&m);
        /* on_message may have replaced the socket */
        if (a->sock)
            s = zsock_resolve(a->sock);
    }
}

/* ------------------------------------------------------------- lifecycle */

void va_agent_opts_init(va_agent_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->batch_max = 1000;
    o->batch_ms = 100;
    o->window = 32;
    o->heartbeat_ms = 2000;
    o->lost_after_ms = 10000;
    o->max_workers = 64;
    o->spool_fsync = 1;
    o->spool_max_bytes = (int64_t)1 << 30;
}

static zcert_t *load_own_cert(const char *secret_file, char *err, size_t errlen)
{
    if (vc_secretfile_check(secret_file, err, errlen) != VC_OK)
        return NULL;
    size_t l = strlen(secret_file);
    char pub[PATH_MAX];
    if (l < 8 || strcmp(secret_file + l - 7, "_secret") != 0 || l - 7 >= sizeof pub) {
        snprintf(err, errlen, "%s: a secret key file name ends in _secret (vantage keygen)",
                 secret_file);
        return NULL;
    }
    memcpy(pub, secret_file, l - 7);
    pub[l - 7] = '\0';
    zcert_t *c = zcert_load(pub);
    if (!c || strspn(zcert_secret_txt(c), "0") == 40) {
        snprintf(err, errlen, "cannot load a CURVE key pair from %s (made by vantage keygen?)",
                 secret_file);
        zcert_destroy(&c);
        return NULL;
    }
    return c;
}

va_agent_t *va_agent_new(const va_agent_opts_t *o, char *err, size_t errlen)
{
    va_agent_t *a = NULL;
    if (!o->endpoint || !o->endpoint[0] || !o->name || !o->name[0] || !o->spool_path) {
        snprintf(err, errlen, "an agent needs a coordinator endpoint, a name and a spool path");
        return NULL;
    }
    if (strlen(o->name) > VP_NAME_LEN || (o->site && strlen(o->site) > VP_NAME_LEN)) {
        snprintf(err, errlen, "agent name and site label are limited to %d bytes", VP_NAME_LEN);
        return NULL;
    }
    if (o->batch_max < 1 || o->batch_max > VP_MAX_SAMPLES || o->batch_ms < 1 || o->window < 1 ||
        o->heartbeat_ms < 10 || o->lost_after_ms < 2 * o->heartbeat_ms || o->max_workers < 1) {
        snprintf(err, errlen,
                 "invalid agent limits: batch 1..%d samples, batch time >= 1 ms, window >= 1, "
                 "lost-after >= 2 x heartbeat",
                 VP_MAX_SAMPLES);
        return NULL;
    }
    if (o->insecure && !vc_endpoint_is_local(o->endpoint)) {
        snprintf(err, errlen,
                 "refusing an unencrypted link to %s: --insecure is only for loopback "
                 "(127.0.0.1, ::1); give the agent --keys and --coordinator-key instead",
                 o->endpoint);
        return NULL;
    }
    if (!o->insecure && (!o->secret_file || !o->coordinator_key)) {
        snprintf(err, errlen,
                 "CURVE keys needed: this agent's key pair (--keys, made by vantage keygen) and "
                 "the coordinator's public key (--coordinator-key); or --insecure on loopback");
        return NULL;
    }
    a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->o = *o;
    snprintf(a->name, sizeof a->name, "%s", o->name);
    snprintf(a->site, sizeof a->site, "%s", o->site ? o->site : "");
    snprintf(a->endpoint, sizeof a->endpoint, "%s", o->endpoint);
    snprintf(a->spool_path, sizeof a->spool_path, "%s", o->spool_path);
    snprintf(a->work_dir, sizeof a->work_dir, "%s", o->work_dir ? o->work_dir : "");
    a->hb_ms = o->heartbeat_ms;
    a->hello_backoff_ms = HELLO_BACKOFF_MIN_MS;
    pthread_mutex_init(&a->run.pmu, NULL);
    msgpack_sbuffer_init(&a->sbuf);
    msgpack_sbuffer_init(&a->spoolbuf);
    if (!o->insecure) {
        if (!(a->cert = load_own_cert(o->secret_file, err, errlen)))
            goto fail;
        zcert_t *sc = zcert_load(o->coordinator_key);
        if (!sc || strspn(zcert_public_txt(sc), "0") == 40) {
            snprintf(err, errlen,
                     "cannot load the coordinator's public key from %s (the coordinator.key "
                     "file its operator made with vantage keygen)",
                     o->coordinator_key);
            zcert_destroy(&sc);
            goto fail;
        }
        snprintf(a->server_key, sizeof a->server_key, "%s", zcert_public_txt(sc));
        zcert_destroy(&sc);
    }
    a->dec = vp_decoder_new();
    /* Deep enough for the window plus the batches being filled. */
    a->batcher = va_batcher_new((size_t)o->batch_max, 8);
    if (!a->dec || !a->batcher) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    char serr[256];
    a->spool = va_spool_open(a->spool_path, serr, sizeof serr);
    if (!a->spool) {
        snprintf(err, errlen, "cannot open the spool %s: %s", a->spool_path, serr);
        goto fail;
    }
    va_spool_set_fsync(a->spool, o->spool_fsync);
    /* Recover: every job the spool knows. One that was running when the
     * previous process died is over: record that, and resend its samples. */
    size_t n = va_spool_jobs(a->spool, NULL, 0);
    va_spool_job_t *sj = n ? calloc(n, sizeof *sj) : NULL;
    if (n && !sj) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    va_spool_jobs(a->spool, sj, n);
    for (size_t i = 0; i < n; i++) {
        jobstate_t *j = js_add(a, sj[i].job_id);
        if (!j)
            break;
        j->spooled = sj[i].next_seq - 1;
        j->acked = sj[i].acked_seq;
        j->sent = j->acked;
        if (sj[i].finished) {
            j->finished = 1;
            j->done = sj[i].done;
        } else {
            record_done(a, j, VP_JOB_INTERRUPTED, "the agent restarted while the job ran", 0);
        }
        vc_info(LOG, "spool %s: job %llx has %llu unacknowledged samples (%s)", a->spool_path,
                (unsigned long long)j->job_id, (unsigned long long)(j->spooled - j->acked),
                vp_job_status_name(j->done.status));
    }
    free(sj);
    if (a->fatal) {
        snprintf(err, errlen, "%s", a->error);
        goto fail;
    }
    return a;
fail:
    va_agent_destroy(&a);
    return NULL;
}

void va_agent_destroy(va_agent_t **p)
{
    if (!p || !*p)
        return;
    va_agent_t *a = *p;
    if (a->run.active) {
        atomic_store(&a->run.cancel, 1);
        va_batcher_abort(a->batcher);
        pthread_join(a->run.th, NULL);
    }
    link_close(a, 0);
    va_spool_destroy(&a->spool);
    va_batcher_destroy(&a->batcher);
    vp_decoder_destroy(&a->dec);
    zcert_destroy(&a->cert);
    msgpack_sbuffer_destroy(&a->sbuf);
    msgpack_sbuffer_destroy(&a->spoolbuf);
    free(a->js);
    pthread_mutex_destroy(&a->run.pmu);
    free(a);
    *p = NULL;
}

void va_agent_stop(va_agent_t *a) { atomic_store(&a->stop, 1); }

const char *va_agent_error(const va_agent_t *a) { return a->error; }

static int all_acked(const va_agent_t *a)
{
    for (size_t i = 0; i < a->njs; i++)
        if (a->js[i].acked < a->js[i].spooled || (a->js[i].finished && !a->js[i].done_confirmed))
            return 0;
    return 1;
}

/* Periodic duties; now is the monotonic time. */
static void timers(va_agent_t *a, vc_mono_ns_t now)
{
    if (a->link == LINK_DOWN) {
        if (now >= a->next_hello)
            send_hello(a);
        return;
    }
    if (now - a->last_rx > a->o.lost_after_ms * VC_NS_PER_MS) {
        vc_warn(LOG, "no word from the coordinator at %s for %.1f s: reconnecting", a->endpoint,
                (double)(now - a->last_rx) / 1e9);
        link_reset(a, 0);
        return;
    }
    if (now >= a->next_ping) {
        vp_msg_t m;
        vp_msg_init(&m, VP_PING);
        m.request_id = next_rid(a);
        m.u.ping.t1 = vc_wall_now();
        send_msg(a, &m);
        a->next_ping = now + a->hb_ms * VC_NS_PER_MS;
    }
    int64_t resend_ns = (a->hb_ms * 3 > 5000 ? a->hb_ms * 3 : 5000) * VC_NS_PER_MS;
    for (size_t i = 0; i < a->njs; i++) {
        jobstate_t *j = &a->js[i];
        if (j->sent > j->acked && now - j->moved_at > resend_ns) {
            vc_info(LOG, "job %llx: no ACK for %.1f s; resending from seq %llu",
                    (unsigned long long)j->job_id, (double)(now - j->moved_at) / 1e9,
                    (unsigned long long)(j->acked + 1));
            j->sent = j->acked;
            j->moved_at = now;
        }
        if (j->finished && !j->done_confirmed &&
            (!j->done_rid || now - j->done_sent_at > 2 * a->hb_ms * VC_NS_PER_MS))
            send_done(a, j);
    }
    pump(a);
    send_progress(a, now);
}

vc_status_t va_agent_run(va_agent_t *a)
{
    if (link_open(a) != VC_OK)
        return a->fatal;
    a->next_hello = vc_mono_now();
    a->last_rx = vc_mono_now();
    vc_info(LOG, "agent %s (site \"%s\") connecting to %s%s", a->name, a->site, a->endpoint,
            a->cert ? " with CURVE" : " WITHOUT encryption (--insecure)");
    int stopping = 0;
    vc_mono_ns_t drain_deadline = 0;
    while (!a->fatal) {
        vc_mono_ns_t now = vc_mono_now();
        if (atomic_load(&a->stop) && !stopping) {
            stopping = 1;
            vc_info(LOG, "stopping: finishing the current batch and flushing the spool");
            if (a->run.active) {
                a->run.stopped_by_agent = 1;
                atomic_store(&a->run.cancel, 1);
            }
        }
        if (stopping && !a->run.active) {
            if (!drain_deadline)
                drain_deadline = now + DRAIN_TIMEOUT_MS * VC_NS_PER_MS;
            if (a->link != LINK_UP || all_acked(a) || now >= drain_deadline)
                break;
        }
        zmq_pollitem_t items[3] = {
            {zsock_resolve(a->sock), 0, ZMQ_POLLIN, 0},
            {NULL, va_batcher_fd(a->batcher), ZMQ_POLLIN, 0},
            {a->mon ? zsock_resolve(a->mon) : NULL, 0, ZMQ_POLLIN, 0},
        };
        long timeout = (long)(a->o.batch_ms < 100 ? a->o.batch_ms : 100);
        int rc = zmq_poll(items, a->mon ? 3 : 2, timeout);
        if (rc < 0 && zmq_errno() != EINTR) {
            set_fatal(a, VC_ERR_NET, "poll failed: %s", zmq_strerror(zmq_errno()));
            break;
        }
        if (rc > 0 && a->mon && (items[2].revents & ZMQ_POLLIN))
            monitor_event(a);
        if (rc > 0 && (items[0].revents & ZMQ_POLLIN))
            receive_all(a);
        now = vc_mono_now();
        int partial = now - a->last_partial >= a->o.batch_ms * VC_NS_PER_MS;
        if (partial)
            a->last_partial = now;
        /* A full spool (coordinator unreachable for long) pauses the job:
         * its workers block in the batcher instead of filling the disk. */
        if (a->o.spool_max_bytes > 0) {
            uint64_t live = 0;
            va_spool_size(a->spool, NULL, &live);
            int full = live >= (uint64_t)a->o.spool_max_bytes;
            if (full != a->spool_full)
                vc_log(full ? VC_LOG_WARN : VC_LOG_INFO, LOG,
                       full ? "spool %s holds %llu unacknowledged bytes (limit %lld): job paused "
                              "until the coordinator acknowledges"
                            : "spool %s down to %llu bytes (limit %lld): job resumed",
                       a->spool_path, (unsigned long long)live, (long long)a->o.spool_max_bytes);
            a->spool_full = full;
        }
        if (a->run.active && (!a->spool_full || atomic_load(&a->run.cancel)))
            drain_batches(a, partial);
        if (a->run.active && atomic_load(&a->run.ended))
            finish_running(a);
        if (!a->fatal)
            timers(a, now);
    }
    if (a->run.active) {
        atomic_store(&a->run.cancel, 1);
        a->run.stopped_by_agent = 1;
        /* Keep draining while the job thread winds down so it cannot block. */
        while (!atomic_load(&a->run.ended)) {
            drain_batches(a, 1);
            vc_sleep_ns(VC_NS_PER_MS);
        }
        if (!a->fatal)
            finish_running(a);
        else {
            va_batcher_abort(a->batcher);
            pthread_join(a->run.th, NULL);
            a->run.active = 0;
        }
    }
    if (a->link == LINK_UP) {
        vp_msg_t m;
        vp_msg_init(&m, VP_BYE);
        snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "%s",
                 a->fatal ? a->error : "agent stopped");
        m.request_id = next_rid(a);
        send_msg(a, &m);
    }
    link_close(a, 500);
    if (!a->fatal) {
        size_t pending = 0;
        for (size_t i = 0; i < a->njs; i++)
            pending += a->js[i].spooled - a->js[i].acked;
        vc_info(LOG, "agent %s stopped; %zu unacknowledged samples stay in %s", a->name, pending,
                a->spool_path);
    }
    return a->fatal;
}
