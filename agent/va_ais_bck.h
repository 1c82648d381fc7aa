/* va_ais_bck: AIS bucket names as AIS itself writes them. A bucket is a
 * provider plus a name (plus a namespace for non-global AIS buckets):
 * "s3://bucket/prefix" is provider aws, "ais://bucket" provider ais,
 * "ais://@uuid#ns/bucket" a namespaced ais bucket. The provider and namespace
 * travel in the query string, the name in the path (ais-rest-api.md §0). */
#ifndef VA_AIS_BCK_H
#define VA_AIS_BCK_H

#include <stddef.h>

#include "vc_status.h"

#define VA_AIS_BCK_NAME_MAX 256
#define VA_AIS_NS_MAX 128
#define VA_AIS_OBJNAME_MAX 1024 /* S3's key limit; AIS accepts no more for aws */

typedef struct {
    char provider[16];              /* ais aws gcp azure oci ht */
    char name[VA_AIS_BCK_NAME_MAX];
    char ns[VA_AIS_NS_MAX];         /* "@uuid#name" or "#name"; empty: global namespace */
} va_ais_bck_t;

/* Parses "SCHEME://[NS/]BUCKET[/PATH]". Schemes: s3 and aws (provider aws),
 * ais, gs and gcp, az and azure, oci, ht. PATH (object name or prefix, may be
 * empty) goes to path when path is not NULL; a URI with a path when path is
 * NULL is an error. err names what is wrong and how to write it. */
vc_status_t va_ais_bck_parse(const char *uri, va_ais_bck_t *bck, char *path, size_t pathlen,
                             char *err, size_t errlen);

/* "s3://bucket" (aws is written s3, like `ais ls`), for messages. */
void va_ais_bck_format(const va_ais_bck_t *bck, char *out, size_t outlen);

/* "provider=aws" plus "&namespace=..." for a non-global namespace. */
vc_status_t va_ais_bck_query(const va_ais_bck_t *bck, char *out, size_t outlen);

/* Percent-encodes an object name for a URL path, segment by segment: '/'
 * stays, unreserved characters stay, every other byte becomes %XX. */
vc_status_t va_ais_escape_path(const char *in, char *out, size_t outlen);

#endif
