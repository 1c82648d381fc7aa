/* va_target: the object-store client a workload uses for one vc_target_t of
 * its job, S3 or AIS. The job names the target (endpoint, bucket, provider,
 * region, addressing); everything secret or local comes from the agent
 * itself: S3 credentials, region and default endpoint from its AWS
 * environment/profile (va_awscfg), the AIS endpoint from AIS_ENDPOINT when
 * the job leaves it empty and the token from AIS_AUTHN_TOKEN. Credentials
 * never come from the job.
 * One per worker (it owns one keep-alive connection). Object operations and
 * full listings are the same calls for both kinds, so populate and ops run
 * one code path against RGW directly or through AIS; list-scale and probe
 * take the underlying client. Every call fills an optional sample exactly as
 * va_s3 / va_ais do. */
#ifndef VA_TARGET_H
#define VA_TARGET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "va_ais.h"
#include "va_http.h"
#include "va_s3.h"
#include "vc_job.h"
#include "vc_sample.h"
#include "vc_status.h"

typedef struct va_target_t va_target_t;

typedef struct {
    long timeout_ms; /* per request; 0: 60000 */
    int ais_skip_vc; /* AIS PUTs with skip_vc=true, as aisloader does */
} va_target_opts_t;

/* Caller owns the result. NULL with err saying what is missing or wrong
 * (no credentials, no endpoint, bad bucket or provider) and what to do.
 * o may be NULL for defaults. */
va_target_t *va_target_new(const vc_target_t *t, const va_target_opts_t *o, char *err,
                           size_t errlen);
void va_target_destroy(va_target_t **self_p);

vc_target_kind_t va_target_kind(const va_target_t *self);
va_s3_t *va_target_s3(va_target_t *self);   /* NULL for an AIS target */
va_ais_t *va_target_ais(va_target_t *self); /* NULL for an S3 target */
const va_ais_bck_t *va_target_bck(const va_target_t *self); /* AIS bucket (AIS targets) */
const char *va_target_bucket(const va_target_t *self);
/* "host:port" the client talks to. */
const char *va_target_where(const va_target_t *self);
/* The client's full description of its last failure ("" after a success). */
const char *va_target_error(const va_target_t *self);

vc_status_t va_target_put(va_target_t *self, const char *key, const void *data, size_t len,
                          vc_sample_t *s);
vc_status_t va_target_put_file(va_target_t *self, const char *key, const char *path,
                               vc_sample_t *s);
/* Streams the body to out (NULL: discard). */
vc_status_t va_target_get(va_target_t *self, const char *key, FILE *out, vc_sample_t *s);
vc_status_t va_target_head(va_target_t *self, const char *key, vc_sample_t *s);
vc_status_t va_target_delete(va_target_t *self, const char *key, vc_sample_t *s);

/* Object operations driven by a va_http_loop, the same for S3 and AIS
 * targets (see va_s3_begin): begin signs and prepares op on key without
 * sending it, on the connection va_target_http(self); when the loop hands
 * the connection back, va_target_end fills the sample and returns what the
 * blocking call would have. key, data, out and the sample must stay valid
 * until then. A begin that fails has completed the sample with the error. */
typedef struct {
    vc_op_t op;       /* VC_OP_PUT, VC_OP_GET, VC_OP_HEAD or VC_OP_DELETE */
    const char *key;
    const void *data; /* PUT from memory ... */
    size_t len;
    const char *path; /* ... or from this file */
    FILE *out;        /* GET: the destination; NULL counts and discards */
} va_target_obj_t;

vc_status_t va_target_begin(va_target_t *self, const va_target_obj_t *o, vc_sample_t *s);
vc_status_t va_target_end(va_target_t *self);
va_http_t *va_target_http(va_target_t *self);

/* Receives each listed key; non-zero stops the listing (VC_ERR_CANCELLED). */
typedef int (*va_target_key_fn)(void *ud, const char *key);

/* A full listing of prefix: S3 ListObjectsV2 pages of page_size (op
 * "s3-direct") or an AIS regular listing with the server's page size (op
 * "ais-regular"). on_key may be NULL; cancel (may be NULL) stops it. */
vc_status_t va_target_list(va_target_t *self, const char *prefix, int page_size,
                           va_target_key_fn on_key, void *ud, atomic_int *cancel, vc_sample_t *s);

#endif
