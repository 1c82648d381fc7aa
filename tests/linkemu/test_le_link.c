/* Unit tests of linkemu's link arithmetic (token bucket, delay, jitter order)
 * and of its profile files. Time is simulated: no sleeping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "le_conf.h"
#include "le_link.h"

#define MS INT64_C(1000000)
#define S INT64_C(1000000000)

/* Sends greedily for one simulated second: bytes taken = rate x 1 s + burst. */
static void test_bucket_rate(void **state)
{
    (void)state;
    le_link_params_t p = {.rate_mbit = 8.0}; /* 1 000 000 bytes/s */
    le_link_t *l = le_link_new(&p, 1, 0);
    assert_non_null(l);
    size_t q = le_link_quantum(l);
    assert_true(q >= 1448 && q <= 2000); /* ~1 ms of rate, at least a segment */
    int64_t now = 0;
    uint64_t sent = 0;
    while (now <= S) {
        int64_t wait = le_link_take(l, q, now);
        if (wait == 0)
            sent += q;
        else
            now += wait;
    }
    /* 1e6 bytes in the second plus the initial burst (20 ms = 20000 bytes) */
    assert_true(sent >= 1000000 + 20000 - q && sent <= 1000000 + 20000 + q);
    le_link_destroy(&l);
    assert_null(l);
    le_link_destroy(&l);
}

/* A refused take takes nothing, and the wait it returns is exactly enough. */
static void test_bucket_wait_exact(void **state)
{
    (void)state;
    le_link_params_t p = {.rate_mbit = 0.8, .burst = 2000}; /* 100 000 bytes/s */
    le_link_t *l = le_link_new(&p, 1, 0);
    assert_int_equal(le_link_take(l, 1448, 0), 0);
    int64_t wait = le_link_take(l, 1448, 0); /* 552 left, 896 missing = 8.96 ms */
    assert_true(wait > 8 * MS && wait <= 9 * MS);
    assert_true(le_link_take(l, 1448, wait - 1000) > 0);
    assert_int_equal(le_link_take(l, 1448, wait), 0);
    le_link_destroy(&l);
}

static void test_no_cap(void **state)
{
    (void)state;
    le_link_params_t p = {.delay_ms = 3};
    le_link_t *l = le_link_new(&p, 1, 0);
    assert_int_equal(le_link_quantum(l), SIZE_MAX);
    assert_int_equal(le_link_take(l, 1 << 30, 0), 0);
    assert_int_equal(le_link_release(l, 5 * MS, INT64_MIN), 8 * MS);
    assert_int_equal(le_link_delay_ns(l), 3 * MS);
    le_link_destroy(&l);
}

static void test_bad_params(void **state)
{
    (void)state;
    le_link_params_t neg = {.delay_ms = -1};
    assert_null(le_link_new(&neg, 1, 0));
    le_link_params_t nan = {.rate_mbit = 0.0 / 0.0};
    assert_null(le_link_new(&nan, 1, 0));
    assert_null(le_link_new(NULL, 1, 0));
}

/* Chunks far apart: each delay is within delay +- jitter, spread over the
 * whole range, centred on the delay. */
static void test_jitter_bounds(void **state)
{
    (void)state;
    le_link_params_t p = {.delay_ms = 40, .jitter_ms = 10};
    le_link_t *l = le_link_new(&p, 42, 0);
    int64_t lo = INT64_MAX, hi = INT64_MIN, sum = 0, prev = INT64_MIN;
    const int n = 4000;
    for (int i = 0; i < n; i++) {
        int64_t now = (int64_t)i * 100 * MS;
        int64_t at = le_link_release(l, now, prev);
        prev = at;
        int64_t d = at - now;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        sum += d;
    }
    assert_true(lo >= 30 * MS && hi <= 50 * MS);
    assert_true(lo < 31 * MS && hi > 49 * MS);
    int64_t mean = sum / n;
    assert_true(mean > 39 * MS && mean < 41 * MS);
    le_link_destroy(&l);
}

/* Chunks closer than the jitter: release times never go backwards (no
 * reordering) and stay within the upper bound. */
static void test_jitter_never_reorders(void **state)
{
    (void)state;
    le_link_params_t p = {.delay_ms = 40, .jitter_ms = 10};
    le_link_t *l = le_link_new(&p, 7, 0);
    int64_t prev = INT64_MIN;
    int clamped = 0;
    for (int i = 0; i < 10000; i++) {
        int64_t now = (int64_t)i * MS;
        int64_t at = le_link_release(l, now, prev);
        assert_true(at >= prev);
        assert_true(at <= now + 50 * MS);
        assert_true(at >= now + 30 * MS);
        if (at == prev)
            clamped++;
        prev = at;
    }
    assert_true(clamped > 0); /* the test did exercise the ordering rule */
    le_link_destroy(&l);
}

static void test_same_seed_same_jitter(void **state)
{
    (void)state;
    le_link_params_t p = {.delay_ms = 20, .jitter_ms = 5};
    le_link_t *a = le_link_new(&p, 99, 0), *b = le_link_new(&p, 99, 0), *c = le_link_new(&p, 98, 0);
    int differs = 0;
    for (int i = 0; i < 100; i++) {
        int64_t now = (int64_t)i * S;
        int64_t ra = le_link_release(a, now, INT64_MIN);
        assert_int_equal(ra, le_link_release(b, now, INT64_MIN));
        differs |= ra != le_link_release(c, now, INT64_MIN);
    }
    assert_true(differs);
    le_link_destroy(&a);
    le_link_destroy(&b);
    le_link_destroy(&c);
}

static void profile_path(char *buf, size_t len, const char *name)
{
    const char *dir = getenv("LINKEMU_PROFILES");
    snprintf(buf, len, "%s/%s.cfg", dir ? dir : "tests/linkemu/profiles", name);
}

/* The shipped profiles load and keep the seed's order of the three sites. */
static void test_shipped_profiles(void **state)
{
    (void)state;
    const char *names[] = {"ec2", "fiber", "mobile"};
    le_profile_t p[3];
    for (int i = 0; i < 3; i++) {
        char path[1024], err[256] = "";
        profile_path(path, sizeof(path), names[i]);
        le_profile_defaults(&p[i]);
        assert_int_equal(le_profile_load(&p[i], path, err, sizeof(err)), VC_OK);
        assert_string_equal(p[i].name, names[i]);
    }
    double rtt[3];
    for (int i = 0; i < 3; i++)
        rtt[i] = p[i].delay_ms[LE_UP] + p[i].delay_ms[LE_DOWN];
    assert_true(rtt[0] <= 2 && rtt[1] > 10 && rtt[2] > rtt[1]);
    assert_true(p[0].rate_mbit[LE_UP] == 0); /* ec2: no cap */
    /* mobile uploads slower than it downloads, and slower than fiber */
    assert_true(p[2].rate_mbit[LE_UP] > 0 && p[2].rate_mbit[LE_UP] < p[2].rate_mbit[LE_DOWN]);
    assert_true(p[2].rate_mbit[LE_UP] < p[1].rate_mbit[LE_UP]);
    assert_true(p[2].jitter_ms[LE_UP] > p[1].jitter_ms[LE_UP]);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_profile_errors(void **state)
{
    (void)state;
    char path[64], err[256];
    snprintf(path, sizeof(path), "/tmp/le-prof-%ld.cfg", (long)getpid());
    le_profile_t p;

    le_profile_defaults(&p);
    write_file(path, "delay_up_ms = 5;\n\ndelya_down_ms = 5;\n");
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_ERR_CONFIG);
    assert_non_null(strstr(err, ":3:"));
    assert_non_null(strstr(err, "delya_down_ms"));

    write_file(path, "rate_up_mbit = -1;\n");
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "rate_up_mbit"));

    write_file(path, "jitter_up_ms = \"ten\";\n");
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_ERR_CONFIG);

    write_file(path, "delay_up_ms = = 5;\n"); /* syntax error */
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_ERR_CONFIG);
    assert_non_null(strstr(err, path));

    write_file(path, "handshake = 2;\n");
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_ERR_CONFIG);

    /* integers and floats both read; absent keys keep their values */
    le_profile_defaults(&p);
    p.rate_mbit[LE_DOWN] = 3;
    write_file(path, "delay_up_ms = 5; delay_down_ms = 7.5; handshake = false;\n");
    assert_int_equal(le_profile_load(&p, path, err, sizeof(err)), VC_OK);
    assert_true(p.delay_ms[LE_UP] == 5 && p.delay_ms[LE_DOWN] == 7.5);
    assert_true(p.rate_mbit[LE_DOWN] == 3 && p.handshake == 0);
    unlink(path);

    assert_int_equal(le_profile_load(&p, "/nonexistent/x.cfg", err, sizeof(err)), VC_ERR_CONFIG);
    assert_non_null(strstr(err, "/nonexistent/x.cfg"));
}

static void test_flags(void **state)
{
    (void)state;
    le_profile_t p;
    char err[256];
    le_profile_defaults(&p);
    assert_int_equal(le_profile_set_flag(&p, "--jitter", "3", err, sizeof(err)), VC_OK);
    assert_true(p.jitter_ms[LE_UP] == 3 && p.jitter_ms[LE_DOWN] == 3);
    assert_int_equal(le_profile_set_flag(&p, "--rate-down", "2.5", err, sizeof(err)), VC_OK);
    assert_true(p.rate_mbit[LE_DOWN] == 2.5 && p.rate_mbit[LE_UP] == 0);
    assert_int_equal(le_profile_set_flag(&p, "--delay-up", "x", err, sizeof(err)), VC_ERR_ARG);
    assert_int_equal(le_profile_set_flag(&p, "--delay-up", "-2", err, sizeof(err)), VC_ERR_ARG);
    assert_int_equal(le_profile_set_flag(&p, "--delay-up", NULL, err, sizeof(err)), VC_ERR_ARG);
    assert_int_equal(le_profile_set_flag(&p, "--listen", "1", err, sizeof(err)), VC_ERR_NOTFOUND);
    le_link_params_t lp = le_profile_link(&p, LE_DOWN);
    assert_true(lp.rate_mbit == 2.5 && lp.jitter_ms == 3);
}

/* The automatic buffer holds at least two bandwidth-delay products. */
static void test_queue_size(void **state)
{
    (void)state;
    le_profile_t p;
    le_profile_defaults(&p);
    assert_int_equal(le_profile_queue_bytes(&p), 256 * 1024);
    p.rate_mbit[LE_DOWN] = 100;
    p.delay_ms[LE_DOWN] = 100; /* BDP 1.25 MB */
    assert_true(le_profile_queue_bytes(&p) >= 2500000);
    p.queue_kib = 64;
    assert_int_equal(le_profile_queue_bytes(&p), 64 * 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_rate),
        cmocka_unit_test(test_bucket_wait_exact),
        cmocka_unit_test(test_no_cap),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_jitter_bounds),
        cmocka_unit_test(test_jitter_never_reorders),
        cmocka_unit_test(test_same_seed_same_jitter),
        cmocka_unit_test(test_shipped_profiles),
        cmocka_unit_test(test_profile_errors),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_queue_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
