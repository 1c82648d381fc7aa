/* vk_report: the table of report formats and the raw-sample query. */
#include "vk_report.h"

#include <string.h>

#include <sqlite3.h>

#include "vc_log.h"
#include "vk_report_csv.h"
#include "vk_report_html.h"
#include "vk_report_json.h"
#include "vk_report_text.h"

static const vk_report_format_t formats[] = {
    {"text", vk_report_text, NULL, NULL},
    {"csv", vk_report_csv, vk_report_csv_raw, NULL},
    {"json", vk_report_json, vk_report_json_raw, NULL},
    /* HTML charts draw from the raw samples too (vk_chartdata). */
    {"html", NULL, NULL, vk_report_html_store},
};

const vk_report_format_t *vk_report_format(const char *name)
{
    for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

const char *vk_report_format_names(void)
{
    return "text|csv|json|html";
}

const char *const vk_report_raw_columns[] = {
    "id", "job", "agent", "site", "seq", "op", "label", "scale", "run", "worker",
    "start_wall_ns", "start_ns", "duration_ns", "server_ns", "dns_us", "connect_us", "tls_us",
    "ttfb_us", "bytes_sent", "bytes_recv", "pages", "keys", "http_status", "retries",
    "err_class", "err_code", "err_msg", "cpu_user_us", "cpu_sys_us", "flags", "saturated",
    "warmup", NULL,
};

vc_status_t vk_report_raw_query(vk_store_t *st, const vk_filter_t *f, sqlite3_stmt **out)
{
    static const char sql[] =
        "SELECT id, job, agent, site, seq, op, label, scale, run, worker, start_wall_ns,"
        " start_ns, duration_ns, server_ns, dns_us, connect_us, tls_us, ttfb_us, bytes_sent,"
        " bytes_recv, pages, keys, http_status, retries, err_name, err_code, err_msg,"
        " cpu_user_us, cpu_sys_us, flags, saturated, warmup FROM samples_v"
        " WHERE (?1 IS NULL OR agent = ?1) AND (?2 IS NULL OR job = ?2) ORDER BY id";
    *out = NULL;
    if (sqlite3_prepare_v2(vk_store_sqlite(st), sql, -1, out, NULL) != SQLITE_OK) {
        vc_error("report", "%s: %s", vk_store_path(st), vk_store_errmsg(st));
        return VC_ERR_IO;
    }
    if (f && f->agent)
        sqlite3_bind_text(*out, 1, f->agent, -1, SQLITE_STATIC);
    if (f && f->job)
        sqlite3_bind_text(*out, 2, f->job, -1, SQLITE_STATIC);
    return VC_OK;
}
