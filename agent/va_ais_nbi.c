/* va_ais_nbi: inventory create/show/destroy messages. */
#include "va_ais_nbi.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vc_status_t va_ais_nbi_name_check(const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (n == 0 || n > 255) {
        snprintf(err, errlen, "inventory name must be 1 to 255 characters");
        return VC_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (c == '.' && (i == 0 || name[i - 1] != '.'));
        if (!ok) {
            snprintf(err, errlen,
                     "inventory name '%.64s' may hold only letters, digits, '-', '_' and "
                     "single dots", name);
            return VC_ERR_ARG;
        }
    }
    return VC_OK;
}

char *va_ais_nbi_create_body(const va_ais_nbi_opts_t *o, char *err, size_t errlen)
{
    if (o->name && *o->name && va_ais_nbi_name_check(o->name, err, errlen))
        return NULL;
    if (o->names_per_chunk &&
        (o->names_per_chunk < VA_AIS_NBI_CHUNK_MIN || o->names_per_chunk > VA_AIS_NBI_CHUNK_MAX)) {
        snprintf(err, errlen, "names per chunk must be %d to %d (or 0 for the default)",
                 VA_AIS_NBI_CHUNK_MIN, VA_AIS_NBI_CHUNK_MAX);
        return NULL;
    }
    if (o->pagesize < 0) {
        snprintf(err, errlen, "page size must not be negative");
        return NULL;
    }
    json_t *value = json_object();
    json_t *root = json_object();
    int bad = !value || !root;
    /* only non-default keys, in the order of CreateNBIMsg */
    if (!bad && o->name && *o->name)
        bad |= json_object_set_new(value, "name", json_string(o->name));
    if (!bad && o->prefix && *o->prefix)
        bad |= json_object_set_new(value, "prefix", json_string(o->prefix));
    if (!bad && o->pagesize > 0)
        bad |= json_object_set_new(value, "pagesize", json_integer(o->pagesize));
    if (!bad && o->names_per_chunk > 0)
        bad |= json_object_set_new(value, "names_per_chunk", json_integer(o->names_per_chunk));
    if (!bad && o->force)
        bad |= json_object_set_new(value, "force", json_true());
    if (!bad)
        bad |= json_object_set_new(root, "action", json_string("create-inventory"));
    if (!bad)
        bad |= json_object_set_new(root, "name", json_string(""));
    if (!bad) {
        bad |= json_object_set_new(root, "value", value);
        value = NULL;
    }
    char *s = bad ? NULL : json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!s)
        snprintf(err, errlen, "cannot build the create-inventory request (prefix not UTF-8?)");
    json_decref(value);
    json_decref(root);
    return s;
}

char *va_ais_nbi_action_body(const char *action, const char *name)
{
    json_t *root = json_pack("{s:s, s:s, s:n}", "action", action, "name", name ? name : "",
                             "value");
    if (!root)
        return NULL;
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return s;
}

static int64_t int_or(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void str_to(char *out, size_t outlen, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    snprintf(out, outlen, "%s", json_is_string(v) ? json_string_value(v) : "");
}

vc_status_t va_ais_nbi_show_parse(const char *body, size_t len, va_ais_inv_t **invs, size_t *n,
                                  char *err, size_t errlen)
{
    *invs = NULL;
    *n = 0;
    json_error_t jerr;
    json_t *root = json_loadb(body, len, 0, &jerr);
    if (!root) {
        snprintf(err, errlen, "show-inventory reply does not parse at byte %d: %s",
                 jerr.position, jerr.text);
        return VC_ERR_PROTO;
    }
    vc_status_t rc = VC_ERR_PROTO;
    if (!json_is_object(root)) {
        snprintf(err, errlen, "show-inventory reply is not an object");
        goto done;
    }
    size_t cnt = json_object_size(root);
    if (cnt == 0) {
        rc = VC_OK;
        goto done;
    }
    va_ais_inv_t *out = calloc(cnt, sizeof *out);
    if (!out) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach(root, key, v) {
        va_ais_inv_t *x = &out[i++];
        if (!json_is_object(v) || !json_is_string(json_object_get(v, "name"))) {
            snprintf(err, errlen, "show-inventory entry '%.64s' has no name", key);
            free(out);
            goto done;
        }
        snprintf(x->obj_name, sizeof x->obj_name, "%s", key);
        str_to(x->name, sizeof x->name, v, "name");
        str_to(x->bucket, sizeof x->bucket, v, "bucket");
        str_to(x->prefix, sizeof x->prefix, v, "prefix");
        x->size = int_or(v, "size");
        x->started_ns = int_or(v, "started");
        x->finished_ns = int_or(v, "finished");
        x->ntotal = int_or(v, "ntotal");
        x->smap_ver = int_or(v, "smap_ver");
        x->chunks = int_or(v, "chunks");
        x->nat = int_or(v, "nat");
    }
    *invs = out;
    *n = cnt;
    rc = VC_OK;
done:
    json_decref(root);
    return rc;
}
