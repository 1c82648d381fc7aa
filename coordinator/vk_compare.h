/* vk_compare: the same groups of two campaigns side by side (`vantage
 * compare A B`): each (job, agent or site, op, scale point) present in
 * either, with B/A ratios of p50, p95 and mean. Computation first
 * (vk_compare_build), renderers after, as for reports. */
#ifndef VK_COMPARE_H
#define VK_COMPARE_H

#include <stdio.h>

#include "vk_summary.h"

typedef struct {
    const vk_group_t *a, *b; /* either may be NULL: only in the other campaign */
    double p50_ratio, p95_ratio, mean_ratio; /* B / A; NAN when either side has no data */
} vk_compare_pair_t;

typedef struct {
    vk_compare_pair_t *pairs;
    size_t n;
    int by_site; /* matched by site label instead of agent name */
} vk_compare_t;

/* Matches the groups of a and b (which must outlive the result) by job,
 * agent (or site when by_site), op, scale and label. Caller owns *out
 * (vk_compare_destroy). */
vc_status_t vk_compare_build(const vk_summary_t *a, const vk_summary_t *b, int by_site,
                             vk_compare_t **out);
void vk_compare_destroy(vk_compare_t **p);

vc_status_t vk_compare_text(const vk_compare_t *c, const char *name_a, const char *name_b,
                            FILE *out);
vc_status_t vk_compare_csv(const vk_compare_t *c, FILE *out);
vc_status_t vk_compare_json(const vk_compare_t *c, const char *name_a, const char *name_b,
                            FILE *out);

#endif
