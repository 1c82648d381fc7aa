/* vc_job: what an agent is asked to do. The campaign loader (vc_campaign)
 * builds these from the campaign file, the protocol carries them in JOB
 * messages, the agent's workloads run them and the store records them.
 * A job names its targets by endpoint and bucket only: credentials stay on
 * the agent. Plain fixed-size data, so a job copies with `=`. */
#ifndef VC_JOB_H
#define VC_JOB_H

#include <stdint.h>

#include "vc_clock.h"

typedef enum {
    VC_WL_POPULATE = 0, /* N objects of a size under a prefix (aisloader style) */
    VC_WL_LIST_SCALE,   /* NBI latency-vs-scale (seed 1) */
    VC_WL_OPS,          /* put/get/head/delete iterations (seed 2, s3bench) */
    VC_WL_PROBE,        /* network baseline: TCP connect, HEAD of a missing key */
    VC_WL_CALIBRATE,    /* the agent's own overhead against a local null endpoint */
    VC_WL_NULL,         /* emits samples as fast as possible (benchmarks, tests) */
    VC_WL_COUNT
} vc_workload_t;

const char *vc_workload_name(vc_workload_t w);
int vc_workload_parse(const char *name); /* -1 when unknown */

typedef enum { VC_TK_S3 = 0, VC_TK_AIS } vc_target_kind_t;
typedef enum { VC_ADDR_PATH = 0, VC_ADDR_VIRTUAL } vc_addressing_t;

#define VC_NAME_MAX 64
#define VC_URL_MAX 256
#define VC_PREFIX_MAX 256

typedef struct {
    char name[VC_NAME_MAX];       /* the campaign's name for it */
    vc_target_kind_t kind;
    char endpoint[VC_URL_MAX];    /* http(s)://host:port; empty: the agent's default (env) */
    char bucket[VC_NAME_MAX * 2];
    char provider[16];            /* AIS provider: aws, ais (AIS targets only) */
    char region[32];              /* S3 region; empty: the agent's default */
    vc_addressing_t addressing;
    int verify_tls;               /* 1 by default */
} vc_target_t;

/* Listing paths of list-scale, as bits. */
enum {
    VC_PATH_AIS_REGULAR = 1u << 0,
    VC_PATH_AIS_NBI = 1u << 1,
    VC_PATH_S3_DIRECT = 1u << 2,
};

/* Operations of the ops workload. */
typedef enum { VC_OP_PUT = 0, VC_OP_GET, VC_OP_HEAD, VC_OP_DELETE, VC_OP_COUNT } vc_op_t;
const char *vc_op_name(vc_op_t op); /* "put" "get" "head" "delete" */

typedef struct {
    char label[32];               /* "1K" */
    char prefix[VC_PREFIX_MAX];   /* "bench/1k/" */
    int64_t count;                /* objects expected under the prefix */
} vc_scale_point_t;

#define VC_MAX_SCALE_POINTS 32
#define VC_MAX_OPS 8

typedef struct {
    char id[VC_NAME_MAX];         /* unique within the campaign, e.g. "list" or "ops" */
    vc_workload_t kind;
    vc_target_t target;           /* primary: AIS for list-scale, S3 or AIS otherwise */
    int has_direct;               /* list-scale: S3 target for the s3-direct path */
    vc_target_t direct;
    vc_wall_ns_t start_at;        /* coordinator wall clock; 0: at once */

    /* common options (seed defaults in vc_job_init) */
    int workers;                  /* populate 16, ops 1 */
    int runs;                     /* list-scale 20 */
    int64_t timeout_ms;           /* per request, 60000 */
    int page_size;                /* MaxKeys / AIS page size, 1000 */

    /* populate */
    char prefix[VC_PREFIX_MAX];   /* populate: objects go under this prefix */
    int64_t count;                /* populate: objects wanted; null: samples to emit */
    int64_t object_size;          /* populate 1, ops 5 MiB */
    int sequential_names;         /* 0: PREFIX/<32 random letters> like aisloader */

    /* list-scale */
    int nscale;
    vc_scale_point_t scale[VC_MAX_SCALE_POINTS];
    unsigned paths;               /* VC_PATH_* */
    int64_t nbi_poll_ms;          /* 200 */
    int64_t nbi_timeout_ms;       /* 600000, as the seed */
    int warmup;                   /* one s3-direct listing first, 1 */
    int verify_count;             /* list once and check the count first, 1 (seed) */
    int nbi_create;               /* create the inventory (force) before a scale point's runs, 1 */
    int nbi_destroy;              /* destroy it after them, 1 */

    /* ops */
    int iterations;               /* 1 (s3bench's default N) */
    int nops;
    vc_op_t ops[VC_MAX_OPS];      /* put get head delete */
    char key_prefix[VC_PREFIX_MAX]; /* "s3bench/" ; the agent adds its name */
    char upload_file[VC_URL_MAX]; /* empty: upload from memory (zeros) */

    /* how the runs are ordered and numbered (vc_plan cuts interleaved jobs) */
    int interleave;               /* 0: seed order, all runs of one path (op) then the next;
                                   * 1: run-major, each run takes every path (op) once;
                                   * list-scale: run r starts with path number r mod npaths
                                   * (r = run_first + i); ops: each iteration does its ops in
                                   * order (get cannot precede put), never rotated */
    int run_first;                /* run (iteration) index of the first run, 0; samples carry
                                   * run_first + i, ops keys use it too */
    int slice;                    /* which cut of the job this is, 0 (see vc_plan.h) */

    /* probe */
    int probe_count;              /* 10 */
    int64_t probe_interval_ms;    /* 1000 */
} vc_job_t;

/* Fills a job of the given kind with the seeds' defaults. */
void vc_job_init(vc_job_t *job, vc_workload_t kind);
/* Fills a target with defaults (kind s3, path style, TLS verified). */
void vc_target_init(vc_target_t *t);

#endif
