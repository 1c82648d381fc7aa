/* va_wl_ops: put/get/head/delete iterations, s3bench's order. */
#include "va_wl_ops.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "va_drive.h"
#include "va_target.h"
#include "va_wl.h"
#include "vc_log.h"

#define COMP "ops"
#define MAX_WORKERS 1024
#define MAX_ITERATIONS 1000000
#define MAX_SIZE (INT64_C(5) << 30) /* S3's single-PUT limit */
#define KEY_LEN 1100

vc_status_t va_wl_ops_key(char *out, size_t outlen, const char *key_prefix,
                          const char *agent_name, int64_t i)
{
    if (!agent_name || !*agent_name || strchr(agent_name, '/') || i < 0)
        return VC_ERR_ARG;
    int n = snprintf(out, outlen, "%s%s/s3bench-%" PRId64, key_prefix ? key_prefix : "",
                     agent_name, i);
    return n < 0 || (size_t)n >= outlen || n > 1024 ? VC_ERR_ARG : VC_OK;
}

typedef struct {
    const vc_job_t *job;
    const va_workload_env_t *env;
    va_wl_t *wl;
    const char *data;    /* zeros, or NULL with upload_file */
    int64_t size;
    char label[VC_LABEL_MAX];
    int nops;            /* operations per iteration of the block: 1, or all (interleave) */
    const vc_op_t *ops;  /* the block's operations */
    atomic_int next;     /* next iteration of the block */
    struct worker_t *ws; /* the workers */
} ops_t;

typedef struct worker_t {
    ops_t *o;
    int index;
    va_target_t *client;
    char tmp[4096];      /* download file */
    /* the operation in flight */
    int iter;            /* iteration (run number), -1 none */
    int k;               /* its operation index in o->ops */
    char key[KEY_LEN];
    vc_sample_t s;
    FILE *f;             /* the download file of a get */
} worker_t;

/* ---- the workers' requests, driven by loop threads ----
 * Each worker has its own client (connection) and goes through its
 * iterations' operations in order, one request at a time; the requests of
 * all the workers a thread owns are in flight together in one va_http_loop:
 * no thread switch per request, so the agent's own cost per request stays
 * at the HTTP library's. */

/* A local failure before a request could start: the sample says what. */
static void local_error(worker_t *w, vc_op_t op, const char *code, const char *msg)
{
    VC_SAMPLE_SET(&w->s, op, vc_op_name(op));
    w->s.start_wall_ns = vc_wall_now();
    w->s.err_class = VC_EC_OTHER;
    VC_SAMPLE_SET(&w->s, err_code, code);
    VC_SAMPLE_SET(&w->s, err_msg, msg);
}

/* Emits the worker's sample (and drops its download file) and moves on to
 * the next operation. */
static void ev_finish(worker_t *w, vc_op_t op)
{
    ops_t *o = w->o;
    if (w->f) {
        if (fclose(w->f) != 0 && w->s.err_class == VC_EC_NONE)
            local_error(w, op, "LocalFile", "writing the download file failed (disk full?)");
        w->f = NULL;
        unlink(w->tmp);
    }
    if (w->s.err_class != VC_EC_NONE)
        vc_debug(COMP, "%s %s: %s", vc_op_name(op), w->key, va_target_error(w->client));
    va_wl_emit(o->wl, &w->s, 0);
    w->k++;
}

/* va_drive: begins worker wi's next operation; NULL when it has nothing left. */
static va_http_t *ev_next(void *ud, int wi)
{
    ops_t *o = ud;
    worker_t *w = &o->ws[wi];
    for (;;) {
        if (w->iter < 0 || w->k >= o->nops) {
            int i = atomic_fetch_add(&o->next, 1);
            if (i >= o->job->iterations) {
                w->iter = -1;
                return NULL;
            }
            w->iter = o->job->run_first + i;
            w->k = 0;
        }
        vc_op_t op = o->ops[w->k];
        vc_sample_init(&w->s);
        VC_SAMPLE_SET(&w->s, label, o->label);
        w->s.scale = o->size;
        w->s.run = w->iter;
        w->s.worker = w->index;
        va_wl_ops_key(w->key, sizeof w->key, o->job->key_prefix, o->env->agent_name,
                      w->iter); /* checked */
        va_target_obj_t req = {.op = op, .key = w->key};
        if (op == VC_OP_PUT) {
            req.data = o->data;
            req.len = o->data ? (size_t)o->size : 0;
            req.path = o->data ? NULL : o->job->upload_file;
        } else if (op == VC_OP_GET) {
            if (!(w->f = fopen(w->tmp, "wb"))) {
                char msg[VC_ERRMSG_MAX];
                snprintf(msg, sizeof msg, "cannot create the download file %s: %s", w->tmp,
                         strerror(errno));
                local_error(w, op, "LocalFile", msg);
                ev_finish(w, op);
                continue;
            }
            req.out = w->f;
        }
        if (va_target_begin(w->client, &req, &w->s) != VC_OK) {
            ev_finish(w, op); /* the sample says why */
            continue;
        }
        return va_target_http(w->client);
    }
}

/* va_drive: worker wi's request ended. */
static void ev_end(void *ud, int wi, va_drive_end_t how)
{
    ops_t *o = ud;
    worker_t *w = &o->ws[wi];
    vc_op_t op = o->ops[w->k];
    va_target_end(w->client); /* also releases what begin opened when it never ran */
    if (how == VA_DRIVE_COMPLETED) {
        ev_finish(w, op);
    } else if (how == VA_DRIVE_FAILED) {
        local_error(w, op, "Internal", "the request could not run (request loop failure)");
        ev_finish(w, op);
    } else {
        /* cancelled in flight: it measured nothing and is not recorded */
        if (w->f) {
            fclose(w->f);
            w->f = NULL;
            unlink(w->tmp);
        }
        vc_sample_clear(&w->s);
    }
}

static int ev_cancelled(void *ud) { return va_wl_cancelled(((ops_t *)ud)->wl); }

static int has_get(const vc_job_t *job)
{
    for (int i = 0; i < job->nops; i++)
        if (job->ops[i] == VC_OP_GET)
            return 1;
    return 0;
}

static vc_status_t check(const vc_job_t *job, const va_workload_env_t *env, char *err,
                         size_t errlen)
{
    char key[KEY_LEN];
    if (job->iterations < 1 || job->iterations > MAX_ITERATIONS) {
        snprintf(err, errlen, "ops: iterations %d is out of range (1..%d)", job->iterations,
                 MAX_ITERATIONS);
        return VC_ERR_ARG;
    }
    if (job->workers < 1 || job->workers > MAX_WORKERS) {
        snprintf(err, errlen, "ops: workers %d is out of range (1..%d)", job->workers,
                 MAX_WORKERS);
        return VC_ERR_ARG;
    }
    if (job->nops < 1 || job->nops > VC_MAX_OPS) {
        snprintf(err, errlen, "ops: %d operations; give 1 to %d of put, get, head, delete",
                 job->nops, VC_MAX_OPS);
        return VC_ERR_ARG;
    }
    for (int i = 0; i < job->nops; i++)
        if ((unsigned)job->ops[i] >= VC_OP_COUNT) {
            snprintf(err, errlen, "ops: operation %d is unknown", i + 1);
            return VC_ERR_ARG;
        }
    if (!job->upload_file[0] && (job->object_size < 0 || job->object_size > MAX_SIZE)) {
        snprintf(err, errlen, "ops: object_size %" PRId64 " is out of range (0..%" PRId64 ")",
                 job->object_size, MAX_SIZE);
        return VC_ERR_ARG;
    }
    if (job->run_first < 0 || job->run_first > INT32_MAX - MAX_ITERATIONS) {
        snprintf(err, errlen, "ops: run_first %d is out of range", job->run_first);
        return VC_ERR_ARG;
    }
    if (va_wl_ops_key(key, sizeof key, job->key_prefix, env->agent_name,
                      (int64_t)job->run_first + job->iterations) != VC_OK) {
        snprintf(err, errlen,
                 "ops: cannot name objects from key prefix '%.80s' and agent name '%.64s' (the "
                 "agent needs a name without '/', and keys are at most 1024 bytes)",
                 job->key_prefix, env->agent_name ? env->agent_name : "");
        return VC_ERR_ARG;
    }
    return VC_OK;
}

vc_status_t va_wl_ops(const vc_job_t *job, const va_workload_env_t *env, char *err,
                      size_t errlen)
{
    vc_status_t rc = check(job, env, err, errlen);
    if (rc)
        return rc;
    ops_t o = {.job = job, .env = env, .size = job->object_size};
    int nw = job->workers < job->iterations ? job->workers : job->iterations;
    worker_t *ws = calloc((size_t)nw, sizeof *ws);
    o.ws = ws;
    char *zeros = NULL;
    va_target_opts_t to = {.timeout_ms = job->timeout_ms};
    if (!ws) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "ops: out of memory");
        goto done;
    }
    if (job->upload_file[0]) {
        struct stat st;
        int serr = stat(job->upload_file, &st) != 0 ? errno : 0;
        if (serr || !S_ISREG(st.st_mode)) {
            rc = VC_ERR_IO;
            snprintf(err, errlen, "ops: upload_file '%s' on this agent: %s", job->upload_file,
                     serr ? strerror(serr) : "not a regular file");
            goto done;
        }
        o.size = (int64_t)st.st_size;
    } else if (!(zeros = calloc(1, o.size > 0 ? (size_t)o.size : 1))) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "ops: out of memory for a %" PRId64 "-byte object", o.size);
        goto done;
    }
    o.data = zeros;
    /* The same label on every agent (the keys differ by agent name), so the
     * report lines the sites up op by op. */
    snprintf(o.label, sizeof o.label, "%s", job->key_prefix);
    const char *dir = env->work_dir && *env->work_dir ? env->work_dir : "/tmp";
    for (int i = 0; i < nw; i++) {
        ws[i].o = &o;
        ws[i].index = i;
        snprintf(ws[i].tmp, sizeof ws[i].tmp, "%s/vantage-ops-%d-%d.get", dir, (int)getpid(), i);
        if (i == 0 && has_get(job)) {
            /* downloads need a writable directory: say so now, not once per get */
            FILE *f = fopen(ws[0].tmp, "wb");
            if (!f) {
                rc = VC_ERR_IO;
                snprintf(err, errlen, "ops: cannot write downloads to %s: %s (set the agent's "
                                      "work directory)", dir, strerror(errno));
                goto done;
            }
            fclose(f);
            unlink(ws[0].tmp);
        }
        if (!(ws[i].client = va_target_new(&job->target, &to, err, errlen))) {
            rc = VC_ERR_CONFIG;
            goto done;
        }
    }
    if (!(o.wl = va_wl_new(job, env, "ops", 1))) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "ops: out of memory");
        goto done;
    }
    va_wl_set_total(o.wl, (int64_t)job->nops * job->iterations);
    va_wl_progress(o.wl, 1);
    /* blocks: one per operation (the seed), or one of whole iterations */
    int nblocks = job->interleave ? 1 : job->nops;
    for (int b = 0; b < nblocks && !va_wl_cancelled(o.wl); b++) {
        o.ops = job->interleave ? job->ops : &job->ops[b];
        o.nops = job->interleave ? job->nops : 1;
        atomic_store(&o.next, 0);
        for (int i = 0; i < nw; i++) {
            ws[i].iter = -1;
            ws[i].k = 0;
        }
        va_drive_t d = {.nworkers = nw, .next = ev_next, .end = ev_end,
                        .cancelled = ev_cancelled, .ud = &o};
        if (va_drive_run(&d) != VC_OK && rc == VC_OK) {
            rc = VC_ERR_INTERNAL;
            snprintf(err, errlen, "ops: the request loop failed (see the agent's log)");
        }
    }
    va_wl_progress(o.wl, 1);
    if (va_wl_cancelled(o.wl)) {
        rc = VC_ERR_CANCELLED;
        snprintf(err, errlen, "ops: cancelled");
    }
done:
    for (int i = 0; ws && i < nw; i++)
        va_target_destroy(&ws[i].client);
    va_wl_destroy(&o.wl);
    free(ws);
    free(zeros);
    return rc;
}
