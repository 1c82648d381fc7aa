/* vk_store: the SQLite results store of a campaign (docs/results-schema.md). */
#include "vk_store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "vc_fs.h"
#include "vc_log.h"

/* PRAGMA application_id: "VANT", so that another program's SQLite file in
 * the directory is recognised and not migrated into ours. */
#define VK_APP_ID 0x56414e54

/* Texts that come from peers are capped so one message cannot bloat the file. */
#define VK_ERROR_TEXT_MAX 1024
#define VK_HOST_FACTS_MAX 65536

/* Schema, by version: migrations[v] brings a file from version v to v + 1.
 * A later version appends an entry (ALTER TABLE ...); entries never change. */
static const char *const migrations[VK_STORE_SCHEMA_VERSION] = {
    /* 0 -> 1 */
    "CREATE TABLE campaign ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  name TEXT NOT NULL,"
    "  config TEXT,"
    "  start_ns INTEGER,"
    "  end_ns INTEGER,"
    "  vantage_version TEXT NOT NULL);"
    "CREATE TABLE agents ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  site TEXT NOT NULL DEFAULT '',"
    "  host_facts TEXT);"
    "CREATE TABLE clock_offsets ("
    "  agent_id INTEGER NOT NULL REFERENCES agents(id),"
    "  at_ns INTEGER NOT NULL,"
    "  offset_ns INTEGER NOT NULL,"
    "  error_ns INTEGER,"
    "  rtt_ns INTEGER);"
    "CREATE INDEX clock_offsets_by_agent ON clock_offsets(agent_id, at_ns);"
    "CREATE TABLE targets ("
    "  name TEXT PRIMARY KEY,"
    "  kind TEXT NOT NULL,"
    "  endpoint TEXT,"
    "  bucket TEXT,"
    "  provider TEXT,"
    "  region TEXT,"
    "  addressing TEXT,"
    "  verify_tls INTEGER);"
    "CREATE TABLE jobs ("
    "  id INTEGER PRIMARY KEY,"
    "  job TEXT NOT NULL,"
    "  agent_id INTEGER NOT NULL REFERENCES agents(id),"
    "  status TEXT NOT NULL,"
    "  expected INTEGER,"
    "  received INTEGER NOT NULL DEFAULT 0,"
    "  duplicates INTEGER NOT NULL DEFAULT 0,"
    "  errors INTEGER NOT NULL DEFAULT 0,"
    "  error_text TEXT,"
    "  spec TEXT,"
    "  acked_seq INTEGER NOT NULL DEFAULT 0,"
    "  UNIQUE (job, agent_id));"
    "CREATE TABLE err_classes (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "INSERT INTO err_classes VALUES (0,'none'),(1,'4xx'),(2,'5xx'),(3,'throttled'),"
    "  (4,'timeout'),(5,'connection'),(6,'protocol'),(7,'mismatch'),(8,'other');"
    "CREATE TABLE samples ("
    "  id INTEGER PRIMARY KEY,"
    "  job_row INTEGER NOT NULL REFERENCES jobs(id),"
    "  seq INTEGER NOT NULL,"
    "  op TEXT NOT NULL,"
    "  label TEXT NOT NULL,"
    "  scale INTEGER,"
    "  run INTEGER,"
    "  worker INTEGER,"
    "  start_wall_ns INTEGER,"
    "  start_ns INTEGER,"
    "  duration_ns INTEGER,"
    "  server_ns INTEGER,"
    "  dns_us INTEGER,"
    "  connect_us INTEGER,"
    "  tls_us INTEGER,"
    "  ttfb_us INTEGER,"
    "  bytes_sent INTEGER,"
    "  bytes_recv INTEGER,"
    "  pages INTEGER,"
    "  keys INTEGER,"
    "  http_status INTEGER,"
    "  retries INTEGER,"
    "  err_class INTEGER NOT NULL,"
    "  err_code TEXT,"
    "  err_msg TEXT,"
    "  cpu_user_us INTEGER,"
    "  cpu_sys_us INTEGER,"
    "  flags INTEGER NOT NULL,"
    "  UNIQUE (job_row, seq));"
    "CREATE TABLE pages ("
    "  sample_id INTEGER NOT NULL REFERENCES samples(id),"
    "  idx INTEGER NOT NULL,"
    "  duration_ns INTEGER,"
    "  keys INTEGER,"
    "  bytes INTEGER,"
    "  PRIMARY KEY (sample_id, idx)) WITHOUT ROWID;"
    "CREATE VIEW samples_v AS"
    "  SELECT s.*, j.job AS job, a.name AS agent, a.site AS site, e.name AS err_name,"
    "         (s.flags & 2) != 0 AS saturated, (s.flags & 4) != 0 AS warmup"
    "  FROM samples s JOIN jobs j ON j.id = s.job_row JOIN agents a ON a.id = j.agent_id"
    "  JOIN err_classes e ON e.id = s.err_class;",
};

static const char *const job_status_names[VK_JOB_STATUS_COUNT] = {
    "pending", "running", "done", "failed", "cancelled",
};

const char *vk_job_status_name(vk_job_status_t s)
{
    return (unsigned)s < VK_JOB_STATUS_COUNT ? job_status_names[s] : "unknown";
}

int vk_job_status_parse(const char *name)
{
    for (int i = 0; name && i < VK_JOB_STATUS_COUNT; i++)
        if (strcmp(name, job_status_names[i]) == 0)
            return i;
    return -1;
}

/* Prepared statements, compiled once per handle. */
enum {
    ST_AGENT_ENSURE,
    ST_AGENT_ID,
    ST_JOB_ENSURE,
    ST_JOB_ROW,
    ST_SAMPLE_INSERT,
    ST_PAGE_INSERT,
    ST_SEQ_SCAN,
    ST_JOB_PROGRESS,
    ST_COUNT
};

/* A resent sample conflicts on (job_row, seq) and is skipped; any other
 * constraint failure is an error, not a silent drop (hence no OR IGNORE). */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_AGENT_ENSURE] = "INSERT OR IGNORE INTO agents(name) VALUES (?1)",
    [ST_AGENT_ID] = "SELECT id FROM agents WHERE name = ?1",
    [ST_JOB_ENSURE] = "INSERT OR IGNORE INTO jobs(job, agent_id, status)"
                      " VALUES (?1, ?2, 'running')",
    [ST_JOB_ROW] = "SELECT id, acked_seq FROM jobs WHERE job = ?1 AND agent_id = ?2",
    [ST_SAMPLE_INSERT] =
        "INSERT INTO samples(job_row, seq, op, label, scale, run, worker,"
        " start_wall_ns, start_ns, duration_ns, server_ns, dns_us, connect_us, tls_us, ttfb_us,"
        " bytes_sent, bytes_recv, pages, keys, http_status, retries, err_class, err_code,"
        " err_msg, cpu_user_us, cpu_sys_us, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
        " ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26,"
        " ?27) ON CONFLICT (job_row, seq) DO NOTHING",
    [ST_PAGE_INSERT] = "INSERT INTO pages(sample_id, idx, duration_ns, keys, bytes)"
                       " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_SEQ_SCAN] = "SELECT seq FROM samples WHERE job_row = ?1 AND seq > ?2 ORDER BY seq",
    [ST_JOB_PROGRESS] = "UPDATE jobs SET acked_seq = ?2, received = received + ?3,"
                        " duplicates = duplicates + ?4 WHERE id = ?1",
};

struct vk_store_s {
    sqlite3 *db;
    char path[4096];
    unsigned flags;
    sqlite3_stmt *st[ST_COUNT];
};

/* ------------------------------------------------------------------------ */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Runs SQL without results; logs and returns VC_ERR_IO on failure. */
static vc_status_t exec(vk_store_t *st, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        vc_error("store", "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return VC_ERR_IO;
    }
    return VC_OK;
}

static vc_status_t prepare(vk_store_t *st, sqlite3_stmt **out, const char *sql)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK) {
        vc_error("store", "%s: preparing '%.60s...': %s", st->path, sql, sqlite3_errmsg(st->db));
        return VC_ERR_INTERNAL;
    }
    return VC_OK;
}

/* Steps a statement that returns no row, then resets it. */
static vc_status_t step_done(vk_store_t *st, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        vc_error("store", "%s: %s", st->path, sqlite3_errmsg(st->db));
        return VC_ERR_IO;
    }
    return VC_OK;
}

static int64_t pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Checks the file's identity and schema version and brings it up to date. */
static vc_status_t check_schema(vk_store_t *st, char *err, size_t errlen)
{
    int64_t app = pragma_int(st->db, "PRAGMA application_id");
    int64_t ver = pragma_int(st->db, "PRAGMA user_version");
    int64_t tables = pragma_int(st->db, "SELECT count(*) FROM sqlite_schema");
    if (app < 0 || ver < 0 || tables < 0) {
        set_err(err, errlen, "%s: cannot read it as SQLite: %s", st->path, sqlite3_errmsg(st->db));
        return VC_ERR_IO;
    }
    if (tables > 0 && app != VK_APP_ID) {
        set_err(err, errlen,
                "%s is an SQLite file but not a vantage results store: choose another output "
                "directory",
                st->path);
        return VC_ERR_UNSUPPORTED;
    }
    if (ver > VK_STORE_SCHEMA_VERSION) {
        set_err(err, errlen,
                "%s has results schema version %lld, newer than this vantage %s understands "
                "(%d): use a newer vantage to read it",
                st->path, (long long)ver, VANTAGE_VERSION, VK_STORE_SCHEMA_VERSION);
        return VC_ERR_UNSUPPORTED;
    }
    if (ver == VK_STORE_SCHEMA_VERSION)
        return VC_OK;
    if (st->flags & VK_STORE_READONLY) {
        set_err(err, errlen,
                "%s has results schema version %lld, older than %d: open it once with a "
                "writing command of this vantage (for example `vantage run --resume`) to upgrade",
                st->path, (long long)ver, VK_STORE_SCHEMA_VERSION);
        return VC_ERR_UNSUPPORTED;
    }
    if (exec(st, "BEGIN IMMEDIATE"))
        goto fail;
    for (int64_t v = ver; v < VK_STORE_SCHEMA_VERSION; v++)
        if (exec(st, migrations[v]))
            goto rollback;
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", VK_APP_ID,
             VK_STORE_SCHEMA_VERSION);
    if (exec(st, sql) || exec(st, "COMMIT"))
        goto rollback;
    if (ver > 0)
        vc_info("store", "%s: upgraded results schema %lld -> %d", st->path, (long long)ver,
                VK_STORE_SCHEMA_VERSION);
    return VC_OK;
rollback:
    exec(st, "ROLLBACK");
fail:
    set_err(err, errlen, "%s: cannot create or upgrade the results schema: %s", st->path,
            sqlite3_errmsg(st->db));
    return VC_ERR_IO;
}

vc_status_t vk_store_open(const char *dir, unsigned flags, vk_store_t **out, char *err,
                          size_t errlen)
{
    vc_status_t rc = VC_OK;
    *out = NULL;
    if (!dir || !*dir) {
        set_err(err, errlen, "no campaign output directory given");
        return VC_ERR_ARG;
    }
    vk_store_t *st = calloc(1, sizeof *st);
    if (!st)
        return VC_ERR_NOMEM;
    st->flags = flags;
    if ((size_t)snprintf(st->path, sizeof st->path, "%s/%s", dir, VK_STORE_FILE) >=
        sizeof st->path) {
        set_err(err, errlen, "output directory path too long: %.80s...", dir);
        rc = VC_ERR_ARG;
        goto fail;
    }
    int readonly = (flags & VK_STORE_READONLY) != 0;
    struct stat sb;
    if (stat(st->path, &sb) != 0) {
        if (readonly || !(flags & VK_STORE_CREATE)) {
            set_err(err, errlen, "%s: no results store there (%s): is %s a campaign output "
                    "directory?", st->path, strerror(errno), dir);
            rc = VC_ERR_NOTFOUND;
            goto fail;
        }
        if (vc_mkdir_p(dir, 0755) != 0) {
            set_err(err, errlen, "cannot create output directory %s: %s", dir, strerror(errno));
            rc = VC_ERR_IO;
            goto fail;
        }
    }
    int oflags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(st->path, &st->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        set_err(err, errlen, "%s: cannot open: %s", st->path,
                st->db ? sqlite3_errmsg(st->db) : "out of memory");
        rc = VC_ERR_IO;
        goto fail;
    }
    sqlite3_busy_timeout(st->db, 10000);
    sqlite3_extended_result_codes(st->db, 1);
    /* WAL: readers (reports) do not block the writer; synchronous=NORMAL in
     * WAL keeps every COMMIT across a process crash at a fraction of FULL's
     * fsync cost, which is what makes ~1000-sample batches cheap. */
    if (!readonly && (exec(st, "PRAGMA journal_mode = WAL") ||
                      exec(st, "PRAGMA synchronous = NORMAL"))) {
        set_err(err, errlen, "%s: cannot switch to WAL mode: %s", st->path,
                sqlite3_errmsg(st->db));
        rc = VC_ERR_IO;
        goto fail;
    }
    exec(st, "PRAGMA cache_size = -65536"); /* 64 MiB page cache */
    /* Checkpoint the WAL every 64 MiB rather than 4 MiB: fewer fsyncs. */
    if (!readonly)
        exec(st, "PRAGMA wal_autocheckpoint = 16384");
    if ((rc = check_schema(st, err, errlen)))
        goto fail;
    if (!readonly)
        for (int i = 0; i < ST_COUNT; i++)
            if ((rc = prepare(st, &st->st[i], stmt_sql[i]))) {
                set_err(err, errlen, "%s: %s", st->path, sqlite3_errmsg(st->db));
                goto fail;
            }
    *out = st;
    return VC_OK;
fail:
    vk_store_destroy(&st);
    return rc;
}

void vk_store_destroy(vk_store_t **p)
{
    if (!p || !*p)
        return;
    vk_store_t *st = *p;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(st->st[i]);
    if (st->db && sqlite3_close(st->db) != SQLITE_OK)
        vc_warn("store", "%s: close: %s", st->path, sqlite3_errmsg(st->db));
    free(st);
    *p = NULL;
}

const char *vk_store_path(const vk_store_t *st)
{
    return st->path;
}

const char *vk_store_errmsg(const vk_store_t *st)
{
    return sqlite3_errmsg(st->db);
}

struct sqlite3 *vk_store_sqlite(vk_store_t *st)
{
    return st->db;
}

static vc_status_t need_write(const vk_store_t *st)
{
    if (st->flags & VK_STORE_READONLY) {
        vc_error("store", "%s: opened read-only, not writing", st->path);
        return VC_ERR_ARG;
    }
    return VC_OK;
}

/* Binds a text, or NULL for a NULL pointer. */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* Binds a text from a fixed-size field that may lack its terminator. */
static void bind_field(sqlite3_stmt *s, int i, const char *field, size_t size, int empty_null)
{
    size_t n = strnlen(field, size);
    if (n == 0 && empty_null)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_text(s, i, field, (int)n, SQLITE_STATIC);
}

/* -1 (or any negative) is "unknown" in a sample and NULL in the store. */
static void bind_known(sqlite3_stmt *s, int i, int64_t v)
{
    if (v < 0)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_int64(s, i, v);
}

/* ------------------------------------------------------------------------ */

vc_status_t vk_store_campaign_begin(vk_store_t *st, const char *name, const char *config_text,
                                    vc_wall_ns_t start)
{
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "SELECT name FROM campaign WHERE id = 1")))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *have = (const char *)sqlite3_column_text(s, 0);
        if (!have || strcmp(have, name ? name : "") != 0) {
            vc_error("store", "%s holds campaign '%s', not '%s': use another output directory",
                     st->path, have ? have : "", name ? name : "");
            rc = VC_ERR_MISMATCH;
        }
        sqlite3_finalize(s);
        return rc;
    }
    sqlite3_finalize(s);
    if ((rc = prepare(st, &s, "INSERT INTO campaign(id, name, config, start_ns, vantage_version)"
                              " VALUES (1, ?1, ?2, ?3, ?4)")))
        return rc;
    bind_text(s, 1, name ? name : "");
    bind_text(s, 2, config_text);
    sqlite3_bind_int64(s, 3, start);
    bind_text(s, 4, VANTAGE_VERSION);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_campaign_end(vk_store_t *st, vc_wall_ns_t end)
{
    vc_status_t rc = need_write(st);
    sqlite3_stmt *s = NULL;
    if (rc || (rc = prepare(st, &s, "UPDATE campaign SET end_ns = ?1 WHERE id = 1")))
        return rc;
    sqlite3_bind_int64(s, 1, end);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

/* Finds or creates the agent row; returns its id or -1. */
static int64_t agent_id(vk_store_t *st, const char *agent)
{
    sqlite3_stmt *e = st->st[ST_AGENT_ENSURE], *q = st->st[ST_AGENT_ID];
    sqlite3_bind_text(e, 1, agent, -1, SQLITE_STATIC);
    if (step_done(st, e))
        return -1;
    sqlite3_bind_text(q, 1, agent, -1, SQLITE_STATIC);
    int64_t id = -1;
    if (sqlite3_step(q) == SQLITE_ROW)
        id = sqlite3_column_int64(q, 0);
    sqlite3_reset(q);
    return id;
}

/* Finds or creates the (job, agent) row: its id and acked seq; -1 on error. */
static int64_t job_row(vk_store_t *st, const char *job, const char *agent, uint64_t *acked)
{
    int64_t aid = agent_id(st, agent);
    if (aid < 0)
        return -1;
    sqlite3_stmt *e = st->st[ST_JOB_ENSURE], *q = st->st[ST_JOB_ROW];
    sqlite3_bind_text(e, 1, job, -1, SQLITE_STATIC);
    sqlite3_bind_int64(e, 2, aid);
    if (step_done(st, e))
        return -1;
    sqlite3_bind_text(q, 1, job, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, aid);
    int64_t id = -1;
    if (sqlite3_step(q) == SQLITE_ROW) {
        id = sqlite3_column_int64(q, 0);
        if (acked)
            *acked = (uint64_t)sqlite3_column_int64(q, 1);
    }
    sqlite3_reset(q);
    return id;
}

static int valid_name(const char *s)
{
    return s && *s && strlen(s) < VC_NAME_MAX;
}

vc_status_t vk_store_agent(vk_store_t *st, const char *agent, const char *site,
                           const char *host_facts_json)
{
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    if (!valid_name(agent) || (site && strlen(site) >= VC_NAME_MAX * 2) ||
        (host_facts_json && strlen(host_facts_json) > VK_HOST_FACTS_MAX))
        return VC_ERR_ARG;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "INSERT INTO agents(name, site, host_facts) VALUES (?1, ?2, ?3)"
                              " ON CONFLICT(name) DO UPDATE SET site = excluded.site,"
                              " host_facts = coalesce(excluded.host_facts, host_facts)")))
        return rc;
    bind_text(s, 1, agent);
    bind_text(s, 2, site ? site : "");
    bind_text(s, 3, host_facts_json);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_clock_offset(vk_store_t *st, const char *agent, vc_wall_ns_t at,
                                  int64_t offset_ns, int64_t error_ns, int64_t rtt_ns)
{
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    if (!valid_name(agent))
        return VC_ERR_ARG;
    int64_t aid = agent_id(st, agent);
    if (aid < 0)
        return VC_ERR_IO;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "INSERT INTO clock_offsets(agent_id, at_ns, offset_ns, error_ns,"
                              " rtt_ns) VALUES (?1, ?2, ?3, ?4, ?5)")))
        return rc;
    sqlite3_bind_int64(s, 1, aid);
    sqlite3_bind_int64(s, 2, at);
    sqlite3_bind_int64(s, 3, offset_ns);
    bind_known(s, 4, error_ns);
    bind_known(s, 5, rtt_ns);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_last_offset(vk_store_t *st, const char *agent, int64_t *offset_ns)
{
    *offset_ns = 0;
    sqlite3_stmt *s = NULL;
    vc_status_t rc = prepare(st, &s, "SELECT o.offset_ns FROM clock_offsets o JOIN agents a"
                                     " ON a.id = o.agent_id WHERE a.name = ?1"
                                     " ORDER BY o.at_ns DESC, o.rowid DESC LIMIT 1");
    if (rc)
        return rc;
    bind_text(s, 1, agent);
    int r = sqlite3_step(s);
    if (r == SQLITE_ROW)
        *offset_ns = sqlite3_column_int64(s, 0);
    else
        rc = r == SQLITE_DONE ? VC_ERR_NOTFOUND : VC_ERR_IO;
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_target(vk_store_t *st, const vc_target_t *t)
{
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    if (!t || !t->name[0])
        return VC_ERR_ARG;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "INSERT OR REPLACE INTO targets(name, kind, endpoint, bucket,"
                              " provider, region, addressing, verify_tls)"
                              " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")))
        return rc;
    bind_field(s, 1, t->name, sizeof t->name, 0);
    bind_text(s, 2, t->kind == VC_TK_AIS ? "ais" : "s3");
    bind_field(s, 3, t->endpoint, sizeof t->endpoint, 1);
    bind_field(s, 4, t->bucket, sizeof t->bucket, 1);
    bind_field(s, 5, t->provider, sizeof t->provider, 1);
    bind_field(s, 6, t->region, sizeof t->region, 1);
    bind_text(s, 7, t->addressing == VC_ADDR_VIRTUAL ? "virtual" : "path");
    sqlite3_bind_int(s, 8, t->verify_tls ? 1 : 0);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_job(vk_store_t *st, const char *job, const char *agent,
                         vk_job_status_t status, const char *spec_json, int64_t expected)
{
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    if (!valid_name(job) || !valid_name(agent) || (unsigned)status >= VK_JOB_STATUS_COUNT)
        return VC_ERR_ARG;
    int64_t id = job_row(st, job, agent, NULL);
    if (id < 0)
        return VC_ERR_IO;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "UPDATE jobs SET status = ?2, spec = coalesce(?3, spec),"
                              " expected = CASE WHEN ?4 < 0 THEN expected ELSE ?4 END"
                              " WHERE id = ?1")))
        return rc;
    sqlite3_bind_int64(s, 1, id);
    bind_text(s, 2, vk_job_status_name(status));
    bind_text(s, 3, spec_json);
    sqlite3_bind_int64(s, 4, expected);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

vc_status_t vk_store_job_finish(vk_store_t *st, const char *job, const char *agent,
                                vk_job_status_t status, int64_t expected, int64_t errors,
                                const char *error_text)
{
    vc_status_t rc = vk_store_job(st, job, agent, status, NULL, expected);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if ((rc = prepare(st, &s, "UPDATE jobs SET errors = ?3, error_text = ?4 WHERE job = ?1 AND"
                              " agent_id = (SELECT id FROM agents WHERE name = ?2)")))
        return rc;
    bind_text(s, 1, job);
    bind_text(s, 2, agent);
    sqlite3_bind_int64(s, 3, errors < 0 ? 0 : errors);
    if (error_text && *error_text)
        sqlite3_bind_text(s, 4, error_text, (int)strnlen(error_text, VK_ERROR_TEXT_MAX),
                          SQLITE_TRANSIENT);
    rc = step_done(st, s);
    sqlite3_finalize(s);
    return rc;
}

static void copy_col(char *dst, size_t size, sqlite3_stmt *s, int col)
{
    const char *v = (const char *)sqlite3_column_text(s, col);
    snprintf(dst, size, "%s", v ? v : "");
}

vc_status_t vk_store_job_get(vk_store_t *st, const char *job, const char *agent,
                             vk_job_row_t *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = NULL;
    vc_status_t rc = prepare(st, &s, "SELECT j.status, coalesce(j.expected, -1), j.received,"
                                     " j.errors, j.acked_seq, j.error_text FROM jobs j JOIN"
                                     " agents a ON a.id = j.agent_id WHERE j.job = ?1 AND"
                                     " a.name = ?2");
    if (rc)
        return rc;
    bind_text(s, 1, job);
    bind_text(s, 2, agent);
    int r = sqlite3_step(s);
    if (r == SQLITE_ROW) {
        snprintf(out->job, sizeof out->job, "%s", job);
        snprintf(out->agent, sizeof out->agent, "%s", agent);
        int status = vk_job_status_parse((const char *)sqlite3_column_text(s, 0));
        out->status = status < 0 ? VK_JOB_FAILED : (vk_job_status_t)status;
        out->expected = sqlite3_column_int64(s, 1);
        out->received = sqlite3_column_int64(s, 2);
        out->errors = sqlite3_column_int64(s, 3);
        out->acked_seq = (uint64_t)sqlite3_column_int64(s, 4);
        copy_col(out->error_text, sizeof out->error_text, s, 5);
    } else {
        rc = r == SQLITE_DONE ? VC_ERR_NOTFOUND : VC_ERR_IO;
    }
    sqlite3_finalize(s);
    return rc;
}

/* ------------------------------------------------------------------------ */

/* A batch comes from a peer: check it whole before writing any of it. */
static vc_status_t validate_batch(const vk_store_t *st, const char *agent, const char *job,
                                  const vc_sample_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const vc_sample_t *s = &v[i];
        const char *why = NULL;
        if (s->seq == 0 || s->seq > (uint64_t)INT64_MAX)
            why = "sequence number out of range";
        else if (s->duration_ns < -1)
            why = "negative duration";
        else if (strnlen(s->op, sizeof s->op) == 0)
            why = "empty operation name";
        else if ((unsigned)s->err_class >= VC_EC_COUNT)
            why = "unknown error class";
        else if (s->npages && !s->page)
            why = "page count without pages";
        if (why) {
            vc_error("store", "%s: agent %s job %s: sample %zu of %zu (seq %llu) rejected: %s",
                     st->path, agent, job, i, n, (unsigned long long)s->seq, why);
            return VC_ERR_PROTO;
        }
    }
    return VC_OK;
}

static vc_status_t insert_sample(vk_store_t *st, int64_t jrow, const vc_sample_t *s,
                                 int64_t offset_ns, int *inserted)
{
    sqlite3_stmt *q = st->st[ST_SAMPLE_INSERT];
    sqlite3_bind_int64(q, 1, jrow);
    sqlite3_bind_int64(q, 2, (int64_t)s->seq);
    bind_field(q, 3, s->op, sizeof s->op, 0);
    bind_field(q, 4, s->label, sizeof s->label, 0);
    bind_known(q, 5, s->scale);
    bind_known(q, 6, s->run);
    bind_known(q, 7, s->worker);
    if (s->start_wall_ns > 0) {
        sqlite3_bind_int64(q, 8, s->start_wall_ns);
        sqlite3_bind_int64(q, 9, s->start_wall_ns - offset_ns);
    } else {
        sqlite3_bind_null(q, 8);
        sqlite3_bind_null(q, 9);
    }
    bind_known(q, 10, s->duration_ns);
    bind_known(q, 11, s->server_ns);
    bind_known(q, 12, s->dns_us);
    bind_known(q, 13, s->connect_us);
    bind_known(q, 14, s->tls_us);
    bind_known(q, 15, s->ttfb_us);
    bind_known(q, 16, s->bytes_sent);
    bind_known(q, 17, s->bytes_recv);
    bind_known(q, 18, s->pages);
    bind_known(q, 19, s->keys);
    sqlite3_bind_int(q, 20, s->http_status);
    sqlite3_bind_int(q, 21, s->retries);
    sqlite3_bind_int(q, 22, (int)s->err_class);
    bind_field(q, 23, s->err_code, sizeof s->err_code, 1);
    bind_field(q, 24, s->err_msg, sizeof s->err_msg, 1);
    bind_known(q, 25, s->cpu_user_us);
    bind_known(q, 26, s->cpu_sys_us);
    sqlite3_bind_int64(q, 27, s->flags);
    vc_status_t rc = step_done(st, q);
    if (rc)
        return rc;
    *inserted = sqlite3_changes(st->db) > 0;
    if (!*inserted || !s->npages)
        return VC_OK;
    int64_t sid = sqlite3_last_insert_rowid(st->db);
    sqlite3_stmt *p = st->st[ST_PAGE_INSERT];
    for (uint32_t i = 0; i < s->npages; i++) {
        sqlite3_bind_int64(p, 1, sid);
        sqlite3_bind_int64(p, 2, i);
        bind_known(p, 3, s->page[i].duration_ns);
        bind_known(p, 4, s->page[i].keys);
        bind_known(p, 5, s->page[i].bytes);
        if ((rc = step_done(st, p)))
            return rc;
    }
    return VC_OK;
}

/* Advances the contiguous prefix from `acked`: the scan stops at the first
 * gap, so its cost is the number of newly contiguous rows. */
static vc_status_t advance_acked(vk_store_t *st, int64_t jrow, uint64_t *acked)
{
    sqlite3_stmt *q = st->st[ST_SEQ_SCAN];
    sqlite3_bind_int64(q, 1, jrow);
    sqlite3_bind_int64(q, 2, (int64_t)*acked);
    int r;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        uint64_t seq = (uint64_t)sqlite3_column_int64(q, 0);
        if (seq != *acked + 1)
            break;
        *acked = seq;
    }
    sqlite3_reset(q);
    return r == SQLITE_ROW || r == SQLITE_DONE ? VC_OK : VC_ERR_IO;
}

vc_status_t vk_store_add_samples(vk_store_t *st, const char *agent, const char *job,
                                 const vc_sample_t *samples, size_t n, int64_t offset_ns,
                                 size_t *inserted, size_t *duplicates)
{
    size_t ins = 0, dup = 0;
    if (inserted)
        *inserted = 0;
    if (duplicates)
        *duplicates = 0;
    vc_status_t rc = need_write(st);
    if (rc)
        return rc;
    if (!valid_name(agent) || !valid_name(job) || (n && !samples))
        return VC_ERR_ARG;
    if ((rc = validate_batch(st, agent, job, samples, n)))
        return rc;
    if ((rc = exec(st, "BEGIN IMMEDIATE")))
        return rc;
    uint64_t acked = 0;
    int64_t jrow = job_row(st, job, agent, &acked);
    if (jrow < 0) {
        rc = VC_ERR_IO;
        goto rollback;
    }
    for (size_t i = 0; i < n; i++) {
        int added = 0;
        if ((rc = insert_sample(st, jrow, &samples[i], offset_ns, &added)))
            goto rollback;
        if (added)
            ins++;
        else
            dup++;
    }
    if ((rc = advance_acked(st, jrow, &acked)))
        goto rollback;
    sqlite3_stmt *u = st->st[ST_JOB_PROGRESS];
    sqlite3_bind_int64(u, 1, jrow);
    sqlite3_bind_int64(u, 2, (int64_t)acked);
    sqlite3_bind_int64(u, 3, (int64_t)ins);
    sqlite3_bind_int64(u, 4, (int64_t)dup);
    if ((rc = step_done(st, u)))
        goto rollback;
    if ((rc = exec(st, "COMMIT")))
        goto rollback;
    if (inserted)
        *inserted = ins;
    if (duplicates)
        *duplicates = dup;
    return VC_OK;
rollback:
    vc_error("store", "%s: batch of %zu samples of agent %s job %s not stored", st->path, n,
             agent, job);
    if (!sqlite3_get_autocommit(st->db))
        exec(st, "ROLLBACK");
    return rc;
}

vc_status_t vk_store_acked_seq(vk_store_t *st, const char *agent, const char *job,
                               uint64_t *seq)
{
    vk_job_row_t row;
    *seq = 0;
    vc_status_t rc = vk_store_job_get(st, job, agent, &row);
    if (rc == VC_ERR_NOTFOUND)
        return VC_OK;
    if (rc == VC_OK)
        *seq = row.acked_seq;
    return rc;
}
