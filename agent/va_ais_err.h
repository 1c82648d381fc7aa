/* va_ais_err: AIS error replies (ais-rest-api.md §0.1). Every AIS error is a
 * status >= 400 with one JSON object {"tcode","message","status",...}: in the
 * body, or for HEAD in the Hdr-Error response header. Errors are JSON even
 * when msgpack was asked for. A reply that is not that shape still yields a
 * message (the raw text, made printable) so the person sees what came back. */
#ifndef VA_AIS_ERR_H
#define VA_AIS_ERR_H

#include <stddef.h>

#include "vc_status.h"

typedef struct {
    long status;        /* HTTP status of the reply */
    char code[48];      /* tcode (Go error type) when the server sent one, else a short name of the status */
    char message[384];  /* the server's message, or the raw body made printable */
    char node[64];      /* "p[xxxx]" / "t[xxxx]" when given */
} va_ais_err_t;

/* Parses an error body or Hdr-Error value (text may be NULL or empty: then
 * the message is the status phrase). Returns VC_OK when text was the AIS JSON
 * shape, VC_ERR_PROTO otherwise; e is filled in both cases. A value cut short
 * (a header capped by the HTTP layer) still yields its "message" when the
 * beginning of it arrived. */
vc_status_t va_ais_err_parse(long status, const char *text, size_t len, va_ais_err_t *e);

/* A short code for a status without tcode: BadRequest, NotFound, Conflict,
 * TooManyRequests, NotImplemented, NotReady, InsufficientStorage, HTTP<n>. */
const char *va_ais_status_code(long status, char *buf, size_t buflen);

#endif
