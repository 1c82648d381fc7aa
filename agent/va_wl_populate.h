/* va_wl_populate: what aisloader does for the listing benchmark: make a
 * prefix hold job->count objects of job->object_size bytes, written by
 * job->workers parallel workers (16 by default), each on its own keep-alive
 * connection (their PUTs driven by va_drive's loop threads), against an S3 target directly or an AIS target (PUTs through
 * the proxy's redirects, skip_vc as aisloader).
 * Names are PREFIX + 32 random letters [A-Za-z] like aisloader, or
 * PREFIX + a 10-digit index (0000000000, 0000000001, ...) when
 * job->sequential_names. It is idempotent: one listing of the prefix first
 * counts what is there (random names: any key under the prefix counts;
 * sequential: which of the indices 0..count-1 exist) and only the missing
 * objects are written, so a second run adds nothing.
 * Samples: one per PUT, op "put", label = prefix, scale = object size,
 * run = the object's index (sequential) or its ordinal in this run (random),
 * worker = worker index, with the
 * client's timing, bytes, status, CPU and error fields. The counting listing
 * is not a sample. A run that meets 100 failed PUTs in a row (or 4 per
 * worker, if more) stops: the target is not taking writes. */
#ifndef VA_WL_POPULATE_H
#define VA_WL_POPULATE_H

#include <stddef.h>
#include <stdint.h>

#include "va_workload.h"

vc_status_t va_wl_populate(const vc_job_t *job, const va_workload_env_t *env, char *err,
                           size_t errlen);

#define VA_WL_SEQ_DIGITS 10

/* Object name i: sequential (PREFIX + 10 digits of index) or random (PREFIX
 * + 32 letters from *rng, index unused). VC_ERR_ARG when out is too small or
 * the index is out of range. */
vc_status_t va_wl_populate_name(char *out, size_t outlen, const char *prefix, int sequential,
                                int64_t index, uint64_t *rng);

/* What is there and what is missing. */
typedef struct {
    int64_t wanted;
    int sequential;
    int64_t present;  /* objects that count towards wanted */
    int64_t others;   /* sequential: keys under the prefix that are not one of ours */
    int64_t to_add;   /* set by va_wl_plan_finish */
    uint8_t *have;    /* sequential: bitmap of present indices */
} va_wl_plan_t;

vc_status_t va_wl_plan_init(va_wl_plan_t *p, int64_t wanted, int sequential);
/* One key of the listing of the prefix. */
void va_wl_plan_see(va_wl_plan_t *p, const char *prefix, const char *key);
/* Computes to_add. */
vc_status_t va_wl_plan_finish(va_wl_plan_t *p);
/* Sequential: whether object `index` is there already (0 for random names). */
int va_wl_plan_has(const va_wl_plan_t *p, int64_t index);
void va_wl_plan_clear(va_wl_plan_t *p);

#endif
