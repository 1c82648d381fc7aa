/* va_agent: the agent runtime. It connects out to the coordinator (a DEALER
 * to its ROUTER, so agents behind NAT work), says HELLO with what its spool
 * still holds, answers heartbeats, runs one JOB at a time in a job thread
 * (va_workload_run), and streams the samples back in SAMPLES batches.
 *
 * No sample is lost: every batch is appended to the spool and fsync'd before
 * it is sent; only an ACK (the coordinator committed it) releases it. After a
 * reconnect, a stalled ACK, or a restart with the same spool, everything past
 * the last ACK is sent again and the coordinator drops duplicates by
 * (agent, job, seq). At most `window` unacknowledged batches are in flight;
 * the rest waits in the spool, so a slow coordinator costs disk, not memory.
 *
 * Threads: the caller's thread runs va_agent_run (socket, spool, timers); the
 * job thread and the workload's workers only copy samples into a va_batcher. */
#ifndef VA_AGENT_H
#define VA_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "vc_status.h"

typedef struct {
    const char *endpoint;        /* coordinator, "tcp://HOST:PORT" (or inproc:// in tests) */
    const char *name;            /* agent name as the campaign lists it */
    const char *site;            /* site label, may be "" */
    const char *secret_file;     /* this agent's key pair (NAME.key_secret); NULL when insecure */
    const char *coordinator_key; /* the coordinator's public key file; NULL when insecure */
    int insecure;                /* plain TCP (only to loopback, ipc, inproc) */
    const char *spool_path;      /* the spool file (its directory must exist) */
    const char *work_dir;        /* for workloads' files; NULL: /tmp */
    int batch_max;               /* samples per SAMPLES message, 1..VP_MAX_SAMPLES (1000) */
    int64_t batch_ms;            /* a partial batch is sent after this long (100) */
    int window;                  /* unacknowledged batches in flight (32) */
    int64_t heartbeat_ms;        /* PING interval until WELCOME says otherwise (2000) */
    int64_t lost_after_ms;       /* coordinator silent this long: reconnect (10000) */
    int max_workers;             /* refuse jobs asking for more (64) */
    int spool_fsync;             /* 1; 0 only for benchmarks of the network path */
    int64_t spool_max_bytes;     /* unacknowledged spool above this pauses the job (1 GiB); 0 none */
    int64_t test_max_rate;       /* tests: cap the samples a job emits per second; 0 none */
} va_agent_opts_t;

typedef struct va_agent va_agent_t;

/* Fills o with the defaults above (strings NULL). */
void va_agent_opts_init(va_agent_opts_t *o);

/* Checks the options, loads the keys and opens the spool (recovering it).
 * Caller owns the result; NULL with a message in err on failure. */
va_agent_t *va_agent_new(const va_agent_opts_t *o, char *err, size_t errlen);
void va_agent_destroy(va_agent_t **p);

/* Runs until va_agent_stop (then: the running job is interrupted, its last
 * batch spooled, what can be acknowledged within a few seconds is sent, and
 * the agent leaves with BYE) or a fatal condition: the coordinator REJECTs
 * the agent or refuses its key (VC_ERR_AUTH), or the spool fails (VC_ERR_IO).
 * VC_OK after a requested stop. */
vc_status_t va_agent_run(va_agent_t *a);

/* Asks va_agent_run to finish. Async-signal-safe and thread-safe. */
void va_agent_stop(va_agent_t *a);

/* The reason of the last fatal condition, "" when none. */
const char *va_agent_error(const va_agent_t *a);

#endif
