/* vk_coord: ROUTER loop, agent registry, wave scheduler, sample intake. */
#include "vk_coord.h"

#include <czmq.h>
#include <errno.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vc_clock.h"
#include "vc_clockoff.h"
#include "vc_endpoint.h"
#include "vc_job_json.h"
#include "vc_log.h"
#include "vc_plan.h"
#include "vk_auth.h"
#include "vk_dispatch.h"
#include "vk_intake.h"
#include "vk_progress.h"
#include "vk_store.h"
#include "vp_msg.h"

#define LOG "coordinator"
#define PING_BURST 8
#define PING_BURST_GAP_MS 25
#define OFFSET_STORE_EVERY_MS 30000
#define JOB_RESEND_MS 5000
#define BAD_LOG_EVERY_MS 5000
#define MAX_AHEAD 100000000ULL /* seqs past the acknowledged ones a batch may start */
#define MAX_RANGES 4096        /* out-of-order ranges remembered per dispatch */
#define INTAKE_QUEUE 64        /* batches handed to the writer thread at once */

typedef enum {
    ST_PENDING = 0, /* not sent yet */
    ST_RUNNING,     /* sent; its dispatch has not ended (the agent may be away) */
    ST_MISSED,      /* to be sent when its agent is there and idle (late or resumed) */
    ST_DONE,        /* complete: the agent said OK and every sample is stored */
    ST_FAILED,      /* the agent reported a failure or a cancel */
    ST_INCOMPLETE,  /* ended without completing and cannot be resumed */
} step_state_t;

static const char *const step_names[] = {"pending", "running", "missed", "done", "failed",
                                         "incomplete"};

typedef struct {
    int job, wave, agent;
    vc_job_t spec;      /* as planned (with the remaining count when resumed) */
    int64_t planned;    /* the spec's count as planned (null and populate) */
    step_state_t state;
    int disp;           /* index of its current dispatch, -1 */
} step_t;

typedef struct {
    uint64_t job_id;
    int step;
    uint64_t seq_base;
    uint64_t acked;          /* wire seqs 1..acked stored */
    uint64_t (*ranges)[2];   /* stored wire seq ranges above acked+1 */
    size_t nranges, capranges;
    int64_t final;           /* samples produced, -1 unknown */
    int status;              /* VK_DISPATCH_RUNNING or vp_job_status_t */
    int64_t errors;
    char error[VP_TEXT_LEN + 1];
    int64_t stored;          /* samples this run inserted (not duplicates) */
    int settled;             /* its step has taken the outcome */
    vc_mono_ns_t last_heard; /* last SAMPLES/PROGRESS/DONE or (re)send */
    int64_t p_done, p_total, p_errors;
    char p_step[64];
} disp_t;

typedef struct {
    char name[VC_NAME_MAX];
    char site[VC_SITE_MAX];
    int needed;              /* has steps in the campaign */
    int seen;                /* registered at least once in this run */
    int present;
    unsigned char rid[256];
    size_t rid_len;
    char key[41];
    vc_mono_ns_t last_rx, next_ping;
    int burst;
    vc_clockoff_t *clk;
    int have_offset;
    vc_clockoff_est_t off;
    vc_mono_ns_t off_stored_at;
    int busy;                /* dispatch index running on it, -1 */
    int64_t stored_total, rate_mark;
    vc_mono_ns_t rate_at;
    double rate;
    vc_mono_ns_t bad_logged_at;
    unsigned bad_count;
    uint64_t flush_rid;      /* PING whose PONG proves all sent before it was read */
} agent_t;

struct vk_coord {
    vk_coord_opts_t o;
    const vc_campaign_t *c;
    char endpoint[256];
    char out_dir[1024];
    vk_store_t *store;
    vk_dispatch_log_t *ledger;
    vk_intake_t *intake;
    vk_auth_t *auth;
    zsock_t *router;
    vp_decoder_t *dec;
    msgpack_sbuffer sbuf;
    vk_progress_t *progress;

    agent_t *agents;
    size_t nagents;
    step_t *steps;
    size_t nsteps;
    disp_t *disps;
    size_t ndisps, capdisps;

    size_t cur_job;          /* scheduler position */
    int cur_wave;
    int wave_started;
    int waited_agents;
    int ended;               /* the campaign is over: incomplete is final */
    vc_mono_ns_t stalled_since;
    uint64_t rid;
    vc_mono_ns_t unknown_logged_at;

    atomic_int stop;
    vc_status_t fatal;
    char error[512];
};

/* ---------------------------------------------------------------- helpers */

static void set_fatal(vk_coord_t *k, vc_status_t rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fatal(vk_coord_t *k, vc_status_t rc, const char *fmt, ...)
{
    if (k->fatal)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->error, sizeof k->error, fmt, ap);
    va_end(ap);
    k->fatal = rc;
    vc_error(LOG, "%s", k->error);
}

static const char *job_name(const vk_coord_t *k, int job)
{
    return vc_campaign_job(k->c, (size_t)job)->job.id;
}

static int count_based(vc_workload_t w) { return w == VC_WL_NULL || w == VC_WL_POPULATE; }

static int send_to(vk_coord_t *k, agent_t *a, vp_msg_t *m)
{
    if (!a->present)
        return -1;
    vc_status_t rc = vp_msg_encode(m, &k->sbuf);
    if (rc) {
        vc_error(LOG, "cannot encode %s for agent %s: %s", vp_msg_type_name(m->type), a->name,
                 vc_strerror(rc));
        return -1;
    }
    void *s = zsock_resolve(k->router);
    if (zmq_send(s, a->rid, a->rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
        zmq_send(s, k->sbuf.data, k->sbuf.size, ZMQ_DONTWAIT) < 0) {
        vc_debug(LOG, "%s to agent %s not sent: %s", vp_msg_type_name(m->type), a->name,
                 zmq_strerror(zmq_errno()));
        return -1;
    }
    return 0;
}

static int send_raw(vk_coord_t *k, const void *rid, size_t rid_len, vp_msg_t *m)
{
    if (vp_msg_encode(m, &k->sbuf) != VC_OK)
        return -1;
    void *s = zsock_resolve(k->router);
    if (zmq_send(s, rid, rid_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
        return -1;
    return zmq_send(s, k->sbuf.data, k->sbuf.size, ZMQ_DONTWAIT) < 0 ? -1 : 0;
}

static disp_t *disp_find(vk_coord_t *k, uint64_t job_id)
{
    for (size_t i = k->ndisps; i-- > 0;)
        if (k->disps[i].job_id == job_id)
            return &k->disps[i];
    return NULL;
}

static disp_t *disp_push(vk_coord_t *k)
{
    if (k->ndisps == k->capdisps) {
        size_t cap = k->capdisps ? k->capdisps * 2 : 64;
        disp_t *p = realloc(k->disps, cap * sizeof *p);
        if (!p)
            return NULL;
        k->disps = p;
        k->capdisps = cap;
    }
    disp_t *d = &k->disps[k->ndisps++];
    memset(d, 0, sizeof *d);
    d->final = -1;
    d->status = VK_DISPATCH_RUNNING;
    d->step = -1;
    d->p_total = -1;
    d->last_heard = vc_mono_now();
    return d;
}

static int step_find(const vk_coord_t *k, const char *job, const char *agent, int slice)
{
    for (size_t i = 0; i < k->nsteps; i++) {
        const step_t *s = &k->steps[i];
        if (s->spec.slice == slice && strcmp(job_name(k, s->job), job) == 0 &&
            strcmp(k->agents[s->agent].name, agent) == 0)
            return (int)i;
    }
    return -1;
}

static agent_t *agent_by_rid(vk_coord_t *k, const void *rid, size_t len)
{
    for (size_t i = 0; i < k->nagents; i++)
        if (k->agents[i].present && k->agents[i].rid_len == len &&
            memcmp(k->agents[i].rid, rid, len) == 0)
            return &k->agents[i];
    return NULL;
}

/* Rate-limited complaint about a peer's message. */
static void bad_message(vk_coord_t *k, agent_t *a, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void bad_message(vk_coord_t *k, agent_t *a, const char *fmt, ...)
{
    (void)k;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    a->bad_count++;
    vc_mono_ns_t now = vc_mono_now();
    if (now - a->bad_logged_at < BAD_LOG_EVERY_MS * VC_NS_PER_MS && a->bad_count > 1)
        return;
    a->bad_logged_at = now;
    vc_warn(LOG, "agent %s: message rejected (%u so far): %s", a->name, a->bad_count, buf);
}

/* ------------------------------------------------------------ job rows */

/* Writes the store's (job, agent) row from the state of its steps. */
static void update_job_row(vk_coord_t *k, int job, int agent)
{
    int all_done = 1, failed = 0, incomplete = 0, running = 0;
    int64_t expected = 0, errors = 0;
    char why[512] = "";
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if (s->job != job || s->agent != agent)
            continue;
        if (s->state != ST_DONE)
            all_done = 0;
        if (s->state == ST_FAILED)
            failed = 1;
        if (s->state == ST_INCOMPLETE || s->state == ST_MISSED ||
            (s->state == ST_RUNNING && !k->agents[agent].present))
            incomplete = 1;
        if (s->state == ST_RUNNING)
            running = 1;
    }
    for (size_t i = 0; i < k->ndisps; i++) {
        disp_t *d = &k->disps[i];
        if (d->step < 0 || k->steps[d->step].job != job || k->steps[d->step].agent != agent)
            continue;
        expected += d->final > 0 ? d->final : 0;
        errors += d->errors;
        if (d->error[0] && (d->status == VP_JOB_FAILED || d->status == VP_JOB_CANCELLED))
            snprintf(why, sizeof why, "%s", d->error);
    }
    const char *jn = job_name(k, job), *an = k->agents[agent].name;
    vk_job_row_t row;
    int64_t stored = vk_store_job_get(k->store, jn, an, &row) == VC_OK ? row.received : 0;
    vc_status_t rc = VC_OK;
    if (all_done) {
        rc = vk_store_job_finish(k->store, jn, an, VK_JOB_DONE, expected, errors, NULL);
    } else if (failed) {
        rc = vk_store_job_finish(k->store, jn, an, VK_JOB_FAILED, expected, errors,
                                 why[0] ? why : "failed");
    } else if (incomplete) {
        char text[600];
        if (k->ended)
            snprintf(text, sizeof text,
                     "incomplete: agent %s was lost or restarted and did not finish; %lld "
                     "samples stored",
                     an, (long long)stored);
        else
            snprintf(text, sizeof text,
                     "incomplete: agent %s away or restarted; %lld samples stored so far (it "
                     "may rejoin and resume)",
                     an, (long long)stored);
        rc = vk_store_job_finish(k->store, jn, an, VK_JOB_FAILED, -1, errors, text);
    } else if (running) {
        rc = vk_store_job(k->store, jn, an, VK_JOB_RUNNING, NULL, -1);
    }
    if (rc)
        vc_error(LOG, "store: cannot update job %s of agent %s: %s", jn, an,
                 vk_store_errmsg(k->store));
}

/* ------------------------------------------------------------- dispatch */

static void settle(vk_coord_t *k, disp_t *d);

static vc_status_t dispatch(vk_coord_t *k, int si, vc_wall_ns_t start_at)
{
    step_t *s = &k->steps[si];
    agent_t *a = &k->agents[s->agent];
    const char *jn = job_name(k, s->job);
    uint64_t stored_acked = 0;
    vk_store_acked_seq(k->store, a->name, jn, &stored_acked);
    uint64_t base = vk_dispatch_next_base(k->ledger, a->name, jn, stored_acked);
    uint64_t job_id;
    if (vk_dispatch_add(k->ledger, jn, a->name, s->spec.slice, base, &job_id) != VC_OK) {
        set_fatal(k, VC_ERR_IO, "cannot record a dispatch in %s: %s", vk_store_path(k->store),
                  vk_store_errmsg(k->store));
        return VC_ERR_IO;
    }
    disp_t *d = disp_push(k);
    if (!d) {
        set_fatal(k, VC_ERR_NOMEM, "out of memory");
        return VC_ERR_NOMEM;
    }
    d->job_id = job_id;
    d->step = si;
    d->seq_base = base;
    s->disp = (int)(d - k->disps);
    s->state = ST_RUNNING;
    a->busy = s->disp;
    char *json = vc_job_to_json(&s->spec, 0);
    if (vk_store_job(k->store, jn, a->name, VK_JOB_RUNNING, json, -1) != VC_OK)
        vc_error(LOG, "store: cannot mark job %s of agent %s running: %s", jn, a->name,
                 vk_store_errmsg(k->store));
    free(json);

    vp_msg_t m;
    vp_msg_init(&m, VP_JOB);
    m.request_id = ++k->rid;
    vp_job_msg_t *jm = &m.u.job;
    snprintf(jm->campaign, sizeof jm->campaign, "%s", vc_campaign_name(k->c));
    jm->job_id = job_id;
    jm->job = s->spec;
    jm->job.start_at = start_at;
    /* The agent waits on its own clock: shift by its estimated offset. */
    jm->start_at = start_at ? start_at + (a->have_offset ? a->off.offset_ns : 0) : 0;
    if (send_to(k, a, &m) != 0)
        vc_warn(LOG, "job %s could not be sent to agent %s now; it is sent again shortly", jn,
                a->name);
    vc_info(LOG, "job %s (slice %d) -> agent %s as job id %llx, seqs from %llu%s", jn,
            s->spec.slice, a->name, (unsigned long long)job_id, (unsigned long long)base + 1,
            start_at ? ", common start" : "");
    return VC_OK;
}

static void resend_job(vk_coord_t *k, disp_t *d)
{
    step_t *s = &k->steps[d->step];
    agent_t *a = &k->agents[s->agent];
    vp_msg_t m;
    vp_msg_init(&m, VP_JOB);
    m.request_id = ++k->rid;
    snprintf(m.u.job.campaign, sizeof m.u.job.campaign, "%s", vc_campaign_name(k->c));
    m.u.job.job_id = d->job_id;
    m.u.job.job = s->spec;
    m.u.job.start_at = 0;
    send_to(k, a, &m);
    d->last_heard = vc_mono_now();
}

/* The dispatch has ended and all its samples are in: the step takes it. */
static void settle(vk_coord_t *k, disp_t *d)
{
    if (d->settled || d->status == VK_DISPATCH_RUNNING || d->final < 0 ||
        d->acked < (uint64_t)d->final || d->step < 0)
        return;
    d->settled = 1;
    step_t *s = &k->steps[d->step];
    agent_t *a = &k->agents[s->agent];
    if (a->busy == (int)(d - k->disps))
        a->busy = -1;
    if (s->disp != (int)(d - k->disps))
        return; /* an older dispatch of a step that moved on */
    const char *jn = job_name(k, s->job);
    switch (d->status) {
    case VP_JOB_OK:
        s->state = ST_DONE;
        vc_info(LOG, "job %s on agent %s complete: %lld samples stored (%lld errors)", jn,
                a->name, (long long)d->final, (long long)d->errors);
        break;
    case VP_JOB_INTERRUPTED:
        if (count_based(s->spec.kind) && s->spec.count > d->final) {
            s->spec.count -= d->final;
            s->state = ST_MISSED;
            vc_info(LOG,
                    "job %s on agent %s was interrupted after %lld samples (all stored); the "
                    "remaining %lld run when the agent is back",
                    jn, a->name, (long long)d->final, (long long)s->spec.count);
        } else if (count_based(s->spec.kind)) {
            s->state = ST_DONE;
        } else {
            s->state = ST_INCOMPLETE;
            vc_warn(LOG,
                    "job %s on agent %s was interrupted after %lld samples (all stored); a %s "
                    "job is not resumed part-way: marked incomplete",
                    jn, a->name, (long long)d->final, vc_workload_name(s->spec.kind));
        }
        break;
    default:
        s->state = ST_FAILED;
        vc_warn(LOG, "job %s on agent %s %s: %s (%lld samples stored)", jn, a->name,
                vp_job_status_name(d->status), d->error, (long long)d->final);
        break;
    }
    update_job_row(k, s->job, s->agent);
}

/* Sequence bookkeeping: the stored wire range [first, last] of d. */
static void mark_stored(disp_t *d, uint64_t first, uint64_t last)
{
    if (first <= d->acked + 1) {
        if (last > d->acked)
            d->acked = last;
    } else if (d->nranges < MAX_RANGES) {
        if (d->nranges == d->capranges) {
            size_t cap = d->capranges ? d->capranges * 2 : 8;
            void *p = realloc(d->ranges, cap * sizeof *d->ranges);
            if (!p)
                return; /* only costs a resend */
            d->ranges = p;
            d->capranges = cap;
        }
        d->ranges[d->nranges][0] = first;
        d->ranges[d->nranges][1] = last;
        d->nranges++;
    }
    /* Fold every range that now touches the contiguous prefix. */
    for (int moved = 1; moved;) {
        moved = 0;
        for (size_t i = 0; i < d->nranges; i++) {
            if (d->ranges[i][0] <= d->acked + 1) {
                if (d->ranges[i][1] > d->acked)
                    d->acked = d->ranges[i][1];
                d->ranges[i][0] = d->ranges[--d->nranges][0];
                d->ranges[i][1] = d->ranges[d->nranges][1];
                moved = 1;
                break;
            }
        }
    }
}

/* ------------------------------------------------------------- messages */

static void host_facts(const vp_hello_t *h, const char *key, char *out, size_t len)
{
    json_t *o = json_object();
    json_object_set_new(o, "hostname", json_string(h->hostname));
    json_object_set_new(o, "os", json_string(h->os));
    json_object_set_new(o, "cpus", json_integer(h->cpus));
    json_object_set_new(o, "public_ip", json_string(h->public_ip));
    json_object_set_new(o, "version", json_string(h->version));
    json_object_set_new(o, "proto_minor", json_integer(h->proto_minor));
    if (key && key[0])
        json_object_set_new(o, "public_key", json_string(key));
    json_t *caps = json_array();
    for (uint32_t i = 0; i < h->ncaps; i++)
        json_array_append_new(caps, json_string(h->caps[i]));
    json_object_set_new(o, "caps", caps);
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    snprintf(out, len, "%s", s ? s : "{}");
    free(s);
    json_decref(o);
}

static void reject(vk_coord_t *k, const void *rid, size_t rid_len, uint64_t req,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void reject(vk_coord_t *k, const void *rid, size_t rid_len, uint64_t req,
                   const char *fmt, ...)
{
    vp_msg_t m;
    vp_msg_init(&m, VP_REJECT);
    m.request_id = req;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.u.reject.reason, sizeof m.u.reject.reason, fmt, ap);
    va_end(ap);
    vc_warn(LOG, "rejected: %s", m.u.reject.reason);
    send_raw(k, rid, rid_len, &m);
}

static void on_hello(vk_coord_t *k, const void *rid, size_t rid_len, const char *key,
                     const char *cert_name, const vp_msg_t *m)
{
    const vp_hello_t *h = &m->u.hello;
    int idx = vc_campaign_agent_find(k->c, h->name);
    if (idx < 0) {
        reject(k, rid, rid_len, m->request_id, "agent %s is not part of campaign %s", h->name,
               vc_campaign_name(k->c));
        return;
    }
    agent_t *a = &k->agents[idx];
    /* A key made for another agent of this campaign may not stand in for
     * this one (a key named otherwise, e.g. after its host, is accepted). */
    if (cert_name && cert_name[0] && strcmp(cert_name, h->name) != 0 &&
        vc_campaign_agent_find(k->c, cert_name) >= 0) {
        reject(k, rid, rid_len, m->request_id,
               "agent %s presented the key of agent %s (public key %s); each agent needs its "
               "own key pair",
               h->name, cert_name, key ? key : "");
        return;
    }
    if (a->present && key && a->key[0] && strcmp(a->key, key) != 0) {
        reject(k, rid, rid_len, m->request_id,
               "agent %s is already connected with another key (%s)", h->name, a->key);
        return;
    }
    int was_present = a->present, was_seen = a->seen;
    a->present = 1;
    a->seen = 1;
    memcpy(a->rid, rid, rid_len);
    a->rid_len = rid_len;
    snprintf(a->key, sizeof a->key, "%s", key ? key : "");
    a->last_rx = vc_mono_now();
    a->next_ping = a->last_rx;
    a->burst = PING_BURST;
    /* A new session may be a restarted agent on another clock. */
    vc_clockoff_reset(a->clk);
    a->have_offset = 0;
    a->off_stored_at = 0;
    char facts[2048];
    host_facts(h, key, facts, sizeof facts);
    const char *site = a->site[0] ? a->site : h->site;
    if (vk_store_agent(k->store, a->name, site, facts) != VC_OK)
        vc_error(LOG, "store: cannot record agent %s: %s", a->name, vk_store_errmsg(k->store));

    vp_msg_t w;
    vp_msg_init(&w, VP_WELCOME);
    w.request_id = m->request_id;
    snprintf(w.u.welcome.version, sizeof w.u.welcome.version, "%s", VANTAGE_VERSION);
    w.u.welcome.proto_minor = VP_PROTO_MINOR;
    w.u.welcome.heartbeat_ms = k->o.heartbeat_ms;
    int busy = -1;
    for (uint32_t i = 0; i < h->nresume; i++) {
        const vp_resume_t *r = &h->resume[i];
        disp_t *d = disp_find(k, r->job_id);
        if (!d || d->step < 0 || k->steps[d->step].agent != idx)
            continue; /* not ours: the agent drops it */
        if (w.u.welcome.nacks < VP_MAX_RESUME) {
            vp_ack_t *ack = &w.u.welcome.acks[w.u.welcome.nacks++];
            ack->job_id = r->job_id;
            ack->seq = d->acked;
        }
        if (r->state == VP_RJ_RUNNING && d->status == VK_DISPATCH_RUNNING)
            busy = (int)(d - k->disps);
        d->last_heard = vc_mono_now();
    }
    /* Dispatches we believe run on this agent but that it no longer holds
     * (its spool is gone, or it never got the JOB): over, with what we have. */
    for (size_t i = 0; i < k->ndisps; i++) {
        disp_t *d = &k->disps[i];
        if (d->step < 0 || k->steps[d->step].agent != idx || d->status != VK_DISPATCH_RUNNING)
            continue;
        int listed = 0;
        for (uint32_t j = 0; j < h->nresume; j++)
            listed |= h->resume[j].job_id == d->job_id;
        if (listed)
            continue;
        vc_warn(LOG,
                "agent %s no longer holds job id %llx (%s): ending it with the %llu samples "
                "stored",
                a->name, (unsigned long long)d->job_id, job_name(k, k->steps[d->step].job),
                (unsigned long long)d->acked);
        d->status = VP_JOB_INTERRUPTED;
        d->final = (int64_t)d->acked;
        snprintf(d->error, sizeof d->error, "the agent lost this job");
        vk_dispatch_end(k->ledger, d->job_id, d->status, d->final, d->errors);
        settle(k, d);
    }
    a->busy = busy;
    w.u.welcome.wall_ns = vc_wall_now();
    send_to(k, a, &w);
    vc_info(LOG, "agent %s %s (site \"%s\", %s, %s, %d CPUs%s%s)%s", a->name,
            was_present ? "reconnected" : was_seen ? "rejoined" : "registered", site, h->hostname, h->os, h->cpus,
            key ? ", key " : "", key ? key : "",
            h->nresume ? ", resuming spooled jobs" : "");
    for (size_t i = 0; i < k->nsteps; i++)
        if (k->steps[i].agent == idx && k->steps[i].state != ST_PENDING)
            update_job_row(k, k->steps[i].job, idx);
}

static void on_pong(vk_coord_t *k, agent_t *a, const vp_pong_t *p, vc_wall_ns_t t4)
{
    if (vc_clockoff_add(a->clk, p->t1, p->t2, p->t3, t4) != VC_OK) {
        bad_message(k, a, "PONG with impossible timestamps");
        return;
    }
    vc_clockoff_est_t best;
    if (vc_clockoff_best(a->clk, &best) != VC_OK)
        return;
    a->off = best;
    a->have_offset = 1;
    vc_mono_ns_t now = vc_mono_now();
    if (vc_clockoff_count(a->clk) >= 4 &&
        (!a->off_stored_at || now - a->off_stored_at >= OFFSET_STORE_EVERY_MS * VC_NS_PER_MS)) {
        if (!a->off_stored_at)
            vc_info(LOG, "clock offset of agent %s: %+.3f ms +/- %.3f ms (round trip %.3f ms)",
                    a->name, (double)best.offset_ns / 1e6, (double)best.error_ns / 1e6,
                    (double)best.delay_ns / 1e6);
        a->off_stored_at = now;
        if (vk_store_clock_offset(k->store, a->name, vc_wall_now(), best.offset_ns,
                                  best.error_ns, best.delay_ns) != VC_OK)
            vc_error(LOG, "store: cannot record the clock offset of %s: %s", a->name,
                     vk_store_errmsg(k->store));
    }
}

static disp_t *own_disp(vk_coord_t *k, agent_t *a, uint64_t job_id, const char *what)
{
    disp_t *d = disp_find(k, job_id);
    if (!d || d->step < 0 || &k->agents[k->steps[d->step].agent] != a) {
        bad_message(k, a, "%s for job id %llx, which is not this agent's", what,
                    (unsigned long long)job_id);
        return NULL;
    }
    return d;
}

static void on_samples(vk_coord_t *k, agent_t *a, vp_msg_t *m)
{
    vp_samples_t *b = &m->u.samples;
    disp_t *d = own_disp(k, a, b->job_id, "SAMPLES");
    if (!d)
        return;
    uint64_t last = b->first_seq + b->nsamples - 1;
    /* A batch far beyond what is acknowledged cannot come from an honest
     * agent (its window is a few hundred batches): refuse before storing. */
    if (b->first_seq > d->acked + MAX_AHEAD) {
        bad_message(k, a, "SAMPLES at seq %llu, far beyond the %llu acknowledged",
                    (unsigned long long)b->first_seq, (unsigned long long)d->acked);
        return;
    }
    if (d->final >= 0 && last > (uint64_t)d->final) {
        bad_message(k, a, "SAMPLES up to seq %llu for job id %llx, which ended at %lld",
                    (unsigned long long)last, (unsigned long long)b->job_id,
                    (long long)d->final);
        return;
    }
    d->last_heard = vc_mono_now();
    if (last > d->acked) {
        vk_intake_item_t *it = vk_intake_item_new();
        if (!it) {
            vc_error(LOG, "out of memory: batch of agent %s not stored (it is sent again)",
                     a->name);
            return;
        }
        for (uint32_t i = 0; i < b->nsamples; i++)
            b->samples[i].seq = d->seq_base + b->first_seq + i;
        step_t *s = &k->steps[d->step];
        it->agent = (int)(a - k->agents);
        snprintf(it->agent_name, sizeof it->agent_name, "%s", a->name);
        snprintf(it->job_name, sizeof it->job_name, "%s", job_name(k, s->job));
        it->job_id = d->job_id;
        it->first = b->first_seq;
        it->last = last;
        it->request_id = m->request_id;
        it->offset_ns = a->have_offset ? a->off.offset_ns : 0;
        /* The writer thread takes the samples over; m keeps nothing to free. */
        it->msg = *m;
        vp_msg_init(m, VP_SAMPLES);
        if (vk_intake_submit(k->intake, it) != VC_OK) {
            vk_intake_item_free(it);
            vc_warn(LOG, "sample writer busy: batch of agent %s not stored now (it is sent "
                         "again)",
                    a->name);
        }
        return;
    }
    /* Entirely stored already (a resend): just acknowledge again. */
    vp_msg_t ack;
    vp_msg_init(&ack, VP_ACK);
    ack.request_id = m->request_id;
    ack.u.ack.job_id = d->job_id;
    ack.u.ack.seq = d->acked;
    send_to(k, a, &ack);
}

/* A batch came back from the writer thread: acknowledge what is stored. */
static void on_stored(vk_coord_t *k, vk_intake_item_t *it)
{
    agent_t *a = &k->agents[it->agent];
    disp_t *d = disp_find(k, it->job_id);
    if (!d)
        return;
    if (it->rc == VC_ERR_PROTO) {
        bad_message(k, a, "SAMPLES batch %llu..%llu refused by the store: %s",
                    (unsigned long long)it->first, (unsigned long long)it->last, it->err);
        return;
    }
    if (it->rc) {
        vc_error(LOG,
                 "store: cannot store samples %llu..%llu of agent %s: %s (not acknowledged; "
                 "the agent will send them again)",
                 (unsigned long long)it->first, (unsigned long long)it->last, a->name, it->err);
        return;
    }
    d->stored += (int64_t)it->inserted;
    a->stored_total += (int64_t)it->inserted;
    mark_stored(d, it->first, it->last);
    vp_msg_t ack;
    vp_msg_init(&ack, VP_ACK);
    ack.request_id = it->request_id;
    ack.u.ack.job_id = d->job_id;
    ack.u.ack.seq = d->acked;
    send_to(k, a, &ack);
    settle(k, d);
}

static void collect_stored(vk_coord_t *k)
{
    vk_intake_item_t *it;
    while ((it = vk_intake_result(k->intake)) != NULL) {
        on_stored(k, it);
        vk_intake_item_free(it);
    }
}

static void on_done(vk_coord_t *k, agent_t *a, const vp_msg_t *m)
{
    const vp_done_t *dn = &m->u.done;
    disp_t *d = own_disp(k, a, dn->job_id, "DONE");
    if (!d)
        return;
    if (d->status == VK_DISPATCH_RUNNING) {
        d->status = dn->status;
        d->final = dn->samples;
        d->errors = dn->errors;
        snprintf(d->error, sizeof d->error, "%s", dn->error);
        if (vk_dispatch_end(k->ledger, d->job_id, d->status, d->final, d->errors) != VC_OK)
            vc_error(LOG, "cannot record the end of job id %llx: %s",
                     (unsigned long long)d->job_id, vk_store_errmsg(k->store));
        if (d->acked < (uint64_t)d->final)
            vc_info(LOG, "agent %s finished job id %llx (%s); waiting for %llu more samples",
                    a->name, (unsigned long long)d->job_id, vp_job_status_name(d->status),
                    (unsigned long long)((uint64_t)d->final - d->acked));
    }
    if (a->busy == (int)(d - k->disps))
        a->busy = -1;
    d->last_heard = vc_mono_now();
    vp_msg_t ack;
    vp_msg_init(&ack, VP_ACK);
    ack.request_id = m->request_id;
    ack.u.ack.job_id = d->job_id;
    ack.u.ack.seq = d->acked;
    send_to(k, a, &ack);
    settle(k, d);
}

static void agent_gone(vk_coord_t *k, agent_t *a, const char *why)
{
    a->present = 0;
    vc_warn(LOG, "agent %s %s", a->name, why);
    for (size_t i = 0; i < k->nsteps; i++)
        if (&k->agents[k->steps[i].agent] == a && k->steps[i].state == ST_RUNNING) {
            step_t *s = &k->steps[i];
            disp_t *d = &k->disps[s->disp];
            vc_warn(LOG, "job %s on agent %s incomplete for now: %lld samples stored",
                    job_name(k, s->job), a->name, (long long)d->acked);
            update_job_row(k, s->job, s->agent);
        }
}

static void handle_message(vk_coord_t *k, zmq_msg_t *idf, zmq_msg_t *body)
{
    vc_wall_ns_t t_rx = vc_wall_now();
    const void *rid = zmq_msg_data(idf);
    size_t rid_len = zmq_msg_size(idf);
    const char *key = zmq_msg_gets(body, "User-Id");
    const char *cert_name = zmq_msg_gets(body, "Name");
    agent_t *a = agent_by_rid(k, rid, rid_len);
    vp_msg_t m;
    char err[256];
    vc_status_t rc = vp_decoder_decode(k->dec, zmq_msg_data(body), zmq_msg_size(body), &m, err,
                                       sizeof err);
    if (rc) {
        if (a)
            bad_message(k, a, "%s", err);
        else
            vc_warn(LOG, "malformed message from an unregistered peer dropped: %s", err);
        return;
    }
    if (m.type == VP_HELLO) {
        if (rid_len > sizeof a->rid) {
            vp_msg_clear(&m);
            return;
        }
        on_hello(k, rid, rid_len, key, cert_name, &m);
        vp_msg_clear(&m);
        return;
    }
    if (!a) {
        vc_mono_ns_t now = vc_mono_now();
        if (now - k->unknown_logged_at > VC_NS_PER_S) {
            k->unknown_logged_at = now;
            vc_info(LOG, "%s from a peer without a session: asking it to say HELLO",
                    vp_msg_type_name(m.type));
            vp_msg_t bye;
            vp_msg_init(&bye, VP_BYE);
            snprintf(bye.u.bye.reason, sizeof bye.u.bye.reason,
                     "unknown session (the coordinator restarted?): send HELLO");
            send_raw(k, rid, rid_len, &bye);
        }
        vp_msg_clear(&m);
        return;
    }
    a->last_rx = vc_mono_now();
    switch (m.type) {
    case VP_PING: {
        vp_msg_t r;
        vp_msg_init(&r, VP_PONG);
        r.request_id = m.request_id;
        r.u.pong.t1 = m.u.ping.t1;
        r.u.pong.t2 = t_rx;
        r.u.pong.t3 = vc_wall_now();
        send_to(k, a, &r);
        break;
    }
    case VP_PONG:
        on_pong(k, a, &m.u.pong, t_rx);
        if (a->flush_rid && m.request_id == a->flush_rid)
            a->flush_rid = 0;
        break;
    case VP_SAMPLES:
        on_samples(k, a, &m);
        break;
    case VP_PROGRESS: {
        disp_t *d = own_disp(k, a, m.u.progress.job_id, "PROGRESS");
        if (d) {
            d->p_done = m.u.progress.done;
            d->p_total = m.u.progress.total;
            d->p_errors = m.u.progress.errors;
            snprintf(d->p_step, sizeof d->p_step, "%s", m.u.progress.step);
            d->last_heard = vc_mono_now();
        }
        break;
    }
    case VP_DONE:
        on_done(k, a, &m);
        break;
    case VP_BYE:
        agent_gone(k, a, "left");
        vc_info(LOG, "agent %s said: %s", a->name, m.u.bye.reason);
        break;
    default:
        bad_message(k, a, "%s is not a message an agent sends", vp_msg_type_name(m.type));
        break;
    }
    vp_msg_clear(&m);
}

static void receive_all(vk_coord_t *k)
{
    void *s = zsock_resolve(k->router);
    for (int n = 0; n < 512 && !k->fatal && !vk_intake_full(k->intake); n++) {
        zmq_msg_t idf, body;
        zmq_msg_init(&idf);
        if (zmq_msg_recv(&idf, s, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&idf);
            return;
        }
        zmq_msg_init(&body);
        if (!zmq_msg_more(&idf) || zmq_msg_recv(&body, s, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&idf);
            zmq_msg_close(&body);
            continue;
        }
        if (zmq_msg_more(&body)) {
            agent_t *a = agent_by_rid(k, zmq_msg_data(&idf), zmq_msg_size(&idf));
            int more = 1;
            while (more) {
                zmq_msg_t x;
                zmq_msg_init(&x);
                if (zmq_msg_recv(&x, s, ZMQ_DONTWAIT) < 0) {
                    zmq_msg_close(&x);
                    break;
                }
                more = zmq_msg_more(&x);
                zmq_msg_close(&x);
            }
            if (a)
                bad_message(k, a, "multipart message (the protocol has one frame)");
        } else {
            handle_message(k, &idf, &body);
        }
        zmq_msg_close(&idf);
        zmq_msg_close(&body);
    }
}

/* ------------------------------------------------------------ scheduling */

static int step_final(const step_t *s)
{
    return s->state == ST_DONE || s->state == ST_FAILED || s->state == ST_INCOMPLETE;
}

/* Runs late or resumed steps of agents that are back and idle. */
static void run_missed(vk_coord_t *k)
{
    for (size_t i = 0; i < k->nsteps && !k->fatal; i++) {
        step_t *s = &k->steps[i];
        if (s->state != ST_MISSED)
            continue;
        if ((size_t)s->job > k->cur_job || ((size_t)s->job == k->cur_job && s->wave > k->cur_wave))
            continue;
        agent_t *a = &k->agents[s->agent];
        if (a->present && a->busy < 0)
            dispatch(k, (int)i, 0);
    }
}

/* Whether every step of the current wave is over or waits on an absent agent. */
static int wave_over(vk_coord_t *k)
{
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if ((size_t)s->job != k->cur_job || s->wave != k->cur_wave || step_final(s))
            continue;
        if (k->agents[s->agent].present)
            return 0;
    }
    return 1;
}

static int wave_exists(vk_coord_t *k, size_t job, int wave)
{
    for (size_t i = 0; i < k->nsteps; i++)
        if ((size_t)k->steps[i].job == job && k->steps[i].wave == wave)
            return 1;
    return 0;
}

static void start_wave(vk_coord_t *k)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if ((size_t)s->job == k->cur_job && s->wave == k->cur_wave && s->state == ST_PENDING)
            n++;
    }
    vc_wall_ns_t start = 0;
    if (n > 1)
        start = vc_wall_now() + vc_campaign_start_lead_ms(k->c) * VC_NS_PER_MS;
    for (size_t i = 0; i < k->nsteps && !k->fatal; i++) {
        step_t *s = &k->steps[i];
        if ((size_t)s->job != k->cur_job || s->wave != k->cur_wave || s->state != ST_PENDING)
            continue;
        agent_t *a = &k->agents[s->agent];
        if (a->present && a->busy < 0) {
            dispatch(k, (int)i, start);
        } else {
            s->state = ST_MISSED;
            vc_warn(LOG, "job %s: agent %s is %s; its part runs when it is back",
                    job_name(k, s->job), a->name, a->present ? "busy" : "not connected");
            update_job_row(k, s->job, s->agent);
        }
    }
    k->wave_started = 1;
}

/* Advances the schedule; returns 1 when the campaign is over. */
static int schedule(vk_coord_t *k, vc_mono_ns_t now)
{
    size_t njobs = vc_campaign_job_count(k->c);
    run_missed(k);
    while (k->cur_job < njobs) {
        if (!k->wave_started) {
            /* A wave waits for agents that are there but still busy. */
            for (size_t i = 0; i < k->nsteps; i++) {
                step_t *s = &k->steps[i];
                if ((size_t)s->job == k->cur_job && s->wave == k->cur_wave &&
                    s->state == ST_PENDING && k->agents[s->agent].present &&
                    k->agents[s->agent].busy >= 0)
                    return 0;
            }
            start_wave(k);
        }
        if (!wave_over(k))
            return 0;
        k->wave_started = 0;
        if (wave_exists(k, k->cur_job, k->cur_wave + 1)) {
            k->cur_wave++;
        } else {
            k->cur_job++;
            k->cur_wave = 0;
        }
    }
    /* Every wave was started: wait for late steps and absent agents. */
    int open = 0, blocked = 1;
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if (step_final(s))
            continue;
        open = 1;
        if (k->agents[s->agent].present)
            blocked = 0;
    }
    for (size_t i = 0; i < k->ndisps; i++) {
        disp_t *d = &k->disps[i];
        /* Samples of an ended dispatch still on their way from a present agent. */
        if (!d->settled && d->step >= 0 && d->status != VK_DISPATCH_RUNNING &&
            k->agents[k->steps[d->step].agent].present) {
            open = 1;
            blocked = 0;
        }
    }
    if (!open)
        return 1;
    if (!blocked) {
        k->stalled_since = 0;
        return 0;
    }
    if (!k->stalled_since) {
        k->stalled_since = now;
        vc_warn(LOG, "only absent agents have work left: waiting up to %.0f s for them to "
                     "come back",
                (double)k->o.rejoin_wait_ms / 1000);
    }
    return now - k->stalled_since >= k->o.rejoin_wait_ms * VC_NS_PER_MS;
}

/* ------------------------------------------------------------- periodic */

static void heartbeats(vk_coord_t *k, vc_mono_ns_t now)
{
    for (size_t i = 0; i < k->nagents; i++) {
        agent_t *a = &k->agents[i];
        if (!a->present)
            continue;
        if (now - a->last_rx > k->o.lost_after_ms * VC_NS_PER_MS) {
            char why[96];
            snprintf(why, sizeof why, "lost: silent for %.1f s", (double)(now - a->last_rx) / 1e9);
            agent_gone(k, a, why);
            continue;
        }
        if (now >= a->next_ping) {
            vp_msg_t m;
            vp_msg_init(&m, VP_PING);
            m.request_id = ++k->rid;
            m.u.ping.t1 = vc_wall_now();
            send_to(k, a, &m);
            if (a->burst > 0) {
                a->burst--;
                a->next_ping = now + PING_BURST_GAP_MS * VC_NS_PER_MS;
            } else {
                a->next_ping = now + k->o.heartbeat_ms * VC_NS_PER_MS;
            }
        }
        if (a->busy >= 0) {
            disp_t *d = &k->disps[a->busy];
            if (d->status == VK_DISPATCH_RUNNING &&
                now - d->last_heard > JOB_RESEND_MS * VC_NS_PER_MS)
                resend_job(k, d);
        }
    }
}

static void show_progress(vk_coord_t *k, vc_mono_ns_t now, int force)
{
    vk_progress_row_t rows[VC_CAMPAIGN_MAX_AGENTS];
    size_t n = 0;
    for (size_t i = 0; i < k->nagents && n < VC_CAMPAIGN_MAX_AGENTS; i++) {
        agent_t *a = &k->agents[i];
        if (!a->needed)
            continue;
        if (now - a->rate_at >= VC_NS_PER_S) {
            double dt = a->rate_at ? (double)(now - a->rate_at) / 1e9 : 0;
            double inst = dt > 0 ? (double)(a->stored_total - a->rate_mark) / dt : 0;
            a->rate = a->rate_at ? 0.5 * a->rate + 0.5 * inst : inst;
            a->rate_mark = a->stored_total;
            a->rate_at = now;
        }
        vk_progress_row_t *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->agent = a->name;
        r->job = "";
        r->step = "";
        r->total = -1;
        r->rate = a->rate;
        disp_t *d = a->busy >= 0 ? &k->disps[a->busy] : NULL;
        r->state = !a->present ? "lost" : d ? "running" : "idle";
        if (d) {
            r->job = job_name(k, k->steps[d->step].job);
            r->done = d->p_done;
            r->total = d->p_total;
            r->errors = d->p_errors;
            r->stored = (int64_t)d->acked;
            r->step = d->p_step;
        }
    }
    vk_progress_update(k->progress, rows, n, force);
}

/* ------------------------------------------------------------- lifecycle */

void vk_coord_opts_init(vk_coord_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->wait_agents_ms = -1;
    o->heartbeat_ms = 1000;
    o->lost_after_ms = 10000;
    o->rejoin_wait_ms = 60000;
    o->progress_tty = -1;
}

static vc_status_t load_plan(vk_coord_t *k, char *err, size_t errlen)
{
    size_t njobs = vc_campaign_job_count(k->c);
    for (size_t j = 0; j < njobs; j++) {
        vc_plan_step_t *ps = NULL;
        size_t n = 0;
        vc_status_t rc = vc_plan_job(k->c, j, &ps, &n);
        if (rc) {
            snprintf(err, errlen, "cannot plan job %s: %s", vc_campaign_job(k->c, j)->job.id,
                     vc_strerror(rc));
            return rc;
        }
        step_t *p = realloc(k->steps, (k->nsteps + n) * sizeof *p);
        if (!p) {
            free(ps);
            snprintf(err, errlen, "out of memory");
            return VC_ERR_NOMEM;
        }
        k->steps = p;
        for (size_t i = 0; i < n; i++) {
            step_t *s = &k->steps[k->nsteps++];
            memset(s, 0, sizeof *s);
            s->job = (int)j;
            s->wave = ps[i].wave;
            s->agent = ps[i].agent;
            s->spec = ps[i].job;
            s->planned = ps[i].job.count;
            s->state = ST_PENDING;
            s->disp = -1;
            if (s->agent >= 0 && (size_t)s->agent < k->nagents)
                k->agents[s->agent].needed = 1;
        }
        free(ps);
    }
    return VC_OK;
}

/* Rebuilds steps and dispatches from what an earlier run left in the store. */
static vc_status_t resume(vk_coord_t *k, char *err, size_t errlen)
{
    size_t n = vk_dispatch_count(k->ledger), resumed = 0;
    for (size_t i = 0; i < n; i++) {
        const vk_dispatch_t *r = vk_dispatch_get(k->ledger, i);
        int si = step_find(k, r->job, r->agent, r->slice);
        disp_t *d = disp_push(k);
        if (!d) {
            snprintf(err, errlen, "out of memory");
            return VC_ERR_NOMEM;
        }
        d->job_id = r->job_id;
        d->step = si;
        d->seq_base = r->seq_base;
        d->status = r->status;
        d->final = r->final_seq;
        d->errors = r->errors;
        uint64_t stored = 0;
        vk_store_acked_seq(k->store, r->agent, r->job, &stored);
        d->acked = stored > r->seq_base ? stored - r->seq_base : 0;
        if (d->final >= 0 && d->acked > (uint64_t)d->final)
            d->acked = (uint64_t)d->final;
        if (si < 0) {
            d->settled = 1; /* the campaign no longer has that step: only accept resends */
            continue;
        }
        step_t *s = &k->steps[si];
        s->disp = (int)(d - k->disps);
        s->state = ST_RUNNING;
        resumed++;
    }
    /* Apply outcomes in order, so a later dispatch of a step wins. */
    for (size_t i = 0; i < k->ndisps; i++) {
        disp_t *d = &k->disps[i];
        if (d->step < 0 || d->settled)
            continue;
        step_t *s = &k->steps[d->step];
        if (s->disp != (int)i) {
            /* Superseded: its remainder was sent again; count what it did. */
            if (count_based(s->spec.kind) && d->final > 0)
                s->spec.count -= d->final;
            d->settled = 1;
            continue;
        }
        settle(k, d);
    }
    if (resumed)
        vc_info(LOG, "resuming campaign %s from %s: %zu earlier dispatches", vc_campaign_name(k->c),
                vk_store_path(k->store), resumed);
    /* Position the scheduler at the first wave with a step never sent. */
    k->cur_job = vc_campaign_job_count(k->c);
    k->cur_wave = 0;
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if (s->state != ST_PENDING)
            continue;
        if ((size_t)s->job < k->cur_job || ((size_t)s->job == k->cur_job && s->wave < k->cur_wave)) {
            k->cur_job = (size_t)s->job;
            k->cur_wave = s->wave;
        }
    }
    /* Steps before that position that never ran (a half-started wave). */
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if (s->state == ST_PENDING &&
            ((size_t)s->job < k->cur_job || ((size_t)s->job == k->cur_job && s->wave < k->cur_wave)))
            s->state = ST_MISSED;
    }
    return VC_OK;
}

vk_coord_t *vk_coord_new(const vk_coord_opts_t *o, const vc_campaign_t *c, char *err,
                         size_t errlen)
{
    vk_coord_t *k = NULL;
    if (!o->bind || !o->out_dir || !c) {
        snprintf(err, errlen, "the coordinator needs a campaign, --bind and --out");
        return NULL;
    }
    if (o->insecure && !vc_endpoint_is_local(o->bind)) {
        snprintf(err, errlen,
                 "refusing to listen without encryption on %s: --insecure is only for "
                 "loopback (tcp://127.0.0.1:PORT); use --keys and --allow for other addresses",
                 o->bind);
        return NULL;
    }
    if (!o->insecure && (!o->secret_file || !o->allow_dir)) {
        snprintf(err, errlen,
                 "CURVE keys needed: the coordinator's key pair (--keys DIR with "
                 "coordinator.key_secret) and an allow-list directory of agent public keys "
                 "(--allow DIR); or --insecure on loopback");
        return NULL;
    }
    if (o->heartbeat_ms < 10 || o->lost_after_ms < 2 * o->heartbeat_ms || o->rejoin_wait_ms < 0) {
        snprintf(err, errlen, "invalid timing: heartbeat >= 10 ms, lost-after >= 2 x heartbeat");
        return NULL;
    }
    k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    k->o = *o;
    k->c = c;
    snprintf(k->out_dir, sizeof k->out_dir, "%s", o->out_dir);
    msgpack_sbuffer_init(&k->sbuf);
    k->nagents = vc_campaign_agent_count(c);
    k->agents = calloc(k->nagents ? k->nagents : 1, sizeof *k->agents);
    k->dec = vp_decoder_new();
    k->progress = vk_progress_new(o->progress_tty);
    if (!k->agents || !k->dec || !k->progress) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < k->nagents; i++) {
        agent_t *a = &k->agents[i];
        const vc_campaign_agent_t *ca = vc_campaign_agent(c, i);
        snprintf(a->name, sizeof a->name, "%s", ca->name);
        snprintf(a->site, sizeof a->site, "%s", ca->site);
        a->busy = -1;
        if (!(a->clk = vc_clockoff_new(8))) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    if (load_plan(k, err, errlen) != VC_OK)
        goto fail;

    char serr[512];
    if (vk_store_open(o->out_dir, VK_STORE_CREATE, &k->store, serr, sizeof serr) != VC_OK) {
        snprintf(err, errlen, "%s", serr);
        goto fail;
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *mem = open_memstream(&text, &tlen);
    if (mem) {
        vc_campaign_write(c, mem);
        fclose(mem);
    }
    vc_status_t rc = vk_store_campaign_begin(k->store, vc_campaign_name(c), text ? text : "",
                                             vc_wall_now());
    free(text);
    if (rc == VC_ERR_MISMATCH) {
        snprintf(err, errlen,
                 "%s holds another campaign's results; give campaign %s its own --out directory",
                 vk_store_path(k->store), vc_campaign_name(c));
        goto fail;
    }
    if (rc) {
        snprintf(err, errlen, "cannot record the campaign in %s: %s", vk_store_path(k->store),
                 vk_store_errmsg(k->store));
        goto fail;
    }
    for (size_t i = 0; i < vc_campaign_target_count(c); i++)
        vk_store_target(k->store, vc_campaign_target(c, i));
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        vk_job_row_t row;
        const char *jn = job_name(k, s->job), *an = k->agents[s->agent].name;
        if (vk_store_job_get(k->store, jn, an, &row) == VC_ERR_NOTFOUND) {
            char *json = vc_job_to_json(&vc_campaign_job(c, (size_t)s->job)->job, 0);
            vk_store_job(k->store, jn, an, VK_JOB_PENDING, json, -1);
            free(json);
        }
    }
    if (!(k->ledger = vk_dispatch_open(k->store, serr, sizeof serr))) {
        snprintf(err, errlen, "%s", serr);
        goto fail;
    }
    if (resume(k, err, errlen) != VC_OK)
        goto fail;
    if (!(k->intake = vk_intake_new(o->out_dir, INTAKE_QUEUE, serr, sizeof serr))) {
        snprintf(err, errlen, "%s", serr);
        goto fail;
    }

    if (!o->insecure && !(k->auth = vk_auth_new(o->allow_dir, err, errlen)))
        goto fail;
    k->router = zsock_new(ZMQ_ROUTER);
    if (!k->router) {
        snprintf(err, errlen, "cannot create a ZeroMQ socket");
        goto fail;
    }
    zsock_set_maxmsgsize(k->router, (int)VP_MAX_MSG_SIZE);
    zsock_set_router_handover(k->router, 1);
    zsock_set_router_mandatory(k->router, 1);
    zsock_set_sndhwm(k->router, 10000);
    zsock_set_rcvhwm(k->router, 10000);
    /* Time for the last ACKs and BYEs to leave when the campaign ends. */
    zsock_set_linger(k->router, 2000);
    if (!o->insecure && vk_auth_apply_server(k->router, o->secret_file, err, errlen) != VC_OK)
        goto fail;
    int port = zsock_bind(k->router, "%s", o->bind);
    if (port < 0) {
        snprintf(err, errlen, "cannot listen on %s: %s (address in use, or not this host's?)",
                 o->bind, zmq_strerror(zmq_errno()));
        goto fail;
    }
    const char *last = zsock_endpoint(k->router);
    snprintf(k->endpoint, sizeof k->endpoint, "%s", last ? last : o->bind);
    /* zsock_endpoint keeps the wildcard: print the address agents can use. */
    char *star = strstr(k->endpoint, ":*");
    if (star && port > 0)
        snprintf(star, sizeof k->endpoint - (size_t)(star - k->endpoint), ":%d", port);
    return k;
fail:
    vk_coord_destroy(&k);
    return NULL;
}

void vk_coord_destroy(vk_coord_t **p)
{
    if (!p || !*p)
        return;
    vk_coord_t *k = *p;
    zsock_destroy(&k->router);
    vk_auth_destroy(&k->auth);
    vk_intake_destroy(&k->intake);
    vk_dispatch_destroy(&k->ledger);
    vk_store_destroy(&k->store);
    for (size_t i = 0; i < k->nagents; i++)
        vc_clockoff_destroy(&k->agents[i].clk);
    for (size_t i = 0; i < k->ndisps; i++)
        free(k->disps[i].ranges);
    free(k->disps);
    free(k->steps);
    free(k->agents);
    vp_decoder_destroy(&k->dec);
    vk_progress_destroy(&k->progress);
    msgpack_sbuffer_destroy(&k->sbuf);
    free(k);
    *p = NULL;
}

const char *vk_coord_endpoint(const vk_coord_t *k) { return k->endpoint; }
void vk_coord_stop(vk_coord_t *k) { atomic_store(&k->stop, 1); }
const char *vk_coord_error(const vk_coord_t *k) { return k->error; }

/* Before the first wave: every agent with work must be there. */
static int agents_ready(vk_coord_t *k, vc_mono_ns_t started, int64_t wait_ms)
{
    char missing[1024] = "";
    size_t nmiss = 0;
    for (size_t i = 0; i < k->nagents; i++) {
        agent_t *a = &k->agents[i];
        int work = 0;
        for (size_t j = 0; j < k->nsteps && !work; j++)
            work = k->steps[j].agent == (int)i && !step_final(&k->steps[j]);
        if (!work || a->present)
            continue;
        size_t l = strlen(missing);
        snprintf(missing + l, sizeof missing - l, "%s%s", nmiss ? ", " : "", a->name);
        nmiss++;
    }
    if (!nmiss)
        return 1;
    if (vc_mono_now() - started >= wait_ms * VC_NS_PER_MS)
        set_fatal(k, VC_ERR_TIMEOUT,
                  "gave up after %.0f s waiting for %zu agent(s) of campaign %s: %s (are they "
                  "started with --connect %s and the right keys?)",
                  (double)wait_ms / 1000, nmiss, vc_campaign_name(k->c), missing, k->endpoint);
    return 0;
}

static vc_status_t summarize(vk_coord_t *k)
{
    size_t done = 0, other = 0;
    k->ended = 1;
    for (size_t i = 0; i < k->nsteps; i++) {
        step_t *s = &k->steps[i];
        if (s->state == ST_DONE) {
            done++;
            continue;
        }
        other++;
        if (s->state == ST_RUNNING || s->state == ST_MISSED || s->state == ST_PENDING) {
            s->state = ST_INCOMPLETE;
            update_job_row(k, s->job, s->agent);
        }
    }
    size_t njobs = vc_campaign_job_count(k->c);
    for (size_t j = 0; j < njobs; j++)
        for (size_t a = 0; a < k->nagents; a++) {
            vk_job_row_t row;
            if (vk_store_job_get(k->store, job_name(k, (int)j), k->agents[a].name, &row) != VC_OK)
                continue;
            vc_info(LOG, "job %-16s agent %-16s %-9s %lld samples stored%s%s", row.job, row.agent,
                    vk_job_status_name(row.status), (long long)row.received,
                    row.error_text[0] ? ": " : "", row.error_text);
        }
    for (size_t i = 0; i < k->nsteps; i++)
        if (k->steps[i].state != ST_DONE)
            vc_warn(LOG, "step %zu (job %s, agent %s, slice %d) ended %s", i,
                    job_name(k, k->steps[i].job), k->agents[k->steps[i].agent].name,
                    k->steps[i].spec.slice, step_names[k->steps[i].state]);
    for (size_t i = 0; i < k->nagents; i++)
        if (k->agents[i].bad_count)
            vc_warn(LOG, "agent %s: %u messages rejected (malformed, oversized or unexpected)",
                    k->agents[i].name, k->agents[i].bad_count);
    vc_info(LOG, "campaign %s: %zu of %zu steps complete; results in %s", vc_campaign_name(k->c),
            done, done + other, vk_store_path(k->store));
    return other ? VC_ERR_MISMATCH : VC_OK;
}

/* Before leaving: a PING to every agent, and up to 2 s for the PONGs. An
 * agent answers in order, so its PONG means it has read the last ACKs;
 * without this they could still be in a socket queue when the process ends. */
static void flush_agents(vk_coord_t *k)
{
    int waiting = 0;
    for (size_t i = 0; i < k->nagents; i++) {
        agent_t *a = &k->agents[i];
        a->flush_rid = 0;
        if (!a->present)
            continue;
        vp_msg_t m;
        vp_msg_init(&m, VP_PING);
        m.request_id = ++k->rid;
        m.u.ping.t1 = vc_wall_now();
        if (send_to(k, a, &m) == 0) {
            a->flush_rid = m.request_id;
            waiting++;
        }
    }
    vc_mono_ns_t deadline = vc_mono_now() + 2 * VC_NS_PER_S;
    while (waiting && vc_mono_now() < deadline) {
        zmq_pollitem_t it = {zsock_resolve(k->router), 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 20) > 0)
            receive_all(k);
        collect_stored(k);
        waiting = 0;
        for (size_t i = 0; i < k->nagents; i++)
            waiting += k->agents[i].present && k->agents[i].flush_rid != 0;
    }
}

vc_status_t vk_coord_run(vk_coord_t *k)
{
    vc_info(LOG, "campaign %s: listening on %s%s", vc_campaign_name(k->c), k->endpoint,
            k->o.insecure ? " WITHOUT encryption (--insecure)" : " (CURVE)");
    int64_t wait_ms = k->o.wait_agents_ms >= 0 ? k->o.wait_agents_ms
                                               : vc_campaign_agent_wait_ms(k->c);
    vc_mono_ns_t started = vc_mono_now();
    vc_status_t result = VC_OK;
    int finished = 0;
    while (!k->fatal) {
        if (atomic_load(&k->stop)) {
            /* Asked for, not a failure: say how to go on. */
            k->fatal = VC_ERR_CANCELLED;
            snprintf(k->error, sizeof k->error,
                     "stopped; run the same command again to resume the campaign");
            vc_info(LOG, "%s", k->error);
            break;
        }
        /* While the writer's queue is full the socket is left alone, so
         * ZeroMQ's queues, then the agents' windows, hold the rest. */
        zmq_pollitem_t it[2] = {
            {NULL, vk_intake_fd(k->intake), ZMQ_POLLIN, 0},
            {zsock_resolve(k->router), 0, ZMQ_POLLIN, 0},
        };
        int rc = zmq_poll(it, vk_intake_full(k->intake) ? 1 : 2, 20);
        if (rc < 0 && zmq_errno() != EINTR) {
            set_fatal(k, VC_ERR_NET, "poll failed: %s", zmq_strerror(zmq_errno()));
            break;
        }
        collect_stored(k);
        if (rc > 0)
            receive_all(k);
        vc_mono_ns_t now = vc_mono_now();
        heartbeats(k, now);
        if (!k->waited_agents) {
            if (!agents_ready(k, started, wait_ms))
                continue;
            k->waited_agents = 1;
            vc_info(LOG, "all agents of campaign %s are here", vc_campaign_name(k->c));
        }
        if (k->fatal)
            break;
        if (schedule(k, now)) {
            finished = 1;
            break;
        }
        show_progress(k, now, 0);
    }
    show_progress(k, vc_mono_now(), 1);
    vk_progress_finish(k->progress);
    if (finished) {
        result = summarize(k);
        vk_store_campaign_end(k->store, vc_wall_now());
    }
    if (finished)
        flush_agents(k);
    /* Agents stay up for the next campaign: tell them this one is over. */
    for (size_t i = 0; i < k->nagents; i++) {
        agent_t *a = &k->agents[i];
        if (!a->present)
            continue;
        vp_msg_t m;
        vp_msg_init(&m, VP_BYE);
        snprintf(m.u.bye.reason, sizeof m.u.bye.reason, "%s",
                 finished ? "campaign finished" : "coordinator stopping");
        send_to(k, a, &m);
    }
    return k->fatal ? k->fatal : result;
}
