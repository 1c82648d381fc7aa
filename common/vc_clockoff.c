/* vc_clockoff: NTP-style clock offset from four timestamps, and a window of
 * exchanges from which the lowest-delay one is reported. */
#include "vc_clockoff.h"

#include <stdlib.h>

#define WINDOW_MAX 1024

struct vc_clockoff {
    size_t window;
    size_t count;
    size_t next; /* ring position of the next insert */
    vc_clockoff_est_t *ring;
};

vc_status_t vc_clockoff_compute(int64_t t1, int64_t t2, int64_t t3, int64_t t4,
                                vc_clockoff_est_t *out)
{
    int64_t fwd, back, sum, rtt, hold, delay;
    /* The agent's timestamps come from the peer: any of these can overflow
     * for hostile values, and an overflow must be a refusal, not UB. */
    if (__builtin_sub_overflow(t2, t1, &fwd) || __builtin_sub_overflow(t3, t4, &back) ||
        __builtin_add_overflow(fwd, back, &sum) || __builtin_sub_overflow(t4, t1, &rtt) ||
        __builtin_sub_overflow(t3, t2, &hold) || __builtin_sub_overflow(rtt, hold, &delay))
        return VC_ERR_ARG;
    if (rtt < 0 || hold < 0 || delay < 0)
        return VC_ERR_ARG;
    /* Halve without rounding toward zero so the bound below holds for
     * negative sums too: |floor(sum/2) - sum/2| <= 1/2, and the true offset
     * is an integer within delay/2 of sum/2. */
    out->offset_ns = sum >= 0 ? sum / 2 : -((-(sum + 1)) / 2) - 1;
    out->delay_ns = delay;
    out->error_ns = delay / 2 + (delay & 1);
    out->t4 = t4;
    return VC_OK;
}

vc_clockoff_t *vc_clockoff_new(size_t window)
{
    if (window < 1 || window > WINDOW_MAX)
        return NULL;
    vc_clockoff_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ring = calloc(window, sizeof *c->ring);
    if (!c->ring) {
        free(c);
        return NULL;
    }
    c->window = window;
    return c;
}

void vc_clockoff_destroy(vc_clockoff_t **p)
{
    if (!p || !*p)
        return;
    free((*p)->ring);
    free(*p);
    *p = NULL;
}

vc_status_t vc_clockoff_add(vc_clockoff_t *c, int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    vc_clockoff_est_t e;
    vc_status_t rc = vc_clockoff_compute(t1, t2, t3, t4, &e);
    if (rc)
        return rc;
    c->ring[c->next] = e;
    c->next = (c->next + 1) % c->window;
    if (c->count < c->window)
        c->count++;
    return VC_OK;
}

vc_status_t vc_clockoff_best(const vc_clockoff_t *c, vc_clockoff_est_t *out)
{
    if (!c->count)
        return VC_ERR_NOTFOUND;
    /* Walk from oldest to newest so that "<=" prefers the newest on a tie:
     * with equal delay, the newest has drifted least. */
    size_t start = (c->next + c->window - c->count) % c->window;
    const vc_clockoff_est_t *best = NULL;
    for (size_t i = 0; i < c->count; i++) {
        const vc_clockoff_est_t *e = &c->ring[(start + i) % c->window];
        if (!best || e->delay_ns <= best->delay_ns)
            best = e;
    }
    *out = *best;
    return VC_OK;
}

size_t vc_clockoff_count(const vc_clockoff_t *c)
{
    return c->count;
}

void vc_clockoff_reset(vc_clockoff_t *c)
{
    c->count = 0;
    c->next = 0;
}
