/* va_http: one keep-alive HTTP connection (a libcurl easy handle) per
 * worker, and the timing record of every request made on it. Both object-store
 * clients (va_s3, va_ais) send through this, so S3 and AIS samples carry the
 * same phases, byte counts, status and CPU time.
 * A request runs either on the calling thread (va_http_do, or va_http_begin
 * then va_http_perform) or in a va_http_loop, where one thread drives the
 * requests of many connections at once (libcurl's multi interface): no
 * thread switch per request, which is what lets one agent thread keep many
 * connections busy at the HTTP library's own cost.
 * A request never retries by itself: what is sent once is timed once (libcurl's
 * own resend on a kept-alive connection that died is refused: the request
 * fails as a lost connection). */
#ifndef VA_HTTP_H
#define VA_HTTP_H

#include <stdint.h>
#include <stdio.h>

#include "vc_sample.h"
#include "vc_status.h"

typedef struct va_http_t va_http_t;

typedef enum {
    VA_SINK_MEMORY = 0, /* keep the body in memory (up to max_body) */
    VA_SINK_DISCARD,    /* count the bytes, keep nothing */
    VA_SINK_FILE,       /* stream into sink_file */
    VA_SINK_CALLBACK,   /* hand each piece to on_body as it arrives (streaming parsers) */
} va_sink_t;

/* Receives the body piece by piece as it arrives, with the response's HTTP
 * status (known before the first byte), so a caller can parse a 2xx body as
 * it streams in and keep an error body aside. Returns 0 to go on, non-zero
 * to abort the transfer (va_http_do then returns VC_ERR_CANCELLED). */
typedef int (*va_http_body_fn)(void *ud, long status, const char *data, size_t len);

typedef struct {
    int verify_tls;          /* default 1 */
    const char *ca_bundle;   /* NULL: the system's */
    long connect_timeout_ms; /* default 10000 */
    const char *user_agent;  /* default "vantage/<version>" */
} va_http_opts_t;

#define VA_HTTP_MAX_HEADERS 32     /* response headers kept */
#define VA_HTTP_MAX_REQ_HEADERS 15 /* request header lines a request may carry */

typedef struct {
    const char *method;       /* GET PUT HEAD DELETE POST */
    const char *url;          /* fully encoded */
    const char *const *headers; /* NULL-terminated "Name: value" lines (at most
                                   VA_HTTP_MAX_REQ_HEADERS), may be NULL */
    const void *body;         /* in-memory body (rewindable by construction) */
    size_t body_len;
    FILE *body_file;          /* or a file body, streamed and rewound on redirect */
    int64_t body_file_len;
    va_sink_t sink;
    FILE *sink_file;
    size_t max_body;          /* memory sink cap; 0 means 64 MiB; larger bodies fail as protocol errors */
    long timeout_ms;          /* whole request; 0 means 60000 */
    int follow_redirects;     /* follow 301/302/307/308, re-sending the body */
    va_http_body_fn on_body;  /* VA_SINK_CALLBACK */
    void *on_body_ud;
    int path_as_is;           /* send the path exactly as given (no dot-segment squashing):
                                 a signed S3 key must reach the server unchanged */
    int unrestricted_auth;    /* keep an Authorization header across redirects to other hosts (AIS targets) */
    int error_body_to_memory; /* status >= 400: keep the body in memory (up to 64 KiB) whatever the sink */
    int no_headers;           /* do not keep the response's headers (resp->nheaders stays 0) */
} va_http_req_t;

typedef struct {
    char name[64];
    char value[512];
} va_http_header_t;

typedef struct {
    long status;              /* final HTTP status, 0 if no response */
    char *body;               /* memory sink: NUL-terminated; owned by the va_http_t, valid until its next request */
    size_t body_len;
    int body_truncated;       /* the memory sink hit max_body */
    int body_aborted;         /* the on_body callback stopped the transfer */
    int64_t bytes_sent;       /* request body bytes uploaded */
    int64_t bytes_recv;       /* response body bytes received */
    int64_t duration_ns;      /* monotonic, around the whole transfer */
    int32_t dns_us, connect_us, tls_us, ttfb_us; /* from request start, -1 unknown */
    int64_t cpu_user_us, cpu_sys_us;
    long redirects;
    int curl_code;            /* CURLcode, 0 on success */
    char error[256];          /* transport error naming host:port, empty on success */
    int nheaders;             /* final response's headers */
    va_http_header_t header[VA_HTTP_MAX_HEADERS];
} va_http_resp_t;

/* Caller owns the result; NULL on failure. opts may be NULL for defaults. */
va_http_t *va_http_new(const va_http_opts_t *opts);
void va_http_destroy(va_http_t **self_p);

/* Performs one request. Returns VC_OK when an HTTP response arrived (of any
 * status), VC_ERR_TIMEOUT or VC_ERR_NET when none did (resp->error says why and
 * where), VC_ERR_PROTO when the memory sink overflowed. */
vc_status_t va_http_do(va_http_t *self, const va_http_req_t *req, va_http_resp_t *resp);

/* The two halves of va_http_do, for requests a va_http_loop drives.
 * va_http_begin configures the connection for req and clears resp; req (and
 * everything it points to: body, sink, callbacks) and resp must stay valid
 * until the request completes (the header lines are used where they are).
 * Returns VC_OK, or VC_ERR_NOMEM / VC_ERR_ARG (too many headers) with
 * nothing started. A begun request is then either
 * performed here (va_http_perform, which returns what va_http_do would) or
 * added to a loop. */
vc_status_t va_http_begin(va_http_t *self, const va_http_req_t *req, va_http_resp_t *resp);
vc_status_t va_http_perform(va_http_t *self);

/* The outcome of the last completed request, as va_http_do returns it. */
vc_status_t va_http_result(const va_http_t *self);

/* A pointer the owner of a connection keeps with it (a loop hands back
 * connections, this says whose they are). */
void va_http_set_owner(va_http_t *self, void *owner);
void *va_http_owner(const va_http_t *self);

/* ---- many connections, one thread ---- */

typedef struct va_http_loop_t va_http_loop_t;

/* Caller owns the result; NULL when out of memory. Not thread-safe: one
 * thread adds to and runs a loop. */
va_http_loop_t *va_http_loop_new(void);
/* Abandons requests still in flight (they never complete). */
void va_http_loop_destroy(va_http_loop_t **self_p);

/* Starts a request begun with va_http_begin on self. One request per
 * connection at a time. */
vc_status_t va_http_loop_add(va_http_loop_t *loop, va_http_t *h);

/* Moves the requests in flight on, waiting up to wait_ms for one to finish.
 * Writes the connections whose request completed (at most max) to done and
 * returns how many, 0 when none finished in time, -1 when the loop itself
 * failed (out of memory, poll failure: vc_log says why). Each completed
 * request's resp is filled as va_http_do fills it and va_http_result says its
 * outcome, with two differences: duration_ns is libcurl's own total time of
 * the transfer (so time the thread spent on other connections is not added),
 * and cpu_* is the loop thread's CPU time per request: the thread's CPU time
 * over a window of about a millisecond (everything it did in it: signing,
 * recording, libcurl, the kernel) divided by the requests completed in it,
 * from the latest window closed when the request completed. */
int va_http_loop_run(va_http_loop_t *loop, int wait_ms, va_http_t **done, int max);

/* Requests in flight. */
int va_http_loop_active(const va_http_loop_t *loop);

/* Case-insensitive response header lookup; NULL when absent. */
const char *va_http_resp_header(const va_http_resp_t *resp, const char *name);

/* Copies timing, bytes, status and CPU into a sample; sets err_class for
 * transport failures (timeout / connection) and leaves it alone otherwise. */
void va_http_fill_sample(const va_http_resp_t *resp, vc_sample_t *s);

/* Error class of an HTTP status (and S3 code, may be NULL): 2xx/3xx none,
 * 429 and 503 SlowDown throttled, other 4xx client, other 5xx server. */
vc_errclass_t va_http_status_class(long status, const char *code);

/* libcurl global init; call once at program start (idempotent). */
void va_http_global_init(void);

#endif
