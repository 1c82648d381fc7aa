/* Unit tests of va_ais_bck: AIS bucket URIs, query strings, path escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "va_ais_bck.h"

static void parses_providers(void **state)
{
    (void)state;
    static const struct {
        const char *uri, *provider, *name, *path;
    } ok[] = {
        {"s3://my-bucket/bench/1k/", "aws", "my-bucket", "bench/1k/"},
        {"aws://b", "aws", "b", ""},
        {"ais://local.b_1", "ais", "local.b_1", ""},
        {"gs://g/x/y/z", "gcp", "g", "x/y/z"},
        {"az://a/", "azure", "a", ""},
        {"oci://o/k", "oci", "o", "k"},
        {"s3://b/key with space", "aws", "b", "key with space"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        va_ais_bck_t b;
        char path[2048], err[256];
        assert_int_equal(va_ais_bck_parse(ok[i].uri, &b, path, sizeof path, err, sizeof err),
                         VC_OK);
        assert_string_equal(b.provider, ok[i].provider);
        assert_string_equal(b.name, ok[i].name);
        assert_string_equal(path, ok[i].path);
        assert_string_equal(b.ns, "");
    }
}

static void parses_namespace(void **state)
{
    (void)state;
    va_ais_bck_t b;
    char path[64], err[256], q[256];
    assert_int_equal(va_ais_bck_parse("ais://@uuid1#ns1/bck/obj", &b, path, sizeof path, err,
                                      sizeof err), VC_OK);
    assert_string_equal(b.ns, "@uuid1#ns1");
    assert_string_equal(b.name, "bck");
    assert_string_equal(path, "obj");
    assert_int_equal(va_ais_bck_query(&b, q, sizeof q), VC_OK);
    assert_string_equal(q, "provider=ais&namespace=%40uuid1%23ns1");
    assert_int_equal(va_ais_bck_parse("ais://#local/bck", &b, NULL, 0, err, sizeof err), VC_OK);
    assert_string_equal(b.ns, "#local");
    /* bad namespaces */
    assert_int_equal(va_ais_bck_parse("ais://@/bck", &b, NULL, 0, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(va_ais_bck_parse("ais://@u/bck", &b, NULL, 0, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "namespace"));
}

static void rejects_bad_uris(void **state)
{
    (void)state;
    static const char *bad[] = {
        "", "bucket", "http://b", "s3://", "s3:///key", "s3://bad/name$/x", "s3://a$b",
        "s3://./x", "s3://../x", "ftp://b", "s3://b/ctl\x01char",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        va_ais_bck_t b;
        char path[64], err[256] = "";
        vc_status_t rc = va_ais_bck_parse(bad[i], &b, path, sizeof path, err, sizeof err);
        if (strcmp(bad[i], "s3://bad/name$/x") == 0) {
            /* '$' in the key is fine: only the bucket name is restricted */
            assert_int_equal(rc, VC_OK);
            continue;
        }
        assert_int_equal(rc, VC_ERR_ARG);
        assert_true(strlen(err) > 10);
    }
    /* a path where only a bucket is expected */
    va_ais_bck_t b;
    char err[256];
    assert_int_equal(va_ais_bck_parse("s3://b/k", &b, NULL, 0, err, sizeof err), VC_ERR_ARG);
    /* no provider: the message says how to write it */
    va_ais_bck_parse("my-bucket", &b, NULL, 0, err, sizeof err);
    assert_non_null(strstr(err, "s3://"));
    /* too long a key */
    char longuri[1200] = "s3://b/";
    memset(longuri + 7, 'k', 1100);
    longuri[1107] = '\0';
    char path[2048];
    assert_int_equal(va_ais_bck_parse(longuri, &b, path, sizeof path, err, sizeof err),
                     VC_ERR_ARG);
}

static void formats_and_queries(void **state)
{
    (void)state;
    va_ais_bck_t b;
    char err[128], out[128], q[128];
    assert_int_equal(va_ais_bck_parse("s3://bk", &b, NULL, 0, err, sizeof err), VC_OK);
    va_ais_bck_format(&b, out, sizeof out);
    assert_string_equal(out, "s3://bk");
    assert_int_equal(va_ais_bck_query(&b, q, sizeof q), VC_OK);
    assert_string_equal(q, "provider=aws");
    assert_int_equal(va_ais_bck_parse("ais://bk", &b, NULL, 0, err, sizeof err), VC_OK);
    va_ais_bck_format(&b, out, sizeof out);
    assert_string_equal(out, "ais://bk");
    assert_int_equal(va_ais_bck_query(&b, q, 5), VC_ERR_ARG);
}

static void escapes_paths(void **state)
{
    (void)state;
    char out[128];
    assert_int_equal(va_ais_escape_path("bench/1k/AbC-_.~", out, sizeof out), VC_OK);
    assert_string_equal(out, "bench/1k/AbC-_.~");
    assert_int_equal(va_ais_escape_path("a b/c?d#e%f+\xc3\xa9", out, sizeof out), VC_OK);
    assert_string_equal(out, "a%20b/c%3Fd%23e%25f%2B%C3%A9");
    assert_int_equal(va_ais_escape_path("abc", out, 3), VC_ERR_ARG);
    assert_int_equal(va_ais_escape_path(" ", out, 3), VC_ERR_ARG);
    assert_int_equal(va_ais_escape_path(" ", out, 4), VC_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_providers),   cmocka_unit_test(parses_namespace),
        cmocka_unit_test(rejects_bad_uris),   cmocka_unit_test(formats_and_queries),
        cmocka_unit_test(escapes_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
