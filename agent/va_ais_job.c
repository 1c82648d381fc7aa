/* va_ais_job: job selector, IC status and per-target snapshot replies. */
#include "va_ais_job.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *va_ais_job_query_body(const char *id, const char *kind)
{
    json_t *root = json_pack("{s:s, s:s}", "id", id ? id : "", "kind", kind ? kind : "");
    if (!root)
        return NULL;
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

vc_status_t va_ais_job_id_parse(const char *text, size_t len, char *out, size_t outlen,
                                char *err, size_t errlen)
{
    while (len && (text[0] == ' ' || text[0] == '\n' || text[0] == '\r' || text[0] == '\t'))
        text++, len--;
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\n' || text[len - 1] == '\r' ||
                   text[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= VA_AIS_JOB_ID_MAX || len >= outlen) {
        snprintf(err, errlen, "job id reply is %s", len ? "too long" : "empty");
        return VC_ERR_PROTO;
    }
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.')) {
            snprintf(err, errlen, "job id reply has the character 0x%02x at %zu: not a job id",
                     (unsigned char)c, i);
            return VC_ERR_PROTO;
        }
    }
    memcpy(out, text, len);
    out[len] = '\0';
    return VC_OK;
}

static void copy_json_str(char *out, size_t outlen, const json_t *v)
{
    snprintf(out, outlen, "%s", json_is_string(v) ? json_string_value(v) : "");
}

vc_status_t va_ais_job_status_parse(const char *body, size_t len, va_ais_job_status_t *st,
                                    char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    json_error_t jerr;
    json_t *root = json_loadb(body, len, 0, &jerr);
    vc_status_t rc = VC_ERR_PROTO;
    if (!root) {
        snprintf(err, errlen, "job status reply does not parse at byte %d: %s", jerr.position,
                 jerr.text);
        return rc;
    }
    const json_t *end = json_object_get(root, "end_time");
    const json_t *jerrv = json_object_get(root, "err");
    const json_t *ab = json_object_get(root, "aborted");
    if (!json_is_object(root) || !json_is_integer(end) || json_integer_value(end) < 0) {
        snprintf(err, errlen, "job status reply has no valid end_time");
        goto done;
    }
    if ((jerrv && !json_is_string(jerrv) && !json_is_null(jerrv)) ||
        (ab && !json_is_boolean(ab))) {
        snprintf(err, errlen, "job status reply: err or aborted has the wrong type");
        goto done;
    }
    st->end_time_ns = json_integer_value(end);
    st->aborted = json_is_true(ab);
    copy_json_str(st->err, sizeof st->err, jerrv);
    copy_json_str(st->kind, sizeof st->kind, json_object_get(root, "kind"));
    copy_json_str(st->uuid, sizeof st->uuid, json_object_get(root, "uuid"));
    rc = VC_OK;
done:
    json_decref(root);
    return rc;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil), valid for any year. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return 0;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return 1;
}

vc_status_t va_ais_rfc3339_parse(const char *s, int64_t *unix_ns, int *is_zero)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0;
    const char *p = s;
    *unix_ns = 0;
    if (is_zero)
        *is_zero = 0;
    if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
        !digits(&p, 2, &d))
        return VC_ERR_PROTO;
    if (*p != 'T' && *p != 't')
        return VC_ERR_PROTO;
    p++;
    if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
        !digits(&p, 2, &sec))
        return VC_ERR_PROTO;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
        return VC_ERR_PROTO;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        while (*p >= '0' && *p <= '9') {
            if (++n > 9)
                return VC_ERR_PROTO;
            frac = frac * 10 + (*p++ - '0');
        }
        if (n == 0)
            return VC_ERR_PROTO;
        for (; n < 9; n++)
            frac *= 10;
    }
    int sign = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '+' ? 1 : -1;
        if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
            return VC_ERR_PROTO;
    } else {
        return VC_ERR_PROTO;
    }
    if (*p)
        return VC_ERR_PROTO;
    if (y == 1 && mo == 1 && d == 1 && h == 0 && mi == 0 && sec == 0 && frac == 0 &&
        (sign == 0 || (oh == 0 && om == 0))) {
        if (is_zero)
            *is_zero = 1;
        return VC_OK;
    }
    /* A job time is after the epoch, and this range keeps both a time and the
     * difference of two (a job's duration) inside int64 ns. */
    if (y < 1970 || y > 2250)
        return VC_ERR_PROTO;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
                   sign * (oh * 3600 + om * 60);
    *unix_ns = secs * 1000000000 + frac;
    return VC_OK;
}

vc_status_t va_ais_job_total_time(const char *body, size_t len, va_ais_job_time_t *t, char *err,
                                  size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->objs = -1;
    json_error_t jerr;
    json_t *root = json_loadb(body, len, 0, &jerr);
    vc_status_t rc = VC_ERR_PROTO;
    if (!root) {
        snprintf(err, errlen, "job snapshots reply does not parse at byte %d: %s",
                 jerr.position, jerr.text);
        return rc;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "job snapshots reply is not an object keyed by target");
        goto done;
    }
    int have_start = 0, have_end = 0;
    const char *tid;
    json_t *snaps;
    json_object_foreach(root, tid, snaps) {
        if (json_is_null(snaps))
            continue;
        if (!json_is_array(snaps)) {
            snprintf(err, errlen, "job snapshots of target %.64s are not an array", tid);
            goto done;
        }
        t->ntargets++;
        size_t i;
        json_t *snap;
        json_array_foreach(snaps, i, snap) {
            const json_t *st = json_object_get(snap, "start-time");
            const json_t *et = json_object_get(snap, "end-time");
            int64_t s_ns, e_ns;
            int s_zero, e_zero;
            if (!json_is_string(st) || !json_is_string(et) ||
                va_ais_rfc3339_parse(json_string_value(st), &s_ns, &s_zero) ||
                va_ais_rfc3339_parse(json_string_value(et), &e_ns, &e_zero) || s_zero) {
                snprintf(err, errlen, "job snapshot %zu of target %.64s has no valid "
                                      "start-time/end-time (RFC 3339)", i, tid);
                goto done;
            }
            t->nsnaps++;
            if (!have_start || s_ns < t->start_ns)
                t->start_ns = s_ns;
            have_start = 1;
            if (e_zero) {
                t->nrunning++;
            } else {
                if (!have_end || e_ns > t->end_ns)
                    t->end_ns = e_ns;
                have_end = 1;
            }
            const json_t *objs = json_object_get(json_object_get(snap, "stats"), "loc-objs");
            if (json_is_string(objs)) {
                char *endp;
                long long v = strtoll(json_string_value(objs), &endp, 10);
                if (*endp || v < 0 || (t->objs > 0 && v > INT64_MAX - t->objs)) {
                    snprintf(err, errlen, "job snapshot of target %.64s: loc-objs is not a count",
                             tid);
                    goto done;
                }
                t->objs = (t->objs < 0 ? 0 : t->objs) + v;
            }
        }
    }
    if (!t->nsnaps) {
        snprintf(err, errlen, "no target has a snapshot of the job");
        rc = VC_ERR_NOTFOUND;
        goto done;
    }
    if (!have_end) {
        snprintf(err, errlen, "no target has finished the job yet (%d running)", t->nrunning);
        rc = VC_ERR_NOTFOUND;
        goto done;
    }
    if (t->end_ns < t->start_ns) {
        snprintf(err, errlen, "job snapshots end before they start");
        goto done;
    }
    t->total_ns = t->end_ns - t->start_ns;
    rc = VC_OK;
done:
    json_decref(root);
    return rc;
}
