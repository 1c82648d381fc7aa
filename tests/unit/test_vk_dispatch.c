/* Tests of vk_dispatch, the coordinator's ledger of JOBs sent: job ids are
 * unique and keep their instance prefix across a reopen of results.db, rows
 * survive the reopen with their outcome, and consecutive dispatches of one
 * (agent, job) get sequence bases that continue one another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <unistd.h>

#include "vk_dispatch.h"
#include "vk_store.h"
#include "vp_msg.h"

static void open_both(const char *dir, vk_store_t **st, vk_dispatch_log_t **d)
{
    char err[512];
    assert_int_equal(vk_store_open(dir, VK_STORE_CREATE, st, err, sizeof err), VC_OK);
    *d = vk_dispatch_open(*st, err, sizeof err);
    assert_non_null(*d);
}

static void test_ledger(void **state)
{
    (void)state;
    char dir[] = "/tmp/vantage-dispatch-XXXXXX";
    assert_non_null(mkdtemp(dir));
    vk_store_t *st;
    vk_dispatch_log_t *d;
    open_both(dir, &st, &d);
    assert_int_equal(vk_dispatch_count(d), 0);
    assert_int_equal(vk_dispatch_next_base(d, "a", "j", 0), 0);

    uint64_t id1, id2, id3;
    assert_int_equal(vk_dispatch_add(d, "j", "a", 0, 0, &id1), VC_OK);
    assert_int_equal(vk_dispatch_add(d, "j", "b", 0, 0, &id2), VC_OK);
    assert_true(id1 != id2 && id1 > 0 && (id1 >> 32) == (id2 >> 32));
    assert_true(id1 <= (uint64_t)INT64_MAX);
    /* unknown end: the base follows what is stored */
    assert_int_equal(vk_dispatch_next_base(d, "a", "j", 17), 17);
    assert_int_equal(vk_dispatch_end(d, id1, VP_JOB_INTERRUPTED, 40, 2), VC_OK);
    assert_int_equal(vk_dispatch_next_base(d, "a", "j", 17), 40);
    assert_int_equal(vk_dispatch_next_base(d, "b", "j", 5), 5);
    assert_int_equal(vk_dispatch_next_base(d, "a", "other", 0), 0);
    assert_int_equal(vk_dispatch_add(d, "j", "a", 0, 40, &id3), VC_OK);
    assert_int_equal(vk_dispatch_end(d, id3, VP_JOB_OK, 60, 0), VC_OK);
    assert_int_equal(vk_dispatch_next_base(d, "a", "j", 0), 100);
    assert_int_equal(vk_dispatch_end(d, 12345, VP_JOB_OK, 1, 0), VC_ERR_NOTFOUND);

    vk_dispatch_destroy(&d);
    assert_null(d);
    vk_store_destroy(&st);
    open_both(dir, &st, &d);
    assert_int_equal(vk_dispatch_count(d), 3);
    const vk_dispatch_t *r = vk_dispatch_find(d, id1);
    assert_non_null(r);
    assert_string_equal(r->agent, "a");
    assert_int_equal(r->status, VP_JOB_INTERRUPTED);
    assert_int_equal(r->final_seq, 40);
    assert_int_equal(r->errors, 2);
    r = vk_dispatch_find(d, id2);
    assert_int_equal(r->status, VK_DISPATCH_RUNNING);
    assert_int_equal(r->final_seq, -1);
    assert_int_equal(vk_dispatch_next_base(d, "a", "j", 0), 100);
    uint64_t id4;
    assert_int_equal(vk_dispatch_add(d, "j", "c", 1, 0, &id4), VC_OK);
    assert_true((id4 >> 32) == (id1 >> 32));
    assert_true(id4 != id1 && id4 != id2 && id4 != id3);
    vk_dispatch_destroy(&d);
    vk_store_destroy(&st);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_ledger)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
