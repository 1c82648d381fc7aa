/* le_link: token bucket plus delay line arithmetic (see le_link.h). */
#include "le_link.h"

#include <math.h>
#include <stdlib.h>

#define LE_SEGMENT 1448 /* one TCP segment's payload on an Ethernet path */
#define LE_QUANTUM_MAX (64 * 1024)

struct le_link {
    int64_t delay_ns;
    int64_t jitter_ns;
    double bytes_per_ns; /* 0 = no cap */
    double burst;        /* bytes */
    double tokens;       /* bytes */
    int64_t last_ns;
    size_t quantum;
    uint64_t rng;
};

/* splitmix64: small, good enough for jitter, reproducible from the seed */
static uint64_t le_rand(le_link_t *l)
{
    uint64_t z = (l->rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

le_link_t *le_link_new(const le_link_params_t *p, uint64_t seed, int64_t now_ns)
{
    if (p == NULL || !(p->delay_ms >= 0) || !(p->jitter_ms >= 0) || !(p->rate_mbit >= 0) ||
        p->delay_ms > 3.6e6 || p->jitter_ms > 3.6e6 || p->rate_mbit > 1e6)
        return NULL;
    le_link_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return NULL;
    l->delay_ns = (int64_t)llround(p->delay_ms * 1e6);
    l->jitter_ns = (int64_t)llround(p->jitter_ms * 1e6);
    l->bytes_per_ns = p->rate_mbit * 1e6 / 8.0 / 1e9;
    l->rng = seed;
    l->last_ns = now_ns;
    if (l->bytes_per_ns > 0) {
        /* About 1 ms of the rate per chunk keeps the event rate near 1 kHz
         * per direction at high rates and one segment at low ones. */
        double q = l->bytes_per_ns * 1e6;
        size_t quantum = q < LE_SEGMENT ? LE_SEGMENT : q > LE_QUANTUM_MAX ? LE_QUANTUM_MAX : (size_t)q;
        /* The bucket must hold more than one wake-up's lateness: a loop
         * woken 5 ms late on a busy machine still sends the 5 ms it owes.
         * 20 ms of the rate (2 quanta at least) costs a transfer at most
         * those 20 ms of head start. */
        double b20 = l->bytes_per_ns * 20e6;
        size_t burst = p->burst ? p->burst : b20 > 2.0 * (double)quantum ? (size_t)b20 : 2 * quantum;
        if (quantum > burst)
            quantum = burst;
        l->quantum = quantum;
        l->burst = (double)burst;
    } else {
        l->quantum = SIZE_MAX;
        l->burst = 0;
    }
    l->tokens = l->burst;
    return l;
}

void le_link_destroy(le_link_t **p)
{
    if (p == NULL || *p == NULL)
        return;
    free(*p);
    *p = NULL;
}

size_t le_link_quantum(const le_link_t *l)
{
    return l->quantum;
}

int64_t le_link_delay_ns(const le_link_t *l)
{
    return l->delay_ns;
}

int64_t le_link_take(le_link_t *l, size_t n, int64_t now_ns)
{
    if (l->bytes_per_ns <= 0)
        return 0;
    if (now_ns > l->last_ns) {
        l->tokens += (double)(now_ns - l->last_ns) * l->bytes_per_ns;
        if (l->tokens > l->burst)
            l->tokens = l->burst;
        l->last_ns = now_ns;
    }
    double need = (double)n;
    if (l->tokens >= need) {
        l->tokens -= need;
        return 0;
    }
    int64_t wait = (int64_t)ceil((need - l->tokens) / l->bytes_per_ns);
    return wait > 0 ? wait : 1;
}

int64_t le_link_release(le_link_t *l, int64_t now_ns, int64_t prev_release_ns)
{
    int64_t d = l->delay_ns;
    if (l->jitter_ns > 0) {
        /* uniform in [-jitter, +jitter]; 53 random bits as a double in [0,1) */
        double u = (double)(le_rand(l) >> 11) * 0x1.0p-53;
        d += (int64_t)((2.0 * u - 1.0) * (double)l->jitter_ns);
        if (d < 0)
            d = 0;
    }
    int64_t at = now_ns + d;
    return at < prev_release_ns ? prev_release_ns : at;
}
