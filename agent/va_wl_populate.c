/* va_wl_populate: N objects under a prefix, aisloader style, idempotent. */
#include "va_wl_populate.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "va_drive.h"
#include "va_target.h"
#include "va_wl.h"
#include "vc_log.h"

#define COMP "populate"
#define MAX_WORKERS 1024
#define MAX_COUNT INT64_C(1000000000)         /* sequential: a bitmap of 125 MB at most */
#define MAX_SIZE (INT64_C(1) << 30)           /* bodies come from memory */
#define NAME_MAX_LEN (VC_PREFIX_MAX + 40)

/* ---- names and plan ---- */

vc_status_t va_wl_populate_name(char *out, size_t outlen, const char *prefix, int sequential,
                                int64_t index, uint64_t *rng)
{
    if (!sequential)
        return va_ais_random_name(out, outlen, prefix, rng);
    if (index < 0 || index >= INT64_C(10000000000))
        return VC_ERR_ARG;
    int n = snprintf(out, outlen, "%s%0*" PRId64, prefix, VA_WL_SEQ_DIGITS, index);
    return n < 0 || (size_t)n >= outlen ? VC_ERR_ARG : VC_OK;
}

vc_status_t va_wl_plan_init(va_wl_plan_t *p, int64_t wanted, int sequential)
{
    memset(p, 0, sizeof *p);
    p->wanted = wanted > 0 ? wanted : 0;
    p->sequential = sequential;
    if (sequential && p->wanted && !(p->have = calloc((size_t)(p->wanted + 7) / 8, 1)))
        return VC_ERR_NOMEM;
    return VC_OK;
}

/* The index of a sequential name, -1 when key is not one. */
static int64_t seq_index(const char *prefix, const char *key)
{
    size_t pl = strlen(prefix);
    if (strncmp(key, prefix, pl) != 0 || strlen(key + pl) != VA_WL_SEQ_DIGITS)
        return -1;
    int64_t v = 0;
    for (const char *c = key + pl; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        v = v * 10 + (*c - '0');
    }
    return v;
}

void va_wl_plan_see(va_wl_plan_t *p, const char *prefix, const char *key)
{
    if (!p->sequential) {
        p->present++;
        return;
    }
    int64_t i = seq_index(prefix, key);
    if (i < 0 || i >= p->wanted) {
        p->others++;
        return;
    }
    uint8_t bit = (uint8_t)(1u << (i & 7));
    if (!(p->have[i >> 3] & bit)) {
        p->have[i >> 3] |= bit;
        p->present++;
    }
}

vc_status_t va_wl_plan_finish(va_wl_plan_t *p)
{
    p->to_add = p->present >= p->wanted ? 0 : p->wanted - p->present;
    return VC_OK;
}

int va_wl_plan_has(const va_wl_plan_t *p, int64_t index)
{
    if (!p->sequential || index < 0 || index >= p->wanted)
        return 0;
    return (p->have[index >> 3] >> (index & 7)) & 1;
}

void va_wl_plan_clear(va_wl_plan_t *p)
{
    free(p->have);
    memset(p, 0, sizeof *p);
}

/* ---- the run ---- */

typedef struct {
    const vc_job_t *job;
    va_wl_t *wl;
    const va_wl_plan_t *plan;
    const char *data;
    atomic_llong next;        /* random: ordinal of the next object; sequential: next index */
    atomic_llong written;     /* objects attempted, against plan->to_add */
    atomic_int consecutive;   /* failed PUTs in a row, all workers */
    atomic_int stop;          /* set when the failure limit is reached */
    int fail_limit;
    pthread_mutex_t mu;
    char first_err[512];      /* the error that stopped the run */
    struct worker_t *ws;
} pop_t;

typedef struct worker_t {
    pop_t *pop;
    int index;
    va_target_t *client;
    uint64_t rng;
    char name[NAME_MAX_LEN]; /* the object being written */
    vc_sample_t s;
} worker_t;

/* Counts a PUT's outcome against the failure streak and emits its sample. */
static void put_done(pop_t *p, worker_t *w, vc_status_t rc)
{
    if (rc == VC_OK) {
        atomic_store(&p->consecutive, 0);
    } else if (atomic_fetch_add(&p->consecutive, 1) + 1 >= p->fail_limit) {
        pthread_mutex_lock(&p->mu);
        if (!atomic_load(&p->stop)) {
            snprintf(p->first_err, sizeof p->first_err, "%s", va_target_error(w->client));
            atomic_store(&p->stop, 1);
        }
        pthread_mutex_unlock(&p->mu);
    }
    va_wl_emit(p->wl, &w->s, 0);
}

/* va_drive: begins worker wi's next PUT; NULL when there is nothing left. */
static va_http_t *pop_next(void *ud, int wi)
{
    pop_t *p = ud;
    worker_t *w = &p->ws[wi];
    const vc_job_t *job = p->job;
    for (;;) {
        if (atomic_load(&p->stop))
            return NULL;
        int64_t k = atomic_fetch_add(&p->next, 1);
        if (p->plan->sequential) {
            /* walk the indices, writing the ones the listing did not show */
            if (k >= p->plan->wanted)
                return NULL;
            if (va_wl_plan_has(p->plan, k))
                continue;
        } else if (k >= p->plan->to_add) {
            return NULL;
        }
        if (va_wl_populate_name(w->name, sizeof w->name, job->prefix, p->plan->sequential, k,
                                &w->rng) != VC_OK)
            return NULL; /* checked before the run: cannot happen */
        vc_sample_init(&w->s);
        VC_SAMPLE_SET(&w->s, label, job->prefix);
        w->s.scale = job->object_size;
        w->s.run = (int32_t)(k > INT32_MAX ? INT32_MAX : k);
        w->s.worker = w->index;
        va_target_obj_t o = {.op = VC_OP_PUT, .key = w->name, .data = p->data,
                             .len = (size_t)job->object_size};
        vc_status_t rc = va_target_begin(w->client, &o, &w->s);
        if (rc == VC_OK)
            return va_target_http(w->client);
        put_done(p, w, rc); /* failed before it was sent: the sample says why */
    }
}

/* va_drive: worker wi's PUT ended. */
static void pop_end(void *ud, int wi, va_drive_end_t how)
{
    pop_t *p = ud;
    worker_t *w = &p->ws[wi];
    vc_status_t rc = va_target_end(w->client);
    if (how == VA_DRIVE_DROPPED) {
        vc_sample_clear(&w->s); /* cancelled in flight: nothing measured */
        return;
    }
    if (how == VA_DRIVE_FAILED) {
        rc = VC_ERR_INTERNAL;
        w->s.err_class = VC_EC_OTHER;
        VC_SAMPLE_SET(&w->s, err_code, "Internal");
        VC_SAMPLE_SET(&w->s, err_msg, "the request could not run (request loop failure)");
    }
    put_done(p, w, rc);
}

static int pop_cancelled(void *ud)
{
    pop_t *p = ud;
    return va_wl_cancelled(p->wl) || atomic_load(&p->stop);
}

static int see_key(void *ud, const char *key)
{
    void **a = ud;
    va_wl_plan_see(a[0], a[1], key);
    return 0;
}

static vc_status_t check(const vc_job_t *job, char *err, size_t errlen)
{
    if (job->count < 0 || job->count > MAX_COUNT) {
        snprintf(err, errlen, "populate: count %" PRId64 " is out of range (0..%" PRId64 ")",
                 job->count, MAX_COUNT);
        return VC_ERR_ARG;
    }
    if (job->object_size < 0 || job->object_size > MAX_SIZE) {
        snprintf(err, errlen, "populate: object_size %" PRId64 " is out of range (0..%" PRId64 ")",
                 job->object_size, MAX_SIZE);
        return VC_ERR_ARG;
    }
    if (job->workers < 1 || job->workers > MAX_WORKERS) {
        snprintf(err, errlen, "populate: workers %d is out of range (1..%d)", job->workers,
                 MAX_WORKERS);
        return VC_ERR_ARG;
    }
    if (strlen(job->prefix) + 33 > 1024) {
        snprintf(err, errlen, "populate: prefix '%.60s...' leaves no room for object names",
                 job->prefix);
        return VC_ERR_ARG;
    }
    return VC_OK;
}

vc_status_t va_wl_populate(const vc_job_t *job, const va_workload_env_t *env, char *err,
                           size_t errlen)
{
    vc_status_t rc = check(job, err, errlen);
    if (rc)
        return rc;
    va_target_opts_t to = {.timeout_ms = job->timeout_ms, .ais_skip_vc = 1};
    va_wl_plan_t plan;
    pop_t p = {.job = job};
    worker_t *ws = NULL;
    char *data = NULL;
    int nw = job->workers;
    va_wl_t *wl = NULL;
    pthread_mutex_init(&p.mu, NULL);
    if ((rc = va_wl_plan_init(&plan, job->count, job->sequential_names)) != VC_OK) {
        snprintf(err, errlen, "populate: out of memory for %" PRId64 " names", job->count);
        pthread_mutex_destroy(&p.mu);
        return rc;
    }
    ws = calloc((size_t)nw, sizeof *ws);
    data = malloc(job->object_size > 0 ? (size_t)job->object_size : 1);
    wl = va_wl_new(job, env, "populate", 1);
    if (!ws || !data || !wl) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "populate: out of memory");
        goto done;
    }
    /* random bytes like aisloader's, so nothing on the path can compress them */
    uint64_t fill = va_ais_rng_seed();
    for (int64_t i = 0; i < job->object_size; i++) {
        fill += UINT64_C(0x9e3779b97f4a7c15);
        data[i] = (char)((fill ^ (fill >> 29)) * UINT64_C(0xbf58476d1ce4e5b9) >> 56);
    }
    for (int i = 0; i < nw; i++) {
        ws[i].pop = &p;
        ws[i].index = i;
        ws[i].rng = va_ais_rng_seed() ^ ((uint64_t)i << 48);
        if (!(ws[i].client = va_target_new(&job->target, &to, err, errlen))) {
            rc = VC_ERR_CONFIG;
            goto done;
        }
    }

    /* what is there already: one listing */
    void *ud[2] = {&plan, (void *)job->prefix};
    rc = va_target_list(ws[0].client, job->prefix, job->page_size, see_key, ud, env->cancel, NULL);
    if (rc == VC_ERR_CANCELLED && va_wl_cancelled(wl))
        goto done;
    if (rc) {
        snprintf(err, errlen, "populate: cannot count the objects under '%s': %s", job->prefix,
                 va_target_error(ws[0].client));
        goto done;
    }
    if ((rc = va_wl_plan_finish(&plan)) != VC_OK) {
        snprintf(err, errlen, "populate: cannot plan %" PRId64 " names", job->count);
        goto done;
    }
    if (plan.present > plan.wanted || plan.others)
        vc_warn(COMP, "'%s' on %s already holds %" PRId64 " objects%s%" PRId64
                      " other keys; %" PRId64 " wanted: listings of it will not count %" PRId64,
                job->prefix, va_target_where(ws[0].client), plan.present,
                plan.others ? " and " : "", plan.others, plan.wanted, plan.wanted);
    vc_info(COMP, "'%s' on %s: %" PRId64 " of %" PRId64 " present, adding %" PRId64
                  " with %d workers",
            job->prefix, va_target_where(ws[0].client), plan.present, plan.wanted, plan.to_add,
            nw);

    p.wl = wl;
    p.plan = &plan;
    p.data = data;
    p.fail_limit = nw * 4 > 100 ? nw * 4 : 100;
    va_wl_set_total(wl, plan.to_add);
    va_wl_progress(wl, 1);
    if (nw > plan.to_add)
        nw = plan.to_add > 0 ? (int)plan.to_add : 0;
    p.ws = ws;
    va_drive_t d = {.nworkers = nw, .next = pop_next, .end = pop_end,
                    .cancelled = pop_cancelled, .ud = &p};
    if (nw > 0 && va_drive_run(&d) != VC_OK) {
        rc = VC_ERR_INTERNAL;
        snprintf(err, errlen, "populate: the request loop failed (see the agent's log)");
        goto done;
    }
    va_wl_progress(wl, 1);
    if (atomic_load(&p.stop)) {
        rc = VC_ERR_SERVER;
        snprintf(err, errlen,
                 "populate: stopped after %d failed PUTs in a row under '%s' (%" PRId64
                 " written): %s",
                 p.fail_limit, job->prefix, va_wl_done(wl) - va_wl_errors(wl), p.first_err);
    } else if (va_wl_cancelled(wl)) {
        rc = VC_ERR_CANCELLED;
        snprintf(err, errlen, "populate: cancelled");
    }
done:
    for (int i = 0; ws && i < job->workers; i++)
        va_target_destroy(&ws[i].client);
    va_wl_destroy(&wl);
    va_wl_plan_clear(&plan);
    pthread_mutex_destroy(&p.mu);
    free(ws);
    free(data);
    return rc;
}
