/* va_ais_bck: bucket URIs, query strings and path escaping for AIS. */
#include "va_ais_bck.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *scheme;
    const char *provider;
} schemes[] = {
    {"s3", "aws"},  {"aws", "aws"},     {"ais", "ais"}, {"gs", "gcp"}, {"gcp", "gcp"},
    {"az", "azure"}, {"azure", "azure"}, {"oci", "oci"}, {"ht", "ht"},  {NULL, NULL},
};

static int name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

/* AIS bucket names and namespace parts: letters, digits, '-', '_', '.' and
 * never "." or ".." (cmn/bck.go ValidateName). */
static int valid_name(const char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!name_char((unsigned char)s[i]))
            return 0;
    return 1;
}

/* "@uuid#name" or "#name" (cmn/bck.go ParseNsUname), either part may be empty
 * but not both. */
static int valid_ns(const char *s, size_t n)
{
    if (n < 2 || (s[0] != '@' && s[0] != '#'))
        return 0;
    const char *hash = memchr(s, '#', n);
    if (!hash)
        return 0;
    size_t ulen = s[0] == '@' ? (size_t)(hash - s - 1) : 0;
    size_t nlen = n - (size_t)(hash - s) - 1;
    if (s[0] == '#' && hash != s)
        return 0;
    if (ulen && !valid_name(s + 1, ulen))
        return 0;
    if (nlen && !valid_name(hash + 1, nlen))
        return 0;
    return ulen + nlen > 0;
}

vc_status_t va_ais_bck_parse(const char *uri, va_ais_bck_t *bck, char *path, size_t pathlen,
                             char *err, size_t errlen)
{
    memset(bck, 0, sizeof *bck);
    if (path && pathlen)
        path[0] = '\0';
    if (!uri || !*uri) {
        snprintf(err, errlen, "no bucket given: write it as s3://BUCKET or ais://BUCKET");
        return VC_ERR_ARG;
    }
    const char *sep = strstr(uri, "://");
    if (!sep) {
        snprintf(err, errlen,
                 "'%s' has no provider: write s3://BUCKET[/PATH] (AIS provider aws) or "
                 "ais://BUCKET[/PATH]", uri);
        return VC_ERR_ARG;
    }
    size_t slen = (size_t)(sep - uri);
    const char *provider = NULL;
    for (int i = 0; schemes[i].scheme; i++)
        if (strlen(schemes[i].scheme) == slen && strncmp(uri, schemes[i].scheme, slen) == 0)
            provider = schemes[i].provider;
    if (!provider) {
        snprintf(err, errlen,
                 "unknown provider '%.*s' in '%s': use s3:// (or aws://), ais://, gs://, az://, "
                 "oci:// or ht://", (int)(slen > 32 ? 32 : slen), uri, uri);
        return VC_ERR_ARG;
    }
    snprintf(bck->provider, sizeof bck->provider, "%s", provider);

    const char *p = sep + 3;
    if (*p == '@' || *p == '#') {
        const char *slash = strchr(p, '/');
        size_t nlen = slash ? (size_t)(slash - p) : strlen(p);
        if (!valid_ns(p, nlen) || nlen >= sizeof bck->ns) {
            snprintf(err, errlen,
                     "bad namespace in '%s': write ais://@UUID#NAME/BUCKET with letters, "
                     "digits, '-', '_' and '.'", uri);
            return VC_ERR_ARG;
        }
        memcpy(bck->ns, p, nlen);
        bck->ns[nlen] = '\0';
        p += nlen;
        if (*p == '/')
            p++;
    }
    const char *slash = strchr(p, '/');
    size_t blen = slash ? (size_t)(slash - p) : strlen(p);
    if (!valid_name(p, blen) || blen >= sizeof bck->name) {
        snprintf(err, errlen,
                 "bad bucket name in '%s': it must be 1 to %d letters, digits, '-', '_' or '.' "
                 "(and not '.' or '..')", uri, (int)sizeof bck->name - 1);
        return VC_ERR_ARG;
    }
    memcpy(bck->name, p, blen);
    bck->name[blen] = '\0';

    const char *rest = slash ? slash + 1 : "";
    size_t rlen = strlen(rest);
    if (rlen && !path) {
        snprintf(err, errlen, "'%s' names an object or prefix where only a bucket is expected",
                 uri);
        return VC_ERR_ARG;
    }
    for (size_t i = 0; i < rlen; i++) {
        unsigned char c = (unsigned char)rest[i];
        if (c < 0x20 || c == 0x7f) {
            snprintf(err, errlen, "object name or prefix in '%s' has a control character "
                                  "(byte %zu)", bck->name, (size_t)(rest - uri) + i);
            return VC_ERR_ARG;
        }
    }
    if (rlen > VA_AIS_OBJNAME_MAX || (path && rlen >= pathlen)) {
        snprintf(err, errlen, "object name or prefix in '%s' is longer than %d bytes",
                 uri, VA_AIS_OBJNAME_MAX);
        return VC_ERR_ARG;
    }
    if (path)
        memcpy(path, rest, rlen + 1);
    return VC_OK;
}

void va_ais_bck_format(const va_ais_bck_t *bck, char *out, size_t outlen)
{
    const char *scheme = strcmp(bck->provider, "aws") == 0 ? "s3" : bck->provider;
    snprintf(out, outlen, "%s://%s%s%s", scheme, bck->ns, bck->ns[0] ? "/" : "", bck->name);
}

static vc_status_t escape(const char *in, char *out, size_t outlen, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' ||
                   *p == '~' || (keep_slash && *p == '/');
        if (o + (keep ? 1 : 3) >= outlen)
            return VC_ERR_ARG;
        if (keep) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    if (o >= outlen)
        return VC_ERR_ARG;
    out[o] = '\0';
    return VC_OK;
}

vc_status_t va_ais_escape_path(const char *in, char *out, size_t outlen)
{
    return escape(in, out, outlen, 1);
}

vc_status_t va_ais_bck_query(const va_ais_bck_t *bck, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "provider=%s", bck->provider);
    if (n < 0 || (size_t)n >= outlen)
        return VC_ERR_ARG;
    if (!bck->ns[0])
        return VC_OK;
    n += snprintf(out + n, outlen - (size_t)n, "&namespace=");
    if ((size_t)n >= outlen)
        return VC_ERR_ARG;
    return escape(bck->ns, out + n, outlen - (size_t)n, 0);
}
