/* vc_campaign: a campaign file (libconfig syntax) loaded and validated.
 * A campaign names its targets (object stores: endpoint and bucket, never
 * credentials), the agents taking part, and an ordered list of jobs, each a
 * vc_job_t plus the agents it runs on and its schedule. Option tables (name,
 * type, default, range, help) drive parsing, validation, the effective
 * campaign print (vantage check) and docs/campaign-format.md.
 *
 * Loading collects every error it finds, each as "FILE:LINE: PATH: what",
 * into a vc_diag_t; a campaign is returned only when there is none.
 * The format and the schedules are described in docs/campaign-format.md. */
#ifndef VC_CAMPAIGN_H
#define VC_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vc_diag.h"
#include "vc_job.h"
#include "vc_status.h"

#define VC_CAMPAIGN_MAX_AGENTS 64
#define VC_CAMPAIGN_MAX_TARGETS 32
#define VC_CAMPAIGN_MAX_JOBS 256 /* after a populate job's scale points are expanded */
#define VC_SITE_MAX 128

/* How the coordinator runs one job on its agents (see vc_plan.h, which turns
 * a job into the exact ordered steps, and docs/campaign-format.md). */
typedef enum {
    VC_SCHED_PARALLEL = 0, /* every agent runs the whole job, all from one common start time */
    VC_SCHED_SEQUENTIAL,   /* one agent after another, each the whole job, in the job's agent order */
    VC_SCHED_INTERLEAVED,  /* run by run: each run is taken by every agent in turn (rotated), and
                            * inside an agent's run every path/op once (rotated) */
    VC_SCHED_COUNT
} vc_schedule_t;

const char *vc_schedule_name(vc_schedule_t s); /* "parallel" "sequential" "interleaved" */
int vc_schedule_parse(const char *name);       /* -1 when unknown */

typedef struct {
    char name[VC_NAME_MAX]; /* what the agent calls itself (its config's `name`) */
    char site[VC_SITE_MAX]; /* label for reports; "" when not given */
} vc_campaign_agent_t;

typedef struct {
    vc_job_t job;           /* job.id is the job's name; targets copied in */
    vc_schedule_t schedule;
    int nagents;            /* >= 1 */
    int agents[VC_CAMPAIGN_MAX_AGENTS]; /* indices into the campaign's agents, in run order */
    int line;               /* line of the job in the file (0 when loaded from elsewhere) */
} vc_campaign_job_t;

typedef struct vc_campaign_s vc_campaign_t;

/* Loads and validates a campaign file. On VC_OK *out is a complete campaign
 * (caller owns it; vc_campaign_destroy). Otherwise *out is NULL and the
 * status is VC_ERR_CONFIG (file invalid), VC_ERR_IO (cannot read) or
 * VC_ERR_NOMEM; every problem found is added to diag (diag may be NULL). */
vc_status_t vc_campaign_load(const char *path, vc_campaign_t **out, vc_diag_t *diag);
/* The same from text in memory; `name` stands for the file in messages. */
vc_status_t vc_campaign_load_string(const char *text, const char *name, vc_campaign_t **out,
                                    vc_diag_t *diag);
void vc_campaign_destroy(vc_campaign_t **p);

const char *vc_campaign_name(const vc_campaign_t *c);
const char *vc_campaign_description(const vc_campaign_t *c); /* "" when none */
const char *vc_campaign_file(const vc_campaign_t *c);        /* path or name given to load */
vc_schedule_t vc_campaign_schedule(const vc_campaign_t *c);  /* campaign default */
/* How long the coordinator waits for every agent to connect before the first
 * job (then it fails, naming the missing ones); default 120 s. */
int64_t vc_campaign_agent_wait_ms(const vc_campaign_t *c);
/* Lead between sending a wave's JOBs and their common start_at; default 2 s. */
int64_t vc_campaign_start_lead_ms(const vc_campaign_t *c);

size_t vc_campaign_target_count(const vc_campaign_t *c);
const vc_target_t *vc_campaign_target(const vc_campaign_t *c, size_t i); /* NULL out of range */
int vc_campaign_target_find(const vc_campaign_t *c, const char *name);   /* index or -1 */

size_t vc_campaign_agent_count(const vc_campaign_t *c);
const vc_campaign_agent_t *vc_campaign_agent(const vc_campaign_t *c, size_t i);
int vc_campaign_agent_find(const vc_campaign_t *c, const char *name);    /* index or -1 */

size_t vc_campaign_job_count(const vc_campaign_t *c);
const vc_campaign_job_t *vc_campaign_job(const vc_campaign_t *c, size_t i);
int vc_campaign_job_find(const vc_campaign_t *c, const char *id);        /* index or -1 */

/* Writes the effective campaign, every default filled in, in libconfig
 * syntax with each option's help as a comment; vc_campaign_load reads it
 * back to an identical campaign. VC_ERR_IO when the stream fails. */
vc_status_t vc_campaign_write(const vc_campaign_t *c, FILE *out);

/* Writes the campaign format reference (Markdown) from the option tables;
 * docs/campaign-format.md embeds it and a test keeps the two equal. */
vc_status_t vc_campaign_write_reference(FILE *out);

#endif
