/* va_ais: an AIStore client for one worker, over one keep-alive connection
 * (va_http), speaking AIS's native REST API as ais-rest-api.md describes it
 * and measuring it the way AIS's NBI benchmark does (§13):
 *   - readiness (/v1/health?prr=true), cluster map and software version, with
 *     a gate that refuses NBI on clusters older than 4.3;
 *   - regular listing and NBI listing: GET with an ActMsg/LsoMsg JSON body,
 *     msgpack replies, paged by continuation token and uuid until the token
 *     is empty; one listing is one sample with its pages;
 *   - NBI create (job id), wait (IC status polling), server-side duration
 *     (per-target snapshots), show, destroy;
 *   - object PUT/GET/HEAD/DELETE through the proxy's 301/307 redirects.
 * Every call takes an optional sample (vc_sample_init'ed by the caller, who
 * may have set label/scale/run/worker): the call sets op, start time, timing,
 * bytes, status, CPU and, on failure, the error class, code and message. A
 * call that fails keeps what it measured so far in the sample.
 * The endpoint comes from the options or AIS_ENDPOINT, the bearer token from
 * the options or AIS_AUTHN_TOKEN; the token is never logged or printed. */
#ifndef VA_AIS_H
#define VA_AIS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "va_ais_bck.h"
#include "va_ais_job.h"
#include "va_ais_lso.h"
#include "va_ais_nbi.h"
#include "va_ais_smap.h"
#include "va_http.h"
#include "vc_sample.h"
#include "vc_status.h"

typedef struct va_ais_t va_ais_t;

typedef struct {
    const char *endpoint;    /* http(s)://host:port; NULL: $AIS_ENDPOINT */
    const char *token;       /* AuthN bearer token; NULL: $AIS_AUTHN_TOKEN; "": none */
    long timeout_ms;         /* per request; 0: 60000 */
    long connect_timeout_ms; /* 0: 10000 */
    int insecure_tls;        /* 1: do not verify the server's certificate */
    const char *ca_bundle;   /* NULL: the system's */
    int prefer_json;         /* ask for JSON list replies instead of msgpack */
    size_t max_reply;        /* cap on one list/show reply; 0: 256 MiB */
    int put_skip_vc;         /* PUT with skip_vc=true, as aisloader does */
} va_ais_opts_t;

/* Caller owns the result; NULL with err set (no endpoint, bad URL, bad
 * token characters, no memory). opts may be NULL for defaults + environment. */
va_ais_t *va_ais_new(const va_ais_opts_t *opts, char *err, size_t errlen);
void va_ais_destroy(va_ais_t **self_p);

const char *va_ais_endpoint(const va_ais_t *self); /* "http://127.0.0.1:51080" */
const char *va_ais_where(const va_ais_t *self);    /* "127.0.0.1:51080" for messages */
/* The full message of the last failure ("" after a success): what failed,
 * where, the AIS status and message, what to do. Valid until the next call. */
const char *va_ais_error(const va_ais_t *self);

/* ---- readiness and version ---- */

/* GET /v1/health (readiness: ?prr=true, which the primary answers with 200
 * only when the cluster is ready). op "health". */
vc_status_t va_ais_health(va_ais_t *self, int readiness, vc_sample_t *s);

typedef struct {
    va_ais_smap_t smap;
    char version[32]; /* software version of the node the endpoint reaches */
    int major, minor;
} va_ais_cluster_t;

/* Cluster map and software version. */
vc_status_t va_ais_cluster(va_ais_t *self, va_ais_cluster_t *c);

/* What a measurement does first: poll readiness every poll_ms until
 * timeout_ms, read the cluster, require an active target, and when need_nbi
 * refuse clusters older than 4.3 (VC_ERR_UNSUPPORTED naming the version). */
vc_status_t va_ais_probe(va_ais_t *self, int64_t timeout_ms, int64_t poll_ms, int need_nbi,
                         atomic_int *cancel, va_ais_cluster_t *c);

/* ---- listing ---- */

typedef struct {
    const char *prefix;
    int64_t page_size;   /* 0: the server's default (recommended for NBI) */
    const char *props;   /* NULL or "": server default, as bench.py */
    uint64_t flags;      /* more VA_AIS_LS_* bits; NBI is added by nbi */
    int nbi;             /* list from the inventory (flag 32768) */
    const char *inv_name;/* NBI: Ais-Inv-Name; NULL: the bucket's only inventory */
    /* Called for every entry of every page once the page has decoded; a
     * non-zero return stops the listing (VC_ERR_CANCELLED). May be NULL. */
    int (*on_entry)(void *arg, const va_ais_entry_t *e);
    void *arg;
    atomic_int *cancel;  /* non-zero: stop before the next page */
} va_ais_list_opts_t;

/* One full listing = one sample: op "ais-regular" or "ais-nbi", duration
 * from the first request to the last decoded page, one page record per reply
 * (latency, entries, reply bytes), keys = entries delivered, phases of the
 * first request, bytes and CPU summed. A listing that fails part-way returns
 * the error with the pages so far kept in the sample and its error class set;
 * it is never a short success. */
vc_status_t va_ais_list(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_list_opts_t *o,
                        vc_sample_t *s);

/* ---- NBI ---- */

/* POST create-inventory; writes the job id. op "nbi-create-req". */
vc_status_t va_ais_nbi_create(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_nbi_opts_t *o,
                              char *job_id, size_t idlen, vc_sample_t *s);

/* Polls what=status every poll_ms (>= 10) until the job ends or timeout_ms
 * passes (VC_ERR_TIMEOUT, message naming the job id). A job that ended with
 * an error or was aborted is VC_ERR_SERVER. op "job-wait". st may be NULL. */
vc_status_t va_ais_job_wait(va_ais_t *self, const char *job_id, const char *kind, int64_t poll_ms,
                            int64_t timeout_ms, atomic_int *cancel, va_ais_job_status_t *st,
                            vc_sample_t *s);

/* what=qryxstats: server-side duration (max end - min start over targets). */
vc_status_t va_ais_job_time(va_ais_t *self, const char *job_id, const char *kind,
                            va_ais_job_time_t *t, vc_sample_t *s);

/* Create, wait and time, as one sample: op "nbi-create", duration_ns = the
 * client-observed time from the create request to the status that showed
 * the end, server_ns = the server-side job duration (-1 when the snapshots
 * could not be read; the call still succeeds, va_ais_error says why),
 * keys = names in the inventory when the targets report them. */
vc_status_t va_ais_nbi_create_wait(va_ais_t *self, const va_ais_bck_t *bck,
                                   const va_ais_nbi_opts_t *o, int64_t poll_ms,
                                   int64_t timeout_ms, atomic_int *cancel, char *job_id,
                                   size_t idlen, vc_sample_t *s);

/* show-inventory (name NULL: all); caller owns *invs (free()). op "nbi-show". */
vc_status_t va_ais_nbi_show(va_ais_t *self, const va_ais_bck_t *bck, const char *name,
                            va_ais_inv_t **invs, size_t *n, vc_sample_t *s);

/* destroy-inventory (name NULL: all of the bucket's). op "nbi-destroy". */
vc_status_t va_ais_nbi_destroy(va_ais_t *self, const va_ais_bck_t *bck, const char *name,
                               vc_sample_t *s);

/* ---- objects (redirects followed; the body is re-sent after a 307) ---- */

/* Object operations driven by a va_http_loop (as va_s3_begin): begin
 * starts the request on va_ais_http(self) without sending it; when the loop
 * hands the connection back, va_ais_end fills the sample and returns what the
 * blocking call would have. The key, data, files and the sample must stay
 * valid until then. A begin that fails has completed the sample already. */
typedef enum { VA_AIS_PUT = 0, VA_AIS_GET, VA_AIS_HEAD, VA_AIS_DELETE } va_ais_op_t;

typedef struct {
    va_ais_op_t op;
    const char *key;
    const void *data; /* PUT from memory ... */
    size_t len;
    FILE *file;       /* ... or from this file (rewound first) */
    int64_t file_len;
    FILE *out;        /* GET: the destination; NULL discards */
} va_ais_obj_t;

vc_status_t va_ais_begin(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_obj_t *o,
                         vc_sample_t *s);
vc_status_t va_ais_end(va_ais_t *self);
va_http_t *va_ais_http(va_ais_t *self);

vc_status_t va_ais_put(va_ais_t *self, const va_ais_bck_t *bck, const char *key,
                       const void *data, size_t len, vc_sample_t *s); /* op "put" */
/* f is read from its start (rewound on redirect); len bytes. */
vc_status_t va_ais_put_file(va_ais_t *self, const va_ais_bck_t *bck, const char *key, FILE *f,
                            int64_t len, vc_sample_t *s);
/* to: NULL discards; bytes received in s->bytes_recv and *nbytes. op "get". */
vc_status_t va_ais_get(va_ais_t *self, const va_ais_bck_t *bck, const char *key, FILE *to,
                       int64_t *nbytes, vc_sample_t *s);
/* size from Content-Length (-1 when absent). op "head". */
vc_status_t va_ais_head(va_ais_t *self, const va_ais_bck_t *bck, const char *key, int64_t *size,
                        vc_sample_t *s);
vc_status_t va_ais_delete(va_ais_t *self, const va_ais_bck_t *bck, const char *key,
                          vc_sample_t *s); /* op "delete" */

/* ---- names ---- */

#define VA_AIS_RANDOM_NAME_LEN 32
/* aisloader's object names: PREFIX + 32 random letters [A-Za-z] (PREFIX
 * used as given, so pass "bench/1k/" with its slash). *rng is the state of a
 * splitmix64 generator: seed it with va_ais_rng_seed() or a fixed value for
 * reproducible names. Returns VC_ERR_ARG when out is too small. */
vc_status_t va_ais_random_name(char *out, size_t outlen, const char *prefix, uint64_t *rng);
uint64_t va_ais_rng_seed(void);

#endif
