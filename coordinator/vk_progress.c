/* vk_progress: in-place terminal table or periodic log lines. */
#include "vk_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vc_clock.h"
#include "vc_log.h"

struct vk_progress {
    int tty;
    size_t drawn; /* lines of the last block */
    vc_mono_ns_t last;
};

vk_progress_t *vk_progress_new(int tty)
{
    vk_progress_t *p = calloc(1, sizeof *p);
    if (p)
        p->tty = tty < 0 ? isatty(STDERR_FILENO) : tty;
    return p;
}

void vk_progress_destroy(vk_progress_t **p)
{
    if (!p || !*p)
        return;
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
    int64_t every = p->tty ? 250 * VC_NS_PER_MS : 10 * VC_NS_PER_S;
    if (!force && now - p->last < every)
        return;
    p->last = now;
    char line[512], e[32], tot[32];
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
    /* Move up over the previous block and redraw it. */
    if (p->drawn)
        fprintf(stderr, "\033[%zuA", p->drawn);
    fprintf(stderr, "\r\033[K%-16s %-10s %-14s %21s %12s %10s %7s %8s\n", "agent", "state", "job",
            "done/total", "stored", "rate/s", "errors", "ETA");
    for (size_t i = 0; i < n; i++) {
        const vk_progress_row_t *r = &rows[i];
        eta(e, sizeof e, r);
        char dt[48];
        if (r->total >= 0)
            snprintf(dt, sizeof dt, "%lld/%lld", (long long)r->done, (long long)r->total);
        else
            snprintf(dt, sizeof dt, "%lld/?", (long long)r->done);
        snprintf(line, sizeof line, "%-16.16s %-10.10s %-14.14s %21s %12lld %10.0f %7lld %8s",
                 r->agent, r->state, r->job, dt, (long long)r->stored, r->rate,
                 (long long)r->errors, e);
        fprintf(stderr, "\r\033[K%s\n", line);
    }
    fflush(stderr);
    p->drawn = n + 1;
}

void vk_progress_finish(vk_progress_t *p)
{
    if (p)
        p->drawn = 0;
}
