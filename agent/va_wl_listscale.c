/* va_wl_listscale: listing latency by path at each scale point (seed 1). */
#include "va_wl_listscale.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "va_target.h"
#include "va_wl.h"
#include "vc_log.h"

#define COMP "list-scale"
#define MAX_RUNS 100000

typedef struct {
    const vc_job_t *job;
    va_wl_t *wl;
    va_target_t *ais; /* NULL when no AIS path is selected */
    va_target_t *s3;  /* NULL when s3-direct is not selected */
    int npaths;
} ls_t;

static const struct {
    unsigned bit;
    const char *op;
} paths[] = {
    {VC_PATH_AIS_REGULAR, "ais-regular"},
    {VC_PATH_AIS_NBI, "ais-nbi"},
    {VC_PATH_S3_DIRECT, "s3-direct"},
};
#define NPATHS (sizeof paths / sizeof paths[0])

static void sample_for(vc_sample_t *s, const vc_scale_point_t *pt, int run)
{
    vc_sample_init(s);
    VC_SAMPLE_SET(s, label, pt->label);
    s->scale = pt->count;
    s->run = run;
    s->worker = 0;
}

/* Rewrites a failed step's message so it says which step failed and on what
 * (the record's message is short), and logs the client's full description. */
static void step_failed(vc_sample_t *s, const char *step, const vc_scale_point_t *pt,
                        va_target_t *client)
{
    char msg[VC_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s of '%s' at %s: %s", step, pt->prefix, va_target_where(client),
             s->err_msg[0] ? s->err_msg : vc_strerror(VC_ERR_INTERNAL));
    VC_SAMPLE_SET(s, err_msg, msg);
    if (s->err_class == VC_EC_NONE)
        s->err_class = VC_EC_OTHER;
    vc_warn(COMP, "point %s: %s failed: %s", pt->label, step, va_target_error(client));
}

/* A listing that returned another count than expected: flagged, classed as
 * a mismatch, with both numbers in the message. */
static void count_mismatch(vc_sample_t *s, const vc_scale_point_t *pt)
{
    char msg[VC_ERRMSG_MAX];
    s->flags |= VC_SF_COUNT_MISMATCH;
    s->err_class = VC_EC_MISMATCH;
    VC_SAMPLE_SET(s, err_code, "CountMismatch");
    snprintf(msg, sizeof msg,
             "listed %" PRId64 " keys under '%s', expected %" PRId64
             ": populate the prefix or fix the scale point",
             s->keys, pt->prefix, pt->count);
    VC_SAMPLE_SET(s, err_msg, msg);
}

static vc_status_t list_once(ls_t *L, unsigned path, const vc_scale_point_t *pt,
                             const char *inv, vc_sample_t *s)
{
    atomic_int *cancel = va_wl_cancel_flag(L->wl);
    if (path == VC_PATH_S3_DIRECT)
        return va_target_list(L->s3, pt->prefix, L->job->page_size, NULL, NULL, cancel, s);
    va_ais_list_opts_t o = {.prefix = pt->prefix,
                            .page_size = 0,
                            .nbi = path == VC_PATH_AIS_NBI,
                            .inv_name = path == VC_PATH_AIS_NBI ? inv : NULL,
                            .cancel = cancel};
    return va_ais_list(va_target_ais(L->ais), va_target_bck(L->ais), &o, s);
}

/* Whether this job makes / removes the inventory (an interleaved schedule
 * gives each step of a point one part of that). */
static int makes_inventory(const vc_job_t *job)
{
    return (job->paths & VC_PATH_AIS_NBI) && job->nbi_create;
}

static int removes_inventory(const vc_job_t *job)
{
    return (job->paths & VC_PATH_AIS_NBI) && job->nbi_destroy;
}

/* Work units of one point, for progress. */
static int64_t point_units(const ls_t *L)
{
    const vc_job_t *job = L->job;
    return (job->verify_count != 0) + makes_inventory(job) + removes_inventory(job) +
           (int64_t)job->runs * L->npaths;
}

/* The path of listing k (0..npaths-1) of run r: the selected paths in the
 * order regular, NBI, S3 direct; run-major (interleave) rotates the order
 * by the global run index, so every path is listed first as often. */
static unsigned path_of(const ls_t *L, int r, int k)
{
    unsigned sel[NPATHS];
    int n = 0;
    for (size_t p = 0; p < NPATHS; p++)
        if (L->job->paths & paths[p].bit)
            sel[n++] = paths[p].bit;
    int idx = L->job->interleave ? (r + k) % n : k;
    return sel[idx];
}

static const char *path_op(unsigned bit)
{
    for (size_t p = 0; p < NPATHS; p++)
        if (paths[p].bit == bit)
            return paths[p].op;
    return "?";
}

/* Removes the inventory: by the name the creation gave it, or all of the
 * bucket's when this job did not make it (bench.py's fallback too). */
static void destroy_inventory(ls_t *L, const vc_scale_point_t *pt, const char *job_id,
                              vc_sample_t *s)
{
    vc_status_t rc = va_ais_nbi_destroy(va_target_ais(L->ais), va_target_bck(L->ais),
                                        job_id[0] ? job_id : NULL, s);
    if (rc && s)
        step_failed(s, "inventory removal", pt, L->ais);
    else if (rc)
        vc_warn(COMP, "point %s: removing the inventory failed: %s", pt->label,
                va_target_error(L->ais));
}

/* One scale point; VC_ERR_CANCELLED when the job was cancelled, else VC_OK
 * (a failure is a sample). */
static vc_status_t point(ls_t *L, const vc_scale_point_t *pt)
{
    const vc_job_t *job = L->job;
    vc_sample_t s;
    vc_status_t rc;
    int64_t units = point_units(L), used = 0;
    int created = 0, create_failed = 0;
    char job_id[128] = "";

    /* 1. the count check, untimed in the seed */
    if (job->verify_count) {
        va_target_t *counter = L->ais ? L->ais : L->s3;
        sample_for(&s, pt, job->run_first);
        rc = va_target_list(counter, pt->prefix, job->page_size, NULL, NULL,
                            va_wl_cancel_flag(L->wl), &s);
        VC_SAMPLE_SET(&s, op, "count-check");
        if (rc == VC_ERR_CANCELLED && va_wl_cancelled(L->wl))
            goto cancelled;
        if (rc) {
            step_failed(&s, "count check", pt, counter);
            va_wl_emit(L->wl, &s, 0);
            va_wl_skip(L->wl, units - 1);
            return VC_OK;
        }
        if (s.keys != pt->count) {
            count_mismatch(&s, pt);
            vc_warn(COMP, "point %s: %s", pt->label, s.err_msg);
            va_wl_emit(L->wl, &s, 0);
            va_wl_skip(L->wl, units - 1);
            return VC_OK;
        }
        /* a warm-up only when it passed: a failed check must count as an error */
        s.flags |= VC_SF_WARMUP;
        va_wl_emit(L->wl, &s, 0);
        used++;
    }

    /* 2. the inventory */
    if (makes_inventory(job)) {
        va_ais_nbi_opts_t no = {.prefix = pt->prefix, .force = 1};
        sample_for(&s, pt, job->run_first);
        created = 1; /* from here on, removed on failure whatever happens */
        rc = va_ais_nbi_create_wait(va_target_ais(L->ais), va_target_bck(L->ais), &no,
                                    job->nbi_poll_ms, job->nbi_timeout_ms,
                                    va_wl_cancel_flag(L->wl), job_id, sizeof job_id, &s);
        VC_SAMPLE_SET(&s, op, "nbi-create");
        if (rc == VC_ERR_CANCELLED || va_wl_cancelled(L->wl))
            goto cancelled;
        used++;
        if (rc) {
            step_failed(&s, "inventory creation", pt, L->ais);
            va_wl_emit(L->wl, &s, 0);
            create_failed = 1;
            goto destroy;
        }
        va_wl_emit(L->wl, &s, 0);
    }

    /* 3. the timed listings: all runs of one path, then the next (the seed),
     * or run-major with the path order rotated by the run (interleave) */
    int nlist = job->runs * L->npaths;
    for (int x = 0; x < nlist; x++) {
        int i = job->interleave ? x / L->npaths : x % job->runs;
        int k = job->interleave ? x % L->npaths : x / job->runs;
        int r = job->run_first + i;
        unsigned path = path_of(L, r, k);
        sample_for(&s, pt, r);
        rc = list_once(L, path, pt, job_id, &s);
        if (rc == VC_ERR_CANCELLED && va_wl_cancelled(L->wl))
            goto cancelled;
        used++;
        if (rc) {
            char step[64];
            snprintf(step, sizeof step, "%s listing %d", path_op(path), r);
            step_failed(&s, step, pt, path == VC_PATH_S3_DIRECT ? L->s3 : L->ais);
            va_wl_emit(L->wl, &s, 0);
            break;
        }
        if (s.keys != pt->count)
            count_mismatch(&s, pt);
        va_wl_emit(L->wl, &s, 0);
    }

destroy:
    /* a creation that failed leaves nothing worth keeping for later steps */
    if (removes_inventory(job) || create_failed) {
        sample_for(&s, pt, job->run_first);
        destroy_inventory(L, pt, job_id, &s);
        va_wl_emit(L->wl, &s, 0);
        used++;
    }
    va_wl_skip(L->wl, units - used);
    return VC_OK;

cancelled:
    vc_sample_clear(&s);
    if (created || removes_inventory(job))
        destroy_inventory(L, pt, job_id, NULL);
    return VC_ERR_CANCELLED;
}

static vc_status_t check(const vc_job_t *job, char *err, size_t errlen)
{
    if (job->nscale < 1 || job->nscale > VC_MAX_SCALE_POINTS) {
        snprintf(err, errlen, "list-scale: %d scale points; give 1 to %d", job->nscale,
                 VC_MAX_SCALE_POINTS);
        return VC_ERR_ARG;
    }
    if (job->run_first < 0 || job->run_first > INT32_MAX - MAX_RUNS) {
        snprintf(err, errlen, "list-scale: run_first %d is out of range", job->run_first);
        return VC_ERR_ARG;
    }
    if (job->runs < 1 || job->runs > MAX_RUNS) {
        snprintf(err, errlen, "list-scale: runs %d is out of range (1..%d)", job->runs, MAX_RUNS);
        return VC_ERR_ARG;
    }
    if (!(job->paths & (VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI | VC_PATH_S3_DIRECT))) {
        snprintf(err, errlen, "list-scale: no listing path selected (ais-regular, ais-nbi, "
                              "s3-direct)");
        return VC_ERR_ARG;
    }
    if (job->page_size < 1 || job->page_size > 100000) {
        snprintf(err, errlen, "list-scale: page_size %d is out of range (1..100000)",
                 job->page_size);
        return VC_ERR_ARG;
    }
    if (job->nbi_poll_ms < 10 || job->nbi_timeout_ms < job->nbi_poll_ms) {
        snprintf(err, errlen,
                 "list-scale: nbi_poll_ms %" PRId64 " must be at least 10 and nbi_timeout_ms %"
                 PRId64 " at least the poll interval",
                 job->nbi_poll_ms, job->nbi_timeout_ms);
        return VC_ERR_ARG;
    }
    for (int i = 0; i < job->nscale; i++)
        if (job->scale[i].count < 0 || !job->scale[i].label[0]) {
            snprintf(err, errlen, "list-scale: scale point %d needs a label and a count >= 0",
                     i + 1);
            return VC_ERR_ARG;
        }
    int ais_paths = (job->paths & (VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI)) != 0;
    if (ais_paths && job->target.kind != VC_TK_AIS) {
        snprintf(err, errlen,
                 "list-scale: the ais-regular and ais-nbi paths need an AIS target; target '%s' "
                 "is S3 (select only s3-direct, or name an AIS target)",
                 job->target.name);
        return VC_ERR_ARG;
    }
    if (job->paths & VC_PATH_S3_DIRECT) {
        const vc_target_t *d = job->has_direct ? &job->direct : &job->target;
        if (d->kind != VC_TK_S3) {
            snprintf(err, errlen,
                     "list-scale: the s3-direct path needs an S3 target: give the job a direct "
                     "target (the bucket behind '%s' at its S3 endpoint)",
                     job->target.name);
            return VC_ERR_ARG;
        }
    }
    return VC_OK;
}

vc_status_t va_wl_listscale(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen)
{
    vc_status_t rc = check(job, err, errlen);
    if (rc)
        return rc;
    ls_t L = {.job = job};
    va_target_opts_t to = {.timeout_ms = job->timeout_ms};
    for (size_t p = 0; p < NPATHS; p++)
        L.npaths += (job->paths & paths[p].bit) != 0;
    if ((job->paths & (VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI)) &&
        !(L.ais = va_target_new(&job->target, &to, err, errlen))) {
        rc = VC_ERR_CONFIG;
        goto done;
    }
    if ((job->paths & VC_PATH_S3_DIRECT) &&
        !(L.s3 = va_target_new(job->has_direct ? &job->direct : &job->target, &to, err,
                               errlen))) {
        rc = VC_ERR_CONFIG;
        goto done;
    }
    if (!(L.wl = va_wl_new(job, env, "list-scale", 1))) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "list-scale: out of memory");
        goto done;
    }
    int warm = job->warmup && L.s3;
    va_wl_set_total(L.wl, warm + (int64_t)job->nscale * point_units(&L));
    va_wl_progress(L.wl, 1);

    if (warm) {
        vc_sample_t s;
        sample_for(&s, &job->scale[0], job->run_first);
        s.flags |= VC_SF_WARMUP;
        rc = list_once(&L, VC_PATH_S3_DIRECT, &job->scale[0], NULL, &s);
        if (rc == VC_ERR_CANCELLED && va_wl_cancelled(L.wl)) {
            vc_sample_clear(&s);
            goto cancelled;
        }
        if (rc)
            step_failed(&s, "warm-up s3-direct listing", &job->scale[0], L.s3);
        va_wl_emit(L.wl, &s, 0);
    }
    for (int i = 0; i < job->nscale; i++) {
        if (va_wl_cancelled(L.wl) || point(&L, &job->scale[i]) == VC_ERR_CANCELLED)
            goto cancelled;
        va_wl_progress(L.wl, 1);
    }
    rc = VC_OK;
    goto done;
cancelled:
    rc = VC_ERR_CANCELLED;
    snprintf(err, errlen, "list-scale: cancelled");
done:
    if (L.wl)
        va_wl_progress(L.wl, 1);
    va_wl_destroy(&L.wl);
    va_target_destroy(&L.ais);
    va_target_destroy(&L.s3);
    return rc;
}
