/* vk_report_json: JSON exports (jansson). The summary is one object
 * (campaign, jobs, groups, nbi_tables; documented in
 * docs/report-formats.md) that an HTML renderer can embed as is; raw
 * samples are streamed as {"columns": [...], "samples": [{...}, ...]}
 * without holding them in memory. Unknown numbers are null. */
#ifndef VK_REPORT_JSON_H
#define VK_REPORT_JSON_H

#include <stdio.h>

#include <jansson.h>

#include "vk_store.h"
#include "vk_summary.h"

/* The summary as a JSON object; caller owns it (json_decref). NULL when out of memory. */
json_t *vk_report_json_build(const vk_summary_t *s);
vc_status_t vk_report_json(const vk_summary_t *s, FILE *out);
vc_status_t vk_report_json_raw(vk_store_t *st, const vk_filter_t *f, FILE *out);

#endif
