/* va_sigv4: AWS Signature Version 4 for the Authorization header, as the
 * small pure steps the specification names (URI encoding, canonical query,
 * canonical headers, canonical request, string to sign, signing key,
 * signature, Authorization value), each testable against AWS's published
 * S3 examples, and va_sigv4_sign() that chains them for one request.
 * The clock is an argument: the caller passes the time to sign with.
 * Outputs go to caller buffers; every step fails with VC_ERR_ARG rather than
 * truncate. Secrets are only ever fed to HMAC, never copied into outputs. */
#ifndef VA_SIGV4_H
#define VA_SIGV4_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "vc_status.h"

#define VA_SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
#define VA_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define VA_SIGV4_HEX_LEN 64   /* a SHA-256 in hex, without the NUL */
#define VA_SIGV4_AMZDATE_LEN 16 /* 20130524T000000Z */
#define VA_SIGV4_MAX_HEADERS 24
#define VA_SIGV4_MAX_QUERY 16

/* A name and value (query parameter or header). */
typedef struct {
    const char *name;
    const char *value;
} va_sigv4_kv_t;

typedef struct {
    const char *access_key;
    const char *secret_key;
    const char *session_token; /* NULL or "" when none */
    const char *region;
    const char *service;       /* "s3" */
} va_sigv4_creds_t;

/* The parts of a request a signature covers. */
typedef struct {
    const char *method;
    const char *canonical_uri;     /* already encoded (va_sigv4_uri_encode with keep_slash) */
    const va_sigv4_kv_t *query;    /* raw, not encoded; any order */
    size_t nquery;
    const va_sigv4_kv_t *headers;  /* raw names and values; must include host */
    size_t nheaders;
    const char *payload_hash;      /* hex SHA-256 of the body or VA_SIGV4_UNSIGNED_PAYLOAD */
} va_sigv4_req_t;

/* Percent-encodes in[0..len) as SigV4 requires: A-Z a-z 0-9 - _ . ~ stay,
 * everything else becomes %XX (upper-case hex) byte by byte; '/' stays when
 * keep_slash (object key paths) and becomes %2F otherwise (query values).
 * Writes a NUL-terminated string; *outlen (may be NULL) gets its length. */
vc_status_t va_sigv4_uri_encode(const char *in, size_t len, int keep_slash, char *out,
                                size_t outsz, size_t *outlen);

/* "name=value&..." with every name and value encoded, sorted by encoded name
 * then value; empty when n is 0. This is also the query string to send. */
vc_status_t va_sigv4_canonical_query(const va_sigv4_kv_t *q, size_t n, char *out, size_t outsz);

/* canon gets "name:value\n" per header (names lower-cased, values trimmed and
 * inner runs of spaces collapsed, sorted by name); signed gets "a;b;c".
 * Duplicate header names are refused (VC_ERR_ARG). */
vc_status_t va_sigv4_canonical_headers(const va_sigv4_kv_t *h, size_t n, char *canon,
                                       size_t canonsz, char *signed_headers, size_t signedsz);

/* METHOD\nURI\nQUERY\nHEADERS\nSIGNED\nPAYLOADHASH */
vc_status_t va_sigv4_canonical_request(const va_sigv4_req_t *req, char *out, size_t outsz);

/* "20130524T000000Z" and "20130524" for a Unix time (UTC). */
vc_status_t va_sigv4_amz_date(time_t t, char amz_date[VA_SIGV4_AMZDATE_LEN + 1], char date[9]);

/* Hex SHA-256 of data. */
void va_sigv4_sha256_hex(const void *data, size_t len, char hex[VA_SIGV4_HEX_LEN + 1]);

/* AWS4-HMAC-SHA256\nAMZDATE\nDATE/REGION/SERVICE/aws4_request\nHEX(SHA256(canonical)) */
vc_status_t va_sigv4_string_to_sign(const char *amz_date, const char *region, const char *service,
                                    const char *canonical_request, char *out, size_t outsz);

/* HMAC chain "AWS4"+secret -> date -> region -> service -> "aws4_request". */
vc_status_t va_sigv4_signing_key(const char *secret_key, const char *date, const char *region,
                                 const char *service, uint8_t key[32]);

/* Hex HMAC-SHA256(key, string_to_sign). */
vc_status_t va_sigv4_signature(const uint8_t key[32], const char *string_to_sign,
                               char hex[VA_SIGV4_HEX_LEN + 1]);

/* "AWS4-HMAC-SHA256 Credential=AK/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=..., Signature=..." (one line, ", " between parts). */
vc_status_t va_sigv4_authorization(const char *access_key, const char *date, const char *region,
                                   const char *service, const char *signed_headers,
                                   const char *signature, char *out, size_t outsz);

/* What va_sigv4_sign adds to a request: each a complete "Name: value" line. */
typedef struct {
    char amz_date[64];          /* x-amz-date: ... */
    char content_sha256[96];    /* x-amz-content-sha256: ... */
    char security_token[4200];  /* x-amz-security-token: ... or "" when no session token */
    char authorization[1024];   /* Authorization: ... */
} va_sigv4_out_t;

/* What a client keeps between signatures (one per client, for one set of
 * credentials): the signing key of the day and an HMAC keyed with it, and
 * the last second's x-amz-date. Zero-initialise; va_sigv4_cache_clear frees
 * and wipes it. Saves four HMACs, the key schedule and the date formatting
 * on every request. */
typedef struct {
    uint8_t key[32];
    char date[9];        /* the day key is for; "" none yet */
    void *mac;           /* EVP_MAC_CTX keyed with key, NULL none yet */
    void *md;            /* EVP_MD_CTX for the canonical request's hash */
    time_t amz_time;     /* the second amz_date is for */
    char amz_date[VA_SIGV4_AMZDATE_LEN + 1];
} va_sigv4_cache_t;

void va_sigv4_cache_clear(va_sigv4_cache_t *cache);

/* Signs one request at time now: adds x-amz-date, x-amz-content-sha256 (from
 * req->payload_hash) and x-amz-security-token (when the credentials have a
 * session token) to req's headers, signs them all, and fills out.
 * cache may be NULL (everything computed afresh). */
vc_status_t va_sigv4_sign(const va_sigv4_creds_t *creds, const va_sigv4_req_t *req, time_t now,
                          va_sigv4_out_t *out, va_sigv4_cache_t *cache);

#endif
