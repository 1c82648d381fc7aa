/* va_s3 against the local Ceph RGW (real SigV4 checks, real pagination), plus
 * a tiny in-process HTTP server on 127.0.0.1 for replies RGW never sends
 * (truncated or garbage listings). Settings come from the environment the
 * test runner sets (AWS_*, VANTAGE_TEST_BUCKET). The 2,500-object listing
 * set lives under a fixed prefix and is only topped up on re-runs; the rest
 * lives under t-s3-<pid>/ and is deleted. */
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
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_awscfg.h"
#include "va_s3.h"

#define NLIST 2500
#define LIST_PREFIX "t-s3/list2500/"
#define PUT_THREADS 8

static const char *bucket;
static char prefix[64]; /* t-s3-<pid>/ */

static va_s3_t *client_with(va_s3_addressing_t addr, const char *endpoint, const char *secret)
{
    va_awscfg_t cfg;
    char err[1024];
    va_awscfg_opts_t co = {.endpoint = endpoint};
    if (va_awscfg_load(&co, &cfg, err, sizeof err) != VC_OK)
        fail_msg("AWS settings: %s", err);
    va_s3_opts_t o = {0};
    va_s3_opts_from_awscfg(&o, &cfg);
    o.addressing = addr;
    o.timeout_ms = 30000;
    if (secret)
        o.secret_key = secret;
    va_s3_t *s3 = va_s3_new(&o, err, sizeof err);
    va_awscfg_clear(&cfg);
    if (!s3)
        fail_msg("va_s3_new: %s", err);
    return s3;
}

static va_s3_t *client(void) { return client_with(VA_S3_ADDR_PATH, NULL, NULL); }

/* ---- the 2,500-key listing ---- */

typedef struct {
    char **keys;
    size_t n, cap;
    int stop_at; /* stop after this many (0: never) */
} keys_t;

static int collect(void *ud, const va_s3xml_object_t *o)
{
    keys_t *k = ud;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 1024;
        k->keys = realloc(k->keys, k->cap * sizeof *k->keys);
        assert_non_null(k->keys);
    }
    k->keys[k->n++] = strdup(o->key);
    return k->stop_at && (int)k->n >= k->stop_at;
}

static void keys_free(keys_t *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    memset(k, 0, sizeof *k);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **expected_names(void)
{
    char **names = calloc(NLIST, sizeof *names);
    for (int i = 0; i < NLIST; i++) {
        char buf[64];
        /* unpadded numbers: byte order differs from numeric order */
        snprintf(buf, sizeof buf, LIST_PREFIX "%d", i);
        names[i] = strdup(buf);
    }
    qsort(names, NLIST, sizeof *names, cmp_str);
    return names;
}

typedef struct {
    char **names;
    unsigned char *present;
    int from, step;
    int failures;
} put_job_t;

static void *put_worker(void *arg)
{
    put_job_t *j = arg;
    va_s3_t *s3 = client();
    for (int i = j->from; i < NLIST; i += j->step) {
        if (j->present[i])
            continue;
        if (va_s3_put(s3, bucket, j->names[i], "x", 1, NULL) != VC_OK) {
            fprintf(stderr, "put %s: %s\n", j->names[i], va_s3_last_error(s3));
            j->failures++;
        }
    }
    va_s3_destroy(&s3);
    return NULL;
}

static void ensure_list_set(char **names)
{
    va_s3_t *s3 = client();
    keys_t have = {0};
    va_s3_list_opts_t lo = {.prefix = LIST_PREFIX};
    assert_int_equal(va_s3_list(s3, bucket, &lo, collect, NULL, &have, NULL), VC_OK);
    unsigned char *present = calloc(NLIST, 1);
    size_t missing = NLIST;
    for (size_t i = 0; i < have.n; i++) {
        char **hit = bsearch(&have.keys[i], names, NLIST, sizeof *names, cmp_str);
        if (hit && !present[hit - names]) {
            present[hit - names] = 1;
            missing--;
        }
    }
    keys_free(&have);
    if (missing) {
        pthread_t th[PUT_THREADS];
        put_job_t jobs[PUT_THREADS];
        for (int t = 0; t < PUT_THREADS; t++) {
            jobs[t] = (put_job_t){names, present, t, PUT_THREADS, 0};
            pthread_create(&th[t], NULL, put_worker, &jobs[t]);
        }
        int failures = 0;
        for (int t = 0; t < PUT_THREADS; t++) {
            pthread_join(th[t], NULL);
            failures += jobs[t].failures;
        }
        assert_int_equal(failures, 0);
    }
    fprintf(stderr, "listing set: %zu of %d objects were missing and were put\n", missing, NLIST);
    free(present);
    va_s3_destroy(&s3);
}

static void list_and_check(va_s3_t *s3, char **names, int max_keys, int want_pages)
{
    keys_t got = {0};
    vc_sample_t s;
    vc_sample_init(&s);
    va_s3_list_opts_t lo = {.prefix = LIST_PREFIX, .max_keys = max_keys};
    assert_int_equal(va_s3_list(s3, bucket, &lo, collect, NULL, &got, &s), VC_OK);
    assert_int_equal(got.n, NLIST);
    for (int i = 0; i < NLIST; i++)
        if (strcmp(got.keys[i], names[i]) != 0)
            fail_msg("max-keys %d: key %d is %s, want %s", max_keys, i, got.keys[i], names[i]);
    assert_string_equal(s.op, "s3-direct");
    assert_int_equal(s.err_class, VC_EC_NONE);
    assert_int_equal(s.keys, NLIST);
    assert_int_equal(s.pages, want_pages);
    assert_int_equal(s.npages, want_pages);
    int64_t sum_keys = 0, sum_bytes = 0, sum_ns = 0;
    for (uint32_t i = 0; i < s.npages; i++) {
        assert_true(s.page[i].duration_ns > 0);
        assert_int_equal(s.page[i].keys, i + 1 < s.npages ? max_keys : NLIST - max_keys * (want_pages - 1));
        sum_keys += s.page[i].keys;
        sum_bytes += s.page[i].bytes;
        sum_ns += s.page[i].duration_ns;
    }
    assert_int_equal(sum_keys, NLIST);
    assert_int_equal(sum_bytes, s.bytes_recv);
    assert_true(s.duration_ns >= sum_ns);
    assert_int_equal(s.http_status, 200);
    assert_true(s.cpu_user_us >= 0 && s.cpu_sys_us >= 0);
    vc_sample_clear(&s);
    keys_free(&got);
}

static void test_list_2500(void **state)
{
    (void)state;
    char **names = expected_names();
    ensure_list_set(names);
    va_s3_t *s3 = client();
    list_and_check(s3, names, 1000, 3);
    list_and_check(s3, names, 100, 25);
    /* one page, resumed from its token */
    va_s3xml_page_t page;
    keys_t got = {0};
    vc_sample_t s;
    vc_sample_init(&s);
    va_s3_list_opts_t lo = {.prefix = LIST_PREFIX, .max_keys = 7, .start_after = names[10]};
    assert_int_equal(va_s3_list_page(s3, bucket, &lo, collect, NULL, &got, &page, &s), VC_OK);
    assert_int_equal(got.n, 7);
    assert_string_equal(got.keys[0], names[11]);
    assert_int_equal(page.is_truncated, 1);
    assert_true(page.next_token[0] != '\0');
    assert_int_equal(s.pages, 1);
    assert_int_equal(s.keys, 7);
    lo.start_after = NULL;
    lo.continuation_token = page.next_token;
    assert_int_equal(va_s3_list_page(s3, bucket, &lo, collect, NULL, &got, &page, &s), VC_OK);
    assert_int_equal(got.n, 14);
    assert_string_equal(got.keys[7], names[18]);
    keys_free(&got);
    /* a callback that stops part-way: one failed sample, never a short success */
    got.stop_at = 1500;
    va_s3_list_opts_t all = {.prefix = LIST_PREFIX};
    assert_int_equal(va_s3_list(s3, bucket, &all, collect, NULL, &got, &s), VC_ERR_CANCELLED);
    assert_int_not_equal(s.err_class, VC_EC_NONE);
    assert_string_equal(s.err_code, "Cancelled");
    assert_int_equal(s.pages, 2);
    assert_int_equal(s.keys, 1000); /* only the complete first page counts */
    vc_sample_clear(&s);
    keys_free(&got);
    for (int i = 0; i < NLIST; i++)
        free(names[i]);
    free(names);
    va_s3_destroy(&s3);
}

/* ---- object round trips ---- */

static void round_trip(va_s3_t *s3, const char *key, size_t size)
{
    unsigned char *data = malloc(size ? size : 1);
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(i * 2654435761u >> 13);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_put(s3, bucket, key, data, size, &s), VC_OK);
    assert_string_equal(s.op, "put");
    assert_int_equal(s.http_status, 200);
    assert_int_equal(s.bytes_sent, (int64_t)size);
    assert_true(s.duration_ns > 0);
    assert_true(s.start_wall_ns > 0);

    va_s3_head_t h;
    assert_int_equal(va_s3_head(s3, bucket, key, &h, &s), VC_OK);
    assert_string_equal(s.op, "head");
    assert_int_equal(h.size, (int64_t)size);
    assert_true(h.etag[0] == '"');

    FILE *f = tmpfile();
    assert_int_equal(va_s3_get(s3, bucket, key, f, &s), VC_OK);
    assert_string_equal(s.op, "get");
    assert_int_equal(s.bytes_recv, (int64_t)size);
    assert_true(s.ttfb_us > 0);
    rewind(f);
    unsigned char *back = malloc(size + 1);
    assert_int_equal(fread(back, 1, size + 1, f), size);
    assert_memory_equal(back, data, size);
    fclose(f);
    free(back);

    assert_int_equal(va_s3_get(s3, bucket, key, NULL, &s), VC_OK);
    assert_int_equal(s.bytes_recv, (int64_t)size);

    assert_int_equal(va_s3_delete(s3, bucket, key, &s), VC_OK);
    assert_string_equal(s.op, "delete");
    assert_int_equal(s.http_status, 204);
    assert_int_equal(va_s3_head(s3, bucket, key, &h, &s), VC_ERR_NOTFOUND);
    assert_int_equal(s.http_status, 404);
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_int_equal(va_s3_get(s3, bucket, key, NULL, &s), VC_ERR_NOTFOUND);
    assert_string_equal(s.err_code, "NoSuchKey");
    assert_int_equal(s.bytes_recv > 0, 1); /* the error body, not object bytes */
    vc_sample_clear(&s);
    free(data);
}

static void test_round_trips(void **state)
{
    (void)state;
    va_s3_t *s3 = client();
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_create_bucket(s3, bucket, &s), VC_OK); /* exists, ours: fine */
    assert_string_equal(s.op, "create-bucket");
    assert_int_equal(s.err_class, VC_EC_NONE);
    char key[128];
    size_t sizes[] = {0, 1, 5u << 20};
    for (size_t i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%sobj-%zu", prefix, sizes[i]);
        round_trip(s3, key, sizes[i]);
    }
    va_s3_destroy(&s3);
}

/* Keys and prefixes that SigV4 must encode exactly; RGW checks every byte. */
static void test_hard_keys(void **state)
{
    (void)state;
    va_s3_t *s3 = client();
    const char *tails[] = {"dir one/sub+dir/k\xc3\xa9 y+plus=eq&amp~.txt",
                           "dir one/sub+dir/\xe2\x82\xac \xe6\x97\xa5\xe6\x9c\xac (1)!*'",
                           "dir one/other/%41%2F.bin"};
    char key[256], pfx[128];
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s%s", prefix, tails[i]);
        round_trip(s3, key, 3);
        assert_int_equal(va_s3_put(s3, bucket, key, "abc", 3, NULL), VC_OK);
    }
    snprintf(pfx, sizeof pfx, "%sdir one/sub+dir/", prefix);
    keys_t got = {0};
    va_s3_list_opts_t lo = {.prefix = pfx, .max_keys = 1};
    assert_int_equal(va_s3_list(s3, bucket, &lo, collect, NULL, &got, NULL), VC_OK);
    assert_int_equal(got.n, 2);
    char want0[256], want1[256];
    snprintf(want0, sizeof want0, "%s%s", prefix, tails[0]);
    snprintf(want1, sizeof want1, "%s%s", prefix, tails[1]);
    assert_string_equal(got.keys[0], want0);
    assert_string_equal(got.keys[1], want1);
    keys_free(&got);
    /* with a delimiter and a start-after containing spaces and '+' */
    snprintf(pfx, sizeof pfx, "%sdir one/", prefix);
    lo = (va_s3_list_opts_t){.prefix = pfx, .delimiter = "/"};
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_list(s3, bucket, &lo, collect, NULL, &got, &s), VC_OK);
    assert_int_equal(got.n, 0);
    assert_int_equal(s.keys, 2); /* two common prefixes: other/ and sub+dir/ */
    vc_sample_clear(&s);
    for (int i = 0; i < 3; i++) {
        snprintf(key, sizeof key, "%s%s", prefix, tails[i]);
        assert_int_equal(va_s3_delete(s3, bucket, key, NULL), VC_OK);
    }
    va_s3_destroy(&s3);
}

static void test_virtual_hosted(void **state)
{
    (void)state;
    /* RGW runs with rgw dns name = localhost; curl resolves *.localhost to loopback */
    const char *ep = getenv("AWS_ENDPOINT_URL");
    char vep[256];
    const char *port = ep ? strrchr(ep, ':') : NULL;
    snprintf(vep, sizeof vep, "http://localhost%s", port ? port : ":7480");
    va_s3_t *s3 = client_with(VA_S3_ADDR_VIRTUAL, vep, NULL);
    char key[128];
    snprintf(key, sizeof key, "%svirtual hosted+1", prefix);
    round_trip(s3, key, 1000);
    keys_t got = {0};
    va_s3_list_opts_t lo = {.prefix = LIST_PREFIX, .max_keys = 1000};
    assert_int_equal(va_s3_list(s3, bucket, &lo, collect, NULL, &got, NULL), VC_OK);
    assert_int_equal(got.n, NLIST);
    keys_free(&got);
    va_s3_destroy(&s3);
}

/* ---- failures ---- */

static void test_wrong_secret(void **state)
{
    (void)state;
    const char *wrong = "not-the-secret-0123456789abcdefghijklmn";
    va_s3_t *s3 = client_with(VA_S3_ADDR_PATH, NULL, wrong);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_list(s3, bucket, NULL, NULL, NULL, NULL, &s), VC_ERR_AUTH);
    assert_string_equal(s.err_code, "SignatureDoesNotMatch");
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_int_equal(s.http_status, 403);
    assert_int_equal(s.pages, 1);
    assert_non_null(strstr(va_s3_last_error(s3), "SignatureDoesNotMatch"));
    assert_null(strstr(va_s3_last_error(s3), wrong));
    assert_null(strstr(s.err_msg, wrong));
    assert_int_equal(va_s3_put(s3, bucket, "t-s3-never", "x", 1, &s), VC_ERR_AUTH);
    vc_sample_clear(&s);
    va_s3_destroy(&s3);
}

static void test_no_such_bucket(void **state)
{
    (void)state;
    va_s3_t *s3 = client();
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_list(s3, "vantage-no-such-bucket-s3", NULL, NULL, NULL, NULL, &s),
                     VC_ERR_NOTFOUND);
    assert_string_equal(s.err_code, "NoSuchBucket");
    assert_int_equal(s.err_class, VC_EC_CLIENT);
    assert_non_null(strstr(va_s3_last_error(s3), "vantage-no-such-bucket-s3"));
    assert_int_equal(va_s3_get(s3, "vantage-no-such-bucket-s3", "k", NULL, &s), VC_ERR_NOTFOUND);
    assert_string_equal(s.err_code, "NoSuchBucket");
    vc_sample_clear(&s);
    va_s3_destroy(&s3);
}

/* A loopback port that is certainly closed: bound, never listened on. */
static int closed_port(int *fd_out)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *fd_out = fd;
    return ntohs(a.sin_port);
}

static void test_unreachable(void **state)
{
    (void)state;
    int fd, port = closed_port(&fd);
    char ep[64], want[64];
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", port);
    snprintf(want, sizeof want, "127.0.0.1:%d", port);
    va_s3_t *s3 = client_with(VA_S3_ADDR_PATH, ep, NULL);
    vc_sample_t s;
    vc_sample_init(&s);
    assert_int_equal(va_s3_list(s3, bucket, NULL, NULL, NULL, NULL, &s), VC_ERR_NET);
    assert_int_equal(s.err_class, VC_EC_CONNECT);
    assert_int_equal(s.http_status, 0);
    assert_non_null(strstr(s.err_msg, want));
    assert_non_null(strstr(va_s3_last_error(s3), want));
    assert_int_equal(va_s3_put(s3, bucket, "k", "x", 1, &s), VC_ERR_NET);
    assert_int_equal(s.err_class, VC_EC_CONNECT);
    vc_sample_clear(&s);
    va_s3_destroy(&s3);
    close(fd);
}

/* ---- replies RGW never sends, from a tiny loopback server ---- */

typedef struct {
    int lfd;
    const char *replies[4]; /* bodies for successive requests */
} fake_t;

static void *fake_serve(void *arg)
{
    fake_t *f = arg;
    for (int i = 0; i < 4 && f->replies[i]; i++) {
        int c = accept(f->lfd, NULL, NULL);
        if (c < 0)
            return NULL;
        char buf[8192];
        size_t got = 0;
        while (got < sizeof buf - 1) { /* read the request head */
            ssize_t n = read(c, buf + got, sizeof buf - 1 - got);
            if (n <= 0)
                break;
            got += (size_t)n;
            buf[got] = '\0';
            if (strstr(buf, "\r\n\r\n"))
                break;
        }
        char head[256];
        int n = snprintf(head, sizeof head,
                         "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n"
                         "Content-Length: %zu\r\n\r\n",
                         strlen(f->replies[i]));
        if (write(c, head, (size_t)n) < 0 || write(c, f->replies[i], strlen(f->replies[i])) < 0)
            fprintf(stderr, "fake server: write failed\n");
        close(c);
    }
    return NULL;
}

static vc_status_t list_from_fake(const char *r1, const char *r2, vc_sample_t *s, char *err,
                                  size_t errlen)
{
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 4), 0);
    getsockname(lfd, (struct sockaddr *)&a, &len);
    fake_t f = {lfd, {r1, r2, NULL, NULL}};
    pthread_t th;
    pthread_create(&th, NULL, fake_serve, &f);
    char ep[64];
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", ntohs(a.sin_port));
    va_s3_t *s3 = client_with(VA_S3_ADDR_PATH, ep, NULL);
    keys_t got = {0};
    vc_status_t rc = va_s3_list(s3, "b", NULL, collect, NULL, &got, s);
    snprintf(err, errlen, "%s", va_s3_last_error(s3));
    keys_free(&got);
    va_s3_destroy(&s3);
    shutdown(lfd, SHUT_RDWR);
    pthread_join(th, NULL);
    close(lfd);
    return rc;
}

static void test_bad_listings(void **state)
{
    (void)state;
    vc_sample_t s;
    vc_sample_init(&s);
    char err[1024];
    const char *page1 = "<ListBucketResult><IsTruncated>true</IsTruncated>"
                        "<Contents><Key>a</Key></Contents><Contents><Key>b</Key></Contents>"
                        "<NextContinuationToken>tok+/=</NextContinuationToken></ListBucketResult>";
    /* page 2 cut short: the whole listing fails, with what page 1 gave */
    assert_int_equal(list_from_fake(page1, "<ListBucketResult><IsTruncated>false</IsTru", &s, err,
                                    sizeof err),
                     VC_ERR_PROTO);
    assert_int_equal(s.err_class, VC_EC_PROTOCOL);
    assert_string_equal(s.err_code, "MalformedReply");
    assert_int_equal(s.pages, 2);
    assert_int_equal(s.keys, 2);
    assert_non_null(strstr(err, "malformed reply"));
    /* garbage on the first page */
    assert_int_equal(list_from_fake("this is not xml at all", NULL, &s, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(s.err_class, VC_EC_PROTOCOL);
    assert_int_equal(s.pages, 1);
    assert_int_equal(s.keys, 0);
    /* a server that loops on one token is stopped */
    assert_int_equal(list_from_fake(page1, page1, &s, err, sizeof err), VC_ERR_PROTO);
    assert_non_null(strstr(err, "same continuation token"));
    vc_sample_clear(&s);
}

int main(void)
{
    bucket = getenv("VANTAGE_TEST_BUCKET");
    if (!bucket || !getenv("AWS_ENDPOINT_URL")) {
        fprintf(stderr, "needs the RGW environment (tests/servers.sh env)\n");
        return 1;
    }
    snprintf(prefix, sizeof prefix, "t-s3-%d/", (int)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_2500),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_hard_keys),
        cmocka_unit_test(test_virtual_hosted),
        cmocka_unit_test(test_wrong_secret),
        cmocka_unit_test(test_no_such_bucket),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_bad_listings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
