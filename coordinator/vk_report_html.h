/* vk_report_html: the report as one self-contained HTML file: inline CSS
 * and SVG, no script, no font, image or style fetched from anywhere, so it
 * opens offline, mails as an attachment and prints.
 *
 * Charts first (listing latency vs objects per path, latency CDFs per op,
 * phase breakdown per site, samples over time per site), then the tables
 * with the same numbers as the text report (cross-site comparison, the
 * seeds' tables, detailed statistics, errors by class) and the campaign's
 * facts (jobs, agents with host facts and clock offsets, calibration floor,
 * saturated samples, the configuration as run).
 *
 * Numbers come from vk_summary_t (tables, phases) and vk_chartdata_t
 * (distributions, CDFs and time series, bounded in size). Every text that
 * came from an agent or the campaign file is escaped. The markup is
 * XHTML-compatible, so tests parse it as XML. SVG charts carry
 * class="chart <kind>" (latency-vs-scale, cdf, phases, timeseries) and
 * their series data-site / data-path / data-op attributes. */
#ifndef VK_REPORT_HTML_H
#define VK_REPORT_HTML_H

#include <stdio.h>

#include "vk_chartdata.h"
#include "vk_store.h"
#include "vk_summary.h"

/* Renders from already built data (tests, other callers). */
vc_status_t vk_report_html(const vk_summary_t *s, const vk_chartdata_t *cd, FILE *out);

/* Reads the store and renders (the format table's entry). The chart data
 * is read first and the summary after, so their peaks do not add up. */
vc_status_t vk_report_html_store(vk_store_t *st, const vk_filter_t *filter, FILE *out,
                                 char *err, size_t errlen);

/* Writes the report of the campaign in dir (its results.db, opened
 * read-only) to path, through a temporary file renamed into place, so a
 * reader never sees half a report. filter may be NULL (everything).
 * This is what `vantage run` and the coordinator call at the end of a
 * campaign (path: <dir>/report.html). */
vc_status_t vk_report_write_html(const char *dir, const char *path, const vk_filter_t *filter,
                                 char *err, size_t errlen);

#endif
