/* va_wl: what every workload shares while it runs one job: the way a sample
 * reaches the caller (with the saturation rule applied and the record
 * counted), progress reports at most a few times a second, and cancellation.
 *
 * The saturation rule (VC_SF_SATURATED), the same for every workload:
 *   - CPU: the agent process (all its threads) used more than 90% of one core
 *     over the second before the sample was emitted (the sample's end), as
 *     va_cpumon measures it every 100 ms; or
 *   - schedule: the workload says the operation started late (probe: more
 *     than max(10 ms, 10% of the interval) after its scheduled time).
 * A saturated sample is kept and flagged, never dropped: the report says how
 * many of its numbers were taken while the agent itself was the bottleneck.
 * The calibrate workload turns the CPU rule off: it keeps a core busy on
 * purpose to measure the agent's own floor. */
#ifndef VA_WL_H
#define VA_WL_H

#include <stdint.h>

#include "va_workload.h"

typedef struct va_wl_t va_wl_t;

#define VA_WL_SAT_CPU 0.90                 /* fraction of one core */
#define VA_WL_SAT_WINDOW_NS (1000 * VC_NS_PER_MS)
#define VA_WL_SAT_MIN_NS (200 * VC_NS_PER_MS) /* less history than this: no CPU verdict */

/* Caller owns the result; NULL when out of memory. cpu_rule: apply the CPU
 * part of the saturation rule. */
va_wl_t *va_wl_new(const vc_job_t *job, const va_workload_env_t *env, const char *what,
                   int cpu_rule);
void va_wl_destroy(va_wl_t **self_p);

int va_wl_cancelled(const va_wl_t *self);
atomic_int *va_wl_cancel_flag(const va_wl_t *self); /* for clients that poll it; may be NULL */

/* Hands s to the caller's emit callback (flagged saturated per the rule, or
 * when late is non-zero), counts it as done (and as an error when its error
 * class is set), reports progress when due, and clears s. Thread-safe. */
void va_wl_emit(va_wl_t *self, vc_sample_t *s, int late);

/* The amount of work progress counts against (samples expected). */
void va_wl_set_total(va_wl_t *self, int64_t total);
/* Counts work that will produce no sample (a skipped scale point). */
void va_wl_skip(va_wl_t *self, int64_t n);
int64_t va_wl_done(const va_wl_t *self);
int64_t va_wl_errors(const va_wl_t *self);
/* Reports progress now if due (at most 4 a second), or always when force. */
void va_wl_progress(va_wl_t *self, int force);

/* The CPU part of the rule, for tests and the report's documentation:
 * load is the fraction of one core, -1 when unknown. */
int va_wl_cpu_saturated(double load);

#endif
