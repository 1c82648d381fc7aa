/* Unit tests of va_ais_smap: cluster map, software version, NBI gate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "va_ais_smap.h"

static void parses_smap(void **state)
{
    (void)state;
    /* three targets: one in maintenance (flag 4), one decommissioning (8) */
    const char *body =
        "{\"pmap\":{\"p1\":{\"public_net\":{\"node_ip_addr\":\"127.0.0.1\",\"daemon_port\":\"8080\","
        "\"direct_url\":\"http://127.0.0.1:8080\"},\"daemon_type\":\"proxy\",\"daemon_id\":\"p1\","
        "\"flags\":0}},"
        "\"proxy_si\":{\"public_net\":{\"direct_url\":\"http://127.0.0.1:8080\"},\"daemon_id\":\"p1\"},"
        "\"tmap\":{\"t1\":{\"daemon_id\":\"t1\",\"flags\":0,\"id_digest\":13325442981881837013},\"t2\":{\"daemon_id\":\"t2\",\"flags\":4},"
        "\"t3\":{\"daemon_id\":\"t3\",\"flags\":8},\"t4\":{\"daemon_id\":\"t4\",\"flags\":1}},"
        "\"uuid\":\"cl-1\",\"creation_time\":\"x\",\"version\":\"12\"}";
    va_ais_smap_t m;
    char err[256];
    assert_int_equal(va_ais_smap_parse(body, strlen(body), &m, err, sizeof err), VC_OK);
    assert_int_equal(m.ntargets, 4);
    assert_int_equal(m.nactive, 2);
    assert_int_equal(m.nproxies, 1);
    assert_string_equal(m.version, "12");
    assert_string_equal(m.uuid, "cl-1");
    assert_string_equal(m.primary_id, "p1");
    assert_string_equal(m.primary_url, "http://127.0.0.1:8080");
    static const char *bad[] = {"", "[]", "{\"tmap\":5}", "{\"tmap\":{\"t1\":3}}",
                                "{\"tmap\":{\"t1\":{\"flags\":\"0\"}}}",
                                "{\"tmap\":{\"t1\":{\"flags\":-4}}}", "{\"tmap\":{\"t1\":{\"flags\":1.5}}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (va_ais_smap_parse(bad[i], strlen(bad[i]), &m, err, sizeof err) != VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);
}

static void parses_versions(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int major, minor;
        const char *clean;
    } ok[] = {
        {"5.0.0.d8b7e1f", 5, 0, "5.0.0.d8b7e1f"},
        {"4.3", 4, 3, "4.3"},
        {"\"4.4.1.abc\"\n", 4, 4, "4.4.1.abc"},
        {"v3.28.1", 3, 28, "3.28.1"},
        {"10.12", 10, 12, "10.12"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int ma = -1, mi = -1;
        char clean[32];
        assert_int_equal(va_ais_version_parse(ok[i].text, strlen(ok[i].text), &ma, &mi, clean,
                                              sizeof clean), VC_OK);
        assert_int_equal(ma, ok[i].major);
        assert_int_equal(mi, ok[i].minor);
        assert_string_equal(clean, ok[i].clean);
    }
    static const char *bad[] = {"", "5", "x.y", "5.", ".3", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int ma, mi;
        char clean[32];
        if (va_ais_version_parse(bad[i], strlen(bad[i]), &ma, &mi, clean, sizeof clean) !=
            VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);
    }
}

static void gates_nbi_on_version(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(va_ais_version_check_nbi(4, 3, "4.3", "h:1", err, sizeof err), VC_OK);
    assert_int_equal(va_ais_version_check_nbi(4, 10, "4.10", "h:1", err, sizeof err), VC_OK);
    assert_int_equal(va_ais_version_check_nbi(5, 0, "5.0.0", "h:1", err, sizeof err), VC_OK);
    assert_int_equal(va_ais_version_check_nbi(4, 2, "4.2.7.abc", "127.0.0.1:51080", err,
                                              sizeof err), VC_ERR_UNSUPPORTED);
    /* the message names the version found, where, and what is needed */
    assert_non_null(strstr(err, "4.2.7.abc"));
    assert_non_null(strstr(err, "127.0.0.1:51080"));
    assert_non_null(strstr(err, "4.3"));
    assert_int_equal(va_ais_version_check_nbi(3, 99, "3.99", "h:1", err, sizeof err),
                     VC_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_smap),
        cmocka_unit_test(parses_versions),
        cmocka_unit_test(gates_nbi_on_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
