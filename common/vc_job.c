/* vc_job: job specs and their defaults (the seed benchmarks' values). */
#include "vc_job.h"

#include <string.h>

static const char *const wl_names[VC_WL_COUNT] = {
    [VC_WL_POPULATE] = "populate", [VC_WL_LIST_SCALE] = "list-scale", [VC_WL_OPS] = "ops",
    [VC_WL_PROBE] = "probe",       [VC_WL_CALIBRATE] = "calibrate",   [VC_WL_NULL] = "null",
};

const char *vc_workload_name(vc_workload_t w)
{
    return (unsigned)w < VC_WL_COUNT ? wl_names[w] : "unknown";
}

int vc_workload_parse(const char *name)
{
    for (int i = 0; name && i < VC_WL_COUNT; i++)
        if (strcmp(name, wl_names[i]) == 0)
            return i;
    return -1;
}

const char *vc_op_name(vc_op_t op)
{
    static const char *const names[VC_OP_COUNT] = {"put", "get", "head", "delete"};
    return (unsigned)op < VC_OP_COUNT ? names[op] : "unknown";
}

void vc_target_init(vc_target_t *t)
{
    memset(t, 0, sizeof *t);
    t->kind = VC_TK_S3;
    t->addressing = VC_ADDR_PATH;
    t->verify_tls = 1;
    strcpy(t->provider, "aws");
}

void vc_job_init(vc_job_t *job, vc_workload_t kind)
{
    memset(job, 0, sizeof *job);
    job->kind = kind;
    vc_target_init(&job->target);
    vc_target_init(&job->direct);
    job->workers = kind == VC_WL_POPULATE ? 16 : 1;
    job->runs = 20;
    job->timeout_ms = 60000;
    job->page_size = 1000;
    /* populate has no sensible default count (required); null and calibrate emit 1000 */
    job->count = (kind == VC_WL_NULL || kind == VC_WL_CALIBRATE) ? 1000 : 0;
    job->object_size = kind == VC_WL_OPS ? 5 * 1024 * 1024 : 1;
    job->paths = VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI | VC_PATH_S3_DIRECT;
    job->nbi_poll_ms = 200;
    job->nbi_timeout_ms = 600000;
    job->warmup = 1;
    job->verify_count = 1;
    job->nbi_create = 1;
    job->nbi_destroy = 1;
    job->iterations = 1;
    job->nops = 4;
    for (int i = 0; i < 4; i++)
        job->ops[i] = (vc_op_t)i;
    strcpy(job->key_prefix, "s3bench/");
    job->probe_count = 10;
    job->probe_interval_ms = 1000;
}
