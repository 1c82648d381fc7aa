/* vk_report_csv: CSV exports (RFC 4180, header row, '.' decimal point):
 * one row per group of the summary, or one row per raw sample. Columns are
 * documented in docs/report-formats.md; empty cells are unknown values. */
#ifndef VK_REPORT_CSV_H
#define VK_REPORT_CSV_H

#include <stdio.h>

#include "vk_store.h"
#include "vk_summary.h"

vc_status_t vk_report_csv(const vk_summary_t *s, FILE *out);
vc_status_t vk_report_csv_raw(vk_store_t *st, const vk_filter_t *f, FILE *out);
/* Writes one field, quoted when it needs to be. */
void vk_csv_field(FILE *out, const char *v);

#endif
