/* Unit tests of `vantage check` (vk_cmd_check): exit statuses, --help, the
 * effective print re-loading, every error listed, --plan, --json, --agent,
 * --reference. The command runs in-process with stdout and stderr captured. */
#include <fcntl.h>
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

#include "vc_campaign.h"
#include "vc_job_json.h"
#include "vk_cmd.h"

typedef struct {
    int status;
    char *out;
    char *err;
} run_t;

static char *slurp(FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    rewind(f);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(m);
    return buf;
}

static run_t run(int argc, char **argv)
{
    FILE *out = tmpfile(), *err = tmpfile();
    assert_non_null(out);
    assert_non_null(err);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    run_t r;
    r.status = vk_cmd_check(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    r.out = slurp(out);
    r.err = slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

static void done(run_t *r)
{
    free(r->out);
    free(r->err);
}

static void src(char *buf, size_t len, const char *rel)
{
    const char *d = getenv("VANTAGE_TEST_DATA");
    snprintf(buf, len, "%s/../../%s", d ? d : "tests/data", rel);
}

static size_t count_lines(const char *s, const char *prefix)
{
    size_t n = 0;
    for (const char *p = s; p && *p;) {
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            n++;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return n;
}

static void test_usage(void **state)
{
    (void)state;
    char *help[] = {"check", "--help", NULL};
    run_t r = run(2, help);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: vantage check"));
    done(&r);

    char *none[] = {"check", NULL};
    r = run(1, none);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "which file?"));
    done(&r);

    char *bad[] = {"check", "--frobnicate", "x.cfg", NULL};
    r = run(3, bad);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--frobnicate'"));
    done(&r);

    char *two[] = {"check", "a.cfg", "b.cfg", NULL};
    r = run(3, two);
    assert_int_equal(r.status, 2);
    done(&r);
}

static void test_valid_prints_reloadable(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src(path, sizeof path, "campaigns/demo.cfg");
    char *argv[] = {"check", path, NULL};
    run_t r = run(2, argv);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    vc_campaign_t *c = NULL;
    assert_int_equal(vc_campaign_load_string(r.out, "effective", &c, NULL), VC_OK);
    assert_string_equal(vc_campaign_name(c), "demo");
    vc_campaign_destroy(&c);
    done(&r);

    char *quiet[] = {"check", "-q", path, NULL};
    r = run(3, quiet);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "");
    done(&r);
}

static void test_invalid_lists_all(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src(path, sizeof path, "tests/data/campaigns/bad/multiple-errors.cfg");
    char *argv[] = {"check", path, NULL};
    run_t r = run(2, argv);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "");
    assert_int_equal(count_lines(r.err, path), 3); /* each error on its own line */
    assert_non_null(strstr(r.err, ": 3 errors"));
    done(&r);

    char *missing[] = {"check", "/nonexistent.cfg", NULL};
    r = run(2, missing);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "/nonexistent.cfg: cannot open"));
    done(&r);
}

static void test_plan_and_json(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src(path, sizeof path, "campaigns/demo.cfg");
    char *plan[] = {"check", "--plan", path, NULL};
    run_t r = run(3, plan);
    assert_int_equal(r.status, 0);
    /* demo's listing: 5 scale points x 5 runs x 3 agents, interleaved */
    assert_non_null(strstr(r.out, "# job listing (list-scale, interleaved): 75 steps"));
    assert_non_null(strstr(r.out, "# job s3bench (ops, parallel): 3 steps"));
    done(&r);

    char *json[] = {"check", "--json", path, NULL};
    r = run(3, json);
    assert_int_equal(r.status, 0);
    vc_campaign_t *c = NULL;
    assert_int_equal(vc_campaign_load(path, &c, NULL), VC_OK);
    size_t n = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        vc_job_t j;
        char err[256];
        assert_int_equal(vc_job_from_json(line, &j, err, sizeof err), VC_OK);
        assert_string_equal(j.id, vc_campaign_job(c, n)->job.id);
        n++;
    }
    assert_int_equal(n, vc_campaign_job_count(c));
    vc_campaign_destroy(&c);
    done(&r);
}

static void test_agent_and_reference(void **state)
{
    (void)state;
    char path[PATH_MAX];
    src(path, sizeof path, "deploy/agent.cfg.example");
    char *agent[] = {"check", "--agent", path, NULL};
    run_t r = run(3, agent);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "name = \"fiber\";"));
    done(&r);

    char *ref[] = {"check", "--reference", NULL};
    r = run(2, ref);
    assert_int_equal(r.status, 0);
    char *want = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&want, &len);
    vc_campaign_write_reference(m);
    fclose(m);
    assert_string_equal(r.out, want);
    free(want);
    done(&r);

    /* a campaign is not an agent config */
    src(path, sizeof path, "campaigns/demo.cfg");
    char *wrong[] = {"check", "--agent", path, NULL};
    r = run(3, wrong);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "unknown setting 'targets'"));
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_valid_prints_reloadable),
        cmocka_unit_test(test_invalid_lists_all),
        cmocka_unit_test(test_plan_and_json),
        cmocka_unit_test(test_agent_and_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
