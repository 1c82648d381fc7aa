/* Tests of va_http_loop over real loopback TCP: one thread drives many
 * keep-alive connections to va_nullsrv, every request completes exactly once
 * with its own timing record, methods switch freely on one connection, a
 * refused or stalled connection fails alone (with the right outcome) while
 * the others go on, and a loop destroyed with requests in flight leaves its
 * connections usable. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "va_http.h"
#include "va_nullsrv.h"
#include "vc_clock.h"

#define NCONN 8
#define PER_CONN 25

typedef struct {
    va_http_t *h;
    va_http_req_t req;
    va_http_resp_t resp;
    char url[96];
    long timeout_ms; /* 0: 10 s */
    int done;
} conn_t;

static const char *const methods[] = {"GET", "HEAD", "PUT", "DELETE"};

static void begin(conn_t *c, va_http_loop_t *loop, int i)
{
    c->req = (va_http_req_t){.method = methods[i % 4], .url = c->url, .sink = VA_SINK_MEMORY,
                             .body = i % 4 == 2 ? "hello" : NULL, .body_len = i % 4 == 2 ? 5 : 0,
                             .timeout_ms = c->timeout_ms ? c->timeout_ms : 10000};
    assert_int_equal(va_http_begin(c->h, &c->req, &c->resp), VC_OK);
    assert_int_equal(va_http_loop_add(loop, c->h), VC_OK);
}

/* A port nothing listens on. */
static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* A listening socket that never accepts: connections complete in the
 * kernel and requests are never answered. Returns the fd (caller closes). */
static int silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 8), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void drives_many_connections_exactly_once(void **state)
{
    (void)state;
    char err[256];
    va_nullsrv_t *srv = va_nullsrv_new(200, err, sizeof err);
    assert_non_null(srv);
    va_http_loop_t *loop = va_http_loop_new();
    assert_non_null(loop);
    conn_t c[NCONN];
    memset(c, 0, sizeof c);
    for (int i = 0; i < NCONN; i++) {
        c[i].h = va_http_new(NULL);
        assert_non_null(c[i].h);
        va_http_set_owner(c[i].h, &c[i]);
        snprintf(c[i].url, sizeof c[i].url, "http://127.0.0.1:%d/c%d", va_nullsrv_port(srv), i);
        begin(&c[i], loop, i);
    }
    assert_int_equal(va_http_loop_active(loop), NCONN);
    va_http_t *done[NCONN];
    int total = 0;
    vc_mono_ns_t give_up = vc_mono_now() + 30 * VC_NS_PER_S;
    while (va_http_loop_active(loop) > 0) {
        assert_true(vc_mono_now() < give_up);
        int n = va_http_loop_run(loop, 100, done, NCONN);
        assert_true(n >= 0);
        for (int k = 0; k < n; k++) {
            conn_t *x = va_http_owner(done[k]);
            assert_non_null(x);
            assert_int_equal(va_http_result(x->h), VC_OK);
            assert_int_equal(x->resp.status, 200);
            assert_int_equal(x->resp.curl_code, 0);
            assert_true(x->resp.duration_ns > 0);
            assert_true(x->resp.ttfb_us >= 0);
            assert_true(x->resp.ttfb_us * 1000 <= x->resp.duration_ns);
            assert_true(x->resp.cpu_user_us >= 0 && x->resp.cpu_sys_us >= 0);
            if (strcmp(x->req.method, "PUT") == 0)
                assert_int_equal(x->resp.bytes_sent, 5);
            x->done++;
            total++;
            if (x->done < PER_CONN)
                begin(x, loop, x->done + (int)(x - c));
        }
    }
    assert_int_equal(total, NCONN * PER_CONN);
    for (int i = 0; i < NCONN; i++)
        assert_int_equal(c[i].done, PER_CONN);
    assert_int_equal(va_nullsrv_requests(srv), NCONN * PER_CONN);
    /* every connection kept alive across all its requests */
    assert_int_equal(va_nullsrv_connections(srv), NCONN);
    /* nothing in flight: a run returns at once with nothing */
    assert_int_equal(va_http_loop_run(loop, 1000, done, NCONN), 0);
    va_http_loop_destroy(&loop);
    assert_null(loop);
    for (int i = 0; i < NCONN; i++)
        va_http_destroy(&c[i].h);
    va_nullsrv_destroy(&srv);
}

/* A refused connection and a stalled one fail on their own, as
 * VC_ERR_NET and VC_ERR_TIMEOUT naming where, while a third connection keeps
 * completing requests the whole time. */
static void failures_stay_with_their_connection(void **state)
{
    (void)state;
    char err[256];
    va_nullsrv_t *srv = va_nullsrv_new(200, err, sizeof err);
    assert_non_null(srv);
    int silent_port, silent = silent_listener(&silent_port);
    int refused_port = closed_port();
    va_http_loop_t *loop = va_http_loop_new();
    conn_t good = {0}, refused = {0}, stalled = {0};
    conn_t *all[] = {&good, &refused, &stalled};
    snprintf(good.url, sizeof good.url, "http://127.0.0.1:%d/ok", va_nullsrv_port(srv));
    snprintf(refused.url, sizeof refused.url, "http://127.0.0.1:%d/no", refused_port);
    snprintf(stalled.url, sizeof stalled.url, "http://127.0.0.1:%d/wait", silent_port);
    stalled.timeout_ms = 400;
    for (int i = 0; i < 3; i++) {
        all[i]->h = va_http_new(NULL);
        va_http_set_owner(all[i]->h, all[i]);
        begin(all[i], loop, 0);
    }
    vc_mono_ns_t t0 = vc_mono_now();
    int good_before_timeout = 0, refused_seen = 0, stalled_seen = 0;
    va_http_t *done[3];
    while (va_http_loop_active(loop) > 0) {
        assert_true(vc_mono_now() - t0 < 10 * VC_NS_PER_S);
        int n = va_http_loop_run(loop, 100, done, 3);
        assert_true(n >= 0);
        for (int k = 0; k < n; k++) {
            conn_t *x = va_http_owner(done[k]);
            if (x == &good) {
                assert_int_equal(va_http_result(x->h), VC_OK);
                assert_int_equal(x->resp.status, 200);
                good.done++;
                if (!stalled_seen) {
                    good_before_timeout++;
                    begin(&good, loop, 0);
                }
            } else if (x == &refused) {
                refused_seen++;
                assert_int_equal(va_http_result(x->h), VC_ERR_NET);
                assert_int_equal(x->resp.status, 0);
                char where[32];
                snprintf(where, sizeof where, "127.0.0.1:%d", refused_port);
                assert_non_null(strstr(x->resp.error, where));
            } else {
                stalled_seen++;
                assert_int_equal(va_http_result(x->h), VC_ERR_TIMEOUT);
                int64_t ms = (vc_mono_now() - t0) / VC_NS_PER_MS;
                assert_true(ms >= 350 && ms < 5000);
            }
        }
    }
    assert_int_equal(refused_seen, 1);
    assert_int_equal(stalled_seen, 1);
    /* the stalled connection did not hold the loop up */
    assert_true(good_before_timeout > 10);
    va_http_loop_destroy(&loop);
    for (int i = 0; i < 3; i++)
        va_http_destroy(&all[i]->h);
    close(silent);
    va_nullsrv_destroy(&srv);
}

/* Destroying a loop with a request in flight abandons that request; the
 * connection then works on its own (and in a new loop). */
static void destroy_with_requests_in_flight(void **state)
{
    (void)state;
    char err[256];
    va_nullsrv_t *srv = va_nullsrv_new(200, err, sizeof err);
    int silent_port, silent = silent_listener(&silent_port);
    conn_t c = {0};
    c.h = va_http_new(NULL);
    snprintf(c.url, sizeof c.url, "http://127.0.0.1:%d/wait", silent_port);
    va_http_loop_t *loop = va_http_loop_new();
    begin(&c, loop, 0);
    va_http_t *done[1];
    assert_int_equal(va_http_loop_run(loop, 50, done, 1), 0); /* stalled: nothing done */
    assert_int_equal(va_http_loop_active(loop), 1);
    va_http_loop_destroy(&loop);

    snprintf(c.url, sizeof c.url, "http://127.0.0.1:%d/after", va_nullsrv_port(srv));
    va_http_resp_t r;
    va_http_req_t req = {.method = "GET", .url = c.url, .sink = VA_SINK_MEMORY};
    assert_int_equal(va_http_do(c.h, &req, &r), VC_OK);
    assert_int_equal(r.status, 200);
    loop = va_http_loop_new();
    begin(&c, loop, 1); /* HEAD */
    int n = 0;
    while (n == 0)
        n = va_http_loop_run(loop, 1000, done, 1);
    assert_int_equal(n, 1);
    assert_ptr_equal(done[0], c.h);
    assert_int_equal(c.resp.status, 200);
    va_http_loop_destroy(&loop);
    va_http_destroy(&c.h);
    close(silent);
    assert_int_equal(va_nullsrv_requests(srv), 2);
    va_nullsrv_destroy(&srv);
}

/* A request must be begun before it is added. */
static void add_needs_a_begun_request(void **state)
{
    (void)state;
    va_http_loop_t *loop = va_http_loop_new();
    va_http_t *h = va_http_new(NULL);
    assert_int_equal(va_http_loop_add(loop, h), VC_ERR_ARG);
    assert_int_equal(va_http_perform(h), VC_ERR_ARG);
    assert_int_equal(va_http_loop_active(loop), 0);
    va_http_destroy(&h);
    va_http_loop_destroy(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drives_many_connections_exactly_once),
        cmocka_unit_test(failures_stay_with_their_connection),
        cmocka_unit_test(destroy_with_requests_in_flight),
        cmocka_unit_test(add_needs_a_begun_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
