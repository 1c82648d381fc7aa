/* Tests of va_nullsrv over real loopback TCP: fixed status, empty bodies,
 * keep-alive, request bodies skipped, 100-continue, oversized heads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_http.h"
#include "va_nullsrv.h"

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Reads until the peer has sent want bytes or closed; returns what arrived. */
static size_t read_some(int fd, char *buf, size_t cap, size_t want)
{
    size_t n = 0;
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (n < want && n < cap - 1) {
        ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return n;
}

static void answers_through_curl_with_keep_alive(void **state)
{
    (void)state;
    char err[256], url[64];
    va_nullsrv_t *s = va_nullsrv_new(200, err, sizeof err);
    assert_non_null(s);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", va_nullsrv_port(s));
    va_http_t *h = va_http_new(NULL);
    const char *methods[] = {"GET", "HEAD", "PUT", "DELETE", "GET"};
    for (int i = 0; i < 5; i++) {
        va_http_resp_t r;
        va_http_req_t req = {.method = methods[i], .url = url, .sink = VA_SINK_MEMORY,
                             .body = i == 2 ? "hello" : NULL, .body_len = i == 2 ? 5 : 0};
        assert_int_equal(va_http_do(h, &req, &r), VC_OK);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.body_len, 0);
    }
    assert_int_equal(va_nullsrv_requests(s), 5);
    assert_int_equal(va_nullsrv_connections(s), 1); /* keep-alive */
    va_http_destroy(&h);
    va_nullsrv_destroy(&s);
    assert_null(s);
    va_nullsrv_destroy(&s);
}

static void large_bodies_with_expect_continue(void **state)
{
    (void)state;
    char err[256], url[64];
    va_nullsrv_t *s = va_nullsrv_new(404, err, sizeof err);
    assert_non_null(s);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/big", va_nullsrv_port(s));
    static char body[3 << 20]; /* curl asks for 100-continue above 1 MiB */
    va_http_t *h = va_http_new(NULL);
    for (int i = 0; i < 2; i++) {
        va_http_resp_t r;
        va_http_req_t req = {.method = "PUT", .url = url, .body = body, .body_len = sizeof body,
                             .sink = VA_SINK_MEMORY};
        assert_int_equal(va_http_do(h, &req, &r), VC_OK);
        assert_int_equal(r.status, 404);
        assert_int_equal(r.bytes_sent, (int64_t)sizeof body);
    }
    assert_int_equal(va_nullsrv_requests(s), 2);
    assert_int_equal(va_nullsrv_connections(s), 1);
    va_http_destroy(&h);
    va_nullsrv_destroy(&s);
}

static void pipelined_requests_and_raw_replies(void **state)
{
    (void)state;
    char err[256], buf[1024];
    va_nullsrv_t *s = va_nullsrv_new(204, err, sizeof err);
    assert_non_null(s);
    int fd = connect_to(va_nullsrv_port(s));
    const char *two = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                      "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(send(fd, two, strlen(two), 0), (ssize_t)strlen(two));
    const char *one = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
    size_t n = read_some(fd, buf, sizeof buf, 2 * strlen(one));
    assert_int_equal(n, 2 * strlen(one));
    assert_memory_equal(buf, one, strlen(one));
    assert_memory_equal(buf + strlen(one), one, strlen(one));
    close(fd);
    va_nullsrv_destroy(&s);
}

static void oversized_head_closes_the_connection(void **state)
{
    (void)state;
    char err[256], buf[256];
    va_nullsrv_t *s = va_nullsrv_new(200, err, sizeof err);
    assert_non_null(s);
    int fd = connect_to(va_nullsrv_port(s));
    static char junk[70000];
    memset(junk, 'a', sizeof junk);
    send(fd, junk, sizeof junk, MSG_NOSIGNAL);
    assert_int_equal(read_some(fd, buf, sizeof buf, 1), 0); /* closed, no answer */
    close(fd);
    /* and it still serves others */
    fd = connect_to(va_nullsrv_port(s));
    const char *req = "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n";
    send(fd, req, strlen(req), 0);
    assert_int_equal(read_some(fd, buf, sizeof buf, 1), 0); /* a bad length: closed */
    close(fd);
    assert_int_equal(va_nullsrv_requests(s), 0);
    va_nullsrv_destroy(&s);
}

static void bad_status_is_refused(void **state)
{
    (void)state;
    char err[256];
    assert_null(va_nullsrv_new(99, err, sizeof err));
    assert_non_null(strstr(err, "99"));
    assert_null(va_nullsrv_new(600, err, sizeof err));
}

int main(void)
{
    va_http_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answers_through_curl_with_keep_alive),
        cmocka_unit_test(large_bodies_with_expect_continue),
        cmocka_unit_test(pipelined_requests_and_raw_replies),
        cmocka_unit_test(oversized_head_closes_the_connection),
        cmocka_unit_test(bad_status_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
