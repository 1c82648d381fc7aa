/* va_wl_ops: the s3bench read/write benchmark (seed 2). For each operation
 * of job->ops in order (default put, get, head, delete), `iterations` times,
 * all iterations of one operation before the next (Ruby's Benchmark.bm
 * blocks), on key <key_prefix><agent_name>/s3bench-<i> so agents never
 * collide:
 *   put     upload job->object_size bytes of zeros from memory (as s3bench),
 *           or the file job->upload_file;
 *   get     download streaming into a file in env->work_dir (then removed);
 *   head    the object exists (s3bench's exists?);
 *   delete  remove it.
 * Iterations are numbered from job->run_first (an interleaved schedule sends
 * one iteration per job). With job->interleave each iteration does all the
 * operations in job->ops order before the next iteration (run-major); the
 * order is never rotated, since an object must be put before it is read.
 * job->workers > 1 shares each block's iterations among that many workers
 * (s3bench itself is one); each worker keeps its connection across blocks
 * and does one request at a time. The workers' requests are driven by event
 * loops (va_http_loop), one thread per usable CPU (at most one per worker),
 * for S3 and AIS targets alike.
 * Samples: op "put" "get" "head" "delete", label = <key_prefix><agent>/,
 * scale = object size in bytes, run = iteration index, worker, with the phases,
 * bytes sent/received, HTTP status, errors and user/system CPU per request
 * (s3bench's user/system columns, here the loop thread's CPU over about a
 * millisecond shared among the requests completed in it; real =
 * duration_ns, libcurl's total time of the transfer). */
#ifndef VA_WL_OPS_H
#define VA_WL_OPS_H

#include <stddef.h>

#include "va_workload.h"

vc_status_t va_wl_ops(const vc_job_t *job, const va_workload_env_t *env, char *err,
                      size_t errlen);

/* <key_prefix><agent_name>/s3bench-<i>; VC_ERR_ARG when it does not fit or
 * the agent name would make a path of its own ('/' or empty). */
vc_status_t va_wl_ops_key(char *out, size_t outlen, const char *key_prefix,
                          const char *agent_name, int64_t i);

#endif
