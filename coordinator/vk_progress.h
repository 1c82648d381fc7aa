/* vk_progress: the coordinator's live view of its agents. On a terminal it
 * redraws one line per agent in place (done/total, rate, errors, ETA); when
 * stderr is not a terminal (a log file, CI) it writes plain log lines at a
 * slow pace instead, so logs stay readable. */
#ifndef VK_PROGRESS_H
#define VK_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *agent;
    const char *state;  /* "idle" "running" "lost" "waiting" ... */
    const char *job;    /* job name, "" when none */
    int64_t done;       /* as the agent reports it */
    int64_t total;      /* -1 unknown */
    int64_t errors;
    int64_t stored;     /* samples stored for the current job */
    double rate;        /* samples stored per second, recent */
    const char *step;   /* the workload's own words, may be "" */
} vk_progress_row_t;

typedef struct vk_progress vk_progress_t;

/* tty: 1 redraw in place, 0 log lines, -1 decide from isatty(stderr).
 * Caller owns the result; NULL when out of memory. */
vk_progress_t *vk_progress_new(int tty);
void vk_progress_destroy(vk_progress_t **p);

/* Shows the rows if it is time to (the caller may call it often). */
void vk_progress_update(vk_progress_t *p, const vk_progress_row_t *rows, size_t n, int force);
/* Leaves the cursor below the last drawn block (before other output). */
void vk_progress_finish(vk_progress_t *p);

#endif
