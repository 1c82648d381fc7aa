/* vc_job_json: a job spec as JSON, for the results store (what exactly was
 * run) and for people reading it. Every field is written, with names equal
 * to the campaign file's option names where there is one; reading it back
 * gives the identical job. */
#ifndef VC_JOB_JSON_H
#define VC_JOB_JSON_H

#include <stddef.h>

#include "vc_job.h"
#include "vc_status.h"

/* Caller owns the result (free()); NULL when out of memory. Compact (one
 * line) unless pretty. */
char *vc_job_to_json(const vc_job_t *job, int pretty);
/* Parses what vc_job_to_json wrote; unknown keys, wrong types and values out
 * of range are VC_ERR_ARG with err naming the key. */
vc_status_t vc_job_from_json(const char *text, vc_job_t *job, char *err, size_t errlen);

#endif
