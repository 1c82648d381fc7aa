/* va_awscfg in a controlled environment: HOME is a temporary directory, every
 * AWS_* variable is cleared before each test, and the files are written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_awscfg.h"

static char home[256];

static const char *const aws_vars[] = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
    "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", NULL};

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", home, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    for (int i = 0; aws_vars[i]; i++)
        unsetenv(aws_vars[i]);
    snprintf(home, sizeof home, "/tmp/vantage-awscfg-XXXXXX");
    if (!mkdtemp(home))
        return -1;
    setenv("HOME", home, 1);
    char aws[300];
    snprintf(aws, sizeof aws, "%s/.aws", home);
    return mkdir(aws, 0700);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_environment(void **state)
{
    (void)state;
    va_awscfg_t c;
    char err[1024];
    setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "secret-env", 1);
    setenv("AWS_SESSION_TOKEN", "tok-env", 1);
    setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKENV");
    assert_string_equal(c.secret_key, "secret-env");
    assert_string_equal(c.session_token, "tok-env");
    assert_string_equal(c.region, "eu-west-1");
    assert_string_equal(c.endpoint, "http://127.0.0.1:9000");
    assert_string_equal(c.creds_source, "the environment");
    assert_string_equal(c.profile, "default");
    /* the more specific variables win */
    setenv("AWS_REGION", "us-west-2", 1);
    setenv("AWS_ENDPOINT_URL_S3", "https://s3.example:8443", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.region, "us-west-2");
    assert_string_equal(c.endpoint, "https://s3.example:8443");
    assert_string_equal(c.endpoint_source, "AWS_ENDPOINT_URL_S3");
    /* explicit values beat everything */
    va_awscfg_opts_t o = {.region = "ap-south-1", .endpoint = "http://localhost:7480",
                          .access_key = "AKCLI", .secret_key = "secret-cli"};
    assert_int_equal(va_awscfg_load(&o, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKCLI");
    assert_string_equal(c.secret_key, "secret-cli");
    assert_string_equal(c.session_token, "");
    assert_string_equal(c.region, "ap-south-1");
    assert_string_equal(c.endpoint, "http://localhost:7480");
    /* no endpoint anywhere: none, and the default region */
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_ENDPOINT_URL_S3");
    unsetenv("AWS_REGION");
    unsetenv("AWS_DEFAULT_REGION");
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.endpoint, "");
    assert_string_equal(c.region, "us-east-1");
    va_awscfg_clear(&c);
    assert_string_equal(c.secret_key, "");
}

static const char CREDS[] = "# shared credentials\n"
                            "[default]\n"
                            "aws_access_key_id = AKDEFAULT\n"
                            "aws_secret_access_key = secret-default\n"
                            "\n"
                            "[dev]\n"
                            "AWS_ACCESS_KEY_ID=AKDEV\n"
                            "aws_secret_access_key =  secret-dev  \n"
                            "aws_session_token = tok-dev\n";
static const char CONFIG[] = "[default]\n"
                             "region = eu-central-1\n"
                             "; a comment\n"
                             "[profile dev]\n"
                             "region = us-west-1\n"
                             "s3 =\n"
                             "  endpoint_url = http://127.0.0.1:7480\n"
                             "  addressing_style = path\n"
                             "output = json\n"
                             "[profile cfgonly]\n"
                             "aws_access_key_id = AKCFG\n"
                             "aws_secret_access_key = secret-cfg\n"
                             "endpoint_url = https://cfg.example\n"
                             "[profile sso]\n"
                             "sso_session = corp\n"
                             "[sso-session corp]\n"
                             "sso_region = us-east-1\n";

static void test_default_profile_files(void **state)
{
    (void)state;
    write_file(".aws/credentials", CREDS);
    write_file(".aws/config", CONFIG);
    va_awscfg_t c;
    char err[1024];
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKDEFAULT");
    assert_string_equal(c.secret_key, "secret-default");
    assert_string_equal(c.session_token, "");
    assert_string_equal(c.region, "eu-central-1");
    assert_string_equal(c.endpoint, "");
    assert_non_null(strstr(c.creds_source, ".aws/credentials [default]"));
}

static void test_named_profile(void **state)
{
    (void)state;
    write_file(".aws/credentials", CREDS);
    write_file(".aws/config", CONFIG);
    va_awscfg_t c;
    char err[1024];
    setenv("AWS_PROFILE", "dev", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.profile, "dev");
    assert_string_equal(c.access_key, "AKDEV");
    assert_string_equal(c.secret_key, "secret-dev");
    assert_string_equal(c.session_token, "tok-dev");
    assert_string_equal(c.region, "us-west-1");
    assert_string_equal(c.endpoint, "http://127.0.0.1:7480");
    /* AWS_IGNORE_CONFIGURED_ENDPOINT_URLS drops the file's endpoint */
    setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.endpoint, "");
    unsetenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
    /* environment keys beat AWS_PROFILE (botocore's order) ... */
    setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "secret-env", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKENV");
    assert_string_equal(c.region, "us-west-1"); /* region still from the profile */
    /* ... but not a profile named explicitly */
    va_awscfg_opts_t o = {.profile = "dev"};
    unsetenv("AWS_PROFILE");
    assert_int_equal(va_awscfg_load(&o, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKDEV");
    /* keys only in the config file */
    o.profile = "cfgonly";
    assert_int_equal(va_awscfg_load(&o, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKCFG");
    assert_string_equal(c.endpoint, "https://cfg.example");
    assert_non_null(strstr(c.creds_source, "config [profile cfgonly]"));
}

static void test_file_locations_from_env(void **state)
{
    (void)state;
    write_file("creds.ini", "[x]\naws_access_key_id=AKX\naws_secret_access_key=secret-x\n");
    write_file("conf.ini", "[profile x]\nregion=sa-east-1\n");
    setenv("AWS_SHARED_CREDENTIALS_FILE", "~/creds.ini", 1);
    char conf[400];
    snprintf(conf, sizeof conf, "%s/conf.ini", home);
    setenv("AWS_CONFIG_FILE", conf, 1);
    setenv("AWS_DEFAULT_PROFILE", "x", 1);
    va_awscfg_t c;
    char err[1024];
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_OK);
    assert_string_equal(c.access_key, "AKX");
    assert_string_equal(c.region, "sa-east-1");
}

static void assert_no_secret(const char *err)
{
    assert_null(strstr(err, "secret-"));
    assert_null(strstr(err, "AKDEFAULT"));
    assert_null(strstr(err, "AKENV"));
}

static void test_errors(void **state)
{
    (void)state;
    va_awscfg_t c;
    char err[1024];
    va_awscfg_opts_t o = {0};
    /* nothing at all */
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "no S3 credentials found"));
    assert_non_null(strstr(err, "AWS_ACCESS_KEY_ID"));
    /* half a pair */
    setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "AWS_SECRET_ACCESS_KEY"));
    assert_no_secret(err);
    assert_string_equal(c.access_key, "");
    unsetenv("AWS_ACCESS_KEY_ID");
    /* a profile that exists nowhere */
    write_file(".aws/credentials", CREDS);
    write_file(".aws/config", CONFIG);
    o.profile = "nosuch";
    assert_int_equal(va_awscfg_load(&o, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "profile 'nosuch' not found"));
    assert_non_null(strstr(err, ".aws/credentials"));
    assert_no_secret(err);
    /* a profile whose credentials come from a mechanism vantage lacks */
    o.profile = "sso";
    assert_int_equal(va_awscfg_load(&o, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "sso_session"));
    /* a malformed file names file and line */
    write_file(".aws/config", "[default]\nregion = x\nthis line is wrong\n");
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, ".aws/config:3:"));
    /* a bad endpoint or region says where it came from */
    write_file(".aws/config", CONFIG);
    setenv("AWS_ENDPOINT_URL", "127.0.0.1:7480", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "AWS_ENDPOINT_URL"));
    assert_non_null(strstr(err, "http://"));
    unsetenv("AWS_ENDPOINT_URL");
    setenv("AWS_REGION", "us east\n1", 1);
    assert_int_equal(va_awscfg_load(NULL, &c, err, sizeof err), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "AWS_REGION"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_default_profile_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_named_profile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_locations_from_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
