/* va_workload: runs one job (vc_job_t) on this agent and hands every timed
 * sample to the caller as it is taken. The agent runtime (va_agent) batches,
 * spools and sends them; `vantage s3`/`ais` and tests call workloads directly.
 * Workloads never talk to the coordinator and never see its socket. */
#ifndef VA_WORKLOAD_H
#define VA_WORKLOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vc_job.h"
#include "vc_sample.h"
#include "vc_status.h"

typedef struct {
    const char *agent_name;   /* names objects so agents never collide */
    const char *site;
    const char *work_dir;     /* for downloads and temporary files; NULL: /tmp */
    /* Called for every sample, from any worker thread; must be thread-safe.
     * The callee copies what it keeps; the sample is cleared after the call. */
    void (*emit)(void *arg, const vc_sample_t *sample);
    /* Called now and then (at most a few times a second) from any thread. */
    void (*progress)(void *arg, int64_t done, int64_t total, int64_t errors, const char *what);
    void *arg;
    atomic_int *cancel;       /* non-zero: stop promptly; may be NULL */
} va_workload_env_t;

/* Runs the job to completion (or cancellation). Returns VC_OK when the job
 * ran, even if some requests failed (those are samples with an error class);
 * an error status with a message in err when it could not run at all
 * (unknown target, no credentials, unreachable endpoint before any sample). */
vc_status_t va_workload_run(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen);

/* The null workload: job->count samples as fast as possible, with plausible
 * values and no I/O. For benchmarks of the pipeline and for tests. */
vc_status_t va_workload_null(const vc_job_t *job, const va_workload_env_t *env, char *err,
                             size_t errlen);

#endif
