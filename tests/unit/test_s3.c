/* va_s3 against a scripted HTTP server on 127.0.0.1 (a thread in this
 * process): what goes on the wire (method, encoded path, query, Host,
 * x-amz-* headers, a signature the server can recompute), one keep-alive
 * connection per client, and how replies map to status, error class and
 * S3 code. The real S3 server (RGW) is exercised by the integration tests. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_http.h"
#include "va_s3.h"
#include "va_sigv4.h"

#define AK "AKTESTACCESS"
#define SK "test/secret+key=0123456789"
#define MAXREQ 8

typedef struct {
    const char *status;  /* "200 OK" */
    const char *headers; /* extra lines, each ending \r\n */
    const char *body;
    int hang;            /* never answer */
} reply_t;

typedef struct {
    char head[8192];
    size_t body_len;
} seen_t;

typedef struct {
    int lfd, port;
    reply_t replies[MAXREQ];
    seen_t seen[MAXREQ];
    int nseen;
    int accepts;
    pthread_t th;
} fake_t;

static ssize_t read_head(int c, char *buf, size_t cap, size_t *got)
{
    while (*got < cap - 1) {
        char *end = strstr(buf, "\r\n\r\n");
        if (end)
            return end + 4 - buf;
        ssize_t n = read(c, buf + *got, cap - 1 - *got);
        if (n <= 0)
            return -1;
        *got += (size_t)n;
        buf[*got] = '\0';
    }
    return -1;
}

static void *serve(void *arg)
{
    fake_t *f = arg;
    int c = -1;
    char buf[16384];
    size_t got = 0;
    while (f->nseen < MAXREQ && (f->replies[f->nseen].status || f->replies[f->nseen].hang)) {
        if (c < 0) {
            if ((c = accept(f->lfd, NULL, NULL)) < 0)
                return NULL;
            f->accepts++;
            got = 0;
            buf[0] = '\0';
        }
        ssize_t hl = read_head(c, buf, sizeof buf, &got);
        if (hl < 0) { /* the client closed: next request on a new connection */
            close(c);
            c = -1;
            continue;
        }
        seen_t *s = &f->seen[f->nseen];
        memcpy(s->head, buf, (size_t)hl);
        s->head[hl] = '\0';
        const char *cl = strcasestr(s->head, "\r\ncontent-length:");
        size_t blen = cl ? strtoul(cl + 17, NULL, 10) : 0;
        while (got - (size_t)hl < blen) { /* drain the body */
            ssize_t n = read(c, buf + got, sizeof buf - 1 - got);
            if (n <= 0)
                break;
            got += (size_t)n;
            if (got == sizeof buf - 1) { /* bodies larger than the buffer: count, drop */
                blen -= got - (size_t)hl;
                got = (size_t)hl;
            }
        }
        s->body_len = blen;
        memmove(buf, buf + hl + (ssize_t)blen, got - (size_t)hl - blen);
        got -= (size_t)hl + blen;
        buf[got] = '\0';
        reply_t *r = &f->replies[f->nseen++];
        if (r->hang) {
            while (read(c, buf, sizeof buf) > 0)
                ;
            close(c);
            c = -1;
            continue;
        }
        char out[8192];
        size_t bl = r->body ? strlen(r->body) : 0;
        int n = snprintf(out, sizeof out, "HTTP/1.1 %s\r\nContent-Length: %zu\r\n%s\r\n%s", r->status,
                         bl, r->headers ? r->headers : "", r->body ? r->body : "");
        if (strstr(s->head, "HEAD ") == s->head) /* no body after HEAD */
            n -= (int)bl;
        if (write(c, out, (size_t)n) < 0)
            break;
    }
    if (c >= 0)
        close(c);
    return NULL;
}

static void fake_start(fake_t *f)
{
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(f->lfd, 8), 0);
    getsockname(f->lfd, (struct sockaddr *)&a, &len);
    f->port = ntohs(a.sin_port);
    pthread_create(&f->th, NULL, serve, f);
}

static void fake_stop(fake_t *f)
{
    shutdown(f->lfd, SHUT_RDWR);
    pthread_join(f->th, NULL);
    close(f->lfd);
}

static va_s3_t *client_for(fake_t *f, const char *host, va_s3_addressing_t addr, const char *token,
                           int unsigned_payload, long timeout_ms)
{
    char ep[128], err[512];
    snprintf(ep, sizeof ep, "http://%s:%d", host, f->port);
    va_s3_opts_t o = {.endpoint = ep, .region = "eu-west-3", .access_key = AK, .secret_key = SK,
                      .session_token = token, .addressing = addr, .timeout_ms = timeout_ms,
                      .unsigned_payload = unsigned_payload};
    va_s3_t *s3 = va_s3_new(&o, err, sizeof err);
    if (!s3)
        fail_msg("va_s3_new: %s", err);
    return s3;
}

/* A header's value in a recorded request head, or NULL. */
static const char *hdr(const seen_t *s, const char *name, char *out, size_t outsz)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\r\n%s:", name);
    const char *p = strcasestr(s->head, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r");
    snprintf(out, outsz, "%.*s", (int)n, p);
    return out;
}

static void request_line(const seen_t *s, char *method, char *path, char *query)
{
    char target[4096];
    assert_int_equal(sscanf(s->head, "%15s %4095s HTTP/1.1", method, target), 2);
    char *q = strchr(target, '?');
    strcpy(query, q ? q + 1 : "");
    if (q)
        *q = '\0';
    strcpy(path, target);
}

/* Recomputes the signature the way a server does, from what arrived. */
static void assert_signed(const seen_t *s)
{
    char method[16], path[4096], query[4096], auth[1024], host[256], date[64], sha[128], tok[512];
    request_line(s, method, path, query);
    assert_non_null(hdr(s, "Authorization", auth, sizeof auth));
    assert_non_null(hdr(s, "Host", host, sizeof host));
    assert_non_null(hdr(s, "x-amz-date", date, sizeof date));
    assert_non_null(hdr(s, "x-amz-content-sha256", sha, sizeof sha));
    const char *sh = strstr(auth, "SignedHeaders=");
    assert_non_null(sh);
    va_sigv4_kv_t h[4] = {{"host", host}, {"x-amz-content-sha256", sha}, {"x-amz-date", date}};
    size_t nh = 3;
    if (hdr(s, "x-amz-security-token", tok, sizeof tok))
        h[nh++] = (va_sigv4_kv_t){"x-amz-security-token", tok};
    /* the query as sent is already canonical: rebuild it from its parts */
    char canon_q[4096];
    snprintf(canon_q, sizeof canon_q, "%s", query);
    char canon[16384], hdrs[4096], signed_h[256];
    va_sigv4_canonical_headers(h, nh, hdrs, sizeof hdrs, signed_h, sizeof signed_h);
    assert_non_null(strstr(auth, signed_h));
    snprintf(canon, sizeof canon, "%s\n%s\n%s\n%s\n%s\n%s", method, path, canon_q, hdrs, signed_h, sha);
    char sts[512], sig[65], d8[9];
    snprintf(d8, sizeof d8, "%.8s", date);
    uint8_t key[32];
    assert_int_equal(va_sigv4_string_to_sign(date, "eu-west-3", "s3", canon, sts, sizeof sts), VC_OK);
    assert_int_equal(va_sigv4_signing_key(SK, d8, "eu-west-3", "s3", key), VC_OK);
    assert_int_equal(va_sigv4_signature(key, sts, sig), VC_OK);
    char want[128];
    snprintf(want, sizeof want, "Credential=" AK "/%s/eu-west-3/s3/aws4_request, ", d8);
    assert_non_null(strstr(auth, want));
    assert_non_null(strstr(auth, sig));
}

static void test_object_requests(void **state)
{
    (void)state;
    fake_t f = {.replies = {{"200 OK", "ETag: \"e1\"\r\n", NULL, 0},
                            {"200 OK", NULL, "hello", 0},
                            {"200 OK", "ETag: \"e1\"\r\nLast-Modified: Mon, 30 Nov 2026 07:00:00 GMT\r\n"
                                       "Content-Type: text/plain\r\n", "hello", 0},
                            {"204 No Content", NULL, NULL, 0}}};
    fake_start(&f);
    va_s3_t *s3 = client_for(&f, "127.0.0.1", VA_S3_ADDR_AUTO, NULL, 0, 5000);
    vc_sample_t s;
    vc_sample_init(&s);
    s.run = 7; /* the caller's fields survive */
    assert_int_equal(va_s3_put(s3, "bkt", "dir/a b+c~\xc3\xa9", "data", 4, &s), VC_OK);
    assert_string_equal(s.op, "put");
    assert_int_equal(s.run, 7);
    assert_int_equal(s.http_status, 200);
    assert_int_equal(s.bytes_sent, 4);
    assert_int_equal(s.err_class, VC_EC_NONE);
    assert_true(s.duration_ns > 0 && s.start_wall_ns > 0 && s.connect_us >= 0);

    FILE *out = tmpfile();
    assert_int_equal(va_s3_get(s3, "bkt", "k", out, &s), VC_OK);
    assert_int_equal(s.bytes_recv, 5);
    rewind(out);
    char back[16] = "";
    assert_int_equal(fread(back, 1, sizeof back, out), 5);
    assert_memory_equal(back, "hello", 5);
    fclose(out);

    va_s3_head_t h;
    assert_int_equal(va_s3_head(s3, "bkt", "k", &h, &s), VC_OK);
    assert_int_equal(h.size, 5);
    assert_string_equal(h.etag, "\"e1\"");
    assert_string_equal(h.content_type, "text/plain");
    assert_int_equal(va_s3_delete(s3, "bkt", "k", &s), VC_OK);
    assert_int_equal(s.http_status, 204);
    va_s3_destroy(&s3);
    fake_stop(&f);

    assert_int_equal(f.nseen, 4);
    assert_int_equal(f.accepts, 1); /* one keep-alive connection for all four */
    char m[16], path[4096], q[4096], v[256], hash[65];
    request_line(&f.seen[0], m, path, q);
    assert_string_equal(m, "PUT");
    assert_string_equal(path, "/bkt/dir/a%20b%2Bc~%C3%A9");
    assert_string_equal(q, "");
    char want_host[64];
    snprintf(want_host, sizeof want_host, "127.0.0.1:%d", f.port);
    assert_string_equal(hdr(&f.seen[0], "Host", v, sizeof v), want_host);
    va_sigv4_sha256_hex("data", 4, hash);
    assert_string_equal(hdr(&f.seen[0], "x-amz-content-sha256", v, sizeof v), hash);
    assert_null(hdr(&f.seen[0], "Expect", v, sizeof v));
    assert_int_equal(f.seen[0].body_len, 4);
    for (int i = 0; i < 4; i++)
        assert_signed(&f.seen[i]);
    request_line(&f.seen[1], m, path, q);
    assert_string_equal(m, "GET");
    assert_string_equal(path, "/bkt/k");
    assert_string_equal(hdr(&f.seen[1], "x-amz-content-sha256", v, sizeof v), VA_SIGV4_EMPTY_SHA256);
    request_line(&f.seen[2], m, path, q);
    assert_string_equal(m, "HEAD");
    request_line(&f.seen[3], m, path, q);
    assert_string_equal(m, "DELETE");
    vc_sample_clear(&s);
}

static const char PAGE1[] = "<ListBucketResult><IsTruncated>true</IsTruncated>"
                            "<Contents><Key>a/b/1</Key><Size>1</Size></Contents>"
                            "<Contents><Key>a/b/2</Key><Size>2</Size></Contents>"
                            "<NextContinuationToken>t+/=</NextContinuationToken></ListBucketResult>";
static const char PAGE2[] = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                            "<Contents><Key>a/b/3</Key><Size>3</Size></Contents>"
                            "<CommonPrefixes><Prefix>a/b/c/</Prefix></CommonPrefixes></ListBucketResult>";

typedef struct {
    int objects, prefixes;
    char last[64];
} count_t;

static int count_obj(void *ud, const va_s3xml_object_t *o)
{
    count_t *c = ud;
    c->objects++;
    snprintf(c->last, sizeof c->last, "%s", o->key);
    return 0;
}

static int count_prefix(void *ud, const char *p, size_t len)
{
    (void)p, (void)len;
    ((count_t *)ud)->prefixes++;
    return 0;
}

static void test_listing_requests(void **state)
{
    (void)state;
    fake_t f = {.replies = {{"200 OK", NULL, PAGE1, 0}, {"200 OK", NULL, PAGE2, 0}}};
    fake_start(&f);
    va_s3_t *s3 = client_for(&f, "127.0.0.1", VA_S3_ADDR_PATH, NULL, 0, 5000);
    vc_sample_t s;
    vc_sample_init(&s);
    count_t c = {0};
    va_s3_list_opts_t lo = {.prefix = "a/b/", .start_after = "a/b/0", .delimiter = "/", .max_keys = 2};
    assert_int_equal(va_s3_list(s3, "bkt", &lo, count_obj, count_prefix, &c, &s), VC_OK);
    va_s3_destroy(&s3);
    fake_stop(&f);
    assert_int_equal(c.objects, 3);
    assert_int_equal(c.prefixes, 1);
    assert_string_equal(c.last, "a/b/3");
    assert_string_equal(s.op, "s3-direct");
    assert_int_equal(s.pages, 2);
    assert_int_equal(s.npages, 2);
    assert_int_equal(s.keys, 4);
    assert_int_equal(s.page[0].keys, 2);
    assert_int_equal(s.page[1].keys, 2);
    assert_int_equal(s.page[0].bytes, (int64_t)strlen(PAGE1));
    assert_int_equal(s.bytes_recv, (int64_t)(strlen(PAGE1) + strlen(PAGE2)));
    assert_int_equal(f.accepts, 1);
    char m[16], path[4096], q[4096];
    request_line(&f.seen[0], m, path, q);
    assert_string_equal(path, "/bkt");
    assert_string_equal(q, "delimiter=%2F&list-type=2&max-keys=2&prefix=a%2Fb%2F&start-after=a%2Fb%2F0");
    request_line(&f.seen[1], m, path, q);
    assert_string_equal(q, "continuation-token=t%2B%2F%3D&delimiter=%2F&list-type=2&max-keys=2&prefix=a%2Fb%2F");
    assert_signed(&f.seen[0]);
    assert_signed(&f.seen[1]);
    vc_sample_clear(&s);
}

static void test_virtual_hosted_token_unsigned(void **state)
{
    (void)state;
    fake_t f = {.replies = {{"200 OK", NULL, NULL, 0}, {"200 OK", NULL, PAGE2, 0}}};
    fake_start(&f);
    va_s3_t *s3 = client_for(&f, "localhost", VA_S3_ADDR_VIRTUAL, "session/token+1=", 1, 5000);
    assert_int_equal(va_s3_put(s3, "bkt", "k 1", "xyz", 3, NULL), VC_OK);
    assert_int_equal(va_s3_list(s3, "bkt", NULL, NULL, NULL, NULL, NULL), VC_OK);
    va_s3_destroy(&s3);
    fake_stop(&f);
    char m[16], path[4096], q[4096], v[256], want[64];
    request_line(&f.seen[0], m, path, q);
    assert_string_equal(path, "/k%201");
    snprintf(want, sizeof want, "bkt.localhost:%d", f.port);
    assert_string_equal(hdr(&f.seen[0], "Host", v, sizeof v), want);
    assert_string_equal(hdr(&f.seen[0], "x-amz-content-sha256", v, sizeof v), "UNSIGNED-PAYLOAD");
    assert_string_equal(hdr(&f.seen[0], "x-amz-security-token", v, sizeof v), "session/token+1=");
    assert_non_null(strstr(hdr(&f.seen[0], "Authorization", v, sizeof v), "x-amz-security-token"));
    request_line(&f.seen[1], m, path, q);
    assert_string_equal(path, "/");
    assert_signed(&f.seen[0]);
    assert_signed(&f.seen[1]);
}

static void test_error_replies(void **state)
{
    (void)state;
    fake_t f = {.replies = {
                    {"503 Slow Down", NULL, "<Error><Code>SlowDown</Code><Message>Reduce your request rate."
                                            "</Message><RequestId>R1</RequestId></Error>", 0},
                    {"500 Internal Server Error", NULL, "<Error><Code>InternalError</Code></Error>", 0},
                    {"301 Moved Permanently", NULL, "<Error><Code>PermanentRedirect</Code>"
                                                    "<Message>Use the other endpoint</Message></Error>", 0},
                    {"404 Not Found", NULL, "", 0},
                    {"403 Forbidden", NULL, "<Error><Code>AccessDenied</Code><Message>no</Message></Error>", 0},
                    {"200 OK", NULL, "<html>proxy login</html>", 0},
                }};
    fake_start(&f);
    va_s3_t *s3 = client_for(&f, "127.0.0.1", VA_S3_ADDR_PATH, NULL, 0, 5000);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_get(s3, "bkt", "k", NULL, &s), VC_ERR_SERVER);
    assert_int_equal(s.err_class, VC_EC_THROTTLED);
    assert_string_equal(s.err_code, "SlowDown");
    assert_non_null(strstr(s.err_msg, "Reduce your request rate."));
    assert_non_null(strstr(va_s3_last_error(s3), "request id R1"));
    assert_int_equal(s.bytes_recv > 0, 1);
    assert_int_equal(va_s3_put(s3, "bkt", "k", "x", 1, &s), VC_ERR_SERVER);
    assert_int_equal(s.err_class, VC_EC_SERVER);
    assert_string_equal(s.err_code, "InternalError");
    assert_int_equal(va_s3_get(s3, "bkt", "k", NULL, &s), VC_ERR_SERVER);
    assert_int_equal(s.err_class, VC_EC_CLIENT); /* a redirect that is not followed is a failure */
    assert_string_equal(s.err_code, "PermanentRedirect");
    assert_int_equal(s.retries, 0);
    assert_int_equal(va_s3_head(s3, "bkt", "k", NULL, &s), VC_ERR_NOTFOUND);
    assert_string_equal(s.err_code, "NotFound");
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_int_equal(va_s3_delete(s3, "bkt", "k", &s), VC_ERR_AUTH);
    assert_string_equal(s.err_code, "AccessDenied");
    /* a 200 that is not a listing: a protocol error, not an empty listing */
    assert_int_equal(va_s3_list(s3, "bkt", NULL, NULL, NULL, NULL, &s), VC_ERR_PROTO);
    assert_int_equal(s.err_class, VC_EC_PROTOCOL);
    assert_string_equal(s.err_code, "MalformedReply");
    assert_non_null(strstr(va_s3_last_error(s3), "malformed reply"));
    va_s3_destroy(&s3);
    fake_stop(&f);
    assert_int_equal(f.nseen, 6);
    vc_sample_clear(&s);
}

static void test_timeout(void **state)
{
    (void)state;
    fake_t f = {.replies = {{NULL, NULL, NULL, 1}}};
    fake_start(&f);
    va_s3_t *s3 = client_for(&f, "127.0.0.1", VA_S3_ADDR_PATH, NULL, 0, 300);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_get(s3, "bkt", "k", NULL, &s), VC_ERR_TIMEOUT);
    assert_int_equal(s.err_class, VC_EC_TIMEOUT);
    assert_true(s.duration_ns >= 250 * 1000000LL);
    assert_non_null(strstr(va_s3_last_error(s3), "timed out"));
    va_s3_destroy(&s3);
    fake_stop(&f);
    vc_sample_clear(&s);
}

static void test_new_rejects(void **state)
{
    (void)state;
    char err[512];
    va_s3_opts_t o = {.access_key = AK, .secret_key = SK};
    const char *bad[] = {"ftp://127.0.0.1", "127.0.0.1:7480", "http://h/?x=1", "http://"};
    for (int i = 0; i < 4; i++) {
        o.endpoint = bad[i];
        err[0] = '\0';
        assert_null(va_s3_new(&o, err, sizeof err));
        assert_true(strlen(err) > 0);
        assert_null(strstr(err, SK));
    }
    o.endpoint = "http://127.0.0.1:7480";
    o.addressing = VA_S3_ADDR_VIRTUAL;
    assert_null(va_s3_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "IP address"));
    o.addressing = VA_S3_ADDR_AUTO;
    o.secret_key = NULL;
    assert_null(va_s3_new(&o, err, sizeof err));
    /* AWS's own endpoint by default, virtual-hosted there */
    o.secret_key = SK;
    o.endpoint = NULL;
    o.region = "eu-west-3";
    va_s3_t *s3 = va_s3_new(&o, err, sizeof err);
    assert_non_null(s3);
    assert_string_equal(va_s3_endpoint_hostport(s3), "s3.eu-west-3.amazonaws.com:443");
    /* bad names fail before anything is sent */
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_put(s3, "Bad_Bucket", "k", "x", 1, &s), VC_ERR_ARG);
    assert_int_equal(s.err_class, VC_EC_OTHER);
    char longkey[1100];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    assert_int_equal(va_s3_put(s3, "bucket", longkey, "x", 1, &s), VC_ERR_ARG);
    assert_int_equal(va_s3_put(s3, "bucket", "", "x", 1, &s), VC_ERR_ARG);
    va_s3_destroy(&s3);
    assert_null(s3);
    va_s3_destroy(&s3);
    vc_sample_clear(&s);
}

int main(void)
{
    va_http_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_requests),
        cmocka_unit_test(test_listing_requests),
        cmocka_unit_test(test_virtual_hosted_token_unsigned),
        cmocka_unit_test(test_error_replies),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_new_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
