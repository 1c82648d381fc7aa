/* va_s3xml: expat-driven parsers for ListObjectsV2 pages and S3 error bodies.
 * Elements are matched by local name (namespace stripped) at a fixed depth,
 * so unknown elements that servers add (RGW's <Type>) are skipped. */
#include "va_s3xml.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_SEP '\n' /* cannot occur in a name or a namespace URI after normalisation */

/* Elements of interest; everything else is E_OTHER. */
typedef enum {
    E_OTHER = 0,
    E_LIST_ROOT,      /* ListBucketResult */
    E_ERROR_ROOT,     /* Error */
    E_CONTENTS,
    E_COMMON_PREFIXES,
    E_KEY,
    E_SIZE,
    E_ETAG,
    E_LAST_MODIFIED,
    E_PREFIX,
    E_IS_TRUNCATED,
    E_NEXT_TOKEN,
    E_KEY_COUNT,
    E_MAX_KEYS,
    E_CODE,
    E_MESSAGE,
    E_REQUEST_ID,
    E_RESOURCE,
} elem_t;

typedef struct {
    const char *name;
    int depth;      /* 1 root */
    elem_t parent;  /* E_OTHER: any (roots) */
    elem_t id;
} elem_rule_t;

static const elem_rule_t list_rules[] = {
    {"ListBucketResult", 1, E_OTHER, E_LIST_ROOT},
    {"Error", 1, E_OTHER, E_ERROR_ROOT},
    {"Contents", 2, E_LIST_ROOT, E_CONTENTS},
    {"CommonPrefixes", 2, E_LIST_ROOT, E_COMMON_PREFIXES},
    {"IsTruncated", 2, E_LIST_ROOT, E_IS_TRUNCATED},
    {"NextContinuationToken", 2, E_LIST_ROOT, E_NEXT_TOKEN},
    {"KeyCount", 2, E_LIST_ROOT, E_KEY_COUNT},
    {"MaxKeys", 2, E_LIST_ROOT, E_MAX_KEYS},
    {"Key", 3, E_CONTENTS, E_KEY},
    {"Size", 3, E_CONTENTS, E_SIZE},
    {"ETag", 3, E_CONTENTS, E_ETAG},
    {"LastModified", 3, E_CONTENTS, E_LAST_MODIFIED},
    {"Prefix", 3, E_COMMON_PREFIXES, E_PREFIX},
    {"Code", 2, E_ERROR_ROOT, E_CODE},
    {"Message", 2, E_ERROR_ROOT, E_MESSAGE},
    {"RequestId", 2, E_ERROR_ROOT, E_REQUEST_ID},
    {"Resource", 2, E_ERROR_ROOT, E_RESOURCE},
    {NULL, 0, E_OTHER, E_OTHER},
};

/* Text cap per collected element; over it the list parser fails, the error
 * parser cuts. */
static size_t text_cap(elem_t e)
{
    switch (e) {
    case E_KEY:
    case E_PREFIX:
        return VA_S3XML_KEY_MAX;
    case E_NEXT_TOKEN:
        return VA_S3XML_TOKEN_MAX;
    case E_ETAG:
    case E_LAST_MODIFIED:
        return 256;
    case E_SIZE:
    case E_KEY_COUNT:
    case E_MAX_KEYS:
    case E_IS_TRUNCATED:
        return 32;
    default:
        return 1024;
    }
}

struct va_s3xml_list_t {
    XML_Parser xp;
    int error_mode;   /* parsing an <Error> body instead of a page */
    int depth;
    elem_t stack[VA_S3XML_DEPTH_MAX + 1];
    elem_t root;
    int root_done;
    vc_status_t rc;
    char error[256];
    /* text of the element being collected */
    elem_t collecting;
    char text[VA_S3XML_TOKEN_MAX + 1];
    size_t text_len;
    int text_over;
    /* the <Contents> being read */
    char key[VA_S3XML_KEY_MAX + 1];
    size_t key_len;
    int have_key;
    int64_t size;
    char etag[257];
    char last_modified[257];
    /* the page */
    va_s3xml_page_t page;
    va_s3xml_object_fn on_object;
    va_s3xml_prefix_fn on_prefix;
    void *ud;
    va_s3xml_error_t *err_out; /* error mode */
};

static void fail(va_s3xml_list_t *self, vc_status_t rc, const char *fmt, const char *arg)
{
    if (self->rc)
        return;
    self->rc = rc;
    char what[200];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    snprintf(self->error, sizeof self->error, "%s (line %lu, column %lu)", what,
             (unsigned long)XML_GetCurrentLineNumber(self->xp),
             (unsigned long)XML_GetCurrentColumnNumber(self->xp));
    XML_StopParser(self->xp, XML_FALSE);
}

static const char *local_name(const char *name)
{
    const char *p = strrchr(name, NS_SEP);
    return p ? p + 1 : name;
}

static elem_t classify(const char *local, int depth, elem_t parent)
{
    for (const elem_rule_t *r = list_rules; r->name; r++)
        if (r->depth == depth && (r->depth == 1 || r->parent == parent) && strcmp(r->name, local) == 0)
            return r->id;
    return E_OTHER;
}

static int collected(va_s3xml_list_t *self, elem_t e)
{
    if (self->error_mode)
        return e == E_CODE || e == E_MESSAGE || e == E_REQUEST_ID || e == E_RESOURCE;
    return e == E_KEY || e == E_SIZE || e == E_ETAG || e == E_LAST_MODIFIED || e == E_PREFIX ||
           e == E_IS_TRUNCATED || e == E_NEXT_TOKEN || e == E_KEY_COUNT || e == E_MAX_KEYS;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    (void)attrs;
    va_s3xml_list_t *self = ud;
    if (self->rc)
        return;
    const char *local = local_name(name);
    if (self->depth >= VA_S3XML_DEPTH_MAX) {
        fail(self, VC_ERR_PROTO, "elements nested deeper than %s levels", "32");
        return;
    }
    if (self->depth == 0 && self->root_done) {
        fail(self, VC_ERR_PROTO, "a second root element <%.60s>", local);
        return;
    }
    elem_t parent = self->depth ? self->stack[self->depth] : E_OTHER;
    elem_t e = classify(local, self->depth + 1, parent);
    self->stack[++self->depth] = e;
    if (self->depth == 1) {
        self->root = e;
        if (!self->error_mode && e == E_ERROR_ROOT) {
            /* a 200 carrying an <Error> (S3 does this for some failures) */
            fail(self, VC_ERR_PROTO, "the reply is an <Error> document, not a listing%s", NULL);
            return;
        }
        if ((!self->error_mode && e != E_LIST_ROOT) || (self->error_mode && e != E_ERROR_ROOT)) {
            char msg[120];
            snprintf(msg, sizeof msg, "unexpected root element <%.60s>, wanted <%s>", local,
                     self->error_mode ? "Error" : "ListBucketResult");
            fail(self, VC_ERR_PROTO, "%s", msg);
            return;
        }
    }
    if (e == E_CONTENTS) {
        self->have_key = 0;
        self->key_len = 0;
        self->key[0] = '\0';
        self->size = -1;
        self->etag[0] = self->last_modified[0] = '\0';
    }
    if (collected(self, e)) {
        self->collecting = e;
        self->text_len = 0;
        self->text_over = 0;
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    va_s3xml_list_t *self = ud;
    if (self->rc || self->collecting == E_OTHER || len <= 0)
        return;
    size_t cap = text_cap(self->collecting);
    size_t n = (size_t)len;
    if (self->text_len + n > cap) {
        if (!self->error_mode) {
            char what[48];
            snprintf(what, sizeof what, "%zu", cap);
            fail(self, VC_ERR_PROTO, "an element's text is longer than %s bytes", what);
            return;
        }
        self->text_over = 1;
        n = cap - self->text_len;
    }
    memcpy(self->text + self->text_len, s, n);
    self->text_len += n;
}

/* Parses a non-negative decimal that fits int64; -1 when it is not one. */
static int64_t parse_count(const char *s, size_t n)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static void copy_clean(char *dst, size_t dstsz, const char *src, size_t n)
{
    if (n >= dstsz)
        n = dstsz - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    dst[n] = '\0';
}

static void leaf_done(va_s3xml_list_t *self, elem_t e)
{
    const char *t = self->text;
    size_t n = self->text_len;
    self->text[n] = '\0';
    int64_t v;
    switch (e) {
    case E_KEY:
        if (n == 0)
            fail(self, VC_ERR_PROTO, "an empty <Key>%s", NULL);
        memcpy(self->key, t, n + 1);
        self->key_len = n;
        self->have_key = 1;
        break;
    case E_SIZE:
        if ((v = parse_count(t, n)) < 0)
            fail(self, VC_ERR_PROTO, "<Size> is not a byte count: '%.40s'", t);
        self->size = v;
        break;
    case E_ETAG:
        memcpy(self->etag, t, n + 1);
        break;
    case E_LAST_MODIFIED:
        memcpy(self->last_modified, t, n + 1);
        break;
    case E_PREFIX:
        self->page.prefixes++;
        if (self->on_prefix && self->on_prefix(self->ud, t, n) != 0)
            fail(self, VC_ERR_CANCELLED, "stopped by the prefix callback%s", NULL);
        break;
    case E_IS_TRUNCATED:
        if (strcmp(t, "true") == 0)
            self->page.is_truncated = 1;
        else if (strcmp(t, "false") == 0)
            self->page.is_truncated = 0;
        else
            fail(self, VC_ERR_PROTO, "<IsTruncated> is neither true nor false: '%.32s'", t);
        break;
    case E_NEXT_TOKEN:
        memcpy(self->page.next_token, t, n + 1);
        break;
    case E_KEY_COUNT:
        if ((self->page.key_count = parse_count(t, n)) < 0)
            fail(self, VC_ERR_PROTO, "<KeyCount> is not a count: '%.32s'", t);
        break;
    case E_MAX_KEYS:
        if ((self->page.max_keys = parse_count(t, n)) < 0)
            fail(self, VC_ERR_PROTO, "<MaxKeys> is not a count: '%.32s'", t);
        break;
    case E_CODE:
        copy_clean(self->err_out->code, sizeof self->err_out->code, t, n);
        break;
    case E_MESSAGE:
        copy_clean(self->err_out->message, sizeof self->err_out->message, t, n);
        break;
    case E_REQUEST_ID:
        copy_clean(self->err_out->request_id, sizeof self->err_out->request_id, t, n);
        break;
    case E_RESOURCE:
        copy_clean(self->err_out->resource, sizeof self->err_out->resource, t, n);
        break;
    default:
        break;
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    va_s3xml_list_t *self = ud;
    if (self->rc || self->depth <= 0)
        return;
    elem_t e = self->stack[self->depth];
    if (e != E_OTHER && e == self->collecting) {
        leaf_done(self, e);
        self->collecting = E_OTHER;
    }
    if (e == E_CONTENTS && !self->rc) {
        if (!self->have_key) {
            fail(self, VC_ERR_PROTO, "<Contents> without a <Key>%s", NULL);
        } else {
            self->page.objects++;
            va_s3xml_object_t o = {self->key, self->key_len, self->size, self->etag,
                                   self->last_modified};
            if (self->on_object && self->on_object(self->ud, &o) != 0)
                fail(self, VC_ERR_CANCELLED, "stopped by the key callback%s", NULL);
        }
    }
    if (--self->depth == 0)
        self->root_done = 1;
}

/* A DTD could declare entities (expansion bombs); S3 replies never have one. */
static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    fail(ud, VC_ERR_PROTO, "a DOCTYPE declaration, which S3 replies never carry%s", NULL);
}

static void reset(va_s3xml_list_t *self, int error_mode)
{
    XML_ParserReset(self->xp, "UTF-8");
    XML_SetUserData(self->xp, self);
    XML_SetElementHandler(self->xp, on_start, on_end);
    XML_SetCharacterDataHandler(self->xp, on_text);
    XML_SetStartDoctypeDeclHandler(self->xp, on_doctype);
    self->error_mode = error_mode;
    self->depth = 0;
    self->root = E_OTHER;
    self->root_done = 0;
    self->rc = VC_OK;
    self->error[0] = '\0';
    self->collecting = E_OTHER;
    self->text_len = 0;
    memset(&self->page, 0, sizeof self->page);
    self->page.is_truncated = -1;
    self->page.key_count = -1;
    self->page.max_keys = -1;
}

va_s3xml_list_t *va_s3xml_list_new(void)
{
    va_s3xml_list_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->xp = XML_ParserCreateNS("UTF-8", NS_SEP);
    if (!self->xp) {
        free(self);
        return NULL;
    }
    reset(self, 0);
    return self;
}

void va_s3xml_list_destroy(va_s3xml_list_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    XML_ParserFree((*self_p)->xp);
    free(*self_p);
    *self_p = NULL;
}

vc_status_t va_s3xml_list_begin(va_s3xml_list_t *self, va_s3xml_object_fn on_object,
                                va_s3xml_prefix_fn on_prefix, void *ud)
{
    reset(self, 0);
    self->on_object = on_object;
    self->on_prefix = on_prefix;
    self->ud = ud;
    self->err_out = NULL;
    return VC_OK;
}

static vc_status_t feed(va_s3xml_list_t *self, const char *data, size_t len, int final)
{
    if (self->rc)
        return self->rc;
    while (len > 0 || final) {
        int n = len > (1u << 30) ? (1 << 30) : (int)len;
        int last = final && (size_t)n == len;
        if (XML_Parse(self->xp, data, n, last) != XML_STATUS_OK) {
            if (!self->rc) {
                enum XML_Error code = XML_GetErrorCode(self->xp);
                const char *why = XML_ErrorString(code);
                int truncated = final && (code == XML_ERROR_NO_ELEMENTS ||
                                          code == XML_ERROR_UNCLOSED_TOKEN ||
                                          code == XML_ERROR_PARTIAL_CHAR);
                char what[160];
                snprintf(what, sizeof what, "%s%s", truncated ? "reply ends too early: " : "malformed XML: ",
                         why ? why : "unknown error");
                fail(self, VC_ERR_PROTO, "%s", what);
            }
            return self->rc;
        }
        data += n;
        len -= (size_t)n;
        if (last)
            break;
    }
    return self->rc;
}

vc_status_t va_s3xml_list_feed(va_s3xml_list_t *self, const char *data, size_t len)
{
    return feed(self, data, len, 0);
}

vc_status_t va_s3xml_list_end(va_s3xml_list_t *self, va_s3xml_page_t *page)
{
    vc_status_t rc = feed(self, "", 0, 1);
    if (!rc && !self->root_done)
        fail(self, VC_ERR_PROTO, "reply ends before </ListBucketResult>%s", NULL);
    if (!self->rc && self->page.is_truncated < 0)
        fail(self, VC_ERR_PROTO, "the listing has no <IsTruncated>%s", NULL);
    if (page)
        *page = self->page;
    return self->rc;
}

const char *va_s3xml_list_error(const va_s3xml_list_t *self) { return self->error; }

vc_status_t va_s3xml_error_parse(const char *body, size_t len, va_s3xml_error_t *out, char *err,
                                 size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    va_s3xml_list_t *p = va_s3xml_list_new();
    if (!p)
        return VC_ERR_NOMEM;
    reset(p, 1);
    p->err_out = out;
    vc_status_t rc = feed(p, body ? body : "", body ? len : 0, 1);
    if (!rc && !p->root_done)
        fail(p, VC_ERR_PROTO, "reply ends before </Error>%s", NULL);
    if (!p->rc && !out->code[0])
        fail(p, VC_ERR_PROTO, "the error reply has no <Code>%s", NULL);
    rc = p->rc;
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", p->error);
    va_s3xml_list_destroy(&p);
    return rc;
}
