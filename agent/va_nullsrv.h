/* va_nullsrv: a tiny HTTP/1.1 server inside the agent, on 127.0.0.1 and a
 * port of the kernel's choosing, answering every request with one fixed
 * status and an empty body, on keep-alive connections. The calibrate
 * workload times requests against it to measure what the agent's own
 * request path (libcurl, signing, timing, sample filling) costs when the
 * server and the network cost nothing; tests use it as a trivial peer.
 * It reads request heads up to 64 KiB and skips Content-Length bodies; it is
 * not a general server (no chunked request bodies). One thread serves up
 * to 16 connections with poll(). */
#ifndef VA_NULLSRV_H
#define VA_NULLSRV_H

#include <stddef.h>
#include <stdint.h>

typedef struct va_nullsrv_t va_nullsrv_t;

/* Caller owns the result. status: 100..599 (200 for calibration). NULL with
 * err set when the socket or the thread cannot be made. */
va_nullsrv_t *va_nullsrv_new(int status, char *err, size_t errlen);
void va_nullsrv_destroy(va_nullsrv_t **self_p);

int va_nullsrv_port(const va_nullsrv_t *self);
/* Requests answered so far. */
int64_t va_nullsrv_requests(const va_nullsrv_t *self);
/* Connections accepted so far. */
int64_t va_nullsrv_connections(const va_nullsrv_t *self);

#endif
