/* Tests of vc_crc32c against published check values (RFC 3720 appendix B.4
 * for iSCSI, which uses CRC-32C). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vc_crc32c.h"

static void test_check_values(void **state)
{
    (void)state;
    assert_int_equal(vc_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(vc_crc32c(0, "", 0), 0u);
    unsigned char buf[32];
    memset(buf, 0, sizeof buf);
    assert_int_equal(vc_crc32c(0, buf, sizeof buf), 0x8A9136AAu); /* 32 bytes of zeros */
    memset(buf, 0xff, sizeof buf);
    assert_int_equal(vc_crc32c(0, buf, sizeof buf), 0x62A8AB43u); /* 32 bytes of ones */
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    assert_int_equal(vc_crc32c(0, buf, sizeof buf), 0x46DD794Eu); /* incrementing */
}

static void test_continuation(void **state)
{
    (void)state;
    const char *s = "the quick brown fox jumps over the lazy dog";
    size_t n = strlen(s);
    uint32_t whole = vc_crc32c(0, s, n);
    for (size_t cut = 0; cut <= n; cut++)
        assert_int_equal(vc_crc32c(vc_crc32c(0, s, cut), s + cut, n - cut), whole);
}

/* Lengths and alignments that exercise both the 8-byte steps and the tail,
 * against a plain bitwise CRC written from the definition. */
static uint32_t crc_bitwise(const unsigned char *p, size_t len)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1u ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

static void test_lengths_and_alignments(void **state)
{
    (void)state;
    unsigned char buf[300];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 131u + 7u);
    for (size_t start = 0; start < 9; start++)
        for (size_t len = 0; start + len <= sizeof buf; len += 1 + len / 7)
            assert_int_equal(vc_crc32c(0, buf + start, len), crc_bitwise(buf + start, len));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_continuation),
        cmocka_unit_test(test_lengths_and_alignments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
