/* va_drive: workers' requests on event-loop threads. */
#include "va_drive.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "vc_log.h"

#define MAX_THREADS 64

typedef struct {
    const va_drive_t *d;
    int first, count;   /* the workers this thread drives */
    vc_status_t rc;
} part_t;

/* Starts worker w's next request in loop; 1 when one is in flight. */
static int start(const va_drive_t *d, va_http_loop_t *loop, int w, int *busy)
{
    while (!d->cancelled(d->ud)) {
        va_http_t *h = d->next(d->ud, w);
        if (!h)
            return 0;
        va_http_set_owner(h, (void *)(intptr_t)(w + 1));
        if (va_http_loop_add(loop, h) == VC_OK) {
            busy[w] = 1;
            return 1;
        }
        d->end(d->ud, w, VA_DRIVE_FAILED);
    }
    return 0;
}

static void *drive(void *arg)
{
    part_t *p = arg;
    const va_drive_t *d = p->d;
    va_http_loop_t *loop = va_http_loop_new();
    va_http_t **done = calloc((size_t)p->count, sizeof *done);
    int *busy = calloc((size_t)d->nworkers, sizeof *busy);
    if (!loop || !done || !busy) {
        vc_error("drive", "out of memory for a request loop: %d workers idle", p->count);
        p->rc = VC_ERR_NOMEM;
        goto out;
    }
    for (int w = p->first; w < p->first + p->count; w++)
        start(d, loop, w, busy);
    int failed = 0;
    while (va_http_loop_active(loop) > 0 && !d->cancelled(d->ud)) {
        int n = va_http_loop_run(loop, 200, done, p->count);
        if (n < 0) {
            failed = 1; /* logged */
            p->rc = VC_ERR_INTERNAL;
            break;
        }
        for (int i = 0; i < n; i++) {
            int w = (int)(intptr_t)va_http_owner(done[i]) - 1;
            busy[w] = 0;
            d->end(d->ud, w, VA_DRIVE_COMPLETED);
            start(d, loop, w, busy);
        }
    }
    if (va_http_loop_active(loop) > 0) {
        /* what is still in flight never completes */
        va_http_loop_destroy(&loop);
        for (int w = p->first; w < p->first + p->count; w++)
            if (busy[w]) {
                busy[w] = 0;
                d->end(d->ud, w, failed ? VA_DRIVE_FAILED : VA_DRIVE_DROPPED);
            }
    }
out:
    va_http_loop_destroy(&loop);
    free(done);
    free(busy);
    return NULL;
}

int va_drive_usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

vc_status_t va_drive_run(const va_drive_t *d)
{
    if (d->nworkers < 1)
        return VC_OK;
    int nt = d->max_threads > 0 ? d->max_threads : va_drive_usable_cpus();
    if (nt > d->nworkers)
        nt = d->nworkers;
    if (nt > MAX_THREADS)
        nt = MAX_THREADS;
    part_t part[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int ok[MAX_THREADS] = {0};
    for (int t = 0; t < nt; t++)
        part[t] = (part_t){.d = d, .first = d->nworkers * t / nt,
                           .count = d->nworkers * (t + 1) / nt - d->nworkers * t / nt};
    for (int t = 1; t < nt; t++)
        ok[t] = pthread_create(&th[t], NULL, drive, &part[t]) == 0;
    drive(&part[0]);
    vc_status_t rc = part[0].rc;
    for (int t = 1; t < nt; t++) {
        if (ok[t])
            pthread_join(th[t], NULL);
        else
            drive(&part[t]); /* no thread for it: its workers run here, after */
        if (!rc)
            rc = part[t].rc;
    }
    return rc;
}
