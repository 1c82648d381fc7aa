/* Tests of vc_endpoint_is_local: which endpoints may carry plain traffic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vc_endpoint.h"

static void test_local(void **state)
{
    (void)state;
    const char *local[] = {"tcp://127.0.0.1:5555", "tcp://127.1.2.3:1", "tcp://localhost:80",
                           "tcp://[::1]:5555",     "inproc://x",        "ipc:///tmp/sock",
                           "tcp://eth0;127.0.0.1:9"};
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        assert_true(vc_endpoint_is_local(local[i]));
}

static void test_not_local(void **state)
{
    (void)state;
    const char *far[] = {"tcp://0.0.0.0:5555", "tcp://*:5555",      "tcp://192.168.1.2:1",
                         "tcp://[::]:5555",    "tcp://[2001:db8::1]:1", "tcp://example.org:5",
                         "tcp://128.0.0.1:5",  "udp://127.0.0.1:5", "tcp://:5",
                         "tcp://[::1:5",       "",                  NULL};
    for (size_t i = 0; i < sizeof far / sizeof *far; i++)
        assert_false(vc_endpoint_is_local(far[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_local),
                                       cmocka_unit_test(test_not_local)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
