/* Unit tests of va_ais_lso: list request bodies and list reply decoding.
 * Reply bytes are built here with msgpack-c's packer and jansson following
 * ais-rest-api.md §7 and §1 (or copied from the spec's worked example),
 * never with the decoder under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "va_ais_lso.h"

/* ---- request bodies ---- */

static void body_has_exactly_the_sdk_keys(void **state)
{
    (void)state;
    va_ais_lso_msg_t m = {.uuid = "", .prefix = "bench/1k/", .props = "", .token = "",
                          .pagesize = 0, .flags = 0};
    char *s = va_ais_lso_body(&m);
    assert_non_null(s);
    json_error_t e;
    json_t *root = json_loads(s, 0, &e);
    assert_non_null(root);
    assert_int_equal(json_object_size(root), 3);
    assert_string_equal(json_string_value(json_object_get(root, "action")), "list");
    assert_string_equal(json_string_value(json_object_get(root, "name")), "");
    json_t *v = json_object_get(root, "value");
    assert_true(json_is_object(v));
    static const char *keys[] = {"prefix", "pagesize", "uuid", "props", "continuation_token",
                                 "flags", "target"};
    assert_int_equal(json_object_size(v), 7);
    for (size_t i = 0; i < 7; i++)
        assert_non_null(json_object_get(v, keys[i]));
    assert_true(json_is_integer(json_object_get(v, "pagesize")));
    assert_true(json_is_string(json_object_get(v, "flags")));
    assert_string_equal(json_string_value(json_object_get(v, "flags")), "0");
    assert_string_equal(json_string_value(json_object_get(v, "prefix")), "bench/1k/");
    /* no inventory name in the body: it is a header (§2.2) */
    assert_null(strstr(s, "inv"));
    json_decref(root);
    free(s);
}

static void body_quotes_flags_and_echoes_token(void **state)
{
    (void)state;
    const char *tok = "opaque \"tok\"\\/\xc3\xa9+==";
    va_ais_lso_msg_t m = {.uuid = "Xy_12-abc", .prefix = "p/", .token = tok, .pagesize = 1000,
                          .flags = VA_AIS_LS_NBI};
    char *s = va_ais_lso_body(&m);
    assert_non_null(s);
    /* the literal text carries a quoted decimal, as jsoniter's ",string" wants */
    assert_non_null(strstr(s, "\"flags\":\"32768\""));
    assert_non_null(strstr(s, "\"pagesize\":1000"));
    json_t *root = json_loads(s, 0, NULL);
    json_t *v = json_object_get(root, "value");
    assert_string_equal(json_string_value(json_object_get(v, "continuation_token")), tok);
    assert_string_equal(json_string_value(json_object_get(v, "uuid")), "Xy_12-abc");
    json_decref(root);
    free(s);
    m.flags = VA_AIS_LS_NBI | VA_AIS_LS_NAME_SIZE;
    s = va_ais_lso_body(&m);
    assert_non_null(strstr(s, "\"flags\":\"32800\""));
    free(s);
    /* a prefix that is not UTF-8 cannot be sent as JSON */
    m.prefix = "\xff\xfe";
    assert_null(va_ais_lso_body(&m));
}

/* ---- msgpack pages ---- */

typedef struct {
    const char *name;
    int64_t size;
    const char *cs;
    uint32_t flags;
} ent_t;

static void pack_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

/* tinylib/msgp's compact signed encoding: fixint, then int16/32/64 */
static void pack_signed(msgpack_packer *pk, int64_t v)
{
    if (v >= 0 && v <= 127)
        msgpack_pack_int64(pk, v);
    else if (v >= INT16_MIN && v <= INT16_MAX)
        msgpack_pack_fix_int16(pk, (int16_t)v);
    else if (v >= INT32_MIN && v <= INT32_MAX)
        msgpack_pack_fix_int32(pk, (int32_t)v);
    else
        msgpack_pack_fix_int64(pk, v);
}

static void pack_entry(msgpack_packer *pk, const ent_t *e)
{
    int n = 1 + (e->cs != NULL) + (e->size != 0) + (e->flags != 0);
    msgpack_pack_map(pk, (size_t)n);
    pack_str(pk, "n");
    pack_str(pk, e->name);
    if (e->cs) {
        pack_str(pk, "cs");
        pack_str(pk, e->cs);
    }
    if (e->size) {
        pack_str(pk, "s");
        pack_signed(pk, e->size);
    }
    if (e->flags) {
        pack_str(pk, "f");
        msgpack_pack_uint32(pk, e->flags);
    }
}

static void pack_page(msgpack_sbuffer *sb, const char *uuid, const char *tok, const ent_t *e,
                      size_t n, uint32_t flags)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, "UUID");
    pack_str(&pk, uuid);
    pack_str(&pk, "ContinuationToken");
    pack_str(&pk, tok);
    pack_str(&pk, "Entries");
    msgpack_pack_array(&pk, n);
    for (size_t i = 0; i < n; i++)
        pack_entry(&pk, &e[i]);
    pack_str(&pk, "Flags");
    msgpack_pack_uint32(&pk, flags);
}

static void decodes_spec_example(void **state)
{
    (void)state;
    /* ais-rest-api.md §7 worked example */
    static const unsigned char ex[] = {
        0x84, 0xa4, 'U', 'U', 'I', 'D', 0xa3, 'a', 'b', 'c', 0xb1, 'C', 'o', 'n', 't', 'i',
        'n', 'u', 'a', 't', 'i', 'o', 'n', 'T', 'o', 'k', 'e', 'n', 0xa0, 0xa7, 'E', 'n',
        't', 'r', 'i', 'e', 's', 0x91, 0x82, 0xa1, 0x6e, 0xa1, 0x61, 0xa1, 0x73, 0x01, 0xa5,
        'F', 'l', 'a', 'g', 's', 0x00};
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    assert_int_equal(va_ais_page_decode_msgpack(ex, sizeof ex, &p, err, sizeof err), VC_OK);
    assert_string_equal(p.uuid, "abc");
    assert_string_equal(p.token, "");
    assert_int_equal(p.nentries, 1);
    assert_string_equal(p.entries[0].name, "a");
    assert_int_equal(p.entries[0].size, 1);
    assert_int_equal(p.flags, 0);
    va_ais_page_clear(&p);
}

static void decodes_packed_pages(void **state)
{
    (void)state;
    ent_t e[] = {
        {"bench/1k/AAAA", 1, NULL, 0},
        {"bench/1k/BBBB", 300, "0123456789abcdef", 0},           /* int16 size, checksum */
        {"bench/1k/CCCC", 70000, NULL, 64},                        /* int32 size, flags */
        {"bench/1k/dir/", 0, NULL, VA_AIS_ENTRY_IS_DIR},           /* no size */
        {"bench/1k/\xc3\xa9t\xc3\xa9", INT64_C(5000000000), NULL, 0}, /* int64 size, UTF-8 */
    };
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    pack_page(&sb, "uuid-Ab_9", "bench/1k/CCCC", e, 5, 1);
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    assert_int_equal(va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err), VC_OK);
    assert_string_equal(p.uuid, "uuid-Ab_9");
    assert_string_equal(p.token, "bench/1k/CCCC");
    assert_int_equal(p.flags, 1);
    assert_int_equal(p.nentries, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(p.entries[i].name, e[i].name);
        assert_int_equal(p.entries[i].name_len, strlen(e[i].name));
        assert_int_equal(p.entries[i].size, e[i].size);
        assert_int_equal(p.entries[i].flags, e[i].flags);
    }
    /* the page is reused: a second decode replaces the first */
    msgpack_sbuffer_clear(&sb);
    pack_page(&sb, "u2", "", e, 1, 0);
    assert_int_equal(va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err), VC_OK);
    assert_int_equal(p.nentries, 1);
    assert_string_equal(p.uuid, "u2");
    va_ais_page_clear(&p);
    msgpack_sbuffer_destroy(&sb);
}

static void decodes_any_key_order_unknown_keys_and_nil(void **state)
{
    (void)state;
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, "Flags");
    msgpack_pack_uint8(&pk, 0); /* uint8 marker */
    pack_str(&pk, "Entries");
    msgpack_pack_array(&pk, 3);
    msgpack_pack_nil(&pk); /* a nil element is skipped */
    msgpack_pack_map(&pk, 4);
    pack_str(&pk, "v");
    pack_str(&pk, "ver1");
    pack_str(&pk, "zz-new");
    msgpack_pack_array(&pk, 2);
    msgpack_pack_true(&pk);
    msgpack_pack_double(&pk, 1.5);
    pack_str(&pk, "s");
    msgpack_pack_uint16(&pk, 1); /* an unsigned marker for a signed field */
    pack_str(&pk, "n");
    pack_str(&pk, "x");
    pack_entry(&pk, &(ent_t){"y", 2, NULL, 0});
    pack_str(&pk, "ContinuationToken");
    pack_str(&pk, "t");
    pack_str(&pk, "UUID");
    pack_str(&pk, "u");
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    vc_status_t rc = va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(p.nentries, 2);
    assert_string_equal(p.entries[0].name, "x");
    assert_int_equal(p.entries[0].size, 1);
    assert_string_equal(p.entries[1].name, "y");
    assert_string_equal(p.token, "t");
    /* Entries nil, no UUID: an empty last page */
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "ContinuationToken");
    pack_str(&pk, "");
    pack_str(&pk, "Entries");
    msgpack_pack_nil(&pk);
    assert_int_equal(va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err), VC_OK);
    assert_int_equal(p.nentries, 0);
    assert_string_equal(p.uuid, "");
    va_ais_page_clear(&p);
    msgpack_sbuffer_destroy(&sb);
}

static void decodes_array32_pages(void **state)
{
    (void)state;
    enum { N = 70000 }; /* more than array16 holds */
    ent_t *e = calloc(N, sizeof *e);
    char (*names)[24] = calloc(N, 24);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], 24, "nbi/%08d", i);
        e[i] = (ent_t){names[i], 1, NULL, 0};
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    pack_page(&sb, "u", "nbi/00069999", e, N, 0);
    /* array32 marker right after the "Entries" key */
    const char *k = memmem(sb.data, sb.size, "Entries", 7);
    assert_non_null(k);
    assert_int_equal((unsigned char)k[7], 0xdd);
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    assert_int_equal(va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err), VC_OK);
    assert_int_equal(p.nentries, N);
    assert_string_equal(p.entries[N - 1].name, "nbi/00069999");
    assert_string_equal(p.entries[12345].name, "nbi/00012345");
    va_ais_page_clear(&p);
    msgpack_sbuffer_destroy(&sb);
    free(e);
    free(names);
}

static void rejects_every_truncation(void **state)
{
    (void)state;
    ent_t e[] = {{"a/1", 1, "cs", 0}, {"a/2", 40000, NULL, 3}};
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    pack_page(&sb, "uuid", "tok", e, 2, 0);
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    for (size_t n = 0; n < sb.size; n++) {
        err[0] = '\0';
        assert_int_equal(va_ais_page_decode_msgpack(sb.data, n, &p, err, sizeof err),
                         VC_ERR_PROTO);
        assert_true(strlen(err) > 0);
        assert_int_equal(p.nentries, 0);
    }
    /* and trailing bytes after a complete page */
    char *more = malloc(sb.size + 1);
    memcpy(more, sb.data, sb.size);
    more[sb.size] = (char)0xc0;
    assert_int_equal(va_ais_page_decode_msgpack(more, sb.size + 1, &p, err, sizeof err),
                     VC_ERR_PROTO);
    free(more);
    va_ais_page_clear(&p);
    msgpack_sbuffer_destroy(&sb);
}

/* Builds a page whose one field is replaced by a wrong value. */
typedef void (*bad_fn)(msgpack_packer *pk);
static void bad_uuid(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    pack_str(pk, "UUID");
    msgpack_pack_int(pk, 7);
    pack_str(pk, "ContinuationToken");
    pack_str(pk, "");
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
}
static void no_token(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    pack_str(pk, "UUID");
    pack_str(pk, "u");
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
}
static void no_entries(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 1);
    pack_str(pk, "ContinuationToken");
    pack_str(pk, "");
}
static void head2(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    pack_str(pk, "ContinuationToken");
    pack_str(pk, "");
    pack_str(pk, "Entries");
}
static void entries_map(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_map(pk, 0);
}
static void entry_array(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_array(pk, 1);
    pack_str(pk, "n");
}
static void name_int(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 1);
    pack_str(pk, "n");
    msgpack_pack_int(pk, 5);
}
static void no_name(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 1);
    pack_str(pk, "s");
    msgpack_pack_int(pk, 5);
}
static void empty_name(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 1);
    pack_str(pk, "n");
    pack_str(pk, "");
}
static void size_str(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 2);
    pack_str(pk, "n");
    pack_str(pk, "a");
    pack_str(pk, "s");
    pack_str(pk, "1");
}
static void size_negative(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 2);
    pack_str(pk, "n");
    pack_str(pk, "a");
    pack_str(pk, "s");
    msgpack_pack_int64(pk, -1);
}
static void name_with_nul(msgpack_packer *pk)
{
    head2(pk);
    msgpack_pack_array(pk, 1);
    msgpack_pack_map(pk, 1);
    pack_str(pk, "n");
    msgpack_pack_str(pk, 3);
    msgpack_pack_str_body(pk, "a\0b", 3);
}
static void flags_too_big(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    pack_str(pk, "ContinuationToken");
    pack_str(pk, "");
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
    pack_str(pk, "Flags");
    msgpack_pack_uint64(pk, UINT64_C(1) << 40);
}
static void root_array(msgpack_packer *pk)
{
    msgpack_pack_array(pk, 1);
    pack_str(pk, "UUID");
}
static void int_key(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 3);
    msgpack_pack_int(pk, 1);
    pack_str(pk, "x");
    pack_str(pk, "ContinuationToken");
    pack_str(pk, "");
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
}
static void token_bin(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    pack_str(pk, "ContinuationToken");
    msgpack_pack_bin(pk, 1);
    msgpack_pack_bin_body(pk, "t", 1);
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
}
static void token_not_utf8(msgpack_packer *pk)
{
    msgpack_pack_map(pk, 2);
    pack_str(pk, "ContinuationToken");
    msgpack_pack_str(pk, 2);
    msgpack_pack_str_body(pk, "\xff\xfe", 2);
    pack_str(pk, "Entries");
    msgpack_pack_array(pk, 0);
}

static void rejects_wrong_types(void **state)
{
    (void)state;
    static const struct {
        bad_fn fn;
        const char *says;
    } cases[] = {
        {bad_uuid, "UUID"},          {no_token, "ContinuationToken"}, {no_entries, "Entries"},
        {entries_map, "Entries"},    {entry_array, "entry 0"},        {name_int, "name"},
        {no_name, "no name"},        {empty_name, "empty"},           {size_str, "size"},
        {size_negative, "size"},     {name_with_nul, "NUL"},          {flags_too_big, "Flags"},
        {root_array, "not a map"},   {int_key, "key"},                {token_bin, "ContinuationToken"},
        {token_not_utf8, "UTF-8"},
    };
    va_ais_page_t p;
    va_ais_page_init(&p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        cases[i].fn(&pk);
        char err[256] = "";
        vc_status_t rc = va_ais_page_decode_msgpack(sb.data, sb.size, &p, err, sizeof err);
        if (rc != VC_ERR_PROTO || !strstr(err, cases[i].says))
            fail_msg("case %zu: rc %d, err '%s', expected mention of '%s'", i, rc, err,
                     cases[i].says);
        msgpack_sbuffer_destroy(&sb);
    }
    va_ais_page_clear(&p);
}

static void rejects_impossible_lengths(void **state)
{
    (void)state;
    char err[256];
    /* array32 and map32 announcing 4 billion elements in 5 bytes: refused
     * before any decoder allocates for them */
    static const unsigned char arr[] = {0xdd, 0xff, 0xff, 0xff, 0xff};
    static const unsigned char map[] = {0x81, 0xa1, 'x', 0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0};
    static const unsigned char str[] = {0xdb, 0x7f, 0xff, 0xff, 0xff, 'a'};
    static const unsigned char never[] = {0xc1};
    assert_int_equal(va_ais_msgpack_check(arr, sizeof arr, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_ais_msgpack_check(map, sizeof map, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_ais_msgpack_check(str, sizeof str, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_ais_msgpack_check(never, sizeof never, err, sizeof err), VC_ERR_PROTO);
    va_ais_page_t p;
    va_ais_page_init(&p);
    assert_int_equal(va_ais_page_decode_msgpack(arr, sizeof arr, &p, err, sizeof err),
                     VC_ERR_PROTO);
    assert_int_equal(va_ais_page_decode_msgpack("", 0, &p, err, sizeof err), VC_ERR_PROTO);
    va_ais_page_clear(&p);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void check_page_sane(const va_ais_page_t *p)
{
    assert_non_null(p->uuid);
    assert_non_null(p->token);
    for (size_t i = 0; i < p->nentries; i++) {
        assert_true(p->entries[i].name_len > 0);
        assert_int_equal(strlen(p->entries[i].name), p->entries[i].name_len);
        assert_true(p->entries[i].size >= 0);
    }
}

static void survives_random_input(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15u;
    unsigned char buf[256];
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    int ok = 0;
    for (int round = 0; round < 50000; round++) {
        size_t n = rnd(&x) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)rnd(&x);
        vc_status_t rc = va_ais_page_decode_msgpack(buf, n, &p, err, sizeof err);
        assert_true(rc == VC_OK || rc == VC_ERR_PROTO);
        rc = va_ais_page_decode_json(buf, n, &p, err, sizeof err);
        assert_true(rc == VC_OK || rc == VC_ERR_PROTO);
    }
    /* mutations of a valid page exercise the decoder past the first byte */
    ent_t e[] = {{"k/1", 1, "c", 0}, {"k/2", 300, NULL, 5}, {"k/3", 0, NULL, 0}};
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    pack_page(&sb, "uuid", "k/3", e, 3, 0);
    unsigned char *m = malloc(sb.size);
    for (int round = 0; round < 50000; round++) {
        memcpy(m, sb.data, sb.size);
        int flips = 1 + (int)(rnd(&x) % 3);
        for (int f = 0; f < flips; f++)
            m[rnd(&x) % sb.size] = (unsigned char)rnd(&x);
        vc_status_t rc = va_ais_page_decode_msgpack(m, sb.size, &p, err, sizeof err);
        assert_true(rc == VC_OK || rc == VC_ERR_PROTO);
        if (rc == VC_OK) {
            ok++;
            check_page_sane(&p);
        }
    }
    assert_true(ok > 0); /* some mutations only change a name's letters */
    free(m);
    va_ais_page_clear(&p);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- JSON pages ---- */

static void decodes_json_pages(void **state)
{
    (void)state;
    json_t *root = json_pack("{s:s, s:s, s:[{s:s, s:s}, {s:s, s:s, s:i}, {s:s}], s:i}", "uuid",
                             "u1", "continuation_token", "b/2", "entries", "name", "b/1", "size",
                             "1", "name", "b/2", "size", "123456789012", "flags", 256, "name",
                             "b/3", "flags", 0);
    char *s = json_dumps(root, JSON_COMPACT);
    va_ais_page_t p;
    va_ais_page_init(&p);
    char err[256];
    assert_int_equal(va_ais_page_decode_json(s, strlen(s), &p, err, sizeof err), VC_OK);
    assert_string_equal(p.uuid, "u1");
    assert_string_equal(p.token, "b/2");
    assert_int_equal(p.nentries, 3);
    assert_string_equal(p.entries[1].name, "b/2");
    assert_int_equal(p.entries[1].size, INT64_C(123456789012));
    assert_int_equal(p.entries[1].flags, 256);
    assert_int_equal(p.entries[2].size, 0);
    free(s);
    json_decref(root);
    /* entries null (a Go nil slice), trailing newline */
    const char *last = "{\"uuid\":\"u1\",\"continuation_token\":\"\",\"entries\":null,\"flags\":0}\n";
    assert_int_equal(va_ais_page_decode_json(last, strlen(last), &p, err, sizeof err), VC_OK);
    assert_int_equal(p.nentries, 0);
    assert_string_equal(p.token, "");
    va_ais_page_clear(&p);
}

static void rejects_bad_json_pages(void **state)
{
    (void)state;
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"", "parse"},
        {"[]", "not an object"},
        {"{\"uuid\":\"u\",\"entries\":[]}", "continuation_token"},
        {"{\"uuid\":\"u\",\"continuation_token\":\"\"}", "entries"},
        {"{\"continuation_token\":5,\"entries\":[]}", "continuation_token"},
        {"{\"uuid\":1,\"continuation_token\":\"\",\"entries\":[]}", "uuid"},
        {"{\"continuation_token\":\"\",\"entries\":{}}", "entries"},
        {"{\"continuation_token\":\"\",\"entries\":[5]}", "entry 0"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"size\":\"1\"}]}", "name"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":true}]}", "size"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":\"1x\"}]}", "size"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":\"-1\"}]}", "size"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"flags\":\"1\"}]}", "flags"},
        {"{\"continuation_token\":\"\",\"entries\":[{\"name\":\"\"}]}", "empty"},
        {"{\"continuation_token\":\"\",\"entries\":[],\"flags\":-1}", "flags"},
        {"{\"continuation_token\":\"\",\"entries\":[]} trailing", "parse"},
    };
    va_ais_page_t p;
    va_ais_page_init(&p);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256] = "";
        vc_status_t rc =
            va_ais_page_decode_json(cases[i].text, strlen(cases[i].text), &p, err, sizeof err);
        if (rc != VC_ERR_PROTO || !strstr(err, cases[i].says))
            fail_msg("case %zu: rc %d, err '%s', expected mention of '%s'", i, rc, err,
                     cases[i].says);
    }
    /* every truncation of a valid page */
    const char *good = "{\"uuid\":\"u\",\"continuation_token\":\"t\",\"entries\":[{\"name\":\"a\","
                       "\"size\":\"1\"}],\"flags\":0}";
    char err[256];
    for (size_t n = 0; n < strlen(good); n++)
        assert_int_equal(va_ais_page_decode_json(good, n, &p, err, sizeof err), VC_ERR_PROTO);
    assert_int_equal(va_ais_page_decode_json(good, strlen(good), &p, err, sizeof err), VC_OK);
    va_ais_page_clear(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(body_has_exactly_the_sdk_keys),
        cmocka_unit_test(body_quotes_flags_and_echoes_token),
        cmocka_unit_test(decodes_spec_example),
        cmocka_unit_test(decodes_packed_pages),
        cmocka_unit_test(decodes_any_key_order_unknown_keys_and_nil),
        cmocka_unit_test(decodes_array32_pages),
        cmocka_unit_test(rejects_every_truncation),
        cmocka_unit_test(rejects_wrong_types),
        cmocka_unit_test(rejects_impossible_lengths),
        cmocka_unit_test(survives_random_input),
        cmocka_unit_test(decodes_json_pages),
        cmocka_unit_test(rejects_bad_json_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
