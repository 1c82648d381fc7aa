/* va_s3xml: streaming parsers (expat) for the two S3 XML replies vantage
 * reads: a ListObjectsV2 page (ListBucketResult), whose keys are delivered to
 * a callback as the bytes arrive so a listing costs no per-key allocation and
 * no second copy of the body, and an S3 error body (Code, Message, RequestId).
 * Server replies are untrusted: truncated, malformed or garbage input gives
 * an error that says what was wrong and where, every text field has a length
 * cap, and a DOCTYPE (the door to entity expansion) is refused. */
#ifndef VA_S3XML_H
#define VA_S3XML_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

#define VA_S3XML_KEY_MAX 4096   /* S3 allows 1024 bytes; leave room, refuse more */
#define VA_S3XML_TOKEN_MAX 4096 /* NextContinuationToken */
#define VA_S3XML_DEPTH_MAX 32

/* One object of a listing page. Pointers are valid only during the callback. */
typedef struct {
    const char *key;           /* UTF-8, NUL-terminated */
    size_t key_len;
    int64_t size;              /* -1 when the reply had none */
    const char *etag;          /* as sent (quotes included), "" when absent */
    const char *last_modified; /* ISO 8601 as sent, "" when absent */
} va_s3xml_object_t;

/* Return 0 to go on, non-zero to stop the parse (VC_ERR_CANCELLED). */
typedef int (*va_s3xml_object_fn)(void *ud, const va_s3xml_object_t *obj);
typedef int (*va_s3xml_prefix_fn)(void *ud, const char *prefix, size_t len);

/* What a page said besides its keys. */
typedef struct {
    int is_truncated;           /* 1 / 0; -1 when absent */
    char next_token[VA_S3XML_TOKEN_MAX + 1]; /* NextContinuationToken, "" when absent */
    int64_t key_count;          /* KeyCount, -1 when absent */
    int64_t max_keys;           /* MaxKeys, -1 when absent */
    int64_t objects;            /* Contents delivered */
    int64_t prefixes;           /* CommonPrefixes delivered */
} va_s3xml_page_t;

typedef struct va_s3xml_list_t va_s3xml_list_t;

/* Caller owns the result; NULL when out of memory. One per client, reused per page. */
va_s3xml_list_t *va_s3xml_list_new(void);
void va_s3xml_list_destroy(va_s3xml_list_t **self_p);

/* Starts a new page; on_object / on_prefix may be NULL. */
vc_status_t va_s3xml_list_begin(va_s3xml_list_t *self, va_s3xml_object_fn on_object,
                                va_s3xml_prefix_fn on_prefix, void *ud);
/* Parses the next piece of the body. After an error, further feeds return
 * the same error. VC_ERR_PROTO: malformed; VC_ERR_CANCELLED: a callback stopped. */
vc_status_t va_s3xml_list_feed(va_s3xml_list_t *self, const char *data, size_t len);
/* Ends the page: VC_ERR_PROTO when the document is incomplete (truncated
 * reply) or lacks IsTruncated; page (may be NULL) gets what the page said. */
vc_status_t va_s3xml_list_end(va_s3xml_list_t *self, va_s3xml_page_t *page);
/* The last error, "" when none: what was wrong and where (line:column). */
const char *va_s3xml_list_error(const va_s3xml_list_t *self);

/* An S3 error reply. Fields are cut at their size, with control characters
 * replaced, so they can be printed as they are. */
typedef struct {
    char code[64];
    char message[256];
    char request_id[128];
    char resource[256];
} va_s3xml_error_t;

/* Parses a whole error body. VC_ERR_PROTO (with err saying why) when it is
 * not an <Error> document; out then holds whatever was found, possibly nothing. */
vc_status_t va_s3xml_error_parse(const char *body, size_t len, va_s3xml_error_t *out, char *err,
                                 size_t errlen);

#endif
