/* va_s3xml on valid pages (shaped like RGW's and AWS's replies), fed whole
 * and byte by byte, and on truncated, malformed, hostile and garbage input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "va_s3xml.h"

/* As RGW 16 answers a ListObjectsV2 page (one line, <Type> extension). */
static const char RGW_PAGE[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult "
    "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>vantage-test</Name><Prefix>t/</Prefix>"
    "<MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated>"
    "<Contents><Key>t/a b+c</Key><LastModified>2026-11-30T07:40:11.692Z</LastModified>"
    "<ETag>&quot;9dd4e461268c8034f5c8564e155c67a6&quot;</ETag><Size>1</Size>"
    "<StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>"
    "<Contents><Key>t/\xc3\xa9t\xc3\xa9 &amp; &lt;x&gt;</Key><LastModified>2026-11-30T07:40:12.000Z</LastModified>"
    "<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>0</Size>"
    "<StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>"
    "<Contents><Key>t/z</Key><LastModified>2026-11-30T07:40:13.000Z</LastModified>"
    "<ETag>&quot;x&quot;</ETag><Size>5242880</Size></Contents>"
    "<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4+bOwM=</NextContinuationToken>"
    "<KeyCount>3</KeyCount></ListBucketResult>";

/* AWS-style, pretty-printed, with a delimiter: prefixes and no NextContinuationToken. */
static const char AWS_PAGE[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n"
    "  <Name>b</Name>\n  <Prefix></Prefix>\n  <KeyCount>3</KeyCount>\n  <MaxKeys>1000</MaxKeys>\n"
    "  <Delimiter>/</Delimiter>\n  <IsTruncated>false</IsTruncated>\n"
    "  <Contents>\n    <Key>top.txt</Key>\n    <Size>12</Size>\n  </Contents>\n"
    "  <CommonPrefixes>\n    <Prefix>bench/</Prefix>\n  </CommonPrefixes>\n"
    "  <CommonPrefixes>\n    <Prefix>t-s3/</Prefix>\n  </CommonPrefixes>\n"
    "</ListBucketResult>\n";

typedef struct {
    int n;
    char keys[8][128];
    int64_t sizes[8];
    char etags[8][64];
    int np;
    char prefixes[8][64];
    int stop_after; /* 0: never */
} collect_t;

static int on_obj(void *ud, const va_s3xml_object_t *o)
{
    collect_t *c = ud;
    if (c->n < 8) {
        snprintf(c->keys[c->n], sizeof c->keys[0], "%s", o->key);
        c->sizes[c->n] = o->size;
        snprintf(c->etags[c->n], sizeof c->etags[0], "%s", o->etag);
        assert_int_equal(strlen(o->key), o->key_len);
    }
    c->n++;
    return c->stop_after && c->n >= c->stop_after;
}

static int on_prefix(void *ud, const char *p, size_t len)
{
    collect_t *c = ud;
    assert_int_equal(strlen(p), len);
    if (c->np < 8)
        snprintf(c->prefixes[c->np], sizeof c->prefixes[0], "%s", p);
    c->np++;
    return 0;
}

/* Parses doc in pieces of `chunk` bytes (0: whole). */
static vc_status_t parse(va_s3xml_list_t *p, const char *doc, size_t len, size_t chunk,
                         collect_t *c, va_s3xml_page_t *page)
{
    memset(c, 0, sizeof *c);
    va_s3xml_list_begin(p, on_obj, on_prefix, c);
    vc_status_t rc = VC_OK;
    size_t step = chunk ? chunk : len;
    for (size_t off = 0; off < len && !rc; off += step)
        rc = va_s3xml_list_feed(p, doc + off, off + step > len ? len - off : step);
    vc_status_t rc2 = va_s3xml_list_end(p, page);
    return rc ? rc : rc2;
}

static void check_rgw_page(const collect_t *c, const va_s3xml_page_t *page)
{
    assert_int_equal(c->n, 3);
    assert_string_equal(c->keys[0], "t/a b+c");
    assert_string_equal(c->keys[1], "t/\xc3\xa9t\xc3\xa9 & <x>");
    assert_string_equal(c->keys[2], "t/z");
    assert_int_equal(c->sizes[0], 1);
    assert_int_equal(c->sizes[1], 0);
    assert_int_equal(c->sizes[2], 5242880);
    assert_string_equal(c->etags[0], "\"9dd4e461268c8034f5c8564e155c67a6\"");
    assert_int_equal(page->is_truncated, 1);
    assert_string_equal(page->next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4+bOwM=");
    assert_int_equal(page->key_count, 3);
    assert_int_equal(page->max_keys, 3);
    assert_int_equal(page->objects, 3);
    assert_int_equal(page->prefixes, 0);
}

static void test_rgw_page_whole_and_bytewise(void **state)
{
    (void)state;
    va_s3xml_list_t *p = va_s3xml_list_new();
    assert_non_null(p);
    collect_t c;
    va_s3xml_page_t page;
    assert_int_equal(parse(p, RGW_PAGE, strlen(RGW_PAGE), 0, &c, &page), VC_OK);
    check_rgw_page(&c, &page);
    assert_string_equal(va_s3xml_list_error(p), "");
    /* one byte at a time: a piece boundary can fall anywhere, inside a UTF-8 char too */
    assert_int_equal(parse(p, RGW_PAGE, strlen(RGW_PAGE), 1, &c, &page), VC_OK);
    check_rgw_page(&c, &page);
    assert_int_equal(parse(p, RGW_PAGE, strlen(RGW_PAGE), 7, &c, &page), VC_OK);
    check_rgw_page(&c, &page);
    va_s3xml_list_destroy(&p);
    assert_null(p);
    va_s3xml_list_destroy(&p); /* NULL is fine */
}

static void test_prefixes_and_last_page(void **state)
{
    (void)state;
    va_s3xml_list_t *p = va_s3xml_list_new();
    collect_t c;
    va_s3xml_page_t page;
    assert_int_equal(parse(p, AWS_PAGE, strlen(AWS_PAGE), 0, &c, &page), VC_OK);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.keys[0], "top.txt");
    assert_int_equal(c.sizes[0], 12);
    assert_string_equal(c.etags[0], "");
    assert_int_equal(c.np, 2);
    assert_string_equal(c.prefixes[0], "bench/");
    assert_string_equal(c.prefixes[1], "t-s3/");
    assert_int_equal(page.is_truncated, 0);
    assert_string_equal(page.next_token, "");
    assert_int_equal(page.objects, 1);
    assert_int_equal(page.prefixes, 2);
    /* the same parser, next page: nothing carried over */
    assert_int_equal(parse(p, RGW_PAGE, strlen(RGW_PAGE), 0, &c, &page), VC_OK);
    check_rgw_page(&c, &page);
    va_s3xml_list_destroy(&p);
}

static void test_namespace_prefix_and_empty_page(void **state)
{
    (void)state;
    const char *doc = "<s3:ListBucketResult xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                      "<s3:IsTruncated>false</s3:IsTruncated><s3:KeyCount>0</s3:KeyCount>"
                      "</s3:ListBucketResult>";
    va_s3xml_list_t *p = va_s3xml_list_new();
    collect_t c;
    va_s3xml_page_t page;
    assert_int_equal(parse(p, doc, strlen(doc), 0, &c, &page), VC_OK);
    assert_int_equal(c.n, 0);
    assert_int_equal(page.key_count, 0);
    assert_int_equal(page.is_truncated, 0);
    va_s3xml_list_destroy(&p);
}

/* Every proper prefix of a valid page is an error, never a crash or a short success. */
static void test_truncated_everywhere(void **state)
{
    (void)state;
    va_s3xml_list_t *p = va_s3xml_list_new();
    collect_t c;
    va_s3xml_page_t page;
    size_t len = strlen(RGW_PAGE);
    for (size_t cut = 0; cut < len; cut++) {
        vc_status_t rc = parse(p, RGW_PAGE, cut, 0, &c, &page);
        if (rc != VC_ERR_PROTO)
            fail_msg("cut at %zu of %zu parsed as %d", cut, len, rc);
        assert_true(strlen(va_s3xml_list_error(p)) > 0);
    }
    assert_int_equal(parse(p, RGW_PAGE, 100, 0, &c, &page), VC_ERR_PROTO);
    assert_non_null(strstr(va_s3xml_list_error(p), "ends too early"));
    va_s3xml_list_destroy(&p);
}

static void expect_proto(const char *doc, size_t len, const char *want_in_error)
{
    va_s3xml_list_t *p = va_s3xml_list_new();
    collect_t c;
    va_s3xml_page_t page;
    assert_int_equal(parse(p, doc, len, 0, &c, &page), VC_ERR_PROTO);
    const char *err = va_s3xml_list_error(p);
    if (!strstr(err, want_in_error))
        fail_msg("error '%s' does not mention '%s'", err, want_in_error);
    /* the error sticks */
    assert_int_equal(va_s3xml_list_feed(p, "<x/>", 4), VC_ERR_PROTO);
    va_s3xml_list_destroy(&p);
}

static void test_garbage(void **state)
{
    (void)state;
    expect_proto("", 0, "ends too early");
    expect_proto("{\"Contents\": []}", 16, "malformed XML");
    expect_proto("<html><body>502 Bad Gateway</body></html>", 41, "unexpected root element <html>");
    expect_proto("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResul>", 68,
                 "malformed XML");
    expect_proto("<ListBucketResult><Contents><Key>a</Key></Contents></ListBucketResult>", 70,
                 "no <IsTruncated>");
    expect_proto("<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>", 69,
                 "neither true nor false");
    expect_proto("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a</Key>"
                 "<Size>-1</Size></Contents></ListBucketResult>",
                 118, "<Size> is not a byte count");
    expect_proto("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Size>1</Size>"
                 "</Contents></ListBucketResult>",
                 104, "without a <Key>");
    expect_proto("<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key></Key>"
                 "</Contents></ListBucketResult>",
                 100, "empty <Key>");
    expect_proto("<Error><Code>AccessDenied</Code></Error>", 40, "<Error> document");
    expect_proto("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult><x/>", 72,
                 "malformed XML");
    /* random bytes */
    char junk[4096];
    unsigned seed = 12345;
    for (size_t i = 0; i < sizeof junk; i++) {
        seed = seed * 1103515245u + 12345u;
        junk[i] = (char)(seed >> 16);
    }
    expect_proto(junk, sizeof junk, "");
    junk[0] = '<';
    expect_proto(junk, sizeof junk, "");
}

static void test_hostile(void **state)
{
    (void)state;
    const char *laughs =
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 "
        "\"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
        "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>&lol2;</Key></Contents>"
        "</ListBucketResult>";
    expect_proto(laughs, strlen(laughs), "DOCTYPE");
    /* a key over the cap */
    size_t big = VA_S3XML_KEY_MAX + 100;
    char *doc = malloc(big + 200);
    int n = snprintf(doc, 200, "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>");
    memset(doc + n, 'k', big);
    strcpy(doc + n + big, "</Key></Contents></ListBucketResult>");
    expect_proto(doc, strlen(doc), "longer than 4096 bytes");
    free(doc);
    /* nesting bomb */
    char deep[64 * 3 + 64];
    size_t o = 0;
    o += (size_t)sprintf(deep + o, "<ListBucketResult>");
    for (int i = 0; i < 40; i++)
        o += (size_t)sprintf(deep + o, "<a>");
    expect_proto(deep, o, "deeper than 32");
}

static void test_callback_stops(void **state)
{
    (void)state;
    va_s3xml_list_t *p = va_s3xml_list_new();
    collect_t c;
    memset(&c, 0, sizeof c);
    c.stop_after = 2;
    va_s3xml_list_begin(p, on_obj, NULL, &c);
    assert_int_equal(va_s3xml_list_feed(p, RGW_PAGE, strlen(RGW_PAGE)), VC_ERR_CANCELLED);
    assert_int_equal(c.n, 2);
    assert_int_equal(va_s3xml_list_end(p, NULL), VC_ERR_CANCELLED);
    assert_non_null(strstr(va_s3xml_list_error(p), "stopped"));
    va_s3xml_list_destroy(&p);
}

static void test_error_bodies(void **state)
{
    (void)state;
    va_s3xml_error_t e;
    char err[256];
    /* RGW's SignatureDoesNotMatch: empty Message */
    const char *rgw = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SignatureDoesNotMatch</Code>"
                      "<Message></Message><RequestId>tx000006d919a53ae110f44-006b0d2946-1010-default"
                      "</RequestId><HostId>1010-default-default</HostId></Error>";
    assert_int_equal(va_s3xml_error_parse(rgw, strlen(rgw), &e, err, sizeof err), VC_OK);
    assert_string_equal(e.code, "SignatureDoesNotMatch");
    assert_string_equal(e.message, "");
    assert_string_equal(e.request_id, "tx000006d919a53ae110f44-006b0d2946-1010-default");
    const char *aws = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>NoSuchBucket</Code>\n"
                      "  <Message>The specified bucket does not exist</Message>\n"
                      "  <BucketName>nope</BucketName>\n  <Resource>/nope</Resource>\n"
                      "  <RequestId>4442587FB7D0A2F9</RequestId>\n</Error>";
    assert_int_equal(va_s3xml_error_parse(aws, strlen(aws), &e, err, sizeof err), VC_OK);
    assert_string_equal(e.code, "NoSuchBucket");
    assert_string_equal(e.message, "The specified bucket does not exist");
    assert_string_equal(e.resource, "/nope");
    /* control characters cannot reach a terminal; long fields are cut, not refused */
    char longmsg[2048];
    int n = snprintf(longmsg, sizeof longmsg, "<Error><Code>X\tY\r\n</Code><Message>");
    memset(longmsg + n, 'm', 1500);
    strcpy(longmsg + n + 1500, "</Message></Error>");
    assert_int_equal(va_s3xml_error_parse(longmsg, strlen(longmsg), &e, err, sizeof err), VC_OK);
    assert_string_equal(e.code, "X Y ");
    assert_int_equal(strlen(e.message), sizeof e.message - 1);
    /* XML forbids raw escape characters: refused, not printed */
    assert_int_equal(va_s3xml_error_parse("<Error><Code>\x1b[31m</Code></Error>", 34, &e, err, sizeof err),
                     VC_ERR_PROTO);
    /* not an error document */
    assert_int_equal(va_s3xml_error_parse("<html>oops</html>", 17, &e, err, sizeof err), VC_ERR_PROTO);
    assert_non_null(strstr(err, "<html>"));
    assert_int_equal(va_s3xml_error_parse("<Error><Code>Abc", 16, &e, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_s3xml_error_parse("", 0, &e, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_s3xml_error_parse(NULL, 0, &e, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_s3xml_error_parse("<Error><Message>m</Message></Error>", 35, &e, err, sizeof err),
                     VC_ERR_PROTO);
    assert_non_null(strstr(err, "no <Code>"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rgw_page_whole_and_bytewise),
        cmocka_unit_test(test_prefixes_and_last_page),
        cmocka_unit_test(test_namespace_prefix_and_empty_page),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_error_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
