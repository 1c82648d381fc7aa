/* vc_diag: a list of error messages about a config file, so that a loader
 * can report every problem it finds in one pass instead of stopping at the
 * first. Each message reads "FILE:LINE: PATH: TEXT" where PATH is the
 * setting path (jobs.[2].paths) and LINE 0 means "no line" (left out). */
#ifndef VC_DIAG_H
#define VC_DIAG_H

#include <stddef.h>
#include <stdio.h>

typedef struct vc_diag_s vc_diag_t;

/* Caller owns the result; NULL when out of memory. */
vc_diag_t *vc_diag_new(void);
void vc_diag_destroy(vc_diag_t **p);

/* Adds one message; file, path may be NULL or empty, line <= 0 for none. */
void vc_diag_add(vc_diag_t *d, const char *file, int line, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Messages added, counting those dropped past the cap (500) that keeps a
 * file of garbage from growing the list without end. */
size_t vc_diag_count(const vc_diag_t *d);
/* The i-th message (0-based), in the order added; NULL when out of range
 * or dropped. */
const char *vc_diag_get(const vc_diag_t *d, size_t i);
/* Prints every message, one per line. */
void vc_diag_print(const vc_diag_t *d, FILE *out);
void vc_diag_clear(vc_diag_t *d);

#endif
