/* vc_sample: the record of one timed operation (design.md, "The sample
 * record"). Agents fill it, the protocol carries it, the coordinator stores it.
 * Campaign, job, agent and site are not repeated in every record: they are
 * known from the JOB and the connection and added by the coordinator.
 * Unknown numeric values are -1. Strings are fixed-size so a record copies
 * with memcpy; listing pages are the one variable part and are owned by the
 * record (vc_sample_clear frees them). */
#ifndef VC_SAMPLE_H
#define VC_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "vc_clock.h"
#include "vc_status.h"

/* What went wrong with a request, as a report groups it. */
typedef enum {
    VC_EC_NONE = 0,   /* success */
    VC_EC_CLIENT,     /* 4xx other than 429; the S3 or AIS code in err_code */
    VC_EC_SERVER,     /* 5xx other than 503 SlowDown */
    VC_EC_THROTTLED,  /* 503 SlowDown or 429 */
    VC_EC_TIMEOUT,    /* the request timeout expired */
    VC_EC_CONNECT,    /* DNS, connect, TLS handshake, reset */
    VC_EC_PROTOCOL,   /* malformed or truncated reply body */
    VC_EC_MISMATCH,   /* the reply was fine but its content was not what was expected */
    VC_EC_OTHER,      /* local failure (file, memory) */
    VC_EC_COUNT
} vc_errclass_t;

const char *vc_errclass_name(vc_errclass_t ec);
/* Returns the class for a name from vc_errclass_name, or -1. */
int vc_errclass_parse(const char *name);

/* Record flags. */
enum {
    VC_SF_COUNT_MISMATCH = 1u << 0, /* a listing returned another key count than expected */
    VC_SF_SATURATED = 1u << 1,      /* the agent was behind schedule or CPU-bound */
    VC_SF_WARMUP = 1u << 2,         /* a warm-up request, not part of the statistics */
    VC_SF_RETRIED = 1u << 3,        /* the request was retried (retries counts how often) */
};

typedef struct {
    int64_t duration_ns; /* monotonic */
    int64_t keys;
    int64_t bytes;
} vc_page_t;

#define VC_OP_MAX 24
#define VC_ERRCODE_MAX 48
#define VC_ERRMSG_MAX 160
#define VC_LABEL_MAX 64

typedef struct {
    uint64_t seq;                  /* per (agent, job), from 1, set by the agent's sender */
    char op[VC_OP_MAX];            /* put get head delete ais-regular ais-nbi s3-direct nbi-create probe-connect ... */
    char label[VC_LABEL_MAX];      /* scale-point label or object key prefix, free text */
    int64_t scale;                 /* scale point (expected object count) or object size in bytes */
    int32_t run;                   /* run / iteration index from 0 */
    int32_t worker;                /* worker index on the agent */
    vc_wall_ns_t start_wall_ns;    /* agent wall clock at start (coordinator corrects it) */
    int64_t duration_ns;           /* monotonic duration */
    int64_t server_ns;             /* server-side duration where the server reports one (NBI creation), else -1 */
    int32_t dns_us, connect_us, tls_us, ttfb_us; /* phase ends from request start, µs; -1 unknown */
    int64_t bytes_sent, bytes_recv;
    int32_t pages;                 /* listing pages, 0 for object ops */
    int64_t keys;                  /* listing keys, -1 for object ops */
    int32_t http_status;           /* last HTTP status, 0 if none */
    int32_t retries;
    vc_errclass_t err_class;
    char err_code[VC_ERRCODE_MAX]; /* S3 code (SlowDown, NoSuchKey), AIS tcode, curl error name */
    char err_msg[VC_ERRMSG_MAX];   /* short human message; never contains a secret */
    int64_t cpu_user_us, cpu_sys_us; /* calling thread's CPU for this operation */
    uint32_t flags;                /* VC_SF_* */
    uint32_t npages;               /* entries in page[] */
    uint32_t page_cap;             /* allocated entries */
    vc_page_t *page;               /* per-page times of a listing, owned */
} vc_sample_t;

/* Sets every field to its "unknown" value (-1 / 0 / empty), no pages. */
void vc_sample_init(vc_sample_t *s);
/* Frees the pages and re-initialises. */
void vc_sample_clear(vc_sample_t *s);
/* Deep copy (pages too) into dst, which must be initialised or cleared. */
vc_status_t vc_sample_copy(vc_sample_t *dst, const vc_sample_t *src);
/* Appends one page; returns VC_ERR_NOMEM on failure. */
vc_status_t vc_sample_add_page(vc_sample_t *s, int64_t duration_ns, int64_t keys, int64_t bytes);
/* Copies a string into a fixed field, truncating safely. */
void vc_sample_set_str(char *field, size_t size, const char *value);
#define VC_SAMPLE_SET(s, field, value) vc_sample_set_str((s)->field, sizeof (s)->field, (value))

#endif
