/* va_wl: per-job sample path, saturation flag, progress and cancellation. */
#include "va_wl.h"

#include <pthread.h>
#include <stdlib.h>

#include "va_cpumon.h"
#include "vc_clock.h"

#define PROGRESS_EVERY_NS (250 * VC_NS_PER_MS)

struct va_wl_t {
    const va_workload_env_t *env;
    const char *what;
    va_cpumon_t *cpu; /* NULL: no CPU rule */
    atomic_llong done, errors, total;
    atomic_llong next_progress; /* mono ns */
    pthread_mutex_t progress_mu;
};

va_wl_t *va_wl_new(const vc_job_t *job, const va_workload_env_t *env, const char *what,
                   int cpu_rule)
{
    (void)job;
    va_wl_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->env = env;
    self->what = what;
    if (cpu_rule && !(self->cpu = va_cpumon_new(0))) {
        free(self);
        return NULL;
    }
    pthread_mutex_init(&self->progress_mu, NULL);
    atomic_store(&self->next_progress, vc_mono_now() + PROGRESS_EVERY_NS);
    return self;
}

void va_wl_destroy(va_wl_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_wl_t *self = *self_p;
    va_cpumon_destroy(&self->cpu);
    pthread_mutex_destroy(&self->progress_mu);
    free(self);
    *self_p = NULL;
}

int va_wl_cancelled(const va_wl_t *self)
{
    return self->env->cancel && atomic_load(self->env->cancel);
}

atomic_int *va_wl_cancel_flag(const va_wl_t *self) { return self->env->cancel; }

int va_wl_cpu_saturated(double load) { return load > VA_WL_SAT_CPU; }

void va_wl_emit(va_wl_t *self, vc_sample_t *s, int late)
{
    if (late ||
        (self->cpu &&
         va_wl_cpu_saturated(va_cpumon_load(self->cpu, VA_WL_SAT_WINDOW_NS, VA_WL_SAT_MIN_NS))))
        s->flags |= VC_SF_SATURATED;
    self->env->emit(self->env->arg, s);
    if (s->err_class != VC_EC_NONE)
        atomic_fetch_add(&self->errors, 1);
    atomic_fetch_add(&self->done, 1);
    vc_sample_clear(s);
    va_wl_progress(self, 0);
}

void va_wl_set_total(va_wl_t *self, int64_t total) { atomic_store(&self->total, total); }
void va_wl_skip(va_wl_t *self, int64_t n) { atomic_fetch_add(&self->done, n); }
int64_t va_wl_done(const va_wl_t *self) { return atomic_load(&self->done); }
int64_t va_wl_errors(const va_wl_t *self) { return atomic_load(&self->errors); }

void va_wl_progress(va_wl_t *self, int force)
{
    if (!self->env->progress)
        return;
    vc_mono_ns_t now = vc_mono_now();
    if (!force && now < atomic_load(&self->next_progress))
        return;
    /* one reporter at a time, and the callback never sees a burst */
    if (force)
        pthread_mutex_lock(&self->progress_mu);
    else if (pthread_mutex_trylock(&self->progress_mu) != 0)
        return;
    if (force || now >= atomic_load(&self->next_progress)) {
        atomic_store(&self->next_progress, now + PROGRESS_EVERY_NS);
        self->env->progress(self->env->arg, atomic_load(&self->done), atomic_load(&self->total),
                            atomic_load(&self->errors), self->what);
    }
    pthread_mutex_unlock(&self->progress_mu);
}
