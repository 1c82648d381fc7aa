/* Unit tests of va_ais against a scripted local HTTP server: what goes on
 * the wire (paths, headers, bodies, token and uuid echo, redirects with the
 * body re-sent and the token kept), and how replies become samples and
 * errors (pages kept when a listing fails part-way, job timeouts naming the
 * job, error JSON and Hdr-Error, unreachable endpoints, the version gate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <msgpack.h>

#include "fake_http.h"
#include "va_ais.h"
#include "va_http.h"

#define SECRET "SECRET-token-value-123"

#define assert_header(q, name, val)                                                           \
    do {                                                                                      \
        char h_[256];                                                                         \
        const char *v_ = fk_header((q), (name), h_, sizeof h_);                               \
        if (!v_)                                                                              \
            fail_msg("request has no %s header", (name));                                     \
        assert_string_equal(v_, (val));                                                       \
    } while (0)

/* ---- reply builders (ais-rest-api.md §7, §0.1) ---- */

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

/* A msgpack LsoRes with names first..first+n-1 of "k/%04d". */
static void msgpack_page(fk_resp_t *r, const char *uuid, const char *tok, int first, int n)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, "UUID");
    pack_str(&pk, uuid);
    pack_str(&pk, "ContinuationToken");
    pack_str(&pk, tok);
    pack_str(&pk, "Entries");
    msgpack_pack_array(&pk, (size_t)n);
    for (int i = first; i < first + n; i++) {
        char name[32];
        snprintf(name, sizeof name, "k/%04d", i);
        msgpack_pack_map(&pk, 2);
        pack_str(&pk, "n");
        pack_str(&pk, name);
        pack_str(&pk, "s");
        msgpack_pack_int64(&pk, 1);
    }
    pack_str(&pk, "Flags");
    msgpack_pack_uint32(&pk, 0);
    r->status = 200;
    snprintf(r->headers, sizeof r->headers, "Content-Type: application/msgpack\r\n");
    fk_body(r, sb.data, sb.size);
    r->no_length = 1; /* AIS streams msgpack without Content-Length */
    msgpack_sbuffer_destroy(&sb);
}

static void ais_error(fk_resp_t *r, int status, const char *tcode, const char *msg)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"tcode\":\"%s\",\"message\":\"%s\",\"method\":\"GET\",\"url_path\":\"/v1/x\","
             "\"remote_addr\":\"127.0.0.1:1\",\"caller\":\"\",\"node\":\"p[fake]\",\"status\":%d}",
             tcode, msg, status);
    fk_text(r, status, "application/json", body);
}

static json_t *req_json(const fk_req_t *r)
{
    json_t *j = json_loadb(r->body, r->body_len, 0, NULL);
    assert_non_null(j);
    return j;
}

static const char *value_str(json_t *root, const char *key)
{
    return json_string_value(json_object_get(json_object_get(root, "value"), key));
}

static va_ais_t *client(int port, const char *token)
{
    char ep[64], err[256];
    snprintf(ep, sizeof ep, "http://127.0.0.1:%d", port);
    va_ais_opts_t o = {.endpoint = ep, .token = token ? token : "", .timeout_ms = 5000};
    va_ais_t *a = va_ais_new(&o, err, sizeof err);
    assert_non_null(a);
    return a;
}

static va_ais_bck_t bucket(const char *uri)
{
    va_ais_bck_t b;
    char err[256];
    assert_int_equal(va_ais_bck_parse(uri, &b, NULL, 0, err, sizeof err), VC_OK);
    return b;
}

typedef struct {
    int n;
    char names[64][32];
} keys_t;

static int collect(void *arg, const va_ais_entry_t *e)
{
    keys_t *k = arg;
    if (k->n < 64)
        snprintf(k->names[k->n], sizeof k->names[0], "%s", e->name);
    k->n++;
    return 0;
}

/* ---- listing ---- */

static void h_two_pages(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)arg, (void)req;
    if (nth == 0)
        msgpack_page(r, "Uu_12345x", "opaque+tok/==", 0, 3);
    else
        msgpack_page(r, "Uu_12345x", "", 3, 2);
}

static void lists_pages_echoing_uuid_and_token(void **state)
{
    (void)state;
    fk_server_t *s = fk_start(h_two_pages, NULL);
    va_ais_t *a = client(s->port, NULL);
    va_ais_bck_t b = bucket("s3://bk");
    keys_t k = {0};
    va_ais_list_opts_t o = {.prefix = "k/", .on_entry = collect, .arg = &k};
    vc_sample_t smp;
    vc_sample_init(&smp);
    assert_int_equal(va_ais_list(a, &b, &o, &smp), VC_OK);
    assert_string_equal(smp.op, "ais-regular");
    assert_int_equal(smp.pages, 2);
    assert_int_equal(smp.keys, 5);
    assert_int_equal(smp.npages, 2);
    assert_int_equal(smp.page[0].keys, 3);
    assert_int_equal(smp.page[1].keys, 2);
    assert_true(smp.page[0].bytes > 0);
    assert_true(smp.duration_ns >= smp.page[0].duration_ns + smp.page[1].duration_ns);
    assert_int_equal(smp.err_class, VC_EC_NONE);
    assert_int_equal(smp.http_status, 200);
    assert_true(smp.bytes_recv >= smp.page[0].bytes + smp.page[1].bytes);
    assert_int_equal(k.n, 5);
    assert_string_equal(k.names[0], "k/0000");
    assert_string_equal(k.names[4], "k/0004");

    assert_int_equal(s->nlog, 2);
    char h[256];
    for (int i = 0; i < 2; i++) {
        const fk_req_t *q = &s->log[i];
        assert_string_equal(q->method, "GET");
        assert_string_equal(q->target, "/v1/buckets/bk?provider=aws");
        assert_header(q, "Content-Type", "application/json");
        assert_header(q, "Accept", "application/msgpack");
        assert_null(fk_header(q, "Ais-Inv-Name", h, sizeof h));
        assert_null(fk_header(q, "Authorization", h, sizeof h));
        assert_null(fk_header(q, "Expect", h, sizeof h));
    }
    json_t *j0 = req_json(&s->log[0]), *j1 = req_json(&s->log[1]);
    assert_string_equal(json_string_value(json_object_get(j0, "action")), "list");
    assert_string_equal(value_str(j0, "uuid"), "");
    assert_string_equal(value_str(j0, "continuation_token"), "");
    assert_string_equal(value_str(j0, "flags"), "0");
    assert_string_equal(value_str(j0, "prefix"), "k/");
    assert_string_equal(value_str(j1, "uuid"), "Uu_12345x");
    assert_string_equal(value_str(j1, "continuation_token"), "opaque+tok/==");
    json_decref(j0);
    json_decref(j1);
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&s);
}

static void h_nbi_json(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)arg, (void)req;
    if (nth == 0)
        fk_text(r, 200, "application/json; charset=utf-8",
                "{\"uuid\":\"U\",\"continuation_token\":\"b\",\"entries\":[{\"name\":\"a\",\"size\":\"1\"},"
                "{\"name\":\"b\",\"size\":\"1\"}],\"flags\":0}\n");
    else
        fk_text(r, 200, "application/json; charset=utf-8",
                "{\"uuid\":\"U\",\"continuation_token\":\"\",\"entries\":null,\"flags\":0}\n");
}

static void lists_nbi_with_header_and_flag(void **state)
{
    (void)state;
    fk_server_t *s = fk_start(h_nbi_json, NULL);
    va_ais_t *a = client(s->port, SECRET);
    va_ais_bck_t b = bucket("s3://bk");
    va_ais_list_opts_t o = {.prefix = "", .nbi = 1, .inv_name = "inv-1"};
    vc_sample_t smp;
    vc_sample_init(&smp);
    assert_int_equal(va_ais_list(a, &b, &o, &smp), VC_OK);
    assert_string_equal(smp.op, "ais-nbi");
    assert_int_equal(smp.keys, 2);
    assert_int_equal(smp.pages, 2);
    assert_header(&s->log[0], "Ais-Inv-Name", "inv-1");
    assert_header(&s->log[0], "Authorization", "Bearer " SECRET);
    json_t *j = req_json(&s->log[0]);
    assert_string_equal(value_str(j, "flags"), "32768");
    json_decref(j);
    j = req_json(&s->log[1]);
    assert_string_equal(value_str(j, "continuation_token"), "b");
    json_decref(j);
    /* a bad inventory name never reaches the wire (it goes in a header) */
    o.inv_name = "x\r\nEvil: 1";
    assert_int_equal(va_ais_list(a, &b, &o, NULL), VC_ERR_ARG);
    assert_int_equal(s->nlog, 2);
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&s);
}

typedef enum { FAIL_500, FAIL_GARBAGE, FAIL_DROP, FAIL_REPEAT, FAIL_404_HTML } fail_t;

static void h_fail_second(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)req;
    fail_t how = *(fail_t *)arg;
    if (nth == 0) {
        msgpack_page(r, "U", "k/0002", 0, 3);
        return;
    }
    switch (how) {
    case FAIL_500:
        ais_error(r, 500, "ErrInvNotFound", "inventory vanished on t[x]");
        break;
    case FAIL_GARBAGE:
        snprintf(r->headers, sizeof r->headers, "Content-Type: application/msgpack\r\n");
        fk_body(r, "\x84\xa4UUID\xa1U\xdd\xff\xff\xff", 13);
        break;
    case FAIL_DROP:
        r->drop = 1;
        break;
    case FAIL_REPEAT:
        msgpack_page(r, "U", "k/0002", 3, 1);
        break;
    case FAIL_404_HTML:
        fk_text(r, 404, "text/html", "<html>not here</html>");
        break;
    }
}

static void listing_failing_part_way_keeps_pages(void **state)
{
    (void)state;
    static const struct {
        fail_t how;
        vc_status_t rc;
        vc_errclass_t ec;
        const char *code, *says;
        int pages;
    } cases[] = {
        {FAIL_500, VC_ERR_SERVER, VC_EC_SERVER, "ErrInvNotFound", "inventory vanished", 1},
        {FAIL_GARBAGE, VC_ERR_PROTO, VC_EC_PROTOCOL, "BadMsgpack", "page 2", 1},
        {FAIL_DROP, VC_ERR_NET, VC_EC_CONNECT, NULL, "no reply", 1},
        {FAIL_REPEAT, VC_ERR_PROTO, VC_EC_PROTOCOL, "TokenRepeated", "never end", 2},
        {FAIL_404_HTML, VC_ERR_NOTFOUND, VC_EC_CLIENT, "NotFound", "not here", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fail_t how = cases[i].how;
        fk_server_t *s = fk_start(h_fail_second, &how);
        va_ais_t *a = client(s->port, SECRET);
        va_ais_bck_t b = bucket("s3://bk");
        va_ais_list_opts_t o = {.prefix = "k/"};
        vc_sample_t smp;
        vc_sample_init(&smp);
        vc_status_t rc = va_ais_list(a, &b, &o, &smp);
        const char *msg = va_ais_error(a);
        if (rc != cases[i].rc || smp.err_class != cases[i].ec || !strstr(msg, cases[i].says))
            fail_msg("case %zu: rc %d class %d msg '%s'", i, rc, smp.err_class, msg);
        if (cases[i].code)
            assert_string_equal(smp.err_code, cases[i].code);
        /* what was measured before the failure stays in the sample */
        assert_int_equal(smp.pages, cases[i].pages);
        assert_int_equal(smp.npages, (uint32_t)cases[i].pages);
        assert_int_equal(smp.keys, 3 * (cases[i].pages > 0) + (cases[i].pages > 1));
        assert_true(smp.duration_ns > 0);
        assert_true(strlen(smp.err_msg) > 0);
        /* the message names where, and never the token */
        char where[64];
        snprintf(where, sizeof where, "127.0.0.1:%d", s->port);
        assert_non_null(strstr(msg, where));
        assert_null(strstr(msg, SECRET));
        assert_null(strstr(smp.err_msg, SECRET));
        vc_sample_clear(&smp);
        va_ais_destroy(&a);
        fk_stop(&s);
    }
}

/* ---- objects through redirects ---- */

typedef struct {
    fk_server_t *target;
    char stored[4096];
    size_t stored_len;
} redir_t;

static void h_proxy(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)nth;
    redir_t *rd = arg;
    int code = strcmp(req->method, "GET") == 0 ? 301 : 307;
    r->status = code;
    snprintf(r->headers, sizeof r->headers, "Location: http://127.0.0.1:%d%s\r\n",
             rd->target->port, req->target);
}

static void h_target(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)nth;
    redir_t *rd = arg;
    int missing = strstr(req->target, "missing") != NULL;
    if (strcmp(req->method, "PUT") == 0) {
        memcpy(rd->stored, req->body, req->body_len < sizeof rd->stored ? req->body_len : 0);
        rd->stored_len = req->body_len;
        r->status = 200;
    } else if (strcmp(req->method, "HEAD") == 0) {
        if (missing) {
            r->status = 404;
            snprintf(r->headers, sizeof r->headers,
                     "Hdr-Error: {\"tcode\":\"ErrObjNotFound\",\"message\":\"s3://bk/missing "
                     "does not exist\",\"status\":404}\r\nContent-Length: 0\r\n");
        } else {
            snprintf(r->headers, sizeof r->headers, "Content-Length: %zu\r\nAis-Version: 1\r\n",
                     rd->stored_len);
        }
    } else if (strcmp(req->method, "GET") == 0) {
        if (missing)
            ais_error(r, 404, "ErrObjNotFound", "s3://bk/missing does not exist");
        else
            fk_body(r, rd->stored, rd->stored_len);
    } else {
        r->status = 200;
    }
}

static void objects_follow_redirects(void **state)
{
    (void)state;
    redir_t rd = {0};
    rd.target = fk_start(h_target, &rd);
    fk_server_t *proxy = fk_start(h_proxy, &rd);
    va_ais_t *a = client(proxy->port, SECRET);
    va_ais_bck_t b = bucket("s3://bk");
    char data[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7);
    vc_sample_t smp;
    vc_sample_init(&smp);

    /* PUT from memory: 307, body re-sent to the target, token kept */
    assert_int_equal(va_ais_put(a, &b, "dir/obj 1", data, sizeof data, &smp), VC_OK);
    assert_string_equal(smp.op, "put");
    assert_int_equal(rd.stored_len, sizeof data);
    assert_memory_equal(rd.stored, data, sizeof data);
    const fk_req_t *t0 = &rd.target->log[0];
    assert_string_equal(t0->target, "/v1/objects/bk/dir/obj%201?provider=aws");
    assert_header(t0, "Authorization", "Bearer " SECRET);
    assert_int_equal(smp.http_status, 200);

    /* PUT from a file */
    FILE *f = tmpfile();
    fwrite(data, 1, 1000, f);
    fflush(f);
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_put_file(a, &b, "dir/obj2", f, 1000, &smp), VC_OK);
    assert_int_equal(rd.stored_len, 1000);
    assert_memory_equal(rd.stored, data, 1000);
    fclose(f);

    /* GET: 301, bytes to a file, counted */
    f = tmpfile();
    int64_t got = 0;
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_get(a, &b, "dir/obj2", f, &got, &smp), VC_OK);
    assert_int_equal(got, 1000);
    assert_int_equal(smp.bytes_recv, 1000);
    assert_string_equal(smp.op, "get");
    char back[1000];
    rewind(f);
    assert_int_equal(fread(back, 1, sizeof back, f), 1000);
    assert_memory_equal(back, data, 1000);
    fclose(f);
    /* GET discarding */
    assert_int_equal(va_ais_get(a, &b, "dir/obj2", NULL, &got, NULL), VC_OK);
    assert_int_equal(got, 1000);

    /* HEAD: size from Content-Length */
    int64_t size = -5;
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_head(a, &b, "dir/obj2", &size, &smp), VC_OK);
    assert_int_equal(size, 1000);
    assert_string_equal(smp.op, "head");

    /* HEAD of a missing object: the error is in Hdr-Error */
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_head(a, &b, "missing", &size, &smp), VC_ERR_NOTFOUND);
    assert_string_equal(smp.err_code, "ErrObjNotFound");
    assert_non_null(strstr(smp.err_msg, "does not exist"));
    assert_int_equal(smp.err_class, VC_EC_CLIENT);
    assert_int_equal(smp.http_status, 404);

    /* GET of a missing object into a file: the error is parsed, the file untouched */
    f = tmpfile();
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_get(a, &b, "missing", f, &got, &smp), VC_ERR_NOTFOUND);
    assert_string_equal(smp.err_code, "ErrObjNotFound");
    assert_int_equal(ftell(f), 0);
    fclose(f);

    /* DELETE */
    vc_sample_clear(&smp);
    assert_int_equal(va_ais_delete(a, &b, "dir/obj2", &smp), VC_OK);
    assert_string_equal(smp.op, "delete");
    assert_string_equal(rd.target->log[rd.target->nlog - 1].method, "DELETE");

    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&proxy);
    fk_stop(&rd.target);
}

/* ---- NBI create, wait, time ---- */

typedef struct {
    int status_polls; /* how many status replies say "running" */
    int fail;         /* the job ends with an error */
    int polls_seen;
} job_t;

static void h_job(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)nth;
    job_t *j = arg;
    if (strcmp(req->method, "POST") == 0) {
        fk_text(r, 200, NULL, "inv-Job123456");
    } else if (strstr(req->target, "what=status")) {
        char body[256];
        int done = j->polls_seen++ >= j->status_polls;
        snprintf(body, sizeof body,
                 "{\"kind\":\"create-inventory\",\"uuid\":\"inv-Job123456\",\"err\":\"%s\","
                 "\"end_time\":%s,\"aborted\":false}\n", done && j->fail ? "disk full" : "",
                 done ? "1773814509000000000" : "0");
        fk_text(r, 200, "application/json", body);
    } else if (strstr(req->target, "what=qryxstats")) {
        fk_text(r, 200, "application/json",
                "{\"t1\":[{\"start-time\":\"2026-03-18T06:15:07.5Z\",\"end-time\":"
                "\"2026-03-18T06:15:08Z\",\"stats\":{\"loc-objs\":\"400\"}}],"
                "\"t2\":[{\"start-time\":\"2026-03-18T06:15:07.6Z\",\"end-time\":"
                "\"2026-03-18T06:15:09Z\",\"stats\":{\"loc-objs\":\"600\"}}]}\n");
    } else {
        ais_error(r, 400, "", "unexpected");
    }
}

static void creates_waits_and_times_nbi(void **state)
{
    (void)state;
    job_t j = {.status_polls = 2};
    fk_server_t *s = fk_start(h_job, &j);
    va_ais_t *a = client(s->port, NULL);
    va_ais_bck_t b = bucket("s3://bk");
    va_ais_nbi_opts_t o = {.prefix = "bench/1k/", .force = 1};
    char job[VA_AIS_JOB_ID_MAX];
    vc_sample_t smp;
    vc_sample_init(&smp);
    assert_int_equal(va_ais_nbi_create_wait(a, &b, &o, 20, 5000, NULL, job, sizeof job, &smp),
                     VC_OK);
    assert_string_equal(job, "inv-Job123456");
    assert_string_equal(smp.op, "nbi-create");
    assert_int_equal(smp.server_ns, 1500000000); /* 09.0 - 07.5 */
    assert_int_equal(smp.keys, 1000);
    assert_true(smp.duration_ns >= 2 * 20 * 1000000); /* two polls said "running" */
    assert_int_equal(smp.err_class, VC_EC_NONE);
    /* the wire: POST create, 3 status polls, 1 qryxstats */
    assert_int_equal(s->nlog, 5);
    assert_string_equal(s->log[0].method, "POST");
    assert_string_equal(s->log[0].target, "/v1/buckets/bk?provider=aws");
    json_t *c = req_json(&s->log[0]);
    assert_string_equal(json_string_value(json_object_get(c, "action")), "create-inventory");
    assert_string_equal(value_str(c, "prefix"), "bench/1k/");
    json_decref(c);
    assert_header(&s->log[0], "Content-Type", "application/json");
    for (int i = 1; i <= 3; i++) {
        assert_string_equal(s->log[i].method, "GET");
        assert_string_equal(s->log[i].target, "/v1/cluster?what=status");
        json_t *q = req_json(&s->log[i]);
        assert_string_equal(json_string_value(json_object_get(q, "id")), "inv-Job123456");
        assert_string_equal(json_string_value(json_object_get(q, "kind")), "create-inventory");
        json_decref(q);
    }
    assert_string_equal(s->log[4].target, "/v1/cluster?what=qryxstats");
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&s);
}

static void job_wait_times_out_naming_the_job(void **state)
{
    (void)state;
    job_t j = {.status_polls = 1000000};
    fk_server_t *s = fk_start(h_job, &j);
    va_ais_t *a = client(s->port, NULL);
    va_ais_bck_t b = bucket("s3://bk");
    va_ais_nbi_opts_t o = {.prefix = "p/"};
    char job[VA_AIS_JOB_ID_MAX];
    vc_sample_t smp;
    vc_sample_init(&smp);
    vc_mono_ns_t t0 = vc_mono_now();
    assert_int_equal(va_ais_nbi_create_wait(a, &b, &o, 30, 300, NULL, job, sizeof job, &smp),
                     VC_ERR_TIMEOUT);
    int64_t took = vc_mono_now() - t0;
    assert_true(took >= 300 * VC_NS_PER_MS && took < 3000 * VC_NS_PER_MS);
    assert_non_null(strstr(va_ais_error(a), "inv-Job123456"));
    assert_int_equal(smp.err_class, VC_EC_TIMEOUT);
    assert_string_equal(smp.err_code, "JobTimeout");
    assert_int_equal(smp.server_ns, -1);
    assert_true(smp.duration_ns >= 300 * VC_NS_PER_MS);
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&s);

    /* a job that ends with an error */
    j = (job_t){.status_polls = 0, .fail = 1};
    s = fk_start(h_job, &j);
    a = client(s->port, NULL);
    vc_sample_init(&smp);
    assert_int_equal(va_ais_nbi_create_wait(a, &b, &o, 30, 3000, NULL, job, sizeof job, &smp),
                     VC_ERR_SERVER);
    assert_non_null(strstr(va_ais_error(a), "disk full"));
    assert_non_null(strstr(va_ais_error(a), "inv-Job123456"));
    assert_string_equal(smp.err_code, "JobFailed");
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
    fk_stop(&s);
}

/* ---- readiness, version gate ---- */

typedef struct {
    int not_ready; /* health replies 503 this many times */
    const char *version;
} clu_t;

static void h_cluster(void *arg, int nth, const fk_req_t *req, fk_resp_t *r)
{
    (void)nth;
    clu_t *c = arg;
    if (strncmp(req->target, "/v1/health", 10) == 0) {
        if (c->not_ready-- > 0)
            ais_error(r, 503, "", "p[fake] primary is not ready yet");
        else
            r->status = 200;
    } else if (strcmp(req->target, "/v1/cluster?what=smap") == 0) {
        fk_text(r, 200, "application/json",
                "{\"pmap\":{\"p1\":{}},\"proxy_si\":{\"daemon_id\":\"p1\"},\"tmap\":{\"t1\":"
                "{\"flags\":0},\"t2\":{\"flags\":0}},\"uuid\":\"c\",\"version\":\"3\"}");
    } else if (strcmp(req->target, "/v1/daemon?what=software_version") == 0) {
        fk_text(r, 200, NULL, c->version);
    } else {
        ais_error(r, 400, "", "unexpected");
    }
}

static void probes_readiness_and_gates_version(void **state)
{
    (void)state;
    clu_t c = {.not_ready = 2, .version = "5.0.0.abcdef"};
    fk_server_t *s = fk_start(h_cluster, &c);
    va_ais_t *a = client(s->port, NULL);
    va_ais_cluster_t cl;
    assert_int_equal(va_ais_probe(a, 5000, 20, 1, NULL, &cl), VC_OK);
    assert_int_equal(cl.smap.nactive, 2);
    assert_int_equal(cl.major, 5);
    assert_string_equal(cl.version, "5.0.0.abcdef");
    assert_string_equal(s->log[0].target, "/v1/health?prr=true");
    va_ais_destroy(&a);
    fk_stop(&s);

    c = (clu_t){.version = "4.2.7"};
    s = fk_start(h_cluster, &c);
    a = client(s->port, NULL);
    assert_int_equal(va_ais_probe(a, 5000, 20, 1, NULL, &cl), VC_ERR_UNSUPPORTED);
    assert_non_null(strstr(va_ais_error(a), "4.2.7"));
    assert_non_null(strstr(va_ais_error(a), "4.3"));
    /* without NBI an older cluster is fine */
    assert_int_equal(va_ais_probe(a, 5000, 20, 0, NULL, &cl), VC_OK);
    va_ais_destroy(&a);
    fk_stop(&s);

    /* never ready: the probe gives up at its timeout, saying why */
    c = (clu_t){.not_ready = 1000000, .version = "5.0"};
    s = fk_start(h_cluster, &c);
    a = client(s->port, NULL);
    assert_int_equal(va_ais_probe(a, 200, 20, 0, NULL, &cl), VC_ERR_TIMEOUT);
    assert_non_null(strstr(va_ais_error(a), "not ready"));
    va_ais_destroy(&a);
    fk_stop(&s);
}

static void unreachable_endpoint_names_host_port(void **state)
{
    (void)state;
    /* a port nobody listens on: bind one, learn its number, close it */
    fk_server_t *s = fk_start(h_cluster, NULL);
    int port = s->port;
    fk_stop(&s);
    va_ais_t *a = client(port, SECRET);
    va_ais_bck_t b = bucket("s3://bk");
    vc_sample_t smp;
    vc_sample_init(&smp);
    va_ais_list_opts_t o = {0};
    assert_int_equal(va_ais_list(a, &b, &o, &smp), VC_ERR_NET);
    char where[64];
    snprintf(where, sizeof where, "127.0.0.1:%d", port);
    assert_non_null(strstr(va_ais_error(a), where));
    assert_null(strstr(va_ais_error(a), SECRET));
    assert_int_equal(smp.err_class, VC_EC_CONNECT);
    assert_int_equal(smp.pages, 0);
    vc_sample_clear(&smp);
    va_ais_destroy(&a);
}

static void endpoint_from_environment(void **state)
{
    (void)state;
    char err[256];
    unsetenv("AIS_ENDPOINT");
    va_ais_opts_t o = {0};
    assert_null(va_ais_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "AIS_ENDPOINT"));
    setenv("AIS_ENDPOINT", "http://127.0.0.1:51080/", 1);
    setenv("AIS_AUTHN_TOKEN", "bad token\n", 1);
    assert_null(va_ais_new(&o, err, sizeof err));
    assert_null(strstr(err, "bad token"));
    unsetenv("AIS_AUTHN_TOKEN");
    va_ais_t *a = va_ais_new(&o, err, sizeof err);
    assert_non_null(a);
    assert_string_equal(va_ais_endpoint(a), "http://127.0.0.1:51080");
    assert_string_equal(va_ais_where(a), "127.0.0.1:51080");
    va_ais_destroy(&a);
    o.endpoint = "127.0.0.1:51080";
    assert_null(va_ais_new(&o, err, sizeof err));
    assert_non_null(strstr(err, "http://"));
    o.endpoint = "http://127.0.0.1:51080/v1";
    assert_null(va_ais_new(&o, err, sizeof err));
    unsetenv("AIS_ENDPOINT");
}

static void random_names_like_aisloader(void **state)
{
    (void)state;
    uint64_t rng = 42, rng2 = 42;
    char a[64], b[64];
    assert_int_equal(va_ais_random_name(a, sizeof a, "bench/1k/", &rng), VC_OK);
    assert_int_equal(strlen(a), 9 + 32);
    assert_memory_equal(a, "bench/1k/", 9);
    for (int i = 9; i < 41; i++)
        assert_true((a[i] >= 'a' && a[i] <= 'z') || (a[i] >= 'A' && a[i] <= 'Z'));
    assert_int_equal(va_ais_random_name(b, sizeof b, "bench/1k/", &rng2), VC_OK);
    assert_string_equal(a, b); /* same seed, same names */
    assert_int_equal(va_ais_random_name(b, sizeof b, "bench/1k/", &rng2), VC_OK);
    assert_string_not_equal(a, b);
    assert_int_equal(va_ais_random_name(a, 41, "bench/1k/", &rng), VC_ERR_ARG);
}

int main(void)
{
    va_http_global_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_pages_echoing_uuid_and_token),
        cmocka_unit_test(lists_nbi_with_header_and_flag),
        cmocka_unit_test(listing_failing_part_way_keeps_pages),
        cmocka_unit_test(objects_follow_redirects),
        cmocka_unit_test(creates_waits_and_times_nbi),
        cmocka_unit_test(job_wait_times_out_naming_the_job),
        cmocka_unit_test(probes_readiness_and_gates_version),
        cmocka_unit_test(unreachable_endpoint_names_host_port),
        cmocka_unit_test(endpoint_from_environment),
        cmocka_unit_test(random_names_like_aisloader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
