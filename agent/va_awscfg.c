/* va_awscfg: AWS credential, region and endpoint discovery (env + shared files). */
#include "va_awscfg.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FILE_MAX (1 << 20)
#define LINE_MAX_LEN 8192

static int given(const char *s) { return s && *s; }

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return given(v) ? v : NULL;
}

/* Copies or fails: a value that does not fit is an error, never cut. */
static int fits(char *dst, size_t dstsz, const char *src)
{
    size_t n = strlen(src);
    if (n >= dstsz)
        return 0;
    memcpy(dst, src, n + 1);
    return 1;
}

static void home_path(char *out, size_t outsz, const char *rel)
{
    const char *home = getenv("HOME");
    if (!given(home)) {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : "/";
    }
    snprintf(out, outsz, "%s/%s", home, rel);
}

static void file_path(char *out, size_t outsz, const char *env_name, const char *dflt)
{
    const char *p = env(env_name);
    if (!p) {
        home_path(out, outsz, dflt);
    } else if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
        home_path(out, outsz, p[1] ? p + 2 : "");
    } else {
        snprintf(out, outsz, "%s", p);
    }
}

/* The values of one section of an AWS-style INI file. Keys are lower-cased
 * (botocore's parser does that); "s3 =" followed by indented lines gives
 * "s3.endpoint_url" and so on. */
#define SEC_MAX 48
typedef struct {
    int found;
    int n;
    char key[SEC_MAX][96];
    char value[SEC_MAX][LINE_MAX_LEN];
} section_t;

static const char *sec_get(const section_t *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->key[i], key) == 0)
            return given(s->value[i]) ? s->value[i] : NULL;
    return NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Is this section header (text between brackets) the profile we want? */
static int section_matches(const char *hdr, const char *profile, int config_file)
{
    if (!config_file)
        return strcmp(hdr, profile) == 0;
    if (strcmp(hdr, "default") == 0)
        return strcmp(profile, "default") == 0;
    if (strncmp(hdr, "profile", 7) == 0 && isspace((unsigned char)hdr[7])) {
        const char *name = hdr + 7;
        while (isspace((unsigned char)*name))
            name++;
        return strcmp(name, profile) == 0;
    }
    return 0;
}

/* Reads [profile] of path into sec. A missing file is no error. */
static vc_status_t read_section(const char *path, const char *profile, int config_file,
                                section_t *sec, char *err, size_t errlen)
{
    memset(sec, 0, sizeof *sec);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return VC_OK;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return VC_ERR_CONFIG;
    }
    vc_status_t rc = VC_OK;
    char *line = malloc(LINE_MAX_LEN + 2);
    char parent[96] = ""; /* "s3" while reading its indented sub-keys */
    int in = 0, lineno = 0;
    long total = 0;
    if (!line) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    while (fgets(line, LINE_MAX_LEN + 2, f)) {
        lineno++;
        size_t len = strlen(line);
        total += (long)len;
        if (total > FILE_MAX) {
            snprintf(err, errlen, "%s: larger than %d bytes; is it really an AWS config file?", path,
                     FILE_MAX);
            rc = VC_ERR_CONFIG;
            goto done;
        }
        if (len > LINE_MAX_LEN && line[len - 1] != '\n') {
            snprintf(err, errlen, "%s:%d: line longer than %d bytes", path, lineno, LINE_MAX_LEN);
            rc = VC_ERR_CONFIG;
            goto done;
        }
        int indented = line[0] == ' ' || line[0] == '\t';
        char *s = trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close) {
                snprintf(err, errlen, "%s:%d: section header without ']'", path, lineno);
                rc = VC_ERR_CONFIG;
                goto done;
            }
            *close = '\0';
            char *hdr = trim(s + 1);
            in = section_matches(hdr, profile, config_file);
            if (in)
                sec->found = 1;
            parent[0] = '\0';
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected 'name = value' or '[section]'", path, lineno);
            rc = VC_ERR_CONFIG;
            goto done;
        }
        if (!in)
            continue;
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (!indented)
            parent[0] = '\0';
        if (!*v && !indented) {
            snprintf(parent, sizeof parent, "%.80s", k); /* "s3 =" opens a sub-section */
            continue;
        }
        if (sec->n >= SEC_MAX)
            continue;
        char full[96];
        if (indented && parent[0])
            snprintf(full, sizeof full, "%s.%s", parent, k);
        else
            snprintf(full, sizeof full, "%s", k);
        for (char *p = full; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        /* later keys win, as with configparser */
        int i = 0;
        while (i < sec->n && strcmp(sec->key[i], full) != 0)
            i++;
        snprintf(sec->key[i], sizeof sec->key[i], "%s", full);
        snprintf(sec->value[i], sizeof sec->value[i], "%s", v);
        if (i == sec->n)
            sec->n++;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = VC_ERR_CONFIG;
    }
done:
    if (line) {
        OPENSSL_cleanse(line, LINE_MAX_LEN + 2);
        free(line);
    }
    fclose(f);
    return rc;
}

static int is_true(const char *v) { return v && strcasecmp(v, "true") == 0; }

/* Keys from one place; refuses half a key pair (as botocore does). */
static vc_status_t take_keys(va_awscfg_t *cfg, const char *ak, const char *sk, const char *tok,
                             const char *ak_name, const char *sk_name, const char *where, char *err,
                             size_t errlen)
{
    if (!ak && !sk)
        return VC_ERR_NOTFOUND;
    if (!ak || !sk) {
        snprintf(err, errlen, "%s has %s but not %s: set both", where, ak ? ak_name : sk_name,
                 ak ? sk_name : ak_name);
        return VC_ERR_CONFIG;
    }
    if (!fits(cfg->access_key, sizeof cfg->access_key, ak) ||
        !fits(cfg->secret_key, sizeof cfg->secret_key, sk) ||
        !fits(cfg->session_token, sizeof cfg->session_token, tok ? tok : "")) {
        snprintf(err, errlen, "%s: an access key, secret key or session token is too long", where);
        return VC_ERR_CONFIG;
    }
    snprintf(cfg->creds_source, sizeof cfg->creds_source, "%s", where);
    return VC_OK;
}

static const char *unsupported_method(const section_t *s)
{
    static const char *const keys[] = {"credential_process", "role_arn", "sso_session",
                                       "sso_start_url", "web_identity_token_file", NULL};
    for (int i = 0; keys[i]; i++)
        if (sec_get(s, keys[i]))
            return keys[i];
    return NULL;
}

vc_status_t va_awscfg_load(const va_awscfg_opts_t *opts, va_awscfg_t *cfg, char *err, size_t errlen)
{
    static const va_awscfg_opts_t none = {0};
    if (!opts)
        opts = &none;
    memset(cfg, 0, sizeof *cfg);
    err[0] = '\0';
    vc_status_t rc = VC_OK;
    char cred_path[1024], conf_path[1024], where[1200];
    section_t *cs = malloc(sizeof *cs), *fs = malloc(sizeof *fs);
    if (!cs || !fs) {
        rc = VC_ERR_NOMEM;
        goto done;
    }

    int explicit_profile = given(opts->profile);
    const char *profile = explicit_profile ? opts->profile
                          : env("AWS_PROFILE")       ? env("AWS_PROFILE")
                          : env("AWS_DEFAULT_PROFILE") ? env("AWS_DEFAULT_PROFILE")
                                                       : "default";
    int named = explicit_profile || env("AWS_PROFILE") || env("AWS_DEFAULT_PROFILE");
    if (!fits(cfg->profile, sizeof cfg->profile, profile) || strpbrk(profile, "[]\n")) {
        snprintf(err, errlen, "profile name '%.60s' is not valid", profile);
        rc = VC_ERR_CONFIG;
        goto done;
    }
    file_path(cred_path, sizeof cred_path, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    file_path(conf_path, sizeof conf_path, "AWS_CONFIG_FILE", ".aws/config");
    if ((rc = read_section(cred_path, profile, 0, cs, err, errlen)) ||
        (rc = read_section(conf_path, profile, 1, fs, err, errlen)))
        goto done;
    if (named && !cs->found && !fs->found) {
        snprintf(err, errlen,
                 "profile '%s' not found: no [%s] in %s and no [profile %s] in %s (list profiles with "
                 "`aws configure list-profiles`, or choose another with --profile / AWS_PROFILE)",
                 profile, profile, cred_path, profile, conf_path);
        rc = VC_ERR_CONFIG;
        goto done;
    }

    /* credentials */
    rc = VC_ERR_NOTFOUND;
    if (given(opts->access_key) || given(opts->secret_key))
        rc = take_keys(cfg, given(opts->access_key) ? opts->access_key : NULL,
                       given(opts->secret_key) ? opts->secret_key : NULL, opts->session_token,
                       "an access key", "a secret key", "the command line", err, errlen);
    if (rc == VC_ERR_NOTFOUND && !explicit_profile)
        rc = take_keys(cfg, env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"),
                       env("AWS_SESSION_TOKEN") ? env("AWS_SESSION_TOKEN") : env("AWS_SECURITY_TOKEN"),
                       "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "the environment", err, errlen);
    if (rc == VC_ERR_NOTFOUND) {
        snprintf(where, sizeof where, "%s [%s]", cred_path, profile);
        rc = take_keys(cfg, sec_get(cs, "aws_access_key_id"), sec_get(cs, "aws_secret_access_key"),
                       sec_get(cs, "aws_session_token"), "aws_access_key_id", "aws_secret_access_key",
                       where, err, errlen);
    }
    if (rc == VC_ERR_NOTFOUND) {
        snprintf(where, sizeof where, "%s [%s%s]", conf_path,
                 strcmp(profile, "default") ? "profile " : "", profile);
        rc = take_keys(cfg, sec_get(fs, "aws_access_key_id"), sec_get(fs, "aws_secret_access_key"),
                       sec_get(fs, "aws_session_token"), "aws_access_key_id", "aws_secret_access_key",
                       where, err, errlen);
    }
    if (rc == VC_ERR_NOTFOUND) {
        const char *how = unsupported_method(cs);
        if (!how)
            how = unsupported_method(fs);
        if (how)
            snprintf(err, errlen,
                     "profile '%s' gets its credentials through %s, which vantage does not support; "
                     "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) instead",
                     profile, how);
        else
            snprintf(err, errlen,
                     "no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or put "
                     "aws_access_key_id and aws_secret_access_key under [%s] in %s%s",
                     profile, cred_path, explicit_profile ? " (the environment is not used when a "
                                                             "profile is named with --profile)" : "");
        rc = VC_ERR_CONFIG;
    }
    if (rc)
        goto done;

    /* region */
    const char *region = NULL;
    if (given(opts->region)) {
        region = opts->region;
        snprintf(cfg->region_source, sizeof cfg->region_source, "the command line");
    } else if ((region = env("AWS_REGION"))) {
        snprintf(cfg->region_source, sizeof cfg->region_source, "AWS_REGION");
    } else if ((region = env("AWS_DEFAULT_REGION"))) {
        snprintf(cfg->region_source, sizeof cfg->region_source, "AWS_DEFAULT_REGION");
    } else if ((region = sec_get(fs, "region"))) {
        snprintf(cfg->region_source, sizeof cfg->region_source, "%s [%s]", conf_path, profile);
    } else {
        region = "us-east-1";
        snprintf(cfg->region_source, sizeof cfg->region_source, "the default");
    }
    if (!fits(cfg->region, sizeof cfg->region, region) || strspn(region, "abcdefghijklmnopqrstuvwxyz"
                                                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
                                                              strlen(region)) {
        snprintf(err, errlen, "region '%.64s' (from %s) is not a region name", region, cfg->region_source);
        rc = VC_ERR_CONFIG;
        goto done;
    }

    /* endpoint */
    const char *ep = NULL;
    int ignore = is_true(env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) ||
                 is_true(sec_get(fs, "ignore_configured_endpoint_urls"));
    if (given(opts->endpoint)) {
        ep = opts->endpoint;
        snprintf(cfg->endpoint_source, sizeof cfg->endpoint_source, "the command line");
    } else if (!ignore && (ep = env("AWS_ENDPOINT_URL_S3"))) {
        snprintf(cfg->endpoint_source, sizeof cfg->endpoint_source, "AWS_ENDPOINT_URL_S3");
    } else if (!ignore && (ep = env("AWS_ENDPOINT_URL"))) {
        snprintf(cfg->endpoint_source, sizeof cfg->endpoint_source, "AWS_ENDPOINT_URL");
    } else if (!ignore && ((ep = sec_get(fs, "s3.endpoint_url")) || (ep = sec_get(fs, "endpoint_url")))) {
        snprintf(cfg->endpoint_source, sizeof cfg->endpoint_source, "%s [%s]", conf_path, profile);
    }
    if (ep && !fits(cfg->endpoint, sizeof cfg->endpoint, ep)) {
        snprintf(err, errlen, "endpoint URL from %s is too long", cfg->endpoint_source);
        rc = VC_ERR_CONFIG;
        goto done;
    }
    if (ep && strncmp(ep, "http://", 7) != 0 && strncmp(ep, "https://", 8) != 0) {
        snprintf(err, errlen, "endpoint '%.200s' (from %s) must start with http:// or https://", ep,
                 cfg->endpoint_source);
        rc = VC_ERR_CONFIG;
        goto done;
    }

done:
    if (cs) {
        OPENSSL_cleanse(cs, sizeof *cs);
        free(cs);
    }
    if (fs) {
        OPENSSL_cleanse(fs, sizeof *fs);
        free(fs);
    }
    if (rc) {
        va_awscfg_clear(cfg);
        if (!err[0])
            snprintf(err, errlen, "%s", vc_strerror(rc));
    }
    return rc;
}

void va_awscfg_clear(va_awscfg_t *cfg)
{
    if (cfg) {
        OPENSSL_cleanse(cfg->secret_key, sizeof cfg->secret_key);
        OPENSSL_cleanse(cfg->session_token, sizeof cfg->session_token);
        OPENSSL_cleanse(cfg->access_key, sizeof cfg->access_key);
    }
}
