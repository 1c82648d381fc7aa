/* vc_clock: monotonic and wall clocks, thread CPU time. */
#include "vc_clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

static _Atomic int64_t wall_offset;

vc_mono_ns_t vc_mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * VC_NS_PER_S + ts.tv_nsec;
}

vc_wall_ns_t vc_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * VC_NS_PER_S + ts.tv_nsec + atomic_load(&wall_offset);
}

void vc_clock_set_wall_offset(int64_t offset_ns) { atomic_store(&wall_offset, offset_ns); }

void vc_thread_cpu_us(int64_t *user_us, int64_t *sys_us)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) {
        *user_us = *sys_us = 0;
        return;
    }
    *user_us = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
    *sys_us = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
}

void vc_sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {.tv_sec = ns / VC_NS_PER_S, .tv_nsec = ns % VC_NS_PER_S};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
