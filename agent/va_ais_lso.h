/* va_ais_lso: AIS list-objects on the wire (ais-rest-api.md §1, §2, §7).
 * The request is an ActMsg {"action":"list","name":"","value":LsoMsg} sent as
 * the JSON body of a GET; LsoMsg is decoded strictly by AIS, so only its known
 * keys are written, and "flags" is a decimal number inside a JSON string.
 * A reply page (LsoRes) comes as msgpack (Accept: application/msgpack) or
 * JSON; both decoders validate every field and cap what the server controls,
 * and fill the same page structure. */
#ifndef VA_AIS_LSO_H
#define VA_AIS_LSO_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

/* List flags (api/apc/lsmsg.go). */
#define VA_AIS_LS_NAME_ONLY (UINT64_C(1) << 4)
#define VA_AIS_LS_NAME_SIZE (UINT64_C(1) << 5)
#define VA_AIS_LS_NO_RECURSION (UINT64_C(1) << 11)
#define VA_AIS_LS_NBI (UINT64_C(1) << 15)

/* Entry flags. */
#define VA_AIS_ENTRY_IS_DIR 256u

/* Limits on what a server may send in one page. */
#define VA_AIS_TOKEN_MAX 4096   /* continuation token and uuid bytes */
#define VA_AIS_NAME_MAX 4096    /* object name bytes */

typedef struct {
    const char *uuid;   /* "" on the first page, then the server's */
    const char *prefix;
    const char *props;  /* "" for the server's default (name,size,...) */
    const char *token;  /* "" on the first page, then exactly what the server returned */
    int64_t pagesize;   /* 0: the server's default */
    uint64_t flags;     /* VA_AIS_LS_* */
} va_ais_lso_msg_t;

/* The JSON ActMsg for one list request: exactly prefix, pagesize, uuid,
 * props, continuation_token, flags (quoted) and target, like the Python SDK.
 * Caller owns the result (free()); NULL when out of memory. */
char *va_ais_lso_body(const va_ais_lso_msg_t *msg);

typedef struct {
    const char *name;   /* NUL-terminated, points into the page */
    size_t name_len;    /* names may not hold NUL, so strlen(name) == name_len */
    int64_t size;       /* 0 when the server omitted it */
    uint32_t flags;     /* VA_AIS_ENTRY_* and status bits */
    size_t name_off;    /* private */
} va_ais_entry_t;

typedef struct {
    char *uuid;               /* never NULL after a successful decode */
    char *token;              /* "" on the last page */
    uint32_t flags;           /* non-zero: rebalance running, results may be incomplete */
    size_t nentries;
    va_ais_entry_t *entries;
    size_t cap;               /* private */
    char *arena;              /* private: the names */
    size_t arena_len, arena_cap;
} va_ais_page_t;

void va_ais_page_init(va_ais_page_t *p);
/* Frees what the page holds and re-initialises it. */
void va_ais_page_clear(va_ais_page_t *p);

/* Decode one LsoRes. On failure the page is left cleared, VC_ERR_PROTO is
 * returned (VC_ERR_NOMEM when memory ran out) and err says what was wrong
 * and at which byte or entry. The page is reused across calls. */
vc_status_t va_ais_page_decode_msgpack(const void *buf, size_t len, va_ais_page_t *p, char *err,
                                       size_t errlen);
vc_status_t va_ais_page_decode_json(const void *buf, size_t len, va_ais_page_t *p, char *err,
                                    size_t errlen);

/* Checks that buf holds exactly one complete msgpack object whose container
 * lengths fit in the bytes that follow them, so a decoder never allocates
 * for elements that cannot be there. Exposed for tests. */
vc_status_t va_ais_msgpack_check(const void *buf, size_t len, char *err, size_t errlen);

#endif
