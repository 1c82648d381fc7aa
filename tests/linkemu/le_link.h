/* le_link: the arithmetic of one direction of an emulated access link.
 * A token bucket caps the rate (shared by every connection of the emulator, as
 * one access link is), and each chunk that leaves the bucket gets a one-way
 * delay with bounded uniform jitter (netem's "delay D J": D-J .. D+J). The
 * release time of a chunk is never earlier than the previous chunk's of the
 * same stream, so jitter never reorders bytes. Pure: the caller passes the
 * monotonic time in, which is what makes this testable without sleeping. */
#ifndef LE_LINK_H
#define LE_LINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct le_link le_link_t;

typedef struct {
    double delay_ms;  /* mean one-way delay */
    double jitter_ms; /* each chunk's delay is uniform in delay +- jitter (>= 0) */
    double rate_mbit; /* payload rate cap in Mbit/s (10^6 bit/s); 0 = no cap */
    size_t burst;     /* token bucket depth in bytes; 0 = automatic */
} le_link_params_t;

/* Caller owns the result; NULL on bad parameters or no memory. The bucket
 * starts full at now_ns. seed makes the jitter sequence reproducible. */
le_link_t *le_link_new(const le_link_params_t *p, uint64_t seed, int64_t now_ns);
void le_link_destroy(le_link_t **p);

/* Largest chunk the scheduler should hand to le_link_take at once: about a
 * millisecond of the rate, at least one segment, at most 64 KiB; SIZE_MAX
 * when the rate is not capped. Never more than the bucket depth. */
size_t le_link_quantum(const le_link_t *l);

/* Takes n bytes of tokens if the bucket holds them at now_ns and returns 0;
 * otherwise takes nothing and returns how many ns to wait (> 0). n must not
 * exceed le_link_quantum(). */
int64_t le_link_take(le_link_t *l, size_t n, int64_t now_ns);

/* When a chunk that left the bucket at now_ns reaches the other end, given
 * the previous release time of the same stream (INT64_MIN if none). */
int64_t le_link_release(le_link_t *l, int64_t now_ns, int64_t prev_release_ns);

/* The base one-way delay in ns (without jitter). */
int64_t le_link_delay_ns(const le_link_t *l);

#endif
