/* vk_dispatch: the coordinator's memory of what it sent to whom, kept in the
 * campaign's results.db (its own table, rt_dispatch) so that a coordinator
 * restarted with the same --out knows every job id it handed out, which
 * campaign step each one was, where its sequence numbers start, and how it
 * ended. One row per JOB sent; a step (job x agent x slice) that had to be
 * sent again (its agent restarted mid-job) has several rows.
 *
 * Sequence numbers: an agent numbers each job id's samples from 1. The store
 * dedups by (agent, job name, seq), so every dispatch of the same
 * (agent, job name) gets a seq_base: stored seq = seq_base + wire seq, and
 * consecutive dispatches (interleaved slices, resumed remainders) continue
 * one contiguous sequence. */
#ifndef VK_DISPATCH_H
#define VK_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"
#include "vk_store.h"

/* Status of a dispatch; once ended it is one of vp_job_status_t (>= 0). */
#define VK_DISPATCH_RUNNING (-1)

typedef struct {
    uint64_t job_id;
    char job[64];      /* campaign job name */
    char agent[64];
    int slice;         /* vc_job_t.slice of the step */
    uint64_t seq_base;
    int status;        /* VK_DISPATCH_RUNNING or a vp_job_status_t */
    int64_t final_seq; /* samples the agent produced (DONE), -1 unknown */
    int64_t errors;
} vk_dispatch_t;

typedef struct vk_dispatch_log vk_dispatch_log_t;

/* Opens (creating its tables) the ledger inside st, which must stay open
 * while the ledger is used. Loads every row. A new file gets a random
 * instance number that prefixes its job ids, so job ids of two campaigns
 * never meet in an agent's spool. Caller owns the result; NULL with err. */
vk_dispatch_log_t *vk_dispatch_open(vk_store_t *st, char *err, size_t errlen);
void vk_dispatch_destroy(vk_dispatch_log_t **p);

/* Rows loaded or added, in job id order. */
size_t vk_dispatch_count(const vk_dispatch_log_t *d);
const vk_dispatch_t *vk_dispatch_get(const vk_dispatch_log_t *d, size_t i);
const vk_dispatch_t *vk_dispatch_find(const vk_dispatch_log_t *d, uint64_t job_id);

/* The seq_base for the next dispatch of (agent, job): the end of the
 * previous dispatches' sequences (their final_seq, or what is stored of a
 * dispatch whose end is unknown). */
uint64_t vk_dispatch_next_base(const vk_dispatch_log_t *d, const char *agent, const char *job,
                               uint64_t stored_acked);

/* Records a new dispatch (status running, final unknown) and returns its
 * job id in *job_id. Durable when it returns. */
vc_status_t vk_dispatch_add(vk_dispatch_log_t *d, const char *job, const char *agent, int slice,
                            uint64_t seq_base, uint64_t *job_id);
/* Records how a dispatch ended. */
vc_status_t vk_dispatch_end(vk_dispatch_log_t *d, uint64_t job_id, int status, int64_t final_seq,
                            int64_t errors);

#endif
