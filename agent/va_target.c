/* va_target: one S3 or AIS client built from a job's target. */
#include "va_target.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "va_awscfg.h"

struct va_target_t {
    vc_target_kind_t kind;
    va_s3_t *s3;
    va_ais_t *ais;
    va_ais_bck_t bck;
    char bucket[VC_NAME_MAX * 2];
    char err[512];
    FILE *own_file; /* an AIS upload's file, open while its request is in flight */
};

static va_target_t *new_s3(va_target_t *self, const vc_target_t *t, long timeout_ms, char *err,
                           size_t errlen)
{
    va_awscfg_t *cfg = calloc(1, sizeof *cfg);
    if (!cfg) {
        snprintf(err, errlen, "out of memory loading the AWS configuration");
        return NULL;
    }
    va_awscfg_opts_t co = {.endpoint = t->endpoint[0] ? t->endpoint : NULL,
                           .region = t->region[0] ? t->region : NULL};
    char cerr[768];
    if (va_awscfg_load(&co, cfg, cerr, sizeof cerr) != VC_OK) {
        snprintf(err, errlen, "target '%s': %s", t->name, cerr);
        free(cfg);
        return NULL;
    }
    va_s3_opts_t so;
    memset(&so, 0, sizeof so);
    va_s3_opts_from_awscfg(&so, cfg);
    so.addressing = t->addressing == VC_ADDR_VIRTUAL ? VA_S3_ADDR_VIRTUAL : VA_S3_ADDR_PATH;
    so.insecure = !t->verify_tls;
    so.timeout_ms = timeout_ms;
    char serr[512];
    self->s3 = va_s3_new(&so, serr, sizeof serr);
    va_awscfg_clear(cfg);
    free(cfg);
    if (!self->s3) {
        snprintf(err, errlen, "target '%s': %s", t->name, serr);
        return NULL;
    }
    return self;
}

static va_target_t *new_ais(va_target_t *self, const vc_target_t *t, const va_target_opts_t *o,
                            char *err, size_t errlen)
{
    char uri[sizeof t->provider + sizeof t->bucket + 8], berr[256], aerr[512];
    snprintf(uri, sizeof uri, "%s://%s", t->provider[0] ? t->provider : "aws", t->bucket);
    if (va_ais_bck_parse(uri, &self->bck, NULL, 0, berr, sizeof berr) != VC_OK) {
        snprintf(err, errlen, "target '%s': bucket '%s' with provider '%s': %s", t->name,
                 t->bucket, t->provider, berr);
        return NULL;
    }
    va_ais_opts_t ao = {
        .endpoint = t->endpoint[0] ? t->endpoint : NULL, /* NULL: $AIS_ENDPOINT */
        .token = NULL,                                  /* $AIS_AUTHN_TOKEN */
        .timeout_ms = o->timeout_ms,
        .insecure_tls = !t->verify_tls,
        .put_skip_vc = o->ais_skip_vc,
    };
    self->ais = va_ais_new(&ao, aerr, sizeof aerr);
    if (!self->ais) {
        snprintf(err, errlen, "target '%s': %s", t->name, aerr);
        return NULL;
    }
    return self;
}

va_target_t *va_target_new(const vc_target_t *t, const va_target_opts_t *o, char *err,
                           size_t errlen)
{
    va_target_opts_t def = {0};
    if (!o)
        o = &def;
    if (!t->bucket[0]) {
        snprintf(err, errlen, "target '%s' names no bucket: set its bucket in the campaign",
                 t->name);
        return NULL;
    }
    va_target_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, errlen, "out of memory creating a client for target '%s'", t->name);
        return NULL;
    }
    self->kind = t->kind;
    snprintf(self->bucket, sizeof self->bucket, "%s", t->bucket);
    va_target_t *ok = t->kind == VC_TK_AIS ? new_ais(self, t, o, err, errlen)
                                           : new_s3(self, t, o->timeout_ms, err, errlen);
    if (!ok)
        va_target_destroy(&self);
    return ok;
}

void va_target_destroy(va_target_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_target_t *self = *self_p;
    if (self->own_file)
        fclose(self->own_file);
    va_s3_destroy(&self->s3);
    va_ais_destroy(&self->ais);
    free(self);
    *self_p = NULL;
}

vc_target_kind_t va_target_kind(const va_target_t *self) { return self->kind; }
va_s3_t *va_target_s3(va_target_t *self) { return self->s3; }
va_ais_t *va_target_ais(va_target_t *self) { return self->ais; }
const va_ais_bck_t *va_target_bck(const va_target_t *self) { return &self->bck; }
const char *va_target_bucket(const va_target_t *self) { return self->bucket; }

const char *va_target_where(const va_target_t *self)
{
    return self->ais ? va_ais_where(self->ais) : va_s3_endpoint_hostport(self->s3);
}

const char *va_target_error(const va_target_t *self)
{
    if (self->err[0])
        return self->err;
    return self->ais ? va_ais_error(self->ais) : va_s3_last_error(self->s3);
}

vc_status_t va_target_put(va_target_t *self, const char *key, const void *data, size_t len,
                          vc_sample_t *s)
{
    self->err[0] = '\0';
    return self->ais ? va_ais_put(self->ais, &self->bck, key, data, len, s)
                     : va_s3_put(self->s3, self->bucket, key, data, len, s);
}

/* A failure before any request: self->err says what; the sample too. */
static void local_failure(va_target_t *self, vc_sample_t *s, const char *op, const char *code)
{
    if (!s)
        return;
    VC_SAMPLE_SET(s, op, op);
    s->start_wall_ns = vc_wall_now();
    s->err_class = VC_EC_OTHER;
    VC_SAMPLE_SET(s, err_code, code);
    VC_SAMPLE_SET(s, err_msg, self->err);
}

/* Opens the file an AIS PUT uploads; NULL (sample failed) when it cannot. */
static FILE *open_upload(va_target_t *self, const char *key, const char *path, int64_t *len,
                         vc_sample_t *s)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(self->err, sizeof self->err,
                 "PUT %s: cannot read the file to upload '%s': check upload_file", key, path);
        if (f)
            fclose(f);
        local_failure(self, s, "put", "LocalFile");
        return NULL;
    }
    *len = (int64_t)st.st_size;
    return f;
}

vc_status_t va_target_put_file(va_target_t *self, const char *key, const char *path,
                               vc_sample_t *s)
{
    self->err[0] = '\0';
    if (!self->ais)
        return va_s3_put_file(self->s3, self->bucket, key, path, s);
    /* the same path as a loop's PUT, performed here */
    va_target_obj_t o = {.op = VC_OP_PUT, .key = key, .path = path};
    vc_status_t rc = va_target_begin(self, &o, s);
    if (rc != VC_OK)
        return rc;
    va_http_perform(va_target_http(self));
    return va_target_end(self);
}

vc_status_t va_target_get(va_target_t *self, const char *key, FILE *out, vc_sample_t *s)
{
    self->err[0] = '\0';
    return self->ais ? va_ais_get(self->ais, &self->bck, key, out, NULL, s)
                     : va_s3_get(self->s3, self->bucket, key, out, s);
}

vc_status_t va_target_head(va_target_t *self, const char *key, vc_sample_t *s)
{
    self->err[0] = '\0';
    return self->ais ? va_ais_head(self->ais, &self->bck, key, NULL, s)
                     : va_s3_head(self->s3, self->bucket, key, NULL, s);
}

vc_status_t va_target_delete(va_target_t *self, const char *key, vc_sample_t *s)
{
    self->err[0] = '\0';
    return self->ais ? va_ais_delete(self->ais, &self->bck, key, s)
                     : va_s3_delete(self->s3, self->bucket, key, s);
}

/* ---- operations driven by a loop ---- */

vc_status_t va_target_begin(va_target_t *self, const va_target_obj_t *o, vc_sample_t *s)
{
    self->err[0] = '\0';
    if ((unsigned)o->op >= VC_OP_COUNT) {
        snprintf(self->err, sizeof self->err, "%s: unknown operation %d", o->key, (int)o->op);
        local_failure(self, s, "unknown", "InvalidArgument");
        return VC_ERR_ARG;
    }
    if (!self->ais) {
        static const va_s3_op_t s3op[] = {[VC_OP_PUT] = VA_S3_PUT, [VC_OP_GET] = VA_S3_GET,
                                         [VC_OP_HEAD] = VA_S3_HEAD, [VC_OP_DELETE] = VA_S3_DELETE};
        va_s3_obj_t so = {.op = s3op[o->op], .bucket = self->bucket, .key = o->key,
                          .data = o->data, .len = o->len, .path = o->path, .out = o->out};
        return va_s3_begin(self->s3, &so, s);
    }
    static const va_ais_op_t aisop[] = {[VC_OP_PUT] = VA_AIS_PUT, [VC_OP_GET] = VA_AIS_GET,
                                        [VC_OP_HEAD] = VA_AIS_HEAD,
                                        [VC_OP_DELETE] = VA_AIS_DELETE};
    va_ais_obj_t ao = {.op = aisop[o->op], .key = o->key, .data = o->data, .len = o->len,
                       .out = o->out};
    if (o->op == VC_OP_PUT && o->path &&
        !(ao.file = self->own_file = open_upload(self, o->key, o->path, &ao.file_len, s)))
        return VC_ERR_IO;
    vc_status_t rc = va_ais_begin(self->ais, &self->bck, &ao, s);
    if (rc != VC_OK && self->own_file) {
        fclose(self->own_file);
        self->own_file = NULL;
    }
    return rc;
}

vc_status_t va_target_end(va_target_t *self)
{
    if (!self->ais)
        return va_s3_end(self->s3);
    vc_status_t rc = va_ais_end(self->ais);
    if (self->own_file) {
        fclose(self->own_file);
        self->own_file = NULL;
    }
    return rc;
}

va_http_t *va_target_http(va_target_t *self)
{
    return self->ais ? va_ais_http(self->ais) : va_s3_http(self->s3);
}

/* ---- listings ---- */

typedef struct {
    va_target_key_fn fn;
    void *ud;
    atomic_int *cancel;
} list_ctx_t;

static int stop_now(const list_ctx_t *c) { return c->cancel && atomic_load(c->cancel); }

static int on_s3_object(void *ud, const va_s3xml_object_t *obj)
{
    list_ctx_t *c = ud;
    if (stop_now(c))
        return 1;
    return c->fn ? c->fn(c->ud, obj->key) : 0;
}

static int on_s3_prefix(void *ud, const char *prefix, size_t len)
{
    (void)len;
    list_ctx_t *c = ud;
    if (stop_now(c))
        return 1;
    return c->fn ? c->fn(c->ud, prefix) : 0;
}

static int on_ais_entry(void *ud, const va_ais_entry_t *e)
{
    list_ctx_t *c = ud;
    return c->fn ? c->fn(c->ud, e->name) : 0;
}

vc_status_t va_target_list(va_target_t *self, const char *prefix, int page_size,
                           va_target_key_fn on_key, void *ud, atomic_int *cancel, vc_sample_t *s)
{
    list_ctx_t c = {on_key, ud, cancel};
    self->err[0] = '\0';
    if (self->ais) {
        va_ais_list_opts_t o = {.prefix = prefix, .on_entry = on_ais_entry, .arg = &c,
                                .cancel = cancel};
        return va_ais_list(self->ais, &self->bck, &o, s);
    }
    va_s3_list_opts_t o = {.prefix = prefix, .max_keys = page_size};
    return va_s3_list(self->s3, self->bucket, &o, on_s3_object, on_s3_prefix, &c, s);
}
