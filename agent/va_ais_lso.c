/* va_ais_lso: list request bodies (jansson) and list reply pages (msgpack-c
 * or jansson). */
#include "va_ais_lso.h"

#include <inttypes.h>
#include <jansson.h>
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *va_ais_lso_body(const va_ais_lso_msg_t *m)
{
    char flags[24];
    snprintf(flags, sizeof flags, "%" PRIu64, m->flags);
    /* json_string() returns NULL for text that is not UTF-8; json_pack then fails */
    json_t *root = json_pack("{s:s, s:s, s:{s:s, s:I, s:s, s:s, s:s, s:s, s:s}}",
                             "action", "list", "name", "",
                             "value",
                             "prefix", m->prefix ? m->prefix : "",
                             "pagesize", (json_int_t)m->pagesize,
                             "uuid", m->uuid ? m->uuid : "",
                             "props", m->props ? m->props : "",
                             "continuation_token", m->token ? m->token : "",
                             "flags", flags,
                             "target", "");
    if (!root)
        return NULL;
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return s;
}

void va_ais_page_init(va_ais_page_t *p)
{
    memset(p, 0, sizeof *p);
}

void va_ais_page_clear(va_ais_page_t *p)
{
    free(p->uuid);
    free(p->token);
    free(p->entries);
    free(p->arena);
    va_ais_page_init(p);
}

/* Empties a page but keeps its buffers for the next one. */
static void page_reset(va_ais_page_t *p)
{
    free(p->uuid);
    free(p->token);
    p->uuid = p->token = NULL;
    p->flags = 0;
    p->nentries = 0;
    p->arena_len = 0;
}

static vc_status_t page_add(va_ais_page_t *p, const char *name, size_t len, int64_t size,
                            uint32_t flags)
{
    if (p->nentries == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        va_ais_entry_t *e = realloc(p->entries, cap * sizeof *e);
        if (!e)
            return VC_ERR_NOMEM;
        p->entries = e;
        p->cap = cap;
    }
    if (p->arena_len + len + 1 > p->arena_cap) {
        size_t cap = p->arena_cap ? p->arena_cap : 65536;
        while (cap < p->arena_len + len + 1)
            cap *= 2;
        char *a = realloc(p->arena, cap);
        if (!a)
            return VC_ERR_NOMEM;
        p->arena = a;
        p->arena_cap = cap;
    }
    memcpy(p->arena + p->arena_len, name, len);
    p->arena[p->arena_len + len] = '\0';
    p->entries[p->nentries++] = (va_ais_entry_t){
        .name = NULL, .name_len = len, .size = size, .flags = flags, .name_off = p->arena_len};
    p->arena_len += len + 1;
    return VC_OK;
}

/* Names point into the arena only once it stops moving. */
static void page_finish(va_ais_page_t *p)
{
    for (size_t i = 0; i < p->nentries; i++)
        p->entries[i].name = p->arena + p->entries[i].name_off;
}

/* A string the list loop can echo back in JSON: bounded, no NUL, UTF-8. */
static vc_status_t take_string(const char *s, size_t len, size_t max, char **out, const char *what,
                               char *err, size_t errlen)
{
    if (len > max) {
        snprintf(err, errlen, "%s is %zu bytes, more than the %zu allowed", what, len, max);
        return VC_ERR_PROTO;
    }
    if (len && memchr(s, '\0', len)) {
        snprintf(err, errlen, "%s holds a NUL byte", what);
        return VC_ERR_PROTO;
    }
    json_t *probe = json_stringn(s, len);
    if (!probe) {
        snprintf(err, errlen, "%s is not valid UTF-8", what);
        return VC_ERR_PROTO;
    }
    json_decref(probe);
    free(*out);
    *out = strndup(s, len);
    return *out ? VC_OK : VC_ERR_NOMEM;
}

static vc_status_t check_name(const char *s, size_t len, size_t idx, char *err, size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "entry %zu has an empty name", idx);
        return VC_ERR_PROTO;
    }
    if (len > VA_AIS_NAME_MAX) {
        snprintf(err, errlen, "entry %zu has a name of %zu bytes (more than %d)", idx, len,
                 VA_AIS_NAME_MAX);
        return VC_ERR_PROTO;
    }
    if (memchr(s, '\0', len)) {
        snprintf(err, errlen, "entry %zu has a NUL byte in its name", idx);
        return VC_ERR_PROTO;
    }
    return VC_OK;
}

/* ---- msgpack ---------------------------------------------------------- */

static int rd_be(const unsigned char *p, size_t n, uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v = (*v << 8) | p[i];
    return 1;
}

vc_status_t va_ais_msgpack_check(const void *buf, size_t len, char *err, size_t errlen)
{
    const unsigned char *b = buf;
    size_t pos = 0;
    uint64_t pending = 1; /* objects still to read */
    while (pending) {
        if (pos >= len) {
            snprintf(err, errlen, "msgpack reply truncated at byte %zu (%" PRIu64
                                  " more values expected)", pos, pending);
            return VC_ERR_PROTO;
        }
        unsigned char c = b[pos++];
        uint64_t skip = 0, children = 0, n = 0;
        size_t lenbytes = 0;
        int kind = 0; /* 0 scalar with skip bytes, 1 str/bin with lenbytes, 2 array, 3 map, 4 ext */
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
            skip = 0;
        } else if (c >= 0x80 && c <= 0x8f) {
            kind = 3, n = c & 0x0f;
        } else if (c >= 0x90 && c <= 0x9f) {
            kind = 2, n = c & 0x0f;
        } else if (c >= 0xa0 && c <= 0xbf) {
            skip = c & 0x1f;
        } else {
            switch (c) {
            case 0xc4: case 0xd9: kind = 1, lenbytes = 1; break;
            case 0xc5: case 0xda: kind = 1, lenbytes = 2; break;
            case 0xc6: case 0xdb: kind = 1, lenbytes = 4; break;
            case 0xc7: kind = 4, lenbytes = 1; break;
            case 0xc8: kind = 4, lenbytes = 2; break;
            case 0xc9: kind = 4, lenbytes = 4; break;
            case 0xca: skip = 4; break;
            case 0xcb: skip = 8; break;
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: kind = 2, lenbytes = 2; break;
            case 0xdd: kind = 2, lenbytes = 4; break;
            case 0xde: kind = 3, lenbytes = 2; break;
            case 0xdf: kind = 3, lenbytes = 4; break;
            default:
                snprintf(err, errlen, "msgpack reply has the invalid byte 0x%02x at %zu", c,
                         pos - 1);
                return VC_ERR_PROTO;
            }
        }
        if (lenbytes) {
            if (len - pos < lenbytes) {
                snprintf(err, errlen, "msgpack reply truncated in a length at byte %zu", pos);
                return VC_ERR_PROTO;
            }
            rd_be(b + pos, lenbytes, &n);
            pos += lenbytes;
        }
        if (kind == 1)
            skip = n;
        else if (kind == 4)
            skip = n + 1; /* the type byte */
        else if (kind == 2)
            children = n;
        else if (kind == 3)
            children = 2 * n;
        if (skip > len - pos) {
            snprintf(err, errlen, "msgpack reply truncated: a value at byte %zu needs %" PRIu64
                                  " bytes, %zu remain", pos, skip, len - pos);
            return VC_ERR_PROTO;
        }
        pos += (size_t)skip;
        pending = pending - 1 + children;
        /* every value takes at least one byte */
        if (pending > len - pos) {
            snprintf(err, errlen, "msgpack reply truncated or corrupt: %" PRIu64
                                  " values announced at byte %zu, %zu bytes remain", pending,
                     pos, len - pos);
            return VC_ERR_PROTO;
        }
    }
    if (pos != len) {
        snprintf(err, errlen, "msgpack reply has %zu bytes after its end (byte %zu)", len - pos,
                 pos);
        return VC_ERR_PROTO;
    }
    return VC_OK;
}

static int key_is(const msgpack_object *k, const char *s)
{
    size_t n = strlen(s);
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, s, n) == 0;
}

static const char *mp_type(msgpack_object_type t)
{
    switch (t) {
    case MSGPACK_OBJECT_NIL: return "nil";
    case MSGPACK_OBJECT_BOOLEAN: return "boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER: return "integer";
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "negative integer";
    case MSGPACK_OBJECT_FLOAT32: case MSGPACK_OBJECT_FLOAT64: return "float";
    case MSGPACK_OBJECT_STR: return "string";
    case MSGPACK_OBJECT_ARRAY: return "array";
    case MSGPACK_OBJECT_MAP: return "map";
    case MSGPACK_OBJECT_BIN: return "binary";
    case MSGPACK_OBJECT_EXT: return "extension";
    default: return "unknown";
    }
}

static vc_status_t mp_entry(va_ais_page_t *p, const msgpack_object *o, size_t idx, char *err,
                            size_t errlen)
{
    if (o->type == MSGPACK_OBJECT_NIL)
        return VC_OK; /* a nil element: nothing to list */
    if (o->type != MSGPACK_OBJECT_MAP) {
        snprintf(err, errlen, "entry %zu is a %s, not a map", idx, mp_type(o->type));
        return VC_ERR_PROTO;
    }
    const msgpack_object *name = NULL;
    int64_t size = 0;
    uint32_t flags = 0;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
        if (k->type != MSGPACK_OBJECT_STR) {
            snprintf(err, errlen, "entry %zu has a %s key", idx, mp_type(k->type));
            return VC_ERR_PROTO;
        }
        if (key_is(k, "n")) {
            if (v->type != MSGPACK_OBJECT_STR) {
                snprintf(err, errlen, "entry %zu: name is a %s, not a string", idx,
                         mp_type(v->type));
                return VC_ERR_PROTO;
            }
            name = v;
        } else if (key_is(k, "s")) {
            if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > INT64_MAX) {
                snprintf(err, errlen, "entry %zu: size is a %s, not a size", idx,
                         mp_type(v->type));
                return VC_ERR_PROTO;
            }
            size = (int64_t)v->via.u64;
        } else if (key_is(k, "f")) {
            if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > UINT32_MAX) {
                snprintf(err, errlen, "entry %zu: flags is a %s, not an unsigned integer", idx,
                         mp_type(v->type));
                return VC_ERR_PROTO;
            }
            flags = (uint32_t)v->via.u64;
        } /* cs, a, v, t, m, c and keys of later versions: not needed */
    }
    if (!name) {
        snprintf(err, errlen, "entry %zu has no name (\"n\")", idx);
        return VC_ERR_PROTO;
    }
    vc_status_t rc = check_name(name->via.str.ptr, name->via.str.size, idx, err, errlen);
    if (rc)
        return rc;
    return page_add(p, name->via.str.ptr, name->via.str.size, size, flags);
}

vc_status_t va_ais_page_decode_msgpack(const void *buf, size_t len, va_ais_page_t *p, char *err,
                                       size_t errlen)
{
    page_reset(p);
    vc_status_t rc = va_ais_msgpack_check(buf, len, err, errlen);
    if (rc) {
        va_ais_page_clear(p);
        return rc;
    }
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    size_t off = 0;
    int have_token = 0, have_entries = 0;
    msgpack_unpack_return ur = msgpack_unpack_next(&up, buf, len, &off);
    if (ur != MSGPACK_UNPACK_SUCCESS && ur != MSGPACK_UNPACK_EXTRA_BYTES) {
        snprintf(err, errlen, "msgpack reply could not be decoded (%s)",
                 ur == MSGPACK_UNPACK_NOMEM_ERROR ? "out of memory" : "parse error or too deep");
        rc = ur == MSGPACK_UNPACK_NOMEM_ERROR ? VC_ERR_NOMEM : VC_ERR_PROTO;
        goto done;
    }
    const msgpack_object *root = &up.data;
    if (root->type != MSGPACK_OBJECT_MAP) {
        snprintf(err, errlen, "msgpack reply is a %s, not a map", mp_type(root->type));
        rc = VC_ERR_PROTO;
        goto done;
    }
    for (uint32_t i = 0; i < root->via.map.size && !rc; i++) {
        const msgpack_object *k = &root->via.map.ptr[i].key, *v = &root->via.map.ptr[i].val;
        if (key_is(k, "UUID") || key_is(k, "ContinuationToken")) {
            int is_uuid = key_is(k, "UUID");
            const char *what = is_uuid ? "UUID" : "ContinuationToken";
            if (v->type != MSGPACK_OBJECT_STR) {
                snprintf(err, errlen, "%s is a %s, not a string", what, mp_type(v->type));
                rc = VC_ERR_PROTO;
                break;
            }
            rc = take_string(v->via.str.ptr, v->via.str.size, VA_AIS_TOKEN_MAX,
                             is_uuid ? &p->uuid : &p->token, what, err, errlen);
            have_token |= !is_uuid;
        } else if (key_is(k, "Entries")) {
            have_entries = 1;
            if (v->type == MSGPACK_OBJECT_NIL)
                continue;
            if (v->type != MSGPACK_OBJECT_ARRAY) {
                snprintf(err, errlen, "Entries is a %s, not an array", mp_type(v->type));
                rc = VC_ERR_PROTO;
                break;
            }
            for (uint32_t j = 0; j < v->via.array.size && !rc; j++)
                rc = mp_entry(p, &v->via.array.ptr[j], j, err, errlen);
        } else if (key_is(k, "Flags")) {
            if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > UINT32_MAX) {
                snprintf(err, errlen, "Flags is a %s, not an unsigned 32-bit integer",
                         mp_type(v->type));
                rc = VC_ERR_PROTO;
                break;
            }
            p->flags = (uint32_t)v->via.u64;
        } else if (k->type != MSGPACK_OBJECT_STR) {
            snprintf(err, errlen, "msgpack reply has a %s key", mp_type(k->type));
            rc = VC_ERR_PROTO;
        }
    }
    if (!rc && (!have_token || !have_entries)) {
        snprintf(err, errlen, "msgpack reply has no %s: not a list-objects page",
                 !have_token ? "ContinuationToken" : "Entries");
        rc = VC_ERR_PROTO;
    }
    if (!rc && !p->uuid && !(p->uuid = strdup("")))
        rc = VC_ERR_NOMEM;
done:
    msgpack_unpacked_destroy(&up);
    if (rc)
        va_ais_page_clear(p);
    else
        page_finish(p);
    return rc;
}

/* ---- JSON ------------------------------------------------------------- */

static vc_status_t js_size(const json_t *v, size_t idx, int64_t *size, char *err, size_t errlen)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *size = json_integer_value(v);
        return VC_OK;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        int64_t x = 0;
        if (n == 0 || n > 18)
            goto bad;
        for (size_t i = 0; i < n; i++) {
            if (s[i] < '0' || s[i] > '9')
                goto bad;
            x = x * 10 + (s[i] - '0');
        }
        *size = x;
        return VC_OK;
    }
bad:
    snprintf(err, errlen, "entry %zu: size is not a decimal number in a string", idx);
    return VC_ERR_PROTO;
}

static vc_status_t js_entry(va_ais_page_t *p, const json_t *o, size_t idx, char *err,
                            size_t errlen)
{
    if (json_is_null(o))
        return VC_OK;
    if (!json_is_object(o)) {
        snprintf(err, errlen, "entry %zu is not an object", idx);
        return VC_ERR_PROTO;
    }
    const json_t *name = json_object_get(o, "name");
    const json_t *size = json_object_get(o, "size");
    const json_t *flags = json_object_get(o, "flags");
    if (!json_is_string(name)) {
        snprintf(err, errlen, "entry %zu has %s name", idx, name ? "a non-string" : "no");
        return VC_ERR_PROTO;
    }
    int64_t sz = 0;
    uint32_t fl = 0;
    vc_status_t rc = size ? js_size(size, idx, &sz, err, errlen) : VC_OK;
    if (rc)
        return rc;
    if (flags) {
        if (!json_is_integer(flags) || json_integer_value(flags) < 0 ||
            json_integer_value(flags) > UINT32_MAX) {
            snprintf(err, errlen, "entry %zu: flags is not an unsigned integer", idx);
            return VC_ERR_PROTO;
        }
        fl = (uint32_t)json_integer_value(flags);
    }
    rc = check_name(json_string_value(name), json_string_length(name), idx, err, errlen);
    if (rc)
        return rc;
    return page_add(p, json_string_value(name), json_string_length(name), sz, fl);
}

vc_status_t va_ais_page_decode_json(const void *buf, size_t len, va_ais_page_t *p, char *err,
                                    size_t errlen)
{
    page_reset(p);
    vc_status_t rc = VC_OK;
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, 0, &jerr);
    if (!root) {
        snprintf(err, errlen, "JSON reply does not parse at byte %d: %s", jerr.position,
                 jerr.text);
        rc = VC_ERR_PROTO;
        goto done;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "JSON reply is not an object");
        rc = VC_ERR_PROTO;
        goto done;
    }
    const json_t *uuid = json_object_get(root, "uuid");
    const json_t *tok = json_object_get(root, "continuation_token");
    const json_t *ents = json_object_get(root, "entries");
    const json_t *flags = json_object_get(root, "flags");
    if (!tok || !ents) {
        snprintf(err, errlen, "JSON reply has no %s: not a list-objects page",
                 !tok ? "continuation_token" : "entries");
        rc = VC_ERR_PROTO;
        goto done;
    }
    if ((uuid && !json_is_string(uuid)) || !json_is_string(tok)) {
        snprintf(err, errlen, "JSON reply: %s is not a string",
                 !json_is_string(tok) ? "continuation_token" : "uuid");
        rc = VC_ERR_PROTO;
        goto done;
    }
    if (flags && (!json_is_integer(flags) || json_integer_value(flags) < 0 ||
                  json_integer_value(flags) > UINT32_MAX)) {
        snprintf(err, errlen, "JSON reply: flags is not an unsigned integer");
        rc = VC_ERR_PROTO;
        goto done;
    }
    p->flags = flags ? (uint32_t)json_integer_value(flags) : 0;
    rc = take_string(uuid ? json_string_value(uuid) : "", uuid ? json_string_length(uuid) : 0,
                     VA_AIS_TOKEN_MAX, &p->uuid, "uuid", err, errlen);
    if (!rc)
        rc = take_string(json_string_value(tok), json_string_length(tok), VA_AIS_TOKEN_MAX,
                         &p->token, "continuation_token", err, errlen);
    if (rc)
        goto done;
    if (json_is_array(ents)) {
        for (size_t i = 0; i < json_array_size(ents) && !rc; i++)
            rc = js_entry(p, json_array_get(ents, i), i, err, errlen);
    } else if (!json_is_null(ents)) {
        snprintf(err, errlen, "JSON reply: entries is neither an array nor null");
        rc = VC_ERR_PROTO;
    }
done:
    json_decref(root);
    if (rc)
        va_ais_page_clear(p);
    else
        page_finish(p);
    return rc;
}
