/* va_workload: dispatch by workload kind (one module per workload:
 * va_wl_populate, va_wl_listscale, va_wl_ops, va_wl_probe, va_wl_calibrate),
 * and the null workload. */
#include "va_workload.h"

#include <stdio.h>

#include "va_wl_calibrate.h"
#include "va_wl_listscale.h"
#include "va_wl_ops.h"
#include "va_wl_populate.h"
#include "va_wl_probe.h"
#include "vc_clock.h"

static int cancelled(const va_workload_env_t *env)
{
    return env->cancel && atomic_load(env->cancel);
}

vc_status_t va_workload_null(const vc_job_t *job, const va_workload_env_t *env, char *err,
                             size_t errlen)
{
    (void)err;
    (void)errlen;
    vc_sample_t s;
    vc_sample_init(&s);
    int64_t total = job->count > 0 ? job->count : 1000;
    vc_mono_ns_t last = vc_mono_now();
    for (int64_t i = 0; i < total; i++) {
        if (cancelled(env))
            return VC_ERR_CANCELLED;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, op, "null");
        s.run = (int32_t)(i % 1000000);
        s.worker = 0;
        s.start_wall_ns = vc_wall_now();
        s.duration_ns = 1000 + (i % 997);
        s.scale = job->object_size;
        s.http_status = 200;
        env->emit(env->arg, &s);
        if (env->progress && (i & 1023) == 0) {
            vc_mono_ns_t now = vc_mono_now();
            if (now - last > 200 * VC_NS_PER_MS) {
                env->progress(env->arg, i, total, 0, "null");
                last = now;
            }
        }
    }
    if (env->progress)
        env->progress(env->arg, total, total, 0, "null");
    return VC_OK;
}

vc_status_t va_workload_run(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen)
{
    if (!job || !env || !env->emit) {
        snprintf(err, errlen, "workload: no job or no sample callback given");
        return VC_ERR_ARG;
    }
    if (job->kind != VC_WL_NULL && (job->timeout_ms < 1 || job->timeout_ms > 86400000)) {
        snprintf(err, errlen, "%s: timeout_ms %lld is out of range (1 ms to 24 h)",
                 vc_workload_name(job->kind), (long long)job->timeout_ms);
        return VC_ERR_ARG;
    }
    switch (job->kind) {
    case VC_WL_NULL:
        return va_workload_null(job, env, err, errlen);
    case VC_WL_POPULATE:
        return va_wl_populate(job, env, err, errlen);
    case VC_WL_LIST_SCALE:
        return va_wl_listscale(job, env, err, errlen);
    case VC_WL_OPS:
        return va_wl_ops(job, env, err, errlen);
    case VC_WL_PROBE:
        return va_wl_probe(job, env, err, errlen);
    case VC_WL_CALIBRATE:
        return va_wl_calibrate(job, env, err, errlen);
    default:
        snprintf(err, errlen, "workload '%s' is not available in this agent",
                 vc_workload_name(job->kind));
        return VC_ERR_UNSUPPORTED;
    }
}
