/* vk_summary: report numbers from the raw samples of a results store. */
#include "vk_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "vc_job_json.h"
#include "vc_log.h"

static const char *const phase_names[VK_PH_COUNT] = {"dns", "connect", "tls", "first_byte",
                                                      "transfer"};

const char *vk_phase_name(vk_phase_t p)
{
    return (unsigned)p < VK_PH_COUNT ? phase_names[p] : "unknown";
}

/* The seeds' listing paths and operations first, in the order they print. */
static const char *const op_order[] = {
    "ais-regular", "ais-nbi", "s3-direct", "nbi-create", "put", "get", "head", "delete",
    "probe-connect", "probe-head", NULL,
};

int vk_op_rank(const char *op)
{
    for (int i = 0; op_order[i]; i++)
        if (strcmp(op, op_order[i]) == 0)
            return i;
    return 100;
}

const char *vk_s3bench_label(const char *op)
{
    static const char *const map[][2] = {
        {"put", "upload"}, {"get", "download"}, {"head", "exists?"}, {"delete", "delete"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(op, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

int vk_op_is_baseline(const char *op)
{
    return strcmp(op, "probe-connect") == 0 || strcmp(op, "probe-head") == 0;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
static int utf8_len(const unsigned char *p)
{
    int n;
    uint32_t cp;
    if (p[0] < 0x80)
        return 1;
    if ((p[0] & 0xe0) == 0xc0)
        n = 2, cp = p[0] & 0x1f;
    else if ((p[0] & 0xf0) == 0xe0)
        n = 3, cp = p[0] & 0x0f;
    else if ((p[0] & 0xf8) == 0xf0)
        n = 4, cp = p[0] & 0x07;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

static void scrub(char *s, int keep_lines)
{
    unsigned char *p = (unsigned char *)s;
    while (p && *p) {
        int n = utf8_len(p);
        int line = keep_lines && (*p == '\n' || *p == '\t');
        int ctl = n == 1 && (*p < 0x20 || *p == 0x7f) && !line;
        if (n == 0 || ctl) {
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

void vk_text_scrub(char *s)
{
    scrub(s, 0);
}

/* The NBI table's ops: the three paths, the creation, and the count check
 * and inventory removal, whose failures must show as the point's ERROR row. */
static int is_listing_op(const char *op)
{
    return vk_op_rank(op) <= 3 || strcmp(op, "count-check") == 0 || strcmp(op, "nbi-destroy") == 0;
}

/* ------------------------------------------------------------------------ */
/* Growable arrays of the values one group collects. */

typedef struct {
    int64_t *v;
    size_t n, cap;
} vec64_t;

typedef struct {
    int32_t *v;
    size_t n, cap;
} vec32_t;

/* Grows the array that *pp (a pointer to any object pointer) points to so
 * that item n fits; -1 when out of memory. The pointer is read and written
 * with memcpy because its type is not void *. */
static int grow(void *pp, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    void *v;
    memcpy(&v, pp, sizeof v);
    size_t ncap = *cap ? *cap + *cap / 2 : 16;
    void *p = realloc(v, ncap * elem);
    if (!p)
        return -1;
    memcpy(pp, &p, sizeof p);
    *cap = ncap;
    return 0;
}

static int vec64_push(vec64_t *a, int64_t x)
{
    if (grow(&a->v, &a->cap, a->n, sizeof *a->v))
        return -1;
    a->v[a->n++] = x;
    return 0;
}

static int vec32_push(vec32_t *a, int32_t x)
{
    if (grow(&a->v, &a->cap, a->n, sizeof *a->v))
        return -1;
    a->v[a->n++] = x;
    return 0;
}

/* A group while the samples are read. */
typedef struct {
    vk_group_t g;
    vec64_t dur, server;
    vec32_t phase[VK_PH_COUNT]; /* µs */
    size_t iter_cap;
    int want_iters;
} acc_t;

typedef struct {
    acc_t *acc;
    size_t n, cap;
    size_t *table; /* open addressing: index + 1, 0 empty */
    size_t tcap;
} groups_t;

/* Keys are the op and label as far as the group's fields hold them: longer
 * texts (only possible in a file written by something else) share a group. */
static uint64_t hash_key(size_t job, const char *op, const char *label, int64_t scale)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)job;
    for (size_t i = 0; i < VC_OP_MAX - 1 && op[i]; i++)
        h = (h ^ (unsigned char)op[i]) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (size_t i = 0; i < VC_LABEL_MAX - 1 && label[i]; i++)
        h = (h ^ (unsigned char)label[i]) * 1099511628211ULL;
    h ^= (uint64_t)scale * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static int acc_matches(const acc_t *a, size_t job, const char *op, const char *label,
                       int64_t scale)
{
    return a->g.job_index == job && a->g.scale == scale &&
           strncmp(a->g.op, op, sizeof a->g.op - 1) == 0 &&
           strncmp(a->g.label, label, sizeof a->g.label - 1) == 0;
}

static int groups_rehash(groups_t *gs, size_t tcap)
{
    size_t *t = calloc(tcap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < gs->n; i++) {
        const vk_group_t *g = &gs->acc[i].g;
        size_t h = (size_t)hash_key(g->job_index, g->op, g->label, g->scale) & (tcap - 1);
        while (t[h])
            h = (h + 1) & (tcap - 1);
        t[h] = i + 1;
    }
    free(gs->table);
    gs->table = t;
    gs->tcap = tcap;
    return 0;
}

/* Finds or adds the group; NULL when out of memory. */
static acc_t *groups_get(groups_t *gs, size_t job, const char *op, const char *label,
                         int64_t scale)
{
    if (gs->tcap == 0 && groups_rehash(gs, 64))
        return NULL;
    size_t h = (size_t)hash_key(job, op, label, scale) & (gs->tcap - 1);
    while (gs->table[h]) {
        acc_t *a = &gs->acc[gs->table[h] - 1];
        if (acc_matches(a, job, op, label, scale))
            return a;
        h = (h + 1) & (gs->tcap - 1);
    }
    if (grow(&gs->acc, &gs->cap, gs->n, sizeof *gs->acc))
        return NULL;
    acc_t *a = &gs->acc[gs->n];
    memset(a, 0, sizeof *a);
    a->g.job_index = job;
    snprintf(a->g.op, sizeof a->g.op, "%s", op);
    snprintf(a->g.label, sizeof a->g.label, "%s", label);
    a->g.scale = scale;
    a->want_iters = vk_s3bench_label(op) != NULL;
    gs->table[h] = ++gs->n;
    if (gs->n * 2 > gs->tcap && groups_rehash(gs, gs->tcap * 2))
        return NULL;
    return &gs->acc[gs->n - 1];
}

static void acc_free(acc_t *a)
{
    free(a->dur.v);
    free(a->server.v);
    for (int p = 0; p < VK_PH_COUNT; p++) {
        free(a->phase[p].v);
        a->phase[p].v = NULL;
    }
    a->dur.v = a->server.v = NULL;
}

/* ------------------------------------------------------------------------ */

static void col_text(char *dst, size_t size, sqlite3_stmt *s, int col)
{
    const char *v = (const char *)sqlite3_column_text(s, col);
    snprintf(dst, size, "%s", v ? v : "");
}

static int64_t col_i64(sqlite3_stmt *s, int col, int64_t unknown)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? unknown : sqlite3_column_int64(s, col);
}

/* A column of the scan, which has no NULL numbers (SCAN_SQL). */
static int64_t scan_i64(sqlite3_stmt *s, int col)
{
    return sqlite3_column_int64(s, col);
}

static vc_status_t read_campaign(sqlite3 *db, vk_summary_t *sum)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT name, config, start_ns, end_ns, vantage_version FROM"
                               " campaign WHERE id = 1",
                           -1, &s, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    if (sqlite3_step(s) == SQLITE_ROW) {
        col_text(sum->campaign.name, sizeof sum->campaign.name, s, 0);
        col_text(sum->campaign.config, sizeof sum->campaign.config, s, 1);
        sum->campaign.start_ns = col_i64(s, 2, 0);
        sum->campaign.end_ns = col_i64(s, 3, 0);
        col_text(sum->campaign.version, sizeof sum->campaign.version, s, 4);
        vk_text_scrub(sum->campaign.name);
        vk_text_scrub(sum->campaign.version);
        scrub(sum->campaign.config, 1); /* a config keeps its lines */
    }
    sqlite3_finalize(s);
    return VC_OK;
}

/* The workload and target of a job from its stored spec (vc_job_json), for
 * headings; a missing or unreadable spec leaves them empty. */
static void describe_spec(vk_job_info_t *j, const char *spec)
{
    if (!spec || !*spec)
        return;
    vc_job_t *job = malloc(sizeof *job);
    char err[256];
    if (job && vc_job_from_json(spec, job, err, sizeof err) == VC_OK) {
        snprintf(j->workload, sizeof j->workload, "%s", vc_workload_name(job->kind));
        if (job->target.name[0] && job->target.bucket[0])
            snprintf(j->target, sizeof j->target, "%s (%s)", job->target.name,
                     job->target.bucket);
        else
            snprintf(j->target, sizeof j->target, "%s", job->target.name);
        vk_text_scrub(j->target);
    }
    free(job);
}

/* Reads the (job, agent) rows that pass the filter; job_of_row maps a
 * jobs.id to its index + 1 (0: filtered out). */
static vc_status_t read_jobs(sqlite3 *db, const vk_filter_t *f, vk_summary_t *sum,
                             size_t **job_of_row, size_t *nrows)
{
    sqlite3_stmt *s = NULL;
    vc_status_t rc = VC_OK;
    int64_t maxid = 0;
    if (sqlite3_prepare_v2(db, "SELECT max(id), count(*) FROM jobs", -1, &s, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    size_t count = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
        maxid = col_i64(s, 0, 0);
        count = (size_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (maxid < 0 || maxid > 100000000)
        return VC_ERR_PROTO;
    *nrows = (size_t)maxid + 1;
    *job_of_row = calloc(*nrows, sizeof **job_of_row);
    sum->jobs = calloc(count ? count : 1, sizeof *sum->jobs);
    if (!*job_of_row || !sum->jobs)
        return VC_ERR_NOMEM;
    if (sqlite3_prepare_v2(db, "SELECT j.id, j.job, a.name, a.site, j.status,"
                               " coalesce(j.expected, -1), j.received, j.duplicates, j.errors,"
                               " j.error_text, j.spec FROM jobs j"
                               " JOIN agents a ON a.id = j.agent_id"
                               " ORDER BY j.job, a.name",
                           -1, &s, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    while (sqlite3_step(s) == SQLITE_ROW && sum->njobs < count) {
        int64_t id = sqlite3_column_int64(s, 0);
        vk_job_info_t *j = &sum->jobs[sum->njobs];
        col_text(j->job, sizeof j->job, s, 1);
        col_text(j->agent, sizeof j->agent, s, 2);
        if ((f->job && strcmp(f->job, j->job) != 0) || (f->agent && strcmp(f->agent, j->agent)))
            continue;
        col_text(j->site, sizeof j->site, s, 3);
        col_text(j->status, sizeof j->status, s, 4);
        j->expected = sqlite3_column_int64(s, 5);
        j->received = sqlite3_column_int64(s, 6);
        j->duplicates = sqlite3_column_int64(s, 7);
        j->errors = sqlite3_column_int64(s, 8);
        col_text(j->error_text, sizeof j->error_text, s, 9);
        vk_text_scrub(j->job);
        vk_text_scrub(j->agent);
        vk_text_scrub(j->site);
        vk_text_scrub(j->status);
        vk_text_scrub(j->error_text);
        describe_spec(j, (const char *)sqlite3_column_text(s, 10));
        if (id >= 0 && id <= maxid)
            (*job_of_row)[id] = ++sum->njobs;
    }
    sqlite3_finalize(s);
    return rc;
}

enum {
    C_JOB, C_OP, C_LABEL, C_SCALE, C_DUR, C_SERVER, C_ECLASS, C_FLAGS, C_DNS, C_CONN, C_TLS,
    C_TTFB, C_CPU_U, C_CPU_S, C_RUN, C_ECODE, C_EMSG, C_BSENT, C_BRECV, C_RETRIES,
};

/* Phase durations of one successful sample, µs; -1 where unknown. */
static void phases_of(sqlite3_stmt *s, int64_t dur_ns, int64_t out[VK_PH_COUNT])
{
    int64_t dns = scan_i64(s, C_DNS), conn = scan_i64(s, C_CONN);
    int64_t tls = scan_i64(s, C_TLS), ttfb = scan_i64(s, C_TTFB);
    for (int p = 0; p < VK_PH_COUNT; p++)
        out[p] = -1;
    out[VK_PH_DNS] = dns;
    if (conn >= 0 && dns >= 0 && conn >= dns)
        out[VK_PH_CONNECT] = conn - dns;
    if (tls > 0 && conn >= 0 && tls >= conn)
        out[VK_PH_TLS] = tls - conn; /* 0 means no TLS on this request */
    int64_t ready = tls > 0 ? tls : conn > 0 ? conn : 0;
    if (ttfb >= 0 && ttfb >= ready)
        out[VK_PH_FIRST_BYTE] = ttfb - ready;
    if (ttfb >= 0 && dur_ns >= 0 && dur_ns / 1000 >= ttfb)
        out[VK_PH_TRANSFER] = dur_ns / 1000 - ttfb;
}

static vc_status_t add_row(acc_t *a, sqlite3_stmt *s)
{
    vk_group_t *g = &a->g;
    uint32_t flags = (uint32_t)sqlite3_column_int64(s, C_FLAGS);
    if (flags & VC_SF_WARMUP) {
        g->warmup++;
        return VC_OK;
    }
    g->total++;
    if (flags & VC_SF_SATURATED)
        g->saturated++;
    if (flags & VC_SF_RETRIED || sqlite3_column_int64(s, C_RETRIES) > 0)
        g->retried++;
    int64_t ec = sqlite3_column_int64(s, C_ECLASS);
    int64_t dur = scan_i64(s, C_DUR);
    int failed = ec != VC_EC_NONE || dur < 0;
    char errtext[sizeof g->first_error] = "";
    if (failed) {
        g->errors++;
        g->err_by_class[ec > 0 && ec < VC_EC_COUNT ? ec : VC_EC_OTHER]++;
        const char *code = (const char *)sqlite3_column_text(s, C_ECODE);
        const char *msg = (const char *)sqlite3_column_text(s, C_EMSG);
        snprintf(errtext, sizeof errtext, "%s%s%s", code ? code : "",
                 code && msg ? ": " : "", msg ? msg : (code ? "" : "no duration"));
        vk_text_scrub(errtext);
        if (!g->first_error[0])
            snprintf(g->first_error, sizeof g->first_error, "%s", errtext);
    } else {
        g->ok++;
        if (vec64_push(&a->dur, dur))
            return VC_ERR_NOMEM;
        int64_t server = scan_i64(s, C_SERVER);
        if (server >= 0 && vec64_push(&a->server, server))
            return VC_ERR_NOMEM;
        int64_t ph[VK_PH_COUNT];
        phases_of(s, dur, ph);
        for (int p = 0; p < VK_PH_COUNT; p++)
            if (ph[p] >= 0 && vec32_push(&a->phase[p], ph[p] > INT32_MAX ? INT32_MAX
                                                                           : (int32_t)ph[p]))
                return VC_ERR_NOMEM;
        int64_t cu = scan_i64(s, C_CPU_U), cs = scan_i64(s, C_CPU_S);
        g->cpu_user_s += cu > 0 ? (double)cu / 1e6 : 0;
        g->cpu_sys_s += cs > 0 ? (double)cs / 1e6 : 0;
        g->real_s += (double)dur / 1e9;
        g->bytes_sent += scan_i64(s, C_BSENT);
        g->bytes_recv += scan_i64(s, C_BRECV);
    }
    if (!a->want_iters)
        return VC_OK;
    if (g->niters == VK_ITER_MAX) {
        g->iters_truncated = 1;
        return VC_OK;
    }
    if (grow(&g->iters, &a->iter_cap, g->niters, sizeof *g->iters))
        return VC_ERR_NOMEM;
    vk_iter_t *it = &g->iters[g->niters++];
    memset(it, 0, sizeof *it);
    int64_t run = scan_i64(s, C_RUN);
    it->run = run >= 0 && run <= INT32_MAX ? (int32_t)run : (int32_t)(g->niters - 1);
    it->cpu_user_us = scan_i64(s, C_CPU_U);
    it->cpu_sys_us = scan_i64(s, C_CPU_S);
    it->duration_ns = dur;
    it->failed = failed;
    snprintf(it->error, sizeof it->error, "%s", errtext);
    return VC_OK;
}

static int cmp_iter(const void *a, const void *b)
{
    const vk_iter_t *x = a, *y = b;
    return (x->run > y->run) - (x->run < y->run);
}

static void finish_group(acc_t *a)
{
    vk_group_t *g = &a->g;
    /* Only now: the scan matched rows against the unscrubbed text. */
    vk_text_scrub(g->op);
    vk_text_scrub(g->label);
    vc_stats_summarize_i64(a->dur.v, a->dur.n, &g->dur);
    g->p95_too_small = vc_stats_too_small(a->dur.n, 0.95);
    g->p99_too_small = vc_stats_too_small(a->dur.n, 0.99);
    vc_stats_summarize_i64(a->server.v, a->server.n, &g->server);
    for (int p = 0; p < VK_PH_COUNT; p++) {
        vec32_t *v = &a->phase[p];
        g->phase_n[p] = v->n;
        g->phase_p50_ns[p] = NAN;
        if (!v->n)
            continue;
        int64_t *tmp = malloc(v->n * sizeof *tmp);
        if (!tmp)
            continue;
        for (size_t i = 0; i < v->n; i++)
            tmp[i] = v->v[i];
        vc_stats_sort_i64(tmp, v->n);
        g->phase_p50_ns[p] = vc_stats_median_i64(tmp, v->n) * 1000;
        free(tmp);
    }
    if (g->niters > 1)
        qsort(g->iters, g->niters, sizeof *g->iters, cmp_iter);
    g->ratio_to_fastest = NAN;
    acc_free(a);
}

static int cmp_group(const void *pa, const void *pb, void *ctx)
{
    const vk_group_t *a = pa, *b = pb;
    const vk_summary_t *sum = ctx;
    const vk_job_info_t *ja = &sum->jobs[a->job_index], *jb = &sum->jobs[b->job_index];
    int c = strcmp(ja->job, jb->job);
    if (c)
        return c;
    int ra = vk_op_rank(a->op), rb = vk_op_rank(b->op);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if ((c = strcmp(a->op, b->op)))
        return c;
    if (a->scale != b->scale)
        return a->scale < b->scale ? -1 : 1;
    if ((c = strcmp(a->label, b->label)))
        return c;
    return strcmp(ja->agent, jb->agent);
}

static int same_point(const vk_summary_t *sum, const vk_group_t *a, const vk_group_t *b)
{
    return strcmp(sum->jobs[a->job_index].job, sum->jobs[b->job_index].job) == 0 &&
           strcmp(a->op, b->op) == 0 && a->scale == b->scale && strcmp(a->label, b->label) == 0;
}

/* Each group's p50 against the fastest agent's p50 at the same point. */
static void compute_ratios(vk_summary_t *sum)
{
    for (size_t i = 0; i < sum->ngroups;) {
        size_t j = i;
        double best = INFINITY;
        size_t best_at = i;
        while (j < sum->ngroups && same_point(sum, &sum->groups[i], &sum->groups[j])) {
            if (sum->groups[j].ok && sum->groups[j].dur.p50 < best) {
                best = sum->groups[j].dur.p50;
                best_at = j;
            }
            j++;
        }
        for (size_t k = i; k < j; k++) {
            vk_group_t *g = &sum->groups[k];
            if (g->ok && isfinite(best) && best > 0)
                g->ratio_to_fastest = g->dur.p50 / best;
            else if (g->ok && best == 0)
                g->ratio_to_fastest = g->dur.p50 == 0 ? 1 : INFINITY;
            g->fastest = g->ok && k == best_at;
        }
        i = j;
    }
}

static int cmp_nbi_row(const void *pa, const void *pb)
{
    const vk_nbi_row_t *a = pa, *b = pb;
    if (a->scale != b->scale)
        return a->scale < b->scale ? -1 : 1;
    return strcmp(a->label, b->label);
}

/* The seed's table: one per (job, agent) that has listing groups. */
static vc_status_t build_nbi(vk_summary_t *sum)
{
    sum->nbi = calloc(sum->njobs ? sum->njobs : 1, sizeof *sum->nbi);
    if (!sum->nbi)
        return VC_ERR_NOMEM;
    for (size_t ji = 0; ji < sum->njobs; ji++) {
        vk_nbi_table_t t = {.job_index = ji};
        for (size_t gi = 0; gi < sum->ngroups; gi++) {
            const vk_group_t *g = &sum->groups[gi];
            if (g->job_index != ji || !is_listing_op(g->op))
                continue;
            vk_nbi_row_t *row = NULL;
            for (size_t r = 0; r < t.nrows; r++)
                if (t.rows[r].scale == g->scale && strcmp(t.rows[r].label, g->label) == 0)
                    row = &t.rows[r];
            if (!row) {
                vk_nbi_row_t *p = realloc(t.rows, (t.nrows + 1) * sizeof *p);
                if (!p) {
                    free(t.rows);
                    return VC_ERR_NOMEM;
                }
                t.rows = p;
                row = &t.rows[t.nrows++];
                memset(row, 0, sizeof *row);
                snprintf(row->label, sizeof row->label, "%s", g->label);
                row->scale = g->scale;
            }
            switch (vk_op_rank(g->op)) {
            case 0: row->regular = g; break;
            case 1: row->nbi = g; break;
            case 2: row->direct = g; break;
            case 3: row->create = g; break;
            default: break; /* count-check, nbi-destroy: only their errors matter here */
            }
            if (g->errors && !row->failed) {
                row->failed = 1;
                snprintf(row->error, sizeof row->error, "%s: %s", g->op, g->first_error);
            }
            if (g->ok > t.runs && vk_op_rank(g->op) <= 2)
                t.runs = g->ok;
        }
        if (!t.nrows)
            continue;
        qsort(t.rows, t.nrows, sizeof *t.rows, cmp_nbi_row);
        for (size_t r = 0; r < t.nrows; r++) {
            vk_nbi_row_t *row = &t.rows[r];
            row->speedup = NAN;
            if (row->regular && row->nbi && row->regular->ok && row->nbi->ok &&
                row->nbi->dur.p50 > 0)
                row->speedup = row->regular->dur.p50 / row->nbi->dur.p50;
        }
        sum->nbi[sum->nnbi++] = t;
    }
    return VC_OK;
}

/* NULLs become -1 in SQL so that the loop reads each column with one call. */
#define SCAN_SQL                                                                                  \
    "SELECT job_row, op, label, coalesce(scale, -1), coalesce(duration_ns, -1),"                 \
    " coalesce(server_ns, -1), err_class, flags, coalesce(dns_us, -1),"                          \
    " coalesce(connect_us, -1), coalesce(tls_us, -1), coalesce(ttfb_us, -1),"                    \
    " coalesce(cpu_user_us, -1), coalesce(cpu_sys_us, -1), coalesce(run, -1), err_code,"         \
    " err_msg, coalesce(bytes_sent, 0), coalesce(bytes_recv, 0), retries FROM samples"

vc_status_t vk_summary_build(vk_store_t *st, const vk_filter_t *filter, vk_summary_t **out,
                             char *err, size_t errlen)
{
    static const vk_filter_t none = {0};
    sqlite3 *db = vk_store_sqlite(st);
    vc_status_t rc = VC_OK;
    sqlite3_stmt *s = NULL;
    size_t *job_of_row = NULL, nrows = 0;
    groups_t gs = {0};
    *out = NULL;
    vk_summary_t *sum = calloc(1, sizeof *sum);
    if (!sum)
        return VC_ERR_NOMEM;
    if (!filter)
        filter = &none;
    if ((rc = read_campaign(db, sum)) || (rc = read_jobs(db, filter, sum, &job_of_row, &nrows))) {
        snprintf(err, errlen, "%s: cannot read campaign and jobs: %s", vk_store_path(st),
                sqlite3_errmsg(db));
        goto done;
    }
    if (sqlite3_prepare_v2(db, SCAN_SQL, -1, &s, NULL) != SQLITE_OK) {
        rc = VC_ERR_IO;
        snprintf(err, errlen, "%s: %s", vk_store_path(st), sqlite3_errmsg(db));
        goto done;
    }
    acc_t *last = NULL;
    int r;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t row = sqlite3_column_int64(s, C_JOB);
        if (row < 0 || (size_t)row >= nrows || !job_of_row[row])
            continue;
        size_t ji = job_of_row[row] - 1;
        const char *op = (const char *)sqlite3_column_text(s, C_OP);
        const char *label = (const char *)sqlite3_column_text(s, C_LABEL);
        int64_t scale = sqlite3_column_int64(s, C_SCALE);
        if (!op || !label)
            continue;
        /* Samples of one group arrive in runs: try the last group first. */
        if (!last || !acc_matches(last, ji, op, label, scale)) {
            last = groups_get(&gs, ji, op, label, scale);
            if (!last) {
                rc = VC_ERR_NOMEM;
                break;
            }
        }
        if ((rc = add_row(last, s)))
            break;
    }
    if (!rc && r != SQLITE_DONE) {
        rc = VC_ERR_IO;
        snprintf(err, errlen, "%s: reading samples: %s", vk_store_path(st), sqlite3_errmsg(db));
        goto done;
    }
    if (rc) {
        snprintf(err, errlen, "out of memory summarising %s", vk_store_path(st));
        goto done;
    }
    sum->groups = calloc(gs.n ? gs.n : 1, sizeof *sum->groups);
    if (!sum->groups) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < gs.n; i++) {
        finish_group(&gs.acc[i]);
        sum->groups[i] = gs.acc[i].g;
        gs.acc[i].g.iters = NULL;
    }
    sum->ngroups = gs.n;
    qsort_r(sum->groups, sum->ngroups, sizeof *sum->groups, cmp_group, sum);
    for (size_t i = 0; i < sum->ngroups; i++) {
        vk_group_t *g = &sum->groups[i];
        g->job = sum->jobs[g->job_index].job;
        g->agent = sum->jobs[g->job_index].agent;
        g->site = sum->jobs[g->job_index].site;
    }
    compute_ratios(sum);
    rc = build_nbi(sum);
done:
    sqlite3_finalize(s);
    for (size_t i = 0; i < gs.n; i++) {
        acc_free(&gs.acc[i]);
        free(gs.acc[i].g.iters);
    }
    free(gs.acc);
    free(gs.table);
    free(job_of_row);
    if (rc)
        vk_summary_destroy(&sum);
    *out = sum;
    return rc;
}

void vk_summary_destroy(vk_summary_t **p)
{
    if (!p || !*p)
        return;
    vk_summary_t *s = *p;
    for (size_t i = 0; i < s->ngroups; i++)
        free(s->groups[i].iters);
    for (size_t i = 0; i < s->nnbi; i++)
        free(s->nbi[i].rows);
    free(s->nbi);
    free(s->groups);
    free(s->jobs);
    free(s);
    *p = NULL;
}

const vk_group_t *vk_summary_find(const vk_summary_t *s, const char *job, const char *agent,
                                  const char *op, int64_t scale, const char *label)
{
    for (size_t i = 0; i < s->ngroups; i++) {
        const vk_group_t *g = &s->groups[i];
        if (g->scale == scale && strcmp(g->op, op) == 0 && strcmp(g->label, label) == 0 &&
            strcmp(g->job, job) == 0 && strcmp(g->agent, agent) == 0)
            return g;
    }
    return NULL;
}
