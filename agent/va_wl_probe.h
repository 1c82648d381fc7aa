/* va_wl_probe: a baseline of the network path from this agent to the job's
 * target, to set the floor under every other number: probe_count rounds,
 * one every probe_interval_ms (scheduled from the start, not chained), each
 *   "probe-connect"  a plain TCP connect to the endpoint's host:port, timed on
 *                    the monotonic clock from connect() to the socket being
 *                    writable (the name is resolved once, before the first
 *                    round, and not timed); connect_us = the same time;
 *   "probe-head"     HEAD of a key that does not exist
 *                    (vantage-probe/<agent>/missing) on the client's
 *                    keep-alive connection: a 404 is the expected outcome
 *                    and counts as success (error class none, status 404).
 * label = host:port, scale 0, run = round. A round that starts more than
 * max(10 ms, 10% of the interval) after its scheduled time is flagged
 * VC_SF_SATURATED (the agent was behind schedule). */
#ifndef VA_WL_PROBE_H
#define VA_WL_PROBE_H

#include <stddef.h>

#include "va_workload.h"

vc_status_t va_wl_probe(const vc_job_t *job, const va_workload_env_t *env, char *err,
                        size_t errlen);

/* Splits "host:port" or "[v6]:port" into host (brackets removed) and port.
 * VC_ERR_ARG when it is not of that form. */
vc_status_t va_wl_split_hostport(const char *hp, char *host, size_t hostlen, char *port,
                                 size_t portlen);

/* Whether a round that started `lag_ns` after its scheduled time is late. */
int va_wl_probe_late(int64_t lag_ns, int64_t interval_ns);

#endif
