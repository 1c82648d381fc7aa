/* Tests of the ops workload's key naming: s3bench's keys, one namespace
 * per agent so agents never collide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "va_wl_ops.h"

static void keys_follow_s3bench(void **state)
{
    (void)state;
    char k[256];
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", "ec2-sg", 0), VC_OK);
    assert_string_equal(k, "s3bench/ec2-sg/s3bench-0");
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", "ec2-sg", 9), VC_OK);
    assert_string_equal(k, "s3bench/ec2-sg/s3bench-9");
    assert_int_equal(va_wl_ops_key(k, sizeof k, "", "a", 12), VC_OK);
    assert_string_equal(k, "a/s3bench-12");
}

static void agents_get_different_keys(void **state)
{
    (void)state;
    char a[256], b[256];
    assert_int_equal(va_wl_ops_key(a, sizeof a, "s3bench/", "home-fiber", 3), VC_OK);
    assert_int_equal(va_wl_ops_key(b, sizeof b, "s3bench/", "mobile", 3), VC_OK);
    assert_string_not_equal(a, b);
}

static void bad_names_are_refused(void **state)
{
    (void)state;
    char k[2048];
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", "", 0), VC_ERR_ARG);
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", NULL, 0), VC_ERR_ARG);
    /* a '/' in the name would let one agent write into another's namespace */
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", "a/b", 0), VC_ERR_ARG);
    assert_int_equal(va_wl_ops_key(k, sizeof k, "s3bench/", "a", -1), VC_ERR_ARG);
    assert_int_equal(va_wl_ops_key(k, 10, "s3bench/", "a", 0), VC_ERR_ARG);
    /* S3 keys are at most 1024 bytes */
    char prefix[1020];
    memset(prefix, 'p', sizeof prefix - 1);
    prefix[sizeof prefix - 1] = '\0';
    assert_int_equal(va_wl_ops_key(k, sizeof k, prefix, "a", 0), VC_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_follow_s3bench),
        cmocka_unit_test(agents_get_different_keys),
        cmocka_unit_test(bad_names_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
