/* va_cpumon: how busy this process has kept the CPU lately, for the
 * saturation flag (VC_SF_SATURATED): a number measured while the agent itself
 * was short of CPU says more about the agent than about the network.
 * A background thread reads the process CPU clock (all threads) every period
 * into a ring; va_cpumon_load() compares the newest reading with the one at
 * least a window ago and answers "what fraction of one core did the process
 * use over that window". The arithmetic is a pure function for tests. */
#ifndef VA_CPUMON_H
#define VA_CPUMON_H

#include <stddef.h>
#include <stdint.h>

#include "vc_clock.h"

typedef struct va_cpumon_t va_cpumon_t;

typedef struct {
    vc_mono_ns_t mono; /* when */
    int64_t cpu_ns;    /* process CPU time used by then */
} va_cpumon_reading_t;

/* Caller owns the result; NULL when the thread cannot start. period_ns 0:
 * 100 ms. */
va_cpumon_t *va_cpumon_new(int64_t period_ns);
void va_cpumon_destroy(va_cpumon_t **self_p);

/* CPU used by the process over about the last window_ns, as a fraction of
 * one core (1.0 = one core fully busy; can exceed 1 with several threads).
 * -1 while the monitor has less than min_ns of history. Thread-safe. */
double va_cpumon_load(va_cpumon_t *self, int64_t window_ns, int64_t min_ns);

/* The rule itself: readings r[0..n) oldest first, now the current reading.
 * The base is the newest reading at least window_ns before now, else the
 * oldest one when it is at least min_ns old, else there is no answer (-1). */
double va_cpumon_load_of(const va_cpumon_reading_t *r, size_t n, va_cpumon_reading_t now,
                         int64_t window_ns, int64_t min_ns);

/* The process CPU clock now. */
va_cpumon_reading_t va_cpumon_read(void);

#endif
