/* Unit tests of vc_parse: every unit, the edges of each range, overflow,
 * junk, and formatters that the parsers read back exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vc_parse.h"

typedef struct {
    const char *text;
    int64_t want;
} ok_case_t;

typedef struct {
    const char *text;
    const char *fragment; /* must appear in the error message */
} bad_case_t;

typedef vc_status_t (*parse_fn)(const char *, int64_t *, char *, size_t);

static void run_ok(parse_fn fn, const ok_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t v = -12345;
        char err[256] = "";
        vc_status_t rc = fn(cases[i].text, &v, err, sizeof err);
        if (rc != VC_OK || v != cases[i].want)
            fail_msg("\"%s\": rc %d value %lld want %lld (%s)", cases[i].text, rc, (long long)v,
                     (long long)cases[i].want, err);
    }
}

static void run_bad(parse_fn fn, const bad_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t v = 777;
        char err[256] = "";
        vc_status_t rc = fn(cases[i].text, &v, err, sizeof err);
        if (rc != VC_ERR_ARG)
            fail_msg("\"%s\" was accepted as %lld", cases[i].text, (long long)v);
        assert_int_equal(v, 777); /* untouched on failure */
        if (!strstr(err, cases[i].fragment))
            fail_msg("\"%s\": message \"%s\" lacks \"%s\"", cases[i].text, err,
                     cases[i].fragment);
    }
}

static void test_size(void **state)
{
    (void)state;
    static const ok_case_t ok[] = {
        {"0", 0},
        {"1", 1},
        {"1B", 1},
        {"1b", 1},
        {"1KiB", 1024},
        {"1kib", 1024},
        {"1K", 1024},
        {"10k", 10240},
        {"1KB", 1000},
        {"5MiB", 5242880},
        {"5MB", 5000000},
        {"5 MiB", 5242880},
        {"1.5KiB", 1536},
        {"0.5KiB", 512},
        {"2GiB", 2147483648LL},
        {"1TiB", 1099511627776LL},
        {"1TB", 1000000000000LL},
        {"8388607TiB", 8388607LL * 1099511627776LL},
        {"9223372036854775807", INT64_MAX},
    };
    static const bad_case_t bad[] = {
        {"", "empty"},
        {"-1", "negative"},
        {"-1KiB", "negative"},
        {"5XB", "unknown unit \"XB\""},
        {"5 MiBs", "unknown unit"},
        {"MiB", "expected a number"},
        {" 5", "expected a number"},
        {"5.", "expected a number"},
        {".5K", "expected a number"},
        {"1.2.3", "unknown unit"},
        {"0.5B", "whole number of bytes"},
        {"1.0001KiB", "whole number"},
        {"8388608TiB", "too large"},
        {"9223372036854775808", "too large"},
        {"99999999999999999999999", "too large"},
        {"0x10", "unknown unit"},
        {"1e3", "unknown unit"},
    };
    run_ok(vc_parse_size, ok, sizeof ok / sizeof ok[0]);
    run_bad(vc_parse_size, bad, sizeof bad / sizeof bad[0]);
}

static void test_duration(void **state)
{
    (void)state;
    static const ok_case_t ok[] = {
        {"0", 0},
        {"0s", 0},
        {"1ns", 1},
        {"500us", 500000},
        {"500\xc2\xb5s", 500000},
        {"200ms", 200000000},
        {"200MS", 200000000},
        {"10s", 10000000000LL},
        {"1.5s", 1500000000},
        {"2m", 120000000000LL},
        {"2min", 120000000000LL},
        {"1h", 3600000000000LL},
        {"0.001ms", 1000},
        {"2562047h", 2562047LL * 3600000000000LL},
    };
    static const bad_case_t bad[] = {
        {"", "empty"},
        {"10", "a unit is required"},
        {"-1s", "negative"},
        {"1d", "unknown unit \"d\""},
        {"1.5ns", "whole number of nanoseconds"},
        {"2562048h", "too large"},
        {"s", "expected a number"},
        {"10 s x", "unknown unit"},
    };
    run_ok(vc_parse_duration_ns, ok, sizeof ok / sizeof ok[0]);
    run_bad(vc_parse_duration_ns, bad, sizeof bad / sizeof bad[0]);

    static const ok_case_t ok_ms[] = {{"200ms", 200}, {"1.5s", 1500}, {"10m", 600000}, {"0", 0}};
    static const bad_case_t bad_ms[] = {{"1.5ms", "whole number of milliseconds"},
                                        {"500us", "whole number of milliseconds"},
                                        {"100", "a unit is required"}};
    run_ok(vc_parse_duration_ms, ok_ms, sizeof ok_ms / sizeof ok_ms[0]);
    run_bad(vc_parse_duration_ms, bad_ms, sizeof bad_ms / sizeof bad_ms[0]);
}

static void test_count(void **state)
{
    (void)state;
    static const ok_case_t ok[] = {
        {"0", 0},          {"1", 1},       {"1K", 1000},        {"1k", 1000},
        {"80K", 80000},    {"2.5K", 2500}, {"1M", 1000000},     {"3G", 3000000000LL},
        {"100", 100},      {"1.5M", 1500000},
    };
    static const bad_case_t bad[] = {
        {"1KiB", "unknown unit"}, {"1.5", "whole number"}, {"1.0005K", "whole number"},
        {"-3", "negative"},       {"K", "expected a number"}, {"9999999999G", "too large"},
        {"1T", "unknown unit"},
    };
    run_ok(vc_parse_count, ok, sizeof ok / sizeof ok[0]);
    run_bad(vc_parse_count, bad, sizeof bad / sizeof bad[0]);
}

static void test_percent(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double want;
    } ok[] = {{"95%", 0.95}, {"0.95", 0.95}, {"100%", 1.0}, {"0%", 0.0}, {"99.9%", 0.999},
              {"1", 1.0},    {"0", 0.0},     {"0.5 %", 0.005}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = -1;
        char err[128];
        if (vc_parse_percent(ok[i].text, &v, err, sizeof err) != VC_OK)
            fail_msg("\"%s\" rejected: %s", ok[i].text, err);
        assert_true(v > ok[i].want - 1e-12 && v < ok[i].want + 1e-12);
    }
    static const bad_case_t bad[] = {{"95", "above 100%"},   {"101%", "above 100%"},
                                     {"-5%", "negative"},    {"95%%", "write e.g."},
                                     {"abc", "write e.g."},  {"", "empty"},
                                     {"0.95x", "write e.g."}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 7;
        char err[256] = "";
        assert_int_equal(vc_parse_percent(bad[i].text, &v, err, sizeof err), VC_ERR_ARG);
        assert_true(v == 7);
        if (!strstr(err, bad[i].fragment))
            fail_msg("\"%s\": message \"%s\" lacks \"%s\"", bad[i].text, err, bad[i].fragment);
    }
}

static void test_bool(void **state)
{
    (void)state;
    const char *yes[] = {"true", "TRUE", "yes", "on", "1", "On"};
    const char *no[] = {"false", "no", "OFF", "0"};
    const char *bad[] = {"", "2", "truth", "y", "enabled"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        int b = 0;
        assert_int_equal(vc_parse_bool(yes[i], &b, NULL, 0), VC_OK);
        assert_int_equal(b, 1);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        int b = 1;
        assert_int_equal(vc_parse_bool(no[i], &b, NULL, 0), VC_OK);
        assert_int_equal(b, 0);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int b = 5;
        char err[128];
        assert_int_equal(vc_parse_bool(bad[i], &b, err, sizeof err), VC_ERR_ARG);
        assert_int_equal(b, 5);
        assert_non_null(strstr(err, "invalid boolean"));
    }
    int b = 5;
    assert_int_equal(vc_parse_bool(NULL, &b, NULL, 0), VC_ERR_ARG);
}

static void test_int(void **state)
{
    (void)state;
    int64_t v = 0;
    char err[128];
    assert_int_equal(vc_parse_int("42", 0, 100, &v, err, sizeof err), VC_OK);
    assert_int_equal(v, 42);
    assert_int_equal(vc_parse_int("-7", -10, 10, &v, err, sizeof err), VC_OK);
    assert_int_equal(v, -7);
    assert_int_equal(vc_parse_int("9223372036854775807", 0, INT64_MAX, &v, err, sizeof err),
                     VC_OK);
    assert_true(v == INT64_MAX);
    v = 3;
    assert_int_equal(vc_parse_int("101", 0, 100, &v, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "out of range [0, 100]"));
    assert_int_equal(vc_parse_int("9223372036854775808", 0, INT64_MAX, &v, err, sizeof err),
                     VC_ERR_ARG);
    assert_int_equal(vc_parse_int("12abc", 0, 100, &v, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "\"12abc\""));
    assert_int_equal(vc_parse_int("", 0, 100, &v, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(vc_parse_int(" 1", 0, 100, &v, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(vc_parse_int("-", 0, 100, &v, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(v, 3);
}

static void test_url(void **state)
{
    (void)state;
    const char *good[] = {"http://127.0.0.1:7480", "https://s3.amazonaws.com",
                          "http://localhost:51080/", "http://[::1]:8080", "https://h/path?q"};
    const char *bad[] = {"127.0.0.1:7480", "ftp://x", "http://", "http:///x", "http://:80",
                         "http://h:0", "http://h:65536", "http://h:8o", "http://h x",
                         "http://[::1", "http://h:"};
    char err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (vc_parse_http_url(good[i], err, sizeof err) != VC_OK)
            fail_msg("%s rejected: %s", good[i], err);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (vc_parse_http_url(bad[i], err, sizeof err) == VC_OK)
            fail_msg("%s accepted", bad[i]);
    /* User information is refused without repeating it (it may be a secret). */
    assert_int_equal(vc_parse_http_url("http://AKIA:hunter2@host:80", err, sizeof err), VC_ERR_ARG);
    assert_null(strstr(err, "hunter2"));
    assert_non_null(strstr(err, "user information"));
}

static void test_format_round_trip(void **state)
{
    (void)state;
    char buf[VC_FMT_MAX];
    assert_string_equal(vc_format_size(1, buf, sizeof buf), "1B");
    assert_string_equal(vc_format_size(1536, buf, sizeof buf), "1536B");
    assert_string_equal(vc_format_size(5 << 20, buf, sizeof buf), "5MiB");
    assert_string_equal(vc_format_size(0, buf, sizeof buf), "0B");
    assert_string_equal(vc_format_duration_ns(200000000, buf, sizeof buf), "200ms");
    assert_string_equal(vc_format_duration_ns(90000000000LL, buf, sizeof buf), "90s");
    assert_string_equal(vc_format_duration_ns(120000000000LL, buf, sizeof buf), "2m");
    assert_string_equal(vc_format_duration_ns(0, buf, sizeof buf), "0s");
    assert_string_equal(vc_format_count(80000, buf, sizeof buf), "80K");
    assert_string_equal(vc_format_count(1500, buf, sizeof buf), "1500");
    assert_string_equal(vc_format_count(2000000, buf, sizeof buf), "2M");
    assert_string_equal(vc_format_count(100, buf, sizeof buf), "100");

    /* Whatever the formatter writes, the parser reads back to the same value. */
    static const int64_t values[] = {0, 1, 7, 999, 1000, 1023, 1024, 1025, 4096, 1000000,
                                     5242880, 1LL << 40, 3LL << 41, 123456789012LL, INT64_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        int64_t v = values[i], back;
        assert_int_equal(vc_parse_size(vc_format_size(v, buf, sizeof buf), &back, NULL, 0), VC_OK);
        assert_true(back == v);
        assert_int_equal(vc_parse_count(vc_format_count(v, buf, sizeof buf), &back, NULL, 0),
                         VC_OK);
        assert_true(back == v);
        assert_int_equal(
            vc_parse_duration_ns(vc_format_duration_ns(v, buf, sizeof buf), &back, NULL, 0),
            VC_OK);
        assert_true(back == v);
    }
}

static void test_err_null_and_clip(void **state)
{
    (void)state;
    int64_t v;
    /* No message buffer: still a clean failure. */
    assert_int_equal(vc_parse_size("junk", &v, NULL, 0), VC_ERR_ARG);
    assert_int_equal(vc_parse_size(NULL, &v, NULL, 0), VC_ERR_ARG);
    /* A huge bad value is clipped in the message, which still fits. */
    char big[5000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[0] = '1';
    char err[200];
    assert_int_equal(vc_parse_size(big, &v, err, sizeof err), VC_ERR_ARG);
    assert_true(strlen(err) < sizeof err);
    /* A tiny buffer truncates rather than overflows. */
    char tiny[4] = "xxx";
    assert_int_equal(vc_parse_duration_ns("5y", &v, tiny, sizeof tiny), VC_ERR_ARG);
    assert_int_equal(strlen(tiny), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size),     cmocka_unit_test(test_duration),
        cmocka_unit_test(test_count),    cmocka_unit_test(test_percent),
        cmocka_unit_test(test_bool),     cmocka_unit_test(test_int),
        cmocka_unit_test(test_url),      cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_err_null_and_clip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
