/* vc_diag: config error messages collected in order. Messages are capped in
 * number so that a file of garbage cannot make the list grow without end. */
#include "vc_diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_MAX 500
#define DIAG_MSG_MAX 1024

struct vc_diag_s {
    char **msgs;
    size_t n, cap;
    size_t dropped;
};

vc_diag_t *vc_diag_new(void)
{
    return calloc(1, sizeof(vc_diag_t));
}

void vc_diag_clear(vc_diag_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    d->n = 0;
    d->dropped = 0;
}

void vc_diag_destroy(vc_diag_t **p)
{
    if (!p || !*p)
        return;
    vc_diag_clear(*p);
    free((*p)->msgs);
    free(*p);
    *p = NULL;
}

void vc_diag_add(vc_diag_t *d, const char *file, int line, const char *path, const char *fmt, ...)
{
    if (!d)
        return;
    if (d->n >= DIAG_MAX) {
        d->dropped++;
        return;
    }
    char buf[DIAG_MSG_MAX];
    size_t off = 0;
    if (file && *file)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s:", file);
    if (line > 0 && off < sizeof buf)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%d:", line);
    if (off > 0 && off < sizeof buf)
        off += (size_t)snprintf(buf + off, sizeof buf - off, " ");
    if (path && *path && off < sizeof buf)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s: ", path);
    if (off < sizeof buf) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf + off, sizeof buf - off, fmt, ap);
        va_end(ap);
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        char **m = realloc(d->msgs, cap * sizeof *m);
        if (!m) {
            d->dropped++;
            return;
        }
        d->msgs = m;
        d->cap = cap;
    }
    char *copy = strdup(buf);
    if (!copy) {
        d->dropped++;
        return;
    }
    d->msgs[d->n++] = copy;
}

size_t vc_diag_count(const vc_diag_t *d)
{
    return d ? d->n + d->dropped : 0;
}

const char *vc_diag_get(const vc_diag_t *d, size_t i)
{
    return d && i < d->n ? d->msgs[i] : NULL;
}

void vc_diag_print(const vc_diag_t *d, FILE *out)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        fprintf(out, "%s\n", d->msgs[i]);
    if (d->dropped)
        fprintf(out, "(%zu more errors not shown)\n", d->dropped);
}
