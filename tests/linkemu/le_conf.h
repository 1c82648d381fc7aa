/* le_conf: a link profile (delay, jitter, rate per direction, buffers) and the
 * one option table that reads it from a profile file (libconfig syntax,
 * `key = value;`), overrides it from command-line flags, validates ranges
 * and prints --help. "up" is client -> upstream, "down" upstream -> client. */
#ifndef LE_CONF_H
#define LE_CONF_H

#include <stdio.h>

#include "le_link.h"
#include "vc_status.h"

enum { LE_UP = 0, LE_DOWN = 1 };

typedef struct {
    char name[64];        /* label for logs and status */
    double delay_ms[2];   /* mean one-way delay per direction */
    double jitter_ms[2];  /* uniform +- around the delay, never reorders */
    double rate_mbit[2];  /* payload rate cap, 0 = none; shared by all connections */
    double burst_kib;     /* token bucket depth, 0 = automatic (20 ms of rate) */
    double queue_kib;     /* per connection and direction buffer, 0 = automatic */
    double handshake;     /* 1: charge the TCP handshake's round trip to a connection's first bytes */
} le_profile_t;

/* No delay, no cap, automatic buffers, handshake charged. */
void le_profile_defaults(le_profile_t *p);

/* Reads a profile file over p; keys it does not set keep their values.
 * Unknown keys, wrong types and out-of-range values are errors naming
 * file:line. On error p may be partly updated. */
vc_status_t le_profile_load(le_profile_t *p, const char *path, char *err, size_t errlen);

/* Applies "--flag value" if flag (with its dashes) is a profile option.
 * VC_ERR_NOTFOUND: not a profile flag (p untouched); VC_ERR_ARG: bad value. */
vc_status_t le_profile_set_flag(le_profile_t *p, const char *flag, const char *value, char *err,
                                size_t errlen);

/* The link parameters of one direction (LE_UP or LE_DOWN). */
le_link_params_t le_profile_link(const le_profile_t *p, int dir);

/* Per connection and direction buffer size in bytes (resolves "automatic"). */
size_t le_profile_queue_bytes(const le_profile_t *p);

/* One line: "mobile: up 40+-10 ms 1 Mbit/s, down ...". */
void le_profile_describe(const le_profile_t *p, char *buf, size_t len);

/* The profile options' lines for --help. */
void le_profile_help(FILE *out);

#endif
