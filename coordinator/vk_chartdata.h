/* vk_chartdata: what the HTML report draws that vk_summary_t does not hold,
 * read from the raw samples of a store in one pass and reduced to bounded
 * sizes, so a chart of millions of samples stays a few hundred KB:
 *  - per (site, op, scale point) a distribution: p5, p50, p95 of the
 *    successful samples (listing latency vs scale) and, for the points a CDF
 *    chart shows, a CDF of at most VK_CD_MAX_POINTS points that always keeps
 *    the fastest and the slowest sample;
 *  - per site a time series of at most VK_CD_MAX_POINTS samples: all of them
 *    while a site has that few, otherwise per time bucket the fastest, the
 *    slowest and one failed sample, so spikes and errors survive
 *    (calibration samples, calibrate-*, measure the agent and are left out);
 *  - per agent its host facts and clock-offset estimates.
 * A site is the agent's site label, or the agent's name when it has none;
 * agents of one site are pooled from their raw samples (never averaged).
 * Warm-ups are left out of everything, as in vk_summary. Texts are scrubbed
 * (vk_text_scrub) but not escaped: renderers escape for their format. */
#ifndef VK_CHARTDATA_H
#define VK_CHARTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "vc_sample.h"
#include "vk_store.h"
#include "vk_summary.h"

#define VK_CD_MAX_POINTS 2000
#define VK_CD_NAME_MAX (VC_NAME_MAX * 2)

typedef struct {
    double ns;   /* duration */
    double frac; /* fraction of the samples <= ns, (0, 1] */
} vk_cdf_pt_t;

/* Successful samples of one (site, op, scale point). */
typedef struct {
    size_t site;               /* index into vk_chartdata_t.sites */
    char op[VC_OP_MAX];
    char label[VC_LABEL_MAX];  /* the first label seen at this point */
    int64_t scale;             /* -1 none */
    size_t n;
    double min, p5, p50, p95, max; /* ns; p5/p95 interpolated (type 7), p50 the median */
    vk_cdf_pt_t *cdf;          /* NULL when no CDF chart shows this point */
    size_t ncdf;
} vk_cd_dist_t;

typedef struct {
    int64_t t_ns;   /* corrected start time (samples.start_ns) */
    int64_t dur_ns; /* -1 when a failed sample has no duration */
    uint16_t op;    /* index into vk_chartdata_t.ops */
    uint8_t failed;
} vk_ts_pt_t;

typedef struct {
    char name[VK_CD_NAME_MAX];
    size_t n, failed;  /* every non-warm-up sample with a start time */
    int downsampled;   /* pt holds a selection, not every sample */
    vk_ts_pt_t *pt;    /* by time */
    size_t npt;
} vk_cd_site_t;

typedef struct {
    char name[VC_NAME_MAX];
    char site[VK_CD_NAME_MAX];
    char *host_facts;          /* JSON object text as the agent sent it, or NULL */
    size_t noffsets;           /* clock-offset estimates stored */
    int64_t offset_ns, error_ns, rtt_ns; /* the latest; error/rtt -1 unknown */
    int64_t min_offset_ns, max_offset_ns;
} vk_cd_agent_t;

typedef struct {
    vk_cd_site_t *sites;  /* by name: a site's index is its colour */
    size_t nsites;
    vk_cd_dist_t *dists;  /* by op rank, op, scale, site */
    size_t ndists;
    char (*ops)[VC_OP_MAX]; /* op names the time series points refer to */
    size_t nops;
    int64_t t_min, t_max; /* range of the time series, 0 when empty */
    vk_cd_agent_t *agents; /* by name */
    size_t nagents;
} vk_chartdata_t;

/* Reads the store (only the agents and jobs that pass the filter). Caller
 * owns *out (vk_chartdata_destroy). On failure err (errlen > 0) says what. */
vc_status_t vk_chartdata_build(vk_store_t *st, const vk_filter_t *filter, vk_chartdata_t **out,
                               char *err, size_t errlen);
void vk_chartdata_destroy(vk_chartdata_t **p);

/* 1 for the listing paths the latency-vs-scale chart shows (ais-regular,
 * ais-nbi, s3-direct). */
int vk_cd_is_listing(const char *op);
/* The site index of `name`, or -1. */
int vk_cd_site_index(const vk_chartdata_t *cd, const char *name);

/* Reduces n sorted durations to at most max_points CDF points (first and
 * last kept); returns the number written into out. Exposed for tests. */
size_t vk_cd_cdf_points(const int64_t *sorted, size_t n, vk_cdf_pt_t *out, size_t max_points);

#endif
