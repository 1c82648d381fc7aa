/* va_batcher: mutex-protected open batch, bounded queue of sealed batches,
 * and an eventfd that mirrors "the queue is not empty" for poll(). */
#include "va_batcher.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vp_msg.h"

typedef struct {
    vc_sample_t *s;
    size_t n;
} batch_t;

struct va_batcher {
    pthread_mutex_t mu;
    pthread_cond_t space; /* the queue has room again */
    size_t batch_max, max_queued;
    size_t wire_limit;    /* seal before an encoded batch could exceed this */
    batch_t open;
    size_t open_wire;
    batch_t *queue;       /* ring of sealed batches */
    size_t qhead, qlen;
    vc_sample_t **spare;  /* released arrays for reuse */
    size_t nspare;
    int efd;
    int aborted;
};

static vc_sample_t *new_array(va_batcher_t *b)
{
    if (b->nspare)
        return b->spare[--b->nspare];
    return calloc(b->batch_max, sizeof(vc_sample_t));
}

va_batcher_t *va_batcher_new(size_t batch_max, size_t max_queued)
{
    if (batch_max < 1 || batch_max > VP_MAX_SAMPLES || max_queued < 1)
        return NULL;
    va_batcher_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->batch_max = batch_max;
    b->max_queued = max_queued;
    b->wire_limit = VP_MAX_MSG_SIZE / 2;
    b->queue = calloc(max_queued, sizeof *b->queue);
    b->spare = calloc(max_queued + 2, sizeof *b->spare);
    b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!b->queue || !b->spare || b->efd < 0 || pthread_mutex_init(&b->mu, NULL) != 0) {
        if (b->efd >= 0)
            close(b->efd);
        free(b->queue);
        free(b->spare);
        free(b);
        return NULL;
    }
    pthread_cond_init(&b->space, NULL);
    return b;
}

static void free_batch(vc_sample_t *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].page);
    free(s);
}

void va_batcher_destroy(va_batcher_t **p)
{
    if (!p || !*p)
        return;
    va_batcher_t *b = *p;
    free_batch(b->open.s, b->open.n);
    for (size_t i = 0; i < b->qlen; i++) {
        batch_t *q = &b->queue[(b->qhead + i) % b->max_queued];
        free_batch(q->s, q->n);
    }
    for (size_t i = 0; i < b->nspare; i++)
        free(b->spare[i]);
    free(b->queue);
    free(b->spare);
    close(b->efd);
    pthread_cond_destroy(&b->space);
    pthread_mutex_destroy(&b->mu);
    free(b);
    *p = NULL;
}

static void signal_fd(va_batcher_t *b)
{
    uint64_t one = 1;
    ssize_t w = write(b->efd, &one, sizeof one);
    (void)w;
}

static void drain_fd(va_batcher_t *b)
{
    uint64_t v;
    ssize_t r = read(b->efd, &v, sizeof v);
    (void)r;
}

/* Caller holds the mutex and has checked that the queue has room. */
static void seal(va_batcher_t *b)
{
    b->queue[(b->qhead + b->qlen) % b->max_queued] = b->open;
    b->qlen++;
    b->open.s = NULL;
    b->open.n = 0;
    b->open_wire = 0;
    signal_fd(b);
}

vc_status_t va_batcher_add(va_batcher_t *b, const vc_sample_t *s)
{
    vc_status_t rc = VC_OK;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        if (b->aborted) {
            rc = VC_ERR_CANCELLED;
            goto out;
        }
        if (b->open.n < b->batch_max || b->qlen < b->max_queued)
            break;
        pthread_cond_wait(&b->space, &b->mu);
    }
    if (b->open.n == b->batch_max)
        seal(b);
    if (!b->open.s && !(b->open.s = new_array(b))) {
        rc = VC_ERR_NOMEM;
        goto out;
    }
    vc_sample_t *dst = &b->open.s[b->open.n];
    dst->page = NULL;
    rc = vc_sample_copy(dst, s);
    if (rc)
        goto out;
    b->open.n++;
    b->open_wire += vp_sample_wire_size(s);
    /* Seal eagerly when full so the sender sees the batch without waiting
     * for the next sample; if the queue is full the next add seals it. */
    if ((b->open.n == b->batch_max || b->open_wire >= b->wire_limit) && b->qlen < b->max_queued)
        seal(b);
out:
    pthread_mutex_unlock(&b->mu);
    return rc;
}

size_t va_batcher_take(va_batcher_t *b, int partial, vc_sample_t **out)
{
    size_t n = 0;
    *out = NULL;
    pthread_mutex_lock(&b->mu);
    if (b->qlen == 0 && b->open.n > 0 && (partial || b->open.n == b->batch_max ||
                                          b->open_wire >= b->wire_limit)) {
        b->queue[b->qhead] = b->open;
        b->qlen = 1;
        b->open.s = NULL;
        b->open.n = 0;
        b->open_wire = 0;
    }
    if (b->qlen > 0) {
        batch_t q = b->queue[b->qhead];
        b->qhead = (b->qhead + 1) % b->max_queued;
        b->qlen--;
        *out = q.s;
        n = q.n;
        pthread_cond_broadcast(&b->space);
    }
    if (b->qlen == 0)
        drain_fd(b);
    pthread_mutex_unlock(&b->mu);
    return n;
}

void va_batcher_release(va_batcher_t *b, vc_sample_t *batch, size_t n)
{
    if (!batch)
        return;
    for (size_t i = 0; i < n; i++) {
        if (batch[i].page) {
            free(batch[i].page);
            batch[i].page = NULL;
        }
    }
    pthread_mutex_lock(&b->mu);
    if (b->nspare < b->max_queued + 2) {
        b->spare[b->nspare++] = batch;
        batch = NULL;
    }
    pthread_mutex_unlock(&b->mu);
    free(batch);
}

int va_batcher_fd(const va_batcher_t *b) { return b->efd; }

size_t va_batcher_pending(va_batcher_t *b)
{
    pthread_mutex_lock(&b->mu);
    size_t n = b->open.n;
    for (size_t i = 0; i < b->qlen; i++)
        n += b->queue[(b->qhead + i) % b->max_queued].n;
    pthread_mutex_unlock(&b->mu);
    return n;
}

void va_batcher_abort(va_batcher_t *b)
{
    pthread_mutex_lock(&b->mu);
    b->aborted = 1;
    pthread_cond_broadcast(&b->space);
    pthread_mutex_unlock(&b->mu);
}

void va_batcher_reset(va_batcher_t *b)
{
    pthread_mutex_lock(&b->mu);
    b->aborted = 0;
    pthread_mutex_unlock(&b->mu);
}
