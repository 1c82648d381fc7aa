/* vc_campaign: loading, validating and writing campaign files. The option
 * tables below are the single description of the format: they drive the
 * reader, the effective-campaign writer (vantage check) and the reference in
 * docs/campaign-format.md. Checks that span several settings (references
 * between sections, paths against target kinds, schedules against job
 * kinds) follow the tables. */
#include "vc_campaign.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vc_opt.h"
#include "vc_parse.h"

#define FILE_MAX 1024
#define DESC_MAX 1024
#define SCALE_FROM_MAX VC_NAME_MAX

struct vc_campaign_s {
    char file[FILE_MAX];
    char name[VC_NAME_MAX];
    char description[DESC_MAX];
    int schedule;
    int64_t agent_wait_ms;
    int64_t start_lead_ms;
    size_t ntargets;
    vc_target_t targets[VC_CAMPAIGN_MAX_TARGETS];
    int target_line[VC_CAMPAIGN_MAX_TARGETS];
    size_t nagents;
    vc_campaign_agent_t agents[VC_CAMPAIGN_MAX_AGENTS];
    int agent_line[VC_CAMPAIGN_MAX_AGENTS];
    size_t njobs;
    vc_campaign_job_t *jobs; /* VC_CAMPAIGN_MAX_JOBS */
};

/* ---- names ------------------------------------------------------------ */

static const char *const schedule_names[] = {"parallel", "sequential", "interleaved", NULL};
static const char *const kind_names[] = {"populate", "list-scale", "ops", "probe",
                                         "calibrate", "null", NULL};
static const char *const target_kind_names[] = {"s3", "ais", NULL};
static const char *const addressing_names[] = {"path", "virtual", NULL};
static const char *const naming_names[] = {"random", "sequential", NULL};
static const char *const path_names[] = {"ais-regular", "ais-nbi", "s3-direct"};
static const char *const ais_providers[] = {"aws", "gcp", "azure", "oci", "ais", "ht", NULL};

const char *vc_schedule_name(vc_schedule_t s)
{
    return (unsigned)s < VC_SCHED_COUNT ? schedule_names[s] : "unknown";
}

int vc_schedule_parse(const char *name)
{
    for (int i = 0; name && schedule_names[i]; i++)
        if (strcmp(name, schedule_names[i]) == 0)
            return i;
    return -1;
}

/* ---- option tables ---------------------------------------------------- */

#define K(w) (1u << (w))
#define KP K(VC_WL_POPULATE)
#define KL K(VC_WL_LIST_SCALE)
#define KO K(VC_WL_OPS)
#define KR K(VC_WL_PROBE)
#define KC K(VC_WL_CALIBRATE)
#define KN K(VC_WL_NULL)
#define TS K(VC_TK_S3)
#define TA K(VC_TK_AIS)

#define SEC(x) ((int64_t)(x) * 1000)
#define GIB(x) ((int64_t)(x) << 30)

#define JOBF(f) .off = offsetof(vc_campaign_job_t, job.f), .size = sizeof(((vc_job_t *)0)->f)
#define JOBE(f) .off = offsetof(vc_campaign_job_t, f), .size = sizeof(((vc_campaign_job_t *)0)->f)
#define TGT(f) .off = offsetof(vc_target_t, f), .size = sizeof(((vc_target_t *)0)->f)
#define CMP(f) .off = offsetof(struct vc_campaign_s, f), .size = sizeof(((struct vc_campaign_s *)0)->f)
#define AGT(f) .off = offsetof(vc_campaign_agent_t, f), .size = sizeof(((vc_campaign_agent_t *)0)->f)

static void write_targets(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_agents(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_jobs(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_target_kind(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_job_kind(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_job_agents(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_job_target(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_job_direct(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_scale(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_paths(const vc_opt_t *, const void *, FILE *, int, const void *);
static void write_ops(const vc_opt_t *, const void *, FILE *, int, const void *);
static int parse_job_agents(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                            const char *);
static int parse_job_target(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                            const char *);
static int parse_job_direct(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                            const char *);
static int parse_scale(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                       const char *);
static int parse_paths(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                       const char *);
static int parse_ops(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                     const char *);
static int parse_string_only(const vc_opt_t *, const config_setting_t *, void *, vc_opt_ctx_t *,
                             const char *);

static int omit_target(const void *obj)
{
    return !*((const vc_campaign_job_t *)obj)->job.target.name;
}
static int omit_direct(const void *obj)
{
    return !((const vc_campaign_job_t *)obj)->job.has_direct;
}
static int omit_scale(const void *obj)
{
    return ((const vc_campaign_job_t *)obj)->job.nscale == 0;
}

static const vc_opt_t campaign_opts[] = {
    {.name = "name", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NAME, CMP(name),
     .help = "the campaign's name, used in results and reports"},
    {.name = "description", .type = VC_OPT_STRING, .flags = VC_OPT_MULTILINE, CMP(description),
     .help = "what the campaign measures, for people reading its results"},
    {.name = "schedule", .type = VC_OPT_ENUM, CMP(schedule), .choices = schedule_names,
     .help = "how a job runs on its agents unless the job says otherwise (see Schedules)"},
    {.name = "agent_wait", .type = VC_OPT_DURATION, CMP(agent_wait_ms), .min = 0,
     .max = SEC(86400),
     .help = "how long the coordinator waits for every agent to connect before the first job"},
    {.name = "start_lead", .type = VC_OPT_DURATION, CMP(start_lead_ms), .min = 0,
     .max = SEC(600), .help = "lead between sending a wave of jobs and their common start time"},
    {.name = "targets", .type = VC_OPT_CUSTOM, .write = write_targets,
     .doc_type = "list of target groups", .doc_default = "none",
     .help = "the object stores (see Targets)"},
    {.name = "agents", .type = VC_OPT_CUSTOM, .flags = VC_OPT_REQUIRED, .write = write_agents,
     .doc_type = "list of agent groups", .help = "the agents taking part (see Agents)"},
    {.name = "jobs", .type = VC_OPT_CUSTOM, .flags = VC_OPT_REQUIRED, .write = write_jobs,
     .doc_type = "list of job groups", .help = "what to run, in order (see Jobs)"},
    {0},
};

static const vc_opt_t target_opts[] = {
    {.name = "name", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NAME, TGT(name),
     .help = "the name jobs use for this target"},
    {.name = "kind", .type = VC_OPT_CUSTOM, .flags = VC_OPT_REQUIRED, .parse = parse_string_only,
     .write = write_target_kind, .doc_type = "one of `s3`, `ais`",
     .help = "S3 (ListObjectsV2, SigV4) or AIStore's native API"},
    {.name = "endpoint", .type = VC_OPT_STRING, TGT(endpoint),
     .help = "http(s)://host:port; empty: each agent's own (its config, else $AWS_ENDPOINT_URL "
             "for s3, $AIS_ENDPOINT for ais)"},
    {.name = "bucket", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NONEMPTY,
     TGT(bucket), .help = "bucket name"},
    {.name = "provider", .type = VC_OPT_STRING, .mask = TA, TGT(provider),
     .help = "AIS backend provider of the bucket: aws, gcp, azure, oci, ais or ht"},
    {.name = "region", .type = VC_OPT_STRING, .mask = TS, TGT(region),
     .help = "S3 region for signing; empty: the agent's ($AWS_REGION, else us-east-1)"},
    {.name = "addressing", .type = VC_OPT_ENUM, .mask = TS, TGT(addressing),
     .choices = addressing_names,
     .help = "path-style (endpoint/bucket/key) or virtual-hosted (bucket.endpoint/key) URLs"},
    {.name = "verify_tls", .type = VC_OPT_BOOL, TGT(verify_tls),
     .help = "check the server's TLS certificate (https endpoints)"},
    {0},
};

static const vc_opt_t agent_opts[] = {
    {.name = "name", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NAME, AGT(name),
     .help = "the agent's name, as set in its own config (`name`)"},
    {.name = "site", .type = VC_OPT_STRING, AGT(site),
     .help = "label of the vantage point in reports, e.g. \"Home fiber\"; empty: the agent's own"},
    {0},
};

static const vc_opt_t job_opts[] = {
    {.name = "name", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NAME, JOBF(id),
     .help = "the job's name, unique in the campaign; results are filed under it"},
    {.name = "kind", .type = VC_OPT_CUSTOM, .flags = VC_OPT_REQUIRED, .parse = parse_string_only,
     .write = write_job_kind,
     .doc_type = "one of `populate`, `list-scale`, `ops`, `probe`, `calibrate`, `null`",
     .help = "the workload"},
    {.name = "agents", .type = VC_OPT_CUSTOM, .parse = parse_job_agents, .write = write_job_agents,
     .doc_type = "array of agent names", .doc_default = "all agents (populate: the first)",
     .help = "the agents that run the job, in this order"},
    {.name = "schedule", .type = VC_OPT_ENUM, JOBE(schedule), .choices = schedule_names,
     .doc_default = "the campaign's `schedule`", .help = "how the job runs on its agents"},
    {.name = "target", .type = VC_OPT_CUSTOM, .mask = KP | KL | KO | KR, .parse = parse_job_target,
     .write = write_job_target, .omit = omit_target, .doc_type = "target name",
     .doc_default = "required (list-scale: when an ais path is measured)",
     .help = "the target to work on; for list-scale the AIS target of the ais-* paths"},
    {.name = "s3_target", .type = VC_OPT_CUSTOM, .mask = KL, .parse = parse_job_direct,
     .write = write_job_direct, .omit = omit_direct, .doc_type = "target name",
     .doc_default = "required when s3-direct is measured",
     .help = "the S3 target that the s3-direct path lists (the bucket behind the AIS target)"},
    {.name = "prefix", .type = VC_OPT_STRING, .mask = KP, JOBF(prefix),
     .doc_default = "required unless `scale` or `scale_from`",
     .help = "objects are written under this key prefix"},
    {.name = "count", .type = VC_OPT_COUNT, .mask = KP | KC | KN, JOBF(count), .min = 1,
     .max = 1000000000, .doc_default = "populate: required unless `scale`; others: `1000`",
     .help = "populate: objects to write; calibrate, null: samples to take"},
    {.name = "count", .type = VC_OPT_COUNT, .mask = KR, JOBF(probe_count), .min = 1,
     .max = 1000000, .help = "probes to send"},
    {.name = "size", .type = VC_OPT_SIZE, .mask = KP | KO, JOBF(object_size), .min = 0,
     .max = GIB(5), .help = "object size"},
    {.name = "workers", .type = VC_OPT_INT, .mask = KP | KO, JOBF(workers), .min = 1, .max = 1024,
     .help = "concurrent requests (each worker one connection)"},
    {.name = "naming", .type = VC_OPT_ENUM, .mask = KP, JOBF(sequential_names),
     .choices = naming_names,
     .help = "random: PREFIX + 32 random letters (aisloader); sequential: PREFIX + zero-padded index"},
    {.name = "scale", .type = VC_OPT_CUSTOM, .mask = KP | KL, .parse = parse_scale,
     .write = write_scale, .omit = omit_scale,
     .doc_type = "list of {label, prefix, count} groups, or an array of counts",
     .doc_default = "list-scale: required",
     .help = "the scale points; a populate job with scale becomes one job per point, named "
             "NAME-LABEL"},
    {.name = "scale_prefix", .type = VC_OPT_CUSTOM, .mask = KP | KL, .flags = VC_OPT_INPUT_ONLY,
     .parse = parse_string_only, .doc_type = "string", .doc_default = "none",
     .help = "prefix of scale points that give none; {n} is the count, {k} the count in "
             "thousands, {label} the label: \"bench/{k}k/\""},
    {.name = "scale_from", .type = VC_OPT_CUSTOM, .mask = KP, .flags = VC_OPT_INPUT_ONLY,
     .parse = parse_string_only, .doc_type = "job name", .doc_default = "none",
     .help = "take the scale points of this list-scale job"},
    {.name = "runs", .type = VC_OPT_INT, .mask = KL, JOBF(runs), .min = 1, .max = 10000,
     .help = "listings per path and scale point"},
    {.name = "paths", .type = VC_OPT_CUSTOM, .mask = KL, .parse = parse_paths, .write = write_paths,
     .doc_type = "array of `ais-regular`, `ais-nbi`, `s3-direct`",
     .doc_default = "all three",
     .help = "listing paths to time, always run in the order regular, NBI, S3 direct"},
    {.name = "page_size", .type = VC_OPT_INT, .mask = KL, JOBF(page_size), .min = 1,
     .max = 100000, .help = "keys per S3 listing page (MaxKeys); AIS listings use the server's page size, as the seed does"},
    {.name = "nbi_poll", .type = VC_OPT_DURATION, .mask = KL, JOBF(nbi_poll_ms), .min = 1,
     .max = SEC(60), .help = "interval between polls of the inventory creation job"},
    {.name = "nbi_timeout", .type = VC_OPT_DURATION, .mask = KL, JOBF(nbi_timeout_ms),
     .min = SEC(1), .max = SEC(86400), .help = "give up waiting for an inventory after this"},
    {.name = "warmup", .type = VC_OPT_BOOL, .mask = KL, JOBF(warmup),
     .help = "one untimed s3-direct listing first, to open the connection (as the seed)"},
    {.name = "verify_count", .type = VC_OPT_BOOL, .mask = KL, JOBF(verify_count),
     .help = "list each scale point once first and fail it unless it holds `count` objects"},
    {.name = "nbi_create", .type = VC_OPT_BOOL, .mask = KL, JOBF(nbi_create),
     .help = "create the inventory (force) before a scale point's runs and time the creation"},
    {.name = "nbi_destroy", .type = VC_OPT_BOOL, .mask = KL, JOBF(nbi_destroy),
     .help = "destroy the inventory after a scale point's runs"},
    {.name = "interleave", .type = VC_OPT_BOOL, .mask = KL | KO, JOBF(interleave),
     .help = "run-major order: each run takes every path (op) once, rotated, instead of all "
             "runs of one path then the next"},
    {.name = "iterations", .type = VC_OPT_INT, .mask = KO, JOBF(iterations), .min = 1,
     .max = 1000000, .help = "times each operation is done (s3bench's N)"},
    {.name = "ops", .type = VC_OPT_CUSTOM, .mask = KO, .parse = parse_ops, .write = write_ops,
     .doc_type = "array of `put`, `get`, `head`, `delete` (or upload, download, exists)",
     .doc_default = "`[\"put\", \"get\", \"head\", \"delete\"]`",
     .help = "the operations, in order; each works on the keys the put made"},
    {.name = "key_prefix", .type = VC_OPT_STRING, .mask = KO, JOBF(key_prefix),
     .help = "keys go under this prefix; each agent adds its own name so agents never collide"},
    {.name = "upload_file", .type = VC_OPT_STRING, .mask = KO, JOBF(upload_file),
     .help = "file on the agent to upload (its size wins); empty: `size` bytes of zeros"},
    {.name = "interval", .type = VC_OPT_DURATION, .mask = KR, JOBF(probe_interval_ms), .min = 0,
     .max = SEC(3600), .help = "pause between probes"},
    {.name = "timeout", .type = VC_OPT_DURATION, .mask = KP | KL | KO | KR, JOBF(timeout_ms),
     .min = 1, .max = SEC(86400), .help = "per request"},
    {0},
};

/* ---- loading state ---------------------------------------------------- */

typedef struct {
    vc_campaign_job_t e;
    char scale_from[SCALE_FROM_MAX];
    int given_prefix, given_count, given_scale, given_agents;
} pending_job_t;

static vc_campaign_t *ctx_campaign(vc_opt_ctx_t *ctx)
{
    return (vc_campaign_t *)ctx->user;
}

static int parse_string_only(const vc_opt_t *o, const config_setting_t *s, void *obj,
                             vc_opt_ctx_t *ctx, const char *path)
{
    (void)o;
    (void)obj;
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        vc_opt_error(ctx, s, path, "expects a string");
        return 1;
    }
    return 0;
}

static int valid_text(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

/* A key prefix: printable, no leading '/', no "..". */
static int check_prefix(const char *p, const config_setting_t *s, const char *path,
                        vc_opt_ctx_t *ctx)
{
    if (!valid_text(p)) {
        vc_opt_error(ctx, s, path, "contains control characters");
        return 1;
    }
    if (p[0] == '/') {
        vc_opt_error(ctx, s, path, "\"%.64s\" starts with '/': object keys are relative to the "
                                   "bucket, write \"%.64s\"", p, p + 1);
        return 1;
    }
    return 0;
}

static int parse_job_agents(const vc_opt_t *o, const config_setting_t *s, void *obj,
                            vc_opt_ctx_t *ctx, const char *path)
{
    (void)o;
    vc_campaign_job_t *e = obj;
    vc_campaign_t *c = ctx_campaign(ctx);
    int t = config_setting_type(s);
    int n = t == CONFIG_TYPE_STRING ? 1 : config_setting_length(s);
    if (t != CONFIG_TYPE_STRING && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        vc_opt_error(ctx, s, path, "expects an array of agent names, like [\"ec2\", \"fiber\"]");
        return 1;
    }
    if (n == 0) {
        vc_opt_error(ctx, s, path, "is empty: name at least one agent, or leave it out for all");
        return 1;
    }
    int errors = 0;
    e->nagents = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *el = t == CONFIG_TYPE_STRING ? s : config_setting_get_elem(s, (unsigned)i);
        if (config_setting_type(el) != CONFIG_TYPE_STRING) {
            vc_opt_error(ctx, el, path, "element %d: expects an agent name (a string)", i);
            errors++;
            continue;
        }
        const char *name = config_setting_get_string(el);
        int idx = vc_campaign_agent_find(c, name);
        if (idx < 0) {
            char list[256] = "";
            for (size_t k = 0; k < c->nagents; k++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", c->agents[k].name);
            }
            vc_opt_error(ctx, el, path, "no agent named \"%.64s\" in `agents` (known: %s)", name,
                         *list ? list : "none");
            errors++;
            continue;
        }
        int dup = 0;
        for (int k = 0; k < e->nagents; k++)
            dup |= e->agents[k] == idx;
        if (dup) {
            vc_opt_error(ctx, el, path, "agent \"%s\" is listed twice", name);
            errors++;
            continue;
        }
        e->agents[e->nagents++] = idx;
    }
    return errors;
}

static int find_target_ref(const config_setting_t *s, vc_opt_ctx_t *ctx, const char *path,
                           const vc_target_t **out)
{
    vc_campaign_t *c = ctx_campaign(ctx);
    *out = NULL;
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        vc_opt_error(ctx, s, path, "expects a target name (a string)");
        return 1;
    }
    const char *name = config_setting_get_string(s);
    if (!*name)
        return 0;
    int idx = vc_campaign_target_find(c, name);
    if (idx < 0) {
        char list[256] = "";
        for (size_t k = 0; k < c->ntargets; k++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", c->targets[k].name);
        }
        vc_opt_error(ctx, s, path, "no target named \"%.64s\" in `targets` (known: %s)", name,
                     *list ? list : "none");
        return 1;
    }
    *out = &c->targets[idx];
    return 0;
}

static int parse_job_target(const vc_opt_t *o, const config_setting_t *s, void *obj,
                            vc_opt_ctx_t *ctx, const char *path)
{
    (void)o;
    vc_campaign_job_t *e = obj;
    const vc_target_t *t;
    if (find_target_ref(s, ctx, path, &t))
        return 1;
    if (!t) {
        if (e->job.kind == VC_WL_LIST_SCALE)
            return 0;
        vc_opt_error(ctx, s, path, "is empty: name one of the campaign's targets");
        return 1;
    }
    if (e->job.kind == VC_WL_LIST_SCALE && t->kind != VC_TK_AIS) {
        vc_opt_error(ctx, s, path,
                     "\"%s\" is an s3 target, but a list-scale job's `target` is the AIS target "
                     "of the ais-regular and ais-nbi paths (an S3 bucket goes in `s3_target`)",
                     t->name);
        return 1;
    }
    e->job.target = *t;
    return 0;
}

static int parse_job_direct(const vc_opt_t *o, const config_setting_t *s, void *obj,
                            vc_opt_ctx_t *ctx, const char *path)
{
    (void)o;
    vc_campaign_job_t *e = obj;
    const vc_target_t *t;
    if (find_target_ref(s, ctx, path, &t))
        return 1;
    if (!t)
        return 0;
    if (t->kind != VC_TK_S3) {
        vc_opt_error(ctx, s, path,
                     "\"%s\" is an ais target: the s3-direct path lists an S3 bucket, so "
                     "`s3_target` must name an s3 target",
                     t->name);
        return 1;
    }
    e->job.direct = *t;
    e->job.has_direct = 1;
    return 0;
}

/* Expands a scale_prefix template for one point. 0, or 1 with an error. */
static int expand_prefix(const char *tmpl, const vc_scale_point_t *pt, char *out, size_t len,
                         const char **why)
{
    size_t o = 0;
    for (const char *p = tmpl; *p;) {
        char piece[64];
        const char *add = NULL;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            size_t n = end ? (size_t)(end - p + 1) : 0;
            if (n == 3 && strncmp(p, "{n}", 3) == 0) {
                snprintf(piece, sizeof piece, "%lld", (long long)pt->count);
            } else if (n == 3 && strncmp(p, "{k}", 3) == 0) {
                if (pt->count % 1000) {
                    *why = "{k} needs counts that are whole thousands (use {n})";
                    return 1;
                }
                snprintf(piece, sizeof piece, "%lld", (long long)(pt->count / 1000));
            } else if (n == 7 && strncmp(p, "{label}", 7) == 0) {
                snprintf(piece, sizeof piece, "%s", pt->label);
            } else {
                *why = "unknown placeholder: use {n}, {k} or {label}";
                return 1;
            }
            add = piece;
            p += n;
        } else {
            piece[0] = *p++;
            piece[1] = '\0';
            add = piece;
        }
        size_t l = strlen(add);
        if (o + l >= len) {
            *why = "the prefix is too long";
            return 1;
        }
        memcpy(out + o, add, l);
        o += l;
    }
    out[o] = '\0';
    return 0;
}

/* Elements of an array or list setting; -1 after reporting that it is not
 * one, is empty, or has more than max. */
static int aggregate_len(const config_setting_t *s, vc_opt_ctx_t *ctx, const char *path, int max,
                         const char *expects)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
        vc_opt_error(ctx, s, path, "expects %s", expects);
        return -1;
    }
    int n = config_setting_length(s);
    if (n == 0 || n > max) {
        vc_opt_error(ctx, s, path, "must have 1 to %d elements: %s", max, expects);
        return -1;
    }
    return n;
}

typedef struct {
    const char *name;
    int value;
} named_t;

/* An array of names from a table, each value at most once; returns the
 * number of errors and fills values[0..*count). */
static int parse_named_array(const config_setting_t *s, vc_opt_ctx_t *ctx, const char *path,
                             const named_t *names, size_t nnames, const char *what,
                             const char *choices, int max, int *values, int *count)
{
    int n = aggregate_len(s, ctx, path, max, choices);
    if (n < 0)
        return 1;
    int errors = 0;
    unsigned seen = 0;
    *count = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *el = config_setting_get_elem(s, (unsigned)i);
        const char *name = config_setting_type(el) == CONFIG_TYPE_STRING
                               ? config_setting_get_string(el)
                               : NULL;
        int found = -1;
        for (size_t k = 0; name && k < nnames; k++)
            if (strcmp(name, names[k].name) == 0)
                found = names[k].value;
        if (found < 0) {
            vc_opt_error(ctx, el, path, "element %d: unknown %s%s%.64s%s: expected %s", i, what,
                         name ? " \"" : "", name ? name : "", name ? "\"" : "", choices);
            errors++;
        } else if (seen & (1u << found)) {
            vc_opt_error(ctx, el, path, "%s \"%s\" is listed twice", what, name);
            errors++;
        } else {
            seen |= 1u << found;
            values[(*count)++] = found;
        }
    }
    return errors;
}

static int read_count_value(const config_setting_t *s, int64_t *out, vc_opt_ctx_t *ctx,
                            const char *path)
{
    static const vc_opt_t count_opt = {.name = "count", .type = VC_OPT_COUNT, .off = 0,
                                       .size = sizeof(int64_t), .min = 1, .max = 1000000000,
                                       .help = "objects"};
    return vc_opt_read_one(&count_opt, s, out, path, ctx);
}

static int parse_scale(const vc_opt_t *o, const config_setting_t *s, void *obj, vc_opt_ctx_t *ctx,
                       const char *path)
{
    (void)o;
    vc_job_t *job = &((vc_campaign_job_t *)obj)->job;
    int n = aggregate_len(s, ctx, path, VC_MAX_SCALE_POINTS,
                          "a list of {label, prefix, count} groups or an array of counts like "
                          "[\"1K\", \"2K\"]");
    if (n < 0)
        return 1;
    const config_setting_t *job_group = config_setting_parent(s);
    const config_setting_t *tmpl_s = config_setting_get_member(job_group, "scale_prefix");
    const char *tmpl = tmpl_s && config_setting_type(tmpl_s) == CONFIG_TYPE_STRING
                           ? config_setting_get_string(tmpl_s)
                           : NULL;
    int errors = 0;
    job->nscale = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *el = config_setting_get_elem(s, (unsigned)i);
        char sub[256];
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        vc_scale_point_t pt;
        memset(&pt, 0, sizeof pt);
        const config_setting_t *label_s = NULL, *prefix_s = NULL, *at = el;
        if (config_setting_type(el) == CONFIG_TYPE_GROUP) {
            int bad = 0;
            for (int k = 0; k < config_setting_length(el); k++) {
                const config_setting_t *m = config_setting_get_elem(el, (unsigned)k);
                const char *mn = config_setting_name(m);
                if (strcmp(mn, "label") && strcmp(mn, "prefix") && strcmp(mn, "count")) {
                    vc_opt_error(ctx, m, sub, "unknown setting '%s' in a scale point (label, "
                                              "prefix, count)", mn);
                    bad++;
                }
            }
            const config_setting_t *cs = config_setting_get_member(el, "count");
            label_s = config_setting_get_member(el, "label");
            prefix_s = config_setting_get_member(el, "prefix");
            char csub[280];
            snprintf(csub, sizeof csub, "%s.count", sub);
            if (!cs) {
                vc_opt_error(ctx, el, sub, "missing required setting 'count'");
                bad++;
            } else {
                bad += read_count_value(cs, &pt.count, ctx, csub);
                at = cs;
            }
            for (int k = 0; k < 2; k++) {
                const config_setting_t *x = k ? prefix_s : label_s;
                if (x && config_setting_type(x) != CONFIG_TYPE_STRING) {
                    char xsub[290];
                    snprintf(xsub, sizeof xsub, "%s.%s", sub, k ? "prefix" : "label");
                    vc_opt_error(ctx, x, xsub, "expects a string");
                    bad++;
                }
            }
            if (bad) {
                errors += bad;
                continue;
            }
        } else if (read_count_value(el, &pt.count, ctx, sub)) {
            errors++;
            continue;
        }
        if (label_s) {
            const char *l = config_setting_get_string(label_s);
            if (!*l || strlen(l) >= sizeof pt.label || !valid_text(l)) {
                vc_opt_error(ctx, label_s, sub, "label must be 1 to %zu printable characters",
                             sizeof pt.label - 1);
                errors++;
                continue;
            }
            snprintf(pt.label, sizeof pt.label, "%s", l);
        } else {
            vc_format_count(pt.count, pt.label, sizeof pt.label);
        }
        if (prefix_s) {
            const char *p = config_setting_get_string(prefix_s);
            if (!*p || strlen(p) >= sizeof pt.prefix) {
                vc_opt_error(ctx, prefix_s, sub, "prefix must be 1 to %zu characters",
                             sizeof pt.prefix - 1);
                errors++;
                continue;
            }
            snprintf(pt.prefix, sizeof pt.prefix, "%s", p);
        } else if (tmpl) {
            const char *why = NULL;
            if (expand_prefix(tmpl, &pt, pt.prefix, sizeof pt.prefix, &why)) {
                vc_opt_error(ctx, tmpl_s, sub, "scale_prefix \"%.64s\": %s", tmpl, why);
                errors++;
                continue;
            }
        } else {
            vc_opt_error(ctx, at, sub, "no prefix for scale point %s: give it a prefix or set "
                                       "`scale_prefix`, e.g. \"bench/{k}k/\"", pt.label);
            errors++;
            continue;
        }
        if (check_prefix(pt.prefix, prefix_s ? prefix_s : at, sub, ctx)) {
            errors++;
            continue;
        }
        int clash = 0;
        for (int k = 0; k < job->nscale && !clash; k++) {
            const vc_scale_point_t *q = &job->scale[k];
            if (strcmp(q->label, pt.label) == 0) {
                vc_opt_error(ctx, at, sub, "label \"%s\" is used twice", pt.label);
                clash = 1;
            } else if (strncmp(q->prefix, pt.prefix, strlen(q->prefix)) == 0 ||
                       strncmp(pt.prefix, q->prefix, strlen(pt.prefix)) == 0) {
                vc_opt_error(ctx, at, sub,
                             "prefix \"%s\" overlaps \"%s\" of point %s: a listing of one would "
                             "count the other's objects",
                             pt.prefix, q->prefix, q->label);
                clash = 1;
            }
        }
        if (clash) {
            errors++;
            continue;
        }
        job->scale[job->nscale++] = pt;
    }
    return errors;
}

static int parse_paths(const vc_opt_t *o, const config_setting_t *s, void *obj, vc_opt_ctx_t *ctx,
                       const char *path)
{
    static const named_t names[] = {{"ais-regular", 0}, {"ais-nbi", 1}, {"s3-direct", 2}};
    (void)o;
    vc_job_t *job = &((vc_campaign_job_t *)obj)->job;
    int values[3], n;
    int errors = parse_named_array(s, ctx, path, names, 3, "path",
                                   "an array of \"ais-regular\", \"ais-nbi\", \"s3-direct\"", 3,
                                   values, &n);
    if (errors)
        return errors;
    job->paths = 0;
    for (int i = 0; i < n; i++)
        job->paths |= 1u << values[i];
    return 0;
}

static int parse_ops(const vc_opt_t *o, const config_setting_t *s, void *obj, vc_opt_ctx_t *ctx,
                     const char *path)
{
    static const named_t names[] = {{"put", VC_OP_PUT},       {"get", VC_OP_GET},
                                    {"head", VC_OP_HEAD},     {"delete", VC_OP_DELETE},
                                    {"upload", VC_OP_PUT},    {"download", VC_OP_GET},
                                    {"exists", VC_OP_HEAD}};
    (void)o;
    vc_job_t *job = &((vc_campaign_job_t *)obj)->job;
    int values[VC_OP_COUNT], n;
    int errors = parse_named_array(s, ctx, path, names, sizeof names / sizeof names[0],
                                   "operation", "an array of \"put\", \"get\", \"head\", \"delete\"",
                                   VC_OP_COUNT, values, &n);
    if (errors)
        return errors;
    if (values[0] != VC_OP_PUT) {
        vc_opt_error(ctx, s, path, "the first operation must be put: the others work on the "
                                   "object each iteration's put writes");
        return 1;
    }
    job->nops = n;
    for (int i = 0; i < n; i++)
        job->ops[i] = (vc_op_t)values[i];
    return 0;
}

/* ---- writers ---------------------------------------------------------- */

static void write_target_kind(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                              const void *user)
{
    (void)o, (void)indent, (void)user;
    const vc_target_t *t = obj;
    vc_opt_write_string(out, target_kind_names[t->kind == VC_TK_AIS]);
}

static void write_job_kind(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                           const void *user)
{
    (void)o, (void)indent, (void)user;
    vc_opt_write_string(out, vc_workload_name(((const vc_campaign_job_t *)obj)->job.kind));
}

static void write_job_agents(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                             const void *user)
{
    (void)o, (void)indent;
    const vc_campaign_job_t *e = obj;
    const vc_campaign_t *c = user;
    fputc('[', out);
    for (int i = 0; i < e->nagents; i++) {
        fputs(i ? ", " : " ", out);
        vc_opt_write_string(out, c->agents[e->agents[i]].name);
    }
    fputs(" ]", out);
}

static void write_job_target(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                             const void *user)
{
    (void)o, (void)indent, (void)user;
    vc_opt_write_string(out, ((const vc_campaign_job_t *)obj)->job.target.name);
}

static void write_job_direct(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                             const void *user)
{
    (void)o, (void)indent, (void)user;
    const vc_job_t *j = &((const vc_campaign_job_t *)obj)->job;
    vc_opt_write_string(out, j->has_direct ? j->direct.name : "");
}

static void write_scale(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                        const void *user)
{
    (void)o, (void)user;
    const vc_job_t *j = &((const vc_campaign_job_t *)obj)->job;
    fputs("(\n", out);
    for (int i = 0; i < j->nscale; i++) {
        fprintf(out, "%*s{ label = ", indent + 4, "");
        vc_opt_write_string(out, j->scale[i].label);
        fputs("; prefix = ", out);
        vc_opt_write_string(out, j->scale[i].prefix);
        fprintf(out, "; count = %lld; }%s\n", (long long)j->scale[i].count,
                i + 1 < j->nscale ? "," : "");
    }
    fprintf(out, "%*s)", indent, "");
}

static void write_paths(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                        const void *user)
{
    (void)o, (void)indent, (void)user;
    const vc_job_t *j = &((const vc_campaign_job_t *)obj)->job;
    fputc('[', out);
    int first = 1;
    for (int k = 0; k < 3; k++)
        if (j->paths & (1u << k)) {
            fputs(first ? " " : ", ", out);
            vc_opt_write_string(out, path_names[k]);
            first = 0;
        }
    fputs(" ]", out);
}

static void write_ops(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                      const void *user)
{
    (void)o, (void)indent, (void)user;
    const vc_job_t *j = &((const vc_campaign_job_t *)obj)->job;
    fputc('[', out);
    for (int i = 0; i < j->nops; i++) {
        fputs(i ? ", " : " ", out);
        vc_opt_write_string(out, vc_op_name(j->ops[i]));
    }
    fputs(" ]", out);
}

/* A list of groups, one per element of an array of n structs. */
static void write_group_list(const vc_opt_t *table, const void *base, size_t stride, size_t n,
                             int (*variant)(const void *el), FILE *out, int indent,
                             const vc_campaign_t *c)
{
    fputs("(\n", out);
    for (size_t i = 0; i < n; i++) {
        const void *el = (const char *)base + i * stride;
        fprintf(out, "%*s{\n", indent + 2, "");
        vc_opt_write_group(table, el, variant ? variant(el) : 0, out, indent + 4, c);
        fprintf(out, "%*s}%s\n", indent + 2, "", i + 1 < n ? "," : "");
    }
    fprintf(out, "%*s)", indent, "");
}

static int target_variant(const void *el)
{
    return ((const vc_target_t *)el)->kind == VC_TK_AIS;
}

static int job_variant(const void *el)
{
    return (int)((const vc_campaign_job_t *)el)->job.kind;
}

static void write_targets(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                          const void *user)
{
    (void)o, (void)user;
    const vc_campaign_t *c = obj;
    write_group_list(target_opts, c->targets, sizeof c->targets[0], c->ntargets, target_variant,
                     out, indent, c);
}

static void write_agents(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                         const void *user)
{
    (void)o, (void)user;
    const vc_campaign_t *c = obj;
    write_group_list(agent_opts, c->agents, sizeof c->agents[0], c->nagents, NULL, out, indent,
                     c);
}

static void write_jobs(const vc_opt_t *o, const void *obj, FILE *out, int indent,
                       const void *user)
{
    (void)o, (void)user;
    const vc_campaign_t *c = obj;
    write_group_list(job_opts, c->jobs, sizeof c->jobs[0], c->njobs, job_variant, out, indent, c);
}

/* ---- the sections ----------------------------------------------------- */

static void campaign_defaults(vc_campaign_t *c)
{
    c->schedule = VC_SCHED_SEQUENTIAL;
    c->agent_wait_ms = SEC(120);
    c->start_lead_ms = SEC(2);
}

static int check_endpoint(const char *ep, const config_setting_t *s, const char *path,
                          vc_opt_ctx_t *ctx)
{
    char err[256];
    if (!*ep || vc_parse_http_url(ep, err, sizeof err) == VC_OK)
        return 0;
    vc_opt_error(ctx, s, path, "%s", err);
    return 1;
}

static int check_bucket(const vc_target_t *t, const config_setting_t *s, const char *path,
                        vc_opt_ctx_t *ctx)
{
    const char *b = t->bucket;
    size_t n = strlen(b);
    int ok = n >= 1 && n <= 63;
    for (size_t i = 0; ok && i < n; i++) {
        unsigned char ch = (unsigned char)b[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
             (t->kind == VC_TK_AIS && (ch == '_' || (ch >= 'A' && ch <= 'Z')));
    }
    if (ok && t->kind == VC_TK_S3)
        ok = n >= 3 && b[0] != '-' && b[0] != '.' && b[n - 1] != '-' && b[n - 1] != '.';
    if (!ok) {
        vc_opt_error(ctx, s, path, "\"%.64s\" is not a valid %s bucket name (%s)", b,
                     t->kind == VC_TK_S3 ? "S3" : "AIS",
                     t->kind == VC_TK_S3
                         ? "3 to 63 lowercase letters, digits, '-' or '.', starting and ending "
                           "with a letter or digit"
                         : "1 to 63 letters, digits, '-', '_' or '.'");
        return 1;
    }
    return 0;
}

/* Length of a top-level list (targets, agents, jobs); -1 after reporting
 * that it is not a list of groups or has too few or too many elements. */
static int section_len(const config_setting_t *list, const char *name, const char *noun, int min,
                       int max, const char *example, vc_opt_ctx_t *ctx)
{
    if (config_setting_type(list) != CONFIG_TYPE_LIST) {
        vc_opt_error(ctx, list, name, "expects a list of groups: %s = ( %s );", name, example);
        return -1;
    }
    int n = config_setting_length(list);
    if (n < min) {
        vc_opt_error(ctx, list, name, "is empty: a campaign needs at least one %s", noun);
        return -1;
    }
    if (n > max) {
        vc_opt_error(ctx, list, name, "has %d %ss; at most %d", n, noun, max);
        return -1;
    }
    return n;
}

/* Element i of a section list, or NULL after reporting that it is no group. */
static const config_setting_t *section_group(const config_setting_t *list, int i, const char *name,
                                             char *path, size_t plen, vc_opt_ctx_t *ctx)
{
    const config_setting_t *g = config_setting_get_elem(list, (unsigned)i);
    snprintf(path, plen, "%s[%d]", name, i);
    if (config_setting_type(g) != CONFIG_TYPE_GROUP) {
        vc_opt_error(ctx, g, path, "expects a group { name = ...; ... }");
        return NULL;
    }
    return g;
}

static void read_targets(vc_campaign_t *c, const config_setting_t *list, vc_opt_ctx_t *ctx)
{
    int n = section_len(list, "targets", "target", 0, VC_CAMPAIGN_MAX_TARGETS,
                        "{ name = \"s3\"; kind = \"s3\"; bucket = ...; }", ctx);
    for (int i = 0; i < n; i++) {
        char path[64];
        const config_setting_t *g = section_group(list, i, "targets", path, sizeof path, ctx);
        if (!g)
            continue;
        vc_target_t tg;
        vc_target_init(&tg);
        const config_setting_t *ks = config_setting_get_member(g, "kind");
        const char *kind = ks && config_setting_type(ks) == CONFIG_TYPE_STRING
                               ? config_setting_get_string(ks)
                               : NULL;
        int v = -1;
        for (int k = 0; kind && target_kind_names[k]; k++)
            if (strcmp(kind, target_kind_names[k]) == 0)
                v = k;
        if (ks && v < 0) {
            char sub[96];
            snprintf(sub, sizeof sub, "%s.kind", path);
            vc_opt_error(ctx, ks, sub, "kind must be \"s3\" or \"ais\"");
            v = 0;
        }
        if (!ks)
            v = 0; /* the missing kind is reported by read_group */
        tg.kind = v == 1 ? VC_TK_AIS : VC_TK_S3;
        vc_opt_read_group(target_opts, g, &tg, v, target_kind_names, path, ctx);
        const config_setting_t *m;
        char sub[96];
        if ((m = config_setting_get_member(g, "endpoint"))) {
            snprintf(sub, sizeof sub, "%s.endpoint", path);
            check_endpoint(tg.endpoint, m, sub, ctx);
        }
        if ((m = config_setting_get_member(g, "bucket")) && *tg.bucket) {
            snprintf(sub, sizeof sub, "%s.bucket", path);
            check_bucket(&tg, m, sub, ctx);
        }
        if ((m = config_setting_get_member(g, "provider")) && tg.kind == VC_TK_AIS) {
            int ok = 0;
            for (int k = 0; ais_providers[k]; k++)
                ok |= strcmp(tg.provider, ais_providers[k]) == 0;
            if (!ok) {
                snprintf(sub, sizeof sub, "%s.provider", path);
                vc_opt_error(ctx, m, sub, "unknown provider \"%s\": use aws, gcp, azure, oci, ais "
                                          "or ht", tg.provider);
            }
        }
        if (*tg.name) {
            int dup = vc_campaign_target_find(c, tg.name);
            if (dup >= 0) {
                vc_opt_error(ctx, g, path, "duplicate target name \"%s\" (first at line %d)",
                             tg.name, c->target_line[dup]);
                continue;
            }
        }
        c->target_line[c->ntargets] = config_setting_source_line(g);
        c->targets[c->ntargets++] = tg;
    }
}

static void read_agents(vc_campaign_t *c, const config_setting_t *list, vc_opt_ctx_t *ctx)
{
    int n = section_len(list, "agents", "agent", 1, VC_CAMPAIGN_MAX_AGENTS,
                        "{ name = \"ec2\"; site = \"EC2 same region\"; }", ctx);
    for (int i = 0; i < n; i++) {
        char path[64];
        const config_setting_t *g = section_group(list, i, "agents", path, sizeof path, ctx);
        if (!g)
            continue;
        vc_campaign_agent_t a;
        memset(&a, 0, sizeof a);
        vc_opt_read_group(agent_opts, g, &a, 0, NULL, path, ctx);
        if (*a.name) {
            int dup = vc_campaign_agent_find(c, a.name);
            if (dup >= 0) {
                vc_opt_error(ctx, g, path, "duplicate agent name \"%s\" (first at line %d)",
                             a.name, c->agent_line[dup]);
                continue;
            }
        }
        c->agent_line[c->nagents] = config_setting_source_line(g);
        c->agents[c->nagents++] = a;
    }
}

/* Checks one job after its settings were read: what its kind requires. */
static void check_job(vc_campaign_t *c, pending_job_t *pj, const config_setting_t *g,
                      const char *path, vc_opt_ctx_t *ctx)
{
    vc_campaign_job_t *e = &pj->e;
    vc_job_t *j = &e->job;
    const config_setting_t *m;
    char sub[128];
    if (!pj->given_agents) {
        e->nagents = j->kind == VC_WL_POPULATE && c->nagents ? 1 : (int)c->nagents;
        for (int i = 0; i < e->nagents; i++)
            e->agents[i] = i;
    }
    switch (j->kind) {
    case VC_WL_POPULATE:
        if (!config_setting_get_member(g, "target"))
            vc_opt_error(ctx, g, path, "missing required setting 'target' (the target to write "
                                       "the objects to)");
        if (pj->given_scale || *pj->scale_from) {
            if (pj->given_prefix || pj->given_count)
                vc_opt_error(ctx, g, path, "give either `prefix` and `count`, or `scale` / "
                                           "`scale_from`, not both");
            if (pj->given_scale && *pj->scale_from)
                vc_opt_error(ctx, g, path, "give either `scale` or `scale_from`, not both");
        } else {
            if (!pj->given_prefix)
                vc_opt_error(ctx, g, path, "missing required setting 'prefix' (or `scale`)");
            if (!pj->given_count)
                vc_opt_error(ctx, g, path, "missing required setting 'count' (or `scale`)");
        }
        if ((m = config_setting_get_member(g, "prefix"))) {
            snprintf(sub, sizeof sub, "%s.prefix", path);
            check_prefix(j->prefix, m, sub, ctx);
        }
        snprintf(sub, sizeof sub, "%s.agents", path);
        if (e->nagents > 1 && pj->given_agents)
            vc_opt_error(ctx, config_setting_get_member(g, "agents"), sub,
                         "a populate job runs on one agent: %d agents would each write `count` "
                         "objects under the same prefix",
                         e->nagents);
        break;
    case VC_WL_LIST_SCALE:
        if (!pj->given_scale)
            vc_opt_error(ctx, g, path, "missing required setting 'scale' (the scale points)");
        if ((j->paths & (VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI)) && !*j->target.name &&
            !config_setting_get_member(g, "target"))
            vc_opt_error(ctx, g, path, "missing setting 'target': the ais-regular and ais-nbi "
                                       "paths need the AIS target");
        if ((j->paths & VC_PATH_S3_DIRECT) && !j->has_direct &&
            !config_setting_get_member(g, "s3_target"))
            vc_opt_error(ctx, g, path, "missing setting 's3_target': the s3-direct path needs "
                                       "the S3 target");
        if ((m = config_setting_get_member(g, "target")) &&
            (j->paths & (VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI)) && !*j->target.name &&
            config_setting_type(m) == CONFIG_TYPE_STRING && !*config_setting_get_string(m)) {
            snprintf(sub, sizeof sub, "%s.target", path);
            vc_opt_error(ctx, m, sub, "is empty, but the ais paths need the AIS target");
        }
        if ((m = config_setting_get_member(g, "s3_target")) && (j->paths & VC_PATH_S3_DIRECT) &&
            !j->has_direct && config_setting_type(m) == CONFIG_TYPE_STRING &&
            !*config_setting_get_string(m)) {
            snprintf(sub, sizeof sub, "%s.s3_target", path);
            vc_opt_error(ctx, m, sub, "is empty, but the s3-direct path needs the S3 target");
        }
        if ((j->paths & VC_PATH_AIS_NBI) && (j->nbi_create || j->nbi_destroy) &&
            e->schedule == VC_SCHED_PARALLEL && e->nagents > 1)
            vc_opt_error(ctx, g, path,
                         "schedule \"parallel\" with the ais-nbi path on %d agents: they would "
                         "create and destroy the bucket's one inventory under each other; use "
                         "\"sequential\" or \"interleaved\"",
                         e->nagents);
        break;
    case VC_WL_OPS:
    case VC_WL_PROBE:
        if (!config_setting_get_member(g, "target"))
            vc_opt_error(ctx, g, path, "missing required setting 'target' (the target to work "
                                       "on)");
        if (j->kind == VC_WL_OPS && (m = config_setting_get_member(g, "key_prefix"))) {
            snprintf(sub, sizeof sub, "%s.key_prefix", path);
            check_prefix(j->key_prefix, m, sub, ctx);
        }
        break;
    default:
        break;
    }
}

static int push_job(vc_campaign_t *c, const vc_campaign_job_t *e, const config_setting_t *at,
                    const char *path, vc_opt_ctx_t *ctx)
{
    if (c->njobs >= VC_CAMPAIGN_MAX_JOBS) {
        vc_opt_error(ctx, at, path, "too many jobs (at most %d, counting each scale point of a "
                                    "populate job)", VC_CAMPAIGN_MAX_JOBS);
        return 1;
    }
    int dup = vc_campaign_job_find(c, e->job.id);
    if (dup >= 0) {
        vc_opt_error(ctx, at, path, "duplicate job name \"%s\" (first at line %d)", e->job.id,
                     c->jobs[dup].line);
        return 1;
    }
    c->jobs[c->njobs++] = *e;
    return 0;
}

static void read_jobs(vc_campaign_t *c, const config_setting_t *list, vc_opt_ctx_t *ctx)
{
    int n = section_len(list, "jobs", "job", 1, VC_CAMPAIGN_MAX_JOBS,
                        "{ name = ...; kind = ...; ... }", ctx);
    if (n < 0)
        return;
    pending_job_t *pend = calloc((size_t)n, sizeof *pend);
    const config_setting_t **groups = calloc((size_t)n, sizeof *groups);
    if (!pend || !groups) {
        vc_opt_error(ctx, list, "jobs", "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        pending_job_t *pj = &pend[i];
        char path[64];
        const config_setting_t *g = section_group(list, i, "jobs", path, sizeof path, ctx);
        groups[i] = g ? g : list;
        pj->e.job.kind = VC_WL_COUNT; /* not read */
        if (!g)
            continue;
        const config_setting_t *ks = config_setting_get_member(g, "kind");
        int kind = ks && config_setting_type(ks) == CONFIG_TYPE_STRING
                       ? vc_workload_parse(config_setting_get_string(ks))
                       : -1;
        if (kind < 0) {
            if (ks) {
                char sub[96];
                snprintf(sub, sizeof sub, "%s.kind", path);
                vc_opt_error(ctx, ks, sub, "kind must be one of populate, list-scale, ops, "
                                           "probe, calibrate, null");
            }
            else
                vc_opt_error(ctx, g, path, "missing required setting 'kind' (populate, "
                                           "list-scale, ops, probe, calibrate or null)");
            continue;
        }
        vc_job_init(&pj->e.job, (vc_workload_t)kind);
        pj->e.schedule = (vc_schedule_t)c->schedule;
        pj->e.line = config_setting_source_line(g);
        pj->given_prefix = config_setting_get_member(g, "prefix") != NULL;
        pj->given_count = config_setting_get_member(g, "count") != NULL;
        pj->given_scale = config_setting_get_member(g, "scale") != NULL;
        pj->given_agents = config_setting_get_member(g, "agents") != NULL;
        vc_opt_read_group(job_opts, g, &pj->e, kind, kind_names, path, ctx);
        const config_setting_t *sf = config_setting_get_member(g, "scale_from");
        if (sf && kind == VC_WL_POPULATE && config_setting_type(sf) == CONFIG_TYPE_STRING) {
            snprintf(pj->scale_from, sizeof pj->scale_from, "%s", config_setting_get_string(sf));
            if (!*pj->scale_from) {
                char sub[96];
                snprintf(sub, sizeof sub, "%s.scale_from", path);
                vc_opt_error(ctx, sf, sub, "is empty: name a list-scale job");
            }
        }
        check_job(c, pj, g, path, ctx);
    }
    /* scale_from may name a later job, so it is resolved once all are read. */
    for (int i = 0; i < n; i++) {
        pending_job_t *pj = &pend[i];
        if (pj->e.job.kind != VC_WL_POPULATE || !*pj->scale_from)
            continue;
        char path[96];
        snprintf(path, sizeof path, "jobs[%d].scale_from", i);
        const pending_job_t *src = NULL;
        for (int k = 0; k < n; k++)
            if (pend[k].e.job.kind == VC_WL_LIST_SCALE &&
                strcmp(pend[k].e.job.id, pj->scale_from) == 0)
                src = &pend[k];
        if (!src) {
            vc_opt_error(ctx, config_setting_get_member(groups[i], "scale_from"), path,
                         "no list-scale job named \"%s\"", pj->scale_from);
            continue;
        }
        pj->e.job.nscale = src->e.job.nscale;
        memcpy(pj->e.job.scale, src->e.job.scale, sizeof pj->e.job.scale);
    }
    for (int i = 0; i < n; i++) {
        pending_job_t *pj = &pend[i];
        char path[64];
        snprintf(path, sizeof path, "jobs[%d]", i);
        if (pj->e.job.kind == VC_WL_COUNT)
            continue;
        if (pj->e.job.kind != VC_WL_POPULATE || pj->e.job.nscale == 0) {
            push_job(c, &pj->e, groups[i], path, ctx);
            continue;
        }
        /* A populate job over scale points: one plain populate job per point. */
        for (int k = 0; k < pj->e.job.nscale; k++) {
            vc_campaign_job_t x = pj->e;
            const vc_scale_point_t *pt = &pj->e.job.scale[k];
            char id[VC_NAME_MAX * 2];
            snprintf(id, sizeof id, "%s-%s", pj->e.job.id, pt->label);
            if (!vc_opt_valid_name(id)) {
                vc_opt_error(ctx, groups[i], path, "job name \"%.80s\" made for scale point %s "
                                                   "is not a valid name (shorten the job name "
                                                   "or the label)", id, pt->label);
                continue;
            }
            snprintf(x.job.id, sizeof x.job.id, "%s", id);
            snprintf(x.job.prefix, sizeof x.job.prefix, "%s", pt->prefix);
            x.job.count = pt->count;
            x.job.nscale = 0;
            memset(x.job.scale, 0, sizeof x.job.scale);
            if (push_job(c, &x, groups[i], path, ctx))
                break;
        }
    }
done:
    free(pend);
    free(groups);
}

/* ---- public ----------------------------------------------------------- */

static vc_status_t load(config_t *cfg, int ok, const char *name, vc_campaign_t **out,
                        vc_diag_t *diag)
{
    vc_status_t rc = VC_ERR_CONFIG;
    vc_campaign_t *c = NULL;
    *out = NULL;
    if (!ok) {
        if (config_error_type(cfg) == CONFIG_ERR_FILE_IO) {
            vc_diag_add(diag, name, 0, NULL, "cannot read the campaign file: %s",
                        strerror(errno ? errno : EIO));
            return VC_ERR_IO;
        }
        vc_opt_syntax_error(cfg, name, diag);
        return VC_ERR_CONFIG;
    }
    c = calloc(1, sizeof *c);
    if (c)
        c->jobs = calloc(VC_CAMPAIGN_MAX_JOBS, sizeof *c->jobs);
    if (!c || !c->jobs) {
        rc = VC_ERR_NOMEM;
        goto cleanup;
    }
    snprintf(c->file, sizeof c->file, "%s", name);
    campaign_defaults(c);
    vc_opt_ctx_t ctx = {.file = name, .diag = diag, .errors = 0, .user = c};
    const config_setting_t *root = config_root_setting(cfg);
    vc_opt_read_group(campaign_opts, root, c, 0, NULL, "", &ctx);
    const config_setting_t *s;
    if ((s = config_setting_get_member(root, "targets")))
        read_targets(c, s, &ctx);
    if ((s = config_setting_get_member(root, "agents")))
        read_agents(c, s, &ctx);
    if ((s = config_setting_get_member(root, "jobs")))
        read_jobs(c, s, &ctx);
    if (ctx.errors == 0) {
        *out = c;
        c = NULL;
        rc = VC_OK;
    }
cleanup:
    vc_campaign_destroy(&c);
    return rc;
}

vc_status_t vc_campaign_load(const char *path, vc_campaign_t **out, vc_diag_t *diag)
{
    config_t cfg;
    config_init(&cfg);
    /* @include is relative to the campaign file's own directory. */
    char dir[FILE_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        config_set_include_dir(&cfg, *dir ? dir : "/");
    }
    errno = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        vc_diag_add(diag, path, 0, NULL, "cannot open the campaign file: %s", strerror(errno));
        config_destroy(&cfg);
        *out = NULL;
        return VC_ERR_IO;
    }
    int ok = config_read(&cfg, f);
    fclose(f);
    vc_status_t rc = load(&cfg, ok, path, out, diag);
    config_destroy(&cfg);
    return rc;
}

vc_status_t vc_campaign_load_string(const char *text, const char *name, vc_campaign_t **out,
                                    vc_diag_t *diag)
{
    config_t cfg;
    config_init(&cfg);
    int ok = config_read_string(&cfg, text);
    vc_status_t rc = load(&cfg, ok, name ? name : "(campaign)", out, diag);
    config_destroy(&cfg);
    return rc;
}

void vc_campaign_destroy(vc_campaign_t **p)
{
    if (!p || !*p)
        return;
    free((*p)->jobs);
    free(*p);
    *p = NULL;
}

const char *vc_campaign_name(const vc_campaign_t *c) { return c->name; }
const char *vc_campaign_description(const vc_campaign_t *c) { return c->description; }
const char *vc_campaign_file(const vc_campaign_t *c) { return c->file; }
vc_schedule_t vc_campaign_schedule(const vc_campaign_t *c) { return (vc_schedule_t)c->schedule; }
int64_t vc_campaign_agent_wait_ms(const vc_campaign_t *c) { return c->agent_wait_ms; }
int64_t vc_campaign_start_lead_ms(const vc_campaign_t *c) { return c->start_lead_ms; }
size_t vc_campaign_target_count(const vc_campaign_t *c) { return c->ntargets; }
size_t vc_campaign_agent_count(const vc_campaign_t *c) { return c->nagents; }
size_t vc_campaign_job_count(const vc_campaign_t *c) { return c->njobs; }

const vc_target_t *vc_campaign_target(const vc_campaign_t *c, size_t i)
{
    return i < c->ntargets ? &c->targets[i] : NULL;
}

const vc_campaign_agent_t *vc_campaign_agent(const vc_campaign_t *c, size_t i)
{
    return i < c->nagents ? &c->agents[i] : NULL;
}

const vc_campaign_job_t *vc_campaign_job(const vc_campaign_t *c, size_t i)
{
    return i < c->njobs ? &c->jobs[i] : NULL;
}

int vc_campaign_target_find(const vc_campaign_t *c, const char *name)
{
    for (size_t i = 0; name && i < c->ntargets; i++)
        if (strcmp(c->targets[i].name, name) == 0)
            return (int)i;
    return -1;
}

int vc_campaign_agent_find(const vc_campaign_t *c, const char *name)
{
    for (size_t i = 0; name && i < c->nagents; i++)
        if (strcmp(c->agents[i].name, name) == 0)
            return (int)i;
    return -1;
}

int vc_campaign_job_find(const vc_campaign_t *c, const char *id)
{
    for (size_t i = 0; id && i < c->njobs; i++)
        if (strcmp(c->jobs[i].job.id, id) == 0)
            return (int)i;
    return -1;
}

vc_status_t vc_campaign_write(const vc_campaign_t *c, FILE *out)
{
    /* The file name goes into a comment: keep it on one line. */
    char shown[FILE_MAX];
    snprintf(shown, sizeof shown, "%s", c->file);
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    fprintf(out, "# Effective campaign: every setting with its value, defaults filled in.\n"
                 "# Generated by vantage %s from %s; `vantage check` reads it back unchanged.\n\n",
            VANTAGE_VERSION, shown);
    vc_opt_write_group(campaign_opts, c, 0, out, 0, c);
    fflush(out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

/* Defaults for the reference tables, per variant. */
static void init_campaign(void *obj, int v)
{
    (void)v;
    memset(obj, 0, sizeof(struct vc_campaign_s));
    campaign_defaults(obj);
}

static void init_target(void *obj, int v)
{
    vc_target_init(obj);
    ((vc_target_t *)obj)->kind = v ? VC_TK_AIS : VC_TK_S3;
}

static void init_agent(void *obj, int v)
{
    (void)v;
    memset(obj, 0, sizeof(vc_campaign_agent_t));
}

static void init_job(void *obj, int v)
{
    vc_campaign_job_t *e = obj;
    memset(e, 0, sizeof *e);
    vc_job_init(&e->job, (vc_workload_t)v);
}

vc_status_t vc_campaign_write_reference(FILE *out)
{
    fputs("### Top level\n\n", out);
    vc_opt_write_reference(campaign_opts, NULL, 0, init_campaign, sizeof(struct vc_campaign_s),
                           out);
    fputs("\n### Targets\n\nEach element of `targets`.\n\n", out);
    vc_opt_write_reference(target_opts, target_kind_names, 2, init_target, sizeof(vc_target_t),
                           out);
    fputs("\n### Agents\n\nEach element of `agents`.\n\n", out);
    vc_opt_write_reference(agent_opts, NULL, 0, init_agent, sizeof(vc_campaign_agent_t), out);
    fputs("\n### Jobs\n\nEach element of `jobs`; \"applies to\" lists the job kinds that accept "
          "the option (any other kind rejects it).\n\n",
          out);
    vc_opt_write_reference(job_opts, kind_names, VC_WL_COUNT, init_job,
                           sizeof(vc_campaign_job_t), out);
    fflush(out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}
