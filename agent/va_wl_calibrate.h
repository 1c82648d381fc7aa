/* va_wl_calibrate: the agent's own overhead, so a report can state the floor
 * under every number it shows.
 *   "calibrate-timer" samples, one per label (run 0, worker 0):
 *     "getres"     duration_ns = clock_getres(CLOCK_MONOTONIC)
 *     "now-cost"   duration_ns = mean cost of one vc_mono_now() over
 *                  scale = 1,000,000 calls
 *     "now-step"   duration_ns = the smallest non-zero step between two
 *                  consecutive vc_mono_now() readings (observed resolution)
 *     "cpu-cost"   duration_ns = mean cost of one vc_thread_cpu_us() (every
 *                  request reads it twice) over scale = 100,000 calls
 *   "calibrate-request" samples, run = 0..N-1 with N = job->count (default
 *   1000), against an in-process HTTP server on 127.0.0.1 answering 200 with
 *   an empty body (va_nullsrv), each with the full request record:
 *     label "s3-head"  a SigV4-signed S3 HEAD through va_s3 (what every S3
 *                      sample pays, signing included)
 *     label "http-get" a bare GET through va_http (the same without S3)
 * The first request of each label opens the connection; the rest reuse it.
 * These samples are never flagged saturated: calibrating keeps a core busy
 * on purpose. */
#ifndef VA_WL_CALIBRATE_H
#define VA_WL_CALIBRATE_H

#include <stddef.h>

#include "va_workload.h"

vc_status_t va_wl_calibrate(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen);

#endif
