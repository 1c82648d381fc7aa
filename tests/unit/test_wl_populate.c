/* Tests of the populate workload's pure parts: object names (aisloader's
 * random 32 letters, or a fixed-width index) and the plan that makes a
 * second run add only what is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "va_wl_populate.h"

static void random_names_are_prefix_and_32_letters(void **state)
{
    (void)state;
    char a[128], b[128], c[128];
    uint64_t r1 = 42, r2 = 42;
    assert_int_equal(va_wl_populate_name(a, sizeof a, "bench/1k/", 0, 0, &r1), VC_OK);
    assert_int_equal(strlen(a), strlen("bench/1k/") + 32);
    assert_memory_equal(a, "bench/1k/", 9);
    for (const char *p = a + 9; *p; p++)
        assert_true((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
    /* the same generator state gives the same name, the next one another */
    assert_int_equal(va_wl_populate_name(b, sizeof b, "bench/1k/", 0, 0, &r2), VC_OK);
    assert_string_equal(a, b);
    assert_int_equal(va_wl_populate_name(c, sizeof c, "bench/1k/", 0, 0, &r2), VC_OK);
    assert_string_not_equal(b, c);
    /* too small a buffer is refused, never cut */
    assert_int_equal(va_wl_populate_name(a, 9 + 32, "bench/1k/", 0, 0, &r1), VC_ERR_ARG);
}

static void sequential_names_sort_like_their_index(void **state)
{
    (void)state;
    char a[64], b[64];
    uint64_t rng = 1;
    assert_int_equal(va_wl_populate_name(a, sizeof a, "p/", 1, 0, &rng), VC_OK);
    assert_string_equal(a, "p/0000000000");
    assert_int_equal(va_wl_populate_name(a, sizeof a, "p/", 1, 9, &rng), VC_OK);
    assert_int_equal(va_wl_populate_name(b, sizeof b, "p/", 1, 10, &rng), VC_OK);
    assert_string_equal(b, "p/0000000010");
    assert_true(strcmp(a, b) < 0);
    assert_int_equal(va_wl_populate_name(a, sizeof a, "p/", 1, 9999999999, &rng), VC_OK);
    assert_int_equal(va_wl_populate_name(a, sizeof a, "p/", 1, 10000000000, &rng), VC_ERR_ARG);
    assert_int_equal(va_wl_populate_name(a, sizeof a, "p/", 1, -1, &rng), VC_ERR_ARG);
    assert_int_equal(va_wl_populate_name(a, 12, "p/", 1, 1, &rng), VC_ERR_ARG);
    assert_int_equal(rng, 1); /* sequential names use no randomness */
}

static void random_plan_counts_every_key(void **state)
{
    (void)state;
    va_wl_plan_t p;
    assert_int_equal(va_wl_plan_init(&p, 10, 0), VC_OK);
    for (int i = 0; i < 4; i++)
        va_wl_plan_see(&p, "x/", "x/anything");
    assert_int_equal(va_wl_plan_finish(&p), VC_OK);
    assert_int_equal(p.present, 4);
    assert_int_equal(p.to_add, 6);
    va_wl_plan_clear(&p);

    /* more than wanted: nothing to add, never a negative count */
    assert_int_equal(va_wl_plan_init(&p, 3, 0), VC_OK);
    for (int i = 0; i < 5; i++)
        va_wl_plan_see(&p, "x/", "x/k");
    assert_int_equal(va_wl_plan_finish(&p), VC_OK);
    assert_int_equal(p.to_add, 0);
    va_wl_plan_clear(&p);

    assert_int_equal(va_wl_plan_init(&p, 0, 0), VC_OK);
    assert_int_equal(va_wl_plan_finish(&p), VC_OK);
    assert_int_equal(p.to_add, 0);
    va_wl_plan_clear(&p);
}

static void sequential_plan_finds_the_gaps(void **state)
{
    (void)state;
    va_wl_plan_t p;
    char name[64];
    uint64_t rng = 0;
    assert_int_equal(va_wl_plan_init(&p, 20, 1), VC_OK);
    for (int i = 0; i < 20; i++) {
        if (i == 3 || i == 17 || i == 19)
            continue;
        va_wl_populate_name(name, sizeof name, "s/", 1, i, &rng);
        va_wl_plan_see(&p, "s/", name);
    }
    va_wl_plan_see(&p, "s/", "s/0000000005");   /* listed twice: counted once */
    va_wl_plan_see(&p, "s/", "s/0000000020");   /* beyond the count */
    va_wl_plan_see(&p, "s/", "s/000000001");    /* wrong width */
    va_wl_plan_see(&p, "s/", "s/00000000x1");   /* not digits */
    va_wl_plan_see(&p, "s/", "s/other-object"); /* someone else's */
    assert_int_equal(va_wl_plan_finish(&p), VC_OK);
    assert_int_equal(p.present, 17);
    assert_int_equal(p.others, 4);
    assert_int_equal(p.to_add, 3);
    for (int i = 0; i < 20; i++)
        assert_int_equal(va_wl_plan_has(&p, i), !(i == 3 || i == 17 || i == 19));
    assert_false(va_wl_plan_has(&p, 20));
    assert_false(va_wl_plan_has(&p, -1));
    va_wl_plan_clear(&p);
    assert_null(p.have);
}

static void sequential_plan_of_a_full_prefix_adds_nothing(void **state)
{
    (void)state;
    va_wl_plan_t p;
    char name[64];
    uint64_t rng = 0;
    assert_int_equal(va_wl_plan_init(&p, 1000, 1), VC_OK);
    for (int i = 999; i >= 0; i--) {
        va_wl_populate_name(name, sizeof name, "f/", 1, i, &rng);
        va_wl_plan_see(&p, "f/", name);
    }
    assert_int_equal(va_wl_plan_finish(&p), VC_OK);
    assert_int_equal(p.to_add, 0);
    assert_int_equal(p.present, 1000);
    va_wl_plan_clear(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_names_are_prefix_and_32_letters),
        cmocka_unit_test(sequential_names_sort_like_their_index),
        cmocka_unit_test(random_plan_counts_every_key),
        cmocka_unit_test(sequential_plan_finds_the_gaps),
        cmocka_unit_test(sequential_plan_of_a_full_prefix_adds_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
