/* Tests of va_batcher: batches are sealed at batch_max samples, a partial
 * batch is handed out only when asked, pages are deep-copied, the fd is
 * readable exactly while a sealed batch waits, a full queue blocks the worker
 * until the sender takes a batch, and abort releases a blocked worker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "va_batcher.h"
#include "vc_clock.h"

static vc_sample_t sample(int run)
{
    vc_sample_t s;
    vc_sample_init(&s);
    VC_SAMPLE_SET(&s, op, "null");
    s.run = run;
    s.duration_ns = 1;
    return s;
}

static int readable(const va_batcher_t *b)
{
    struct pollfd p = {.fd = va_batcher_fd(b), .events = POLLIN};
    return poll(&p, 1, 0) == 1;
}

static void test_count_and_partial(void **state)
{
    (void)state;
    va_batcher_t *b = va_batcher_new(10, 4);
    assert_non_null(b);
    for (int i = 0; i < 25; i++) {
        vc_sample_t s = sample(i);
        assert_int_equal(va_batcher_add(b, &s), VC_OK);
    }
    assert_true(readable(b));
    assert_int_equal(va_batcher_pending(b), 25);
    vc_sample_t *batch;
    int next = 0;
    for (int k = 0; k < 2; k++) {
        size_t n = va_batcher_take(b, 0, &batch);
        assert_int_equal(n, 10);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(batch[i].run, next++);
        va_batcher_release(b, batch, n);
    }
    assert_false(readable(b));
    assert_int_equal(va_batcher_take(b, 0, &batch), 0); /* the open batch is not full */
    size_t n = va_batcher_take(b, 1, &batch);
    assert_int_equal(n, 5);
    assert_int_equal(batch[0].run, 20);
    assert_int_equal(batch[4].run, 24);
    va_batcher_release(b, batch, n);
    assert_int_equal(va_batcher_take(b, 1, &batch), 0);
    assert_int_equal(va_batcher_pending(b), 0);
    va_batcher_destroy(&b);
    assert_null(b);
    va_batcher_destroy(&b);
}

static void test_pages_copied(void **state)
{
    (void)state;
    va_batcher_t *b = va_batcher_new(2, 1);
    vc_sample_t s = sample(1);
    assert_int_equal(vc_sample_add_page(&s, 5, 1000, 77), VC_OK);
    assert_int_equal(vc_sample_add_page(&s, 6, 500, 33), VC_OK);
    assert_int_equal(va_batcher_add(b, &s), VC_OK);
    vc_sample_clear(&s); /* the caller's copy goes away */
    vc_sample_t *batch;
    size_t n = va_batcher_take(b, 1, &batch);
    assert_int_equal(n, 1);
    assert_int_equal(batch[0].npages, 2);
    assert_int_equal(batch[0].page[1].keys, 500);
    va_batcher_release(b, batch, n);
    va_batcher_destroy(&b);
}

typedef struct {
    va_batcher_t *b;
    int count;
    atomic_int added;
    vc_status_t last;
} producer_t;

static void *produce(void *arg)
{
    producer_t *p = arg;
    for (int i = 0; i < p->count; i++) {
        vc_sample_t s = sample(i);
        p->last = va_batcher_add(p->b, &s);
        if (p->last != VC_OK)
            break;
        atomic_fetch_add(&p->added, 1);
    }
    return NULL;
}

static void wait_added(producer_t *p, int n)
{
    for (int i = 0; i < 2000 && atomic_load(&p->added) < n; i++)
        vc_sleep_ns(VC_NS_PER_MS);
}

static void test_backpressure(void **state)
{
    (void)state;
    /* 2 sealed batches of 5 plus a full open batch of 5: the 16th add blocks. */
    producer_t p = {.b = va_batcher_new(5, 2), .count = 30};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
    wait_added(&p, 15);
    vc_sleep_ns(50 * VC_NS_PER_MS); /* give a wrongly unblocked producer time to show it */
    assert_int_equal(atomic_load(&p.added), 15);
    vc_sample_t *batch;
    int seen = 0;
    while (seen < 30) {
        size_t n = va_batcher_take(p.b, atomic_load(&p.added) == 30, &batch);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(batch[i].run, seen++);
        va_batcher_release(p.b, batch, n);
        if (!n)
            vc_sleep_ns(VC_NS_PER_MS);
    }
    pthread_join(th, NULL);
    assert_int_equal(p.last, VC_OK);
    va_batcher_destroy(&p.b);
}

static void test_abort_releases(void **state)
{
    (void)state;
    producer_t p = {.b = va_batcher_new(1, 1), .count = 10};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
    wait_added(&p, 2);
    va_batcher_abort(p.b);
    pthread_join(th, NULL);
    assert_int_equal(p.last, VC_ERR_CANCELLED);
    assert_int_equal(atomic_load(&p.added), 2);
    va_batcher_reset(p.b);
    vc_sample_t s = sample(0);
    vc_sample_t *batch;
    size_t n;
    while ((n = va_batcher_take(p.b, 1, &batch)) > 0)
        va_batcher_release(p.b, batch, n);
    assert_int_equal(va_batcher_add(p.b, &s), VC_OK);
    va_batcher_destroy(&p.b);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    assert_null(va_batcher_new(0, 1));
    assert_null(va_batcher_new(1, 0));
    assert_null(va_batcher_new(1000000, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_and_partial), cmocka_unit_test(test_pages_copied),
        cmocka_unit_test(test_backpressure),      cmocka_unit_test(test_abort_releases),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
