/* va_http: libcurl easy handle per worker, timed requests. */
#include "va_http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vc_clock.h"
#include "vc_log.h"

struct va_http_t {
    CURL *curl;
    va_http_opts_t opts;
    char *ca_bundle;
    char user_agent[64];
    char *buf; /* memory sink */
    size_t len, cap, max;
    int truncated;
    int aborted; /* on_body asked to stop */
    const va_http_req_t *req;
    va_http_resp_t *resp;
    size_t upload_pos;   /* in-memory body read position */
    long cur_status;     /* status line of the response being received */
    int sends;           /* times libcurl was about to send this request */
    int resend_refused;  /* libcurl wanted to send it again: refused (on_prereq) */
    /* request headers of the request in flight: list nodes pointing at the
     * caller's lines (no copies, no allocation per request) */
    struct curl_slist hl[VA_HTTP_MAX_REQ_HEADERS + 1];
    char *url;           /* the URL the handle has, to skip setting it again */
    unsigned shape;      /* options the handle is set up for (see shape_of) */
    int in_flight;       /* begun, not completed */
    int loop_slot;       /* index in its loop's handle list while added to one */
    vc_status_t result;  /* of the last completed request */
    void *owner;
    char errbuf[CURL_ERROR_SIZE];
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }
void va_http_global_init(void) { pthread_once(&global_once, global_init_once); }

va_http_t *va_http_new(const va_http_opts_t *opts)
{
    va_http_global_init();
    va_http_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->opts.verify_tls = 1;
    self->opts.connect_timeout_ms = 10000;
    if (opts) {
        self->opts = *opts;
        if (!self->opts.connect_timeout_ms)
            self->opts.connect_timeout_ms = 10000;
    }
    if (opts && opts->ca_bundle && !(self->ca_bundle = strdup(opts->ca_bundle)))
        goto fail;
    snprintf(self->user_agent, sizeof self->user_agent, "%s",
             opts && opts->user_agent ? opts->user_agent : "vantage/" VANTAGE_VERSION);
    self->curl = curl_easy_init();
    if (!self->curl)
        goto fail;
    return self;
fail:
    va_http_destroy(&self);
    return NULL;
}

void va_http_destroy(va_http_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_http_t *self = *self_p;
    if (self->curl)
        curl_easy_cleanup(self->curl);
    free(self->url);
    free(self->ca_bundle);
    free(self->buf);
    free(self);
    *self_p = NULL;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userp)
{
    va_http_t *self = userp;
    size_t n = size * nmemb;
    self->resp->bytes_recv += (int64_t)n;
    size_t full = n;
    va_sink_t sink = self->req->sink;
    if (self->cur_status == 0 && self->req->no_headers) /* no header callback saw the status line */
        curl_easy_getinfo(self->curl, CURLINFO_RESPONSE_CODE, &self->cur_status);
    if (self->req->error_body_to_memory && self->cur_status >= 400) {
        /* an error text: keep its beginning, never fail the transfer for it */
        sink = VA_SINK_MEMORY;
        size_t cap = self->max < 65536 ? self->max : 65536;
        size_t room = self->len < cap ? cap - self->len : 0;
        if (n > room)
            n = room;
    }
    switch (sink) {
    case VA_SINK_DISCARD:
        return n;
    case VA_SINK_FILE:
        return fwrite(data, 1, n, self->req->sink_file);
    case VA_SINK_CALLBACK:
        /* cur_status: the status line of the response this body belongs to */
        if (self->req->on_body &&
            self->req->on_body(self->req->on_body_ud, self->cur_status, data, n) != 0) {
            self->aborted = 1;
            return 0; /* abort: CURLE_WRITE_ERROR */
        }
        return n;
    case VA_SINK_MEMORY:
    default:
        break;
    }
    if (self->len + n > self->max) {
        self->truncated = 1;
        return 0; /* abort: CURLE_WRITE_ERROR */
    }
    if (self->len + n + 1 > self->cap) {
        size_t cap = self->cap ? self->cap : 16384;
        while (cap < self->len + n + 1)
            cap *= 2;
        char *p = realloc(self->buf, cap);
        if (!p)
            return 0;
        self->buf = p;
        self->cap = cap;
    }
    memcpy(self->buf + self->len, data, n);
    self->len += n;
    return full;
}

static size_t on_read(char *out, size_t size, size_t nmemb, void *userp)
{
    va_http_t *self = userp;
    size_t want = size * nmemb;
    const va_http_req_t *req = self->req;
    if (req->body_file) {
        size_t got = fread(out, 1, want, req->body_file);
        if (got == 0 && ferror(req->body_file))
            return CURL_READFUNC_ABORT;
        return got;
    }
    size_t left = req->body_len - self->upload_pos;
    size_t n = left < want ? left : want;
    if (n)
        memcpy(out, (const char *)req->body + self->upload_pos, n);
    self->upload_pos += n;
    return n;
}

/* Lets libcurl rewind the body when a redirect (AIS 307) or an auth retry
 * needs it sent again. */
static int on_seek(void *userp, curl_off_t offset, int origin)
{
    va_http_t *self = userp;
    if (origin != SEEK_SET)
        return CURL_SEEKFUNC_CANTSEEK;
    if (self->req->body_file)
        return fseeko(self->req->body_file, (off_t)offset, SEEK_SET) == 0 ? CURL_SEEKFUNC_OK
                                                                          : CURL_SEEKFUNC_FAIL;
    if ((size_t)offset > self->req->body_len)
        return CURL_SEEKFUNC_FAIL;
    self->upload_pos = (size_t)offset;
    return CURL_SEEKFUNC_OK;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
    va_http_t *self = userp;
    size_t n = size * nmemb;
    va_http_resp_t *r = self->resp;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        r->nheaders = 0; /* a new response (after a redirect): keep the final one's */
        const char *sp = memchr(data, ' ', n);
        self->cur_status = sp && sp + 4 <= data + n ? strtol(sp + 1, NULL, 10) : 0;
        return n;
    }
    const char *colon = memchr(data, ':', n);
    if (!colon || r->nheaders >= VA_HTTP_MAX_HEADERS)
        return n;
    va_http_header_t *h = &r->header[r->nheaders];
    size_t nl = (size_t)(colon - data);
    if (nl >= sizeof h->name)
        return n;
    memcpy(h->name, data, nl);
    h->name[nl] = '\0';
    const char *v = colon + 1, *end = data + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t vl = (size_t)(end - v);
    if (vl >= sizeof h->value)
        vl = sizeof h->value - 1;
    memcpy(h->value, v, vl);
    h->value[vl] = '\0';
    r->nheaders++;
    return n;
}

/* libcurl sends a request again by itself when a reused keep-alive
 * connection dies before any reply byte (an idle connection the server
 * closed, a reset). The second send would be timed as part of the first, and
 * the failure would vanish: refuse it, so the request fails as the lost
 * connection it was and a workload decides about retrying. Each followed
 * redirect is one more send, on purpose. */
static int on_prereq(void *ud, char *primary_ip, char *local_ip, int primary_port, int local_port)
{
    (void)primary_ip;
    (void)local_ip;
    (void)primary_port;
    (void)local_port;
    va_http_t *self = ud;
    long redirects = 0;
    curl_easy_getinfo(self->curl, CURLINFO_REDIRECT_COUNT, &redirects);
    if (++self->sends > 1 + redirects) {
        self->resend_refused = 1;
        return CURL_PREREQFUNC_ABORT;
    }
    return CURL_PREREQFUNC_OK;
}

static int32_t us_or_unknown(CURL *c, CURLINFO what)
{
    curl_off_t v = 0;
    if (curl_easy_getinfo(c, what, &v) != CURLE_OK || v <= 0)
        return -1;
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static void describe_error(va_http_t *self, const va_http_req_t *req, va_http_resp_t *r,
                           CURLcode rc)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, req->url, 0) == CURLUE_OK) {
        curl_url_get(u, CURLUPART_HOST, &host, 0);
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    }
    snprintf(r->error, sizeof r->error, "%s:%s: %s", host ? host : "?", port ? port : "?",
             self->errbuf[0] ? self->errbuf : curl_easy_strerror(rc));
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

/* What a handle's options depend on besides URL, headers and timeout. A
 * request of the same plain shape as the one before (a GET, HEAD or DELETE
 * without a body or redirects: the measurement loop's case) reuses the
 * handle's options as they are; any other resets them all first. */
enum { SHAPE_NONE = 0, SHAPE_PLAIN = 1u << 8 };

static unsigned shape_of(const va_http_req_t *req)
{
    const char *m = req->method ? req->method : "GET";
    unsigned k = strcmp(m, "GET") == 0 ? 1 : strcmp(m, "HEAD") == 0 ? 2 : strcmp(m, "DELETE") == 0 ? 3 : 0;
    if (!k || req->body || req->body_file || req->follow_redirects || req->unrestricted_auth)
        return SHAPE_NONE;
    return SHAPE_PLAIN | k | (req->path_as_is ? 1u << 4 : 0) | (req->no_headers ? 1u << 5 : 0);
}

/* Sets every option of a request; the handle was just reset. */
static void set_all_options(va_http_t *self, const va_http_req_t *req)
{
    CURL *c = self->curl;
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, self->errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, self->user_agent);
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    if (req->path_as_is)
        curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, self->opts.connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, self->opts.verify_tls ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, self->opts.verify_tls ? 2L : 0L);
    if (self->ca_bundle)
        curl_easy_setopt(c, CURLOPT_CAINFO, self->ca_bundle);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, self);
    if (!req->no_headers) {
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, self);
    }
    curl_easy_setopt(c, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(c, CURLOPT_PREREQDATA, self);
    curl_easy_setopt(c, CURLOPT_PRIVATE, self);
    if (req->follow_redirects) {
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
        /* keep the method (PUT/DELETE/HEAD) across 301/302 as AIS expects */
        curl_easy_setopt(c, CURLOPT_POSTREDIR, (long)CURL_REDIR_POST_ALL);
        if (req->unrestricted_auth)
            curl_easy_setopt(c, CURLOPT_UNRESTRICTED_AUTH, 1L);
    }
    const char *m = req->method ? req->method : "GET";
    int has_body = req->body || req->body_file;
    if (strcmp(m, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(m, "PUT") == 0 || (has_body && strcmp(m, "POST") == 0)) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(c, CURLOPT_READDATA, self);
        curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(c, CURLOPT_SEEKDATA, self);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE,
                         (curl_off_t)(req->body_file ? req->body_file_len : (int64_t)req->body_len));
        if (strcmp(m, "PUT") != 0)
            curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, m);
    } else if (has_body) {
        /* AIS sends JSON bodies with GET and DELETE */
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, m);
    } else if (strcmp(m, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, m);
    }
}

/* Clears what a request fills, up to the header array (which only
 * nheaders makes valid). */
static void clear_resp(va_http_resp_t *resp)
{
    memset(resp, 0, offsetof(va_http_resp_t, header));
    resp->dns_us = resp->connect_us = resp->tls_us = resp->ttfb_us = -1;
}

vc_status_t va_http_begin(va_http_t *self, const va_http_req_t *req, va_http_resp_t *resp)
{
    CURL *c = self->curl;
    clear_resp(resp);
    self->req = req;
    self->resp = resp;
    self->len = 0;
    self->truncated = 0;
    self->aborted = 0;
    self->upload_pos = 0;
    self->cur_status = 0;
    self->sends = 0;
    self->resend_refused = 0;
    self->max = req->max_body ? req->max_body : (size_t)64 << 20;
    self->errbuf[0] = '\0';
    self->result = VC_OK;

    size_t nh = 0;
    for (const char *const *h = req->headers; h && *h; h++) {
        if (nh == VA_HTTP_MAX_REQ_HEADERS)
            return VC_ERR_ARG;
        self->hl[nh].data = (char *)*h;
        self->hl[nh].next = &self->hl[nh + 1];
        nh++;
    }
    if (req->body || req->body_file) {
        /* no 100-continue round trip: it would add an RTT to every PUT */
        self->hl[nh].data = (char *)"Expect:";
        self->hl[nh].next = &self->hl[nh + 1];
        nh++;
    }
    if (nh)
        self->hl[nh - 1].next = NULL;

    unsigned shape = shape_of(req);
    int reset = shape == SHAPE_NONE || shape != self->shape;
    if (reset) {
        /* per-request options start from scratch; the connection cache stays */
        curl_easy_reset(c);
        set_all_options(self, req);
        self->shape = shape;
    }
    if (reset || !self->url || strcmp(self->url, req->url) != 0) {
        char *u = strdup(req->url);
        if (!u)
            return VC_ERR_NOMEM;
        free(self->url);
        self->url = u;
        curl_easy_setopt(c, CURLOPT_URL, u);
    }
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms > 0 ? req->timeout_ms : 60000L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, nh ? self->hl : NULL);
    self->in_flight = 1;
    return VC_OK;
}

/* Fills resp from the finished transfer and says how it went. */
static vc_status_t complete(va_http_t *self, CURLcode rc, int64_t duration_ns, int64_t cpu_user_us,
                            int64_t cpu_sys_us)
{
    CURL *c = self->curl;
    const va_http_req_t *req = self->req;
    va_http_resp_t *resp = self->resp;
    self->in_flight = 0;
    resp->duration_ns = duration_ns;
    resp->cpu_user_us = cpu_user_us;
    resp->cpu_sys_us = cpu_sys_us;
    if (rc == CURLE_ABORTED_BY_CALLBACK && self->resend_refused) {
        rc = CURLE_RECV_ERROR; /* what happened: the reply never came */
        snprintf(self->errbuf, sizeof self->errbuf,
                 "connection lost before any reply (a kept-alive connection closed or reset; "
                 "the request is not sent again)");
    }
    resp->curl_code = (int)rc;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
    curl_easy_getinfo(c, CURLINFO_REDIRECT_COUNT, &resp->redirects);
    resp->dns_us = us_or_unknown(c, CURLINFO_NAMELOOKUP_TIME_T);
    resp->connect_us = us_or_unknown(c, CURLINFO_CONNECT_TIME_T);
    resp->tls_us = us_or_unknown(c, CURLINFO_APPCONNECT_TIME_T);
    resp->ttfb_us = us_or_unknown(c, CURLINFO_STARTTRANSFER_TIME_T);
    curl_off_t up = 0;
    curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up);
    resp->bytes_sent = (int64_t)up;
    if (req->sink == VA_SINK_MEMORY || (req->error_body_to_memory && resp->status >= 400)) {
        if (!self->buf && !(self->buf = malloc(self->cap = 1)))
            self->cap = 0;
        if (self->buf)
            self->buf[self->len] = '\0';
        resp->body = self->buf;
        resp->body_len = self->len;
    }
    resp->body_truncated = self->truncated;
    resp->body_aborted = self->aborted;

    vc_status_t st = VC_OK;
    if (rc != CURLE_OK) {
        describe_error(self, req, resp, rc);
        if (self->truncated) {
            snprintf(resp->error, sizeof resp->error, "reply body larger than %zu bytes", self->max);
            st = VC_ERR_PROTO;
        } else if (self->aborted) {
            snprintf(resp->error, sizeof resp->error, "reply body rejected by its reader");
            st = VC_ERR_CANCELLED;
        } else {
            st = rc == CURLE_OPERATION_TIMEDOUT ? VC_ERR_TIMEOUT : VC_ERR_NET;
        }
    }
    self->req = NULL;
    self->resp = NULL;
    self->result = st;
    return st;
}

vc_status_t va_http_perform(va_http_t *self)
{
    if (!self->in_flight)
        return VC_ERR_ARG;
    int64_t u0, s0, u1, s1;
    vc_thread_cpu_us(&u0, &s0);
    vc_mono_ns_t t0 = vc_mono_now();
    CURLcode rc = curl_easy_perform(self->curl);
    vc_mono_ns_t t1 = vc_mono_now();
    vc_thread_cpu_us(&u1, &s1);
    return complete(self, rc, t1 - t0, u1 - u0, s1 - s0);
}

vc_status_t va_http_do(va_http_t *self, const va_http_req_t *req, va_http_resp_t *resp)
{
    vc_status_t rc = va_http_begin(self, req, resp);
    return rc != VC_OK ? rc : va_http_perform(self);
}

vc_status_t va_http_result(const va_http_t *self) { return self->result; }
void va_http_set_owner(va_http_t *self, void *owner) { self->owner = owner; }
void *va_http_owner(const va_http_t *self) { return self->owner; }

/* ---- the loop ---- */

struct va_http_loop_t {
    CURLM *multi;
    va_http_t **h;        /* the connections added, active of them */
    int cap;
    int active;
    /* CPU accounting: the thread's CPU time is read when a window of at
     * least WINDOW_NS has passed, and its requests share it */
    vc_mono_ns_t win_start;
    int64_t win_u, win_s;    /* thread CPU at the window's start */
    int64_t win_n;           /* requests completed in the window */
    int64_t per_u, per_s;    /* the last closed window's CPU per request, -1 none yet */
};

#define WINDOW_NS 1000000 /* 1 ms: a getrusage per ms, not one per request */

va_http_loop_t *va_http_loop_new(void)
{
    va_http_global_init();
    va_http_loop_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    if (!(self->multi = curl_multi_init())) {
        free(self);
        return NULL;
    }
    self->per_u = self->per_s = -1;
    return self;
}

void va_http_loop_destroy(va_http_loop_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_http_loop_t *self = *self_p;
    /* handles still added belong to their va_http_t: take them out first */
    for (int i = 0; i < self->active; i++) {
        curl_multi_remove_handle(self->multi, self->h[i]->curl);
        self->h[i]->in_flight = 0;
        self->h[i]->req = NULL;
        self->h[i]->resp = NULL;
    }
    curl_multi_cleanup(self->multi);
    free(self->h);
    free(self);
    *self_p = NULL;
}

int va_http_loop_active(const va_http_loop_t *loop) { return loop->active; }

vc_status_t va_http_loop_add(va_http_loop_t *loop, va_http_t *h)
{
    if (!h->in_flight)
        return VC_ERR_ARG;
    if (loop->active == loop->cap) {
        int cap = loop->cap ? loop->cap * 2 : 16;
        va_http_t **p = realloc(loop->h, (size_t)cap * sizeof *p);
        if (!p)
            return VC_ERR_NOMEM;
        loop->h = p;
        loop->cap = cap;
    }
    if (loop->active == 0 && loop->win_n == 0) {
        vc_thread_cpu_us(&loop->win_u, &loop->win_s);
        loop->win_start = vc_mono_now();
    }
    if (curl_multi_add_handle(loop->multi, h->curl) != CURLM_OK)
        return VC_ERR_NOMEM;
    h->loop_slot = loop->active;
    loop->h[loop->active++] = h;
    return VC_OK;
}

/* Completes the transfers libcurl reports done, up to max. */
static int collect(va_http_loop_t *loop, va_http_t **done, int max, CURLcode *codes)
{
    int n = 0, left = 0;
    CURLMsg *msg;
    while (n < max && (msg = curl_multi_info_read(loop->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        va_http_t *h = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&h);
        codes[n] = msg->data.result;
        curl_multi_remove_handle(loop->multi, msg->easy_handle);
        if (!h || h->loop_slot >= loop->active || loop->h[h->loop_slot] != h)
            continue; /* not one of ours: cannot happen */
        va_http_t *last = loop->h[--loop->active];
        loop->h[h->loop_slot] = last;
        last->loop_slot = h->loop_slot;
        done[n++] = h;
    }
    return n;
}

int va_http_loop_run(va_http_loop_t *loop, int wait_ms, va_http_t **done, int max)
{
    enum { BATCH = 64 };
    CURLcode codes[BATCH];
    if (max > BATCH)
        max = BATCH;
    if (max < 1 || loop->active == 0)
        return 0;
    int running = 0;
    int n = collect(loop, done, max, codes);
    if (n == 0) {
        if (curl_multi_perform(loop->multi, &running) != CURLM_OK)
            goto failed;
        n = collect(loop, done, max, codes);
    }
    if (n == 0 && wait_ms > 0) {
        if (curl_multi_poll(loop->multi, NULL, 0, wait_ms, NULL) != CURLM_OK ||
            curl_multi_perform(loop->multi, &running) != CURLM_OK)
            goto failed;
        n = collect(loop, done, max, codes);
    }
    if (n == 0)
        return 0;
    loop->win_n += n;
    vc_mono_ns_t now = vc_mono_now();
    if (loop->per_u < 0 || now - loop->win_start >= WINDOW_NS) {
        int64_t u, s;
        vc_thread_cpu_us(&u, &s);
        loop->per_u = (u - loop->win_u) / loop->win_n;
        loop->per_s = (s - loop->win_s) / loop->win_n;
        loop->win_u = u;
        loop->win_s = s;
        loop->win_n = 0;
        loop->win_start = now;
    }
    for (int i = 0; i < n; i++) {
        curl_off_t total = 0;
        curl_easy_getinfo(done[i]->curl, CURLINFO_TOTAL_TIME_T, &total);
        complete(done[i], codes[i], (int64_t)total * 1000, loop->per_u, loop->per_s);
    }
    return n;
failed:
    vc_error("http", "the request loop failed (libcurl multi interface)");
    return -1;
}

const char *va_http_resp_header(const va_http_resp_t *resp, const char *name)
{
    for (int i = 0; i < resp->nheaders; i++)
        if (strcasecmp(resp->header[i].name, name) == 0)
            return resp->header[i].value;
    return NULL;
}

vc_errclass_t va_http_status_class(long status, const char *code)
{
    if (status == 429 || (status == 503 && (!code || !*code || strcmp(code, "SlowDown") == 0)))
        return VC_EC_THROTTLED;
    if (status >= 500)
        return VC_EC_SERVER;
    if (status >= 400)
        return VC_EC_CLIENT;
    return VC_EC_NONE;
}

void va_http_fill_sample(const va_http_resp_t *resp, vc_sample_t *s)
{
    s->duration_ns = resp->duration_ns;
    s->dns_us = resp->dns_us;
    s->connect_us = resp->connect_us;
    s->tls_us = resp->tls_us;
    s->ttfb_us = resp->ttfb_us;
    s->bytes_sent = resp->bytes_sent;
    s->bytes_recv = resp->bytes_recv;
    s->http_status = (int32_t)resp->status;
    s->cpu_user_us = resp->cpu_user_us;
    s->cpu_sys_us = resp->cpu_sys_us;
    if (resp->curl_code == CURLE_OPERATION_TIMEDOUT) {
        s->err_class = VC_EC_TIMEOUT;
        VC_SAMPLE_SET(s, err_code, "Timeout");
        VC_SAMPLE_SET(s, err_msg, resp->error);
    } else if (resp->body_aborted) {
        /* the reader that stopped the body knows why and sets the code */
        s->err_class = VC_EC_PROTOCOL;
        VC_SAMPLE_SET(s, err_code, "BodyRejected");
        VC_SAMPLE_SET(s, err_msg, resp->error);
    } else if (resp->curl_code != CURLE_OK && !resp->body_truncated) {
        s->err_class = resp->status ? VC_EC_PROTOCOL : VC_EC_CONNECT;
        VC_SAMPLE_SET(s, err_code, curl_easy_strerror((CURLcode)resp->curl_code));
        VC_SAMPLE_SET(s, err_msg, resp->error);
    } else if (resp->body_truncated) {
        s->err_class = VC_EC_PROTOCOL;
        VC_SAMPLE_SET(s, err_code, "BodyTooLarge");
        VC_SAMPLE_SET(s, err_msg, resp->error);
    }
}
