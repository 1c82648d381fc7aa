/* va_cpumon: process CPU load over the last second, sampled by a thread. */
#include "va_cpumon.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define RING 64 /* 6.4 s of history at the default period */

struct va_cpumon_t {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    int64_t period_ns;
    va_cpumon_reading_t ring[RING];
    size_t head, n; /* oldest at head */
};

va_cpumon_reading_t va_cpumon_read(void)
{
    struct timespec ts;
    va_cpumon_reading_t r = {vc_mono_now(), 0};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        r.cpu_ns = (int64_t)ts.tv_sec * VC_NS_PER_S + ts.tv_nsec;
    return r;
}

double va_cpumon_load_of(const va_cpumon_reading_t *r, size_t n, va_cpumon_reading_t now,
                         int64_t window_ns, int64_t min_ns)
{
    const va_cpumon_reading_t *base = NULL;
    for (size_t i = n; i-- > 0;)
        if (now.mono - r[i].mono >= window_ns) {
            base = &r[i];
            break;
        }
    if (!base && n && now.mono - r[0].mono >= min_ns)
        base = &r[0];
    if (!base || now.mono <= base->mono)
        return -1;
    return (double)(now.cpu_ns - base->cpu_ns) / (double)(now.mono - base->mono);
}

static void push(va_cpumon_t *self, va_cpumon_reading_t r)
{
    if (self->n < RING) {
        self->ring[(self->head + self->n) % RING] = r;
        self->n++;
    } else {
        self->ring[self->head] = r;
        self->head = (self->head + 1) % RING;
    }
}

static void *run(void *arg)
{
    va_cpumon_t *self = arg;
    pthread_mutex_lock(&self->mu);
    while (!self->stop) {
        push(self, va_cpumon_read());
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        int64_t ns = until.tv_nsec + self->period_ns;
        until.tv_sec += ns / VC_NS_PER_S;
        until.tv_nsec = ns % VC_NS_PER_S;
        while (!self->stop && pthread_cond_timedwait(&self->cv, &self->mu, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&self->mu);
    return NULL;
}

va_cpumon_t *va_cpumon_new(int64_t period_ns)
{
    va_cpumon_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->period_ns = period_ns > 0 ? period_ns : 100 * VC_NS_PER_MS;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&self->mu, NULL);
    pthread_cond_init(&self->cv, &ca);
    pthread_condattr_destroy(&ca);
    push(self, va_cpumon_read());
    if (pthread_create(&self->thread, NULL, run, self) != 0) {
        pthread_cond_destroy(&self->cv);
        pthread_mutex_destroy(&self->mu);
        free(self);
        return NULL;
    }
    return self;
}

void va_cpumon_destroy(va_cpumon_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_cpumon_t *self = *self_p;
    pthread_mutex_lock(&self->mu);
    self->stop = 1;
    pthread_cond_signal(&self->cv);
    pthread_mutex_unlock(&self->mu);
    pthread_join(self->thread, NULL);
    pthread_cond_destroy(&self->cv);
    pthread_mutex_destroy(&self->mu);
    free(self);
    *self_p = NULL;
}

double va_cpumon_load(va_cpumon_t *self, int64_t window_ns, int64_t min_ns)
{
    va_cpumon_reading_t copy[RING];
    va_cpumon_reading_t now = va_cpumon_read();
    pthread_mutex_lock(&self->mu);
    size_t n = self->n;
    for (size_t i = 0; i < n; i++)
        copy[i] = self->ring[(self->head + i) % RING];
    pthread_mutex_unlock(&self->mu);
    return va_cpumon_load_of(copy, n, now, window_ns, min_ns);
}
