/* le_proxy: the emulator itself. One thread, one epoll loop: it listens on
 * one or more local addresses, connects each accepted client to its
 * upstream, and moves bytes through two le_link lanes (up and down) shared
 * by all connections, so that the process behaves as one access link.
 * Buffers are bounded per connection and direction (reading stops when
 * full); FIN and RST travel through the delay line after the data before
 * them. The link can be dropped (connections reset, new ones reset on
 * accept) or stalled (nothing crosses) and restored, from SIGUSR1/SIGUSR2 or
 * a control socket. */
#ifndef LE_PROXY_H
#define LE_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "le_conf.h"
#include "vc_status.h"

#define LE_MAX_PAIRS 8

typedef enum { LE_DROP_RESET = 0, LE_DROP_STALL = 1 } le_drop_mode_t;

typedef struct {
    le_profile_t profile;
    size_t npairs;
    const char *listen[LE_MAX_PAIRS];   /* HOST:PORT or [V6]:PORT; port 0 = any */
    const char *upstream[LE_MAX_PAIRS]; /* HOST:PORT, resolved once at start */
    const char *control_path;           /* unix socket for commands, or NULL */
    const char *netns;                  /* bind the listeners in this network namespace
                                           (name under /var/run/netns, or a path); NULL:
                                           our own. Upstreams are always reached from ours. */
    uint64_t seed;                      /* jitter sequence */
    int max_conns;                      /* accepted connections alive at once */
    le_drop_mode_t sig_mode;            /* what SIGUSR1 does */
    double sig_seconds;                 /* SIGUSR1 drop length; 0 = until SIGUSR2 */
} le_proxy_opts_t;

typedef struct le_proxy le_proxy_t;

/* Binds every listener (and the control socket) and resolves upstreams;
 * blocks SIGUSR1, SIGUSR2, SIGTERM, SIGINT for the calling thread, which
 * then receives them through the loop. Caller owns the result; NULL with
 * err filled on failure. */
le_proxy_t *le_proxy_new(const le_proxy_opts_t *o, char *err, size_t errlen);

/* Closes everything, resets connections still open, removes the control socket. */
void le_proxy_destroy(le_proxy_t **p);

/* "ready ADDR:PORT[ ADDR:PORT...]": the bound listen addresses in order. */
void le_proxy_ready_line(const le_proxy_t *p, char *buf, size_t len);

/* Runs until SIGTERM or SIGINT. VC_ERR_IO if the loop itself fails. */
vc_status_t le_proxy_run(le_proxy_t *p);

/* Executes one control command ("down [reset|stall] [SECONDS]", "up",
 * "status") and writes the one-line answer ("ok ..." or "error: ...")
 * into reply. Used by the control socket; callable directly by tests. */
void le_proxy_command(le_proxy_t *p, const char *line, char *reply, size_t len);

#endif
