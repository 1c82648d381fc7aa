/* va_spool: the agent's durable queue of samples the coordinator has not yet
 * acknowledged, so that an agent that loses its link, or is killed and
 * restarted, loses nothing (PROTOCOL.md "Sample streaming").
 *
 * One append-only file. Each record is framed by a length and a CRC-32C so a
 * torn last record (the agent died mid-write) is detected and dropped on
 * open. A batch record's payload is the encoded SAMPLES message itself
 * (vp_msg_encode), so a resend is a plain read and send. ACK records mark
 * everything <= seq of a job as acknowledged; when acknowledged bytes
 * dominate, the file is rewritten without them (temp file + fsync + rename).
 *
 * Knows no sockets: the agent runtime appends, sends what it appended, acks
 * on ACK and walks the unacknowledged batches after a reconnect.
 * Not thread-safe: one thread (the agent's sender) owns a spool. */
#ifndef VA_SPOOL_H
#define VA_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "vc_sample.h"
#include "vc_status.h"
#include "vp_msg.h"

typedef struct va_spool va_spool_t;

/* One unacknowledged batch, as iteration hands it out. */
typedef struct {
    uint64_t job_id;
    uint64_t first_seq;
    uint32_t nsamples;
    const void *msg; /* the encoded SAMPLES message, ready to send; valid during the callback */
    size_t len;
} va_spool_batch_t;

/* What the spool knows of one job (for HELLO's resume list). */
typedef struct {
    uint64_t job_id;
    uint64_t next_seq;      /* seq the next batch must start with (1 for a new job) */
    uint64_t acked_seq;     /* highest seq acknowledged (0: none) */
    uint64_t unacked;       /* samples spooled and not acknowledged */
    int finished;           /* va_spool_finish was called; done holds the DONE */
    vp_done_t done;
} va_spool_job_t;

/* Opens or creates the spool file at path (its directory must exist) and
 * recovers its content: complete records are replayed, a torn or corrupt
 * tail is cut off (with a warning naming path and offset). A corrupt record
 * in the middle ends recovery there too: what follows cannot be trusted.
 * Caller owns the result; NULL with a message in err on failure. */
va_spool_t *va_spool_open(const char *path, char *err, size_t errlen);

/* Closes the file (nothing is lost: every append was already synced). */
void va_spool_destroy(va_spool_t **p);

/* Whether each append is fsync'd before it returns (default on). Off only
 * for tests and benchmarks: a crash can then lose the latest batches. */
void va_spool_set_fsync(va_spool_t *sp, int on);

/* File size below which va_spool_ack and va_spool_forget never compact
 * (default 64 MiB; lower for small disks and tests). */
void va_spool_set_compact_min(va_spool_t *sp, uint64_t bytes);

/* Appends one batch of n samples (1..VP_MAX_SAMPLES) of job_id, numbered
 * first_seq, first_seq+1, ... (samples[i].seq is ignored). first_seq must be
 * va_spool_next_seq(sp, job_id): a job's seqs are contiguous. The batch is on
 * disk (fsync'd) when this returns VC_OK; only then may it be sent. If msg is
 * not NULL it receives the encoded SAMPLES message (request_id 0), the same
 * bytes that are spooled. VC_ERR_ARG for a wrong seq, n or an encoding over
 * VP_MAX_MSG_SIZE; VC_ERR_IO when the write fails (the spool stays usable:
 * the partial record is truncated away). */
vc_status_t va_spool_append(va_spool_t *sp, uint64_t job_id, uint64_t first_seq,
                            const vc_sample_t *samples, size_t n, msgpack_sbuffer *msg, char *err,
                            size_t errlen);

/* Marks every sample <= seq of job_id acknowledged (an ACK arrived). Lower or
 * equal to what is already acked: nothing to do, VC_OK. Above what was
 * spooled (a confused or hostile peer): VC_ERR_ARG, nothing changes.
 * Not fsync'd: losing an ack in a crash only causes a resend, which the
 * coordinator drops as a duplicate. May compact the file. */
vc_status_t va_spool_ack(va_spool_t *sp, uint64_t job_id, uint64_t seq, char *err,
                         size_t errlen);

/* Records that job_id ended, with its DONE message, so a restarted agent can
 * still report it. fsync'd. */
vc_status_t va_spool_finish(va_spool_t *sp, const vp_done_t *done, char *err, size_t errlen);

/* Forgets job_id entirely (it is finished and fully acknowledged, or the
 * coordinator does not know it). Its records go at the next compaction. */
vc_status_t va_spool_forget(va_spool_t *sp, uint64_t job_id, char *err, size_t errlen);

/* Calls fn for each unacknowledged batch of job_id (0: every job) whose last
 * seq is >= from_seq, each job's batches in seq order. fn returns non-zero to
 * stop early. The batch bytes are read back from the file (and checked
 * against their CRC). fn may send the bytes but must not call any other
 * va_spool function on sp: ack what arrives after the walk. VC_ERR_IO when a
 * record cannot be read back intact, VC_ERR_CANCELLED when fn stopped. */
vc_status_t va_spool_foreach(va_spool_t *sp, uint64_t job_id, uint64_t from_seq,
                             int (*fn)(void *arg, const va_spool_batch_t *batch), void *arg,
                             char *err, size_t errlen);

/* Next seq to use for job_id (1 for a job the spool does not know). */
uint64_t va_spool_next_seq(const va_spool_t *sp, uint64_t job_id);
/* Highest acknowledged seq of job_id (0: none or unknown job). */
uint64_t va_spool_acked_seq(const va_spool_t *sp, uint64_t job_id);

/* Fills out[0..max) with the jobs the spool knows, returns how many there
 * are (may be more than max). */
size_t va_spool_jobs(const va_spool_t *sp, va_spool_job_t *out, size_t max);

/* Rewrites the file with only what is still needed (unacked batches, per-job
 * ack and finish records), atomically. Called by va_spool_ack, va_spool_forget
 * and va_spool_open when dead bytes are over half of a file larger than the
 * compaction minimum. */
vc_status_t va_spool_compact(va_spool_t *sp, char *err, size_t errlen);

/* Current file size and the bytes of it still needed, for logs and tests. */
void va_spool_size(const va_spool_t *sp, uint64_t *file_bytes, uint64_t *live_bytes);

#endif
