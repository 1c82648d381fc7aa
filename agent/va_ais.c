/* va_ais: the AIStore client (requests, paging, job waiting, samples). */
#include "va_ais.h"

#include <curl/curl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "va_ais_err.h"
#include "va_http.h"
#include "vc_clock.h"
#include "vc_log.h"

#define COMP "ais"
#define URL_MAX 4096

struct va_ais_t {
    va_http_t *http;
    char endpoint[256];
    char where[200];
    char *auth;           /* "Authorization: Bearer ..." (secret) */
    long timeout_ms;
    int prefer_json;
    int put_skip_vc;
    size_t max_reply;
    va_http_resp_t resp;  /* last reply; its body belongs to http */
    char err[768];
    /* the request in flight (see ais_begin) */
    char url[URL_MAX];
    char inv[320];
    const char *hdr[6];
    va_http_req_t req;
    char what[VA_AIS_BCK_NAME_MAX + 320];
    vc_sample_t *cur_s;
    int cur_fill;
    FILE *cur_out;        /* a GET's destination, flushed when it ends */
};

/* One request to AIS. */
typedef struct {
    const char *method;
    const char *path;       /* after /v1/, already escaped */
    const char *query;      /* NULL or without '?' */
    const char *json;       /* JSON body (Content-Type: application/json) */
    int msgpack;            /* Accept: application/msgpack */
    const char *inv_name;   /* Ais-Inv-Name */
    const void *data;       /* object body */
    size_t len;
    FILE *file;
    int64_t flen;
    va_sink_t sink;
    FILE *sink_file;
    int follow;
} call_t;

static void set_err(va_ais_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(va_ais_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, sizeof a->err, fmt, ap);
    va_end(ap);
}

/* ---- construction ----------------------------------------------------- */

static vc_status_t parse_endpoint(va_ais_t *a, const char *ep, char *err, size_t errlen)
{
    size_t n = strlen(ep);
    while (n && ep[n - 1] == '/')
        n--;
    if ((strncmp(ep, "http://", 7) != 0 && strncmp(ep, "https://", 8) != 0) ||
        n >= sizeof a->endpoint) {
        snprintf(err, errlen, "AIS endpoint '%.200s' is not an http:// or https:// URL of at most "
                              "%zu characters", ep, sizeof a->endpoint - 1);
        return VC_ERR_ARG;
    }
    memcpy(a->endpoint, ep, n);
    a->endpoint[n] = '\0';
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *path = NULL;
    vc_status_t rc = VC_ERR_ARG;
    if (!u) {
        rc = VC_ERR_NOMEM;
        goto done;
    }
    if (curl_url_set(u, CURLUPART_URL, a->endpoint, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
        snprintf(err, errlen, "AIS endpoint '%s' is not a valid URL (want http://HOST:PORT)",
                 a->endpoint);
        goto done;
    }
    if (curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && path && strcmp(path, "/") &&
        *path) {
        snprintf(err, errlen, "AIS endpoint '%s' has a path; give only http://HOST:PORT",
                 a->endpoint);
        goto done;
    }
    snprintf(a->where, sizeof a->where, "%s:%s", host, port);
    rc = VC_OK;
done:
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_url_cleanup(u);
    return rc;
}

va_ais_t *va_ais_new(const va_ais_opts_t *opts, char *err, size_t errlen)
{
    va_ais_opts_t dflt = {0};
    if (!opts)
        opts = &dflt;
    va_ais_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *ep = opts->endpoint && *opts->endpoint ? opts->endpoint : getenv("AIS_ENDPOINT");
    if (!ep || !*ep) {
        snprintf(err, errlen, "no AIS endpoint: pass --endpoint http://HOST:PORT or set "
                              "AIS_ENDPOINT");
        goto fail;
    }
    if (parse_endpoint(a, ep, err, errlen))
        goto fail;
    const char *tok = opts->token ? opts->token : getenv("AIS_AUTHN_TOKEN");
    if (tok && *tok) {
        for (const char *p = tok; *p; p++)
            if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
                /* never echo the token itself */
                snprintf(err, errlen, "the AIS token (AIS_AUTHN_TOKEN) holds a space, control "
                                      "or non-ASCII character; it cannot be sent in a header");
                goto fail;
            }
        size_t n = strlen(tok) + 32;
        if (!(a->auth = malloc(n))) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        snprintf(a->auth, n, "Authorization: Bearer %s", tok);
    }
    a->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 60000;
    a->prefer_json = opts->prefer_json;
    a->put_skip_vc = opts->put_skip_vc;
    a->max_reply = opts->max_reply ? opts->max_reply : (size_t)256 << 20;
    va_http_opts_t ho = {
        .verify_tls = !opts->insecure_tls,
        .ca_bundle = opts->ca_bundle,
        .connect_timeout_ms = opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000,
    };
    if (!(a->http = va_http_new(&ho))) {
        snprintf(err, errlen, "cannot set up HTTP (libcurl) for %s", a->where);
        goto fail;
    }
    return a;
fail:
    va_ais_destroy(&a);
    return NULL;
}

void va_ais_destroy(va_ais_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_ais_t *a = *self_p;
    va_http_destroy(&a->http);
    if (a->auth) {
        explicit_bzero(a->auth, strlen(a->auth));
        free(a->auth);
    }
    free(a);
    *self_p = NULL;
}

const char *va_ais_endpoint(const va_ais_t *self) { return self->endpoint; }
const char *va_ais_where(const va_ais_t *self) { return self->where; }
const char *va_ais_error(const va_ais_t *self) { return self->err; }

/* ---- one request ------------------------------------------------------ */

static void sample_begin(vc_sample_t *s, const char *op)
{
    if (!s)
        return;
    VC_SAMPLE_SET(s, op, op);
    s->start_wall_ns = vc_wall_now();
}

/* Sets the sample's error fields, keeping what was measured. */
static void sample_error(vc_sample_t *s, vc_errclass_t ec, const char *code, const char *msg)
{
    if (!s)
        return;
    s->err_class = ec;
    VC_SAMPLE_SET(s, err_code, code);
    VC_SAMPLE_SET(s, err_msg, msg);
}

/* Adds one reply to a sample that spans several requests: phases of the
 * first, bytes summed, status of the last. */
static void sample_acc(vc_sample_t *s, const va_http_resp_t *r, int first)
{
    if (!s)
        return;
    if (first) {
        s->dns_us = r->dns_us;
        s->connect_us = r->connect_us;
        s->tls_us = r->tls_us;
        s->ttfb_us = r->ttfb_us;
        s->bytes_sent = s->bytes_recv = 0;
    }
    s->bytes_sent += r->bytes_sent;
    s->bytes_recv += r->bytes_recv;
    s->http_status = (int32_t)r->status;
}

/* Starts the call (the request begun on a->http, not sent): URL, headers and
 * body set up in a, so it may complete later in a loop. On a failure sets
 * a->err and the sample's error fields and returns the status; nothing is
 * in flight then. fill: copy the reply's timing into the sample (a
 * single-request operation). */
static vc_status_t ais_begin(va_ais_t *a, const call_t *c, const char *what, vc_sample_t *s,
                             int fill)
{
    int n = snprintf(a->url, sizeof a->url, "%s/v1/%s%s%s", a->endpoint, c->path,
                     c->query ? "?" : "", c->query ? c->query : "");
    a->err[0] = '\0';
    snprintf(a->what, sizeof a->what, "%s", what);
    a->cur_s = s;
    a->cur_fill = fill;
    a->cur_out = NULL;
    if (n < 0 || (size_t)n >= sizeof a->url) {
        memset(&a->resp, 0, sizeof a->resp); /* nothing was sent */
        set_err(a, "%s: request URL longer than %d bytes", what, URL_MAX);
        sample_error(s, VC_EC_OTHER, "UrlTooLong", a->err);
        return VC_ERR_ARG;
    }
    const char **hdr = a->hdr;
    int nh = 0;
    if (a->auth)
        hdr[nh++] = a->auth;
    if (c->json)
        hdr[nh++] = "Content-Type: application/json";
    if (c->msgpack)
        hdr[nh++] = "Accept: application/msgpack";
    if (c->inv_name) {
        snprintf(a->inv, sizeof a->inv, "Ais-Inv-Name: %s", c->inv_name);
        hdr[nh++] = a->inv;
    }
    hdr[nh] = NULL;
    a->req = (va_http_req_t){
        .method = c->method,
        .url = a->url,
        .headers = hdr,
        .body = c->json ? (const void *)c->json : c->data,
        .body_len = c->json ? strlen(c->json) : c->len,
        .body_file = c->file,
        .body_file_len = c->flen,
        .sink = c->sink,
        .sink_file = c->sink_file,
        .max_body = c->sink == VA_SINK_MEMORY ? a->max_reply : 0,
        .timeout_ms = a->timeout_ms,
        .follow_redirects = c->follow,
        .unrestricted_auth = a->auth != NULL,
        .error_body_to_memory = c->sink != VA_SINK_MEMORY,
    };
    vc_status_t rc = va_http_begin(a->http, &a->req, &a->resp);
    if (rc) {
        memset(&a->resp, 0, sizeof a->resp);
        set_err(a, "%s: cannot start the request (%s)", what, vc_strerror(rc));
        sample_error(s, VC_EC_OTHER, "OutOfMemory", a->err);
    }
    return rc;
}

/* Ends the call ais_begin started, after it completed: on failure sets
 * a->err and the sample's error fields; returns the status. */
static vc_status_t ais_end(va_ais_t *a)
{
    const char *what = a->what;
    vc_sample_t *s = a->cur_s;
    int fill = a->cur_fill;
    va_http_resp_t *r = &a->resp;
    vc_status_t rc = va_http_result(a->http);
    if (s && fill)
        va_http_fill_sample(r, s);
    if (rc) {
        if (rc == VC_ERR_PROTO)
            set_err(a, "%s: reply from AIS at %s too large: %s", what, a->where, r->error);
        else {
            /* r->error starts with the host:port it failed on; avoid saying it twice */
            size_t wl = strlen(a->where);
            const char *why = strncmp(r->error, a->where, wl) == 0 && r->error[wl] == ':'
                                  ? r->error + wl + 1 + (r->error[wl + 1] == ' ')
                                  : r->error;
            set_err(a, "%s: no reply from AIS at %s: %s (is AIS running there? check --endpoint "
                       "or AIS_ENDPOINT)", what, a->where, why);
        }
        if (s) {
            vc_sample_t tmp;
            vc_sample_init(&tmp);
            va_http_fill_sample(r, &tmp);
            sample_error(s, tmp.err_class ? tmp.err_class : VC_EC_CONNECT, tmp.err_code, r->error);
        }
        return rc;
    }
    if (r->status >= 400) {
        va_ais_err_t e;
        const char *hv = va_http_resp_header(r, "Hdr-Error");
        if (r->body && r->body_len)
            va_ais_err_parse(r->status, r->body, r->body_len, &e);
        else
            va_ais_err_parse(r->status, hv, hv ? strlen(hv) : 0, &e);
        set_err(a, "%s: AIS at %s answered %ld %s: %s", what, a->where, r->status, e.code,
                e.message);
        sample_error(s, va_http_status_class(r->status, e.code), e.code, e.message);
        if (r->status == 404)
            return VC_ERR_NOTFOUND;
        if (r->status == 401 || r->status == 403)
            return VC_ERR_AUTH;
        return VC_ERR_SERVER;
    }
    if (r->status >= 300 || r->status < 200) {
        set_err(a, "%s: AIS at %s answered %ld, which vantage does not expect here", what,
                a->where, r->status);
        sample_error(s, VC_EC_PROTOCOL, "UnexpectedStatus", a->err);
        return VC_ERR_PROTO;
    }
    if (a->cur_out && fflush(a->cur_out) != 0) {
        set_err(a, "%s: writing the local file failed", what);
        sample_error(s, VC_EC_OTHER, "LocalWrite", a->err);
        return VC_ERR_IO;
    }
    return VC_OK;
}

/* Performs the call on this thread; on failure sets a->err, the sample's
 * error fields and returns the status. */
static vc_status_t ais_do(va_ais_t *a, const call_t *c, const char *what, vc_sample_t *s,
                          int fill)
{
    vc_status_t rc = ais_begin(a, c, what, s, fill);
    if (rc)
        return rc;
    va_http_perform(a->http);
    return ais_end(a);
}

/* The reply failed to decode: a protocol error with what was wrong. */
static vc_status_t proto_error(va_ais_t *a, vc_sample_t *s, vc_status_t rc, const char *what,
                               const char *code, const char *detail)
{
    set_err(a, "%s: malformed reply from AIS at %s: %s", what, a->where, detail);
    sample_error(s, rc == VC_ERR_NOMEM ? VC_EC_OTHER : VC_EC_PROTOCOL,
                 rc == VC_ERR_NOMEM ? "NoMemory" : code, detail);
    return rc;
}

static vc_status_t bck_path(va_ais_t *a, const va_ais_bck_t *bck, const char *key, char *path,
                            size_t pathlen, char *query, size_t qlen, vc_sample_t *s)
{
    char ek[3 * VA_AIS_OBJNAME_MAX + 1];
    vc_status_t rc = va_ais_bck_query(bck, query, qlen);
    if (!rc && key)
        rc = va_ais_escape_path(key, ek, sizeof ek);
    if (!rc) {
        int n = key ? snprintf(path, pathlen, "objects/%s/%s", bck->name, ek)
                    : snprintf(path, pathlen, "buckets/%s", bck->name);
        if (n < 0 || (size_t)n >= pathlen)
            rc = VC_ERR_ARG;
    }
    if (rc) {
        set_err(a, "bucket or object name too long for a request (%s)", bck->name);
        sample_error(s, VC_EC_OTHER, "NameTooLong", a->err);
    }
    return rc;
}

/* ---- readiness and version -------------------------------------------- */

vc_status_t va_ais_health(va_ais_t *self, int readiness, vc_sample_t *s)
{
    sample_begin(s, "health");
    call_t c = {.method = "GET", .path = "health", .query = readiness ? "prr=true" : NULL};
    return ais_do(self, &c, "health check", s, 1);
}

vc_status_t va_ais_cluster(va_ais_t *self, va_ais_cluster_t *cl)
{
    memset(cl, 0, sizeof *cl);
    char perr[256];
    call_t c = {.method = "GET", .path = "cluster", .query = "what=smap"};
    vc_status_t rc = ais_do(self, &c, "read cluster map", NULL, 0);
    if (rc)
        return rc;
    rc = va_ais_smap_parse(self->resp.body, self->resp.body_len, &cl->smap, perr, sizeof perr);
    if (rc)
        return proto_error(self, NULL, rc, "read cluster map", "BadSmap", perr);
    call_t v = {.method = "GET", .path = "daemon", .query = "what=software_version"};
    if ((rc = ais_do(self, &v, "read software version", NULL, 0)))
        return rc;
    if (va_ais_version_parse(self->resp.body, self->resp.body_len, &cl->major, &cl->minor,
                             cl->version, sizeof cl->version)) {
        snprintf(perr, sizeof perr, "software version '%s' is not MAJOR.MINOR...", cl->version);
        return proto_error(self, NULL, VC_ERR_PROTO, "read software version", "BadVersion",
                           perr);
    }
    return VC_OK;
}

static int cancelled(atomic_int *cancel) { return cancel && atomic_load(cancel); }

vc_status_t va_ais_probe(va_ais_t *self, int64_t timeout_ms, int64_t poll_ms, int need_nbi,
                         atomic_int *cancel, va_ais_cluster_t *cl)
{
    if (poll_ms < 10)
        poll_ms = 10;
    vc_mono_ns_t deadline = vc_mono_now() + timeout_ms * VC_NS_PER_MS;
    vc_status_t rc;
    for (;;) {
        rc = va_ais_health(self, 1, NULL);
        if (!rc)
            break;
        /* an unreachable endpoint will not become ready by waiting for it */
        if (rc == VC_ERR_NET || rc == VC_ERR_AUTH || cancelled(cancel))
            return rc;
        if (vc_mono_now() + poll_ms * VC_NS_PER_MS > deadline) {
            char last[512];
            snprintf(last, sizeof last, "%s", self->err);
            set_err(self, "AIS at %s not ready after %lld ms (last: %s)", self->where,
                    (long long)timeout_ms, last);
            return VC_ERR_TIMEOUT;
        }
        vc_sleep_ns(poll_ms * VC_NS_PER_MS);
    }
    if ((rc = va_ais_cluster(self, cl)))
        return rc;
    if (cl->smap.nactive < 1) {
        set_err(self, "AIS at %s has no active target (%d targets in the cluster map)",
                self->where, cl->smap.ntargets);
        return VC_ERR_SERVER;
    }
    if (need_nbi && (rc = va_ais_version_check_nbi(cl->major, cl->minor, cl->version, self->where,
                                                    self->err, sizeof self->err)))
        return rc;
    return VC_OK;
}

/* ---- listing ---------------------------------------------------------- */

static int is_msgpack_reply(const va_http_resp_t *r, int asked)
{
    const char *ct = va_http_resp_header(r, "Content-Type");
    if (ct && strncasecmp(ct, "application/msgpack", 19) == 0)
        return 1;
    if (ct && strncasecmp(ct, "application/json", 16) == 0)
        return 0;
    for (size_t i = 0; i < r->body_len; i++) /* no usable type: look at the body */
        if (r->body[i] != ' ' && r->body[i] != '\n' && r->body[i] != '\r' && r->body[i] != '\t')
            return r->body[i] == '{' ? 0 : asked;
    return asked;
}

vc_status_t va_ais_list(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_list_opts_t *o,
                        vc_sample_t *s)
{
    const char *op = o->nbi ? "ais-nbi" : "ais-regular";
    char what[VA_AIS_BCK_NAME_MAX + 400], bname[VA_AIS_BCK_NAME_MAX + 160];
    va_ais_bck_format(bck, bname, sizeof bname);
    snprintf(what, sizeof what, "%s listing of %s/%.200s", o->nbi ? "NBI" : "regular", bname,
             o->prefix ? o->prefix : "");
    sample_begin(s, op);
    if (s) {
        s->keys = 0;
        s->pages = 0;
    }
    char path[VA_AIS_BCK_NAME_MAX + 16], query[VA_AIS_NS_MAX * 3 + 64];
    vc_status_t rc = bck_path(self, bck, NULL, path, sizeof path, query, sizeof query, s);
    if (rc)
        return rc;
    if (o->nbi && o->inv_name && *o->inv_name &&
        (rc = va_ais_nbi_name_check(o->inv_name, self->err, sizeof self->err))) {
        sample_error(s, VC_EC_OTHER, "BadArgument", self->err);
        return rc;
    }
    va_ais_page_t page;
    va_ais_page_init(&page);
    char *uuid = strdup(""), *token = strdup("");
    char perr[256];
    int64_t u0, s0, u1, s1;
    vc_thread_cpu_us(&u0, &s0);
    vc_mono_ns_t t0 = vc_mono_now();
    int warned = 0;
    if (!uuid || !token) {
        rc = VC_ERR_NOMEM;
        set_err(self, "%s: out of memory", what);
        sample_error(s, VC_EC_OTHER, "NoMemory", self->err);
        goto done;
    }
    for (int first = 1;; first = 0) {
        if (cancelled(o->cancel)) {
            rc = VC_ERR_CANCELLED;
            set_err(self, "%s: cancelled", what);
            sample_error(s, VC_EC_OTHER, "Cancelled", self->err);
            break;
        }
        va_ais_lso_msg_t m = {
            .uuid = uuid,
            .prefix = o->prefix,
            .props = o->props,
            .token = token,
            .pagesize = o->page_size,
            .flags = o->flags | (o->nbi ? VA_AIS_LS_NBI : 0),
        };
        char *body = va_ais_lso_body(&m);
        if (!body) {
            rc = VC_ERR_ARG;
            set_err(self, "%s: cannot build the request (prefix not UTF-8, or out of memory)",
                    what);
            sample_error(s, VC_EC_OTHER, "BadRequest", self->err);
            break;
        }
        call_t c = {.method = "GET", .path = path, .query = query, .json = body,
                    .msgpack = !self->prefer_json,
                    .inv_name = o->nbi && o->inv_name && *o->inv_name ? o->inv_name : NULL};
        rc = ais_do(self, &c, what, s, 0);
        free(body);
        sample_acc(s, &self->resp, first);
        if (rc)
            break;
        const va_http_resp_t *r = &self->resp;
        rc = is_msgpack_reply(r, c.msgpack)
                 ? va_ais_page_decode_msgpack(r->body, r->body_len, &page, perr, sizeof perr)
                 : va_ais_page_decode_json(r->body, r->body_len, &page, perr, sizeof perr);
        if (rc) {
            char detail[300];
            snprintf(detail, sizeof detail, "page %d: %s", s ? s->pages + 1 : 0, perr);
            proto_error(self, s, rc, what, is_msgpack_reply(r, c.msgpack) ? "BadMsgpack"
                                                                         : "BadJSON", detail);
            break;
        }
        if (s) {
            if ((rc = vc_sample_add_page(s, r->duration_ns, (int64_t)page.nentries,
                                         r->bytes_recv))) {
                set_err(self, "%s: out of memory", what);
                sample_error(s, VC_EC_OTHER, "NoMemory", self->err);
                break;
            }
            s->pages++;
            s->keys += (int64_t)page.nentries;
        }
        if (page.flags && !warned) {
            warned = 1;
            vc_warn(COMP, "%s: AIS flags the page as possibly incomplete (rebalance, flags %u)",
                    what, page.flags);
        }
        for (size_t i = 0; o->on_entry && i < page.nentries; i++)
            if (o->on_entry(o->arg, &page.entries[i])) {
                rc = VC_ERR_CANCELLED;
                break;
            }
        if (rc) {
            set_err(self, "%s: stopped by the caller", what);
            sample_error(s, VC_EC_OTHER, "Cancelled", self->err);
            break;
        }
        if (!page.token[0])
            break; /* the last page */
        /* the same uuid and token again would be answered with the same page,
         * forever (ais-rest-api.md correction 5) */
        if (strcmp(page.token, token) == 0 && strcmp(page.uuid, uuid) == 0) {
            rc = proto_error(self, s, VC_ERR_PROTO, what, "TokenRepeated",
                             "the server returned the continuation token it was given; the "
                             "listing would never end");
            break;
        }
        free(uuid);
        free(token);
        uuid = page.uuid;
        token = page.token;
        page.uuid = page.token = NULL;
    }
done:
    if (s) {
        s->duration_ns = vc_mono_now() - t0;
        vc_thread_cpu_us(&u1, &s1);
        s->cpu_user_us = u1 - u0;
        s->cpu_sys_us = s1 - s0;
    }
    va_ais_page_clear(&page);
    free(uuid);
    free(token);
    return rc;
}

/* ---- NBI -------------------------------------------------------------- */

vc_status_t va_ais_nbi_create(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_nbi_opts_t *o,
                              char *job_id, size_t idlen, vc_sample_t *s)
{
    char path[VA_AIS_BCK_NAME_MAX + 16], query[VA_AIS_NS_MAX * 3 + 64], perr[256];
    sample_begin(s, "nbi-create-req");
    if (idlen)
        job_id[0] = '\0';
    vc_status_t rc = bck_path(self, bck, NULL, path, sizeof path, query, sizeof query, s);
    if (rc)
        return rc;
    char *body = va_ais_nbi_create_body(o, perr, sizeof perr);
    if (!body) {
        set_err(self, "create inventory of %s: %s", bck->name, perr);
        sample_error(s, VC_EC_OTHER, "BadArgument", self->err);
        return VC_ERR_ARG;
    }
    char what[VA_AIS_BCK_NAME_MAX + 64], bname[VA_AIS_BCK_NAME_MAX + 160];
    va_ais_bck_format(bck, bname, sizeof bname);
    snprintf(what, sizeof what, "create inventory of %s", bname);
    call_t c = {.method = "POST", .path = path, .query = query, .json = body};
    rc = ais_do(self, &c, what, s, 1);
    free(body);
    if (rc)
        return rc;
    rc = va_ais_job_id_parse(self->resp.body, self->resp.body_len, job_id, idlen, perr,
                             sizeof perr);
    if (rc)
        return proto_error(self, s, rc, what, "BadJobId", perr);
    return VC_OK;
}

static vc_status_t job_status(va_ais_t *self, const char *job_id, const char *kind,
                              va_ais_job_status_t *st, vc_sample_t *s, int first)
{
    char what[VA_AIS_JOB_ID_MAX + 64], perr[256];
    snprintf(what, sizeof what, "status of job %s", job_id);
    char *body = va_ais_job_query_body(job_id, kind);
    if (!body) {
        set_err(self, "%s: out of memory", what);
        sample_error(s, VC_EC_OTHER, "NoMemory", self->err);
        return VC_ERR_NOMEM;
    }
    call_t c = {.method = "GET", .path = "cluster", .query = "what=status", .json = body};
    vc_status_t rc = ais_do(self, &c, what, s, 0);
    free(body);
    sample_acc(s, &self->resp, first);
    if (rc == VC_ERR_NOTFOUND) {
        char last[512];
        snprintf(last, sizeof last, "%s", self->err);
        set_err(self, "job %s is unknown to AIS at %s (it never existed, or ended more than "
                      "a few minutes ago): %s", job_id, self->where, last);
    }
    if (rc)
        return rc;
    rc = va_ais_job_status_parse(self->resp.body, self->resp.body_len, st, perr, sizeof perr);
    if (rc)
        return proto_error(self, s, rc, what, "BadJobStatus", perr);
    return VC_OK;
}

vc_status_t va_ais_job_wait(va_ais_t *self, const char *job_id, const char *kind, int64_t poll_ms,
                            int64_t timeout_ms, atomic_int *cancel, va_ais_job_status_t *st,
                            vc_sample_t *s)
{
    va_ais_job_status_t local;
    if (!st)
        st = &local;
    if (poll_ms < 10)
        poll_ms = 10;
    sample_begin(s, "job-wait");
    int64_t u0, s0, u1, s1;
    vc_thread_cpu_us(&u0, &s0);
    vc_mono_ns_t t0 = vc_mono_now(), deadline = t0 + timeout_ms * VC_NS_PER_MS;
    vc_status_t rc;
    for (int first = 1;; first = 0) {
        rc = job_status(self, job_id, kind, st, s, first);
        if (rc)
            break;
        if (st->end_time_ns != 0) {
            if (st->err[0] || st->aborted) {
                set_err(self, "job %s (%s) on AIS at %s %s: %s", job_id, kind, self->where,
                        st->aborted ? "was aborted" : "failed",
                        st->err[0] ? st->err : "no reason given");
                sample_error(s, VC_EC_SERVER, st->aborted ? "JobAborted" : "JobFailed",
                             st->err[0] ? st->err : "aborted");
                rc = VC_ERR_SERVER;
            }
            break;
        }
        if (cancelled(cancel)) {
            set_err(self, "waiting for job %s: cancelled", job_id);
            sample_error(s, VC_EC_OTHER, "Cancelled", self->err);
            rc = VC_ERR_CANCELLED;
            break;
        }
        vc_mono_ns_t now = vc_mono_now();
        if (now >= deadline) {
            set_err(self, "job %s (%s) on AIS at %s has not finished after %lld ms; it may "
                          "still be running (vantage ais nbi show lists finished inventories)",
                    job_id, kind, self->where, (long long)timeout_ms);
            sample_error(s, VC_EC_TIMEOUT, "JobTimeout", self->err);
            rc = VC_ERR_TIMEOUT;
            break;
        }
        int64_t nap = poll_ms * VC_NS_PER_MS;
        vc_sleep_ns(nap < deadline - now ? nap : deadline - now);
    }
    if (s) {
        s->duration_ns = vc_mono_now() - t0;
        vc_thread_cpu_us(&u1, &s1);
        s->cpu_user_us = u1 - u0;
        s->cpu_sys_us = s1 - s0;
    }
    return rc;
}

vc_status_t va_ais_job_time(va_ais_t *self, const char *job_id, const char *kind,
                            va_ais_job_time_t *t, vc_sample_t *s)
{
    char what[VA_AIS_JOB_ID_MAX + 64], perr[256];
    snprintf(what, sizeof what, "snapshots of job %s", job_id);
    sample_begin(s, "job-time");
    memset(t, 0, sizeof *t);
    char *body = va_ais_job_query_body(job_id, kind);
    if (!body)
        return VC_ERR_NOMEM;
    call_t c = {.method = "GET", .path = "cluster", .query = "what=qryxstats", .json = body};
    vc_status_t rc = ais_do(self, &c, what, s, 1);
    free(body);
    if (rc)
        return rc;
    rc = va_ais_job_total_time(self->resp.body, self->resp.body_len, t, perr, sizeof perr);
    if (rc == VC_ERR_NOTFOUND) {
        set_err(self, "%s on AIS at %s: %s", what, self->where, perr);
        sample_error(s, VC_EC_MISMATCH, "NoSnapshots", perr);
        return rc;
    }
    if (rc)
        return proto_error(self, s, rc, what, "BadSnapshots", perr);
    return VC_OK;
}

vc_status_t va_ais_nbi_create_wait(va_ais_t *self, const va_ais_bck_t *bck,
                                   const va_ais_nbi_opts_t *o, int64_t poll_ms,
                                   int64_t timeout_ms, atomic_int *cancel, char *job_id,
                                   size_t idlen, vc_sample_t *s)
{
    vc_sample_t part;
    vc_sample_init(&part);
    int64_t u0, s0, u1, s1;
    vc_thread_cpu_us(&u0, &s0);
    sample_begin(s, "nbi-create");
    vc_mono_ns_t t0 = vc_mono_now();
    vc_status_t rc = va_ais_nbi_create(self, bck, o, job_id, idlen, &part);
    if (s) {
        s->dns_us = part.dns_us;
        s->connect_us = part.connect_us;
        s->tls_us = part.tls_us;
        s->ttfb_us = part.ttfb_us;
        s->bytes_sent = part.bytes_sent;
        s->bytes_recv = part.bytes_recv;
        s->http_status = part.http_status;
    }
    if (!rc) {
        vc_sample_clear(&part);
        rc = va_ais_job_wait(self, job_id, VA_AIS_KIND_NBI_CREATE, poll_ms, timeout_ms, cancel,
                             NULL, &part);
        if (s) {
            s->bytes_sent += part.bytes_sent;
            s->bytes_recv += part.bytes_recv;
            s->http_status = part.http_status;
        }
    }
    if (s)
        s->duration_ns = vc_mono_now() - t0;
    if (rc && s) {
        s->err_class = part.err_class;
        VC_SAMPLE_SET(s, err_code, part.err_code);
        VC_SAMPLE_SET(s, err_msg, part.err_msg);
    }
    if (!rc) {
        va_ais_job_time_t t;
        vc_sample_clear(&part);
        if (va_ais_job_time(self, job_id, VA_AIS_KIND_NBI_CREATE, &t, &part) == VC_OK) {
            if (s) {
                s->server_ns = t.total_ns;
                s->keys = t.objs;
            }
        } else {
            vc_warn(COMP, "%s", self->err); /* the creation itself succeeded */
        }
    }
    if (s) {
        vc_thread_cpu_us(&u1, &s1);
        s->cpu_user_us = u1 - u0;
        s->cpu_sys_us = s1 - s0;
    }
    vc_sample_clear(&part);
    return rc;
}

vc_status_t va_ais_nbi_show(va_ais_t *self, const va_ais_bck_t *bck, const char *name,
                            va_ais_inv_t **invs, size_t *n, vc_sample_t *s)
{
    char path[VA_AIS_BCK_NAME_MAX + 16], query[VA_AIS_NS_MAX * 3 + 64], perr[256];
    *invs = NULL;
    *n = 0;
    sample_begin(s, "nbi-show");
    vc_status_t rc = bck_path(self, bck, NULL, path, sizeof path, query, sizeof query, s);
    if (rc)
        return rc;
    char *body = va_ais_nbi_action_body("show-inventory", name);
    if (!body)
        return VC_ERR_NOMEM;
    char what[VA_AIS_BCK_NAME_MAX + 64];
    snprintf(what, sizeof what, "show inventories of %s", bck->name);
    call_t c = {.method = "GET", .path = path, .query = query, .json = body};
    rc = ais_do(self, &c, what, s, 1);
    free(body);
    if (rc)
        return rc;
    rc = va_ais_nbi_show_parse(self->resp.body, self->resp.body_len, invs, n, perr, sizeof perr);
    if (rc)
        return proto_error(self, s, rc, what, "BadJSON", perr);
    return VC_OK;
}

vc_status_t va_ais_nbi_destroy(va_ais_t *self, const va_ais_bck_t *bck, const char *name,
                               vc_sample_t *s)
{
    char path[VA_AIS_BCK_NAME_MAX + 16], query[VA_AIS_NS_MAX * 3 + 64];
    sample_begin(s, "nbi-destroy");
    vc_status_t rc = bck_path(self, bck, NULL, path, sizeof path, query, sizeof query, s);
    if (rc)
        return rc;
    char *body = va_ais_nbi_action_body("destroy-inventory", name);
    if (!body)
        return VC_ERR_NOMEM;
    char what[VA_AIS_BCK_NAME_MAX + 64];
    snprintf(what, sizeof what, "destroy inventory of %s", bck->name);
    call_t c = {.method = "DELETE", .path = path, .query = query, .json = body};
    rc = ais_do(self, &c, what, s, 1);
    free(body);
    return rc;
}

/* ---- objects ---------------------------------------------------------- */

/* Starts an object call (see ais_begin). */
static vc_status_t obj_begin(va_ais_t *self, const char *op, const char *verb,
                             const va_ais_bck_t *bck, const char *key, call_t *c, vc_sample_t *s)
{
    char path[3 * VA_AIS_OBJNAME_MAX + VA_AIS_BCK_NAME_MAX + 32];
    char query[VA_AIS_NS_MAX * 3 + 80];
    sample_begin(s, op);
    if (!key || !*key) {
        set_err(self, "%s: no object name given (write s3://BUCKET/KEY)", verb);
        sample_error(s, VC_EC_OTHER, "BadArgument", self->err);
        return VC_ERR_ARG;
    }
    vc_status_t rc = bck_path(self, bck, key, path, sizeof path, query, sizeof query - 16, s);
    if (rc)
        return rc;
    if (self->put_skip_vc && strcmp(c->method, "PUT") == 0)
        strcat(query, "&skip_vc=true");
    char what[VA_AIS_BCK_NAME_MAX + 320], bname[VA_AIS_BCK_NAME_MAX + 160];
    va_ais_bck_format(bck, bname, sizeof bname);
    snprintf(what, sizeof what, "%s %s/%.256s", verb, bname, key);
    c->path = path;
    c->query = query;
    c->follow = 1;
    return ais_begin(self, c, what, s, 1);
}

vc_status_t va_ais_begin(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_obj_t *o,
                         vc_sample_t *s)
{
    static const char empty[1];
    call_t c = {.sink = VA_SINK_MEMORY};
    const char *op;
    switch (o->op) {
    case VA_AIS_PUT:
        op = "put";
        c.method = "PUT";
        if (o->file) {
            if (fseeko(o->file, 0, SEEK_SET) != 0) {
                sample_begin(s, "put");
                set_err(self, "PUT %s: the file to upload cannot be rewound", o->key);
                sample_error(s, VC_EC_OTHER, "FileNotSeekable", self->err);
                return VC_ERR_IO;
            }
            c.file = o->file;
            c.flen = o->file_len;
        } else {
            c.data = o->data ? o->data : empty;
            c.len = o->data ? o->len : 0;
        }
        break;
    case VA_AIS_GET:
        op = "get";
        c.method = "GET";
        c.sink = o->out ? VA_SINK_FILE : VA_SINK_DISCARD;
        c.sink_file = o->out;
        break;
    case VA_AIS_HEAD:
        op = "head";
        c.method = "HEAD";
        break;
    case VA_AIS_DELETE:
    default:
        op = "delete";
        c.method = "DELETE";
        break;
    }
    vc_status_t rc = obj_begin(self, op, c.method, bck, o->key, &c, s);
    if (rc == VC_OK && o->op == VA_AIS_GET)
        self->cur_out = o->out;
    return rc;
}

/* An object operation performed on this thread. */
static vc_status_t obj_sync(va_ais_t *self, const va_ais_bck_t *bck, const va_ais_obj_t *o,
                            vc_sample_t *s)
{
    vc_status_t rc = va_ais_begin(self, bck, o, s);
    if (rc)
        return rc;
    va_http_perform(self->http);
    return ais_end(self);
}

vc_status_t va_ais_put(va_ais_t *self, const va_ais_bck_t *bck, const char *key,
                       const void *data, size_t len, vc_sample_t *s)
{
    va_ais_obj_t o = {.op = VA_AIS_PUT, .key = key, .data = data, .len = len};
    return obj_sync(self, bck, &o, s);
}

vc_status_t va_ais_put_file(va_ais_t *self, const va_ais_bck_t *bck, const char *key, FILE *f,
                            int64_t len, vc_sample_t *s)
{
    va_ais_obj_t o = {.op = VA_AIS_PUT, .key = key, .file = f, .file_len = len};
    return obj_sync(self, bck, &o, s);
}

vc_status_t va_ais_get(va_ais_t *self, const va_ais_bck_t *bck, const char *key, FILE *to,
                       int64_t *nbytes, vc_sample_t *s)
{
    va_ais_obj_t o = {.op = VA_AIS_GET, .key = key, .out = to};
    vc_status_t rc = obj_sync(self, bck, &o, s);
    if (nbytes)
        *nbytes = rc ? -1 : self->resp.bytes_recv;
    return rc;
}

vc_status_t va_ais_head(va_ais_t *self, const va_ais_bck_t *bck, const char *key, int64_t *size,
                        vc_sample_t *s)
{
    va_ais_obj_t o = {.op = VA_AIS_HEAD, .key = key};
    vc_status_t rc = obj_sync(self, bck, &o, s);
    if (size) {
        const char *cl = rc ? NULL : va_http_resp_header(&self->resp, "Content-Length");
        char *end = NULL;
        long long v = cl ? strtoll(cl, &end, 10) : -1;
        *size = cl && end != cl && !*end && v >= 0 ? v : -1;
    }
    return rc;
}

vc_status_t va_ais_delete(va_ais_t *self, const va_ais_bck_t *bck, const char *key,
                          vc_sample_t *s)
{
    va_ais_obj_t o = {.op = VA_AIS_DELETE, .key = key};
    return obj_sync(self, bck, &o, s);
}

vc_status_t va_ais_end(va_ais_t *self) { return ais_end(self); }
va_http_t *va_ais_http(va_ais_t *self) { return self->http; }

/* ---- names ------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t va_ais_rng_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) == (ssize_t)sizeof seed)
        return seed;
    return (uint64_t)vc_wall_now() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)vc_mono_now();
}

vc_status_t va_ais_random_name(char *out, size_t outlen, const char *prefix, uint64_t *rng)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    size_t pl = prefix ? strlen(prefix) : 0;
    if (outlen < pl + VA_AIS_RANDOM_NAME_LEN + 1)
        return VC_ERR_ARG;
    memcpy(out, prefix, pl);
    for (int i = 0; i < VA_AIS_RANDOM_NAME_LEN; i++)
        out[pl + (size_t)i] = letters[splitmix64(rng) % 52];
    out[pl + VA_AIS_RANDOM_NAME_LEN] = '\0';
    return VC_OK;
}
