/* va_ais_job: AIS jobs (xactions) on the wire (ais-rest-api.md §4): the job
 * selector body, the IC status reply (what=status) that says when a job has
 * ended, and the per-target snapshots (what=qryxstats) from which the
 * server-side duration is computed the way the Python SDK's
 * Job.get_total_time does: latest end-time minus earliest start-time over
 * every snapshot of every target. */
#ifndef VA_AIS_JOB_H
#define VA_AIS_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

#define VA_AIS_JOB_ID_MAX 128
#define VA_AIS_KIND_NBI_CREATE "create-inventory"

/* {"id":ID,"kind":KIND}. Caller owns the result (free()); NULL on bad UTF-8 or no memory. */
char *va_ais_job_query_body(const char *id, const char *kind);

/* Checks a job id the server returned (text body of a create): 1 to
 * VA_AIS_JOB_ID_MAX-1 characters of [A-Za-z0-9_.-]; surrounding white space is
 * removed. Writes the clean id to out. */
vc_status_t va_ais_job_id_parse(const char *text, size_t len, char *out, size_t outlen,
                                char *err, size_t errlen);

typedef struct {
    char kind[64];
    char uuid[VA_AIS_JOB_ID_MAX];
    char err[256];       /* the job's error, empty when none */
    int64_t end_time_ns; /* unix ns; 0 while running */
    int aborted;
} va_ais_job_status_t;

/* Parses a what=status reply. */
vc_status_t va_ais_job_status_parse(const char *body, size_t len, va_ais_job_status_t *st,
                                    char *err, size_t errlen);

/* Parses an RFC 3339 time with 0 to 9 fractional digits and Z or a +-hh:mm
 * offset into unix ns. *is_zero is set for Go's zero time (year 1), which AIS
 * sends as the end-time of a running job. */
vc_status_t va_ais_rfc3339_parse(const char *s, int64_t *unix_ns, int *is_zero);

typedef struct {
    int64_t total_ns;  /* max(end) - min(start) */
    int64_t start_ns;  /* earliest start, unix ns */
    int64_t end_ns;    /* latest end, unix ns */
    int ntargets;      /* targets that reported */
    int nsnaps;        /* snapshots seen */
    int nrunning;      /* snapshots without an end-time yet */
    int64_t objs;      /* sum of stats.loc-objs, -1 when absent */
} va_ais_job_time_t;

/* From a what=qryxstats reply ({target: [snap...]}). Fails (VC_ERR_PROTO)
 * when the reply is malformed, and VC_ERR_NOTFOUND when it holds no snapshot
 * or no snapshot has ended. */
vc_status_t va_ais_job_total_time(const char *body, size_t len, va_ais_job_time_t *t, char *err,
                                  size_t errlen);

#endif
