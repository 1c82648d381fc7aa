/* vc_agentcfg: the agent's own config file (vantage agent --config FILE),
 * libconfig syntax: where the coordinator is, who this agent is, its CURVE
 * key files, spool and work directories, where its object-store credentials
 * come from (paths and profile names only: the file never holds a secret),
 * limits and heartbeat timing. Validated like a campaign: every error found
 * goes to a vc_diag_t as "FILE:LINE: PATH: what". Relative paths in the file
 * are resolved against the file's directory. */
#ifndef VC_AGENTCFG_H
#define VC_AGENTCFG_H

#include <stdint.h>
#include <stdio.h>

#include "vc_diag.h"
#include "vc_job.h"
#include "vc_status.h"

#define VC_PATH_MAX 1024

typedef struct {
    char file[VC_PATH_MAX];          /* the file loaded; "" for defaults */
    char coordinator[VC_URL_MAX];    /* ZeroMQ endpoint, "tcp://HOST:PORT" (required) */
    char name[VC_NAME_MAX];          /* agent name, as campaigns list it (required) */
    char site[128];                  /* site label for reports; "" */
    char keys_dir[VC_PATH_MAX];      /* default "keys" (beside the file) */
    char cert_file[VC_PATH_MAX];     /* this agent's CURVE certificate (czmq zcert; the
                                      * secret half in "<cert_file>_secret"); default
                                      * keys_dir/NAME.key (vantage keygen) */
    char coordinator_cert_file[VC_PATH_MAX]; /* coordinator's public certificate; default
                                      * keys_dir/coordinator.key */
    char spool_dir[VC_PATH_MAX];     /* unacknowledged samples; default "spool" */
    char work_dir[VC_PATH_MAX];      /* downloads, upload files; default "work" */
    char aws_profile[64];            /* profile in the credentials file; "" = default/env */
    char aws_credentials_file[VC_PATH_MAX]; /* "" = $AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials */
    char ais_token_file[VC_PATH_MAX];       /* "" = none (AIS without AuthN) */
    char s3_endpoint[VC_URL_MAX];    /* for targets whose endpoint is empty; "" = $AWS_ENDPOINT_URL */
    char ais_endpoint[VC_URL_MAX];   /* for AIS targets whose endpoint is empty; "" = $AIS_ENDPOINT */
    int max_workers;                 /* refuse jobs asking for more, 64 */
    int max_batch;                   /* samples per SAMPLES message, 512 */
    int64_t spool_max_bytes;         /* cap on the spool, 1 GiB */
    int64_t heartbeat_ms;            /* PING interval, 2000 */
    int64_t lost_after_ms;           /* link considered lost after this silence, 10000 */
} vc_agentcfg_t;

/* Defaults, with name and coordinator empty (both required in a file). */
void vc_agentcfg_init(vc_agentcfg_t *cfg);
/* Loads FILE over the defaults. VC_OK, or VC_ERR_CONFIG / VC_ERR_IO with every
 * problem in diag (may be NULL); cfg is left initialised either way. */
vc_status_t vc_agentcfg_load(const char *path, vc_agentcfg_t *cfg, vc_diag_t *diag);
vc_status_t vc_agentcfg_load_string(const char *text, const char *name, vc_agentcfg_t *cfg,
                                    vc_diag_t *diag);
/* The effective config in libconfig syntax (re-loadable). */
vc_status_t vc_agentcfg_write(const vc_agentcfg_t *cfg, FILE *out);
/* Markdown reference of the options, from the option table. */
vc_status_t vc_agentcfg_write_reference(FILE *out);

#endif
