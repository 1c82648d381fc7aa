/* vk_dispatch: rt_meta and rt_dispatch tables beside the store's schema. */
#include "vk_dispatch.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vc_clock.h"

struct vk_dispatch_log {
    sqlite3 *db;
    uint64_t instance;
    uint64_t next_n;
    vk_dispatch_t *rows;
    size_t n, cap;
};

static const char *const schema =
    "CREATE TABLE IF NOT EXISTS rt_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS rt_dispatch ("
    "  job_id INTEGER PRIMARY KEY, job TEXT NOT NULL, agent TEXT NOT NULL,"
    "  slice INTEGER NOT NULL, seq_base INTEGER NOT NULL, status INTEGER NOT NULL,"
    "  final_seq INTEGER NOT NULL, errors INTEGER NOT NULL, sent_at INTEGER NOT NULL);";

static vk_dispatch_t *push(vk_dispatch_log_t *d)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        vk_dispatch_t *r = realloc(d->rows, cap * sizeof *r);
        if (!r)
            return NULL;
        d->rows = r;
        d->cap = cap;
    }
    vk_dispatch_t *r = &d->rows[d->n++];
    memset(r, 0, sizeof *r);
    return r;
}

vk_dispatch_log_t *vk_dispatch_open(vk_store_t *st, char *err, size_t errlen)
{
    vk_dispatch_log_t *d = calloc(1, sizeof *d);
    sqlite3_stmt *q = NULL;
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->db = vk_store_sqlite(st);
    if (sqlite3_exec(d->db, schema, NULL, NULL, NULL) != SQLITE_OK)
        goto sqlfail;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM rt_meta WHERE key = 'instance'", -1, &q,
                           NULL) != SQLITE_OK)
        goto sqlfail;
    if (sqlite3_step(q) == SQLITE_ROW) {
        d->instance = strtoull((const char *)sqlite3_column_text(q, 0), NULL, 16);
    } else {
        /* 31 bits of instance, 32 of dispatch counter: ids stay positive int64. */
        uint64_t seed = (uint64_t)vc_wall_now() ^ ((uint64_t)getpid() << 32);
        seed ^= seed >> 29;
        seed *= 0xbf58476d1ce4e5b9ULL;
        seed ^= seed >> 32;
        d->instance = (seed & 0x7fffffffULL) | 1;
        char sql[128];
        snprintf(sql, sizeof sql, "INSERT INTO rt_meta VALUES ('instance', '%llx')",
                 (unsigned long long)d->instance);
        if (sqlite3_exec(d->db, sql, NULL, NULL, NULL) != SQLITE_OK)
            goto sqlfail;
    }
    sqlite3_finalize(q);
    q = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT job_id, job, agent, slice, seq_base, status, final_seq, errors"
                           " FROM rt_dispatch ORDER BY job_id",
                           -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        vk_dispatch_t *r = push(d);
        if (!r) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        r->job_id = (uint64_t)sqlite3_column_int64(q, 0);
        snprintf(r->job, sizeof r->job, "%s", (const char *)sqlite3_column_text(q, 1));
        snprintf(r->agent, sizeof r->agent, "%s", (const char *)sqlite3_column_text(q, 2));
        r->slice = sqlite3_column_int(q, 3);
        r->seq_base = (uint64_t)sqlite3_column_int64(q, 4);
        r->status = sqlite3_column_int(q, 5);
        r->final_seq = sqlite3_column_int64(q, 6);
        r->errors = sqlite3_column_int64(q, 7);
        if ((r->job_id & 0xffffffffULL) >= d->next_n)
            d->next_n = (r->job_id & 0xffffffffULL) + 1;
    }
    if (rc != SQLITE_DONE)
        goto sqlfail;
    sqlite3_finalize(q);
    if (d->next_n == 0)
        d->next_n = 1;
    return d;
sqlfail:
    snprintf(err, errlen, "dispatch ledger in %s: %s", vk_store_path(st), sqlite3_errmsg(d->db));
fail:
    sqlite3_finalize(q);
    vk_dispatch_destroy(&d);
    return NULL;
}

void vk_dispatch_destroy(vk_dispatch_log_t **p)
{
    if (!p || !*p)
        return;
    free((*p)->rows);
    free(*p);
    *p = NULL;
}

size_t vk_dispatch_count(const vk_dispatch_log_t *d) { return d->n; }

const vk_dispatch_t *vk_dispatch_get(const vk_dispatch_log_t *d, size_t i)
{
    return i < d->n ? &d->rows[i] : NULL;
}

const vk_dispatch_t *vk_dispatch_find(const vk_dispatch_log_t *d, uint64_t job_id)
{
    for (size_t i = d->n; i-- > 0;)
        if (d->rows[i].job_id == job_id)
            return &d->rows[i];
    return NULL;
}

uint64_t vk_dispatch_next_base(const vk_dispatch_log_t *d, const char *agent, const char *job,
                               uint64_t stored_acked)
{
    uint64_t base = 0;
    for (size_t i = 0; i < d->n; i++) {
        const vk_dispatch_t *r = &d->rows[i];
        if (strcmp(r->agent, agent) != 0 || strcmp(r->job, job) != 0)
            continue;
        uint64_t end = r->final_seq >= 0 ? r->seq_base + (uint64_t)r->final_seq : stored_acked;
        if (end < r->seq_base)
            end = r->seq_base;
        if (end > base)
            base = end;
    }
    return base;
}

vc_status_t vk_dispatch_add(vk_dispatch_log_t *d, const char *job, const char *agent, int slice,
                            uint64_t seq_base, uint64_t *job_id)
{
    uint64_t id = (d->instance << 32) | d->next_n;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "INSERT INTO rt_dispatch VALUES (?1, ?2, ?3, ?4, ?5, -1, -1, 0, ?6)",
                           -1, &q, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    sqlite3_bind_int64(q, 1, (int64_t)id);
    sqlite3_bind_text(q, 2, job, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, agent, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, slice);
    sqlite3_bind_int64(q, 5, (int64_t)seq_base);
    sqlite3_bind_int64(q, 6, vc_wall_now());
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return VC_ERR_IO;
    vk_dispatch_t *r = push(d);
    if (!r)
        return VC_ERR_NOMEM;
    r->job_id = id;
    snprintf(r->job, sizeof r->job, "%s", job);
    snprintf(r->agent, sizeof r->agent, "%s", agent);
    r->slice = slice;
    r->seq_base = seq_base;
    r->status = VK_DISPATCH_RUNNING;
    r->final_seq = -1;
    d->next_n++;
    *job_id = id;
    return VC_OK;
}

vc_status_t vk_dispatch_end(vk_dispatch_log_t *d, uint64_t job_id, int status, int64_t final_seq,
                            int64_t errors)
{
    vk_dispatch_t *r = (vk_dispatch_t *)vk_dispatch_find(d, job_id);
    if (!r)
        return VC_ERR_NOTFOUND;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "UPDATE rt_dispatch SET status = ?2, final_seq = ?3, errors = ?4"
                           " WHERE job_id = ?1",
                           -1, &q, NULL) != SQLITE_OK)
        return VC_ERR_IO;
    sqlite3_bind_int64(q, 1, (int64_t)job_id);
    sqlite3_bind_int(q, 2, status);
    sqlite3_bind_int64(q, 3, final_seq);
    sqlite3_bind_int64(q, 4, errors);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return VC_ERR_IO;
    r->status = status;
    r->final_seq = final_seq;
    r->errors = errors;
    return VC_OK;
}
