/* Unit tests of va_ais_job: RFC 3339 times, job status, and the server-side
 * duration from per-target snapshots (ais-rest-api.md §4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "va_ais_job.h"

#define S INT64_C(1000000000)

static void parses_rfc3339(void **state)
{
    (void)state;
    int64_t ns;
    int zero;
    /* 2026-03-18T06:15:07Z = 1773814507 s since the epoch (date -u -d ... +%s) */
    assert_int_equal(va_ais_rfc3339_parse("2026-03-18T06:15:07Z", &ns, &zero), VC_OK);
    assert_int_equal(ns, INT64_C(1773814507) * S);
    assert_int_equal(zero, 0);
    /* the same instant with a -04:00 offset and 9 fractional digits */
    assert_int_equal(va_ais_rfc3339_parse("2026-03-18T02:15:07.123456789-04:00", &ns, &zero),
                     VC_OK);
    assert_int_equal(ns, INT64_C(1773814507) * S + 123456789);
    /* trailing zeros trimmed by Go: .5 is half a second */
    assert_int_equal(va_ais_rfc3339_parse("2026-03-18T11:45:07.5+05:30", &ns, &zero), VC_OK);
    assert_int_equal(ns, INT64_C(1773814507) * S + 500000000);
    assert_int_equal(va_ais_rfc3339_parse("1970-01-01T00:00:00Z", &ns, &zero), VC_OK);
    assert_int_equal(ns, 0);
    assert_int_equal(zero, 0);
    /* leap day */
    assert_int_equal(va_ais_rfc3339_parse("2024-02-29T00:00:00Z", &ns, &zero), VC_OK);
    assert_int_equal(ns, INT64_C(1709164800) * S);
    /* Go's zero time: a running job's end-time */
    assert_int_equal(va_ais_rfc3339_parse("0001-01-01T00:00:00Z", &ns, &zero), VC_OK);
    assert_int_equal(zero, 1);
    static const char *bad[] = {
        "", "2026-03-18", "2026-03-18T06:15:07", "2026-13-18T06:15:07Z",
        "2026-03-18T06:15:07.Z", "2026-03-18T06:15:07.1234567891Z", "2026-03-18T06:15:07+0400",
        "2026-03-18T25:15:07Z", "2026-03-18T06:15:07Zx", "abcd-03-18T06:15:07Z",
        "1066-10-14T09:00:00Z", "2026-03-18X06:15:07Z",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (va_ais_rfc3339_parse(bad[i], &ns, &zero) != VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);
}

static json_t *snap(const char *start, const char *end, const char *objs)
{
    json_t *s = json_pack("{s:n, s:s, s:s, s:s, s:s, s:b}", "ext", "start-time", start,
                          "end-time", end, "id", "inv-Tp4nR7kWx", "kind", "create-inventory",
                          "aborted", 0);
    if (objs)
        json_object_set_new(s, "stats", json_pack("{s:s, s:s}", "loc-objs", objs, "loc-bytes",
                                                  "0"));
    return s;
}

static void computes_total_time_over_targets(void **state)
{
    (void)state;
    /* three targets, different offsets; earliest start t1 (06:15:07.1Z),
     * latest end t3 (06:15:09.6Z) written as +02:00 */
    json_t *root = json_object();
    json_object_set_new(root, "t1", json_pack("[o]", snap("2026-03-18T02:15:07.1-04:00",
                                                          "2026-03-18T06:15:08Z", "300")));
    json_object_set_new(root, "t2", json_pack("[o]", snap("2026-03-18T06:15:07.2Z",
                                                          "2026-03-18T06:15:09.25Z", "350")));
    json_object_set_new(root, "t3", json_pack("[o]", snap("2026-03-18T06:15:07.3Z",
                                                          "2026-03-18T08:15:09.6+02:00", "350")));
    char *s = json_dumps(root, JSON_COMPACT);
    va_ais_job_time_t t;
    char err[256];
    assert_int_equal(va_ais_job_total_time(s, strlen(s), &t, err, sizeof err), VC_OK);
    assert_int_equal(t.total_ns, 2500000000);
    assert_int_equal(t.ntargets, 3);
    assert_int_equal(t.nsnaps, 3);
    assert_int_equal(t.nrunning, 0);
    assert_int_equal(t.objs, 1000);
    free(s);
    /* one target still running: its zero end-time does not count */
    json_object_set_new(root, "t4", json_pack("[o]", snap("2026-03-18T06:15:07.15Z",
                                                          "0001-01-01T00:00:00Z", NULL)));
    s = json_dumps(root, JSON_COMPACT);
    assert_int_equal(va_ais_job_total_time(s, strlen(s), &t, err, sizeof err), VC_OK);
    assert_int_equal(t.total_ns, 2500000000);
    assert_int_equal(t.nrunning, 1);
    free(s);
    json_decref(root);
}

static void total_time_errors(void **state)
{
    (void)state;
    va_ais_job_time_t t;
    char err[256];
    const char *none = "{}";
    assert_int_equal(va_ais_job_total_time(none, strlen(none), &t, err, sizeof err),
                     VC_ERR_NOTFOUND);
    const char *running = "{\"t1\":[{\"start-time\":\"2026-03-18T06:15:07Z\","
                          "\"end-time\":\"0001-01-01T00:00:00Z\"}]}";
    assert_int_equal(va_ais_job_total_time(running, strlen(running), &t, err, sizeof err),
                     VC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "running"));
    static const char *bad[] = {
        "", "[]", "{\"t1\":5}", "{\"t1\":[{\"start-time\":\"x\",\"end-time\":\"y\"}]}",
        "{\"t1\":[{\"end-time\":\"2026-03-18T06:15:07Z\"}]}",
        "{\"t1\":[{\"start-time\":\"2026-03-18T06:15:08Z\",\"end-time\":\"2026-03-18T06:15:07Z\"}]}",
        "{\"t1\":[{\"start-time\":\"2026-03-18T06:15:07Z\",\"end-time\":\"2026-03-18T06:15:08Z\","
        "\"stats\":{\"loc-objs\":\"12x\"}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (va_ais_job_total_time(bad[i], strlen(bad[i]), &t, err, sizeof err) != VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);
}

static void parses_status_and_ids(void **state)
{
    (void)state;
    va_ais_job_status_t st;
    char err[256];
    const char *run = "{\"kind\":\"create-inventory\",\"uuid\":\"inv-abc\",\"err\":\"\","
                      "\"end_time\":0,\"aborted\":false}\n";
    assert_int_equal(va_ais_job_status_parse(run, strlen(run), &st, err, sizeof err), VC_OK);
    assert_int_equal(st.end_time_ns, 0);
    assert_string_equal(st.uuid, "inv-abc");
    const char *done = "{\"kind\":\"create-inventory\",\"uuid\":\"inv-abc\",\"err\":\"boom\","
                       "\"end_time\":1773814507000000000,\"aborted\":true,\"is_idle\":true}";
    assert_int_equal(va_ais_job_status_parse(done, strlen(done), &st, err, sizeof err), VC_OK);
    assert_int_equal(st.end_time_ns, INT64_C(1773814507000000000));
    assert_int_equal(st.aborted, 1);
    assert_string_equal(st.err, "boom");
    static const char *bad[] = {"", "{}", "{\"end_time\":\"1\"}", "{\"end_time\":-5}",
                                "{\"end_time\":1,\"aborted\":\"no\"}", "{\"end_time\":1,\"err\":3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (va_ais_job_status_parse(bad[i], strlen(bad[i]), &st, err, sizeof err) != VC_ERR_PROTO)
            fail_msg("accepted '%s'", bad[i]);

    char id[VA_AIS_JOB_ID_MAX];
    assert_int_equal(va_ais_job_id_parse("inv-Tp4nR7kWx\n", 14, id, sizeof id, err, sizeof err),
                     VC_OK);
    assert_string_equal(id, "inv-Tp4nR7kWx");
    assert_int_equal(va_ais_job_id_parse("", 0, id, sizeof id, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_ais_job_id_parse("{\"x\":1}", 7, id, sizeof id, err, sizeof err),
                     VC_ERR_PROTO);
    assert_int_equal(va_ais_job_id_parse("inv-\x01", 5, id, sizeof id, err, sizeof err),
                     VC_ERR_PROTO);

    char *q = va_ais_job_query_body("inv-abc", "create-inventory");
    json_t *root = json_loads(q, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(root, "id")), "inv-abc");
    assert_string_equal(json_string_value(json_object_get(root, "kind")), "create-inventory");
    assert_int_equal(json_object_size(root), 2);
    json_decref(root);
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_rfc3339),
        cmocka_unit_test(computes_total_time_over_targets),
        cmocka_unit_test(total_time_errors),
        cmocka_unit_test(parses_status_and_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
