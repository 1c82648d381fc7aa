/* vk_intake: the coordinator's sample writer thread. Decoding, routing and
 * acknowledging stay on the coordinator's socket thread; committing batches
 * to SQLite (most of the cost of a sample) happens here, on a connection of
 * its own to the same results.db, so the two overlap on two cores. A batch
 * goes in with vk_intake_submit and comes back, committed or failed, from
 * vk_intake_result in submission order; only then may it be acknowledged.
 * The queue is bounded: when vk_intake_full says so, the caller stops
 * reading its socket and ZeroMQ's own limits push back on the agents. */
#ifndef VK_INTAKE_H
#define VK_INTAKE_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"
#include "vp_msg.h"

typedef struct {
    /* filled by the caller */
    int agent;               /* caller's index of the agent */
    char agent_name[64];
    char job_name[64];
    uint64_t job_id;
    uint64_t first, last;    /* wire seqs of the batch */
    uint64_t request_id;     /* of the SAMPLES message, for the ACK */
    int64_t offset_ns;       /* clock offset to correct start times with */
    vp_msg_t msg;            /* the SAMPLES message (samples' seq already set); owned */
    /* filled by the writer */
    vc_status_t rc;
    size_t inserted, duplicates;
    char err[256];
} vk_intake_item_t;

typedef struct vk_intake vk_intake_t;

/* Opens its own connection to DIR/results.db (which must exist) and starts
 * the thread; max_pending: batches queued or being written (>= 1). Caller
 * owns the result; NULL with err on failure. */
vk_intake_t *vk_intake_new(const char *dir, size_t max_pending, char *err, size_t errlen);
/* Writes what is queued, stops the thread, frees what was not collected. */
void vk_intake_destroy(vk_intake_t **p);

/* A new item (zeroed, msg initialised); NULL when out of memory. */
vk_intake_item_t *vk_intake_item_new(void);
/* Frees an item and its message. Accepts NULL. */
void vk_intake_item_free(vk_intake_item_t *it);

/* Queues it (ownership passes to the intake). VC_ERR_ARG when full. */
vc_status_t vk_intake_submit(vk_intake_t *in, vk_intake_item_t *it);
/* The next written item (caller owns it), or NULL when none is ready. */
vk_intake_item_t *vk_intake_result(vk_intake_t *in);

int vk_intake_full(vk_intake_t *in);
/* Items submitted and not yet collected with vk_intake_result. */
size_t vk_intake_pending(vk_intake_t *in);
/* Readable while results wait (for zmq_poll). */
int vk_intake_fd(const vk_intake_t *in);

#endif
