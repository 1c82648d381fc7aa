/* it_aisemu: a private AIS emulator for one integration test program, on free
 * loopback ports with its own state directory, so its fault knobs and
 * inventories never touch the shared instance tests/servers.sh starts.
 * Header-only test support (static inline), included by the C integration
 * tests that need one. */
#ifndef IT_AISEMU_H
#define IT_AISEMU_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "va_http.h"

typedef struct {
    int port, tport;  /* proxy and target ports */
    char ep[64];      /* http://127.0.0.1:PORT */
    char dir[256];    /* pid file and log */
    char env[512];    /* the ctl.sh settings for this instance */
} it_aisemu_t;

/* A loopback port nothing listens on right now, or -1. */
static inline int it_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) ||
        getsockname(fd, (struct sockaddr *)&a, &al)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

/* Runs tests/ais_emulator/ctl.sh CMD for this instance; its exit status. */
static inline int it_aisemu_ctl_sh(const it_aisemu_t *e, const char *cmd)
{
    const char *src = getenv("VANTAGE_SRC");
    char line[1024];
    snprintf(line, sizeof line, "%s bash '%s/tests/ais_emulator/ctl.sh' %s", e->env,
             src ? src : ".", cmd);
    return system(line);
}

/* Starts an instance (state under /tmp/vantage-TAG-it-PID); 0 when it answers. */
static inline int it_aisemu_start(it_aisemu_t *e, const char *tag)
{
    memset(e, 0, sizeof *e);
    e->port = it_free_port();
    e->tport = it_free_port();
    snprintf(e->dir, sizeof e->dir, "/tmp/vantage-%s-it-%d", tag, (int)getpid());
    snprintf(e->env, sizeof e->env,
             "VANTAGE_AISEMU_PORT=%d VANTAGE_AISEMU_TARGET_PORT=%d VANTAGE_AISEMU_DIR='%s'",
             e->port, e->tport, e->dir);
    snprintf(e->ep, sizeof e->ep, "http://127.0.0.1:%d", e->port);
    if (e->port < 0 || e->tport < 0 || e->port == e->tport || it_aisemu_ctl_sh(e, "start") != 0) {
        fprintf(stderr, "cannot start a private AIS emulator on ports %d/%d\n", e->port, e->tport);
        return -1;
    }
    return 0;
}

/* Stops the instance and removes its state directory. */
static inline void it_aisemu_stop(const it_aisemu_t *e)
{
    it_aisemu_ctl_sh(e, "stop");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", e->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", e->dir);
}

/* METHOD /emulator/WHAT (outside the AIS API) with an optional JSON body;
 * fails the test unless it answers 200. Returns the reply body (static). */
static inline const char *it_aisemu_control(const it_aisemu_t *e, const char *method,
                                            const char *what, const char *json)
{
    static char body[65536];
    va_http_t *h = va_http_new(NULL);
    char url[256];
    snprintf(url, sizeof url, "%s/emulator/%s", e->ep, what);
    const char *hdr[] = {"Content-Type: application/json", NULL};
    va_http_req_t req = {.method = method, .url = url, .headers = hdr, .body = json,
                         .body_len = json ? strlen(json) : 0};
    va_http_resp_t r;
    vc_status_t rc = va_http_do(h, &req, &r);
    if (rc || r.status != 200)
        fail_msg("emulator control %s %s failed: %s %ld %s", method, what, r.error, r.status,
                 r.body ? r.body : "");
    snprintf(body, sizeof body, "%s", r.body ? r.body : "");
    va_http_destroy(&h);
    return body;
}

#endif
