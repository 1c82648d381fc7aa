/* vc_agentcfg: the agent's config file, read through an option table like
 * campaigns. Paths are resolved against the file's directory so that an
 * agent started from anywhere finds its keys and spool. */
#include "vc_agentcfg.h"

#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vc_opt.h"
#include "vc_parse.h"

#define F(f) .off = offsetof(vc_agentcfg_t, f), .size = sizeof(((vc_agentcfg_t *)0)->f)
#define SEC(x) ((int64_t)(x) * 1000)

static const vc_opt_t agent_opts[] = {
    {.name = "coordinator", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NONEMPTY,
     F(coordinator), .help = "the coordinator's ZeroMQ endpoint, \"tcp://HOST:PORT\""},
    {.name = "name", .type = VC_OPT_STRING, .flags = VC_OPT_REQUIRED | VC_OPT_NAME, F(name),
     .help = "this agent's name, as campaigns list it in `agents`"},
    {.name = "site", .type = VC_OPT_STRING, F(site),
     .help = "label of this vantage point in reports, e.g. \"Home fiber\""},
    {.name = "keys_dir", .type = VC_OPT_STRING, .flags = VC_OPT_NONEMPTY, F(keys_dir),
     .help = "directory of the CURVE certificates (vantage keygen writes them)"},
    {.name = "cert_file", .type = VC_OPT_STRING, F(cert_file), .doc_default = "KEYS_DIR/NAME.key",
     .help = "this agent's CURVE certificate; its secret half is CERT_FILE_secret"},
    {.name = "coordinator_cert_file", .type = VC_OPT_STRING, F(coordinator_cert_file),
     .doc_default = "KEYS_DIR/coordinator.key",
     .help = "the coordinator's public certificate; the agent talks to no other"},
    {.name = "spool_dir", .type = VC_OPT_STRING, .flags = VC_OPT_NONEMPTY, F(spool_dir),
     .help = "samples not yet acknowledged by the coordinator are kept here"},
    {.name = "work_dir", .type = VC_OPT_STRING, .flags = VC_OPT_NONEMPTY, F(work_dir),
     .help = "downloads and temporary files of jobs"},
    {.name = "aws_profile", .type = VC_OPT_STRING, F(aws_profile),
     .help = "profile in the AWS credentials file; empty: $AWS_PROFILE, else \"default\""},
    {.name = "aws_credentials_file", .type = VC_OPT_STRING, F(aws_credentials_file),
     .help = "AWS credentials file; empty: $AWS_SHARED_CREDENTIALS_FILE, else "
             "~/.aws/credentials (environment keys win over both)"},
    {.name = "ais_token_file", .type = VC_OPT_STRING, F(ais_token_file),
     .help = "file holding the AIS AuthN token; empty: none (AIS without AuthN)"},
    {.name = "s3_endpoint", .type = VC_OPT_STRING, F(s3_endpoint),
     .help = "S3 endpoint for targets that leave theirs empty; empty: $AWS_ENDPOINT_URL, else "
             "AWS for the region"},
    {.name = "ais_endpoint", .type = VC_OPT_STRING, F(ais_endpoint),
     .help = "AIS endpoint for targets that leave theirs empty; empty: $AIS_ENDPOINT"},
    {.name = "max_workers", .type = VC_OPT_INT, F(max_workers), .min = 1, .max = 4096,
     .help = "refuse jobs that ask for more concurrent workers"},
    {.name = "max_batch", .type = VC_OPT_INT, F(max_batch), .min = 1, .max = 65536,
     .help = "samples per SAMPLES message"},
    {.name = "spool_max", .type = VC_OPT_SIZE, F(spool_max_bytes), .min = 1 << 20,
     .max = (int64_t)1 << 40, .help = "the spool never grows past this; jobs fail instead"},
    {.name = "heartbeat", .type = VC_OPT_DURATION, F(heartbeat_ms), .min = 100, .max = SEC(600),
     .help = "interval between PINGs to the coordinator"},
    {.name = "lost_after", .type = VC_OPT_DURATION, F(lost_after_ms), .min = SEC(1),
     .max = SEC(3600),
     .help = "the link counts as lost after this long without a word; must exceed 2 heartbeats"},
    {0},
};

void vc_agentcfg_init(vc_agentcfg_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    strcpy(cfg->keys_dir, "keys");
    strcpy(cfg->spool_dir, "spool");
    strcpy(cfg->work_dir, "work");
    cfg->max_workers = 64;
    cfg->max_batch = 512;
    cfg->spool_max_bytes = (int64_t)1 << 30;
    cfg->heartbeat_ms = 2000;
    cfg->lost_after_ms = 10000;
}

static int check_url(const char *url, const config_setting_t *s, const char *path,
                     vc_opt_ctx_t *ctx)
{
    char err[256];
    if (!*url || vc_parse_http_url(url, err, sizeof err) == VC_OK)
        return 0;
    vc_opt_error(ctx, s, path, "%s", err);
    return 1;
}

static int check_coordinator(const char *ep, const config_setting_t *s, vc_opt_ctx_t *ctx)
{
    const char *colon = strrchr(ep, ':');
    int ok = strncmp(ep, "tcp://", 6) == 0 && colon && colon > ep + 6 && colon[1];
    if (ok) {
        char *end;
        long port = strtol(colon + 1, &end, 10);
        ok = *end == '\0' && port >= 1 && port <= 65535;
    }
    if (!ok) {
        vc_opt_error(ctx, s, "coordinator", "\"%.80s\" is not a ZeroMQ TCP endpoint: write "
                                            "\"tcp://HOST:PORT\", e.g. \"tcp://10.0.0.5:7100\"", ep);
        return 1;
    }
    return 0;
}

/* Makes p absolute against dir (when relative); 1 when it would not fit. */
static int resolve(char *p, size_t size, const char *dir)
{
    if (!*p || p[0] == '/' || !dir || !*dir)
        return 0;
    char tmp[VC_PATH_MAX * 2];
    snprintf(tmp, sizeof tmp, "%s/%s", dir, p);
    if (strlen(tmp) >= size)
        return 1;
    memcpy(p, tmp, strlen(tmp) + 1);
    return 0;
}

static vc_status_t load(config_t *cfgfile, int ok, const char *name, const char *dir,
                        vc_agentcfg_t *cfg, vc_diag_t *diag)
{
    vc_agentcfg_init(cfg);
    if (!ok) {
        vc_opt_syntax_error(cfgfile, name, diag);
        return VC_ERR_CONFIG;
    }
    vc_opt_ctx_t ctx = {.file = name, .diag = diag, .errors = 0, .user = NULL};
    const config_setting_t *root = config_root_setting(cfgfile);
    vc_opt_read_group(agent_opts, root, cfg, 0, NULL, "", &ctx);
    const config_setting_t *s;
    if ((s = config_setting_get_member(root, "coordinator")) && *cfg->coordinator)
        check_coordinator(cfg->coordinator, s, &ctx);
    if ((s = config_setting_get_member(root, "s3_endpoint")))
        check_url(cfg->s3_endpoint, s, "s3_endpoint", &ctx);
    if ((s = config_setting_get_member(root, "ais_endpoint")))
        check_url(cfg->ais_endpoint, s, "ais_endpoint", &ctx);
    if (cfg->lost_after_ms <= 2 * cfg->heartbeat_ms)
        vc_opt_error(&ctx, config_setting_get_member(root, "lost_after"), "lost_after",
                     "%lld ms is not more than two heartbeats (%lld ms): the link would be "
                     "declared lost between two PINGs",
                     (long long)cfg->lost_after_ms, (long long)cfg->heartbeat_ms);
    if (!*cfg->cert_file)
        snprintf(cfg->cert_file, sizeof cfg->cert_file, "%s/%s.key", cfg->keys_dir, cfg->name);
    if (!*cfg->coordinator_cert_file)
        snprintf(cfg->coordinator_cert_file, sizeof cfg->coordinator_cert_file,
                 "%s/coordinator.key", cfg->keys_dir);
    struct {
        const char *name;
        char *p;
        size_t size;
    } paths[] = {
        {"keys_dir", cfg->keys_dir, sizeof cfg->keys_dir},
        {"cert_file", cfg->cert_file, sizeof cfg->cert_file},
        {"coordinator_cert_file", cfg->coordinator_cert_file, sizeof cfg->coordinator_cert_file},
        {"spool_dir", cfg->spool_dir, sizeof cfg->spool_dir},
        {"work_dir", cfg->work_dir, sizeof cfg->work_dir},
        {"aws_credentials_file", cfg->aws_credentials_file, sizeof cfg->aws_credentials_file},
        {"ais_token_file", cfg->ais_token_file, sizeof cfg->ais_token_file},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (resolve(paths[i].p, paths[i].size, dir))
            vc_opt_error(&ctx, config_setting_get_member(root, paths[i].name), paths[i].name,
                         "the path is too long once made absolute");
    snprintf(cfg->file, sizeof cfg->file, "%s", name);
    return ctx.errors ? VC_ERR_CONFIG : VC_OK;
}

vc_status_t vc_agentcfg_load(const char *path, vc_agentcfg_t *cfg, vc_diag_t *diag)
{
    vc_agentcfg_init(cfg);
    errno = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        vc_diag_add(diag, path, 0, NULL, "cannot open the agent config: %s", strerror(errno));
        return VC_ERR_IO;
    }
    /* The directory of the file, made absolute, anchors relative paths. */
    char dir[VC_PATH_MAX] = ".";
    const char *slash = strrchr(path, '/');
    if (slash && slash != path)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else if (slash)
        snprintf(dir, sizeof dir, "/");
    char abs[PATH_MAX];
    const char *anchor = realpath(dir, abs) ? abs : dir;
    config_t c;
    config_init(&c);
    config_set_include_dir(&c, anchor);
    int ok = config_read(&c, f);
    fclose(f);
    vc_status_t rc = load(&c, ok, path, anchor, cfg, diag);
    config_destroy(&c);
    return rc;
}

vc_status_t vc_agentcfg_load_string(const char *text, const char *name, vc_agentcfg_t *cfg,
                                    vc_diag_t *diag)
{
    config_t c;
    config_init(&c);
    int ok = config_read_string(&c, text);
    vc_status_t rc = load(&c, ok, name ? name : "(agent config)", NULL, cfg, diag);
    config_destroy(&c);
    return rc;
}

vc_status_t vc_agentcfg_write(const vc_agentcfg_t *cfg, FILE *out)
{
    fprintf(out, "# Effective agent config: every setting with its value, defaults filled in\n"
                 "# and paths made absolute. From %s.\n\n",
            *cfg->file ? cfg->file : "defaults");
    vc_opt_write_group(agent_opts, cfg, 0, out, 0, NULL);
    fflush(out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}

static void init_cfg(void *obj, int v)
{
    (void)v;
    vc_agentcfg_init(obj);
}

vc_status_t vc_agentcfg_write_reference(FILE *out)
{
    vc_opt_write_reference(agent_opts, NULL, 0, init_cfg, sizeof(vc_agentcfg_t), out);
    fflush(out);
    return ferror(out) ? VC_ERR_IO : VC_OK;
}
