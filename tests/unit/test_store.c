/* Tests of vk_store: a store in a temporary directory, written through the
 * API and read back with plain SQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "vc_sample.h"
#include "vk_store.h"

typedef struct {
    char dir[256];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/vantage-test-store-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", f->dir);
    free(f);
    return 0;
}

static vk_store_t *open_rw(const fixture_t *f)
{
    vk_store_t *st = NULL;
    char err[512] = "";
    vc_status_t rc = vk_store_open(f->dir, VK_STORE_CREATE, &st, err, sizeof err);
    if (rc)
        fprintf(stderr, "open: %s\n", err);
    assert_int_equal(rc, VC_OK);
    assert_non_null(st);
    return st;
}

/* n samples with seq first..first+n-1. */
static vc_sample_t *make_batch(uint64_t first, size_t n)
{
    vc_sample_t *v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        vc_sample_init(&v[i]);
        v[i].seq = first + i;
        VC_SAMPLE_SET(&v[i], op, "get");
        VC_SAMPLE_SET(&v[i], label, "5MiB");
        v[i].scale = 5 << 20;
        v[i].run = (int32_t)(first + i - 1);
        v[i].start_wall_ns = 1000000000000 + (int64_t)(first + i) * 1000;
        v[i].duration_ns = 1000 * (int64_t)(first + i);
    }
    return v;
}

static void free_batch(vc_sample_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vc_sample_clear(&v[i]);
    free(v);
}

static int64_t query_int(vk_store_t *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -999;
    assert_int_equal(sqlite3_prepare_v2(vk_store_sqlite(st), sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_type(s, 0) == SQLITE_NULL ? -777 : sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static void test_dedup_and_counts(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    vc_sample_t *a = make_batch(1, 100);
    size_t ins = 99, dup = 99;
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 100, 0, &ins, &dup), VC_OK);
    assert_int_equal(ins, 100);
    assert_int_equal(dup, 0);
    /* The same batch again (a lost ACK): every row is a duplicate. */
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 100, 0, &ins, &dup), VC_OK);
    assert_int_equal(ins, 0);
    assert_int_equal(dup, 100);
    /* Overlapping batch 51..150: 50 new, 50 duplicates. */
    vc_sample_t *b = make_batch(51, 100);
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", b, 100, 0, &ins, &dup), VC_OK);
    assert_int_equal(ins, 50);
    assert_int_equal(dup, 50);
    /* The same seqs from another agent or another job are not duplicates. */
    assert_int_equal(vk_store_add_samples(st, "fiber", "ops", a, 100, 0, &ins, &dup), VC_OK);
    assert_int_equal(ins, 100);
    assert_int_equal(vk_store_add_samples(st, "ec2", "list", a, 10, 0, &ins, &dup), VC_OK);
    assert_int_equal(ins, 10);
    assert_int_equal(query_int(st, "SELECT count(*) FROM samples"), 150 + 100 + 10);
    vk_job_row_t row;
    assert_int_equal(vk_store_job_get(st, "ops", "ec2", &row), VC_OK);
    assert_int_equal(row.received, 150);
    assert_int_equal(row.acked_seq, 150);
    assert_int_equal(query_int(st, "SELECT duplicates FROM jobs j JOIN agents a ON"
                                   " a.id = j.agent_id WHERE a.name = 'ec2' AND j.job = 'ops'"),
                     150);
    free_batch(a, 100);
    free_batch(b, 100);
    vk_store_destroy(&st);
    assert_null(st);
    vk_store_destroy(&st); /* NULL is accepted */
}

static void test_acked_seq_gap_and_resume(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    uint64_t acked = 77;
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 0);
    vc_sample_t *a = make_batch(1, 10);   /* 1..10 */
    vc_sample_t *c = make_batch(21, 10);  /* 21..30: leaves a gap */
    vc_sample_t *b = make_batch(11, 10);  /* 11..20: fills it */
    assert_int_equal(vk_store_add_samples(st, "mobile", "ops", a, 10, 0, NULL, NULL), VC_OK);
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 10);
    assert_int_equal(vk_store_add_samples(st, "mobile", "ops", c, 10, 0, NULL, NULL), VC_OK);
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 10);
    vk_store_destroy(&st);

    /* A restarted coordinator sees the same acked seq and completes the gap. */
    st = open_rw(f);
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 10);
    assert_int_equal(vk_store_add_samples(st, "mobile", "ops", b, 10, 0, NULL, NULL), VC_OK);
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 30);
    vk_store_destroy(&st);
    st = open_rw(f);
    assert_int_equal(vk_store_acked_seq(st, "mobile", "ops", &acked), VC_OK);
    assert_int_equal(acked, 30);
    free_batch(a, 10);
    free_batch(b, 10);
    free_batch(c, 10);
    vk_store_destroy(&st);
}

static void test_fields_pages_and_offset(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    assert_int_equal(vk_store_agent(st, "ec2", "aws-apse1", "{\"cpus\":2}"), VC_OK);
    assert_int_equal(vk_store_clock_offset(st, "ec2", 5000, 250, 10, 900), VC_OK);
    assert_int_equal(vk_store_clock_offset(st, "ec2", 6000, 300, 12, 950), VC_OK);
    int64_t off = 0;
    assert_int_equal(vk_store_last_offset(st, "ec2", &off), VC_OK);
    assert_int_equal(off, 300);
    assert_int_equal(vk_store_last_offset(st, "nobody", &off), VC_ERR_NOTFOUND);

    vc_sample_t s;
    vc_sample_init(&s);
    s.seq = 1;
    VC_SAMPLE_SET(&s, op, "ais-regular");
    VC_SAMPLE_SET(&s, label, "1K");
    s.scale = 1000;
    s.run = 3;
    s.worker = 0;
    s.start_wall_ns = 1700000000000000000;
    s.duration_ns = 179000000;
    s.ttfb_us = 1500;
    s.pages = 2;
    s.keys = 1000;
    s.http_status = 200;
    s.flags = VC_SF_SATURATED;
    s.cpu_user_us = 20;
    s.cpu_sys_us = 30;
    assert_int_equal(vc_sample_add_page(&s, 90000000, 600, 100), VC_OK);
    assert_int_equal(vc_sample_add_page(&s, 89000000, 400, 80), VC_OK);
    assert_int_equal(vk_store_add_samples(st, "ec2", "list", &s, 1, 300, NULL, NULL), VC_OK);
    vc_sample_clear(&s);

    assert_int_equal(query_int(st, "SELECT start_ns FROM samples"), 1700000000000000000 - 300);
    assert_int_equal(query_int(st, "SELECT start_wall_ns FROM samples"), 1700000000000000000);
    assert_int_equal(query_int(st, "SELECT duration_ns FROM samples"), 179000000);
    assert_int_equal(query_int(st, "SELECT dns_us FROM samples"), -777); /* unknown: NULL */
    assert_int_equal(query_int(st, "SELECT server_ns FROM samples"), -777);
    assert_int_equal(query_int(st, "SELECT keys FROM samples"), 1000);
    assert_int_equal(query_int(st, "SELECT saturated FROM samples_v WHERE site = 'aws-apse1'"
                                   " AND agent = 'ec2' AND job = 'list'"),
                     1);
    assert_int_equal(query_int(st, "SELECT count(*) FROM pages"), 2);
    assert_int_equal(query_int(st, "SELECT sum(p.keys) FROM pages p JOIN samples s ON"
                                   " s.id = p.sample_id"),
                     1000);
    assert_int_equal(query_int(st, "SELECT duration_ns FROM pages WHERE idx = 1"), 89000000);
    assert_int_equal(query_int(st, "SELECT count(*) FROM clock_offsets"), 2);
    /* A resent listing does not duplicate its pages either. */
    vc_sample_init(&s);
    s.seq = 1;
    VC_SAMPLE_SET(&s, op, "ais-regular");
    s.duration_ns = 5;
    assert_int_equal(vc_sample_add_page(&s, 1, 1, 1), VC_OK);
    size_t dup = 0;
    assert_int_equal(vk_store_add_samples(st, "ec2", "list", &s, 1, 0, NULL, &dup), VC_OK);
    assert_int_equal(dup, 1);
    assert_int_equal(query_int(st, "SELECT count(*) FROM pages"), 2);
    vc_sample_clear(&s);
    vk_store_destroy(&st);
}

static void test_invalid_batch_writes_nothing(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    vc_sample_t *a = make_batch(1, 5);
    a[3].seq = 0;
    size_t ins = 9;
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 5, 0, &ins, NULL), VC_ERR_PROTO);
    assert_int_equal(ins, 0);
    a[3].seq = 4;
    a[2].err_class = (vc_errclass_t)99;
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 5, 0, NULL, NULL), VC_ERR_PROTO);
    a[2].err_class = VC_EC_NONE;
    a[1].op[0] = '\0';
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 5, 0, NULL, NULL), VC_ERR_PROTO);
    /* An unterminated string field is stored truncated at its size, not overread. */
    memset(a[1].op, 'x', sizeof a[1].op);
    memset(a[1].err_msg, 'y', sizeof a[1].err_msg);
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 5, 0, &ins, NULL), VC_OK);
    assert_int_equal(ins, 5);
    assert_int_equal(query_int(st, "SELECT max(length(op)) FROM samples"), VC_OP_MAX);
    assert_int_equal(query_int(st, "SELECT max(length(err_msg)) FROM samples"), VC_ERRMSG_MAX);
    assert_int_equal(vk_store_add_samples(st, "", "ops", a, 5, 0, NULL, NULL), VC_ERR_ARG);
    free_batch(a, 5);
    vk_store_destroy(&st);
}

static void test_jobs_and_campaign(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    assert_int_equal(vk_store_campaign_begin(st, "apse1", "campaign = {}", 100), VC_OK);
    assert_int_equal(vk_store_campaign_begin(st, "apse1", "changed", 200), VC_OK); /* resume */
    assert_int_equal(vk_store_campaign_begin(st, "other", "x", 300), VC_ERR_MISMATCH);
    assert_int_equal(vk_store_campaign_end(st, 400), VC_OK);
    assert_int_equal(query_int(st, "SELECT start_ns FROM campaign"), 100);
    assert_int_equal(query_int(st, "SELECT end_ns FROM campaign"), 400);

    vc_target_t t;
    vc_target_init(&t);
    snprintf(t.name, sizeof t.name, "rgw");
    snprintf(t.bucket, sizeof t.bucket, "b");
    assert_int_equal(vk_store_target(st, &t), VC_OK);
    assert_int_equal(query_int(st, "SELECT count(*) FROM targets WHERE kind = 's3'"), 1);

    assert_int_equal(vk_store_job(st, "list", "ec2", VK_JOB_PENDING, "{\"kind\":1}", 480), VC_OK);
    assert_int_equal(vk_store_job(st, "list", "ec2", VK_JOB_RUNNING, NULL, -1), VC_OK);
    vk_job_row_t row;
    assert_int_equal(vk_store_job_get(st, "list", "ec2", &row), VC_OK);
    assert_int_equal(row.status, VK_JOB_RUNNING);
    assert_int_equal(row.expected, 480);
    assert_int_equal(vk_store_job_finish(st, "list", "ec2", VK_JOB_FAILED, 470, 3,
                                         "inventory creation timed out"),
                     VC_OK);
    assert_int_equal(vk_store_job_get(st, "list", "ec2", &row), VC_OK);
    assert_int_equal(row.status, VK_JOB_FAILED);
    assert_int_equal(row.expected, 470);
    assert_int_equal(row.errors, 3);
    assert_string_equal(row.error_text, "inventory creation timed out");
    assert_int_equal(query_int(st, "SELECT length(spec) FROM jobs"), 10);
    assert_int_equal(vk_store_job_get(st, "list", "nobody", &row), VC_ERR_NOTFOUND);
    assert_string_equal(vk_job_status_name(VK_JOB_CANCELLED), "cancelled");
    assert_int_equal(vk_job_status_parse("done"), VK_JOB_DONE);
    assert_int_equal(vk_job_status_parse("bogus"), -1);
    vk_store_destroy(&st);
}

static void test_schema_newer_refused(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    char path[512];
    snprintf(path, sizeof path, "%s", vk_store_path(st));
    vk_store_destroy(&st);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    char err[512] = "";
    assert_int_equal(vk_store_open(f->dir, VK_STORE_CREATE, &st, err, sizeof err),
                     VC_ERR_UNSUPPORTED);
    assert_null(st);
    assert_non_null(strstr(err, "99"));
    assert_non_null(strstr(err, "newer"));
    assert_int_equal(vk_store_open(f->dir, VK_STORE_READONLY, &st, err, sizeof err),
                     VC_ERR_UNSUPPORTED);
}

static void test_foreign_file_and_missing(void **state)
{
    fixture_t *f = *state;
    char err[512] = "";
    vk_store_t *st = NULL;
    assert_int_equal(vk_store_open(f->dir, VK_STORE_READONLY, &st, err, sizeof err),
                     VC_ERR_NOTFOUND);
    assert_non_null(strstr(err, VK_STORE_FILE));
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->dir, VK_STORE_FILE);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(vk_store_open(f->dir, VK_STORE_CREATE, &st, err, sizeof err),
                     VC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err, "not a vantage results store"));
}

static void test_readonly_refuses_writes(void **state)
{
    fixture_t *f = *state;
    vk_store_t *st = open_rw(f);
    vk_store_destroy(&st);
    char err[256];
    assert_int_equal(vk_store_open(f->dir, VK_STORE_READONLY, &st, err, sizeof err), VC_OK);
    vc_sample_t *a = make_batch(1, 1);
    assert_int_equal(vk_store_add_samples(st, "ec2", "ops", a, 1, 0, NULL, NULL), VC_ERR_ARG);
    free_batch(a, 1);
    vk_store_destroy(&st);
}

/* A report opens the file read-only while the coordinator keeps writing. */
static void test_reader_while_writing(void **state)
{
    fixture_t *f = *state;
    vk_store_t *w = open_rw(f), *r = NULL;
    vc_sample_t *a = make_batch(1, 50), *b = make_batch(51, 50);
    assert_int_equal(vk_store_add_samples(w, "ec2", "ops", a, 50, 0, NULL, NULL), VC_OK);
    char err[256];
    assert_int_equal(vk_store_open(f->dir, VK_STORE_READONLY, &r, err, sizeof err), VC_OK);
    assert_int_equal(query_int(r, "SELECT count(*) FROM samples"), 50);
    assert_int_equal(vk_store_add_samples(w, "ec2", "ops", b, 50, 0, NULL, NULL), VC_OK);
    assert_int_equal(query_int(r, "SELECT count(*) FROM samples"), 100);
    uint64_t acked = 0;
    assert_int_equal(vk_store_acked_seq(r, "ec2", "ops", &acked), VC_OK);
    assert_int_equal(acked, 100);
    free_batch(a, 50);
    free_batch(b, 50);
    vk_store_destroy(&r);
    vk_store_destroy(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dedup_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_acked_seq_gap_and_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fields_pages_and_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_batch_writes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs_and_campaign, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_newer_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_file_and_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_refuses_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_while_writing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
