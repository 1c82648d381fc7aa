/* vk_coord: the coordinator runtime. It binds a ROUTER that agents connect
 * to (CURVE with an allow-list by default), waits for the campaign's agents,
 * dispatches the campaign's jobs wave by wave as vc_plan lays them out,
 * stores every sample exactly once (an ACK leaves only after the store's
 * COMMIT), estimates every agent's clock offset from PING/PONG, and carries
 * on when an agent is lost: its step is marked incomplete with exact counts,
 * and when it comes back it resends what it spooled and its unfinished work
 * is resumed or run late. A coordinator restarted on the same output
 * directory picks up where the last one stopped (vk_dispatch keeps what was
 * sent). Single-threaded: one loop owns the socket and the store. */
#ifndef VK_COORD_H
#define VK_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "vc_campaign.h"
#include "vc_status.h"

typedef struct {
    const char *bind;           /* "tcp://ADDR:PORT"; port "*" picks a free one */
    const char *out_dir;        /* results.db goes there (created if missing) */
    const char *secret_file;    /* coordinator key pair (…key_secret); NULL when insecure */
    const char *allow_dir;      /* public keys of admitted agents; NULL when insecure */
    int insecure;               /* plain TCP, loopback/ipc/inproc only */
    int64_t wait_agents_ms;     /* < 0: the campaign's agent_wait */
    int64_t heartbeat_ms;       /* PING interval (1000) */
    int64_t lost_after_ms;      /* an agent silent this long is lost (10000) */
    int64_t rejoin_wait_ms;     /* at the end, how long to wait for lost agents (60000) */
    int progress_tty;           /* 1 redraw, 0 log lines, -1 auto (isatty) */
} vk_coord_opts_t;

typedef struct vk_coord vk_coord_t;

void vk_coord_opts_init(vk_coord_opts_t *o);

/* Opens the store, loads what an earlier run of the campaign left there,
 * starts authentication and binds. The campaign must outlive the coordinator.
 * Caller owns the result; NULL with a message in err on failure. */
vk_coord_t *vk_coord_new(const vk_coord_opts_t *o, const vc_campaign_t *c, char *err,
                         size_t errlen);
void vk_coord_destroy(vk_coord_t **p);

/* The endpoint actually bound (with the port chosen for "*"). */
const char *vk_coord_endpoint(const vk_coord_t *k);

/* Runs the campaign to its end. VC_OK: every step complete. VC_ERR_MISMATCH:
 * the campaign ended with incomplete or failed steps (counts in the store and
 * the log). VC_ERR_TIMEOUT: the agents did not all connect in time.
 * VC_ERR_CANCELLED: vk_coord_stop. Other codes: the store or socket failed. */
vc_status_t vk_coord_run(vk_coord_t *k);

/* Asks vk_coord_run to return. Async-signal-safe and thread-safe. */
void vk_coord_stop(vk_coord_t *k);

/* The message of the condition that ended vk_coord_run, "" when none. */
const char *vk_coord_error(const vk_coord_t *k);

#endif
