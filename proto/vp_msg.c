/* vp_msg: encoding and validating decoding of protocol messages.
 *
 * Every message body, the job spec inside JOB and the sample record are
 * described by field tables (key, kind, where in the struct, limits). One
 * table walk encodes, another decodes and validates, so the encoder refuses
 * exactly what the decoder would reject and a field is described once.
 * Bodies are maps keyed by name (unknown keys ignored: forward compatible);
 * a sample is an array in table order (compact: no names per sample), with
 * extra trailing elements ignored for the same reason.
 *
 * Before msgpack_unpack builds its object tree, a linear pre-scan checks
 * that every container's announced element count fits in the bytes that are
 * left: msgpack-c allocates an array's elements as soon as it reads the
 * header, so a 5-byte message announcing 4 billion elements would otherwise
 * ask for ~100 GB. */
#include "vp_msg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vc_log.h"

/* ---------------------------------------------------------------- tables */

typedef enum {
    K_INT,     /* signed integer stored in size bytes (4 or 8) */
    K_UINT,    /* unsigned integer stored in size bytes (4 or 8) */
    K_STR,     /* char[size], NUL-terminated */
    K_BOOL,    /* int, encoded as msgpack bool */
    K_ENUM,    /* int-sized enum, encoded as its name */
    K_OBJ,     /* nested struct described by sub (a map) */
    K_ARR,     /* array of structs described by sub, each a map */
    K_STRARR,  /* char[max][size] with a uint32/int count */
    K_ENUMARR, /* int-sized enums array with a count, encoded as names */
    K_FLAGS,   /* unsigned bit set, encoded as an array of names (bit i = names(i)) */
    K_SAMPLES, /* the SAMPLES batch (custom) */
    K_PAGES,   /* a sample's page list, flat [duration, keys, bytes, ...] (custom) */
} kind_t;

enum { F_REQ = 1, F_NONEMPTY = 2 };

typedef const char *(*name_fn)(int);

typedef struct field field_t;
typedef struct {
    const field_t *fields;
    size_t nfields;
    size_t elem_size; /* K_ARR: size of one element */
} table_t;

struct field {
    const char *key;
    kind_t kind;
    unsigned flags;
    size_t off;       /* of the value (array's first element for arrays) */
    size_t size;      /* storage size of one value (string capacity for strings) */
    int64_t min, max; /* K_INT; K_UINT uses min and umax */
    uint64_t umax;
    name_fn names;    /* K_ENUM, K_ENUMARR, K_FLAGS */
    int nnames;
    const table_t *sub; /* K_OBJ, K_ARR */
    size_t count_off;   /* arrays: the uint32/int count; K_OBJ: int presence flag if has_presence */
    int has_presence;
    uint32_t maxcount;  /* arrays */
};

#define FSTR(s, m, fl) {.key = #m, .kind = K_STR, .flags = (fl), .off = offsetof(s, m), .size = sizeof(((s *)0)->m)}
#define FINT(s, m, fl, lo, hi) {.key = #m, .kind = K_INT, .flags = (fl), .off = offsetof(s, m), .size = sizeof(((s *)0)->m), .min = (lo), .max = (hi)}
#define FUINT(s, m, fl, lo, hi) {.key = #m, .kind = K_UINT, .flags = (fl), .off = offsetof(s, m), .size = sizeof(((s *)0)->m), .min = (lo), .umax = (hi)}
#define FBOOL(s, m, fl) {.key = #m, .kind = K_BOOL, .flags = (fl), .off = offsetof(s, m), .size = sizeof(int)}
#define FENUM(s, m, fl, fn, n) {.key = #m, .kind = K_ENUM, .flags = (fl), .off = offsetof(s, m), .size = sizeof(int), .names = (fn), .nnames = (n)}
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(vc_workload_t) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(vp_job_status_t) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(vc_errclass_t) == sizeof(int), "enums are stored as int");

#define I32MAX INT32_MAX
#define I64MAX INT64_MAX
#define I64MIN INT64_MIN
#define U32MAX UINT32_MAX
#define U64MAX UINT64_MAX

/* Names of enums that have no name function elsewhere. */
static const char *tk_name(int v)
{
    static const char *const n[] = {"s3", "ais"};
    return v >= 0 && v < 2 ? n[v] : NULL;
}
static const char *addr_name(int v)
{
    static const char *const n[] = {"path", "virtual"};
    return v >= 0 && v < 2 ? n[v] : NULL;
}
static const char *path_name(int v)
{
    /* bit i of vc_job_t.paths; the same words as the samples' op */
    static const char *const n[] = {"ais-regular", "ais-nbi", "s3-direct"};
    return v >= 0 && v < 3 ? n[v] : NULL;
}
static const char *wl_name(int v)
{
    return v >= 0 && v < VC_WL_COUNT ? vc_workload_name((vc_workload_t)v) : NULL;
}
static const char *op_name(int v)
{
    return v >= 0 && v < VC_OP_COUNT ? vc_op_name((vc_op_t)v) : NULL;
}

const char *vp_job_status_name(int status)
{
    static const char *const n[VP_JOB_STATUS_END] = {"ok", "failed", "cancelled", "interrupted"};
    return status >= 0 && status < VP_JOB_STATUS_END ? n[status] : "unknown";
}
static const char *job_status_name(int v)
{
    return v >= 0 && v < VP_JOB_STATUS_END ? vp_job_status_name(v) : NULL;
}

const char *vp_resume_state_name(int state)
{
    static const char *const n[VP_RJ_STATE_END] = {"running", "finished", "interrupted"};
    return state >= 0 && state < VP_RJ_STATE_END ? n[state] : "unknown";
}
static const char *resume_state_name(int v)
{
    return v >= 0 && v < VP_RJ_STATE_END ? vp_resume_state_name(v) : NULL;
}

/* vc_target_t */
static const field_t target_fields[] = {
    FSTR(vc_target_t, name, 0),
    FENUM(vc_target_t, kind, 0, tk_name, 2),
    FSTR(vc_target_t, endpoint, 0),
    FSTR(vc_target_t, bucket, 0),
    FSTR(vc_target_t, provider, 0),
    FSTR(vc_target_t, region, 0),
    FENUM(vc_target_t, addressing, 0, addr_name, 2),
    FBOOL(vc_target_t, verify_tls, 0),
};
static const table_t target_table = {target_fields, NFIELDS(target_fields), sizeof(vc_target_t)};

static const field_t scale_fields[] = {
    FSTR(vc_scale_point_t, label, F_REQ | F_NONEMPTY),
    FSTR(vc_scale_point_t, prefix, F_REQ),
    FINT(vc_scale_point_t, count, F_REQ, 0, INT64_C(1000000000000)),
};
static const table_t scale_table = {scale_fields, NFIELDS(scale_fields), sizeof(vc_scale_point_t)};

#define DAY_MS INT64_C(86400000)
/* vc_job_t: only id, kind and target are required; anything else missing
 * keeps vc_job_init's default for the kind, so a newer coordinator can add
 * options and an older one can omit them. */
static const field_t job_fields[] = {
    FSTR(vc_job_t, id, F_REQ | F_NONEMPTY),
    FENUM(vc_job_t, kind, F_REQ, wl_name, VC_WL_COUNT),
    {.key = "target", .kind = K_OBJ, .flags = F_REQ, .off = offsetof(vc_job_t, target), .sub = &target_table},
    {.key = "direct", .kind = K_OBJ, .off = offsetof(vc_job_t, direct), .sub = &target_table,
     .has_presence = 1, .count_off = offsetof(vc_job_t, has_direct)},
    FINT(vc_job_t, start_at, 0, 0, I64MAX),
    FINT(vc_job_t, workers, 0, 1, 4096),
    FINT(vc_job_t, runs, 0, 0, 1000000),
    FINT(vc_job_t, timeout_ms, 0, 1, DAY_MS),
    FINT(vc_job_t, page_size, 0, 1, 100000),
    FSTR(vc_job_t, prefix, 0),
    FINT(vc_job_t, count, 0, 0, INT64_C(1000000000000)),
    FINT(vc_job_t, object_size, 0, 0, INT64_C(5) << 40),
    FBOOL(vc_job_t, sequential_names, 0),
    {.key = "scale", .kind = K_ARR, .off = offsetof(vc_job_t, scale), .sub = &scale_table,
     .count_off = offsetof(vc_job_t, nscale), .maxcount = VC_MAX_SCALE_POINTS},
    {.key = "paths", .kind = K_FLAGS, .off = offsetof(vc_job_t, paths), .size = sizeof(unsigned),
     .names = path_name, .nnames = 3},
    FINT(vc_job_t, nbi_poll_ms, 0, 1, DAY_MS),
    FINT(vc_job_t, nbi_timeout_ms, 0, 1, 7 * DAY_MS),
    FBOOL(vc_job_t, warmup, 0),
    FINT(vc_job_t, iterations, 0, 0, 1000000000),
    {.key = "ops", .kind = K_ENUMARR, .off = offsetof(vc_job_t, ops), .size = sizeof(int),
     .names = op_name, .nnames = VC_OP_COUNT, .count_off = offsetof(vc_job_t, nops),
     .maxcount = VC_MAX_OPS},
    FSTR(vc_job_t, key_prefix, 0),
    FSTR(vc_job_t, upload_file, 0),
    FINT(vc_job_t, probe_count, 0, 0, 1000000000),
    FINT(vc_job_t, probe_interval_ms, 0, 0, DAY_MS),
    FBOOL(vc_job_t, verify_count, 0),
    FBOOL(vc_job_t, nbi_create, 0),
    FBOOL(vc_job_t, nbi_destroy, 0),
    FBOOL(vc_job_t, interleave, 0),
    FINT(vc_job_t, run_first, 0, 0, 1000000000),
    FINT(vc_job_t, slice, 0, 0, 1000000000),
};
static const table_t job_table = {job_fields, NFIELDS(job_fields), sizeof(vc_job_t)};

/* The sample record, positional: this order IS the wire format
 * (PROTOCOL.md "Sample record"); append new fields at the end only. */
static const field_t sample_fields[] = {
    FSTR(vc_sample_t, op, F_REQ | F_NONEMPTY),
    FSTR(vc_sample_t, label, F_REQ),
    FINT(vc_sample_t, scale, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, run, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, worker, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, start_wall_ns, F_REQ, I64MIN, I64MAX),
    FINT(vc_sample_t, duration_ns, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, server_ns, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, dns_us, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, connect_us, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, tls_us, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, ttfb_us, F_REQ, -1, I32MAX),
    FINT(vc_sample_t, bytes_sent, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, bytes_recv, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, pages, F_REQ, 0, I32MAX),
    FINT(vc_sample_t, keys, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, http_status, F_REQ, 0, 999),
    FINT(vc_sample_t, retries, F_REQ, 0, I32MAX),
    FINT(vc_sample_t, err_class, F_REQ, 0, VC_EC_COUNT - 1),
    FSTR(vc_sample_t, err_code, F_REQ),
    FSTR(vc_sample_t, err_msg, F_REQ),
    FINT(vc_sample_t, cpu_user_us, F_REQ, -1, I64MAX),
    FINT(vc_sample_t, cpu_sys_us, F_REQ, -1, I64MAX),
    FUINT(vc_sample_t, flags, F_REQ, 0, U32MAX),
    {.key = "page", .kind = K_PAGES, .flags = F_REQ},
};
static const table_t sample_table = {sample_fields, NFIELDS(sample_fields), sizeof(vc_sample_t)};

static const field_t resume_fields[] = {
    FUINT(vp_resume_t, job_id, F_REQ, 1, U64MAX),
    FUINT(vp_resume_t, next_seq, F_REQ, 1, U64MAX),
    FUINT(vp_resume_t, acked_seq, F_REQ, 0, U64MAX),
    FENUM(vp_resume_t, state, F_REQ, resume_state_name, VP_RJ_STATE_END),
};
static const table_t resume_table = {resume_fields, NFIELDS(resume_fields), sizeof(vp_resume_t)};

static const field_t ack_fields[] = {
    FUINT(vp_ack_t, job_id, F_REQ, 1, U64MAX),
    FUINT(vp_ack_t, seq, F_REQ, 0, U64MAX),
};
static const table_t ack_table = {ack_fields, NFIELDS(ack_fields), sizeof(vp_ack_t)};

static const field_t hello_fields[] = {
    FSTR(vp_hello_t, name, F_REQ | F_NONEMPTY),
    FSTR(vp_hello_t, site, F_REQ),
    FSTR(vp_hello_t, version, F_REQ | F_NONEMPTY),
    FUINT(vp_hello_t, proto_minor, F_REQ, 0, U32MAX),
    FSTR(vp_hello_t, hostname, F_REQ | F_NONEMPTY),
    FSTR(vp_hello_t, os, F_REQ),
    FINT(vp_hello_t, cpus, F_REQ, 1, 65536),
    FSTR(vp_hello_t, public_ip, 0),
    {.key = "caps", .kind = K_STRARR, .off = offsetof(vp_hello_t, caps), .size = VP_CAP_LEN + 1,
     .count_off = offsetof(vp_hello_t, ncaps), .maxcount = VP_MAX_CAPS},
    FINT(vp_hello_t, wall_ns, F_REQ, I64MIN, I64MAX),
    {.key = "resume", .kind = K_ARR, .off = offsetof(vp_hello_t, resume), .sub = &resume_table,
     .count_off = offsetof(vp_hello_t, nresume), .maxcount = VP_MAX_RESUME},
};

static const field_t welcome_fields[] = {
    FSTR(vp_welcome_t, version, F_REQ | F_NONEMPTY),
    FUINT(vp_welcome_t, proto_minor, F_REQ, 0, U32MAX),
    FINT(vp_welcome_t, heartbeat_ms, F_REQ, 1, 3600000),
    FINT(vp_welcome_t, wall_ns, F_REQ, I64MIN, I64MAX),
    {.key = "acks", .kind = K_ARR, .off = offsetof(vp_welcome_t, acks), .sub = &ack_table,
     .count_off = offsetof(vp_welcome_t, nacks), .maxcount = VP_MAX_RESUME},
};

static const field_t reason_fields[] = {
    FSTR(vp_reason_t, reason, F_REQ | F_NONEMPTY),
};

static const field_t ping_fields[] = {
    FINT(vp_ping_t, t1, F_REQ, I64MIN, I64MAX),
};

static const field_t pong_fields[] = {
    FINT(vp_pong_t, t1, F_REQ, I64MIN, I64MAX),
    FINT(vp_pong_t, t2, F_REQ, I64MIN, I64MAX),
    FINT(vp_pong_t, t3, F_REQ, I64MIN, I64MAX),
};

static const field_t jobmsg_fields[] = {
    FSTR(vp_job_msg_t, campaign, F_REQ | F_NONEMPTY),
    FUINT(vp_job_msg_t, job_id, F_REQ, 1, U64MAX),
    FINT(vp_job_msg_t, start_at, F_REQ, 0, I64MAX),
    {.key = "job", .kind = K_OBJ, .flags = F_REQ, .off = offsetof(vp_job_msg_t, job), .sub = &job_table},
};

static const field_t progress_fields[] = {
    FUINT(vp_progress_t, job_id, F_REQ, 1, U64MAX),
    FINT(vp_progress_t, done, F_REQ, 0, I64MAX),
    FINT(vp_progress_t, total, F_REQ, -1, I64MAX),
    FINT(vp_progress_t, errors, F_REQ, 0, I64MAX),
    FSTR(vp_progress_t, step, 0),
};

static const field_t samples_fields[] = {
    FUINT(vp_samples_t, job_id, F_REQ, 1, U64MAX),
    FUINT(vp_samples_t, first_seq, F_REQ, 1, U64MAX),
    {.key = "samples", .kind = K_SAMPLES, .flags = F_REQ},
};

static const field_t ackmsg_fields[] = {
    FUINT(vp_ack_msg_t, job_id, F_REQ, 1, U64MAX),
    FUINT(vp_ack_msg_t, seq, F_REQ, 0, U64MAX),
};

static const field_t done_fields[] = {
    FUINT(vp_done_t, job_id, F_REQ, 1, U64MAX),
    FENUM(vp_done_t, status, F_REQ, job_status_name, VP_JOB_STATUS_END),
    FSTR(vp_done_t, error, 0),
    FINT(vp_done_t, samples, F_REQ, 0, I64MAX),
    FINT(vp_done_t, errors, F_REQ, 0, I64MAX),
};

static const field_t cancel_fields[] = {
    FUINT(vp_cancel_t, job_id, F_REQ, 1, U64MAX),
};

#define TBL(a) {a, NFIELDS(a), 0}
static const struct {
    const char *name;
    table_t body;
} types[VP_TYPE_END] = {
    [VP_HELLO] = {"HELLO", TBL(hello_fields)},
    [VP_WELCOME] = {"WELCOME", TBL(welcome_fields)},
    [VP_REJECT] = {"REJECT", TBL(reason_fields)},
    [VP_PING] = {"PING", TBL(ping_fields)},
    [VP_PONG] = {"PONG", TBL(pong_fields)},
    [VP_JOB] = {"JOB", TBL(jobmsg_fields)},
    [VP_PROGRESS] = {"PROGRESS", TBL(progress_fields)},
    [VP_SAMPLES] = {"SAMPLES", TBL(samples_fields)},
    [VP_ACK] = {"ACK", TBL(ackmsg_fields)},
    [VP_DONE] = {"DONE", TBL(done_fields)},
    [VP_CANCEL] = {"CANCEL", TBL(cancel_fields)},
    [VP_BYE] = {"BYE", TBL(reason_fields)},
};

const char *vp_msg_type_name(int type)
{
    return type >= VP_HELLO && type < VP_TYPE_END ? types[type].name : "unknown";
}

/* ------------------------------------------------------- init and clear */

void vp_msg_init(vp_msg_t *m, vp_type_t type)
{
    memset(m, 0, sizeof *m);
    m->type = type;
    if (type == VP_PROGRESS)
        m->u.progress.total = -1;
    if (type == VP_JOB)
        vc_job_init(&m->u.job.job, VC_WL_NULL);
}

void vp_msg_clear(vp_msg_t *m)
{
    if (m->type == VP_SAMPLES && m->u.samples.samples) {
        for (uint32_t i = 0; i < m->u.samples.nsamples; i++)
            free(m->u.samples.samples[i].page);
        free(m->u.samples.samples);
    }
    vp_msg_init(m, m->type);
}

/* ------------------------------------------------------------- encoding */

/* Reading and writing integers of the struct by their declared size. */
static int64_t load_int(const void *p, size_t size)
{
    if (size == 8) {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint64_t load_uint(const void *p, size_t size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static void store_int(void *p, size_t size, int64_t v)
{
    if (size == 8) {
        memcpy(p, &v, 8);
    } else {
        int32_t w = (int32_t)v;
        memcpy(p, &w, 4);
    }
}
static void store_uint(void *p, size_t size, uint64_t v)
{
    if (size == 8) {
        memcpy(p, &v, 8);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    }
}

typedef struct {
    msgpack_packer pk;
    const char *msg;   /* message name for error logs */
    const vp_msg_t *m; /* for SAMPLES */
} enc_t;

static vc_status_t enc_bad(const enc_t *e, const field_t *f, const char *why)
{
    vc_error("proto", "cannot encode %s: field %s %s", e->msg, f->key, why);
    return VC_ERR_ARG;
}

static int pk_str(msgpack_packer *pk, const char *s, size_t len)
{
    return msgpack_pack_str(pk, len) || msgpack_pack_str_body(pk, s, len);
}

static vc_status_t enc_table(enc_t *e, const table_t *t, const void *base, int positional);

static vc_status_t enc_samples(enc_t *e, const field_t *f)
{
    const vp_samples_t *s = &e->m->u.samples;
    if (s->nsamples < 1 || s->nsamples > VP_MAX_SAMPLES || !s->samples)
        return enc_bad(e, f, "must hold 1 to VP_MAX_SAMPLES samples");
    if (s->first_seq > UINT64_MAX - s->nsamples)
        return enc_bad(e, f, "seq range overflows");
    if (msgpack_pack_array(&e->pk, s->nsamples))
        return VC_ERR_NOMEM;
    for (uint32_t i = 0; i < s->nsamples; i++) {
        vc_status_t rc = enc_table(e, &sample_table, &s->samples[i], 1);
        if (rc)
            return rc;
    }
    return VC_OK;
}

static vc_status_t enc_pages(enc_t *e, const field_t *f, const vc_sample_t *s)
{
    if (s->npages > VP_MAX_PAGES || (s->npages && !s->page))
        return enc_bad(e, f, "has more than VP_MAX_PAGES pages");
    if (msgpack_pack_array(&e->pk, 3 * s->npages))
        return VC_ERR_NOMEM;
    for (uint32_t i = 0; i < s->npages; i++) {
        const vc_page_t *p = &s->page[i];
        if (p->duration_ns < -1 || p->keys < -1 || p->bytes < -1)
            return enc_bad(e, f, "has a value below -1");
        if (msgpack_pack_int64(&e->pk, p->duration_ns) || msgpack_pack_int64(&e->pk, p->keys) ||
            msgpack_pack_int64(&e->pk, p->bytes))
            return VC_ERR_NOMEM;
    }
    return VC_OK;
}

static vc_status_t enc_field(enc_t *e, const field_t *f, const void *base)
{
    const char *p = (const char *)base + f->off;
    msgpack_packer *pk = &e->pk;
    switch (f->kind) {
    case K_INT: {
        int64_t v = load_int(p, f->size);
        if (v < f->min || v > f->max)
            return enc_bad(e, f, "is out of range");
        return msgpack_pack_int64(pk, v) ? VC_ERR_NOMEM : VC_OK;
    }
    case K_UINT: {
        uint64_t v = load_uint(p, f->size);
        if (v < (uint64_t)f->min || v > f->umax)
            return enc_bad(e, f, "is out of range");
        return msgpack_pack_uint64(pk, v) ? VC_ERR_NOMEM : VC_OK;
    }
    case K_STR: {
        size_t n = strnlen(p, f->size);
        if (n == f->size)
            return enc_bad(e, f, "is not NUL-terminated");
        if (!n && (f->flags & F_NONEMPTY))
            return enc_bad(e, f, "is empty");
        return pk_str(pk, p, n) ? VC_ERR_NOMEM : VC_OK;
    }
    case K_BOOL:
        return (load_int(p, sizeof(int)) ? msgpack_pack_true(pk) : msgpack_pack_false(pk))
                   ? VC_ERR_NOMEM
                   : VC_OK;
    case K_ENUM: {
        const char *name = f->names((int)load_int(p, sizeof(int)));
        if (!name)
            return enc_bad(e, f, "has an unknown value");
        return pk_str(pk, name, strlen(name)) ? VC_ERR_NOMEM : VC_OK;
    }
    case K_OBJ:
        return enc_table(e, f->sub, p, 0);
    case K_ARR:
    case K_STRARR:
    case K_ENUMARR: {
        uint32_t n = (uint32_t)load_uint((const char *)base + f->count_off, 4);
        if (n > f->maxcount)
            return enc_bad(e, f, "has too many entries");
        if (msgpack_pack_array(pk, n))
            return VC_ERR_NOMEM;
        for (uint32_t i = 0; i < n; i++) {
            vc_status_t rc = VC_OK;
            if (f->kind == K_ARR) {
                rc = enc_table(e, f->sub, p + i * f->sub->elem_size, 0);
            } else if (f->kind == K_STRARR) {
                const char *s = p + i * f->size;
                size_t len = strnlen(s, f->size);
                if (len == f->size || !len)
                    return enc_bad(e, f, "has an empty or unterminated entry");
                rc = pk_str(pk, s, len) ? VC_ERR_NOMEM : VC_OK;
            } else {
                const char *name = f->names((int)load_int(p + i * f->size, sizeof(int)));
                if (!name)
                    return enc_bad(e, f, "has an unknown value");
                rc = pk_str(pk, name, strlen(name)) ? VC_ERR_NOMEM : VC_OK;
            }
            if (rc)
                return rc;
        }
        return VC_OK;
    }
    case K_FLAGS: {
        uint64_t v = load_uint(p, f->size);
        if (v >> f->nnames)
            return enc_bad(e, f, "has an unknown bit");
        int n = 0;
        for (int i = 0; i < f->nnames; i++)
            n += (v >> i) & 1;
        if (msgpack_pack_array(pk, (size_t)n))
            return VC_ERR_NOMEM;
        for (int i = 0; i < f->nnames; i++) {
            const char *name = f->names(i);
            if (((v >> i) & 1) && pk_str(pk, name, strlen(name)))
                return VC_ERR_NOMEM;
        }
        return VC_OK;
    }
    case K_SAMPLES:
        return enc_samples(e, f);
    case K_PAGES:
        return enc_pages(e, f, base);
    }
    return VC_ERR_INTERNAL;
}

static int present(const field_t *f, const void *base)
{
    return !f->has_presence || load_int((const char *)base + f->count_off, sizeof(int));
}

static vc_status_t enc_table(enc_t *e, const table_t *t, const void *base, int positional)
{
    if (positional) {
        if (msgpack_pack_array(&e->pk, t->nfields))
            return VC_ERR_NOMEM;
    } else {
        size_t n = 0;
        for (size_t i = 0; i < t->nfields; i++)
            n += (size_t)present(&t->fields[i], base);
        if (msgpack_pack_map(&e->pk, n))
            return VC_ERR_NOMEM;
    }
    for (size_t i = 0; i < t->nfields; i++) {
        const field_t *f = &t->fields[i];
        if (!positional) {
            if (!present(f, base))
                continue;
            if (pk_str(&e->pk, f->key, strlen(f->key)))
                return VC_ERR_NOMEM;
        }
        vc_status_t rc = enc_field(e, f, base);
        if (rc)
            return rc;
    }
    return VC_OK;
}

vc_status_t vp_msg_encode(const vp_msg_t *m, msgpack_sbuffer *out)
{
    if (m->type < VP_HELLO || m->type >= VP_TYPE_END) {
        vc_error("proto", "cannot encode a message of unknown type %d", (int)m->type);
        return VC_ERR_ARG;
    }
    out->size = 0;
    enc_t e = {.msg = types[m->type].name, .m = m};
    msgpack_packer_init(&e.pk, out, msgpack_sbuffer_write);
    if (m->type == VP_SAMPLES && !out->alloc && m->u.samples.nsamples <= VP_MAX_SAMPLES) {
        /* one allocation for a typical batch rather than a dozen doublings */
        size_t guess = (size_t)m->u.samples.nsamples * 128 + 64;
        char *d = malloc(guess);
        if (d) {
            out->data = d;
            out->alloc = guess;
        }
    }
    if (msgpack_pack_array(&e.pk, 4) || msgpack_pack_uint32(&e.pk, VP_PROTO_MAJOR) ||
        msgpack_pack_uint32(&e.pk, (uint32_t)m->type) || msgpack_pack_uint64(&e.pk, m->request_id))
        return VC_ERR_NOMEM;
    vc_status_t rc = enc_table(&e, &types[m->type].body, &m->u, 0);
    if (rc)
        return rc;
    if (out->size > VP_MAX_MSG_SIZE) {
        vc_error("proto", "cannot encode %s: %zu bytes exceed the %u-byte message limit; "
                 "send fewer samples per batch", e.msg, out->size, VP_MAX_MSG_SIZE);
        return VC_ERR_ARG;
    }
    return VC_OK;
}

size_t vp_sample_wire_size(const vc_sample_t *s)
{
    /* array header, 4 strings (header 5 + body), 19 integers of at most
     * 9 bytes, the page array header and 3 integers per page */
    size_t n = 3 + 4 * 5 + 19 * 9 + 5;
    n += strnlen(s->op, sizeof s->op) + strnlen(s->label, sizeof s->label) +
         strnlen(s->err_code, sizeof s->err_code) + strnlen(s->err_msg, sizeof s->err_msg);
    return n + (size_t)s->npages * 27;
}

/* --------------------------------------------------------------- prescan */

#define PRESCAN_DEPTH 16

/* Walks the msgpack bytes without building anything: checks that data is
 * exactly one complete object, nests at most PRESCAN_DEPTH deep and never
 * announces more elements than there are bytes left to hold them. */
static vc_status_t prescan(const unsigned char *d, size_t len, char *err, size_t errlen)
{
    uint64_t left[PRESCAN_DEPTH + 1]; /* items still expected per open container */
    int depth = 0;
    uint64_t pending = 1;             /* items expected in all open containers */
    size_t pos = 0;
    left[0] = 1;
    while (depth >= 0) {
        if (left[depth] == 0) {
            depth--;
            continue;
        }
        if (pos >= len) {
            snprintf(err, errlen, "message truncated at byte %zu of %zu", pos, len);
            return VC_ERR_PROTO;
        }
        left[depth]--;
        pending--;
        unsigned char b = d[pos++];
        uint64_t skip = 0, items = 0;
        int lenbytes = 0, container = 0, extra = 0;
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
            /* fixint, nil, bool */
        } else if (b >= 0x80 && b <= 0x8f) {
            items = 2u * (b & 0x0f);
            container = 1;
        } else if (b >= 0x90 && b <= 0x9f) {
            items = b & 0x0f;
            container = 1;
        } else if (b >= 0xa0 && b <= 0xbf) {
            skip = b & 0x1f;
        } else {
            switch (b) {
            case 0xc4: case 0xd9: lenbytes = 1; break;             /* bin8 str8 */
            case 0xc5: case 0xda: lenbytes = 2; break;             /* bin16 str16 */
            case 0xc6: case 0xdb: lenbytes = 4; break;             /* bin32 str32 */
            case 0xc7: lenbytes = 1; extra = 1; break;             /* ext8 */
            case 0xc8: lenbytes = 2; extra = 1; break;             /* ext16 */
            case 0xc9: lenbytes = 4; extra = 1; break;             /* ext32 */
            case 0xca: skip = 4; break;                            /* float32 */
            case 0xcb: skip = 8; break;                            /* float64 */
            case 0xcc: case 0xd0: skip = 1; break;
            case 0xcd: case 0xd1: skip = 2; break;
            case 0xce: case 0xd2: skip = 4; break;
            case 0xcf: case 0xd3: skip = 8; break;
            case 0xd4: skip = 2; break;                            /* fixext1 */
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: lenbytes = 2; container = 1; break;         /* array16 */
            case 0xdd: lenbytes = 4; container = 1; break;         /* array32 */
            case 0xde: lenbytes = 2; container = 2; break;         /* map16 */
            case 0xdf: lenbytes = 4; container = 2; break;         /* map32 */
            default:
                snprintf(err, errlen, "invalid msgpack byte 0x%02x at byte %zu", b, pos - 1);
                return VC_ERR_PROTO;
            }
        }
        if (lenbytes) {
            if (len - pos < (size_t)lenbytes) {
                snprintf(err, errlen, "message truncated at byte %zu of %zu", pos, len);
                return VC_ERR_PROTO;
            }
            uint64_t n = 0;
            for (int i = 0; i < lenbytes; i++)
                n = n << 8 | d[pos++];
            if (container)
                items = n * (uint64_t)container;
            else
                skip = n + (uint64_t)extra;
        }
        if (skip > len - pos) {
            snprintf(err, errlen, "message truncated: a %" PRIu64 "-byte value at byte %zu "
                     "runs past the end (%zu bytes)", skip, pos, len);
            return VC_ERR_PROTO;
        }
        pos += skip;
        if (items) {
            if (items > len - pos || pending + items > len - pos) {
                snprintf(err, errlen, "message truncated or corrupt: %" PRIu64 " elements "
                         "announced at byte %zu, only %zu bytes left", items, pos, len - pos);
                return VC_ERR_PROTO;
            }
            if (depth == PRESCAN_DEPTH) {
                snprintf(err, errlen, "message nested deeper than %d levels at byte %zu",
                         PRESCAN_DEPTH, pos);
                return VC_ERR_PROTO;
            }
            left[++depth] = items;
            pending += items;
        }
    }
    if (pos != len) {
        snprintf(err, errlen, "%zu unexpected bytes after the message", len - pos);
        return VC_ERR_PROTO;
    }
    return VC_OK;
}

/* -------------------------------------------------------------- decoding */

#define PATH_DEPTH 8

typedef struct {
    const char *name;
    long idx; /* -1: not an array element */
} seg_t;

typedef struct {
    char *err;
    size_t errlen;
    int depth;
    seg_t path[PATH_DEPTH];
} dec_t;

static void push(dec_t *c, const char *name, long idx)
{
    if (c->depth < PATH_DEPTH)
        c->path[c->depth] = (seg_t){name, idx};
    c->depth++;
}
static void pop(dec_t *c)
{
    c->depth--;
}

/* "SAMPLES.samples[3].op: why" */
__attribute__((format(printf, 3, 4))) static vc_status_t fail(dec_t *c, const char *field,
                                                             const char *fmt, ...)
{
    if (!c->err || !c->errlen)
        return VC_ERR_PROTO;
    size_t n = 0;
    c->err[0] = '\0';
    for (int i = 0; i < c->depth && i < PATH_DEPTH && n < c->errlen; i++) {
        int w = c->path[i].idx >= 0
                    ? snprintf(c->err + n, c->errlen - n, "%s%s[%ld]", i ? "." : "",
                               c->path[i].name, c->path[i].idx)
                    : snprintf(c->err + n, c->errlen - n, "%s%s", i ? "." : "", c->path[i].name);
        n += w > 0 ? (size_t)w : 0;
    }
    if (field && n < c->errlen) {
        int w = snprintf(c->err + n, c->errlen - n, "%s%s", c->depth ? "." : "", field);
        n += w > 0 ? (size_t)w : 0;
    }
    if (n < c->errlen) {
        int w = snprintf(c->err + n, c->errlen - n, ": ");
        n += w > 0 ? (size_t)w : 0;
    }
    if (n < c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->errlen - n, fmt, ap);
        va_end(ap);
    }
    return VC_ERR_PROTO;
}

static const char *type_word(msgpack_object_type t)
{
    switch (t) {
    case MSGPACK_OBJECT_NIL: return "nil";
    case MSGPACK_OBJECT_BOOLEAN: return "a boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return "an integer";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return "a float";
    case MSGPACK_OBJECT_STR: return "a string";
    case MSGPACK_OBJECT_ARRAY: return "an array";
    case MSGPACK_OBJECT_MAP: return "a map";
    case MSGPACK_OBJECT_BIN: return "binary";
    case MSGPACK_OBJECT_EXT: return "an extension";
    }
    return "unknown";
}

static vc_status_t want(dec_t *c, const char *field, const msgpack_object *o,
                        msgpack_object_type t, const char *what)
{
    if (o->type == t)
        return VC_OK;
    return fail(c, field, "expected %s, got %s", what, type_word(o->type));
}

static vc_status_t get_int(dec_t *c, const char *field, const msgpack_object *o, int64_t min,
                           int64_t max, int64_t *out)
{
    int64_t v;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > (uint64_t)INT64_MAX)
            return fail(c, field, "%" PRIu64 " is out of range [%" PRId64 ", %" PRId64 "]",
                        o->via.u64, min, max);
        v = (int64_t)o->via.u64;
    } else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        v = o->via.i64;
    } else {
        return fail(c, field, "expected an integer, got %s", type_word(o->type));
    }
    if (v < min || v > max)
        return fail(c, field, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", v, min, max);
    *out = v;
    return VC_OK;
}

static vc_status_t get_uint(dec_t *c, const char *field, const msgpack_object *o, uint64_t min,
                            uint64_t max, uint64_t *out)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return fail(c, field, "%" PRId64 " is negative", o->via.i64);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return fail(c, field, "expected an unsigned integer, got %s", type_word(o->type));
    if (o->via.u64 < min || o->via.u64 > max)
        return fail(c, field, "%" PRIu64 " is out of range [%" PRIu64 ", %" PRIu64 "]",
                    o->via.u64, min, max);
    *out = o->via.u64;
    return VC_OK;
}

/* Copies a msgpack string into char[cap]; refuses over-long strings and
 * embedded NULs (which would silently cut the value short). */
static vc_status_t get_str(dec_t *c, const char *field, const msgpack_object *o, char *dst,
                           size_t cap, int nonempty)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return fail(c, field, "expected a string, got %s", type_word(o->type));
    uint32_t n = o->via.str.size;
    if (n > cap - 1)
        return fail(c, field, "string of %" PRIu32 " bytes exceeds the limit of %zu", n, cap - 1);
    if (n && memchr(o->via.str.ptr, '\0', n))
        return fail(c, field, "string contains a NUL byte");
    if (!n && nonempty)
        return fail(c, field, "must not be empty");
    memcpy(dst, o->via.str.ptr, n);
    dst[n] = '\0';
    return VC_OK;
}

static int str_eq(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n && memcmp(o->via.str.ptr, s, n) == 0;
}

static vc_status_t get_name(dec_t *c, const char *field, const msgpack_object *o, name_fn names,
                            int nnames, int *out)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return fail(c, field, "expected a string, got %s", type_word(o->type));
    for (int i = 0; i < nnames; i++) {
        if (str_eq(o, names(i))) {
            *out = i;
            return VC_OK;
        }
    }
    char list[160];
    size_t n = 0;
    for (int i = 0; i < nnames && n < sizeof list; i++) {
        int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names(i));
        n += w > 0 ? (size_t)w : 0;
    }
    int shown = o->via.str.size > 32 ? 32 : (int)o->via.str.size;
    return fail(c, field, "unknown value \"%.*s\" (expected one of: %s)", shown, o->via.str.ptr,
                list);
}

static const msgpack_object *map_get(const msgpack_object *map, const char *key)
{
    const msgpack_object_kv *kv = map->via.map.ptr;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (str_eq(&kv[i].key, key))
            return &kv[i].val;
    return NULL;
}

static vc_status_t dec_table(dec_t *c, const table_t *t, const msgpack_object *o, void *base,
                             int positional, vp_msg_t *m);

static vc_status_t dec_pages(dec_t *c, const field_t *f, const msgpack_object *o, vc_sample_t *s)
{
    vc_status_t rc = want(c, f->key, o, MSGPACK_OBJECT_ARRAY, "an array");
    if (rc)
        return rc;
    uint32_t n = o->via.array.size;
    if (n % 3)
        return fail(c, f->key, "%" PRIu32 " values is not a multiple of 3 (duration, keys, bytes)", n);
    if (n / 3 > VP_MAX_PAGES)
        return fail(c, f->key, "%" PRIu32 " pages exceed the limit of %d", n / 3, VP_MAX_PAGES);
    if (!n)
        return VC_OK;
    s->page = malloc((size_t)(n / 3) * sizeof *s->page);
    if (!s->page)
        return VC_ERR_NOMEM;
    s->page_cap = n / 3;
    const msgpack_object *v = o->via.array.ptr;
    for (uint32_t i = 0; i < n / 3; i++) {
        int64_t x[3];
        for (int k = 0; k < 3; k++) {
            push(c, f->key, (long)(3 * i + (uint32_t)k));
            rc = get_int(c, NULL, &v[3 * i + (uint32_t)k], -1, INT64_MAX, &x[k]);
            pop(c);
            if (rc)
                return rc;
        }
        s->page[i] = (vc_page_t){x[0], x[1], x[2]};
        s->npages = i + 1;
    }
    return VC_OK;
}

static vc_status_t dec_samples(dec_t *c, const field_t *f, const msgpack_object *o, vp_msg_t *m)
{
    vp_samples_t *s = &m->u.samples;
    vc_status_t rc = want(c, f->key, o, MSGPACK_OBJECT_ARRAY, "an array");
    if (rc)
        return rc;
    uint32_t n = o->via.array.size;
    if (n < 1 || n > VP_MAX_SAMPLES)
        return fail(c, f->key, "%" PRIu32 " samples, expected 1 to %d", n, VP_MAX_SAMPLES);
    if (s->first_seq > UINT64_MAX - n)
        return fail(c, "first_seq", "seq range overflows");
    s->samples = malloc((size_t)n * sizeof *s->samples);
    if (!s->samples)
        return VC_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        vc_sample_t *x = &s->samples[i];
        memset(x, 0, sizeof *x);
        s->nsamples = i + 1; /* so vp_msg_clear frees this one's pages on failure */
        x->seq = s->first_seq + i;
        push(c, f->key, (long)i);
        rc = dec_table(c, &sample_table, &o->via.array.ptr[i], x, 1, m);
        pop(c);
        if (rc)
            return rc;
    }
    return VC_OK;
}

static vc_status_t dec_field(dec_t *c, const field_t *f, const msgpack_object *o, void *base,
                             vp_msg_t *m)
{
    char *p = (char *)base + f->off;
    vc_status_t rc;
    switch (f->kind) {
    case K_INT: {
        int64_t v;
        if ((rc = get_int(c, f->key, o, f->min, f->max, &v)))
            return rc;
        store_int(p, f->size, v);
        return VC_OK;
    }
    case K_UINT: {
        uint64_t v;
        if ((rc = get_uint(c, f->key, o, (uint64_t)f->min, f->umax, &v)))
            return rc;
        store_uint(p, f->size, v);
        return VC_OK;
    }
    case K_STR:
        return get_str(c, f->key, o, p, f->size, f->flags & F_NONEMPTY);
    case K_BOOL:
        if ((rc = want(c, f->key, o, MSGPACK_OBJECT_BOOLEAN, "a boolean")))
            return rc;
        store_int(p, sizeof(int), o->via.boolean ? 1 : 0);
        return VC_OK;
    case K_ENUM: {
        int v;
        if ((rc = get_name(c, f->key, o, f->names, f->nnames, &v)))
            return rc;
        store_int(p, sizeof(int), v);
        return VC_OK;
    }
    case K_OBJ:
        push(c, f->key, -1);
        rc = dec_table(c, f->sub, o, p, 0, m);
        pop(c);
        if (!rc && f->has_presence)
            store_int((char *)base + f->count_off, sizeof(int), 1);
        return rc;
    case K_ARR:
    case K_STRARR:
    case K_ENUMARR: {
        if ((rc = want(c, f->key, o, MSGPACK_OBJECT_ARRAY, "an array")))
            return rc;
        uint32_t n = o->via.array.size;
        if (n > f->maxcount)
            return fail(c, f->key, "%" PRIu32 " entries exceed the limit of %" PRIu32, n,
                        f->maxcount);
        for (uint32_t i = 0; i < n; i++) {
            const msgpack_object *e = &o->via.array.ptr[i];
            push(c, f->key, (long)i);
            if (f->kind == K_ARR) {
                rc = dec_table(c, f->sub, e, p + i * f->sub->elem_size, 0, m);
            } else if (f->kind == K_STRARR) {
                rc = get_str(c, NULL, e, p + i * f->size, f->size, 1);
            } else {
                int v = 0;
                rc = get_name(c, NULL, e, f->names, f->nnames, &v);
                if (!rc)
                    store_int(p + i * f->size, sizeof(int), v);
            }
            pop(c);
            if (rc)
                return rc;
        }
        store_uint((char *)base + f->count_off, 4, n);
        return VC_OK;
    }
    case K_FLAGS: {
        if ((rc = want(c, f->key, o, MSGPACK_OBJECT_ARRAY, "an array")))
            return rc;
        if (o->via.array.size > (uint32_t)f->nnames)
            return fail(c, f->key, "%" PRIu32 " entries exceed the limit of %d",
                        o->via.array.size, f->nnames);
        uint64_t bits = 0;
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            int v = 0;
            push(c, f->key, (long)i);
            rc = get_name(c, NULL, &o->via.array.ptr[i], f->names, f->nnames, &v);
            pop(c);
            if (rc)
                return rc;
            bits |= UINT64_C(1) << v;
        }
        store_uint(p, f->size, bits);
        return VC_OK;
    }
    case K_SAMPLES:
        return dec_samples(c, f, o, m);
    case K_PAGES:
        return dec_pages(c, f, o, base);
    }
    return VC_ERR_INTERNAL;
}

static vc_status_t dec_table(dec_t *c, const table_t *t, const msgpack_object *o, void *base,
                             int positional, vp_msg_t *m)
{
    vc_status_t rc;
    if (positional) {
        if (o->type != MSGPACK_OBJECT_ARRAY)
            return fail(c, NULL, "expected an array, got %s", type_word(o->type));
        /* more elements than we know: a newer minor version; ignored */
        if (o->via.array.size < t->nfields)
            return fail(c, NULL, "%" PRIu32 " fields, expected %zu", o->via.array.size,
                        t->nfields);
        for (size_t i = 0; i < t->nfields; i++)
            if ((rc = dec_field(c, &t->fields[i], &o->via.array.ptr[i], base, m)))
                return rc;
        return VC_OK;
    }
    if (o->type != MSGPACK_OBJECT_MAP)
        return fail(c, NULL, "expected a map, got %s", type_word(o->type));
    if (t == &job_table) {
        /* the kind sets the defaults of every option the map leaves out */
        const msgpack_object *k = map_get(o, "kind");
        int kind = 0;
        if (!k)
            return fail(c, "kind", "missing");
        if ((rc = get_name(c, "kind", k, wl_name, VC_WL_COUNT, &kind)))
            return rc;
        vc_job_init(base, (vc_workload_t)kind);
    }
    for (size_t i = 0; i < t->nfields; i++) {
        const field_t *f = &t->fields[i];
        const msgpack_object *v = map_get(o, f->key);
        if (!v) {
            if (f->flags & F_REQ)
                return fail(c, f->key, "missing");
            continue;
        }
        if ((rc = dec_field(c, f, v, base, m)))
            return rc;
    }
    return VC_OK;
}

struct vp_decoder {
    msgpack_zone zone;
};

#define DECODER_CHUNK (1u << 20)

vp_decoder_t *vp_decoder_new(void)
{
    vp_decoder_t *d = malloc(sizeof *d);
    if (!d)
        return NULL;
    if (!msgpack_zone_init(&d->zone, DECODER_CHUNK)) {
        free(d);
        return NULL;
    }
    return d;
}

void vp_decoder_destroy(vp_decoder_t **p)
{
    if (!p || !*p)
        return;
    msgpack_zone_destroy(&(*p)->zone);
    free(*p);
    *p = NULL;
}

static vc_status_t decode_in(msgpack_zone *zone, const void *data, size_t len, vp_msg_t *out,
                             char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    memset(out, 0, sizeof *out);
    if (!data || !len) {
        snprintf(err, errlen, "empty message");
        return VC_ERR_PROTO;
    }
    if (len > VP_MAX_MSG_SIZE) {
        snprintf(err, errlen, "message of %zu bytes exceeds the limit of %u", len, VP_MAX_MSG_SIZE);
        return VC_ERR_PROTO;
    }
    vc_status_t rc = prescan(data, len, err, errlen);
    if (rc)
        return rc;

    msgpack_object root;
    size_t off = 0;
    msgpack_unpack_return ur = msgpack_unpack(data, len, &off, zone, &root);
    if (ur == MSGPACK_UNPACK_NOMEM_ERROR) {
        snprintf(err, errlen, "out of memory decoding a %zu-byte message", len);
        rc = VC_ERR_NOMEM;
        goto done;
    }
    if (ur != MSGPACK_UNPACK_SUCCESS) {
        snprintf(err, errlen, "malformed msgpack (unpack status %d)", (int)ur);
        rc = VC_ERR_PROTO;
        goto done;
    }

    dec_t c = {.err = err, .errlen = errlen};
    if (root.type != MSGPACK_OBJECT_ARRAY || root.via.array.size != 4) {
        rc = fail(&c, "message", "expected an array [version, type, request_id, body], got %s",
                  root.type == MSGPACK_OBJECT_ARRAY ? "an array of another length"
                                                    : type_word(root.type));
        goto done;
    }
    const msgpack_object *el = root.via.array.ptr;
    uint64_t version, type, rid;
    if ((rc = get_uint(&c, "version", &el[0], 0, UINT64_MAX, &version)))
        goto done;
    if (version != VP_PROTO_MAJOR) {
        snprintf(err, errlen, "protocol version %" PRIu64 " is not supported (this vantage "
                 "speaks version %d): run the same major version of vantage on the "
                 "coordinator and the agents", version, VP_PROTO_MAJOR);
        rc = VC_ERR_UNSUPPORTED;
        goto done;
    }
    if ((rc = get_uint(&c, "type", &el[1], 0, UINT64_MAX, &type)))
        goto done;
    if (type < VP_HELLO || type >= VP_TYPE_END) {
        rc = fail(&c, "type", "unknown message type %" PRIu64, type);
        goto done;
    }
    if ((rc = get_uint(&c, "request_id", &el[2], 0, UINT64_MAX, &rid)))
        goto done;
    vp_msg_init(out, (vp_type_t)type);
    out->request_id = rid;
    push(&c, types[type].name, -1);
    rc = dec_table(&c, &types[type].body, &el[3], &out->u, 0, out);
    if (rc)
        vp_msg_clear(out);

done:
    msgpack_zone_clear(zone);
    return rc;
}

vc_status_t vp_decoder_decode(vp_decoder_t *d, const void *data, size_t len, vp_msg_t *out,
                              char *err, size_t errlen)
{
    return decode_in(&d->zone, data, len, out, err, errlen);
}

vc_status_t vp_msg_decode(const void *data, size_t len, vp_msg_t *out, char *err, size_t errlen)
{
    msgpack_zone zone;
    if (!msgpack_zone_init(&zone, 64 * 1024)) {
        if (err && errlen)
            snprintf(err, errlen, "out of memory");
        memset(out, 0, sizeof *out);
        return VC_ERR_NOMEM;
    }
    vc_status_t rc = decode_in(&zone, data, len, out, err, errlen);
    msgpack_zone_destroy(&zone);
    return rc;
}
