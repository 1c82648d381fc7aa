/* vc_clock: typed time. Durations come from the monotonic clock only
 * (vc_mono_ns_t); wall-clock time (vc_wall_ns_t) only places samples on a
 * timeline. Mixing them is a type error the names make visible.
 * The wall clock can be shifted for tests (vc_clock_set_wall_offset), which is
 * how the clock-offset estimator is tested against a known shift. */
#ifndef VC_CLOCK_H
#define VC_CLOCK_H

#include <stdint.h>

typedef int64_t vc_mono_ns_t; /* CLOCK_MONOTONIC, nanoseconds */
typedef int64_t vc_wall_ns_t; /* CLOCK_REALTIME (+ test offset), ns since the epoch */

vc_mono_ns_t vc_mono_now(void);
vc_wall_ns_t vc_wall_now(void);

/* Adds offset_ns to every vc_wall_now() of this process (tests only). */
void vc_clock_set_wall_offset(int64_t offset_ns);

/* CPU time used so far by the calling thread (RUSAGE_THREAD), in µs. */
void vc_thread_cpu_us(int64_t *user_us, int64_t *sys_us);

/* Sleeps for ns nanoseconds on the monotonic clock (restarts on EINTR). */
void vc_sleep_ns(int64_t ns);

#define VC_NS_PER_MS INT64_C(1000000)
#define VC_NS_PER_S INT64_C(1000000000)

#endif
