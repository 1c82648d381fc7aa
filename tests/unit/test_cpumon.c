/* Tests of va_cpumon: the load rule on given readings, and the live monitor
 * on an idle process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "va_cpumon.h"

#define MS VC_NS_PER_MS

static void load_uses_the_newest_reading_a_window_ago(void **state)
{
    (void)state;
    va_cpumon_reading_t r[] = {
        {0, 0}, {500 * MS, 100 * MS}, {1000 * MS, 200 * MS}, {1500 * MS, 600 * MS},
    };
    /* now = 2 s; base = the reading at 1.0 s (the newest at least 1 s old):
     * 900 ms of CPU in 1 s */
    va_cpumon_reading_t now = {2000 * MS, 1100 * MS};
    assert_float_equal(va_cpumon_load_of(r, 4, now, 1000 * MS, 200 * MS), 0.9, 1e-9);
    /* a shorter window starts later */
    assert_float_equal(va_cpumon_load_of(r, 4, now, 500 * MS, 200 * MS), 1.0, 1e-9);
}

static void load_with_short_history(void **state)
{
    (void)state;
    va_cpumon_reading_t r[] = {{1000 * MS, 50 * MS}};
    /* only 300 ms of history: the oldest reading, since it is >= min */
    va_cpumon_reading_t now = {1300 * MS, 350 * MS};
    assert_float_equal(va_cpumon_load_of(r, 1, now, 1000 * MS, 200 * MS), 1.0, 1e-9);
    /* 100 ms of history: no verdict */
    now.mono = 1100 * MS;
    assert_float_equal(va_cpumon_load_of(r, 1, now, 1000 * MS, 200 * MS), -1, 1e-9);
    /* no readings at all */
    assert_float_equal(va_cpumon_load_of(r, 0, now, 1000 * MS, 200 * MS), -1, 1e-9);
}

static void load_can_exceed_one_core(void **state)
{
    (void)state;
    va_cpumon_reading_t r[] = {{0, 0}};
    va_cpumon_reading_t now = {1000 * MS, 1800 * MS};
    assert_float_equal(va_cpumon_load_of(r, 1, now, 1000 * MS, 200 * MS), 1.8, 1e-9);
}

static void idle_process_is_not_busy(void **state)
{
    (void)state;
    va_cpumon_t *m = va_cpumon_new(20 * MS);
    assert_non_null(m);
    assert_float_equal(va_cpumon_load(m, 1000 * MS, 200 * MS), -1, 1e-9);
    /* an idle stretch (the test does nothing on purpose) */
    vc_sleep_ns(300 * MS);
    double load = va_cpumon_load(m, 1000 * MS, 200 * MS);
    assert_true(load >= 0 && load < 0.5);
    va_cpumon_destroy(&m);
    assert_null(m);
    va_cpumon_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_uses_the_newest_reading_a_window_ago),
        cmocka_unit_test(load_with_short_history),
        cmocka_unit_test(load_can_exceed_one_core),
        cmocka_unit_test(idle_process_is_not_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
