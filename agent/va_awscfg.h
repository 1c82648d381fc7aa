/* va_awscfg: S3 credentials, region and endpoint found the way the AWS CLI and
 * SDKs find them, so an agent works wherever `aws s3` already works:
 *   credentials: explicit values > AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
 *     (+ AWS_SESSION_TOKEN; skipped when a profile is named explicitly, as
 *     botocore does) > the profile in the shared credentials file
 *     (AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials, "[name]") > the same
 *     profile in the config file (AWS_CONFIG_FILE, ~/.aws/config, "[profile name]")
 *   profile: explicit > AWS_PROFILE > AWS_DEFAULT_PROFILE > "default"
 *   region: explicit > AWS_REGION > AWS_DEFAULT_REGION > profile's region > us-east-1
 *   endpoint: explicit > AWS_ENDPOINT_URL_S3 > AWS_ENDPOINT_URL > profile's
 *     "s3 = endpoint_url" or endpoint_url > none (AWS's own for the region);
 *     AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true skips the environment and files.
 * Secrets are copied into the result only; messages name files, profiles and
 * variables, never a key. */
#ifndef VA_AWSCFG_H
#define VA_AWSCFG_H

#include <stddef.h>

#include "vc_status.h"

/* Explicit values (command-line flags, agent settings); NULL or "" = not given. */
typedef struct {
    const char *profile;
    const char *region;
    const char *endpoint;
    const char *access_key;
    const char *secret_key;
    const char *session_token;
} va_awscfg_opts_t;

typedef struct {
    char access_key[128];
    char secret_key[256];
    char session_token[4096];
    char region[64];
    char endpoint[512];       /* "" when none configured */
    char profile[128];        /* the profile consulted */
    char creds_source[640];   /* where the keys came from, for messages (never the keys) */
    char region_source[640];
    char endpoint_source[640];
} va_awscfg_t;

/* Fills cfg. VC_ERR_CONFIG with err saying what is missing or wrong and
 * where (file:line, variable, profile) and what to do. opts may be NULL. */
vc_status_t va_awscfg_load(const va_awscfg_opts_t *opts, va_awscfg_t *cfg, char *err, size_t errlen);

/* Wipes the secrets in cfg (call when done with it). */
void va_awscfg_clear(va_awscfg_t *cfg);

#endif
