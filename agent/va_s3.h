/* va_s3: an S3 client for measurement. One per worker: it owns one keep-alive
 * connection (va_http) and signs every request with SigV4. Each operation
 * fills a vc_sample_t with what a benchmark reports: op name, start time,
 * duration, phases (DNS, connect, TLS, first byte), bytes, HTTP status, error
 * class with the S3 code and message, and the thread's CPU time.
 * A request is sent once: nothing retries silently, so what is timed is
 * exactly one request (or, for a full listing, exactly the pages it took).
 * Listings are parsed as the bytes arrive (va_s3xml) and keys are handed to a
 * callback without per-key allocation.
 *
 * Samples: the caller initialises the record (vc_sample_init) and may set
 * label, scale, run, worker and flags; an operation sets op, start_wall_ns,
 * duration_ns, the phases, bytes, pages, keys, http_status, err_* and cpu_*
 * and leaves the rest alone. Passing NULL for the sample is allowed. */
#ifndef VA_S3_H
#define VA_S3_H

#include <stdint.h>
#include <stdio.h>

#include "va_awscfg.h"
#include "va_http.h"
#include "va_s3xml.h"
#include "vc_sample.h"
#include "vc_status.h"

typedef struct va_s3_t va_s3_t;

typedef enum {
    VA_S3_ADDR_AUTO = 0, /* virtual-hosted for AWS's own endpoints, path-style elsewhere */
    VA_S3_ADDR_PATH,     /* http://host/bucket/key */
    VA_S3_ADDR_VIRTUAL,  /* http://bucket.host/key */
} va_s3_addressing_t;

typedef struct {
    const char *endpoint;      /* http(s)://host[:port]; NULL/"" = https://s3.<region>.amazonaws.com */
    const char *region;        /* signing region; NULL/"" = us-east-1 */
    const char *access_key;    /* required */
    const char *secret_key;    /* required */
    const char *session_token; /* NULL when none */
    va_s3_addressing_t addressing;
    int insecure;              /* do not verify the TLS certificate (explicit choice) */
    const char *ca_bundle;     /* PEM file of trusted CAs; NULL = the system's */
    long timeout_ms;           /* whole request; 0 = 60000 */
    long connect_timeout_ms;   /* 0 = 10000 */
    int unsigned_payload;      /* sign PUT bodies as UNSIGNED-PAYLOAD instead of hashing them */
} va_s3_opts_t;

/* Fills opts from a loaded AWS configuration (pointers into cfg). */
void va_s3_opts_from_awscfg(va_s3_opts_t *opts, const va_awscfg_t *cfg);

/* Caller owns the result. NULL with err set when an option is invalid. */
va_s3_t *va_s3_new(const va_s3_opts_t *opts, char *err, size_t errlen);
void va_s3_destroy(va_s3_t **self_p);

/* "host:port" the client talks to (for messages). */
const char *va_s3_endpoint_hostport(const va_s3_t *self);

/* A sentence describing the last failure: what, where (host:port,
 * bucket/key), the S3 code, message and request id, and a hint; "" after a
 * success. Never contains a secret. Valid until the next operation. */
const char *va_s3_last_error(const va_s3_t *self);

/* Object operations. Return VC_OK on a 2xx; VC_ERR_AUTH (403),
 * VC_ERR_NOTFOUND (404), VC_ERR_SERVER (other statuses), VC_ERR_NET /
 * VC_ERR_TIMEOUT (no reply), VC_ERR_PROTO (bad reply), VC_ERR_IO (local file). */
vc_status_t va_s3_put(va_s3_t *self, const char *bucket, const char *key, const void *data,
                      size_t len, vc_sample_t *s);
/* Streams the file at path as the body. */
vc_status_t va_s3_put_file(va_s3_t *self, const char *bucket, const char *key, const char *path,
                           vc_sample_t *s);
/* Streams the body to out, or counts and discards it when out is NULL. */
vc_status_t va_s3_get(va_s3_t *self, const char *bucket, const char *key, FILE *out,
                      vc_sample_t *s);

/* ---- object operations driven by a va_http_loop ----
 * One thread can keep many clients busy: va_s3_begin signs an object
 * operation and leaves it ready on va_s3_http(self) without sending it; a
 * va_http_loop drives it with the others; when the loop hands the
 * connection back, va_s3_end fills the sample and returns what the blocking
 * call (va_s3_put, va_s3_get, ...) would have. The strings, data and stream
 * in o and the sample must stay valid until va_s3_end. A begin that fails
 * (bad key, unreadable file) has already completed the sample with the
 * error, and nothing is in flight. */
typedef enum { VA_S3_PUT = 0, VA_S3_GET, VA_S3_HEAD, VA_S3_DELETE } va_s3_op_t;

typedef struct {
    va_s3_op_t op;
    const char *bucket;
    const char *key;
    const void *data; /* PUT: the body in memory ... */
    size_t len;
    const char *path; /* ... or the file to stream (opened and hashed by begin) */
    FILE *out;        /* GET: where the body goes; NULL counts and discards it */
} va_s3_obj_t;

vc_status_t va_s3_begin(va_s3_t *self, const va_s3_obj_t *o, vc_sample_t *s);
vc_status_t va_s3_end(va_s3_t *self);
/* The client's connection (its owner pointer is free for the caller). */
va_http_t *va_s3_http(va_s3_t *self);

typedef struct {
    int64_t size;            /* Content-Length, -1 unknown */
    char etag[128];
    char last_modified[64];
    char content_type[128];
} va_s3_head_t;

vc_status_t va_s3_head(va_s3_t *self, const char *bucket, const char *key, va_s3_head_t *info,
                       vc_sample_t *s);
vc_status_t va_s3_delete(va_s3_t *self, const char *bucket, const char *key, vc_sample_t *s);
/* Creates the bucket; one that exists and is ours already counts as success. */
vc_status_t va_s3_create_bucket(va_s3_t *self, const char *bucket, vc_sample_t *s);

typedef struct {
    const char *prefix;             /* NULL/"" = whole bucket */
    const char *delimiter;          /* NULL/"" = none */
    const char *start_after;        /* first page only */
    const char *continuation_token; /* resume a listing */
    int max_keys;                   /* 1..1000 per page; 0 = 1000 */
} va_s3_list_opts_t;

/* One ListObjectsV2 page (op "list-page"). page (may be NULL) gets
 * IsTruncated, NextContinuationToken and counts. */
vc_status_t va_s3_list_page(va_s3_t *self, const char *bucket, const va_s3_list_opts_t *o,
                            va_s3xml_object_fn on_object, va_s3xml_prefix_fn on_prefix, void *ud,
                            va_s3xml_page_t *page, vc_sample_t *s);

/* A full listing (op "s3-direct"): pages until IsTruncated is false, keys in
 * order to on_object, common prefixes to on_prefix. The sample holds the
 * whole listing: duration from the first request to the end of the last
 * page, the first request's connection phases, bytes summed, keys (objects +
 * prefixes) and one vc_page_t per page. A failure on any page makes the whole
 * listing one failed sample, with the keys and pages seen so far. A callback
 * returning non-zero stops it: VC_ERR_CANCELLED. */
vc_status_t va_s3_list(va_s3_t *self, const char *bucket, const va_s3_list_opts_t *o,
                       va_s3xml_object_fn on_object, va_s3xml_prefix_fn on_prefix, void *ud,
                       vc_sample_t *s);

#endif
