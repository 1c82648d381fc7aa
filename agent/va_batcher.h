/* va_batcher: hands samples from the workload's worker threads to the
 * agent's sender thread in batches. Workers only copy a sample into the open
 * batch under a mutex; a batch is sealed when it holds batch_max samples or
 * about half of VP_MAX_MSG_SIZE on the wire, or when the sender asks for the
 * partial batch (its time limit). Sealed batches wait in a bounded queue: when
 * the sender (spool fsync, network) falls behind, workers block in
 * va_batcher_add instead of memory growing without bound.
 * The sender waits for work on a file descriptor (va_batcher_fd) that is
 * readable while a sealed batch is queued, so it can poll it next to its
 * ZeroMQ socket. */
#ifndef VA_BATCHER_H
#define VA_BATCHER_H

#include <stddef.h>

#include "vc_sample.h"
#include "vc_status.h"

typedef struct va_batcher va_batcher_t;

/* batch_max: samples per batch (1..VP_MAX_SAMPLES); max_queued: sealed
 * batches held before workers block (>= 1). Caller owns the result; NULL on
 * bad arguments or no memory. */
va_batcher_t *va_batcher_new(size_t batch_max, size_t max_queued);
void va_batcher_destroy(va_batcher_t **p);

/* Worker side: copies s (pages too) into the open batch. Blocks while the
 * queue is full, unless the batcher was woken with va_batcher_abort.
 * VC_ERR_NOMEM when the copy fails, VC_ERR_CANCELLED after abort. */
vc_status_t va_batcher_add(va_batcher_t *b, const vc_sample_t *s);

/* Sender side: takes the oldest sealed batch; when none is queued and
 * partial is set, seals and takes the open batch if it holds any sample.
 * Returns the number of samples in *out (0: nothing); the caller gives the
 * array back with va_batcher_release. */
size_t va_batcher_take(va_batcher_t *b, int partial, vc_sample_t **out);
/* Clears the n samples (frees their pages) and keeps the array for reuse. */
void va_batcher_release(va_batcher_t *b, vc_sample_t *batch, size_t n);

/* Readable while sealed batches wait (level-triggered). */
int va_batcher_fd(const va_batcher_t *b);

/* Samples added and not yet taken by the sender. */
size_t va_batcher_pending(va_batcher_t *b);

/* Releases blocked and future va_batcher_add calls with VC_ERR_CANCELLED
 * (the agent is going down and the sender no longer drains). */
void va_batcher_abort(va_batcher_t *b);
/* Accepts samples again after an abort (next job). */
void va_batcher_reset(va_batcher_t *b);

#endif
