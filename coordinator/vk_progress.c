/* vk_progress: in-place terminal table or periodic log lines.
 * On a terminal the table stays at the bottom while log lines scroll above
 * it: stderr is redirected into a pipe that each update drains, writing the
 * lines to the terminal above a freshly redrawn table. Without that, a log
 * line written between two redraws would be overwritten by the next one. */
#include "vk_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vc_clock.h"
#include "vc_log.h"

struct vk_progress {
    int tty;
    int term;     /* the terminal (a dup of the original stderr), -1 when not redirected */
    int logs;     /* read end of the pipe that stderr now writes to */
    size_t drawn; /* lines of the last block */
    vc_mono_ns_t last;
};

static void put(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void putf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(int fd, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

vk_progress_t *vk_progress_new(int tty)
{
    vk_progress_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->tty = tty < 0 ? isatty(STDERR_FILENO) : tty;
    p->term = p->logs = -1;
    if (!p->tty)
        return p;
    int fds[2];
    p->term = dup(STDERR_FILENO);
    if (p->term < 0 || pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        /* No redirection: the table is still drawn, logs may break it. */
        if (p->term >= 0)
            close(p->term);
        p->term = -1;
        return p;
    }
    fcntl(p->term, F_SETFD, FD_CLOEXEC);
    /* Room for bursts of log lines between two updates; when it is full,
     * lines are dropped rather than blocking the coordinator. */
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    p->logs = fds[0];
    return p;
}

/* Writes the waiting log lines to the terminal; 1 when there were any. */
static int drain_logs(vk_progress_t *p)
{
    if (p->logs < 0)
        return 0;
    char buf[8192];
    int any = 0;
    ssize_t n;
    while ((n = read(p->logs, buf, sizeof buf)) > 0) {
        if (!any && p->drawn) {
            putf(p->term, "\033[%zuA\r\033[J", p->drawn); /* erase the table first */
            p->drawn = 0;
        }
        any = 1;
        put(p->term, buf, (size_t)n);
    }
    return any;
}

static void restore(vk_progress_t *p)
{
    if (p->term < 0)
        return;
    dup2(p->term, STDERR_FILENO);
    drain_logs(p); /* what was written before the switch back */
    close(p->logs);
    close(p->term);
    p->logs = p->term = -1;
}

void vk_progress_destroy(vk_progress_t **p)
{
    if (!p || !*p)
        return;
    restore(*p);
    free(*p);
    *p = NULL;
}

static void eta(char *buf, size_t len, const vk_progress_row_t *r)
{
    if (r->total <= 0 || r->done >= r->total || r->rate <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    double s = (double)(r->total - r->done) / r->rate;
    if (s >= 3600)
        snprintf(buf, len, "%.0fh%02.0fm", s / 3600, (double)((int64_t)s % 3600) / 60);
    else if (s >= 60)
        snprintf(buf, len, "%.0fm%02.0fs", s / 60, (double)((int64_t)s % 60));
    else
        snprintf(buf, len, "%.0fs", s);
}

void vk_progress_update(vk_progress_t *p, const vk_progress_row_t *rows, size_t n, int force)
{
    vc_mono_ns_t now = vc_mono_now();
    if (p->tty && drain_logs(p))
        force = 1;
    int64_t every = p->tty ? 250 * VC_NS_PER_MS : 10 * VC_NS_PER_S;
    if (!force && now - p->last < every)
        return;
    p->last = now;
    char e[32], tot[32];
    if (!p->tty) {
        for (size_t i = 0; i < n; i++) {
            const vk_progress_row_t *r = &rows[i];
            eta(e, sizeof e, r);
            snprintf(tot, sizeof tot, "%lld", (long long)r->total);
            vc_info("progress", "%s: %s %s %lld/%s stored %lld, %.0f/s, %lld errors, ETA %s%s%s",
                    r->agent, r->state, r->job, (long long)r->done, r->total < 0 ? "?" : tot,
                    (long long)r->stored, r->rate, (long long)r->errors, e,
                    r->step[0] ? ", " : "", r->step);
        }
        return;
    }
    int fd = p->term >= 0 ? p->term : STDERR_FILENO;
    if (p->drawn)
        putf(fd, "\033[%zuA", p->drawn);
    putf(fd, "\r\033[K%-16s %-10s %-14s %21s %12s %10s %7s %8s\n", "agent", "state", "job",
         "done/total", "stored", "rate/s", "errors", "ETA");
    for (size_t i = 0; i < n; i++) {
        const vk_progress_row_t *r = &rows[i];
        eta(e, sizeof e, r);
        char dt[48];
        if (r->total >= 0)
            snprintf(dt, sizeof dt, "%lld/%lld", (long long)r->done, (long long)r->total);
        else
            snprintf(dt, sizeof dt, "%lld/?", (long long)r->done);
        putf(fd, "\r\033[K%-16.16s %-10.10s %-14.14s %21s %12lld %10.0f %7lld %8s\n", r->agent,
             r->state, r->job, dt, (long long)r->stored, r->rate, (long long)r->errors, e);
    }
    p->drawn = n + 1;
}

void vk_progress_finish(vk_progress_t *p)
{
    if (!p)
        return;
    drain_logs(p);
    restore(p);
    p->drawn = 0;
}
