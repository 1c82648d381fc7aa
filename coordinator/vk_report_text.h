/* vk_report_text: the human-readable report. First the seeds' own tables,
 * column for column as the original programs print them (NBI
 * latency-vs-scale; s3bench's Benchmark.bm blocks), then what the seeds
 * could not show: the cross-site comparison with the network baseline, and
 * better statistics (interpolated percentiles, CI of the median, phases,
 * errors by class), each labelled as such. */
#ifndef VK_REPORT_TEXT_H
#define VK_REPORT_TEXT_H

#include <stdio.h>

#include "vk_summary.h"

/* The whole report. */
vc_status_t vk_report_text(const vk_summary_t *s, FILE *out);

/* Sections, for tests and other renderers' reuse. */
void vk_report_text_nbi(const vk_summary_t *s, const vk_nbi_table_t *t, FILE *out);
/* The s3bench blocks of one (job, agent); prints nothing when it has no
 * put/get/head/delete samples. */
void vk_report_text_s3bench(const vk_summary_t *s, size_t job_index, FILE *out);
/* The cross-site table of one job id. */
void vk_report_text_compare(const vk_summary_t *s, const char *job, FILE *out);
/* A wall-clock time as "YYYY-MM-DD HH:MM:SS UTC", "-" when unknown (<= 0). */
void vk_report_fmt_time(char *buf, size_t size, int64_t ns);

#endif
