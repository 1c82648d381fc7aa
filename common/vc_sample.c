/* vc_sample: the timed-operation record. */
#include "vc_sample.h"

#include <stdlib.h>
#include <string.h>

static const char *const ec_names[VC_EC_COUNT] = {
    [VC_EC_NONE] = "none",         [VC_EC_CLIENT] = "4xx",       [VC_EC_SERVER] = "5xx",
    [VC_EC_THROTTLED] = "throttled", [VC_EC_TIMEOUT] = "timeout", [VC_EC_CONNECT] = "connection",
    [VC_EC_PROTOCOL] = "protocol", [VC_EC_MISMATCH] = "mismatch", [VC_EC_OTHER] = "other",
};

const char *vc_errclass_name(vc_errclass_t ec)
{
    return (unsigned)ec < VC_EC_COUNT ? ec_names[ec] : "unknown";
}

int vc_errclass_parse(const char *name)
{
    for (int i = 0; name && i < VC_EC_COUNT; i++)
        if (strcmp(name, ec_names[i]) == 0)
            return i;
    return -1;
}

void vc_sample_init(vc_sample_t *s)
{
    memset(s, 0, sizeof *s);
    s->scale = -1;
    s->run = -1;
    s->worker = -1;
    s->duration_ns = -1;
    s->server_ns = -1;
    s->dns_us = s->connect_us = s->tls_us = s->ttfb_us = -1;
    s->keys = -1;
    s->cpu_user_us = s->cpu_sys_us = -1;
}

void vc_sample_clear(vc_sample_t *s)
{
    free(s->page);
    vc_sample_init(s);
}

vc_status_t vc_sample_copy(vc_sample_t *dst, const vc_sample_t *src)
{
    vc_page_t *pages = NULL;
    if (src->npages) {
        pages = malloc(src->npages * sizeof *pages);
        if (!pages)
            return VC_ERR_NOMEM;
        memcpy(pages, src->page, src->npages * sizeof *pages);
    }
    free(dst->page);
    *dst = *src;
    dst->page = pages;
    dst->page_cap = src->npages;
    return VC_OK;
}

vc_status_t vc_sample_add_page(vc_sample_t *s, int64_t duration_ns, int64_t keys, int64_t bytes)
{
    if (s->npages == s->page_cap) {
        uint32_t cap = s->page_cap ? s->page_cap * 2 : 8;
        vc_page_t *p = realloc(s->page, cap * sizeof *p);
        if (!p)
            return VC_ERR_NOMEM;
        s->page = p;
        s->page_cap = cap;
    }
    s->page[s->npages++] = (vc_page_t){duration_ns, keys, bytes};
    return VC_OK;
}

void vc_sample_set_str(char *field, size_t size, const char *value)
{
    if (!size)
        return;
    if (!value)
        value = "";
    size_t n = strnlen(value, size - 1);
    memcpy(field, value, n);
    field[n] = '\0';
}
