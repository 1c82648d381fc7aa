/* va_s3: signed, timed S3 requests over one keep-alive connection. */
#include "va_s3.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "va_http.h"
#include "va_sigv4.h"
#include "vc_clock.h"

#define KEY_MAX 1024        /* S3's limit on a key, in bytes */
#define ERRBODY_MAX 16384   /* error replies are small; keep this much */
#define URL_MAX (KEY_MAX * 3 + 8192)

typedef enum { SINK_NONE = 0, SINK_DISCARD, SINK_FILE, SINK_LIST } sink_mode_t;

typedef struct {
    char url[URL_MAX];
    char uri[KEY_MAX * 3 + 600]; /* canonical URI (encoded path) */
    char host[600];              /* Host header value */
    char query[8192];            /* canonical query string, also sent */
} target_t;

typedef struct {
    const char *op;
    const char *method;
    const char *bucket;
    const char *key;            /* NULL for bucket requests */
    const va_sigv4_kv_t *query;
    size_t nquery;
    const void *body;
    size_t body_len;
    FILE *body_file;
    int64_t body_file_len;
    const char *payload_hash;   /* NULL: empty payload */
    sink_mode_t sink;
    FILE *out;
    FILE *own_file;             /* body_file opened here: closed when the request ends */
} s3req_t;

struct va_s3_t {
    va_http_t *http;
    char scheme[8];
    char host[256];      /* as in the endpoint, without port */
    char hostport[300];  /* host[:port] as the Host header carries it */
    char connect_hp[300]; /* host:port always, for messages */
    char base_path[256]; /* endpoint path without trailing '/', usually "" */
    va_s3_addressing_t addressing;
    char region[64];
    char *access_key, *secret_key, *session_token;
    va_sigv4_cache_t sigcache;
    long timeout_ms;
    int unsigned_payload;
    va_s3xml_list_t *xml;
    /* the request in flight */
    s3req_t cur;
    vc_sample_t *cur_s;
    target_t *t;
    va_sigv4_out_t sig;
    char host_line[640];
    const char *headers[8];
    va_http_req_t hreq;
    va_http_resp_t resp;
    vc_status_t body_rc;
    char body_err[256];
    char *errbody;
    size_t errlen;
    char last_error[1024];
};

static char *dup_secret(const char *s) { return s && *s ? strdup(s) : NULL; }

static void free_secret(char **p)
{
    if (*p) {
        OPENSSL_cleanse(*p, strlen(*p));
        free(*p);
        *p = NULL;
    }
}

void va_s3_opts_from_awscfg(va_s3_opts_t *opts, const va_awscfg_t *cfg)
{
    opts->endpoint = cfg->endpoint;
    opts->region = cfg->region;
    opts->access_key = cfg->access_key;
    opts->secret_key = cfg->secret_key;
    opts->session_token = cfg->session_token[0] ? cfg->session_token : NULL;
}

/* Splits the endpoint URL into scheme, host, Host header and base path. */
static vc_status_t parse_endpoint(va_s3_t *self, const char *endpoint, char *err, size_t errlen)
{
    vc_status_t rc = VC_ERR_ARG;
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL;
    CURLU *u = curl_url();
    if (!u)
        return VC_ERR_NOMEM;
    if (curl_url_set(u, CURLUPART_URL, endpoint, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
        snprintf(err, errlen, "endpoint '%.200s' is not a URL (want http(s)://host[:port])", endpoint);
        goto done;
    }
    if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
        snprintf(err, errlen, "endpoint '%.200s': scheme must be http or https", endpoint);
        goto done;
    }
    if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK && query && *query) {
        snprintf(err, errlen, "endpoint '%.200s' must not have a query string", endpoint);
        goto done;
    }
    curl_url_get(u, CURLUPART_PORT, &port, 0); /* NULL when not given */
    curl_url_get(u, CURLUPART_PATH, &path, 0);
    if (strlen(host) >= sizeof self->host || (path && strlen(path) >= sizeof self->base_path)) {
        snprintf(err, errlen, "endpoint '%.200s' is too long", endpoint);
        goto done;
    }
    snprintf(self->scheme, sizeof self->scheme, "%s", scheme);
    snprintf(self->host, sizeof self->host, "%s", host);
    int is_default = !port || (strcmp(scheme, "http") == 0 && strcmp(port, "80") == 0) ||
                     (strcmp(scheme, "https") == 0 && strcmp(port, "443") == 0);
    /* what curl would send as Host, which is what must be signed */
    snprintf(self->hostport, sizeof self->hostport, "%s%s%s", host, is_default ? "" : ":",
             is_default ? "" : port);
    snprintf(self->connect_hp, sizeof self->connect_hp, "%s:%s", host,
             port ? port : (strcmp(scheme, "https") == 0 ? "443" : "80"));
    snprintf(self->base_path, sizeof self->base_path, "%s", path ? path : "");
    size_t bl = strlen(self->base_path);
    while (bl > 0 && self->base_path[bl - 1] == '/')
        self->base_path[--bl] = '\0';
    rc = VC_OK;
done:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_url_cleanup(u);
    return rc;
}

va_s3_t *va_s3_new(const va_s3_opts_t *opts, char *err, size_t errlen)
{
    va_s3_t *self = NULL;
    char default_ep[128];
    if (!opts || !opts->access_key || !*opts->access_key || !opts->secret_key || !*opts->secret_key) {
        snprintf(err, errlen, "S3 client needs an access key and a secret key");
        return NULL;
    }
    const char *region = opts->region && *opts->region ? opts->region : "us-east-1";
    if (strlen(region) >= sizeof self->region) {
        snprintf(err, errlen, "region name too long");
        return NULL;
    }
    self = calloc(1, sizeof *self);
    if (!self)
        goto nomem;
    snprintf(self->region, sizeof self->region, "%s", region);
    const char *ep = opts->endpoint;
    int aws_default = !ep || !*ep;
    if (aws_default) {
        snprintf(default_ep, sizeof default_ep, "https://s3.%s.amazonaws.com", self->region);
        ep = default_ep;
    }
    if (parse_endpoint(self, ep, err, errlen) != VC_OK)
        goto fail;
    self->addressing = opts->addressing;
    unsigned char ip[16];
    if (self->addressing == VA_S3_ADDR_VIRTUAL &&
        (self->host[0] == '[' || inet_pton(AF_INET, self->host, ip) == 1)) {
        snprintf(err, errlen,
                 "virtual-hosted addressing puts the bucket in the host name, which cannot work with "
                 "the IP address in '%.200s': use a DNS name (http://localhost:PORT) or path-style",
                 ep);
        goto fail;
    }
    if (self->addressing == VA_S3_ADDR_AUTO) {
        size_t hl = strlen(self->host);
        int aws = hl > 14 && strcmp(self->host + hl - 14, ".amazonaws.com") == 0;
        self->addressing = aws ? VA_S3_ADDR_VIRTUAL : VA_S3_ADDR_PATH;
    }
    self->access_key = dup_secret(opts->access_key);
    self->secret_key = dup_secret(opts->secret_key);
    self->session_token = dup_secret(opts->session_token);
    if (!self->access_key || !self->secret_key || (opts->session_token && *opts->session_token &&
                                                   !self->session_token))
        goto nomem;
    self->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 60000;
    self->unsigned_payload = opts->unsigned_payload;
    va_http_opts_t ho = {.verify_tls = !opts->insecure,
                         .ca_bundle = opts->ca_bundle && *opts->ca_bundle ? opts->ca_bundle : NULL,
                         .connect_timeout_ms = opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms
                                                                            : 10000};
    self->http = va_http_new(&ho);
    self->xml = va_s3xml_list_new();
    self->errbody = malloc(ERRBODY_MAX + 1);
    self->t = malloc(sizeof *self->t);
    if (!self->http || !self->xml || !self->errbody || !self->t)
        goto nomem;
    return self;
nomem:
    snprintf(err, errlen, "out of memory creating the S3 client");
fail:
    va_s3_destroy(&self);
    return NULL;
}

void va_s3_destroy(va_s3_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_s3_t *self = *self_p;
    va_http_destroy(&self->http);
    va_s3xml_list_destroy(&self->xml);
    free_secret(&self->access_key);
    free_secret(&self->secret_key);
    free_secret(&self->session_token);
    va_sigv4_cache_clear(&self->sigcache);
    free(self->errbody);
    free(self->t);
    OPENSSL_cleanse(&self->sig, sizeof self->sig);
    free(self);
    *self_p = NULL;
}

const char *va_s3_endpoint_hostport(const va_s3_t *self) { return self->connect_hp; }
const char *va_s3_last_error(const va_s3_t *self) { return self->last_error; }

/* ---- addressing ---- */

static int valid_bucket(const char *b, int virtual_hosted)
{
    size_t n = b ? strlen(b) : 0;
    if (n < 1 || n > 255)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        if (!virtual_hosted)
            ok = ok || (c >= 'A' && c <= 'Z') || c == '_'; /* legacy names some servers allow */
        if (!ok)
            return 0;
    }
    return !virtual_hosted || (n >= 3 && n <= 63);
}

/* Builds URL, Host and canonical URI for bucket[/key] with query q. */
static vc_status_t make_target(va_s3_t *self, const char *bucket, const char *key,
                               const va_sigv4_kv_t *q, size_t nq, target_t *t)
{
    int vh = self->addressing == VA_S3_ADDR_VIRTUAL;
    if (!valid_bucket(bucket, vh)) {
        snprintf(self->last_error, sizeof self->last_error,
                 "bucket name '%.100s' is not valid%s", bucket ? bucket : "",
                 vh ? " for virtual-hosted addressing (use --path-style)" : "");
        return VC_ERR_ARG;
    }
    if (key && (!*key || strlen(key) > KEY_MAX)) {
        snprintf(self->last_error, sizeof self->last_error,
                 "object key must be 1 to %d bytes long (got %zu)", KEY_MAX, strlen(key));
        return VC_ERR_ARG;
    }
    char enc[KEY_MAX * 3 + 1] = "";
    if (key && va_sigv4_uri_encode(key, strlen(key), 1, enc, sizeof enc, NULL) != VC_OK)
        return VC_ERR_ARG;
    if (va_sigv4_canonical_query(q, nq, t->query, sizeof t->query) != VC_OK) {
        snprintf(self->last_error, sizeof self->last_error, "listing parameters too long");
        return VC_ERR_ARG;
    }
    /* the buffers are sized for the longest bucket, key and endpoint: no
     * truncation is possible, so plain copies (this runs per request) */
    char *p = t->host;
    if (vh) {
        p = stpcpy(p, bucket);
        *p++ = '.';
    }
    stpcpy(p, self->hostport);
    p = stpcpy(t->uri, self->base_path);
    if (!vh) {
        *p++ = '/';
        p = stpcpy(p, bucket);
    }
    if (key || vh) {
        *p++ = '/';
        stpcpy(p, enc);
    }
    p = stpcpy(t->url, self->scheme);
    p = stpcpy(p, "://");
    p = stpcpy(p, t->host);
    p = stpcpy(p, t->uri);
    if (t->query[0]) {
        *p++ = '?';
        stpcpy(p, t->query);
    }
    return VC_OK;
}

/* Marks the sample failed (s may be NULL). */
static void sample_error(vc_sample_t *s, vc_errclass_t ec, const char *code, const char *msg)
{
    if (!s)
        return;
    s->err_class = ec;
    VC_SAMPLE_SET(s, err_code, code);
    VC_SAMPLE_SET(s, err_msg, msg);
}

/* The body reader failed: bad XML, a callback that stopped, or a local write. */
static void sample_body_error(vc_sample_t *s, vc_status_t rc, const char *msg)
{
    sample_error(s, rc == VC_ERR_PROTO ? VC_EC_PROTOCOL : VC_EC_OTHER,
                 rc == VC_ERR_PROTO       ? "MalformedReply"
                 : rc == VC_ERR_CANCELLED ? "Cancelled"
                                          : "LocalWriteFailed",
                 msg);
}

/* ---- the body sink ---- */

static int on_body(void *ud, long status, const char *data, size_t len)
{
    va_s3_t *self = ud;
    if (status < 200 || status > 299) {
        size_t room = ERRBODY_MAX - self->errlen;
        size_t n = len < room ? len : room;
        memcpy(self->errbody + self->errlen, data, n);
        self->errlen += n;
        return 0;
    }
    switch (self->cur.sink) {
    case SINK_LIST:
        if ((self->body_rc = va_s3xml_list_feed(self->xml, data, len)) != VC_OK) {
            snprintf(self->body_err, sizeof self->body_err, "%s", va_s3xml_list_error(self->xml));
            return 1;
        }
        return 0;
    case SINK_FILE:
        if (fwrite(data, 1, len, self->cur.out) != len) {
            self->body_rc = VC_ERR_IO;
            snprintf(self->body_err, sizeof self->body_err, "writing the object locally: %s",
                     strerror(errno));
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- one request ---- */

static const char *code_for_status(long status)
{
    switch (status) {
    case 301: return "PermanentRedirect";
    case 307: return "TemporaryRedirect";
    case 400: return "BadRequest";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 412: return "PreconditionFailed";
    case 416: return "InvalidRange";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    default: return "HTTPError";
    }
}

static const char *hint_for(const char *code)
{
    static const struct {
        const char *code, *hint;
    } hints[] = {
        {"SignatureDoesNotMatch", "the secret key does not match the access key; check the secret key "
                                  "(and the clock and region)"},
        {"InvalidAccessKeyId", "the server does not know this access key; check the credentials"},
        {"AccessDenied", "these credentials may not do this"},
        {"RequestTimeTooSkewed", "this machine's clock is too far from the server's"},
        {"NoSuchBucket", "create the bucket first or check its name"},
        {"AuthorizationHeaderMalformed", "the region is probably wrong (--region)"},
        {"PermanentRedirect", "the bucket is in another region or needs another endpoint"},
        {NULL, NULL},
    };
    for (int i = 0; code && hints[i].code; i++)
        if (strcmp(code, hints[i].code) == 0)
            return hints[i].hint;
    return NULL;
}

static vc_status_t status_rc(long status, const char *code)
{
    if (status == 403 || (code && (strcmp(code, "SignatureDoesNotMatch") == 0 ||
                                   strcmp(code, "InvalidAccessKeyId") == 0)))
        return VC_ERR_AUTH;
    if (status == 404)
        return VC_ERR_NOTFOUND;
    return VC_ERR_SERVER;
}

/* "get s3://b/k at host:port" (with_host) or "get s3://b/k" */
static void where(const va_s3_t *self, const s3req_t *r, int with_host, char *out, size_t outsz)
{
    int listing = strcmp(r->op, "s3-direct") == 0 || strcmp(r->op, "list-page") == 0;
    snprintf(out, outsz, "%s s3://%s/%.300s%s%s", listing ? "list" : r->op,
             r->bucket ? r->bucket : "", r->key ? r->key : "", with_host ? " at " : "",
             with_host ? self->connect_hp : "");
}

/* The work of s3_begin, but for closing r->own_file on a failure. */
static vc_status_t s3_start(va_s3_t *self, const s3req_t *r, vc_sample_t *s)
{
    vc_status_t rc;
    char loc[600];
    self->cur = *r;
    self->cur.payload_hash = NULL;
    self->cur_s = s;
    self->last_error[0] = '\0';
    self->errlen = 0;
    self->body_rc = VC_OK;
    self->body_err[0] = '\0';
    if (s) {
        VC_SAMPLE_SET(s, op, r->op);
        s->start_wall_ns = vc_wall_now();
        s->err_class = VC_EC_NONE;
        s->err_code[0] = s->err_msg[0] = '\0';
        s->retries = 0;
    }
    target_t *t = self->t;
    if ((rc = make_target(self, r->bucket, r->key, r->query, r->nquery, t)) != VC_OK) {
        sample_error(s, VC_EC_OTHER, "InvalidArgument", self->last_error);
        return rc;
    }

    va_sigv4_creds_t creds = {self->access_key, self->secret_key, self->session_token, self->region,
                              "s3"};
    va_sigv4_kv_t sh[] = {{"host", t->host}};
    va_sigv4_req_t sreq = {r->method, t->uri, r->query, r->nquery, sh, 1,
                           r->payload_hash ? r->payload_hash : VA_SIGV4_EMPTY_SHA256};
    va_sigv4_out_t *sig = &self->sig;
    rc = va_sigv4_sign(&creds, &sreq, time(NULL), sig, &self->sigcache);
    if (rc != VC_OK) {
        where(self, r, 1, loc, sizeof loc);
        snprintf(self->last_error, sizeof self->last_error, "%s: cannot sign the request (%s)", loc,
                 vc_strerror(rc));
        sample_error(s, VC_EC_OTHER, "SigningFailed", self->last_error);
        return rc;
    }
    stpcpy(stpcpy(self->host_line, "Host: "), t->host);
    const char **headers = self->headers;
    int nh = 0;
    headers[nh++] = self->host_line;
    headers[nh++] = sig->amz_date;
    headers[nh++] = sig->content_sha256;
    if (sig->security_token[0])
        headers[nh++] = sig->security_token;
    headers[nh++] = sig->authorization;
    if (r->body || r->body_file)
        headers[nh++] = "Content-Type: application/octet-stream";
    headers[nh] = NULL;

    self->hreq = (va_http_req_t){
        .method = r->method,
        .url = t->url,
        .headers = headers,
        .body = r->body ? r->body : (r->body_file || strcmp(r->method, "PUT") ? NULL : ""),
        .body_len = r->body_len,
        .body_file = r->body_file,
        .body_file_len = r->body_file_len,
        .sink = VA_SINK_CALLBACK,
        .on_body = on_body,
        .on_body_ud = self,
        .timeout_ms = self->timeout_ms,
        .path_as_is = 1,
        .no_headers = strcmp(r->method, "HEAD") != 0, /* only HEAD reads them */
    };
    rc = va_http_begin(self->http, &self->hreq, &self->resp);
    if (rc != VC_OK) {
        OPENSSL_cleanse(sig->authorization, sizeof sig->authorization);
        where(self, r, 1, loc, sizeof loc);
        snprintf(self->last_error, sizeof self->last_error, "%s: cannot start the request (%s)",
                 loc, vc_strerror(rc));
        sample_error(s, VC_EC_OTHER, "OutOfMemory", self->last_error);
    }
    return rc;
}

/* Starts one signed request: the sample's op and start, the URL, the
 * signature, and the HTTP request begun on self->http (not yet sent). On a
 * local failure (bad name, out of memory) the sample is complete with the
 * error, r->own_file is closed and nothing is in flight. r and what it
 * points to (except payload_hash, used here only) must stay valid until
 * s3_end. */
static vc_status_t s3_begin(va_s3_t *self, const s3req_t *r, vc_sample_t *s)
{
    vc_status_t rc = s3_start(self, r, s);
    if (rc != VC_OK && r->own_file)
        fclose(r->own_file);
    return rc;
}

/* Finishes the request s3_begin started, after it completed: fills the
 * sample with its outcome and says how it went. */
static vc_status_t s3_end(va_s3_t *self)
{
    const s3req_t *r = &self->cur;
    vc_sample_t *s = self->cur_s;
    va_http_resp_t *resp = &self->resp;
    vc_status_t rc, hrc = va_http_result(self->http);
    char loc[600];
    if (r->own_file) {
        fclose(r->own_file);
        self->cur.own_file = self->cur.body_file = NULL;
    }
    /* sent: the signature need not stay in memory */
    OPENSSL_cleanse(self->sig.authorization, sizeof self->sig.authorization);
    if (s)
        va_http_fill_sample(resp, s);

    if (hrc == VC_ERR_CANCELLED || (hrc == VC_OK && self->body_rc != VC_OK)) {
        /* our own reader stopped the body: say why */
        rc = self->body_rc ? self->body_rc : VC_ERR_PROTO;
        where(self, r, 1, loc, sizeof loc);
        snprintf(self->last_error, sizeof self->last_error, "%s: %s%s", loc,
                 rc == VC_ERR_PROTO ? "malformed reply: " : "",
                 self->body_err[0] ? self->body_err : "reply body rejected");
        sample_body_error(s, rc, self->body_err);
        return rc;
    }
    if (hrc != VC_OK) {
        /* resp->error names the host:port it could not reach */
        where(self, r, 0, loc, sizeof loc);
        snprintf(self->last_error, sizeof self->last_error, "%s: %s: %s", loc,
                 hrc == VC_ERR_TIMEOUT ? "timed out" : "connection failed", resp->error);
        return hrc;
    }
    if (resp->status >= 200 && resp->status <= 299) {
        if (r->sink == SINK_FILE && r->out && fflush(r->out) != 0) {
            where(self, r, 0, loc, sizeof loc);
            snprintf(self->last_error, sizeof self->last_error, "%s: writing locally: %s", loc,
                     strerror(errno));
            sample_error(s, VC_EC_OTHER, "LocalWriteFailed", self->last_error);
            return VC_ERR_IO;
        }
        return VC_OK;
    }

    /* an S3 error */
    va_s3xml_error_t e;
    char perr[128];
    const char *code = NULL;
    where(self, r, 1, loc, sizeof loc);
    self->errbody[self->errlen] = '\0';
    if (self->errlen && va_s3xml_error_parse(self->errbody, self->errlen, &e, perr, sizeof perr) == VC_OK)
        code = e.code;
    else
        memset(&e, 0, sizeof e);
    if (!code)
        code = code_for_status(resp->status);
    const char *hint = hint_for(code);
    if (!e.message[0])
        snprintf(e.message, sizeof e.message, "%s",
                 self->errlen && !e.code[0] ? "the reply is not an S3 error document"
                                            : "the server gave no message");
    snprintf(self->last_error, sizeof self->last_error, "%s: %s (HTTP %ld): %s%s%s%s%s", loc, code,
             resp->status, e.message,
             e.request_id[0] ? "; request id " : "", e.request_id, hint ? "; " : "", hint ? hint : "");
    if (s) {
        vc_errclass_t ec = va_http_status_class(resp->status, code);
        s->err_class = ec == VC_EC_NONE ? VC_EC_CLIENT : ec; /* an unfollowed 3xx failed too */
        VC_SAMPLE_SET(s, err_code, code);
        char msg[VC_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s%s%s", e.message, e.request_id[0] ? "; request " : "",
                 e.request_id);
        VC_SAMPLE_SET(s, err_msg, msg);
    }
    return status_rc(resp->status, code);
}

/* Sends one signed request on this thread and fills the sample with its
 * outcome; self->resp holds the reply until the next request. */
static vc_status_t do_request(va_s3_t *self, const s3req_t *r, vc_sample_t *s)
{
    vc_status_t rc = s3_begin(self, r, s);
    if (rc != VC_OK)
        return rc;
    va_http_perform(self->http);
    return s3_end(self);
}

/* ---- object operations ---- */

static vc_status_t hash_file(FILE *f, char hex[VA_SIGV4_HEX_LEN + 1])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    char *buf = malloc(1 << 16);
    vc_status_t rc = VC_ERR_IO;
    uint8_t md[32];
    unsigned int mdlen = 0;
    if (!ctx || !buf || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
        goto done;
    size_t n;
    while ((n = fread(buf, 1, 1 << 16, f)) > 0)
        if (!EVP_DigestUpdate(ctx, buf, n))
            goto done;
    if (ferror(f) || !EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32 || fseeko(f, 0, SEEK_SET))
        goto done;
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    rc = VC_OK;
done:
    EVP_MD_CTX_free(ctx);
    free(buf);
    return rc;
}

static void local_failure(va_s3_t *self, vc_sample_t *s, const char *op, const char *code)
{
    if (s) {
        VC_SAMPLE_SET(s, op, op);
        s->start_wall_ns = vc_wall_now();
    }
    sample_error(s, VC_EC_OTHER, code, self->last_error);
}

/* Makes the request of an object operation: checks what can be checked
 * locally and, for a PUT, hashes the body (a signed payload needs the hash
 * before the first byte is sent, so a file is read once before the timed
 * request). On failure the sample is complete with the error. */
static vc_status_t object_req(va_s3_t *self, const va_s3_obj_t *o, s3req_t *r,
                              char hash[VA_SIGV4_HEX_LEN + 1], vc_sample_t *s)
{
    const char *bucket = o->bucket, *key = o->key;
    *r = (s3req_t){.bucket = bucket, .key = key, .sink = SINK_DISCARD};
    switch (o->op) {
    case VA_S3_GET:
        r->op = "get";
        r->method = "GET";
        r->sink = o->out ? SINK_FILE : SINK_DISCARD;
        r->out = o->out;
        return VC_OK;
    case VA_S3_HEAD:
        r->op = "head";
        r->method = "HEAD";
        return VC_OK;
    case VA_S3_DELETE:
        r->op = "delete";
        r->method = "DELETE";
        return VC_OK;
    case VA_S3_PUT:
        break;
    default:
        snprintf(self->last_error, sizeof self->last_error, "s3://%s/%.300s: unknown operation %d",
                 bucket ? bucket : "", key ? key : "", (int)o->op);
        local_failure(self, s, "unknown", "InvalidArgument");
        return VC_ERR_ARG;
    }
    r->op = "put";
    r->method = "PUT";
    r->payload_hash = self->unsigned_payload ? VA_SIGV4_UNSIGNED_PAYLOAD : hash;
    if (!o->path) {
        if (!o->data && o->len) {
            snprintf(self->last_error, sizeof self->last_error,
                     "put s3://%s/%.300s: no data for %zu bytes", bucket, key ? key : "", o->len);
            local_failure(self, s, "put", "InvalidArgument");
            return VC_ERR_ARG;
        }
        if (!self->unsigned_payload)
            va_sigv4_sha256_hex(o->data, o->len, hash);
        r->body = o->data ? o->data : "";
        r->body_len = o->len;
        return VC_OK;
    }
    FILE *f = fopen(o->path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(self->last_error, sizeof self->last_error, "put s3://%s/%.300s: cannot read %s: %s",
                 bucket, key, o->path, f ? "not a regular file" : strerror(errno));
        if (f)
            fclose(f);
        local_failure(self, s, "put", "LocalReadFailed");
        return VC_ERR_IO;
    }
    if (!self->unsigned_payload && hash_file(f, hash) != VC_OK) {
        snprintf(self->last_error, sizeof self->last_error, "put s3://%s/%.300s: cannot read %s: %s",
                 bucket, key, o->path, strerror(errno));
        fclose(f);
        local_failure(self, s, "put", "LocalReadFailed");
        return VC_ERR_IO;
    }
    r->body_file = r->own_file = f;
    r->body_file_len = (int64_t)st.st_size;
    return VC_OK;
}

static vc_status_t object_sync(va_s3_t *self, const va_s3_obj_t *o, vc_sample_t *s)
{
    s3req_t r;
    char hash[VA_SIGV4_HEX_LEN + 1];
    vc_status_t rc = object_req(self, o, &r, hash, s);
    return rc != VC_OK ? rc : do_request(self, &r, s);
}

vc_status_t va_s3_put(va_s3_t *self, const char *bucket, const char *key, const void *data,
                      size_t len, vc_sample_t *s)
{
    va_s3_obj_t o = {.op = VA_S3_PUT, .bucket = bucket, .key = key, .data = data, .len = len};
    return object_sync(self, &o, s);
}

vc_status_t va_s3_put_file(va_s3_t *self, const char *bucket, const char *key, const char *path,
                           vc_sample_t *s)
{
    va_s3_obj_t o = {.op = VA_S3_PUT, .bucket = bucket, .key = key, .path = path};
    return object_sync(self, &o, s);
}

vc_status_t va_s3_get(va_s3_t *self, const char *bucket, const char *key, FILE *out,
                      vc_sample_t *s)
{
    va_s3_obj_t o = {.op = VA_S3_GET, .bucket = bucket, .key = key, .out = out};
    return object_sync(self, &o, s);
}

vc_status_t va_s3_begin(va_s3_t *self, const va_s3_obj_t *o, vc_sample_t *s)
{
    s3req_t r;
    char hash[VA_SIGV4_HEX_LEN + 1];
    vc_status_t rc = object_req(self, o, &r, hash, s);
    return rc != VC_OK ? rc : s3_begin(self, &r, s);
}

vc_status_t va_s3_end(va_s3_t *self) { return s3_end(self); }
va_http_t *va_s3_http(va_s3_t *self) { return self->http; }

static void header_copy(const va_http_resp_t *resp, const char *name, char *out, size_t outsz)
{
    const char *v = va_http_resp_header(resp, name);
    snprintf(out, outsz, "%s", v ? v : "");
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

vc_status_t va_s3_head(va_s3_t *self, const char *bucket, const char *key, va_s3_head_t *info,
                       vc_sample_t *s)
{
    va_s3_obj_t o = {.op = VA_S3_HEAD, .bucket = bucket, .key = key};
    vc_status_t rc = object_sync(self, &o, s);
    const va_http_resp_t *resp = &self->resp;
    if (info) {
        memset(info, 0, sizeof *info);
        info->size = -1;
        if (rc == VC_OK) {
            const char *cl = va_http_resp_header(resp, "Content-Length");
            char *end = NULL;
            errno = 0;
            long long v = cl ? strtoll(cl, &end, 10) : -1;
            if (cl && end != cl && *end == '\0' && errno == 0 && v >= 0)
                info->size = v;
            header_copy(resp, "ETag", info->etag, sizeof info->etag);
            header_copy(resp, "Last-Modified", info->last_modified, sizeof info->last_modified);
            header_copy(resp, "Content-Type", info->content_type, sizeof info->content_type);
        }
    }
    return rc;
}

vc_status_t va_s3_delete(va_s3_t *self, const char *bucket, const char *key, vc_sample_t *s)
{
    va_s3_obj_t o = {.op = VA_S3_DELETE, .bucket = bucket, .key = key};
    return object_sync(self, &o, s);
}

vc_status_t va_s3_create_bucket(va_s3_t *self, const char *bucket, vc_sample_t *s)
{
    s3req_t r = {.op = "create-bucket", .method = "PUT", .bucket = bucket, .body = "", .body_len = 0,
                 .sink = SINK_DISCARD};
    vc_status_t rc = do_request(self, &r, s);
    if (rc != VC_OK && s && strcmp(s->err_code, "BucketAlreadyOwnedByYou") == 0) {
        s->err_class = VC_EC_NONE;
        s->err_code[0] = s->err_msg[0] = '\0';
        self->last_error[0] = '\0';
        return VC_OK;
    }
    return rc;
}

/* ---- listing ---- */

static void reset_pages(vc_sample_t *s)
{
    free(s->page);
    s->page = NULL;
    s->npages = s->page_cap = 0;
}

static vc_status_t list_one(va_s3_t *self, const char *bucket, const va_s3_list_opts_t *o,
                            const char *token, int first, va_s3xml_object_fn on_object,
                            va_s3xml_prefix_fn on_prefix, void *ud, va_s3xml_page_t *page,
                            vc_sample_t *s, const char *op)
{
    char maxk[16];
    int mk = o && o->max_keys > 0 ? o->max_keys : 1000;
    if (mk > 1000)
        mk = 1000;
    snprintf(maxk, sizeof maxk, "%d", mk);
    va_sigv4_kv_t q[6];
    size_t nq = 0;
    q[nq++] = (va_sigv4_kv_t){"list-type", "2"};
    q[nq++] = (va_sigv4_kv_t){"max-keys", maxk};
    if (o && o->prefix && *o->prefix)
        q[nq++] = (va_sigv4_kv_t){"prefix", o->prefix};
    if (o && o->delimiter && *o->delimiter)
        q[nq++] = (va_sigv4_kv_t){"delimiter", o->delimiter};
    if (token && *token)
        q[nq++] = (va_sigv4_kv_t){"continuation-token", token};
    if (first && o && o->start_after && *o->start_after)
        q[nq++] = (va_sigv4_kv_t){"start-after", o->start_after};

    va_s3xml_list_begin(self->xml, on_object, on_prefix, ud);
    s3req_t r = {.op = op, .method = "GET", .bucket = bucket, .key = NULL, .query = q, .nquery = nq,
                 .sink = SINK_LIST};
    vc_status_t rc = do_request(self, &r, s);
    if (rc != VC_OK)
        return rc;
    if ((rc = va_s3xml_list_end(self->xml, page)) != VC_OK) {
        char loc[600];
        where(self, &r, 1, loc, sizeof loc);
        snprintf(self->last_error, sizeof self->last_error, "%s: %s: %s", loc,
                 rc == VC_ERR_CANCELLED ? "listing stopped" : "malformed reply",
                 va_s3xml_list_error(self->xml));
        sample_body_error(s, rc, va_s3xml_list_error(self->xml));
    }
    return rc;
}

vc_status_t va_s3_list_page(va_s3_t *self, const char *bucket, const va_s3_list_opts_t *o,
                            va_s3xml_object_fn on_object, va_s3xml_prefix_fn on_prefix, void *ud,
                            va_s3xml_page_t *page, vc_sample_t *s)
{
    const va_http_resp_t *resp = &self->resp;
    va_s3xml_page_t local;
    if (s)
        reset_pages(s);
    vc_status_t rc = list_one(self, bucket, o, o ? o->continuation_token : NULL, 1, on_object,
                              on_prefix, ud, page ? page : &local, s, "list-page");
    if (s) {
        va_s3xml_page_t *p = page ? page : &local;
        int64_t n = rc == VC_OK ? p->objects + p->prefixes : 0;
        s->pages = 1;
        s->keys = n;
        vc_sample_add_page(s, resp->duration_ns, n, resp->bytes_recv);
    }
    return rc;
}

vc_status_t va_s3_list(va_s3_t *self, const char *bucket, const va_s3_list_opts_t *o,
                       va_s3xml_object_fn on_object, va_s3xml_prefix_fn on_prefix, void *ud,
                       vc_sample_t *s)
{
    vc_sample_t page_s; /* per page; the listing's record is s */
    const va_http_resp_t *resp = &self->resp;
    va_s3xml_page_t *page = malloc(sizeof *page);
    char *token = malloc(VA_S3XML_TOKEN_MAX + 1);
    vc_status_t rc = VC_OK;
    int64_t keys = 0, sent = 0, recv = 0;
    int32_t pages = 0;
    int64_t u0, s0, u1, s1;
    vc_sample_init(&page_s);
    if (s) {
        reset_pages(s);
        VC_SAMPLE_SET(s, op, "s3-direct");
        s->start_wall_ns = vc_wall_now();
        s->err_class = VC_EC_NONE;
        s->err_code[0] = s->err_msg[0] = '\0';
        s->retries = 0;
    }
    if (!page || !token) {
        free(page);
        free(token);
        return VC_ERR_NOMEM;
    }
    snprintf(token, VA_S3XML_TOKEN_MAX + 1, "%s", o && o->continuation_token ? o->continuation_token : "");
    vc_thread_cpu_us(&u0, &s0);
    vc_mono_ns_t t0 = vc_mono_now();
    for (;;) {
        rc = list_one(self, bucket, o, token, pages == 0, on_object, on_prefix, ud, page, &page_s,
                      "s3-direct");
        pages++;
        sent += resp->bytes_sent;
        recv += resp->bytes_recv;
        int64_t n = rc == VC_OK ? page->objects + page->prefixes : 0;
        keys += n;
        if (s) {
            if (pages == 1) {
                s->dns_us = page_s.dns_us;
                s->connect_us = page_s.connect_us;
                s->tls_us = page_s.tls_us;
                s->ttfb_us = page_s.ttfb_us;
            }
            s->http_status = page_s.http_status;
            if (vc_sample_add_page(s, resp->duration_ns, n, resp->bytes_recv) != VC_OK && rc == VC_OK)
                rc = VC_ERR_NOMEM;
        }
        if (rc != VC_OK) {
            if (s) {
                s->err_class = page_s.err_class != VC_EC_NONE ? page_s.err_class : VC_EC_OTHER;
                memcpy(s->err_code, page_s.err_code, sizeof s->err_code);
                char msg[VC_ERRMSG_MAX];
                snprintf(msg, sizeof msg, "page %d: %s", pages, page_s.err_msg);
                VC_SAMPLE_SET(s, err_msg, msg);
            }
            break;
        }
        if (page->is_truncated != 1)
            break;
        const char *why = NULL;
        if (!page->next_token[0])
            why = "IsTruncated is true but there is no NextContinuationToken";
        else if (strcmp(page->next_token, token) == 0)
            why = "the server returned the same continuation token twice";
        if (why) {
            rc = VC_ERR_PROTO;
            snprintf(self->last_error, sizeof self->last_error, "list s3://%s/%s at %s: page %d: %s",
                     bucket, o && o->prefix ? o->prefix : "", self->connect_hp, pages, why);
            sample_error(s, VC_EC_PROTOCOL, "MalformedReply", why);
            break;
        }
        memcpy(token, page->next_token, strlen(page->next_token) + 1);
    }
    vc_mono_ns_t t1 = vc_mono_now();
    vc_thread_cpu_us(&u1, &s1);
    if (s) {
        s->duration_ns = t1 - t0;
        s->pages = pages;
        s->keys = keys;
        s->bytes_sent = sent;
        s->bytes_recv = recv;
        s->cpu_user_us = u1 - u0;
        s->cpu_sys_us = s1 - s0;
    }
    vc_sample_clear(&page_s);
    free(page);
    free(token);
    return rc;
}
