/* va_sigv4: AWS SigV4 header signing on OpenSSL (SHA-256, HMAC-SHA256). */
#include "va_sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char hexdig[] = "0123456789abcdef";

static void to_hex(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[in[i] >> 4];
        out[2 * i + 1] = hexdig[in[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Appends to a bounded buffer; a miss sets *rc so a chain of appends checks once. */
typedef struct {
    char *p;
    size_t len, cap;
    vc_status_t rc;
} sbuf_t;

static void sb_put(sbuf_t *b, const char *s, size_t n)
{
    if (b->rc)
        return;
    if (b->len + n + 1 > b->cap) {
        b->rc = VC_ERR_ARG;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf_t *b, const char *s) { sb_put(b, s, strlen(s)); }
static void sb_chr(sbuf_t *b, char c) { sb_put(b, &c, 1); }

static sbuf_t sb_init(char *out, size_t outsz)
{
    sbuf_t b = {out, 0, outsz, VC_OK};
    if (!out || outsz == 0)
        b.rc = VC_ERR_ARG;
    else
        out[0] = '\0';
    return b;
}

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

vc_status_t va_sigv4_uri_encode(const char *in, size_t len, int keep_slash, char *out,
                                size_t outsz, size_t *outlen)
{
    static const char HEX[] = "0123456789ABCDEF";
    if (!in && len)
        return VC_ERR_ARG;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            if (o + 2 > outsz)
                return VC_ERR_ARG;
            out[o++] = (char)c;
        } else {
            if (o + 4 > outsz)
                return VC_ERR_ARG;
            out[o++] = '%';
            out[o++] = HEX[c >> 4];
            out[o++] = HEX[c & 15];
        }
    }
    if (o + 1 > outsz)
        return VC_ERR_ARG;
    out[o] = '\0';
    if (outlen)
        *outlen = o;
    return VC_OK;
}

typedef struct {
    char *name;
    char *value;
} enc_kv_t;

static int cmp_enc_kv(const void *a, const void *b)
{
    const enc_kv_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->value, y->value);
}

/* Encodes s into a fresh heap string (caller frees). */
static char *encode_dup(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    char *out = malloc(3 * n + 1);
    if (out && va_sigv4_uri_encode(s ? s : "", n, 0, out, 3 * n + 1, NULL) != VC_OK) {
        free(out);
        out = NULL;
    }
    return out;
}

vc_status_t va_sigv4_canonical_query(const va_sigv4_kv_t *q, size_t n, char *out, size_t outsz)
{
    sbuf_t b = sb_init(out, outsz);
    if (b.rc || n > VA_SIGV4_MAX_QUERY || (n && !q))
        return VC_ERR_ARG;
    enc_kv_t enc[VA_SIGV4_MAX_QUERY] = {{0}};
    vc_status_t rc = VC_OK;
    for (size_t i = 0; i < n; i++) {
        if (!q[i].name || !*q[i].name) {
            rc = VC_ERR_ARG;
            goto done;
        }
        enc[i].name = encode_dup(q[i].name);
        enc[i].value = encode_dup(q[i].value);
        if (!enc[i].name || !enc[i].value) {
            rc = VC_ERR_NOMEM;
            goto done;
        }
    }
    qsort(enc, n, sizeof enc[0], cmp_enc_kv);
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_chr(&b, '&');
        sb_str(&b, enc[i].name);
        sb_chr(&b, '=');
        sb_str(&b, enc[i].value);
    }
    rc = b.rc;
done:
    for (size_t i = 0; i < n; i++) {
        free(enc[i].name);
        free(enc[i].value);
    }
    return rc;
}

typedef struct {
    char name[64];
    const char *value;
} lc_header_t;

static int cmp_header(const void *a, const void *b)
{
    return strcmp(((const lc_header_t *)a)->name, ((const lc_header_t *)b)->name);
}

/* Trimmed value with inner runs of blanks collapsed to one space. */
static void put_trimmed(sbuf_t *b, const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    const char *end = v + strlen(v);
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    /* the usual value (a host, a date, a hash) has no inner blank to squeeze */
    if (!memchr(v, ' ', (size_t)(end - v)) && !memchr(v, '\t', (size_t)(end - v))) {
        sb_put(b, v, (size_t)(end - v));
        return;
    }
    int blank = 0;
    for (const char *p = v; p < end; p++) {
        if (*p == ' ' || *p == '\t') {
            blank = 1;
            continue;
        }
        if (blank)
            sb_chr(b, ' ');
        blank = 0;
        sb_chr(b, *p);
    }
}

vc_status_t va_sigv4_canonical_headers(const va_sigv4_kv_t *h, size_t n, char *canon,
                                       size_t canonsz, char *signed_headers, size_t signedsz)
{
    sbuf_t c = sb_init(canon, canonsz), s = sb_init(signed_headers, signedsz);
    if (c.rc || s.rc || n == 0 || n > VA_SIGV4_MAX_HEADERS || !h)
        return VC_ERR_ARG;
    lc_header_t hs[VA_SIGV4_MAX_HEADERS];
    for (size_t i = 0; i < n; i++) {
        size_t nl = h[i].name ? strlen(h[i].name) : 0;
        if (nl == 0 || nl >= sizeof hs[i].name || !h[i].value)
            return VC_ERR_ARG;
        for (size_t k = 0; k <= nl; k++) {
            char ch = h[i].name[k];
            if (ch == ':' || ch == '\n' || ch == '\r' || ch == ' ')
                return VC_ERR_ARG;
            hs[i].name[k] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
        }
        if (strpbrk(h[i].value, "\r\n"))
            return VC_ERR_ARG;
        hs[i].value = h[i].value;
    }
    qsort(hs, n, sizeof hs[0], cmp_header);
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(hs[i].name, hs[i - 1].name) == 0)
            return VC_ERR_ARG;
        sb_str(&c, hs[i].name);
        sb_chr(&c, ':');
        put_trimmed(&c, hs[i].value);
        sb_chr(&c, '\n');
        if (i)
            sb_chr(&s, ';');
        sb_str(&s, hs[i].name);
    }
    return c.rc ? c.rc : s.rc;
}

/* The canonical request from headers already made canonical. */
static vc_status_t canonical_request(const va_sigv4_req_t *req, const char *headers,
                                     const char *signed_h, char *out, size_t outsz)
{
    char query[8192];
    vc_status_t rc = va_sigv4_canonical_query(req->query, req->nquery, query, sizeof query);
    if (rc)
        return rc;
    sbuf_t b = sb_init(out, outsz);
    sb_str(&b, req->method);
    sb_chr(&b, '\n');
    sb_str(&b, *req->canonical_uri ? req->canonical_uri : "/");
    sb_chr(&b, '\n');
    sb_str(&b, query);
    sb_chr(&b, '\n');
    sb_str(&b, headers);
    sb_chr(&b, '\n');
    sb_str(&b, signed_h);
    sb_chr(&b, '\n');
    sb_str(&b, req->payload_hash);
    return b.rc;
}

vc_status_t va_sigv4_canonical_request(const va_sigv4_req_t *req, char *out, size_t outsz)
{
    if (!req || !req->method || !req->canonical_uri || !req->payload_hash)
        return VC_ERR_ARG;
    char headers[8192], signed_h[1024];
    vc_status_t rc = va_sigv4_canonical_headers(req->headers, req->nheaders, headers,
                                                sizeof headers, signed_h, sizeof signed_h);
    return rc ? rc : canonical_request(req, headers, signed_h, out, outsz);
}

vc_status_t va_sigv4_amz_date(time_t t, char amz_date[VA_SIGV4_AMZDATE_LEN + 1], char date[9])
{
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1970)
        return VC_ERR_ARG;
    if (amz_date && strftime(amz_date, VA_SIGV4_AMZDATE_LEN + 1, "%Y%m%dT%H%M%SZ", &tm) == 0)
        return VC_ERR_ARG;
    if (date && strftime(date, 9, "%Y%m%d", &tm) == 0)
        return VC_ERR_ARG;
    return VC_OK;
}

/* SHA-256 fetched from the provider once: OpenSSL 3 looks EVP_sha256() up
 * again on every digest and HMAC, which costs more than hashing a short
 * canonical request. */
static EVP_MD *sha256_fetched;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static void sha256_fetch(void) { sha256_fetched = EVP_MD_fetch(NULL, "SHA256", NULL); }

static const EVP_MD *sha256(void)
{
    pthread_once(&sha256_once, sha256_fetch);
    return sha256_fetched ? sha256_fetched : EVP_sha256();
}

void va_sigv4_sha256_hex(const void *data, size_t len, char hex[VA_SIGV4_HEX_LEN + 1])
{
    uint8_t md[32];
    unsigned int mdlen = 0;
    if (!EVP_Digest(data ? data : "", len, md, &mdlen, sha256(), NULL) || mdlen != 32)
        memset(md, 0, sizeof md); /* cannot happen with a working libcrypto; the server rejects it */
    to_hex(md, 32, hex);
}

static vc_status_t hmac(const void *key, size_t keylen, const char *msg, uint8_t out[32])
{
    unsigned int len = 0;
    if (!HMAC(sha256(), key, (int)keylen, (const unsigned char *)msg, strlen(msg), out, &len) ||
        len != 32)
        return VC_ERR_INTERNAL;
    return VC_OK;
}

/* The string to sign around the canonical request's hash. */
static vc_status_t string_to_sign(const char *amz_date, const char *region, const char *service,
                                  const char *hash, char *out, size_t outsz)
{
    if (!amz_date || strlen(amz_date) != VA_SIGV4_AMZDATE_LEN || !region || !*region || !service ||
        !*service)
        return VC_ERR_ARG;
    sbuf_t b = sb_init(out, outsz);
    sb_str(&b, "AWS4-HMAC-SHA256\n");
    sb_str(&b, amz_date);
    sb_chr(&b, '\n');
    sb_put(&b, amz_date, 8);
    sb_chr(&b, '/');
    sb_str(&b, region);
    sb_chr(&b, '/');
    sb_str(&b, service);
    sb_str(&b, "/aws4_request\n");
    sb_str(&b, hash);
    return b.rc;
}

vc_status_t va_sigv4_string_to_sign(const char *amz_date, const char *region, const char *service,
                                    const char *canonical_request, char *out, size_t outsz)
{
    if (!canonical_request)
        return VC_ERR_ARG;
    char hash[VA_SIGV4_HEX_LEN + 1];
    va_sigv4_sha256_hex(canonical_request, strlen(canonical_request), hash);
    return string_to_sign(amz_date, region, service, hash, out, outsz);
}

/* Hex SHA-256 with a digest context kept in the cache (no allocation). */
static vc_status_t cached_sha256_hex(va_sigv4_cache_t *c, const char *data, size_t len,
                                     char hex[VA_SIGV4_HEX_LEN + 1])
{
    uint8_t md[32];
    unsigned int mdlen = 0;
    if (!c->md && !(c->md = EVP_MD_CTX_new()))
        return VC_ERR_NOMEM;
    if (!EVP_DigestInit_ex(c->md, sha256(), NULL) || !EVP_DigestUpdate(c->md, data, len) ||
        !EVP_DigestFinal_ex(c->md, md, &mdlen) || mdlen != 32)
        return VC_ERR_INTERNAL;
    to_hex(md, 32, hex);
    return VC_OK;
}

vc_status_t va_sigv4_signing_key(const char *secret_key, const char *date, const char *region,
                                 const char *service, uint8_t key[32])
{
    if (!secret_key || !date || strlen(date) != 8 || !region || !service)
        return VC_ERR_ARG;
    size_t sl = strlen(secret_key);
    char *k0 = malloc(sl + 5);
    if (!k0)
        return VC_ERR_NOMEM;
    memcpy(k0, "AWS4", 4);
    memcpy(k0 + 4, secret_key, sl + 1);
    uint8_t a[32], b[32];
    vc_status_t rc = hmac(k0, sl + 4, date, a);
    if (!rc)
        rc = hmac(a, 32, region, b);
    if (!rc)
        rc = hmac(b, 32, service, a);
    if (!rc)
        rc = hmac(a, 32, "aws4_request", key);
    OPENSSL_cleanse(k0, sl + 4);
    OPENSSL_cleanse(a, sizeof a);
    OPENSSL_cleanse(b, sizeof b);
    free(k0);
    return rc;
}

vc_status_t va_sigv4_signature(const uint8_t key[32], const char *string_to_sign,
                               char hex[VA_SIGV4_HEX_LEN + 1])
{
    uint8_t sig[32];
    if (!key || !string_to_sign)
        return VC_ERR_ARG;
    vc_status_t rc = hmac(key, 32, string_to_sign, sig);
    if (!rc)
        to_hex(sig, 32, hex);
    return rc;
}

vc_status_t va_sigv4_authorization(const char *access_key, const char *date, const char *region,
                                   const char *service, const char *signed_headers,
                                   const char *signature, char *out, size_t outsz)
{
    if (!access_key || !*access_key || !date || !region || !service || !signed_headers ||
        !signature)
        return VC_ERR_ARG;
    sbuf_t b = sb_init(out, outsz);
    sb_str(&b, "AWS4-HMAC-SHA256 Credential=");
    sb_str(&b, access_key);
    sb_chr(&b, '/');
    sb_str(&b, date);
    sb_chr(&b, '/');
    sb_str(&b, region);
    sb_chr(&b, '/');
    sb_str(&b, service);
    sb_str(&b, "/aws4_request, SignedHeaders=");
    sb_str(&b, signed_headers);
    sb_str(&b, ", Signature=");
    sb_str(&b, signature);
    return b.rc;
}

/* HMAC-SHA256 fetched once, like SHA-256 above. */
static EVP_MAC *hmac_fetched;
static pthread_once_t hmac_once = PTHREAD_ONCE_INIT;
static void hmac_fetch(void) { hmac_fetched = EVP_MAC_fetch(NULL, "HMAC", NULL); }

/* An HMAC-SHA256 context keyed with key; NULL on failure. */
static EVP_MAC_CTX *keyed_mac(const uint8_t key[32])
{
    pthread_once(&hmac_once, hmac_fetch);
    if (!hmac_fetched)
        return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(hmac_fetched);
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
                           OSSL_PARAM_construct_end()};
    if (ctx && EVP_MAC_init(ctx, key, 32, params))
        return ctx;
    EVP_MAC_CTX_free(ctx);
    return NULL;
}

/* Hex HMAC of msg with a context keyed earlier: re-initialising without a
 * key starts again from the key's precomputed state. */
static vc_status_t mac_hex(EVP_MAC_CTX *ctx, const char *msg, size_t len,
                           char hex[VA_SIGV4_HEX_LEN + 1])
{
    uint8_t md[32];
    size_t mdlen = 0;
    if (!EVP_MAC_init(ctx, NULL, 0, NULL) || !EVP_MAC_update(ctx, (const uint8_t *)msg, len) ||
        !EVP_MAC_final(ctx, md, &mdlen, sizeof md) || mdlen != 32)
        return VC_ERR_INTERNAL;
    to_hex(md, 32, hex);
    return VC_OK;
}

void va_sigv4_cache_clear(va_sigv4_cache_t *cache)
{
    if (!cache)
        return;
    EVP_MAC_CTX_free(cache->mac);
    EVP_MD_CTX_free(cache->md);
    OPENSSL_cleanse(cache, sizeof *cache);
    cache->mac = NULL;
    cache->md = NULL;
}

vc_status_t va_sigv4_sign(const va_sigv4_creds_t *creds, const va_sigv4_req_t *req, time_t now,
                          va_sigv4_out_t *out, va_sigv4_cache_t *cache)
{
    if (!creds || !creds->access_key || !creds->secret_key || !creds->region || !creds->service ||
        !req || !req->method || !req->canonical_uri || !out || !req->payload_hash ||
        req->nheaders + 3 > VA_SIGV4_MAX_HEADERS)
        return VC_ERR_ARG;
    out->amz_date[0] = out->content_sha256[0] = out->security_token[0] = out->authorization[0] = 0;
    va_sigv4_cache_t local = {0};
    va_sigv4_cache_t *c = cache ? cache : &local;
    vc_status_t rc = VC_OK;
    if (!c->amz_date[0] || c->amz_time != now) {
        if ((rc = va_sigv4_amz_date(now, c->amz_date, NULL)) != VC_OK) {
            c->amz_date[0] = '\0';
            return rc;
        }
        c->amz_time = now;
    }
    char amz_date[VA_SIGV4_AMZDATE_LEN + 1], date[9];
    memcpy(amz_date, c->amz_date, sizeof amz_date);
    memcpy(date, amz_date, 8);
    date[8] = '\0';
    int token = creds->session_token && *creds->session_token;
    if (token && strlen(creds->session_token) + 24 > sizeof out->security_token)
        return VC_ERR_ARG;

    va_sigv4_kv_t hs[VA_SIGV4_MAX_HEADERS];
    size_t n = 0;
    for (size_t i = 0; i < req->nheaders; i++)
        hs[n++] = req->headers[i];
    hs[n++] = (va_sigv4_kv_t){"x-amz-date", amz_date};
    hs[n++] = (va_sigv4_kv_t){"x-amz-content-sha256", req->payload_hash};
    if (token)
        hs[n++] = (va_sigv4_kv_t){"x-amz-security-token", creds->session_token};

    char canon[16384], sts[512], hdrs[8192], signed_h[1024], sig[VA_SIGV4_HEX_LEN + 1];
    rc = va_sigv4_canonical_headers(hs, n, hdrs, sizeof hdrs, signed_h, sizeof signed_h);
    if (!rc)
        rc = canonical_request(req, hdrs, signed_h, canon, sizeof canon);
    char hash[VA_SIGV4_HEX_LEN + 1];
    if (!rc)
        rc = cached_sha256_hex(c, canon, strlen(canon), hash);
    if (!rc)
        rc = string_to_sign(amz_date, creds->region, creds->service, hash, sts, sizeof sts);
    if (!rc && (!c->mac || strcmp(c->date, date) != 0)) {
        EVP_MAC_CTX_free(c->mac);
        c->mac = NULL;
        c->date[0] = '\0';
        rc = va_sigv4_signing_key(creds->secret_key, date, creds->region, creds->service, c->key);
        if (!rc && !(c->mac = keyed_mac(c->key)))
            rc = VC_ERR_INTERNAL;
        if (!rc)
            memcpy(c->date, date, 9);
    }
    if (!rc)
        rc = mac_hex(c->mac, sts, strlen(sts), sig);
    if (c == &local)
        va_sigv4_cache_clear(&local);
    if (rc)
        return rc;

    sbuf_t b = sb_init(out->authorization, sizeof out->authorization);
    sb_str(&b, "Authorization: ");
    if ((rc = b.rc) == VC_OK) {
        rc = va_sigv4_authorization(creds->access_key, date, creds->region, creds->service,
                                    signed_h, sig, out->authorization + b.len,
                                    sizeof out->authorization - b.len);
    }
    if (rc) {
        out->authorization[0] = '\0';
        return rc;
    }
    b = sb_init(out->amz_date, sizeof out->amz_date);
    sb_str(&b, "x-amz-date: ");
    sb_str(&b, amz_date);
    b = sb_init(out->content_sha256, sizeof out->content_sha256);
    sb_str(&b, "x-amz-content-sha256: ");
    sb_str(&b, req->payload_hash);
    if (b.rc)
        return b.rc;
    if (token) {
        b = sb_init(out->security_token, sizeof out->security_token);
        sb_str(&b, "x-amz-security-token: ");
        sb_str(&b, creds->session_token);
    }
    return b.rc;
}
