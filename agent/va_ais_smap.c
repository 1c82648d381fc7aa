/* va_ais_smap: cluster map, software version and the NBI version gate. */
#include "va_ais_smap.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vc_status_t va_ais_smap_parse(const char *body, size_t len, va_ais_smap_t *m, char *err,
                              size_t errlen)
{
    memset(m, 0, sizeof *m);
    json_error_t jerr;
    /* id_digest is a uint64 that jansson's int64 cannot hold: read numbers as
     * reals (flags and version stay exact) */
    json_t *root = json_loadb(body, len, JSON_DECODE_INT_AS_REAL, &jerr);
    if (!root) {
        snprintf(err, errlen, "cluster map reply does not parse at byte %d: %s", jerr.position,
                 jerr.text);
        return VC_ERR_PROTO;
    }
    vc_status_t rc = VC_ERR_PROTO;
    const json_t *tmap = json_object_get(root, "tmap");
    const json_t *pmap = json_object_get(root, "pmap");
    if (!json_is_object(root) || !(json_is_object(tmap) || json_is_null(tmap)) ||
        !(json_is_object(pmap) || json_is_null(pmap) || !pmap)) {
        snprintf(err, errlen, "cluster map reply has no target map (tmap)");
        goto done;
    }
    const char *id;
    json_t *node;
    json_object_foreach((json_t *)tmap, id, node) {
        if (!json_is_object(node)) {
            snprintf(err, errlen, "cluster map: target %.64s is not an object", id);
            goto done;
        }
        const json_t *fl = json_object_get(node, "flags");
        double f = fl && json_is_number(fl) ? json_number_value(fl) : 0;
        if (fl && (!json_is_number(fl) || f < 0 || f > 9007199254740992.0 || f != (double)(uint64_t)f)) {
            snprintf(err, errlen, "cluster map: target %.64s has flags that are not a count", id);
            goto done;
        }
        m->ntargets++;
        if (!((uint64_t)f & VA_AIS_SNODE_MAINT_MASK))
            m->nactive++;
    }
    m->nproxies = json_is_object(pmap) ? (int)json_object_size(pmap) : 0;
    const json_t *v = json_object_get(root, "version");
    if (json_is_string(v))
        snprintf(m->version, sizeof m->version, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(m->version, sizeof m->version, "%.0f", json_number_value(v));
    const json_t *u = json_object_get(root, "uuid");
    if (json_is_string(u))
        snprintf(m->uuid, sizeof m->uuid, "%s", json_string_value(u));
    const json_t *psi = json_object_get(root, "proxy_si");
    const json_t *pid = json_object_get(psi, "daemon_id");
    if (json_is_string(pid))
        snprintf(m->primary_id, sizeof m->primary_id, "%s", json_string_value(pid));
    const json_t *url = json_object_get(json_object_get(psi, "public_net"), "direct_url");
    if (json_is_string(url))
        snprintf(m->primary_url, sizeof m->primary_url, "%s", json_string_value(url));
    rc = VC_OK;
done:
    json_decref(root);
    return rc;
}

vc_status_t va_ais_version_parse(const char *text, size_t len, int *major, int *minor,
                                 char *clean, size_t cleanlen)
{
    size_t i = 0, o = 0;
    if (cleanlen)
        clean[0] = '\0';
    while (i < len && (text[i] == ' ' || text[i] == '"' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i < len && (text[i] == 'v' || text[i] == 'V'))
        i++;
    for (size_t j = i; j < len && o + 1 < cleanlen && o < 31; j++) {
        unsigned char c = (unsigned char)text[j];
        if (c == '"' || c == '\n' || c == '\r' || c == ' ')
            break;
        clean[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    if (cleanlen)
        clean[o] = '\0';
    long ma = 0, mi = 0;
    size_t start = i;
    while (i < len && text[i] >= '0' && text[i] <= '9' && ma < 100000)
        ma = ma * 10 + (text[i++] - '0');
    if (i == start || i >= len || text[i] != '.')
        return VC_ERR_PROTO;
    start = ++i;
    while (i < len && text[i] >= '0' && text[i] <= '9' && mi < 100000)
        mi = mi * 10 + (text[i++] - '0');
    if (i == start)
        return VC_ERR_PROTO;
    *major = (int)ma;
    *minor = (int)mi;
    return VC_OK;
}

vc_status_t va_ais_version_check_nbi(int major, int minor, const char *version,
                                     const char *where, char *err, size_t errlen)
{
    if (major > VA_AIS_NBI_MIN_MAJOR ||
        (major == VA_AIS_NBI_MIN_MAJOR && minor >= VA_AIS_NBI_MIN_MINOR))
        return VC_OK;
    snprintf(err, errlen,
             "AIS at %s runs version %s; Native Bucket Inventory needs AIStore %d.%d or later "
             "(upgrade the cluster or measure only the regular listing)",
             where, version && *version ? version : "(unknown)", VA_AIS_NBI_MIN_MAJOR,
             VA_AIS_NBI_MIN_MINOR);
    return VC_ERR_UNSUPPORTED;
}
