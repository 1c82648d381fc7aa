/* va_wl_populate: N objects under a prefix, aisloader style, idempotent. */
#include "va_wl_populate.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
} pop_t;

typedef struct {
    pop_t *pop;
    int index;
    va_target_t *client;
    uint64_t rng;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    pop_t *p = w->pop;
    const vc_job_t *job = p->job;
    char name[NAME_MAX_LEN];
    vc_sample_t s;
    vc_sample_init(&s);
    for (;;) {
        if (va_wl_cancelled(p->wl) || atomic_load(&p->stop))
            break;
        int64_t k = atomic_fetch_add(&p->next, 1);
        if (p->plan->sequential) {
            /* walk the indices, writing the ones the listing did not show */
            if (k >= p->plan->wanted)
                break;
            if (va_wl_plan_has(p->plan, k))
                continue;
        } else if (k >= p->plan->to_add) {
            break;
        }
        int64_t index = k;
        if (va_wl_populate_name(name, sizeof name, job->prefix, p->plan->sequential, index,
                                &w->rng) != VC_OK)
            break; /* checked before the run: cannot happen */
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, label, job->prefix);
        s.scale = job->object_size;
        s.run = (int32_t)(k > INT32_MAX ? INT32_MAX : k);
        s.worker = w->index;
        vc_status_t rc = va_target_put(w->client, name, p->data, (size_t)job->object_size, &s);
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
        va_wl_emit(p->wl, &s, 0);
    }
    vc_sample_clear(&s);
    return NULL;
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
    pthread_t *th = NULL;
    char *data = NULL;
    int nw = job->workers, started = 0;
    va_wl_t *wl = NULL;
    pthread_mutex_init(&p.mu, NULL);
    if ((rc = va_wl_plan_init(&plan, job->count, job->sequential_names)) != VC_OK) {
        snprintf(err, errlen, "populate: out of memory for %" PRId64 " names", job->count);
        pthread_mutex_destroy(&p.mu);
        return rc;
    }
    ws = calloc((size_t)nw, sizeof *ws);
    th = calloc((size_t)nw, sizeof *th);
    data = malloc(job->object_size > 0 ? (size_t)job->object_size : 1);
    wl = va_wl_new(job, env, "populate", 1);
    if (!ws || !th || !data || !wl) {
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
    for (; started < nw; started++)
        if (pthread_create(&th[started], NULL, work, &ws[started]) != 0)
            break;
    if (nw && !started) {
        rc = VC_ERR_INTERNAL;
        snprintf(err, errlen, "populate: cannot start a worker thread");
        goto done;
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
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
    free(th);
    free(data);
    return rc;
}
