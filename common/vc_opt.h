/* vc_opt: option tables (name, type, default, range, help) for libconfig
 * files, in the manner of fio's option table. One table describes a group of
 * settings (a campaign's top level, a target, a job, the agent config); the
 * same table reads a group into a struct with every error reported as
 * "FILE:LINE: PATH: what", writes the struct back in libconfig syntax, and
 * writes the Markdown reference. Campaign and agent config use it.
 *
 * A table may serve several variants of one group (job kinds, target kinds):
 * `mask` has bit v set for each variant v that accepts the option (0: all). */
#ifndef VC_OPT_H
#define VC_OPT_H

#include <libconfig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vc_diag.h"

typedef enum {
    VC_OPT_STRING,   /* char[size] */
    VC_OPT_INT,      /* int or int64_t (by size): a libconfig integer */
    VC_OPT_BOOL,     /* int: true/false (or a string vc_parse_bool reads) */
    VC_OPT_SIZE,     /* int64_t bytes: integer or "5MiB" */
    VC_OPT_DURATION, /* int64_t milliseconds: "200ms", "10s" (a unit is required) */
    VC_OPT_COUNT,    /* int or int64_t: integer or "80K" */
    VC_OPT_ENUM,     /* int: index into choices */
    VC_OPT_CUSTOM,   /* parsed and written by the callbacks (or by the caller when NULL) */
} vc_opt_type_t;

enum {
    VC_OPT_REQUIRED = 1u << 0,   /* must be given */
    VC_OPT_INPUT_ONLY = 1u << 1, /* read but not written back (expanded into other options) */
    VC_OPT_NONEMPTY = 1u << 2,   /* strings: "" is an error */
    VC_OPT_NAME = 1u << 3,       /* strings: a name, [A-Za-z0-9_.-]+ */
    VC_OPT_MULTILINE = 1u << 4,  /* strings: newlines and tabs allowed (other control
                                  * characters never are, in any string) */
};

typedef struct vc_opt_s vc_opt_t;

/* State of one read: where messages go, what the file is called. */
typedef struct {
    const char *file;
    vc_diag_t *diag;
    int errors;
    void *user; /* for custom callbacks (the campaign being loaded) */
} vc_opt_ctx_t;

struct vc_opt_s {
    const char *name;
    vc_opt_type_t type;
    unsigned mask;
    unsigned flags;
    size_t off;
    size_t size;
    int64_t min, max;            /* INT, SIZE, DURATION (ms), COUNT; min == max == 0: no range */
    const char *const *choices;  /* ENUM: NULL-terminated */
    const char *help;
    /* CUSTOM: parse returns 0 or the number of errors it reported. */
    int (*parse)(const vc_opt_t *o, const config_setting_t *s, void *obj, vc_opt_ctx_t *ctx,
                 const char *path);
    /* CUSTOM: writes the value (after "name = "); user as given to write_group. */
    void (*write)(const vc_opt_t *o, const void *obj, FILE *out, int indent, const void *user);
    /* Optional: non-zero when the option is not written back for obj (unset). */
    int (*omit)(const void *obj);
    const char *doc_type;        /* CUSTOM: type for the reference */
    const char *doc_default;     /* the default for the reference, when not the init value */
};

/* Reports an error at setting s (its line) or at line 0 when s is NULL. */
void vc_opt_error(vc_opt_ctx_t *ctx, const config_setting_t *s, const char *path, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

/* Reports the parse error libconfig left in cfg (file, line, what). */
void vc_opt_syntax_error(const config_t *cfg, const char *file, vc_diag_t *diag);

/* Reads every setting of group into obj for variant v (0..31). Reports
 * unknown names (with a suggestion, and a pointed message for anything that
 * looks like a credential), options of another variant, wrong types, values
 * out of range and missing required options. `variants` names the variants
 * for messages (may be NULL). Returns the number of errors. */
int vc_opt_read_group(const vc_opt_t *table, const config_setting_t *group, void *obj, int v,
                      const char *const *variants, const char *path, vc_opt_ctx_t *ctx);
/* Reads one setting with one option (no unknown-name checks). */
int vc_opt_read_one(const vc_opt_t *o, const config_setting_t *s, void *obj, const char *path,
                    vc_opt_ctx_t *ctx);
const vc_opt_t *vc_opt_find(const vc_opt_t *table, const char *name, int v);

/* Writes the options of variant v, table order, as "name = value;  # help"
 * lines indented by indent spaces. */
void vc_opt_write_group(const vc_opt_t *table, const void *obj, int v, FILE *out, int indent,
                        const void *user);
/* The value alone, in libconfig syntax (strings quoted and escaped). */
void vc_opt_write_value(const vc_opt_t *o, const void *obj, FILE *out);
/* A libconfig string literal. */
void vc_opt_write_string(FILE *out, const char *s);

/* Markdown table: option, type, default, range, applies to, help. `init`
 * fills obj with the defaults of variant v (obj_size bytes); the default
 * column shows the value per variant when they differ. */
void vc_opt_write_reference(const vc_opt_t *table, const char *const *variants, int nvariants,
                            void (*init)(void *obj, int v), size_t obj_size, FILE *out);

/* "name" is a valid name: 1..63 of [A-Za-z0-9_.-], starting with a letter or digit. */
int vc_opt_valid_name(const char *name);

#endif
