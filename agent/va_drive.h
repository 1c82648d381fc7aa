/* va_drive: runs the requests of many workers on a few event-loop threads.
 * A worker is a sequence of requests, one at a time, on its own connection
 * (a va_http_t); the workers are shared out among loop threads (one per CPU
 * the process may use, at most one per worker, or max_threads), and each
 * thread drives its workers' requests together in one va_http_loop. The
 * workload says what a worker does next and what happens when a request
 * ends, through two callbacks; the driver starts, waits and hands back.
 * Workloads that measure many requests (ops, populate, calibrate's loop
 * floor) run through this, so none pays a thread switch per request. */
#ifndef VA_DRIVE_H
#define VA_DRIVE_H

#include "va_http.h"

/* How a request ended, for the end callback. */
typedef enum {
    VA_DRIVE_COMPLETED = 0, /* the loop completed it (any outcome: see va_http_result) */
    VA_DRIVE_FAILED,        /* never completes: it could not be added or the loop failed */
    VA_DRIVE_DROPPED,       /* never completes: the job was cancelled while it was in flight */
} va_drive_end_t;

typedef struct {
    int nworkers;
    int max_threads; /* 0: one per usable CPU (at most 64) */
    /* Begins worker w's next request (va_*_begin, not added to a loop) and
     * returns its connection, or NULL when the worker has nothing left.
     * Requests that fail before they start are the callback's to record. */
    va_http_t *(*next)(void *ud, int w);
    /* Worker w's request ended (how): end it (va_*_end) and record it. */
    void (*end)(void *ud, int w, va_drive_end_t how);
    /* Non-zero: stop starting requests and drop those in flight. */
    int (*cancelled)(void *ud);
    void *ud;
} va_drive_t;

/* Runs until every worker has nothing left, or until cancelled. Returns
 * VC_OK, or VC_ERR_NOMEM / VC_ERR_INTERNAL when a loop could not be made or
 * failed (the requests it held ended as VA_DRIVE_FAILED). */
vc_status_t va_drive_run(const va_drive_t *d);

/* CPUs this process may run on (its affinity mask), at least 1. */
int va_drive_usable_cpus(void);

#endif
