/* Tests of vc_clockoff: exchanges built from a known true offset and known
 * one-way delays, so every expected value follows from the NTP model and
 * not from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "vc_clock.h"
#include "vc_clockoff.h"

/* One exchange: the coordinator sends at c_send (its clock); the message
 * takes d_fwd to reach the agent, the agent holds it `hold`, the reply takes
 * d_back. The agent's clock reads true time + theta. */
typedef struct {
    int64_t t1, t2, t3, t4;
} xchg_t;

static xchg_t make(int64_t c_send, int64_t theta, int64_t d_fwd, int64_t hold, int64_t d_back)
{
    xchg_t x;
    x.t1 = c_send;
    x.t2 = c_send + d_fwd + theta;
    x.t3 = x.t2 + hold;
    x.t4 = c_send + d_fwd + hold + d_back;
    return x;
}

static int64_t absdiff(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

static void test_symmetric_exact(void **state)
{
    (void)state;
    const int64_t theta = 1500 * VC_NS_PER_MS;
    xchg_t x = make(INT64_C(1700000000) * VC_NS_PER_S, theta, 20000, 5000, 20000);
    vc_clockoff_est_t e;
    assert_int_equal(vc_clockoff_compute(x.t1, x.t2, x.t3, x.t4, &e), VC_OK);
    assert_int_equal(e.offset_ns, theta);   /* symmetric paths: no error at all */
    assert_int_equal(e.delay_ns, 40000);    /* both legs, without the hold */
    assert_int_equal(e.error_ns, 20000);
    assert_int_equal(e.t4, x.t4);
}

static void test_asymmetric_within_bound(void **state)
{
    (void)state;
    /* 90 ms out, 2 ms back: the estimate is off by (90-2)/2 = 44 ms, and
     * the bound (92/2 = 46 ms) still covers it. */
    const int64_t theta = -7 * VC_NS_PER_S;
    xchg_t x = make(INT64_C(1700000000) * VC_NS_PER_S, theta, 90 * VC_NS_PER_MS,
                    VC_NS_PER_MS, 2 * VC_NS_PER_MS);
    vc_clockoff_est_t e;
    assert_int_equal(vc_clockoff_compute(x.t1, x.t2, x.t3, x.t4, &e), VC_OK);
    assert_int_equal(e.offset_ns, theta + 44 * VC_NS_PER_MS);
    assert_int_equal(e.delay_ns, 92 * VC_NS_PER_MS);
    assert_int_equal(e.error_ns, 46 * VC_NS_PER_MS);
    assert_true(absdiff(e.offset_ns, theta) <= e.error_ns);
}

static void test_random_exchanges_bound_holds(void **state)
{
    (void)state;
    srand(12345);
    for (int i = 0; i < 200000; i++) {
        int64_t theta = ((int64_t)rand() - RAND_MAX / 2) * 1000 + (rand() % 3) - 1;
        int64_t d1 = rand() % 50000000, d2 = rand() % 50000000, hold = rand() % 1000000;
        if (i % 7 == 0)
            d1 = 0; /* the extreme asymmetry: the whole delay on one leg */
        xchg_t x = make(INT64_C(1700000000) * VC_NS_PER_S + i, theta, d1, hold, d2);
        vc_clockoff_est_t e;
        assert_int_equal(vc_clockoff_compute(x.t1, x.t2, x.t3, x.t4, &e), VC_OK);
        assert_int_equal(e.delay_ns, d1 + d2);
        if (absdiff(e.offset_ns, theta) > e.error_ns)
            fail_msg("exchange %d: offset %lld, true %lld, bound %lld", i,
                     (long long)e.offset_ns, (long long)theta, (long long)e.error_ns);
    }
}

static void test_impossible_refused(void **state)
{
    (void)state;
    vc_clockoff_est_t e;
    assert_int_equal(vc_clockoff_compute(100, 50, 60, 90, &e), VC_ERR_ARG);  /* t4 < t1 */
    assert_int_equal(vc_clockoff_compute(100, 60, 50, 200, &e), VC_ERR_ARG); /* t3 < t2 */
    assert_int_equal(vc_clockoff_compute(100, 0, 90, 150, &e), VC_ERR_ARG);  /* hold > rtt */
    assert_int_equal(vc_clockoff_compute(INT64_MIN, INT64_MAX, INT64_MAX, 0, &e), VC_ERR_ARG);
    assert_int_equal(vc_clockoff_compute(0, INT64_MIN, INT64_MIN, 10, &e), VC_ERR_ARG);
    assert_int_equal(vc_clockoff_compute(-10, INT64_MAX - 5, INT64_MAX, 10, &e), VC_ERR_ARG);
}

static void test_window_picks_lowest_delay(void **state)
{
    (void)state;
    const int64_t theta = 250 * VC_NS_PER_MS;
    vc_clockoff_t *c = vc_clockoff_new(4);
    assert_non_null(c);
    vc_clockoff_est_t e;
    assert_int_equal(vc_clockoff_best(c, &e), VC_ERR_NOTFOUND);

    /* delays (fwd, back) in µs; the third is the fastest and most asymmetric-free */
    const int64_t legs[][2] = {{800, 200}, {3000, 100}, {150, 150}, {5000, 4000}};
    int64_t t = INT64_C(1700000000) * VC_NS_PER_S;
    for (int i = 0; i < 4; i++) {
        xchg_t x = make(t + i * VC_NS_PER_S, theta, legs[i][0] * 1000, 10000, legs[i][1] * 1000);
        assert_int_equal(vc_clockoff_add(c, x.t1, x.t2, x.t3, x.t4), VC_OK);
    }
    assert_int_equal(vc_clockoff_count(c), 4);
    assert_int_equal(vc_clockoff_best(c, &e), VC_OK);
    assert_int_equal(e.delay_ns, 300000);
    assert_int_equal(e.offset_ns, theta);

    /* a refused exchange changes nothing */
    assert_int_equal(vc_clockoff_add(c, 10, 0, 5, 5), VC_ERR_ARG);
    assert_int_equal(vc_clockoff_count(c), 4);

    /* three slow exchanges push out two old ones; the fast one stays while in the window */
    for (int i = 0; i < 2; i++) {
        xchg_t x = make(t + (10 + i) * VC_NS_PER_S, theta, 9000000, 10000, 1000000);
        assert_int_equal(vc_clockoff_add(c, x.t1, x.t2, x.t3, x.t4), VC_OK);
    }
    assert_int_equal(vc_clockoff_count(c), 4);
    assert_int_equal(vc_clockoff_best(c, &e), VC_OK);
    assert_int_equal(e.delay_ns, 300000);
    xchg_t x = make(t + 20 * VC_NS_PER_S, theta, 9000000, 10000, 1000000);
    assert_int_equal(vc_clockoff_add(c, x.t1, x.t2, x.t3, x.t4), VC_OK);
    /* the 150/150 exchange is now out; the best left is 5000/4000 (9 ms)
     * against the 10 ms slow ones */
    assert_int_equal(vc_clockoff_best(c, &e), VC_OK);
    assert_int_equal(e.delay_ns, 9000000);
    assert_int_equal(e.offset_ns, theta + 500000); /* (5 ms - 4 ms) / 2 */

    /* ties go to the newest */
    vc_clockoff_reset(c);
    assert_int_equal(vc_clockoff_count(c), 0);
    assert_int_equal(vc_clockoff_best(c, &e), VC_ERR_NOTFOUND);
    x = make(t, theta, 1000, 0, 1000);
    assert_int_equal(vc_clockoff_add(c, x.t1, x.t2, x.t3, x.t4), VC_OK);
    x = make(t + VC_NS_PER_S, theta + 7, 1000, 0, 1000);
    assert_int_equal(vc_clockoff_add(c, x.t1, x.t2, x.t3, x.t4), VC_OK);
    assert_int_equal(vc_clockoff_best(c, &e), VC_OK);
    assert_int_equal(e.offset_ns, theta + 7);
    assert_int_equal(e.t4, x.t4);

    vc_clockoff_destroy(&c);
    assert_null(c);
    vc_clockoff_destroy(&c); /* NULL is fine */
    assert_null(vc_clockoff_new(0));
    assert_null(vc_clockoff_new(100000));
}

/* The process clock shifted with vc_clock_set_wall_offset plays the agent:
 * real timestamps, a known shift, and the shift must lie in the bound. */
static void test_real_clock_known_shift(void **state)
{
    (void)state;
    const int64_t shift = -3 * VC_NS_PER_S + 123456;
    vc_clockoff_t *c = vc_clockoff_new(8);
    assert_non_null(c);
    for (int i = 0; i < 8; i++) {
        vc_clock_set_wall_offset(0);
        int64_t t1 = vc_wall_now();
        vc_clock_set_wall_offset(shift);
        int64_t t2 = vc_wall_now();
        int64_t t3 = vc_wall_now();
        vc_clock_set_wall_offset(0);
        int64_t t4 = vc_wall_now();
        assert_int_equal(vc_clockoff_add(c, t1, t2, t3, t4), VC_OK);
    }
    vc_clockoff_est_t e;
    assert_int_equal(vc_clockoff_best(c, &e), VC_OK);
    assert_true(absdiff(e.offset_ns, shift) <= e.error_ns);
    assert_true(e.error_ns < 100 * VC_NS_PER_MS);
    vc_clockoff_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symmetric_exact),
        cmocka_unit_test(test_asymmetric_within_bound),
        cmocka_unit_test(test_random_exchanges_bound_holds),
        cmocka_unit_test(test_impossible_refused),
        cmocka_unit_test(test_window_picks_lowest_delay),
        cmocka_unit_test(test_real_clock_known_shift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
