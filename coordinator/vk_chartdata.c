/* vk_chartdata: bounded chart data from the raw samples of a store. */
#include "vk_chartdata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "vc_log.h"
#include "vc_stats.h"

/* Distinct op names kept apart; more (only from a hostile or broken agent)
 * share the last slot. */
#define MAX_OPS 1000
/* Points of all CDFs together: each gets its share, at least CDF_MIN_POINTS. */
#define CDF_BUDGET 1000000
#define CDF_MIN_POINTS 50
/* Time buckets of a downsampled series: three points each at most. */
#define TS_BUCKETS (VK_CD_MAX_POINTS / 3)

int vk_cd_is_listing(const char *op)
{
    return strcmp(op, "ais-regular") == 0 || strcmp(op, "ais-nbi") == 0 ||
           strcmp(op, "s3-direct") == 0;
}

int vk_cd_site_index(const vk_chartdata_t *cd, const char *name)
{
    for (size_t i = 0; i < cd->nsites; i++)
        if (strcmp(cd->sites[i].name, name) == 0)
            return (int)i;
    return -1;
}

size_t vk_cd_cdf_points(const int64_t *sorted, size_t n, vk_cdf_pt_t *out, size_t max_points)
{
    if (!n || !max_points)
        return 0;
    if (max_points == 1) {
        out[0] = (vk_cdf_pt_t){(double)sorted[n - 1], 1.0};
        return 1;
    }
    size_t m = n < max_points ? n : max_points;
    for (size_t j = 0; j < m; j++) {
        /* evenly spaced ranks from the first to the last sample */
        size_t i = m == n ? j : (size_t)llround((double)j * (double)(n - 1) / (double)(m - 1));
        out[j] = (vk_cdf_pt_t){(double)sorted[i], (double)(i + 1) / (double)n};
    }
    return m;
}

/* ------------------------------------------------------------------------ */

typedef struct {
    int64_t *v;
    size_t n, cap;
} vec64_t;

/* One distribution while the samples are read. */
typedef struct {
    size_t site, op;
    int64_t scale;
    char label[VC_LABEL_MAX];
    vec64_t dur;
} dacc_t;

typedef struct {
    vk_ts_pt_t *v;
    size_t n, cap;
} vects_t;

typedef struct {
    sqlite3 *db;
    vk_chartdata_t *cd;
    size_t *site_of_row; /* jobs.id -> site index + 1, 0 filtered out */
    size_t nrows;
    dacc_t *d;
    size_t nd, dcap;
    size_t *table; /* open addressing over d: index + 1 */
    size_t tcap;
    vects_t *ts; /* per site */
    size_t nts;
    size_t opcap;
} build_t;

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap + *cap / 2 : 16;
    void *p = realloc(*v, ncap * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = ncap;
    return 0;
}

static uint64_t dkey(size_t site, size_t op, int64_t scale)
{
    uint64_t h = ((uint64_t)site * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)op << 32) ^
                 ((uint64_t)scale * 0xBF58476D1CE4E5B9ULL);
    return h ^ (h >> 31);
}

static int rehash(build_t *b, size_t tcap)
{
    size_t *t = calloc(tcap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < b->nd; i++) {
        size_t h = (size_t)dkey(b->d[i].site, b->d[i].op, b->d[i].scale) & (tcap - 1);
        while (t[h])
            h = (h + 1) & (tcap - 1);
        t[h] = i + 1;
    }
    free(b->table);
    b->table = t;
    b->tcap = tcap;
    return 0;
}

static dacc_t *dist_get(build_t *b, size_t site, size_t op, int64_t scale, const char *label)
{
    if (!b->tcap && rehash(b, 64))
        return NULL;
    size_t h = (size_t)dkey(site, op, scale) & (b->tcap - 1);
    while (b->table[h]) {
        dacc_t *d = &b->d[b->table[h] - 1];
        if (d->site == site && d->op == op && d->scale == scale)
            return d;
        h = (h + 1) & (b->tcap - 1);
    }
    void *v = b->d;
    if (grow(&v, &b->dcap, b->nd, sizeof *b->d))
        return NULL;
    b->d = v;
    dacc_t *d = &b->d[b->nd];
    memset(d, 0, sizeof *d);
    d->site = site;
    d->op = op;
    d->scale = scale;
    snprintf(d->label, sizeof d->label, "%s", label ? label : "");
    vk_text_scrub(d->label);
    b->table[h] = ++b->nd;
    if (b->nd * 2 > b->tcap && rehash(b, b->tcap * 2))
        return NULL;
    return &b->d[b->nd - 1];
}

/* The index of an op name, adding it; MAX_OPS - 1 is shared by the rest. */
static long op_index(build_t *b, const char *op)
{
    vk_chartdata_t *cd = b->cd;
    for (size_t i = 0; i < cd->nops; i++)
        if (strncmp(cd->ops[i], op, VC_OP_MAX - 1) == 0)
            return (long)i;
    if (cd->nops == MAX_OPS - 1) {
        void *v = cd->ops;
        if (grow(&v, &b->opcap, cd->nops, sizeof *cd->ops))
            return -1;
        cd->ops = v;
        snprintf(cd->ops[cd->nops++], VC_OP_MAX, "(other ops)");
    }
    if (cd->nops >= MAX_OPS)
        return MAX_OPS - 1;
    void *v = cd->ops;
    if (grow(&v, &b->opcap, cd->nops, sizeof *cd->ops))
        return -1;
    cd->ops = v;
    snprintf(cd->ops[cd->nops], VC_OP_MAX, "%s", op);
    vk_text_scrub(cd->ops[cd->nops]);
    return (long)cd->nops++;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const vk_cd_site_t *)a)->name, ((const vk_cd_site_t *)b)->name);
}

/* The sites of the jobs that pass the filter, and which jobs row is which site. */
static vc_status_t read_sites(build_t *b, const vk_filter_t *f)
{
    sqlite3_stmt *s = NULL;
    vk_chartdata_t *cd = b->cd;
    int64_t maxid = 0;
    size_t count = 0;
    if (sqlite3_prepare_v2(b->db, "SELECT coalesce(max(id), 0), count(*) FROM jobs", -1, &s,
                           NULL) != SQLITE_OK)
        return VC_ERR_IO;
    if (sqlite3_step(s) == SQLITE_ROW) {
        maxid = sqlite3_column_int64(s, 0);
        count = (size_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (maxid < 0 || maxid > 100000000)
        return VC_ERR_PROTO;
    b->nrows = (size_t)maxid + 1;
    b->site_of_row = calloc(b->nrows, sizeof *b->site_of_row);
    int64_t *rows = calloc(count ? count : 1, sizeof *rows);
    char (*names)[VK_CD_NAME_MAX] = calloc(count ? count : 1, sizeof *names);
    cd->sites = calloc(count ? count : 1, sizeof *cd->sites);
    vc_status_t rc = VC_OK;
    size_t nr = 0;
    if (!b->site_of_row || !rows || !names || !cd->sites) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    if (sqlite3_prepare_v2(b->db, "SELECT j.id, j.job, a.name, a.site FROM jobs j"
                                  " JOIN agents a ON a.id = j.agent_id",
                           -1, &s, NULL) != SQLITE_OK) {
        rc = VC_ERR_IO;
        goto done;
    }
    while (sqlite3_step(s) == SQLITE_ROW && nr < count) {
        const char *job = (const char *)sqlite3_column_text(s, 1);
        const char *agent = (const char *)sqlite3_column_text(s, 2);
        const char *site = (const char *)sqlite3_column_text(s, 3);
        if ((f->job && (!job || strcmp(f->job, job))) ||
            (f->agent && (!agent || strcmp(f->agent, agent))))
            continue;
        rows[nr] = sqlite3_column_int64(s, 0);
        snprintf(names[nr], VK_CD_NAME_MAX, "%s", site && *site ? site : agent ? agent : "-");
        vk_text_scrub(names[nr]);
        size_t i = 0;
        while (i < cd->nsites && strcmp(cd->sites[i].name, names[nr]) != 0)
            i++;
        if (i == cd->nsites)
            snprintf(cd->sites[cd->nsites++].name, VK_CD_NAME_MAX, "%s", names[nr]);
        nr++;
    }
    sqlite3_finalize(s);
    qsort(cd->sites, cd->nsites, sizeof *cd->sites, cmp_name);
    for (size_t r = 0; r < nr; r++) {
        int si = vk_cd_site_index(cd, names[r]);
        if (rows[r] >= 0 && rows[r] <= maxid && si >= 0)
            b->site_of_row[rows[r]] = (size_t)si + 1;
    }
    b->ts = calloc(cd->nsites ? cd->nsites : 1, sizeof *b->ts);
    if (!b->ts)
        rc = VC_ERR_NOMEM;
    else
        b->nts = cd->nsites;
done:
    free(rows);
    free(names);
    return rc;
}

enum { C_ROW, C_OP, C_SCALE, C_LABEL, C_DUR, C_START, C_ECLASS, C_FLAGS, C_HAS_START };

static vc_status_t scan(build_t *b)
{
    static const char sql[] =
        "SELECT job_row, op, coalesce(scale, -1), label, coalesce(duration_ns, -1),"
        " coalesce(start_ns, 0), err_class, flags, start_ns IS NOT NULL FROM samples";
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(b->db, sql, -1, &s, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    vc_status_t rc = VC_OK;
    dacc_t *last = NULL;
    long last_op = -1;
    char last_name[VC_OP_MAX] = "";
    int r;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t row = sqlite3_column_int64(s, C_ROW);
        if (row < 0 || (size_t)row >= b->nrows || !b->site_of_row[row])
            continue;
        if (sqlite3_column_int64(s, C_FLAGS) & VC_SF_WARMUP)
            continue;
        size_t site = b->site_of_row[row] - 1;
        const char *op = (const char *)sqlite3_column_text(s, C_OP);
        if (!op)
            continue;
        /* Samples of one op arrive in runs: the last name first. */
        if (last_op < 0 || strncmp(last_name, op, VC_OP_MAX - 1) != 0) {
            if ((last_op = op_index(b, op)) < 0) {
                rc = VC_ERR_NOMEM;
                break;
            }
            snprintf(last_name, sizeof last_name, "%s", op);
            last = NULL;
        }
        int64_t dur = sqlite3_column_int64(s, C_DUR);
        int failed = sqlite3_column_int64(s, C_ECLASS) != VC_EC_NONE || dur < 0;
        if (!failed) {
            int64_t scale = sqlite3_column_int64(s, C_SCALE);
            if (!last || last->site != site || last->op != (size_t)last_op ||
                last->scale != scale) {
                last = dist_get(b, site, (size_t)last_op, scale,
                                (const char *)sqlite3_column_text(s, C_LABEL));
                if (!last) {
                    rc = VC_ERR_NOMEM;
                    break;
                }
            }
            void *v = last->dur.v;
            if (grow(&v, &last->dur.cap, last->dur.n, sizeof *last->dur.v)) {
                rc = VC_ERR_NOMEM;
                break;
            }
            last->dur.v = v;
            last->dur.v[last->dur.n++] = dur;
        }
        /* calibration measures the agent, not the service: not on the timeline */
        if (!sqlite3_column_int64(s, C_HAS_START) || strncmp(op, "calibrate-", 10) == 0)
            continue;
        vects_t *ts = &b->ts[site];
        void *v = ts->v;
        if (grow(&v, &ts->cap, ts->n, sizeof *ts->v)) {
            rc = VC_ERR_NOMEM;
            break;
        }
        ts->v = v;
        ts->v[ts->n++] = (vk_ts_pt_t){sqlite3_column_int64(s, C_START), dur,
                                      (uint16_t)last_op, (uint8_t)failed};
    }
    if (!rc && r != SQLITE_DONE)
        rc = VC_ERR_IO;
    sqlite3_finalize(s);
    return rc;
}

static int cmp_dist(const void *pa, const void *pb, void *ctx)
{
    const vk_cd_dist_t *a = pa, *b = pb;
    (void)ctx;
    int ra = vk_op_rank(a->op), rb = vk_op_rank(b->op), c;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if ((c = strcmp(a->op, b->op)))
        return c;
    if (a->scale != b->scale)
        return a->scale < b->scale ? -1 : 1;
    return (a->site > b->site) - (a->site < b->site);
}

/* The listing point a CDF chart shows for `op`: the scale most sites
 * measured, the largest of those on a tie. */
static int64_t listing_cdf_scale(const vk_chartdata_t *cd, const char *op)
{
    int64_t best = -2;
    size_t best_sites = 0;
    for (size_t i = 0; i < cd->ndists; i++) {
        if (strcmp(cd->dists[i].op, op) != 0)
            continue;
        size_t k = 0;
        for (size_t j = 0; j < cd->ndists; j++)
            k += strcmp(cd->dists[j].op, op) == 0 && cd->dists[j].scale == cd->dists[i].scale;
        if (k > best_sites || (k == best_sites && cd->dists[i].scale > best)) {
            best_sites = k;
            best = cd->dists[i].scale;
        }
    }
    return best;
}

static int wants_cdf(const vk_chartdata_t *cd, const vk_cd_dist_t *d)
{
    if (!vk_cd_is_listing(d->op))
        return 1;
    return d->scale == listing_cdf_scale(cd, d->op);
}

static vc_status_t finish_dists(build_t *b)
{
    vk_chartdata_t *cd = b->cd;
    cd->dists = calloc(b->nd ? b->nd : 1, sizeof *cd->dists);
    if (!cd->dists)
        return VC_ERR_NOMEM;
    for (size_t i = 0; i < b->nd; i++) {
        dacc_t *a = &b->d[i];
        vk_cd_dist_t *d = &cd->dists[i];
        d->site = a->site;
        snprintf(d->op, sizeof d->op, "%s", cd->ops[a->op]);
        snprintf(d->label, sizeof d->label, "%s", a->label);
        d->scale = a->scale;
        d->n = a->dur.n;
        vc_stats_sort_i64(a->dur.v, a->dur.n);
        d->min = a->dur.n ? (double)a->dur.v[0] : NAN;
        d->max = a->dur.n ? (double)a->dur.v[a->dur.n - 1] : NAN;
        d->p5 = vc_stats_percentile_i64(a->dur.v, a->dur.n, 0.05);
        d->p50 = vc_stats_median_i64(a->dur.v, a->dur.n);
        d->p95 = vc_stats_percentile_i64(a->dur.v, a->dur.n, 0.95);
    }
    cd->ndists = b->nd;
    size_t want = 0;
    for (size_t i = 0; i < cd->ndists; i++)
        want += wants_cdf(cd, &cd->dists[i]);
    size_t share = want ? CDF_BUDGET / want : VK_CD_MAX_POINTS;
    share = share > VK_CD_MAX_POINTS ? VK_CD_MAX_POINTS : share < CDF_MIN_POINTS ? CDF_MIN_POINTS
                                                                                 : share;
    for (size_t i = 0; i < cd->ndists; i++) {
        vk_cd_dist_t *d = &cd->dists[i];
        if (!d->n || !wants_cdf(cd, d))
            continue;
        size_t m = d->n < share ? d->n : share;
        if (!(d->cdf = malloc(m * sizeof *d->cdf)))
            return VC_ERR_NOMEM;
        d->ncdf = vk_cd_cdf_points(b->d[i].dur.v, d->n, d->cdf, share);
    }
    qsort_r(cd->dists, cd->ndists, sizeof *cd->dists, cmp_dist, NULL);
    return VC_OK;
}

static int cmp_ts(const void *pa, const void *pb)
{
    const vk_ts_pt_t *a = pa, *b = pb;
    return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

typedef struct {
    size_t lo, hi, err; /* indices + 1 of the fastest, slowest, first failed */
} bucket_t;

/* Keeps every sample of a small series; else per time bucket the fastest
 * and the slowest successful sample and the first failed one. */
static vc_status_t finish_series(vects_t *ts, vk_cd_site_t *site)
{
    site->n = ts->n;
    for (size_t i = 0; i < ts->n; i++)
        site->failed += ts->v[i].failed;
    if (ts->n <= VK_CD_MAX_POINTS) {
        qsort(ts->v, ts->n, sizeof *ts->v, cmp_ts);
        site->pt = ts->v;
        site->npt = ts->n;
        ts->v = NULL;
        return VC_OK;
    }
    int64_t lo = ts->v[0].t_ns, hi = lo;
    for (size_t i = 1; i < ts->n; i++) {
        lo = ts->v[i].t_ns < lo ? ts->v[i].t_ns : lo;
        hi = ts->v[i].t_ns > hi ? ts->v[i].t_ns : hi;
    }
    bucket_t *bk = calloc(TS_BUCKETS, sizeof *bk);
    site->pt = malloc(3 * TS_BUCKETS * sizeof *site->pt);
    if (!bk || !site->pt) {
        free(bk);
        return VC_ERR_NOMEM;
    }
    double span = (double)hi - (double)lo + 1;
    for (size_t i = 0; i < ts->n; i++) {
        const vk_ts_pt_t *p = &ts->v[i];
        size_t k = (size_t)(((double)p->t_ns - (double)lo) / span * TS_BUCKETS);
        bucket_t *b = &bk[k < TS_BUCKETS ? k : TS_BUCKETS - 1];
        if (p->failed) {
            if (!b->err || p->t_ns < ts->v[b->err - 1].t_ns)
                b->err = i + 1;
            continue;
        }
        if (!b->lo || p->dur_ns < ts->v[b->lo - 1].dur_ns)
            b->lo = i + 1;
        if (!b->hi || p->dur_ns > ts->v[b->hi - 1].dur_ns)
            b->hi = i + 1;
    }
    size_t n = 0;
    for (size_t k = 0; k < TS_BUCKETS; k++) {
        if (bk[k].lo)
            site->pt[n++] = ts->v[bk[k].lo - 1];
        if (bk[k].hi && bk[k].hi != bk[k].lo)
            site->pt[n++] = ts->v[bk[k].hi - 1];
        if (bk[k].err)
            site->pt[n++] = ts->v[bk[k].err - 1];
    }
    free(bk);
    qsort(site->pt, n, sizeof *site->pt, cmp_ts);
    site->npt = n;
    site->downsampled = 1;
    return VC_OK;
}

static void col_text(char *dst, size_t size, sqlite3_stmt *s, int col)
{
    const char *v = (const char *)sqlite3_column_text(s, col);
    snprintf(dst, size, "%s", v ? v : "");
    vk_text_scrub(dst);
}

static int64_t col_i64(sqlite3_stmt *s, int col, int64_t unknown)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? unknown : sqlite3_column_int64(s, col);
}

static vc_status_t read_agents(build_t *b, const vk_filter_t *f)
{
    static const char sql[] =
        "SELECT a.name, a.site, a.host_facts,"
        " (SELECT count(*) FROM clock_offsets o WHERE o.agent_id = a.id),"
        " l.offset_ns, l.error_ns, l.rtt_ns,"
        " (SELECT min(offset_ns) FROM clock_offsets o WHERE o.agent_id = a.id),"
        " (SELECT max(offset_ns) FROM clock_offsets o WHERE o.agent_id = a.id)"
        " FROM agents a LEFT JOIN clock_offsets l ON l.rowid = (SELECT o.rowid FROM"
        "  clock_offsets o WHERE o.agent_id = a.id ORDER BY o.at_ns DESC LIMIT 1)"
        " WHERE (?1 IS NULL OR a.name = ?1)"
        "  AND (?2 IS NULL OR EXISTS (SELECT 1 FROM jobs j WHERE j.agent_id = a.id"
        "                             AND j.job = ?2))"
        " ORDER BY a.name";
    vk_chartdata_t *cd = b->cd;
    sqlite3_stmt *s = NULL;
    size_t cap = 0;
    if (sqlite3_prepare_v2(b->db, sql, -1, &s, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    if (f->agent)
        sqlite3_bind_text(s, 1, f->agent, -1, SQLITE_STATIC);
    if (f->job)
        sqlite3_bind_text(s, 2, f->job, -1, SQLITE_STATIC);
    vc_status_t rc = VC_OK;
    while (sqlite3_step(s) == SQLITE_ROW) {
        void *v = cd->agents;
        if (grow(&v, &cap, cd->nagents, sizeof *cd->agents)) {
            rc = VC_ERR_NOMEM;
            break;
        }
        cd->agents = v;
        vk_cd_agent_t *a = &cd->agents[cd->nagents++];
        memset(a, 0, sizeof *a);
        col_text(a->name, sizeof a->name, s, 0);
        col_text(a->site, sizeof a->site, s, 1);
        const char *facts = (const char *)sqlite3_column_text(s, 2);
        if (facts && *facts) {
            if (!(a->host_facts = strdup(facts))) {
                rc = VC_ERR_NOMEM;
                break;
            }
            vk_text_scrub(a->host_facts);
        }
        a->noffsets = (size_t)sqlite3_column_int64(s, 3);
        a->offset_ns = col_i64(s, 4, 0);
        a->error_ns = col_i64(s, 5, -1);
        a->rtt_ns = col_i64(s, 6, -1);
        a->min_offset_ns = col_i64(s, 7, 0);
        a->max_offset_ns = col_i64(s, 8, 0);
    }
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_chartdata_build(vk_store_t *st, const vk_filter_t *filter, vk_chartdata_t **out,
                               char *err, size_t errlen)
{
    static const vk_filter_t none = {0};
    build_t b = {.db = vk_store_sqlite(st)};
    vc_status_t rc;
    *out = NULL;
    if (!filter)
        filter = &none;
    if (!(b.cd = calloc(1, sizeof *b.cd))) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    if ((rc = read_sites(&b, filter)) || (rc = scan(&b)) || (rc = finish_dists(&b)) ||
        (rc = read_agents(&b, filter)))
        goto done;
    vk_chartdata_t *cd = b.cd;
    int any = 0;
    for (size_t i = 0; i < cd->nsites; i++) {
        if ((rc = finish_series(&b.ts[i], &cd->sites[i])))
            goto done;
        const vk_cd_site_t *s = &cd->sites[i];
        if (!s->npt)
            continue;
        if (!any || s->pt[0].t_ns < cd->t_min)
            cd->t_min = s->pt[0].t_ns;
        if (!any || s->pt[s->npt - 1].t_ns > cd->t_max)
            cd->t_max = s->pt[s->npt - 1].t_ns;
        any = 1;
    }
done:
    if (rc) {
        if (rc == VC_ERR_NOMEM)
            snprintf(err, errlen, "out of memory reading the chart data of %s",
                     vk_store_path(st));
        else
            snprintf(err, errlen, "%s: reading the chart data failed: %s", vk_store_path(st),
                     sqlite3_errmsg(b.db));
        vk_chartdata_destroy(&b.cd);
    }
    for (size_t i = 0; i < b.nd; i++)
        free(b.d[i].dur.v);
    free(b.d);
    free(b.table);
    for (size_t i = 0; i < b.nts; i++)
        free(b.ts[i].v);
    free(b.ts);
    free(b.site_of_row);
    *out = b.cd;
    return rc;
}

void vk_chartdata_destroy(vk_chartdata_t **p)
{
    if (!p || !*p)
        return;
    vk_chartdata_t *cd = *p;
    for (size_t i = 0; i < cd->nsites; i++)
        free(cd->sites[i].pt);
    for (size_t i = 0; i < cd->ndists; i++)
        free(cd->dists[i].cdf);
    for (size_t i = 0; i < cd->nagents; i++)
        free(cd->agents[i].host_facts);
    free(cd->sites);
    free(cd->dists);
    free(cd->ops);
    free(cd->agents);
    free(cd);
    *p = NULL;
}
