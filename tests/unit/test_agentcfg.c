/* Unit tests of vc_agentcfg: the shipped example loads, defaults and path
 * resolution, every kind of error with its line, no secret echoed, the
 * effective print re-loads to the same config, the docs hold the table. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "vc_agentcfg.h"
#include "vc_diag.h"

static void src_path(char *buf, size_t len, const char *rel)
{
    const char *d = getenv("VANTAGE_TEST_DATA");
    snprintf(buf, len, "%s/../../%s", d ? d : "tests/data", rel);
}

static int has_message(const vc_diag_t *d, const char *fragment)
{
    for (size_t i = 0; i < vc_diag_count(d); i++)
        if (vc_diag_get(d, i) && strstr(vc_diag_get(d, i), fragment))
            return 1;
    return 0;
}

static void expect_message(const vc_diag_t *d, const char *fragment)
{
    if (has_message(d, fragment))
        return;
    for (size_t i = 0; i < vc_diag_count(d); i++)
        print_error("  %s\n", vc_diag_get(d, i));
    fail_msg("no message contains \"%s\"", fragment);
}

static void test_example(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src_path(path, sizeof path, "deploy/agent.cfg.example");
    vc_diag_t *d = vc_diag_new();
    vc_agentcfg_t cfg;
    if (vc_agentcfg_load(path, &cfg, d) != VC_OK) {
        vc_diag_print(d, stderr);
        fail();
    }
    assert_string_equal(cfg.coordinator, "tcp://coordinator.example.net:7100");
    assert_string_equal(cfg.name, "fiber");
    assert_string_equal(cfg.site, "Home fiber");
    assert_string_equal(cfg.cert_file, "/var/lib/vantage-agent/keys/fiber.key");
    assert_string_equal(cfg.aws_profile, "vantage");
    assert_int_equal(cfg.heartbeat_ms, 2000);
    assert_int_equal(cfg.lost_after_ms, 10000);
    assert_int_equal(cfg.spool_max_bytes, 1 << 30);
    assert_int_equal(vc_diag_count(d), 0);
    vc_diag_destroy(&d);
}

/* Writes text to a fresh file in a fresh directory; returns the file path. */
static void temp_config(char *dir, size_t dlen, char *file, size_t flen, const char *text)
{
    snprintf(dir, dlen, "/tmp/vantage-agentcfg-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(file, flen, "%s/agent.cfg", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_temp(const char *dir, const char *file)
{
    unlink(file);
    rmdir(dir);
}

static void test_defaults_and_relative_paths(void **state)
{
    (void)state;
    char dir[64], file[128];
    temp_config(dir, sizeof dir, file, sizeof file,
                "coordinator = \"tcp://127.0.0.1:7100\";\nname = \"ec2\";\n"
                "aws_credentials_file = \"creds/aws\";\nais_token_file = \"/abs/token\";\n");
    vc_agentcfg_t cfg;
    vc_diag_t *d = vc_diag_new();
    assert_int_equal(vc_agentcfg_load(file, &cfg, d), VC_OK);
    char real[PATH_MAX], want[PATH_MAX + 64];
    assert_non_null(realpath(dir, real));
    /* relative paths land beside the file, absolute ones stay */
    snprintf(want, sizeof want, "%s/keys", real);
    assert_string_equal(cfg.keys_dir, want);
    snprintf(want, sizeof want, "%s/keys/ec2.key", real);
    assert_string_equal(cfg.cert_file, want);
    snprintf(want, sizeof want, "%s/keys/coordinator.key", real);
    assert_string_equal(cfg.coordinator_cert_file, want);
    snprintf(want, sizeof want, "%s/spool", real);
    assert_string_equal(cfg.spool_dir, want);
    snprintf(want, sizeof want, "%s/creds/aws", real);
    assert_string_equal(cfg.aws_credentials_file, want);
    assert_string_equal(cfg.ais_token_file, "/abs/token");
    assert_string_equal(cfg.aws_profile, "");
    assert_string_equal(cfg.s3_endpoint, "");
    assert_int_equal(cfg.max_workers, 64);
    assert_int_equal(cfg.max_batch, 512);

    /* the effective print re-loads to the same config */
    char out[160];
    snprintf(out, sizeof out, "%s/effective.cfg", dir);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    assert_int_equal(vc_agentcfg_write(&cfg, f), VC_OK);
    fclose(f);
    vc_agentcfg_t again;
    assert_int_equal(vc_agentcfg_load(out, &again, d), VC_OK);
    memcpy(again.file, cfg.file, sizeof cfg.file);
    assert_memory_equal(&cfg, &again, sizeof cfg);
    unlink(out);
    remove_temp(dir, file);
    vc_diag_destroy(&d);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *fragment;
    } cases[] = {
        {"name = \"a\";\n", "(agent config): missing required setting 'coordinator'"},
        {"coordinator = \"tcp://h:1\";\n", "missing required setting 'name'"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nnmae = \"b\";\n",
         ":3: nmae: unknown setting 'nmae' (did you mean 'name'?)"},
        {"coordinator = \"h:1\";\nname = \"a\";\n", ":1: coordinator: \"h:1\" is not a ZeroMQ"},
        {"coordinator = \"tcp://h:70000\";\nname = \"a\";\n", "not a ZeroMQ TCP endpoint"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nmax_workers = 0;\n",
         ":3: max_workers: 0 is out of range: must be between 1 and 4096"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nheartbeat = 2;\n",
         ":3: heartbeat: a duration needs a unit"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nheartbeat = \"4s\";\nlost_after = \"8s\";\n",
         ":4: lost_after: 8000 ms is not more than two heartbeats"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nspool_max = \"1KiB\";\n",
         ":3: spool_max: 1KiB is out of range: must be between 1MiB and 1TiB"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nais_endpoint = \"localhost:51080\";\n",
         ":3: ais_endpoint: invalid URL"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\nsite = 5;\n",
         ":3: site: expects a string, got an integer"},
        {"coordinator = \"tcp://h:1\"\nname = ", ":2: syntax error"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\naws_secret_access_key = \"SeCrEt\";\n",
         ":3: aws_secret_access_key: 'aws_secret_access_key' looks like a credential"},
        {"coordinator = \"tcp://h:1\";\nname = \"a\";\ns3_endpoint = \"http://KEY:SeCrEt@h\";\n",
         ":3: s3_endpoint: invalid URL: it carries user information"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vc_diag_t *d = vc_diag_new();
        vc_agentcfg_t cfg;
        assert_int_equal(vc_agentcfg_load_string(cases[i].text, NULL, &cfg, d), VC_ERR_CONFIG);
        expect_message(d, cases[i].fragment);
        assert_false(has_message(d, "SeCrEt")); /* never echoed */
        vc_diag_destroy(&d);
    }
}

static void test_all_errors_at_once(void **state)
{
    (void)state;
    vc_diag_t *d = vc_diag_new();
    vc_agentcfg_t cfg;
    assert_int_equal(vc_agentcfg_load_string("max_batch = -1;\nheartbeat = \"1d\";\n", "a.cfg",
                                             &cfg, d),
                     VC_ERR_CONFIG);
    /* two bad values and two missing required settings */
    assert_int_equal(vc_diag_count(d), 4);
    expect_message(d, "a.cfg:1: max_batch:");
    expect_message(d, "a.cfg:2: heartbeat: invalid duration \"1d\": unknown unit \"d\"");
    vc_diag_destroy(&d);
}

static void test_missing_file(void **state)
{
    (void)state;
    vc_diag_t *d = vc_diag_new();
    vc_agentcfg_t cfg;
    assert_int_equal(vc_agentcfg_load("/nonexistent/agent.cfg", &cfg, d), VC_ERR_IO);
    expect_message(d, "/nonexistent/agent.cfg: cannot open the agent config");
    assert_int_equal(cfg.max_workers, 64); /* left initialised */
    vc_diag_destroy(&d);
}

static void test_reference_in_docs(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src_path(path, sizeof path, "docs/agent-config.md");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *doc = NULL, *ref = NULL;
    size_t dlen = 0, rlen = 0;
    FILE *m = open_memstream(&doc, &dlen);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(f);
    fclose(m);
    m = open_memstream(&ref, &rlen);
    assert_int_equal(vc_agentcfg_write_reference(m), VC_OK);
    fclose(m);
    const char *begin = strstr(doc, "<!-- BEGIN OPTIONS");
    const char *end = strstr(doc, "<!-- END OPTIONS -->");
    assert_non_null(begin);
    assert_non_null(end);
    begin = strchr(begin, '\n') + 1;
    if ((size_t)(end - begin) != strlen(ref) || strncmp(begin, ref, strlen(ref)) != 0)
        fail_msg("docs/agent-config.md is out of date: run docs/update-reference.sh");
    free(doc);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example),
        cmocka_unit_test(test_defaults_and_relative_paths),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_all_errors_at_once),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_reference_in_docs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
