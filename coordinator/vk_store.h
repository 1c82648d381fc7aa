/* vk_store: the campaign's results store, one SQLite file `results.db` in the
 * campaign output directory (schema in docs/results-schema.md).
 *
 * The coordinator's intake writes through it: campaign, agents, their clock
 * offsets over time, targets, jobs (one row per campaign job x agent) and the
 * raw samples with their listing pages. Samples are unique by (agent, job,
 * seq): a batch an agent resends after a lost ACK is dropped row by row and
 * the drop is counted, so the ACK the coordinator sends after
 * vk_store_add_samples() returns can always be "everything up to
 * vk_store_acked_seq()". A restarted coordinator reopens the file and resumes
 * from the same numbers.
 *
 * The file is in WAL mode with synchronous=NORMAL: a COMMIT survives a crash
 * of the process (not necessarily a power cut of the machine, which at worst
 * loses the last batches; the agents' spools resend those).
 *
 * A store handle is used by one thread at a time. Reports open the same file
 * read-only (VK_STORE_READONLY) while a campaign may still be writing it. */
#ifndef VK_STORE_H
#define VK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "vc_clock.h"
#include "vc_job.h"
#include "vc_sample.h"
#include "vc_status.h"

/* The file name inside a campaign output directory. */
#define VK_STORE_FILE "results.db"
/* The schema version this build writes and reads (PRAGMA user_version). */
#define VK_STORE_SCHEMA_VERSION 1

typedef struct vk_store_s vk_store_t;

enum {
    VK_STORE_CREATE = 1u << 0,   /* create DIR/results.db (and DIR) when missing */
    VK_STORE_READONLY = 1u << 1, /* reports: never write, fail if missing */
};

/* Job row states. */
typedef enum {
    VK_JOB_PENDING = 0, /* known, not yet sent to the agent */
    VK_JOB_RUNNING,     /* sent; samples may arrive */
    VK_JOB_DONE,        /* the agent reported success */
    VK_JOB_FAILED,      /* the agent reported failure, or it was lost */
    VK_JOB_CANCELLED,
    VK_JOB_STATUS_COUNT
} vk_job_status_t;

const char *vk_job_status_name(vk_job_status_t s); /* "pending" ... "cancelled" */
int vk_job_status_parse(const char *name);         /* -1 when unknown */

/* One job row as stored. */
typedef struct {
    char job[VC_NAME_MAX];
    char agent[VC_NAME_MAX];
    vk_job_status_t status;
    int64_t expected;   /* samples the agent said it sent (DONE) or planned; -1 unknown */
    int64_t received;   /* samples stored (duplicates not counted) */
    int64_t errors;     /* errors the agent reported */
    uint64_t acked_seq; /* highest seq with every seq 1..acked_seq stored */
    char error_text[512];
} vk_job_row_t;

/* Opens DIR/results.db. flags: VK_STORE_CREATE and/or VK_STORE_READONLY.
 * A file whose schema is newer than VK_STORE_SCHEMA_VERSION is refused
 * (VC_ERR_UNSUPPORTED) and an older one is migrated (read-write opens only).
 * On failure *out is NULL and err says what failed, where and what to do.
 * Caller owns *out (vk_store_destroy). */
vc_status_t vk_store_open(const char *dir, unsigned flags, vk_store_t **out, char *err,
                          size_t errlen);
/* Closes the file; accepts NULL and sets *p = NULL. */
void vk_store_destroy(vk_store_t **p);

/* The file's path. */
const char *vk_store_path(const vk_store_t *st);
/* The last SQLite error message of this handle (for logs). */
const char *vk_store_errmsg(const vk_store_t *st);
/* The SQLite connection, for the report queries in coordinator/ only
 * (vk_summary); the store still owns it. */
struct sqlite3;
struct sqlite3 *vk_store_sqlite(vk_store_t *st);

/* --- campaign ----------------------------------------------------------- */

/* Records the campaign: its name, the configuration text as run (with
 * defaults filled in; never credentials) and its start. Called again on a
 * resumed campaign it keeps the first start time and config unless the
 * name differs, which is VC_ERR_MISMATCH (another campaign's directory). */
vc_status_t vk_store_campaign_begin(vk_store_t *st, const char *name, const char *config_text,
                                    vc_wall_ns_t start);
vc_status_t vk_store_campaign_end(vk_store_t *st, vc_wall_ns_t end);

/* --- agents, clocks, targets -------------------------------------------- */

/* Adds or updates an agent: site label and host facts (a JSON object as
 * text, or NULL). */
vc_status_t vk_store_agent(vk_store_t *st, const char *agent, const char *site,
                           const char *host_facts_json);
/* Records one clock-offset estimate of an agent at coordinator time `at`:
 * agent clock - coordinator clock, its error bound and the round trip. */
vc_status_t vk_store_clock_offset(vk_store_t *st, const char *agent, vc_wall_ns_t at,
                                  int64_t offset_ns, int64_t error_ns, int64_t rtt_ns);
/* Latest stored offset of an agent (0 and VC_ERR_NOTFOUND when none). */
vc_status_t vk_store_last_offset(vk_store_t *st, const char *agent, int64_t *offset_ns);
/* Adds or updates a target by its campaign name (no credentials exist in it). */
vc_status_t vk_store_target(vk_store_t *st, const vc_target_t *t);

/* --- jobs ----------------------------------------------------------------- */

/* Creates the row for (job, agent) or, if it exists, updates status and spec.
 * spec_json: the job's spec as JSON text (or NULL to keep). expected: -1 unknown. */
vc_status_t vk_store_job(vk_store_t *st, const char *job, const char *agent,
                         vk_job_status_t status, const char *spec_json, int64_t expected);
/* Final state from the agent's DONE (or a lost agent): status, the number of
 * samples the agent says it sent (-1: keep), errors and error text (NULL: none). */
vc_status_t vk_store_job_finish(vk_store_t *st, const char *job, const char *agent,
                                vk_job_status_t status, int64_t expected, int64_t errors,
                                const char *error_text);
/* Reads the row of (job, agent); VC_ERR_NOTFOUND when there is none. */
vc_status_t vk_store_job_get(vk_store_t *st, const char *job, const char *agent,
                             vk_job_row_t *out);

/* --- samples -------------------------------------------------------------- */

/* Stores a batch of samples of one (agent, job) in ONE transaction and
 * returns after its COMMIT, so the caller may ACK afterwards. Samples whose
 * seq is already stored are dropped and counted in *duplicates; the others
 * are counted in *inserted (either pointer may be NULL). Each row gets the
 * corrected start time start_wall_ns - offset_ns (offset: agent clock minus
 * coordinator clock, as vk_store_clock_offset). Missing agent and job rows
 * are created (site empty, status running). Samples with seq 0 are refused
 * (VC_ERR_PROTO) before anything is written; so is a batch with a negative
 * duration, an op name that is empty, or an error class out of range. */
vc_status_t vk_store_add_samples(vk_store_t *st, const char *agent, const char *job,
                                 const vc_sample_t *samples, size_t n, int64_t offset_ns,
                                 size_t *inserted, size_t *duplicates);
/* Highest seq such that every seq 1..seq of (agent, job) is stored; 0 when
 * none. This is what an ACK carries; it survives a reopen. */
vc_status_t vk_store_acked_seq(vk_store_t *st, const char *agent, const char *job,
                               uint64_t *seq);

#endif
