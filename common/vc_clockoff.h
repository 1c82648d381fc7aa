/* vc_clockoff: how far an agent's wall clock is from the coordinator's, from
 * NTP-style exchanges (PING/PONG). With t1 = coordinator send, t2 = agent
 * receive, t3 = agent send, t4 = coordinator receive:
 *     offset = ((t2 - t1) + (t3 - t4)) / 2    (agent clock - coordinator clock)
 *     delay  = (t4 - t1) - (t3 - t2)          (round trip minus agent hold time)
 *     error  = delay / 2                       (|true offset - offset| <= error
 *                                              whatever the path asymmetry)
 * The estimator keeps the last `window` exchanges and reports the one with the
 * lowest delay: queueing only ever adds delay, so the fastest exchange is the
 * tightest bound. A coordinator time for an agent timestamp is t - offset.
 * Pure computation: no clock is read here, so tests feed exact timestamps. */
#ifndef VC_CLOCKOFF_H
#define VC_CLOCKOFF_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

typedef struct {
    int64_t offset_ns;  /* agent minus coordinator */
    int64_t delay_ns;   /* >= 0 */
    int64_t error_ns;   /* delay / 2 rounded up: the bound on |offset error| */
    int64_t t4;         /* when the exchange completed (coordinator clock) */
} vc_clockoff_est_t;

/* One exchange. VC_ERR_ARG when the timestamps are impossible (t4 < t1,
 * t3 < t2, a delay below zero, or values whose differences overflow), which
 * from a peer means a broken or hostile agent. */
vc_status_t vc_clockoff_compute(int64_t t1, int64_t t2, int64_t t3, int64_t t4,
                                vc_clockoff_est_t *out);

typedef struct vc_clockoff vc_clockoff_t;

/* window: how many recent exchanges to keep (1..1024; 8 is a good default).
 * Caller owns the result; NULL on a bad window or no memory. */
vc_clockoff_t *vc_clockoff_new(size_t window);
void vc_clockoff_destroy(vc_clockoff_t **p);

/* Adds one exchange, replacing the oldest when the window is full.
 * Impossible timestamps are refused (VC_ERR_ARG) and not kept. */
vc_status_t vc_clockoff_add(vc_clockoff_t *c, int64_t t1, int64_t t2, int64_t t3, int64_t t4);

/* The exchange in the window with the lowest delay (on a tie, the newest).
 * VC_ERR_NOTFOUND when there is none yet. */
vc_status_t vc_clockoff_best(const vc_clockoff_t *c, vc_clockoff_est_t *out);

/* Exchanges in the window. */
size_t vc_clockoff_count(const vc_clockoff_t *c);

/* Forgets every exchange (after a reconnect, when the agent may have
 * restarted with another clock). */
void vc_clockoff_reset(vc_clockoff_t *c);

#endif
