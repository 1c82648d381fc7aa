/* va_sigv4 against AWS's published S3 SigV4 examples ("Signature Calculations
 * for the Authorization Header: Transferring Payload in a Single Chunk":
 * GET Object with Range, PUT Object, GET Bucket Lifecycle, Get Bucket with
 * max-keys and prefix; example keys, 20130524T000000Z, examplebucket), and
 * fixed-clock tests of the encoding rules S3 servers check strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "va_sigv4.h"

#define AK "AKIAIOSFODNN7EXAMPLE"
#define SK "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define HOST "examplebucket.s3.amazonaws.com"
#define EMPTY VA_SIGV4_EMPTY_SHA256
#define T_EXAMPLE ((time_t)1369353600) /* 2013-05-24T00:00:00Z */

static const va_sigv4_creds_t example_creds = {AK, SK, NULL, "us-east-1", "s3"};

static void hex32(const uint8_t *k, char *out)
{
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", k[i]);
}

/* Runs every step for one example and checks each against the documented value. */
static void check_example(const va_sigv4_req_t *req, const char *want_canon,
                          const char *want_canon_hash, const char *want_sig)
{
    char canon[4096], sts[512], want_sts[512], sig[65], hash[65];
    uint8_t key[32];
    assert_int_equal(va_sigv4_canonical_request(req, canon, sizeof canon), VC_OK);
    assert_string_equal(canon, want_canon);
    va_sigv4_sha256_hex(canon, strlen(canon), hash);
    assert_string_equal(hash, want_canon_hash);
    assert_int_equal(va_sigv4_string_to_sign("20130524T000000Z", "us-east-1", "s3", canon, sts,
                                             sizeof sts),
                     VC_OK);
    snprintf(want_sts, sizeof want_sts,
             "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n%s",
             want_canon_hash);
    assert_string_equal(sts, want_sts);
    assert_int_equal(va_sigv4_signing_key(SK, "20130524", "us-east-1", "s3", key), VC_OK);
    assert_int_equal(va_sigv4_signature(key, sts, sig), VC_OK);
    assert_string_equal(sig, want_sig);
}

static void test_signing_key(void **state)
{
    (void)state;
    uint8_t key[32];
    char hex[65];
    assert_int_equal(va_sigv4_signing_key(SK, "20130524", "us-east-1", "s3", key), VC_OK);
    hex32(key, hex);
    assert_string_equal(hex, "dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba8378");
    assert_int_equal(va_sigv4_signing_key(SK, "2013052", "us-east-1", "s3", key), VC_ERR_ARG);
}

static void test_get_object_range(void **state)
{
    (void)state;
    va_sigv4_kv_t h[] = {{"Host", HOST},
                         {"Range", "bytes=0-9"},
                         {"x-amz-content-sha256", EMPTY},
                         {"x-amz-date", "20130524T000000Z"}};
    va_sigv4_req_t req = {"GET", "/test.txt", NULL, 0, h, 4, EMPTY};
    check_example(&req,
                  "GET\n/test.txt\n\nhost:" HOST "\nrange:bytes=0-9\nx-amz-content-sha256:" EMPTY
                  "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" EMPTY,
                  "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972",
                  "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

static void test_put_object(void **state)
{
    (void)state;
    const char *body = "Welcome to Amazon S3.";
    char hash[65], uri[64];
    va_sigv4_sha256_hex(body, strlen(body), hash);
    assert_string_equal(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    uri[0] = '/';
    assert_int_equal(va_sigv4_uri_encode("test$file.text", 14, 1, uri + 1, sizeof uri - 1, NULL),
                     VC_OK);
    assert_string_equal(uri, "/test%24file.text");
    va_sigv4_kv_t h[] = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                         {"Host", HOST},
                         {"x-amz-date", "20130524T000000Z"},
                         {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                         {"x-amz-content-sha256", hash}};
    va_sigv4_req_t req = {"PUT", uri, NULL, 0, h, 5, hash};
    check_example(&req,
                  "PUT\n/test%24file.text\n\ndate:Fri, 24 May 2013 00:00:00 GMT\nhost:" HOST
                  "\nx-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
                  "\nx-amz-date:20130524T000000Z\nx-amz-storage-class:REDUCED_REDUNDANCY\n\n"
                  "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
                  "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
                  "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d",
                  "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

static void test_get_bucket_lifecycle(void **state)
{
    (void)state;
    va_sigv4_kv_t q[] = {{"lifecycle", ""}};
    va_sigv4_kv_t h[] = {{"Host", HOST},
                         {"x-amz-content-sha256", EMPTY},
                         {"x-amz-date", "20130524T000000Z"}};
    va_sigv4_req_t req = {"GET", "/", q, 1, h, 3, EMPTY};
    check_example(&req,
                  "GET\n/\nlifecycle=\nhost:" HOST "\nx-amz-content-sha256:" EMPTY
                  "\nx-amz-date:20130524T000000Z\n\nhost;x-amz-content-sha256;x-amz-date\n" EMPTY,
                  "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca",
                  "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

static void test_list_objects(void **state)
{
    (void)state;
    /* given out of order: the canonical query sorts */
    va_sigv4_kv_t q[] = {{"prefix", "J"}, {"max-keys", "2"}};
    va_sigv4_kv_t h[] = {{"Host", HOST},
                         {"x-amz-content-sha256", EMPTY},
                         {"x-amz-date", "20130524T000000Z"}};
    va_sigv4_req_t req = {"GET", "/", q, 2, h, 3, EMPTY};
    check_example(&req,
                  "GET\n/\nmax-keys=2&prefix=J\nhost:" HOST "\nx-amz-content-sha256:" EMPTY
                  "\nx-amz-date:20130524T000000Z\n\nhost;x-amz-content-sha256;x-amz-date\n" EMPTY,
                  "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7",
                  "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

/* The whole chain through va_sigv4_sign with the injected clock gives AWS's header. */
static void test_sign_get_object(void **state)
{
    (void)state;
    va_sigv4_kv_t h[] = {{"host", HOST}, {"range", "bytes=0-9"}};
    va_sigv4_req_t req = {"GET", "/test.txt", NULL, 0, h, 2, EMPTY};
    va_sigv4_out_t out;
    assert_int_equal(va_sigv4_sign(&example_creds, &req, T_EXAMPLE, &out, NULL), VC_OK);
    assert_string_equal(out.amz_date, "x-amz-date: 20130524T000000Z");
    assert_string_equal(out.content_sha256, "x-amz-content-sha256: " EMPTY);
    assert_string_equal(out.security_token, "");
    assert_string_equal(out.authorization,
                        "Authorization: AWS4-HMAC-SHA256 Credential=" AK
                        "/20130524/us-east-1/s3/aws4_request, "
                        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

static void test_authorization_format(void **state)
{
    (void)state;
    char out[512];
    assert_int_equal(va_sigv4_authorization(AK, "20130524", "us-east-1", "s3", "host;x-amz-date",
                                            "abc", out, sizeof out),
                     VC_OK);
    assert_string_equal(out, "AWS4-HMAC-SHA256 Credential=" AK
                             "/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, "
                             "Signature=abc");
    assert_int_equal(va_sigv4_authorization(AK, "20130524", "us-east-1", "s3", "host", "abc", out,
                                            20),
                     VC_ERR_ARG);
}

static void test_uri_encode_path_and_query(void **state)
{
    (void)state;
    char out[256];
    size_t n = 0;
    const char *key = "dir one/a+b=c&d~e_f.g-h/\xc3\xa9\xe2\x82\xac.txt";
    assert_int_equal(va_sigv4_uri_encode(key, strlen(key), 1, out, sizeof out, &n), VC_OK);
    assert_string_equal(out, "dir%20one/a%2Bb%3Dc%26d~e_f.g-h/%C3%A9%E2%82%AC.txt");
    assert_int_equal(n, strlen(out));
    /* in a query value, '/' is encoded too */
    assert_int_equal(va_sigv4_uri_encode("bench/1000/", 11, 0, out, sizeof out, NULL), VC_OK);
    assert_string_equal(out, "bench%2F1000%2F");
    /* reserved and control bytes, NUL-free but arbitrary */
    assert_int_equal(va_sigv4_uri_encode("%*!'()\x01\x7f", 8, 0, out, sizeof out, NULL), VC_OK);
    assert_string_equal(out, "%25%2A%21%27%28%29%01%7F");
    assert_int_equal(va_sigv4_uri_encode("", 0, 0, out, sizeof out, &n), VC_OK);
    assert_string_equal(out, "");
    assert_int_equal(n, 0);
}

static void test_uri_encode_overflow(void **state)
{
    (void)state;
    char out[8];
    memset(out, 'x', sizeof out);
    assert_int_equal(va_sigv4_uri_encode("abcdefgh", 8, 0, out, sizeof out, NULL), VC_ERR_ARG);
    assert_int_equal(va_sigv4_uri_encode("ab ", 3, 0, out, 5, NULL), VC_ERR_ARG); /* needs 6 */
    assert_int_equal(va_sigv4_uri_encode("ab ", 3, 0, out, 6, NULL), VC_OK);
    assert_string_equal(out, "ab%20");
}

static void test_canonical_query_listing(void **state)
{
    (void)state;
    char out[1024];
    /* a continuation token carries + / = and must be encoded; prefix with '/' too */
    va_sigv4_kv_t q[] = {{"prefix", "bench/1000/"},
                         {"list-type", "2"},
                         {"continuation-token", "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4+bOwM="},
                         {"max-keys", "1000"},
                         {"delimiter", "/"},
                         {"start-after", "a b"}};
    assert_int_equal(va_sigv4_canonical_query(q, 6, out, sizeof out), VC_OK);
    assert_string_equal(out, "continuation-token=1ueGcxLPRx1Tr%2FXYExHnhbYLgveDs2J%2Fwm36Hy4%2BbOwM%3D"
                             "&delimiter=%2F&list-type=2&max-keys=1000&prefix=bench%2F1000%2F"
                             "&start-after=a%20b");
    assert_int_equal(va_sigv4_canonical_query(NULL, 0, out, sizeof out), VC_OK);
    assert_string_equal(out, "");
    /* same name: sorted by value */
    va_sigv4_kv_t dup[] = {{"a", "2"}, {"a", "1"}};
    assert_int_equal(va_sigv4_canonical_query(dup, 2, out, sizeof out), VC_OK);
    assert_string_equal(out, "a=1&a=2");
    assert_int_equal(va_sigv4_canonical_query(q, 6, out, 40), VC_ERR_ARG);
    va_sigv4_kv_t noname[] = {{"", "x"}};
    assert_int_equal(va_sigv4_canonical_query(noname, 1, out, sizeof out), VC_ERR_ARG);
}

static void test_canonical_headers(void **state)
{
    (void)state;
    char canon[512], sig[128];
    va_sigv4_kv_t h[] = {{"X-Amz-Meta-Note", "  two   words\there  "}, {"HOST", "h:1"}};
    assert_int_equal(va_sigv4_canonical_headers(h, 2, canon, sizeof canon, sig, sizeof sig), VC_OK);
    assert_string_equal(canon, "host:h:1\nx-amz-meta-note:two words here\n");
    assert_string_equal(sig, "host;x-amz-meta-note");
    va_sigv4_kv_t twice[] = {{"Host", "a"}, {"host", "b"}};
    assert_int_equal(va_sigv4_canonical_headers(twice, 2, canon, sizeof canon, sig, sizeof sig),
                     VC_ERR_ARG);
    va_sigv4_kv_t inject[] = {{"host", "a\r\nx-evil: 1"}};
    assert_int_equal(va_sigv4_canonical_headers(inject, 1, canon, sizeof canon, sig, sizeof sig),
                     VC_ERR_ARG);
    assert_int_equal(va_sigv4_canonical_headers(h, 2, canon, 10, sig, sizeof sig), VC_ERR_ARG);
}

static void test_amz_date(void **state)
{
    (void)state;
    char amz[17], d[9];
    assert_int_equal(va_sigv4_amz_date(T_EXAMPLE, amz, d), VC_OK);
    assert_string_equal(amz, "20130524T000000Z");
    assert_string_equal(d, "20130524");
    assert_int_equal(va_sigv4_amz_date((time_t)1700000000 + 59, amz, d), VC_OK);
    assert_string_equal(amz, "20231114T221419Z");
    assert_string_equal(d, "20231114");
}

static void test_unsigned_payload_and_token(void **state)
{
    (void)state;
    va_sigv4_creds_t c = example_creds;
    c.session_token = "FQoGZXIvYXdzE+token/with=chars";
    va_sigv4_kv_t h[] = {{"host", "127.0.0.1:7480"}};
    va_sigv4_req_t req = {"PUT", "/b/k", NULL, 0, h, 1, VA_SIGV4_UNSIGNED_PAYLOAD};
    va_sigv4_out_t out;
    assert_int_equal(va_sigv4_sign(&c, &req, T_EXAMPLE, &out, NULL), VC_OK);
    assert_string_equal(out.content_sha256, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    assert_string_equal(out.security_token, "x-amz-security-token: FQoGZXIvYXdzE+token/with=chars");
    assert_non_null(strstr(out.authorization,
                           "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, "));
    /* the signature is the one of the canonical request with those headers */
    va_sigv4_kv_t full[] = {{"host", "127.0.0.1:7480"},
                            {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"},
                            {"x-amz-date", "20130524T000000Z"},
                            {"x-amz-security-token", c.session_token}};
    va_sigv4_req_t r2 = {"PUT", "/b/k", NULL, 0, full, 4, VA_SIGV4_UNSIGNED_PAYLOAD};
    char canon[2048], sts[512], sig[65];
    uint8_t key[32];
    assert_int_equal(va_sigv4_canonical_request(&r2, canon, sizeof canon), VC_OK);
    assert_non_null(strstr(canon, "\nUNSIGNED-PAYLOAD"));
    va_sigv4_string_to_sign("20130524T000000Z", "us-east-1", "s3", canon, sts, sizeof sts);
    va_sigv4_signing_key(SK, "20130524", "us-east-1", "s3", key);
    va_sigv4_signature(key, sts, sig);
    assert_non_null(strstr(out.authorization, sig));
    /* the secret never appears in what is sent */
    assert_null(strstr(out.authorization, SK));
}

/* A cache (signing key, keyed HMAC, date) is reused on the same day and
 * replaced on the next, and a signature made through it is the one made
 * afresh, for the same request again and for a different one. */
static void test_key_cache(void **state)
{
    (void)state;
    va_sigv4_kv_t h[] = {{"host", HOST}, {"range", "bytes=0-9"}};
    va_sigv4_req_t req = {"GET", "/test.txt", NULL, 0, h, 2, EMPTY};
    va_sigv4_cache_t cache = {0};
    va_sigv4_out_t a, b, c;
    assert_int_equal(va_sigv4_sign(&example_creds, &req, T_EXAMPLE, &a, &cache), VC_OK);
    assert_string_equal(cache.date, "20130524");
    assert_non_null(cache.mac);
    assert_int_equal(va_sigv4_sign(&example_creds, &req, T_EXAMPLE, &b, &cache), VC_OK);
    assert_string_equal(a.authorization, b.authorization);
    assert_non_null(strstr(a.authorization, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd910"));
    /* another request through the same keyed HMAC */
    va_sigv4_req_t other = {"GET", "/other", NULL, 0, h, 2, EMPTY};
    assert_int_equal(va_sigv4_sign(&example_creds, &other, T_EXAMPLE + 5, &b, &cache), VC_OK);
    assert_int_equal(va_sigv4_sign(&example_creds, &other, T_EXAMPLE + 5, &c, NULL), VC_OK);
    assert_string_equal(b.authorization, c.authorization);
    assert_string_equal(b.amz_date, c.amz_date);
    assert_string_not_equal(a.authorization, b.authorization);
    time_t next_day = T_EXAMPLE + 86400;
    assert_int_equal(va_sigv4_sign(&example_creds, &req, next_day, &b, &cache), VC_OK);
    assert_string_equal(cache.date, "20130525");
    assert_int_equal(va_sigv4_sign(&example_creds, &req, next_day, &c, NULL), VC_OK);
    assert_string_equal(b.authorization, c.authorization);
    assert_string_not_equal(a.authorization, b.authorization);
    va_sigv4_cache_clear(&cache);
    assert_null(cache.mac);
    assert_string_equal(cache.date, "");
}

static void test_bad_arguments(void **state)
{
    (void)state;
    va_sigv4_out_t out;
    va_sigv4_kv_t h[] = {{"host", HOST}};
    va_sigv4_req_t req = {"GET", "/", NULL, 0, h, 1, EMPTY};
    va_sigv4_creds_t c = example_creds;
    c.access_key = NULL;
    assert_int_equal(va_sigv4_sign(&c, &req, T_EXAMPLE, &out, NULL), VC_ERR_ARG);
    req.payload_hash = NULL;
    assert_int_equal(va_sigv4_sign(&example_creds, &req, T_EXAMPLE, &out, NULL), VC_ERR_ARG);
    char sts[16];
    assert_int_equal(va_sigv4_string_to_sign("2013", "us-east-1", "s3", "x", sts, sizeof sts),
                     VC_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signing_key),
        cmocka_unit_test(test_get_object_range),
        cmocka_unit_test(test_put_object),
        cmocka_unit_test(test_get_bucket_lifecycle),
        cmocka_unit_test(test_list_objects),
        cmocka_unit_test(test_sign_get_object),
        cmocka_unit_test(test_authorization_format),
        cmocka_unit_test(test_uri_encode_path_and_query),
        cmocka_unit_test(test_uri_encode_overflow),
        cmocka_unit_test(test_canonical_query_listing),
        cmocka_unit_test(test_canonical_headers),
        cmocka_unit_test(test_amz_date),
        cmocka_unit_test(test_unsigned_payload_and_token),
        cmocka_unit_test(test_key_cache),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
