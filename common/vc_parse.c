/* vc_parse: value parsers and their canonical formatters. Numbers are read
 * as an integer mantissa and a count of fraction digits so that "1.5KiB" and
 * "1.5s" are exact; every multiplication is checked for overflow. */
#include "vc_parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *name;
    int64_t mult;
} unit_t;

static const unit_t size_units[] = {
    {"", 1},
    {"b", 1},
    {"k", 1LL << 10},
    {"kib", 1LL << 10},
    {"kb", 1000LL},
    {"m", 1LL << 20},
    {"mib", 1LL << 20},
    {"mb", 1000000LL},
    {"g", 1LL << 30},
    {"gib", 1LL << 30},
    {"gb", 1000000000LL},
    {"t", 1LL << 40},
    {"tib", 1LL << 40},
    {"tb", 1000000000000LL},
    {NULL, 0},
};
static const char size_unit_help[] = "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, or K, M, G, T for KiB...TiB";

static const unit_t duration_units[] = {
    {"ns", 1},
    {"us", 1000LL},
    {"\xc2\xb5s", 1000LL}, /* µs */
    {"ms", 1000000LL},
    {"s", 1000000000LL},
    {"m", 60000000000LL},
    {"min", 60000000000LL},
    {"h", 3600000000000LL},
    {NULL, 0},
};
static const char duration_unit_help[] = "ns, us, ms, s, m, h";

static const unit_t count_units[] = {
    {"", 1},
    {"k", 1000LL},
    {"m", 1000000LL},
    {"g", 1000000000LL},
    {NULL, 0},
};
static const char count_unit_help[] = "K, M or G, powers of 1000";

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Shown text is clipped so that a huge bad value cannot flood a message. */
#define SHOW(t) (int)(strlen(t) > 60 ? 60 : strlen(t)), (t)

typedef struct {
    int64_t mantissa; /* all digits, the point removed */
    int frac_digits;  /* digits after the point */
    const char *unit; /* first character after the number and blanks */
} number_t;

/* Reads "DIGITS[.DIGITS]" then optional blanks. 0, or -1 junk, -2 negative,
 * -3 too many digits. */
static int read_number(const char *text, number_t *n)
{
    const char *p = text;
    if (*p == '-')
        return -2;
    if (!isdigit((unsigned char)*p))
        return -1;
    n->mantissa = 0;
    n->frac_digits = 0;
    int seen_point = 0, digits = 0;
    for (;; p++) {
        if (isdigit((unsigned char)*p)) {
            if (__builtin_mul_overflow(n->mantissa, 10, &n->mantissa) ||
                __builtin_add_overflow(n->mantissa, *p - '0', &n->mantissa))
                return -3;
            digits++;
            if (seen_point)
                n->frac_digits++;
        } else if (*p == '.' && !seen_point) {
            seen_point = 1;
            if (!isdigit((unsigned char)p[1]))
                return -1;
        } else {
            break;
        }
    }
    if (n->frac_digits > 18)
        return -3;
    while (*p == ' ' || *p == '\t')
        p++;
    n->unit = p;
    return digits ? 0 : -1;
}

static const unit_t *find_unit(const unit_t *units, const char *u)
{
    for (const unit_t *x = units; x->name; x++)
        if (strcasecmp(x->name, u) == 0)
            return x;
    return NULL;
}

/* mantissa * mult / 10^frac, exactly; 0, -1 overflow, -2 not whole. */
static int scale_exact(const number_t *n, int64_t mult, int64_t *out)
{
    int64_t v;
    int64_t div = 1;
    for (int i = 0; i < n->frac_digits; i++)
        div *= 10;
    /* Divide first where that is exact, so large values with a fraction do not overflow. */
    int64_t g_m = mult, g_d = div;
    while (g_d) {
        int64_t t = g_m % g_d;
        g_m = g_d;
        g_d = t;
    }
    int64_t m = mult / g_m, d = div / g_m;
    if (__builtin_mul_overflow(n->mantissa, m, &v))
        return -1;
    if (v % d != 0)
        return -2;
    *out = v / d;
    return 0;
}

static vc_status_t parse_units(const char *what, const char *text, const unit_t *units,
                               const char *unit_help, int unit_required, int64_t *out, char *err,
                               size_t errlen)
{
    if (!text || !*text) {
        seterr(err, errlen, "empty %s: give a number with a unit (%s)", what, unit_help);
        return VC_ERR_ARG;
    }
    number_t n;
    int rc = read_number(text, &n);
    if (rc == -2) {
        seterr(err, errlen, "invalid %s \"%.*s\": must not be negative", what, SHOW(text));
        return VC_ERR_ARG;
    }
    if (rc == -3) {
        seterr(err, errlen, "invalid %s \"%.*s\": too large", what, SHOW(text));
        return VC_ERR_ARG;
    }
    if (rc != 0) {
        seterr(err, errlen, "invalid %s \"%.*s\": expected a number then a unit (%s)", what,
               SHOW(text), unit_help);
        return VC_ERR_ARG;
    }
    const unit_t *u = find_unit(units, n.unit);
    if (!u) {
        if (*n.unit == '\0' && unit_required && n.mantissa == 0) {
            *out = 0;
            return VC_OK;
        }
        if (*n.unit == '\0')
            seterr(err, errlen, "invalid %s \"%.*s\": a unit is required (%s), e.g. \"%.*s%s\"", what,
                   SHOW(text), unit_help, SHOW(text), units == duration_units ? "ms" : "B");
        else
            seterr(err, errlen, "invalid %s \"%.*s\": unknown unit \"%.*s\" (use %s)", what, SHOW(text),
                   SHOW(n.unit), unit_help);
        return VC_ERR_ARG;
    }
    int64_t v;
    rc = scale_exact(&n, u->mult, &v);
    if (rc == -1) {
        seterr(err, errlen, "invalid %s \"%.*s\": too large", what, SHOW(text));
        return VC_ERR_ARG;
    }
    if (rc == -2) {
        seterr(err, errlen, "invalid %s \"%.*s\": not a whole number of %s", what, SHOW(text),
               units == duration_units ? "nanoseconds" : units == size_units ? "bytes" : "items");
        return VC_ERR_ARG;
    }
    *out = v;
    return VC_OK;
}

vc_status_t vc_parse_size(const char *text, int64_t *out, char *err, size_t errlen)
{
    return parse_units("size", text, size_units, size_unit_help, 0, out, err, errlen);
}

vc_status_t vc_parse_duration_ns(const char *text, int64_t *out_ns, char *err, size_t errlen)
{
    return parse_units("duration", text, duration_units, duration_unit_help, 1, out_ns, err,
                       errlen);
}

vc_status_t vc_parse_duration_ms(const char *text, int64_t *out_ms, char *err, size_t errlen)
{
    int64_t ns;
    vc_status_t rc = vc_parse_duration_ns(text, &ns, err, errlen);
    if (rc)
        return rc;
    if (ns % 1000000 != 0) {
        seterr(err, errlen, "invalid duration \"%.*s\": not a whole number of milliseconds",
               SHOW(text));
        return VC_ERR_ARG;
    }
    *out_ms = ns / 1000000;
    return VC_OK;
}

vc_status_t vc_parse_count(const char *text, int64_t *out, char *err, size_t errlen)
{
    return parse_units("count", text, count_units, count_unit_help, 0, out, err, errlen);
}

vc_status_t vc_parse_percent(const char *text, double *out_fraction, char *err, size_t errlen)
{
    if (!text || !*text) {
        seterr(err, errlen, "empty percentage: write e.g. \"95%%\" or \"0.95\"");
        return VC_ERR_ARG;
    }
    number_t n;
    int rc = read_number(text, &n);
    if (rc == -2) {
        seterr(err, errlen, "invalid percentage \"%.*s\": must not be negative", SHOW(text));
        return VC_ERR_ARG;
    }
    int percent = n.unit && strcmp(n.unit, "%") == 0;
    if (rc != 0 || (!percent && *n.unit)) {
        seterr(err, errlen, "invalid percentage \"%.*s\": write e.g. \"95%%\" or \"0.95\"",
               SHOW(text));
        return VC_ERR_ARG;
    }
    double v = (double)n.mantissa / pow(10.0, n.frac_digits);
    if (percent)
        v /= 100.0;
    if (v > 1.0) {
        seterr(err, errlen, "invalid percentage \"%.*s\": above 100%%%s", SHOW(text),
               percent ? "" : " (a bare number is a fraction: write \"95%\" or \"0.95\")");
        return VC_ERR_ARG;
    }
    *out_fraction = v;
    return VC_OK;
}

vc_status_t vc_parse_bool(const char *text, int *out, char *err, size_t errlen)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; text && i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(text, yes[i]) == 0) {
            *out = 1;
            return VC_OK;
        }
        if (strcasecmp(text, no[i]) == 0) {
            *out = 0;
            return VC_OK;
        }
    }
    const char *t = text ? text : "";
    seterr(err, errlen, "invalid boolean \"%.*s\": use true/false, yes/no, on/off or 1/0",
           SHOW(t));
    return VC_ERR_ARG;
}

vc_status_t vc_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                         size_t errlen)
{
    const char *p = text ? text : "";
    const char *q = p;
    if (*q == '-' || *q == '+')
        q++;
    if (!isdigit((unsigned char)*q)) {
        seterr(err, errlen, "invalid integer \"%.*s\"", SHOW(p));
        return VC_ERR_ARG;
    }
    errno = 0;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (*end != '\0') {
        seterr(err, errlen, "invalid integer \"%.*s\"", SHOW(p));
        return VC_ERR_ARG;
    }
    if (errno == ERANGE || v < min || v > max) {
        seterr(err, errlen, "integer \"%.*s\" out of range [%" PRId64 ", %" PRId64 "]", SHOW(p),
               min, max);
        return VC_ERR_ARG;
    }
    *out = (int64_t)v;
    return VC_OK;
}

vc_status_t vc_parse_http_url(const char *text, char *err, size_t errlen)
{
    const char *t = text ? text : "";
    const char *rest = strncmp(t, "http://", 7) == 0    ? t + 7
                       : strncmp(t, "https://", 8) == 0 ? t + 8
                                                         : NULL;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
        if (*p <= ' ' || *p == 0x7f) {
            seterr(err, errlen, "invalid URL \"%.*s\": contains blanks or control characters",
                   SHOW(t));
            return VC_ERR_ARG;
        }
    }
    if (!rest || !*rest || *rest == '/' || *rest == ':' || *rest == '?' || *rest == '#') {
        seterr(err, errlen, "invalid URL \"%.*s\": expected http:// or https:// and a host, like "
                            "\"http://127.0.0.1:7480\"", SHOW(t));
        return VC_ERR_ARG;
    }
    size_t authority = strcspn(rest, "/?#");
    if (memchr(rest, '@', authority)) {
        /* Never echo it: what precedes '@' may be a secret. */
        seterr(err, errlen, "invalid URL: it carries user information ('...@host'); credentials "
                            "never go in config files, each agent reads its own");
        return VC_ERR_ARG;
    }
    /* The port follows the host; an IPv6 host is in brackets and has colons. */
    const char *host_end = rest;
    if (rest[0] == '[') {
        host_end = memchr(rest, ']', authority);
        if (!host_end) {
            seterr(err, errlen, "invalid URL \"%.*s\": unclosed '[' in the host", SHOW(t));
            return VC_ERR_ARG;
        }
    }
    const char *colon = memchr(host_end, ':', authority - (size_t)(host_end - rest));
    if (colon) {
        size_t plen = authority - (size_t)(colon + 1 - rest);
        int ok = plen >= 1 && plen <= 5;
        long port = 0;
        for (size_t i = 0; ok && i < plen; i++) {
            ok = isdigit((unsigned char)colon[1 + i]);
            port = port * 10 + (colon[1 + i] - '0');
        }
        if (!ok || port < 1 || port > 65535) {
            seterr(err, errlen, "invalid URL \"%.*s\": the port must be 1 to 65535", SHOW(t));
            return VC_ERR_ARG;
        }
    }
    return VC_OK;
}

/* Largest unit (in table order, largest last) that divides v exactly. */
static char *format_units(int64_t v, const char *const *names, const int64_t *mults, int n,
                          char *buf, size_t len)
{
    for (int i = n - 1; i > 0; i--) {
        if (v != 0 && v % mults[i] == 0) {
            snprintf(buf, len, "%" PRId64 "%s", v / mults[i], names[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%" PRId64 "%s", v, names[0]);
    return buf;
}

char *vc_format_size(int64_t bytes, char *buf, size_t len)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    static const int64_t mults[] = {1, 1LL << 10, 1LL << 20, 1LL << 30, 1LL << 40};
    return format_units(bytes, names, mults, 5, buf, len);
}

char *vc_format_duration_ns(int64_t ns, char *buf, size_t len)
{
    static const char *const names[] = {"ns", "us", "ms", "s", "m", "h"};
    static const int64_t mults[] = {1, 1000LL, 1000000LL, 1000000000LL, 60000000000LL,
                                    3600000000000LL};
    if (ns == 0) {
        snprintf(buf, len, "0s");
        return buf;
    }
    return format_units(ns, names, mults, 6, buf, len);
}

char *vc_format_count(int64_t n, char *buf, size_t len)
{
    static const char *const names[] = {"", "K", "M", "G"};
    static const int64_t mults[] = {1, 1000LL, 1000000LL, 1000000000LL};
    return format_units(n, names, mults, 4, buf, len);
}
