/* Unit tests of vc_campaign, vc_plan and vc_job_json: the shipped campaigns
 * load with the seeds' values, the effective print re-loads to the same
 * campaign, every malformed file under tests/data/campaigns/bad/ fails with
 * the message and line its .expect file names, the schedules cut jobs as
 * documented, and docs/campaign-format.md holds the current option tables. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vc_campaign.h"
#include "vc_diag.h"
#include "vc_job_json.h"
#include "vc_plan.h"

static const char *data_dir(void)
{
    const char *d = getenv("VANTAGE_TEST_DATA");
    return d ? d : "tests/data";
}

static void path_of(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", data_dir(), rel);
}

static vc_campaign_t *load_ok(const char *path)
{
    vc_diag_t *d = vc_diag_new();
    vc_campaign_t *c = NULL;
    vc_status_t rc = vc_campaign_load(path, &c, d);
    if (rc != VC_OK) {
        vc_diag_print(d, stderr);
        fail_msg("%s does not load: %s", path, vc_strerror(rc));
    }
    vc_diag_destroy(&d);
    return c;
}

static vc_campaign_t *load_text(const char *text, vc_diag_t *d)
{
    vc_campaign_t *c = NULL;
    vc_status_t rc = vc_campaign_load_string(text, "inline.cfg", &c, d);
    if (rc == VC_OK)
        assert_non_null(c);
    else
        assert_null(c);
    return c;
}

static const vc_campaign_job_t *job_named(const vc_campaign_t *c, const char *id)
{
    int i = vc_campaign_job_find(c, id);
    if (i < 0)
        fail_msg("no job %s", id);
    return vc_campaign_job(c, (size_t)i);
}

static void test_seed1_campaign(void **state)
{
    (void)state;
    char path[1024];
    path_of(path, sizeof path, "../../campaigns/nbi-latency-vs-scale.cfg");
    vc_campaign_t *c = load_ok(path);
    assert_string_equal(vc_campaign_name(c), "nbi-latency-vs-scale");

    const vc_target_t *ais = vc_campaign_target(c, (size_t)vc_campaign_target_find(c, "ais"));
    assert_int_equal(ais->kind, VC_TK_AIS);
    assert_string_equal(ais->bucket, "my-bucket");
    assert_string_equal(ais->provider, "aws");
    assert_string_equal(ais->endpoint, ""); /* the agent's AIS_ENDPOINT */

    const vc_campaign_job_t *e = job_named(c, "nbi");
    const vc_job_t *j = &e->job;
    static const char *const labels[] = {"1K", "2K", "5K", "10K", "20K", "40K", "50K", "80K"};
    static const int64_t counts[] = {1000, 2000, 5000, 10000, 20000, 40000, 50000, 80000};
    static const char *const prefixes[] = {"bench/1k/",  "bench/2k/",  "bench/5k/",
                                           "bench/10k/", "bench/20k/", "bench/40k/",
                                           "bench/50k/", "bench/80k/"};
    assert_int_equal(j->kind, VC_WL_LIST_SCALE);
    assert_int_equal(j->nscale, 8);
    for (int i = 0; i < 8; i++) {
        assert_string_equal(j->scale[i].label, labels[i]);
        assert_string_equal(j->scale[i].prefix, prefixes[i]);
        assert_int_equal(j->scale[i].count, counts[i]);
    }
    assert_int_equal(j->runs, 20);
    assert_int_equal(j->paths, VC_PATH_AIS_REGULAR | VC_PATH_AIS_NBI | VC_PATH_S3_DIRECT);
    assert_int_equal(j->page_size, 1000);
    assert_int_equal(j->nbi_timeout_ms, 600000);
    assert_true(j->warmup && j->verify_count && j->nbi_create && j->nbi_destroy);
    assert_string_equal(j->target.name, "ais");
    assert_true(j->has_direct);
    assert_string_equal(j->direct.bucket, "my-bucket");
    assert_int_equal(j->direct.kind, VC_TK_S3);

    /* populate over scale_from: one job per point, aisloader's settings. */
    for (int i = 0; i < 8; i++) {
        char id[64];
        snprintf(id, sizeof id, "populate-%s", labels[i]);
        const vc_campaign_job_t *p = job_named(c, id);
        assert_int_equal(p->job.kind, VC_WL_POPULATE);
        assert_string_equal(p->job.prefix, prefixes[i]);
        assert_int_equal(p->job.count, counts[i]);
        assert_int_equal(p->job.object_size, 1);
        assert_int_equal(p->job.workers, 16);
        assert_int_equal(p->job.sequential_names, 0);
        assert_int_equal(p->nagents, 1);
        /* the populate jobs come where the populate job was: before the listing */
        assert_true(vc_campaign_job_find(c, id) < vc_campaign_job_find(c, "nbi"));
    }
    assert_int_equal(vc_campaign_job_count(c), 9);
    vc_campaign_destroy(&c);
    assert_null(c);
    vc_campaign_destroy(&c); /* NULL is fine */
}

static void test_seed2_campaign(void **state)
{
    (void)state;
    char path[1024];
    path_of(path, sizeof path, "../../campaigns/s3-read-write.cfg");
    vc_campaign_t *c = load_ok(path);
    assert_int_equal(vc_campaign_agent_count(c), 3);
    static const char *const names[] = {"ec2", "fiber", "mobile"};
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(vc_campaign_agent(c, i)->name, names[i]);
    assert_null(vc_campaign_agent(c, 3));
    const vc_campaign_job_t *e = job_named(c, "s3bench");
    assert_int_equal(e->job.kind, VC_WL_OPS);
    assert_int_equal(e->job.iterations, 10);
    assert_int_equal(e->job.object_size, 5 * 1024 * 1024);
    assert_int_equal(e->job.nops, 4);
    assert_int_equal(e->job.ops[0], VC_OP_PUT);
    assert_int_equal(e->job.ops[1], VC_OP_GET);
    assert_int_equal(e->job.ops[2], VC_OP_HEAD);
    assert_int_equal(e->job.ops[3], VC_OP_DELETE);
    assert_int_equal(e->job.interleave, 0);
    assert_int_equal(e->schedule, VC_SCHED_PARALLEL);
    assert_int_equal(e->nagents, 3);
    vc_campaign_destroy(&c);
}

static void test_demo_campaign(void **state)
{
    (void)state;
    char path[1024];
    path_of(path, sizeof path, "../../campaigns/demo.cfg");
    vc_campaign_t *c = load_ok(path);
    const vc_target_t *rgw = vc_campaign_target(c, (size_t)vc_campaign_target_find(c, "rgw"));
    const vc_target_t *ais = vc_campaign_target(c, (size_t)vc_campaign_target_find(c, "ais"));
    /* no endpoints: each agent reaches the servers through its own site's link */
    assert_string_equal(rgw->endpoint, "");
    assert_string_equal(rgw->bucket, "vantage-test");
    assert_string_equal(ais->endpoint, "");
    assert_int_equal(ais->kind, VC_TK_AIS);
    static const char *const sites[] = {"EC2 same region", "Home fiber", "Mobile"};
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(vc_campaign_agent(c, i)->site, sites[i]);
    /* small enough for a few minutes: at most a few thousand objects */
    int64_t objects = 0;
    for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
        const vc_job_t *j = &vc_campaign_job(c, i)->job;
        if (j->kind == VC_WL_POPULATE)
            objects += j->count;
        if (j->kind == VC_WL_LIST_SCALE)
            assert_in_range(j->runs, 1, 5);
        if (j->kind == VC_WL_OPS)
            assert_in_range(j->iterations * j->object_size, 1, 4 << 20);
    }
    assert_in_range(objects, 100, 5000);
    vc_campaign_destroy(&c);
}

/* Everything about a campaign that a load produces, as text. */
static char *describe(const vc_campaign_t *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    fprintf(m, "%s|%s|%d|%lld|%lld\n", vc_campaign_name(c), vc_campaign_description(c),
            vc_campaign_schedule(c), (long long)vc_campaign_agent_wait_ms(c),
            (long long)vc_campaign_start_lead_ms(c));
    for (size_t i = 0; i < vc_campaign_target_count(c); i++) {
        const vc_target_t *t = vc_campaign_target(c, i);
        fprintf(m, "T %s %d %s %s %s %s %d %d\n", t->name, t->kind, t->endpoint, t->bucket,
                t->provider, t->region, t->addressing, t->verify_tls);
    }
    for (size_t i = 0; i < vc_campaign_agent_count(c); i++)
        fprintf(m, "A %s|%s\n", vc_campaign_agent(c, i)->name, vc_campaign_agent(c, i)->site);
    for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
        const vc_campaign_job_t *e = vc_campaign_job(c, i);
        char *json = vc_job_to_json(&e->job, 0);
        assert_non_null(json);
        fprintf(m, "J %d %d:", e->schedule, e->nagents);
        for (int k = 0; k < e->nagents; k++)
            fprintf(m, " %d", e->agents[k]);
        fprintf(m, " %s\n", json);
        free(json);
    }
    fclose(m);
    return buf;
}

static char *effective(const vc_campaign_t *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    assert_int_equal(vc_campaign_write(c, m), VC_OK);
    fclose(m);
    return buf;
}

static void test_effective_round_trip(void **state)
{
    (void)state;
    static const char *const files[] = {"nbi-latency-vs-scale.cfg", "s3-read-write.cfg",
                                        "demo.cfg"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char rel[256], path[1024];
        snprintf(rel, sizeof rel, "../../campaigns/%s", files[f]);
        path_of(path, sizeof path, rel);
        vc_campaign_t *a = load_ok(path);
        char *text = effective(a);
        vc_diag_t *d = vc_diag_new();
        vc_campaign_t *b = load_text(text, d);
        if (!b) {
            vc_diag_print(d, stderr);
            fail_msg("effective print of %s does not re-load", files[f]);
        }
        char *da = describe(a), *db = describe(b);
        assert_string_equal(da, db);
        /* and printing it again gives the same text below the header */
        char *text2 = effective(b);
        const char *body1 = strstr(text, "\nname = "), *body2 = strstr(text2, "\nname = ");
        assert_non_null(body1);
        assert_non_null(body2);
        assert_string_equal(body1, body2);
        free(text), free(text2), free(da), free(db);
        vc_diag_destroy(&d);
        vc_campaign_destroy(&a);
        vc_campaign_destroy(&b);
    }
}

static void test_round_trip_escapes(void **state)
{
    (void)state;
    /* Quotes, backslashes, newlines, tabs and UTF-8 survive print and re-load. */
    static const char text[] =
        "name = \"esc\";\n"
        "description = \"say \\\"hi\\\" \\\\ back\\nslash\\tand \xc2\xb5s\";\n"
        "targets = ( { name = \"s3\"; kind = \"s3\"; bucket = \"b-1\"; region = \"eu-west-1\"; } );\n"
        "agents = ( { name = \"a\"; site = \"Caf\xc3\xa9 \\\"wifi\\\"\"; } );\n"
        "jobs = ( { name = \"o\"; kind = \"ops\"; target = \"s3\"; key_prefix = \"we ird/\\\\k/\";"
        " upload_file = \"/tmp/a \\\"b\\\"\"; } );\n";
    vc_diag_t *d = vc_diag_new();
    vc_campaign_t *a = load_text(text, d);
    if (!a) {
        vc_diag_print(d, stderr);
        fail();
    }
    assert_string_equal(vc_campaign_description(a), "say \"hi\" \\ back\nslash\tand \xc2\xb5s");
    assert_string_equal(vc_campaign_agent(a, 0)->site, "Caf\xc3\xa9 \"wifi\"");
    char *eff = effective(a);
    vc_campaign_t *b = load_text(eff, d);
    if (!b) {
        vc_diag_print(d, stderr);
        fail_msg("does not re-load:\n%s", eff);
    }
    char *da = describe(a), *db = describe(b);
    assert_string_equal(da, db);
    free(da), free(db), free(eff);
    vc_campaign_destroy(&a);
    vc_campaign_destroy(&b);
    vc_diag_destroy(&d);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One malformed file: it must fail, and every line of its .expect must hold:
 *   "LINE: fragment"  a message "FILE:LINE: fragment..." exists
 *   "absent TEXT"     no message contains TEXT (secrets are never echoed)
 *   "errors N"        exactly N messages */
static int check_bad_file(const char *dir, const char *name)
{
    char cfg[1024], exp[1024];
    snprintf(cfg, sizeof cfg, "%s/%s", dir, name);
    snprintf(exp, sizeof exp, "%s/%.*s.expect", dir, (int)(strlen(name) - 4), name);
    FILE *f = fopen(exp, "r");
    if (!f) {
        print_error("%s has no .expect file\n", name);
        return 1;
    }
    vc_diag_t *d = vc_diag_new();
    vc_campaign_t *c = NULL;
    vc_status_t rc = vc_campaign_load(cfg, &c, d);
    int failures = 0;
    if (rc != VC_ERR_CONFIG || c) {
        print_error("%s: loaded with status %d, want a config error\n", name, rc);
        failures++;
    }
    char line[512];
    int checks = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!*line)
            continue;
        checks++;
        if (strncmp(line, "errors ", 7) == 0) {
            size_t want = (size_t)atoi(line + 7);
            if (vc_diag_count(d) != want) {
                print_error("%s: %zu errors, want %zu\n", name, vc_diag_count(d), want);
                failures++;
            }
            continue;
        }
        int absent = strncmp(line, "absent ", 7) == 0;
        char want[700];
        if (absent)
            snprintf(want, sizeof want, "%s", line + 7);
        else
            snprintf(want, sizeof want, "%s:%s", cfg, line); /* FILE:LINE: ... */
        int found = 0;
        for (size_t i = 0; i < vc_diag_count(d); i++) {
            const char *m = vc_diag_get(d, i);
            if (m && (absent ? strstr(m, want) != NULL : strncmp(m, want, strlen(want)) == 0))
                found = 1;
        }
        if (found == absent) {
            print_error("%s: %s \"%s\"; messages were:\n", name,
                        absent ? "a message contains" : "no message starts with", want);
            for (size_t i = 0; i < vc_diag_count(d); i++)
                print_error("    %s\n", vc_diag_get(d, i));
            failures++;
        }
    }
    fclose(f);
    if (checks == 0) {
        print_error("%s: empty .expect\n", name);
        failures++;
    }
    vc_campaign_destroy(&c);
    vc_diag_destroy(&d);
    return failures;
}

static void test_bad_campaigns(void **state)
{
    (void)state;
    char dir[1024];
    path_of(dir, sizeof dir, "campaigns/bad");
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".cfg") == 0)
            names[n++] = strdup(de->d_name);
    }
    closedir(dp);
    qsort(names, n, sizeof names[0], by_name);
    assert_true(n >= 15);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        failures += check_bad_file(dir, names[i]);
        free(names[i]);
    }
    assert_int_equal(failures, 0);
}

static void test_missing_file(void **state)
{
    (void)state;
    vc_diag_t *d = vc_diag_new();
    vc_campaign_t *c = (vc_campaign_t *)1;
    assert_int_equal(vc_campaign_load("/nonexistent/x.cfg", &c, d), VC_ERR_IO);
    assert_null(c);
    assert_int_equal(vc_diag_count(d), 1);
    assert_non_null(strstr(vc_diag_get(d, 0), "/nonexistent/x.cfg: cannot open"));
    vc_diag_destroy(&d);
    /* no diag at all: still a clean failure */
    assert_int_equal(vc_campaign_load_string("name = ", "x", &c, NULL), VC_ERR_CONFIG);
    assert_null(c);
}

/* Odd shapes in every place: each must fail with messages, never crash. */
static void test_adversarial(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        "name = 5;",
        "name = \"x\"; targets = 5; agents = 6; jobs = 7;",
        "name = \"x\"; targets = { a = 1; }; agents = [ 1, 2 ]; jobs = ( 1, \"a\" );",
        "name = \"x\"; agents = ( { name = \"a\"; site = [ 1 ]; } ); jobs = ( { } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = 5; kind = 5; } );",
        "name = \"x\"; agents = ( ( ) ); jobs = ( { name = \"n\"; kind = \"null\"; count = -5; } );",
        "name = \"x\"; targets = ( { name = \"t\"; kind = \"ais\"; bucket = \"b\"; } );"
        " agents = ( { name = \"a\"; } );"
        " jobs = ( { name = \"l\"; kind = \"list-scale\"; target = 5; s3_target = [ ];"
        " scale = ( \"x\", { count = \"1Q\"; label = 7; prefix = 8; zz = 1; }, ( ) ); paths = 5;"
        " runs = 1.5; nbi_poll = true; warmup = \"maybe\"; } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = \"l\"; kind = \"list-scale\";"
        " scale = [ ]; paths = [ ]; } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = \"o\"; kind = \"ops\";"
        " ops = [ \"put\", \"put\", \"get\", \"head\", \"delete\" ]; agents = [ ]; } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = \"p\"; kind = \"populate\";"
        " scale_from = 5; scale = [ 1 ]; prefix = \"/abs\"; } );",
        "name = \"x\"; description = \"bell\\x07\"; agents = ( { name = \"a\"; } );"
        " jobs = ( { name = \"n\"; kind = \"null\"; schedule = 3; } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = \"l\"; kind = \"list-scale\";"
        " scale = [ 1000 ]; scale_prefix = \"{k}{nope}\"; paths = [ \"s3-direct\" ]; } );",
        "name = \"x\"; agents = ( { name = \"a\"; } ); jobs = ( { name = \"l\"; kind = \"list-scale\";"
        " scale = [ 1000 ]; scale_prefix = \"{k\"; } );",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        vc_diag_t *d = vc_diag_new();
        vc_campaign_t *c = load_text(texts[i], d);
        if (c)
            fail_msg("case %zu loaded: %s", i, texts[i]);
        assert_true(vc_diag_count(d) >= 1);
        for (size_t k = 0; k < vc_diag_count(d); k++)
            assert_non_null(strstr(vc_diag_get(d, k), "inline.cfg"));
        vc_diag_destroy(&d);
    }

    /* Longest strings: one byte over each buffer is refused, not cut. */
    char text[8192];
    char longname[VC_NAME_MAX + 1];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(text, sizeof text, "name = \"%s\"; agents = ( { name = \"a\"; } ); "
                                "jobs = ( { name = \"n\"; kind = \"null\"; } );", longname);
    vc_diag_t *d = vc_diag_new();
    assert_null(load_text(text, d));
    assert_non_null(strstr(vc_diag_get(d, 0), "too long"));
    vc_diag_destroy(&d);
}

/* The limits are errors, not truncation: 33 targets; 9 populate jobs of
 * 32 scale points (288 jobs once expanded). */
static void test_limits(void **state)
{
    (void)state;
    size_t cap = 64 * 1024, o = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    o += (size_t)snprintf(text + o, cap - o, "name = \"big\"; targets = (");
    for (int i = 0; i < VC_CAMPAIGN_MAX_TARGETS + 1; i++)
        o += (size_t)snprintf(text + o, cap - o, "%s{ name = \"t%d\"; kind = \"s3\"; bucket = \"b-1\"; }",
                              i ? ", " : "", i);
    o += (size_t)snprintf(text + o, cap - o, "); agents = ( { name = \"a\"; } ); jobs = ( "
                                             "{ name = \"n\"; kind = \"null\"; } );");
    vc_diag_t *d = vc_diag_new();
    assert_null(load_text(text, d));
    assert_non_null(strstr(vc_diag_get(d, 0), "targets: has 33 targets; at most 32"));
    vc_diag_clear(d);

    o = (size_t)snprintf(text, cap, "name = \"big\"; targets = ( { name = \"s3\"; kind = \"s3\";"
                                    " bucket = \"b-1\"; } ); agents = ( { name = \"a\"; } ); jobs = (");
    for (int j = 0; j < 9; j++) {
        o += (size_t)snprintf(text + o, cap - o, "%s{ name = \"p%d\"; kind = \"populate\"; "
                                                 "target = \"s3\"; scale_prefix = \"x%d/{n}/\"; scale = [",
                              j ? ", " : "", j, j);
        for (int k = 0; k < VC_MAX_SCALE_POINTS; k++)
            o += (size_t)snprintf(text + o, cap - o, "%s%d", k ? ", " : "", k + 1);
        o += (size_t)snprintf(text + o, cap - o, "]; }");
    }
    snprintf(text + o, cap - o, ");");
    assert_null(load_text(text, d));
    assert_non_null(strstr(vc_diag_get(d, 0), "too many jobs (at most 256"));
    vc_diag_destroy(&d);
    free(text);
}

static const char minimal[] = "name = \"m\";\n"
                              "targets = ( { name = \"s3\"; kind = \"s3\"; bucket = \"b-1\"; },\n"
                              "            { name = \"ais\"; kind = \"ais\"; bucket = \"b-1\"; } );\n"
                              "agents = ( { name = \"x\"; }, { name = \"y\"; }, { name = \"z\"; } );\n";

static vc_campaign_t *load_jobs(const char *jobs)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", minimal, jobs);
    vc_diag_t *d = vc_diag_new();
    vc_campaign_t *c = load_text(text, d);
    if (!c) {
        vc_diag_print(d, stderr);
        fail_msg("campaign does not load");
    }
    vc_diag_destroy(&d);
    return c;
}

static void test_defaults(void **state)
{
    (void)state;
    vc_campaign_t *c = load_jobs("jobs = ( { name = \"fill\"; kind = \"populate\"; target = \"s3\";"
                                 " prefix = \"p/\"; count = \"2K\"; },"
                                 " { name = \"l\"; kind = \"list-scale\"; target = \"ais\";"
                                 " s3_target = \"s3\"; scale = ( { count = 5; prefix = \"q/\"; } ); },"
                                 " { name = \"o\"; kind = \"ops\"; target = \"s3\"; } );");
    assert_int_equal(vc_campaign_schedule(c), VC_SCHED_SEQUENTIAL);
    assert_int_equal(vc_campaign_agent_wait_ms(c), 120000);
    assert_int_equal(vc_campaign_start_lead_ms(c), 2000);
    const vc_target_t *t = vc_campaign_target(c, 0);
    assert_int_equal(t->addressing, VC_ADDR_PATH);
    assert_int_equal(t->verify_tls, 1);

    /* every job option not given has vc_job_init's value */
    for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
        const vc_campaign_job_t *e = vc_campaign_job(c, i);
        vc_job_t want;
        vc_job_init(&want, e->job.kind);
        assert_int_equal(e->job.workers, want.workers);
        assert_int_equal(e->job.timeout_ms, want.timeout_ms);
        assert_int_equal(e->job.object_size, want.object_size);
        assert_int_equal(e->job.runs, want.runs);
        assert_int_equal(e->job.iterations, want.iterations);
        assert_int_equal(e->job.nops, want.nops);
        assert_int_equal(e->job.paths, want.paths);
        assert_int_equal(e->schedule, VC_SCHED_SEQUENTIAL);
    }
    const vc_campaign_job_t *fill = job_named(c, "fill");
    assert_int_equal(fill->job.count, 2000);
    assert_int_equal(fill->nagents, 1); /* populate: the first agent only */
    assert_int_equal(fill->agents[0], 0);
    const vc_campaign_job_t *l = job_named(c, "l");
    assert_int_equal(l->nagents, 3); /* others: all agents, in campaign order */
    assert_string_equal(l->job.scale[0].label, "5");
    vc_campaign_destroy(&c);
}

static void test_plan_parallel_sequential(void **state)
{
    (void)state;
    vc_campaign_t *c = load_jobs(
        "jobs = ( { name = \"o\"; kind = \"ops\"; target = \"s3\"; schedule = \"parallel\";"
        " agents = [ \"z\", \"x\" ]; },"
        " { name = \"p\"; kind = \"probe\"; target = \"s3\"; schedule = \"sequential\"; } );");
    vc_plan_step_t *s = NULL;
    size_t n = 0;
    assert_int_equal(vc_plan_job(c, 0, &s, &n), VC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(s[0].wave, 0);
    assert_int_equal(s[1].wave, 0);
    assert_int_equal(s[0].agent, 2); /* the job's agent order */
    assert_int_equal(s[1].agent, 0);
    assert_int_equal(s[0].job.iterations, 1);
    assert_int_equal(s[0].job.slice, 0);
    free(s);
    assert_int_equal(vc_plan_job(c, 1, &s, &n), VC_OK);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(s[i].wave, i);
        assert_int_equal(s[i].agent, i);
        assert_int_equal(s[i].job.start_at, 0);
    }
    free(s);
    assert_int_equal(vc_plan_job(c, 2, &s, &n), VC_ERR_ARG);
    assert_null(s);
    vc_campaign_destroy(&c);
}

static void test_plan_interleaved_list(void **state)
{
    (void)state;
    vc_campaign_t *c = load_jobs(
        "jobs = ( { name = \"l\"; kind = \"list-scale\"; target = \"ais\"; s3_target = \"s3\";"
        " schedule = \"interleaved\"; runs = 4; scale = [ 1000, 2000 ]; scale_prefix = \"b/{k}k/\"; } );");
    vc_plan_step_t *s = NULL;
    size_t n = 0;
    assert_int_equal(vc_plan_job(c, 0, &s, &n), VC_OK);
    assert_int_equal(n, 2 * 4 * 3); /* points x runs x agents */
    int per_agent_slices[3] = {0, 0, 0};
    int creates = 0, destroys = 0, verifies = 0, warmups[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        const vc_job_t *j = &s[i].job;
        int point = (int)i / 12, r = (int)(i % 12) / 3, k = (int)i % 3;
        assert_int_equal(s[i].wave, (int)i); /* one step a wave */
        assert_int_equal(s[i].agent, (r + k) % 3); /* run r starts with agent r mod n */
        assert_int_equal(j->nscale, 1);
        assert_string_equal(j->scale[0].label, point ? "2K" : "1K");
        assert_int_equal(j->runs, 1);
        assert_int_equal(j->run_first, r);
        assert_int_equal(j->interleave, 1);
        assert_int_equal(j->slice, per_agent_slices[s[i].agent]++);
        /* one inventory per point: created first, destroyed last */
        if (j->nbi_create) {
            creates++;
            assert_true(r == 0 && k == 0);
        }
        if (j->nbi_destroy) {
            destroys++;
            assert_true(r == 3 && k == 2);
        }
        verifies += j->verify_count;
        warmups[s[i].agent] += j->warmup;
    }
    assert_int_equal(creates, 2);
    assert_int_equal(destroys, 2);
    assert_int_equal(verifies, 2);
    for (int a = 0; a < 3; a++) {
        assert_int_equal(warmups[a], 1);
        assert_int_equal(per_agent_slices[a], 8);
    }
    free(s);
    vc_campaign_destroy(&c);
}

static void test_plan_interleaved_ops(void **state)
{
    (void)state;
    vc_campaign_t *c = load_jobs(
        "jobs = ( { name = \"o\"; kind = \"ops\"; target = \"s3\"; schedule = \"interleaved\";"
        " iterations = 2; agents = [ \"x\", \"y\" ]; },"
        " { name = \"n\"; kind = \"null\"; schedule = \"interleaved\"; } );");
    vc_plan_step_t *s = NULL;
    size_t n = 0;
    assert_int_equal(vc_plan_job(c, 0, &s, &n), VC_OK);
    assert_int_equal(n, 4);
    static const int agents[] = {0, 1, 1, 0};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i].wave, (int)i);
        assert_int_equal(s[i].agent, agents[i]);
        assert_int_equal(s[i].job.iterations, 1);
        assert_int_equal(s[i].job.run_first, (int)i / 2);
        assert_int_equal(s[i].job.interleave, 1);
    }
    free(s);
    /* nothing to interleave in a null job: one agent after another */
    assert_int_equal(vc_plan_job(c, 1, &s, &n), VC_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i].wave, (int)i);
        assert_int_equal(s[i].job.count, 1000);
    }
    free(s);
    vc_campaign_destroy(&c);
}

static void test_job_json(void **state)
{
    (void)state;
    char path[1024];
    path_of(path, sizeof path, "../../campaigns/demo.cfg");
    vc_campaign_t *c = load_ok(path);
    for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
        vc_plan_step_t *s = NULL;
        size_t n = 0;
        assert_int_equal(vc_plan_job(c, i, &s, &n), VC_OK);
        for (size_t k = 0; k < n; k++) {
            vc_job_t back;
            char err[256];
            s[k].job.start_at = 1234567890123456789LL;
            char *a = vc_job_to_json(&s[k].job, k & 1);
            assert_non_null(a);
            if (vc_job_from_json(a, &back, err, sizeof err) != VC_OK)
                fail_msg("%s: %s", a, err);
            char *b = vc_job_to_json(&back, k & 1);
            assert_string_equal(a, b);
            assert_int_equal(back.start_at, s[k].job.start_at);
            assert_int_equal(back.slice, s[k].job.slice);
            free(a);
            free(b);
        }
        free(s);
    }
    vc_campaign_destroy(&c);

    static const struct {
        const char *json;
        const char *fragment;
    } bad[] = {
        {"", "job JSON"},
        {"[]", "not an object"},
        {"{}", "\"kind\""},
        {"{\"kind\":\"ops\",\"iterations\":0}", "\"iterations\""},
        {"{\"kind\":\"ops\",\"bogus\":1}", "unknown key \"bogus\""},
        {"{\"kind\":\"ops\",\"id\":5}", "\"id\""},
        {"{\"kind\":\"ops\",\"ops\":[\"put\",\"fly\"]}", "ops[1]"},
        {"{\"kind\":\"list-scale\",\"paths\":[\"x\"]}", "paths[0]"},
        {"{\"kind\":\"ops\",\"target\":{\"kind\":\"gcs\"}}", "target.kind"},
        {"{\"kind\":\"ops\",\"kind\":\"null\"}", "duplicate"},
        {"{\"kind\":\"ops\",\"warmup\":1}", "\"warmup\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vc_job_t j;
        char err[256] = "";
        memset(&j, 0x5a, sizeof j);
        assert_int_equal(vc_job_from_json(bad[i].json, &j, err, sizeof err), VC_ERR_ARG);
        if (!strstr(err, bad[i].fragment))
            fail_msg("%s: \"%s\" lacks \"%s\"", bad[i].json, err, bad[i].fragment);
        assert_int_equal(((unsigned char *)&j)[0], 0x5a); /* untouched on failure */
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    buf[size] = '\0';
    fclose(f);
    return buf;
}

static void test_reference_in_docs(void **state)
{
    (void)state;
    char path[1024];
    path_of(path, sizeof path, "../../docs/campaign-format.md");
    char *doc = read_file(path);
    char *ref = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&ref, &len);
    assert_int_equal(vc_campaign_write_reference(m), VC_OK);
    fclose(m);
    const char *begin = strstr(doc, "<!-- BEGIN OPTIONS (vantage check --reference) -->\n");
    const char *end = strstr(doc, "<!-- END OPTIONS -->");
    assert_non_null(begin);
    assert_non_null(end);
    begin = strchr(begin, '\n') + 1;
    if ((size_t)(end - begin) != strlen(ref) || strncmp(begin, ref, strlen(ref)) != 0)
        fail_msg("docs/campaign-format.md is out of date with the option tables: regenerate the "
                 "part between the OPTIONS markers with `vantage check --reference`");
    /* every schedule is explained in the prose too */
    for (int s = 0; s < VC_SCHED_COUNT; s++) {
        char heading[64];
        snprintf(heading, sizeof heading, "`%s`", vc_schedule_name((vc_schedule_t)s));
        assert_non_null(strstr(doc, heading));
    }
    free(ref);
    free(doc);
}

static void test_reference_lists_every_option(void **state)
{
    (void)state;
    char *ref = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&ref, &len);
    assert_int_equal(vc_campaign_write_reference(m), VC_OK);
    fclose(m);
    /* Every option a campaign may use, spelled as a reader would write it. */
    static const char *const opts[] = {
        "name", "description", "schedule", "agent_wait", "start_lead", "targets", "agents",
        "jobs", "kind", "endpoint", "bucket", "provider", "region", "addressing",
        "verify_tls", "site", "target", "s3_target", "prefix", "count", "size", "workers",
        "naming", "scale", "scale_prefix", "scale_from", "runs", "paths", "page_size",
        "nbi_poll", "nbi_timeout", "warmup", "verify_count", "nbi_create", "nbi_destroy",
        "interleave", "iterations", "ops", "key_prefix", "upload_file", "interval", "timeout"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        char cell[64];
        snprintf(cell, sizeof cell, "| `%s` |", opts[i]);
        if (!strstr(ref, cell))
            fail_msg("option %s missing from the reference", opts[i]);
    }
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed1_campaign),
        cmocka_unit_test(test_seed2_campaign),
        cmocka_unit_test(test_demo_campaign),
        cmocka_unit_test(test_effective_round_trip),
        cmocka_unit_test(test_round_trip_escapes),
        cmocka_unit_test(test_bad_campaigns),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_adversarial),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_plan_parallel_sequential),
        cmocka_unit_test(test_plan_interleaved_list),
        cmocka_unit_test(test_plan_interleaved_ops),
        cmocka_unit_test(test_job_json),
        cmocka_unit_test(test_reference_in_docs),
        cmocka_unit_test(test_reference_lists_every_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
