/* vk_report: the report formats of `vantage report`, as a table of
 * renderers over a vk_summary_t (summary) or over the store (raw samples).
 * Adding a format is one renderer module and one entry in the table in
 * vk_report.c; summary computation never changes for it. */
#ifndef VK_REPORT_H
#define VK_REPORT_H

#include <stdio.h>

#include "vk_store.h"
#include "vk_summary.h"

struct sqlite3_stmt;

typedef struct {
    const char *name; /* --format NAME */
    /* Writes the summaries; NULL when the format is not built in yet. */
    vc_status_t (*summary)(const vk_summary_t *s, FILE *out);
    /* Writes every raw sample (--raw); NULL when the format has no raw form. */
    vc_status_t (*raw)(vk_store_t *st, const vk_filter_t *f, FILE *out);
    /* Writes the report from the store itself, for a format that needs more
     * than the summary (HTML: charts from the raw samples); NULL otherwise.
     * Used instead of `summary` when set; err says what failed. */
    vc_status_t (*store)(vk_store_t *st, const vk_filter_t *f, FILE *out, char *err,
                         size_t errlen);
} vk_report_format_t;

/* The format called `name`, or NULL. */
const vk_report_format_t *vk_report_format(const char *name);
/* "text|csv|json|html", for --help. */
const char *vk_report_format_names(void);

/* The raw-sample columns, in export order (docs/report-formats.md). */
extern const char *const vk_report_raw_columns[];
/* Prepares the raw-sample query (columns as vk_report_raw_columns) with the
 * filter bound. Caller finalizes *out. */
vc_status_t vk_report_raw_query(vk_store_t *st, const vk_filter_t *f, struct sqlite3_stmt **out);

#endif
