/* Unit tests of va_ais_nbi: create/show/destroy bodies and the show reply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "va_ais_nbi.h"

static void create_body_has_only_set_keys(void **state)
{
    (void)state;
    char err[256];
    /* bench.py's create: {"prefix":P,"force":true} */
    va_ais_nbi_opts_t o = {.prefix = "bench/1k/", .force = 1};
    char *s = va_ais_nbi_create_body(&o, err, sizeof err);
    assert_non_null(s);
    json_t *root = json_loads(s, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(root, "action")), "create-inventory");
    assert_string_equal(json_string_value(json_object_get(root, "name")), "");
    json_t *v = json_object_get(root, "value");
    assert_int_equal(json_object_size(v), 2);
    assert_string_equal(json_string_value(json_object_get(v, "prefix")), "bench/1k/");
    assert_true(json_is_true(json_object_get(v, "force")));
    json_decref(root);
    free(s);
    /* every option; only CreateNBIMsg keys */
    o = (va_ais_nbi_opts_t){.name = "inv1.a", .prefix = "p/", .names_per_chunk = 1000,
                            .pagesize = 500, .force = 0};
    s = va_ais_nbi_create_body(&o, err, sizeof err);
    root = json_loads(s, 0, NULL);
    v = json_object_get(root, "value");
    assert_int_equal(json_object_size(v), 4);
    assert_string_equal(json_string_value(json_object_get(v, "name")), "inv1.a");
    assert_int_equal(json_integer_value(json_object_get(v, "names_per_chunk")), 1000);
    assert_int_equal(json_integer_value(json_object_get(v, "pagesize")), 500);
    assert_null(json_object_get(v, "force"));
    assert_null(json_object_get(v, "continuation_token"));
    json_decref(root);
    free(s);
    /* nothing set: an empty value object, never null */
    o = (va_ais_nbi_opts_t){0};
    s = va_ais_nbi_create_body(&o, err, sizeof err);
    assert_non_null(strstr(s, "\"value\":{}"));
    free(s);
}

static void create_body_rejects_bad_options(void **state)
{
    (void)state;
    char err[256];
    va_ais_nbi_opts_t o = {.names_per_chunk = 1};
    assert_null(va_ais_nbi_create_body(&o, err, sizeof err));
    assert_non_null(strstr(err, "640000"));
    o = (va_ais_nbi_opts_t){.names_per_chunk = 640001};
    assert_null(va_ais_nbi_create_body(&o, err, sizeof err));
    o = (va_ais_nbi_opts_t){.name = "bad name"};
    assert_null(va_ais_nbi_create_body(&o, err, sizeof err));
    assert_int_equal(va_ais_nbi_name_check("a..b", err, sizeof err), VC_ERR_ARG);
    assert_int_equal(va_ais_nbi_name_check("a.b-c_D9", err, sizeof err), VC_OK);
    assert_int_equal(va_ais_nbi_name_check("x\r\nEvil: 1", err, sizeof err), VC_ERR_ARG);
}

static void action_bodies(void **state)
{
    (void)state;
    char *s = va_ais_nbi_action_body("destroy-inventory", NULL);
    assert_string_equal(s, "{\"action\":\"destroy-inventory\",\"name\":\"\",\"value\":null}");
    free(s);
    s = va_ais_nbi_action_body("show-inventory", "inv-1");
    json_t *root = json_loads(s, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(root, "name")), "inv-1");
    assert_true(json_is_null(json_object_get(root, "value")));
    json_decref(root);
    free(s);
}

static void parses_show_reply(void **state)
{
    (void)state;
    const char *body =
        "{\"aws/@#/b/inv-B\":{\"bucket\":\"s3://b\",\"name\":\"inv-B\",\"obj_name\":\"aws/@#/b/inv-B\","
        "\"size\":100,\"prefix\":\"bench/1k/\",\"started\":1000,\"finished\":5000,\"ntotal\":1000,"
        "\"smap_ver\":7,\"chunks\":3,\"nat\":3},"
        "\"aws/@#/b/inv-A\":{\"name\":\"inv-A\"}}\n";
    va_ais_inv_t *inv;
    size_t n;
    char err[256];
    assert_int_equal(va_ais_nbi_show_parse(body, strlen(body), &inv, &n, err, sizeof err), VC_OK);
    assert_int_equal(n, 2);
    /* the reply's order is kept: bench.py takes the first */
    assert_string_equal(inv[0].name, "inv-B");
    assert_string_equal(inv[0].obj_name, "aws/@#/b/inv-B");
    assert_string_equal(inv[0].prefix, "bench/1k/");
    assert_int_equal(inv[0].ntotal, 1000);
    assert_int_equal(inv[0].finished_ns - inv[0].started_ns, 4000);
    assert_int_equal(inv[0].nat, 3);
    assert_string_equal(inv[1].name, "inv-A");
    assert_int_equal(inv[1].ntotal, -1);
    free(inv);
    assert_int_equal(va_ais_nbi_show_parse("{}", 2, &inv, &n, err, sizeof err), VC_OK);
    assert_int_equal(n, 0);
    assert_null(inv);
    static const char *bad[] = {"", "[]", "{\"x\":5}", "{\"x\":{\"name\":5}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (va_ais_nbi_show_parse(bad[i], strlen(bad[i]), &inv, &n, err, sizeof err) !=
            VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);
        assert_null(inv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_body_has_only_set_keys),
        cmocka_unit_test(create_body_rejects_bad_options),
        cmocka_unit_test(action_bodies),
        cmocka_unit_test(parses_show_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
