/* vk_summary: everything a report shows, computed from a results store into
 * plain structs, with no formatting. Renderers (vk_report_text, _csv,
 * _json, and an HTML one later) only read a vk_summary_t.
 *
 * A group is one (job, agent, op, scale point) of the raw samples; its
 * statistics are over the successful samples that are not warm-ups. The
 * samples are read in one pass in storage order, keeping only int64
 * durations (and phase ends) per group, so a report over tens of millions of
 * samples stays within a few hundred MB; percentiles are exact.
 * Nothing is averaged across groups: each group's numbers come from its raw
 * samples (design.md, "Statistics"). */
#ifndef VK_SUMMARY_H
#define VK_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "vc_sample.h"
#include "vc_stats.h"
#include "vk_store.h"

/* Phases of one request, as durations (design.md: DNS, connect, TLS, first
 * byte, transfer). Samples carry phase ends from the request start; a phase
 * is counted only where both its ends are known. */
typedef enum {
    VK_PH_DNS = 0,
    VK_PH_CONNECT,
    VK_PH_TLS,
    VK_PH_FIRST_BYTE, /* request sent (connection ready) -> first byte */
    VK_PH_TRANSFER,   /* first byte -> end */
    VK_PH_COUNT
} vk_phase_t;
const char *vk_phase_name(vk_phase_t p); /* "dns" "connect" "tls" "first_byte" "transfer" */

/* Per-iteration rows for the s3bench table (capped: VK_ITER_MAX per group). */
#define VK_ITER_MAX 1000
typedef struct {
    int32_t run;
    int64_t cpu_user_us, cpu_sys_us; /* -1 unknown */
    int64_t duration_ns;
    int failed;
    char error[VC_ERRCODE_MAX + VC_ERRMSG_MAX + 4];
} vk_iter_t;

typedef struct {
    /* identity */
    size_t job_index;              /* into vk_summary_t.jobs */
    const char *job, *agent, *site; /* point into the jobs array */
    char op[VC_OP_MAX];
    char label[VC_LABEL_MAX];
    int64_t scale;                 /* -1 when the op has none */

    /* counts (warm-ups excluded from all but `warmup`) */
    size_t total, ok, errors, saturated, warmup, retried;
    size_t err_by_class[VC_EC_COUNT];
    char first_error[VC_ERRCODE_MAX + VC_ERRMSG_MAX + 4]; /* "code: message" of the first */

    /* durations of the successful samples, ns */
    vc_stats_summary_t dur;
    int p95_too_small, p99_too_small; /* vc_stats_too_small for this n */
    vc_stats_summary_t server;        /* server-side durations where given (nbi-create) */
    double phase_p50_ns[VK_PH_COUNT]; /* NAN where no sample had the phase */
    size_t phase_n[VK_PH_COUNT];

    /* sums over the successful samples (the s3bench >total: row) */
    double cpu_user_s, cpu_sys_s, real_s;
    int64_t bytes_sent, bytes_recv;

    /* cross-site: this group's p50 / the lowest p50 of the same job, op and
     * point among agents; NAN when there is nothing to compare */
    double ratio_to_fastest;
    int fastest;

    vk_iter_t *iters;              /* sorted by run; NULL if none */
    size_t niters;
    int iters_truncated;           /* more than VK_ITER_MAX samples */
} vk_group_t;

typedef struct {
    char job[VC_NAME_MAX];
    char agent[VC_NAME_MAX];
    char site[VC_NAME_MAX * 2];
    char status[16];
    int64_t expected, received, duplicates, errors;
    char error_text[512];
    char workload[24];     /* from the stored spec; empty when unknown */
    char target[VC_NAME_MAX * 4]; /* "name (bucket)" of the job's target, or empty */
} vk_job_info_t;

/* One row of the seed's NBI latency-vs-scale table. */
typedef struct {
    char label[VC_LABEL_MAX];
    int64_t scale;
    const vk_group_t *regular, *nbi, *direct, *create; /* NULL when absent */
    double speedup;        /* regular p50 / nbi p50, NAN when either is missing */
    int failed;            /* the seed prints "<label>  ERROR: <message>" */
    char error[VC_OP_MAX + VC_ERRCODE_MAX + VC_ERRMSG_MAX + 8];
} vk_nbi_row_t;

typedef struct {
    size_t job_index;
    size_t runs;           /* the largest n of the rows' groups: "(20 runs each)" */
    vk_nbi_row_t *rows;    /* by scale */
    size_t nrows;
} vk_nbi_table_t;

typedef struct {
    char name[VC_NAME_MAX * 2];
    char config[4096];     /* first 4 KiB of the config as run */
    int64_t start_ns, end_ns; /* 0 unknown */
    char version[32];
} vk_campaign_info_t;

typedef struct {
    vk_campaign_info_t campaign;
    vk_job_info_t *jobs;   /* (job, agent) rows, by job then agent */
    size_t njobs;
    vk_group_t *groups;    /* by job, op, point, agent */
    size_t ngroups;
    vk_nbi_table_t *nbi;   /* one per (job, agent) with listing samples */
    size_t nnbi;
} vk_summary_t;

typedef struct {
    const char *agent;     /* only this agent (NULL: all) */
    const char *job;       /* only this job (NULL: all) */
} vk_filter_t;

/* Reads the store and computes everything. Caller owns *out
 * (vk_summary_destroy). On failure err (errlen > 0 bytes) says what failed. */
vc_status_t vk_summary_build(vk_store_t *st, const vk_filter_t *filter, vk_summary_t **out,
                             char *err, size_t errlen);
void vk_summary_destroy(vk_summary_t **p);

/* The group of (job, agent, op, scale, label), or NULL. */
const vk_group_t *vk_summary_find(const vk_summary_t *s, const char *job, const char *agent,
                                  const char *op, int64_t scale, const char *label);

/* Sort rank of an op: the seeds' paths and ops first, in their order. */
int vk_op_rank(const char *op);
/* The seeds' names: put -> "upload", get -> "download", head -> "exists?",
 * delete -> "delete"; NULL for other ops. */
const char *vk_s3bench_label(const char *op);
/* 1 for the ops the cross-site tables show as the network baseline. */
int vk_op_is_baseline(const char *op);
/* Makes a string from a peer safe to print and to put in JSON: control
 * characters and bytes that are not valid UTF-8 (a message cut in the middle
 * of a character) become '?'. In place. */
void vk_text_scrub(char *s);

#endif
