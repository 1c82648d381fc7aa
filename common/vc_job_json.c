/* vc_job_json: job specs to and from JSON (jansson). A table of the scalar
 * fields keeps writer and reader in step; targets, scale points, paths and
 * operations are written as nested values. */
#include "vc_job_json.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef enum { F_STR, F_INT, F_I64, F_BOOL } ftype_t;

typedef struct {
    const char *name;
    ftype_t type;
    size_t off, size;
    int64_t min, max;
} field_t;

#define JF(n, t, f, lo, hi) {n, t, offsetof(vc_job_t, f), sizeof(((vc_job_t *)0)->f), lo, hi}

static const field_t fields[] = {
    JF("id", F_STR, id, 0, 0),
    JF("start_at_ns", F_I64, start_at, 0, INT64_MAX),
    JF("workers", F_INT, workers, 1, 1 << 20),
    JF("runs", F_INT, runs, 1, 1 << 24),
    JF("timeout_ms", F_I64, timeout_ms, 1, INT64_MAX),
    JF("page_size", F_INT, page_size, 1, 1 << 24),
    JF("prefix", F_STR, prefix, 0, 0),
    JF("count", F_I64, count, 0, INT64_MAX),
    JF("size", F_I64, object_size, 0, INT64_MAX),
    JF("nbi_poll_ms", F_I64, nbi_poll_ms, 1, INT64_MAX),
    JF("nbi_timeout_ms", F_I64, nbi_timeout_ms, 1, INT64_MAX),
    JF("warmup", F_BOOL, warmup, 0, 1),
    JF("verify_count", F_BOOL, verify_count, 0, 1),
    JF("nbi_create", F_BOOL, nbi_create, 0, 1),
    JF("nbi_destroy", F_BOOL, nbi_destroy, 0, 1),
    JF("interleave", F_BOOL, interleave, 0, 1),
    JF("run_first", F_INT, run_first, 0, 1 << 30),
    JF("slice", F_INT, slice, 0, 1 << 30),
    JF("iterations", F_INT, iterations, 1, 1 << 30),
    JF("key_prefix", F_STR, key_prefix, 0, 0),
    JF("upload_file", F_STR, upload_file, 0, 0),
    JF("probe_count", F_INT, probe_count, 1, 1 << 30),
    JF("probe_interval_ms", F_I64, probe_interval_ms, 0, INT64_MAX),
    {NULL, F_STR, 0, 0, 0, 0},
};

static const char *const path_names[] = {"ais-regular", "ais-nbi", "s3-direct"};

static json_t *target_to_json(const vc_target_t *t)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b}", "name", t->name, "kind",
                     t->kind == VC_TK_AIS ? "ais" : "s3", "endpoint", t->endpoint, "bucket",
                     t->bucket, "provider", t->provider, "region", t->region, "addressing",
                     t->addressing == VC_ADDR_VIRTUAL ? "virtual" : "path", "verify_tls",
                     t->verify_tls ? 1 : 0);
}

char *vc_job_to_json(const vc_job_t *job, int pretty)
{
    json_t *o = json_object();
    char *text = NULL;
    if (!o)
        return NULL;
    int bad = json_object_set_new(o, "kind", json_string(vc_workload_name(job->kind)));
    for (const field_t *f = fields; f->name; f++) {
        const char *p = (const char *)job + f->off;
        json_t *v = NULL;
        if (f->type == F_STR) {
            v = json_string(p);
        } else if (f->type == F_I64) {
            int64_t x;
            memcpy(&x, p, sizeof x);
            v = json_integer(x);
        } else {
            int x;
            memcpy(&x, p, sizeof x);
            v = f->type == F_BOOL ? json_boolean(x) : json_integer(x);
        }
        bad |= json_object_set_new(o, f->name, v);
    }
    bad |= json_object_set_new(o, "naming",
                               json_string(job->sequential_names ? "sequential" : "random"));
    bad |= json_object_set_new(o, "target", target_to_json(&job->target));
    bad |= json_object_set_new(o, "s3_target",
                               job->has_direct ? target_to_json(&job->direct) : json_null());
    json_t *scale = json_array(), *paths = json_array(), *ops = json_array();
    for (int i = 0; scale && i < job->nscale && i < VC_MAX_SCALE_POINTS; i++)
        bad |= json_array_append_new(scale, json_pack("{s:s, s:s, s:I}", "label",
                                                      job->scale[i].label, "prefix",
                                                      job->scale[i].prefix, "count",
                                                      (json_int_t)job->scale[i].count));
    for (int k = 0; paths && k < 3; k++)
        if (job->paths & (1u << k))
            bad |= json_array_append_new(paths, json_string(path_names[k]));
    for (int i = 0; ops && i < job->nops && i < VC_MAX_OPS; i++)
        bad |= json_array_append_new(ops, json_string(vc_op_name(job->ops[i])));
    bad |= json_object_set_new(o, "scale", scale);
    bad |= json_object_set_new(o, "paths", paths);
    bad |= json_object_set_new(o, "ops", ops);
    if (!bad)
        text = json_dumps(o, (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

static vc_status_t fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static vc_status_t fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return VC_ERR_ARG;
}

static int copy_str(char *dst, size_t size, json_t *v)
{
    if (!json_is_string(v) || json_string_length(v) >= size ||
        strlen(json_string_value(v)) != json_string_length(v))
        return -1;
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

static vc_status_t target_from_json(json_t *o, vc_target_t *t, const char *key, char *err,
                                    size_t errlen)
{
    vc_target_init(t);
    if (!json_is_object(o))
        return fail(err, errlen, "job JSON: \"%s\" is not an object", key);
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        int bad = 0;
        if (strcmp(k, "name") == 0)
            bad = copy_str(t->name, sizeof t->name, v);
        else if (strcmp(k, "endpoint") == 0)
            bad = copy_str(t->endpoint, sizeof t->endpoint, v);
        else if (strcmp(k, "bucket") == 0)
            bad = copy_str(t->bucket, sizeof t->bucket, v);
        else if (strcmp(k, "provider") == 0)
            bad = copy_str(t->provider, sizeof t->provider, v);
        else if (strcmp(k, "region") == 0)
            bad = copy_str(t->region, sizeof t->region, v);
        else if (strcmp(k, "kind") == 0) {
            const char *s = json_string_value(v);
            bad = !s || (strcmp(s, "s3") && strcmp(s, "ais"));
            if (!bad)
                t->kind = strcmp(s, "ais") == 0 ? VC_TK_AIS : VC_TK_S3;
        } else if (strcmp(k, "addressing") == 0) {
            const char *s = json_string_value(v);
            bad = !s || (strcmp(s, "path") && strcmp(s, "virtual"));
            if (!bad)
                t->addressing = strcmp(s, "virtual") == 0 ? VC_ADDR_VIRTUAL : VC_ADDR_PATH;
        } else if (strcmp(k, "verify_tls") == 0) {
            bad = !json_is_boolean(v);
            if (!bad)
                t->verify_tls = json_is_true(v);
        } else {
            return fail(err, errlen, "job JSON: unknown key \"%s.%.64s\"", key, k);
        }
        if (bad)
            return fail(err, errlen, "job JSON: bad value for \"%s.%s\"", key, k);
    }
    return VC_OK;
}

static vc_status_t from_json(json_t *o, vc_job_t *job, char *err, size_t errlen)
{
    if (!json_is_object(o))
        return fail(err, errlen, "job JSON: not an object");
    json_t *kind = json_object_get(o, "kind");
    int w = json_is_string(kind) ? vc_workload_parse(json_string_value(kind)) : -1;
    if (w < 0)
        return fail(err, errlen, "job JSON: missing or unknown \"kind\"");
    vc_job_init(job, (vc_workload_t)w);
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        const field_t *f = NULL;
        for (const field_t *x = fields; x->name; x++)
            if (strcmp(x->name, k) == 0)
                f = x;
        char *p = (char *)job + (f ? f->off : 0);
        if (strcmp(k, "kind") == 0)
            continue;
        if (f && f->type == F_STR) {
            if (copy_str(p, f->size, v))
                return fail(err, errlen, "job JSON: \"%s\" is not a string of at most %zu bytes",
                            k, f->size - 1);
        } else if (f && f->type == F_BOOL) {
            if (!json_is_boolean(v))
                return fail(err, errlen, "job JSON: \"%s\" is not a boolean", k);
            int x = json_is_true(v);
            memcpy(p, &x, sizeof x);
        } else if (f) {
            if (!json_is_integer(v) || json_integer_value(v) < f->min ||
                json_integer_value(v) > f->max)
                return fail(err, errlen, "job JSON: \"%s\" is not an integer in range", k);
            int64_t x = json_integer_value(v);
            if (f->type == F_I64) {
                memcpy(p, &x, sizeof x);
            } else {
                int i = (int)x;
                memcpy(p, &i, sizeof i);
            }
        } else if (strcmp(k, "naming") == 0) {
            const char *s = json_string_value(v);
            if (!s || (strcmp(s, "random") && strcmp(s, "sequential")))
                return fail(err, errlen, "job JSON: \"naming\" must be random or sequential");
            job->sequential_names = strcmp(s, "sequential") == 0;
        } else if (strcmp(k, "target") == 0) {
            vc_status_t rc = target_from_json(v, &job->target, k, err, errlen);
            if (rc)
                return rc;
        } else if (strcmp(k, "s3_target") == 0) {
            job->has_direct = !json_is_null(v);
            if (job->has_direct) {
                vc_status_t rc = target_from_json(v, &job->direct, k, err, errlen);
                if (rc)
                    return rc;
            }
        } else if (strcmp(k, "scale") == 0) {
            if (!json_is_array(v) || json_array_size(v) > VC_MAX_SCALE_POINTS)
                return fail(err, errlen, "job JSON: \"scale\" is not an array of at most %d",
                            VC_MAX_SCALE_POINTS);
            job->nscale = 0;
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                vc_scale_point_t *pt = &job->scale[job->nscale];
                json_t *c = json_object_get(e, "count");
                if (!json_is_object(e) || json_object_size(e) != 3 ||
                    copy_str(pt->label, sizeof pt->label, json_object_get(e, "label")) ||
                    copy_str(pt->prefix, sizeof pt->prefix, json_object_get(e, "prefix")) ||
                    !json_is_integer(c) || json_integer_value(c) < 0)
                    return fail(err, errlen, "job JSON: scale[%zu] is not {label, prefix, count}",
                                i);
                pt->count = json_integer_value(c);
                job->nscale++;
            }
        } else if (strcmp(k, "paths") == 0) {
            if (!json_is_array(v))
                return fail(err, errlen, "job JSON: \"paths\" is not an array");
            unsigned bits = 0;
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                int found = -1;
                for (int n = 0; n < 3; n++)
                    if (json_is_string(e) && strcmp(json_string_value(e), path_names[n]) == 0)
                        found = n;
                if (found < 0)
                    return fail(err, errlen, "job JSON: paths[%zu] is not a known path", i);
                bits |= 1u << found;
            }
            job->paths = bits;
        } else if (strcmp(k, "ops") == 0) {
            if (!json_is_array(v) || json_array_size(v) > VC_MAX_OPS)
                return fail(err, errlen, "job JSON: \"ops\" is not an array of at most %d",
                            VC_MAX_OPS);
            job->nops = 0;
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                int found = -1;
                for (int n = 0; n < VC_OP_COUNT; n++)
                    if (json_is_string(e) && strcmp(json_string_value(e), vc_op_name((vc_op_t)n)) == 0)
                        found = n;
                if (found < 0)
                    return fail(err, errlen, "job JSON: ops[%zu] is not a known operation", i);
                job->ops[job->nops++] = (vc_op_t)found;
            }
        } else {
            return fail(err, errlen, "job JSON: unknown key \"%.64s\"", k);
        }
    }
    return VC_OK;
}

vc_status_t vc_job_from_json(const char *text, vc_job_t *job, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *o = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &jerr);
    if (!o)
        return fail(err, errlen, "job JSON: line %d: %s", jerr.line, jerr.text);
    vc_job_t tmp;
    vc_status_t rc = from_json(o, &tmp, err, errlen);
    json_decref(o);
    if (rc == VC_OK)
        *job = tmp;
    return rc;
}
