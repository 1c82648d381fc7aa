/* vc_parse: parsers for the values people type on command lines and in
 * config files: sizes, durations, percentages, counts, booleans, integers.
 * Pure functions. Each accepts the whole text or rejects it (no trailing
 * junk, no overflow, no silent truncation) and on failure writes into err a
 * message that quotes the bad text and says what is accepted. The
 * formatters write the canonical text that the parsers read back exactly.
 *
 * Units (case-insensitive, optional blank between number and unit):
 *   size      B; KiB MiB GiB TiB (powers of 1024); KB MB GB TB (powers of
 *             1000); K M G T alone mean KiB MiB GiB TiB (GNU dd/fio habit).
 *             No unit: bytes. A fraction is allowed when the result is a
 *             whole number of bytes ("1.5KiB" = 1536, "0.5B" is an error).
 *   duration  ns us (or µs) ms s m h; a unit is required except for "0".
 *             Fractions allowed when the result is whole nanoseconds.
 *   count     K M G (powers of 1000: "80K" = 80000); no unit: itself.
 *   percent   "95%" or a fraction "0.95"; result in [0, 1].
 *   bool      true/false, yes/no, on/off, 1/0. */
#ifndef VC_PARSE_H
#define VC_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

/* All parsers: VC_OK and *out set, or VC_ERR_ARG with *out untouched and a
 * message in err (err may be NULL; errlen 0 writes nothing). Negative values
 * are rejected by every parser except vc_parse_int. */
vc_status_t vc_parse_size(const char *text, int64_t *out, char *err, size_t errlen);
vc_status_t vc_parse_duration_ns(const char *text, int64_t *out_ns, char *err, size_t errlen);
/* A duration that must be a whole number of milliseconds ("1.5ms" fails). */
vc_status_t vc_parse_duration_ms(const char *text, int64_t *out_ms, char *err, size_t errlen);
vc_status_t vc_parse_count(const char *text, int64_t *out, char *err, size_t errlen);
vc_status_t vc_parse_percent(const char *text, double *out_fraction, char *err, size_t errlen);
vc_status_t vc_parse_bool(const char *text, int *out, char *err, size_t errlen);
/* Decimal integer in [min, max]. */
vc_status_t vc_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                         size_t errlen);

/* An object-store endpoint: "http://" or "https://", a host, optional
 * ":port" and path; no user information ("user:secret@": credentials never
 * go in config files), no blanks or control characters. */
vc_status_t vc_parse_http_url(const char *text, char *err, size_t errlen);

/* Canonical text, always re-parsable to the same value. Return buf.
 * size: largest exact binary unit ("5MiB", "1536B" -> "1.5KiB" is not used:
 * "1536B"); duration: largest exact unit of ns/us/ms/s/m/h ("200ms", "90s");
 * count: largest exact K/M/G ("80K", "1500", "2M"). */
#define VC_FMT_MAX 32
char *vc_format_size(int64_t bytes, char *buf, size_t len);
char *vc_format_duration_ns(int64_t ns, char *buf, size_t len);
char *vc_format_count(int64_t n, char *buf, size_t len);

#endif
