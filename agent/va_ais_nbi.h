/* va_ais_nbi: Native Bucket Inventory messages (ais-rest-api.md §3, §5, §6):
 * the create-inventory body (its value, CreateNBIMsg, is decoded strictly by
 * AIS, so only keys with non-default values are written, like the Python
 * SDK), the show/destroy bodies, and the show-inventory reply. */
#ifndef VA_AIS_NBI_H
#define VA_AIS_NBI_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

typedef struct {
    const char *name;        /* NULL or "": AIS names the inventory after the job id */
    const char *prefix;      /* snapshot scope */
    int64_t names_per_chunk; /* 0: server default (20000); else 2..640000 */
    int64_t pagesize;        /* backend page size while creating; 0: bucket max */
    int force;               /* replace an existing inventory of the bucket */
} va_ais_nbi_opts_t;

#define VA_AIS_NBI_CHUNK_MIN 2
#define VA_AIS_NBI_CHUNK_MAX 640000

/* {"action":"create-inventory","name":"","value":{...}}; caller owns the
 * result (free()). NULL with err set when an option is out of range. */
char *va_ais_nbi_create_body(const va_ais_nbi_opts_t *o, char *err, size_t errlen);

/* {"action":"show-inventory"|"destroy-inventory","name":NAME,"value":null};
 * name NULL or "" means all of the bucket's. Caller owns the result. */
char *va_ais_nbi_action_body(const char *action, const char *name);

/* Checks an inventory name as AIS does (CheckAlphaPlus): letters, digits,
 * '-', '_' and single dots, at most 255 bytes. */
vc_status_t va_ais_nbi_name_check(const char *name, char *err, size_t errlen);

typedef struct {
    char obj_name[512];  /* "aws/@#/bucket/name" */
    char name[256];
    char bucket[256];
    char prefix[1024];
    int64_t size, started_ns, finished_ns, ntotal, smap_ver, chunks, nat; /* -1 when absent */
} va_ais_inv_t;

/* Parses a show-inventory reply into an array in the reply's order. Caller
 * owns *invs (free()); *n may be 0 (then *invs is NULL). */
vc_status_t va_ais_nbi_show_parse(const char *body, size_t len, va_ais_inv_t **invs, size_t *n,
                                  char *err, size_t errlen);

#endif
