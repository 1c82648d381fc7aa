/* vc_opt: reading, writing and documenting libconfig settings from option
 * tables. Everything a person typed is checked here once, so the loaders
 * built on it only add the checks that span several options. */
#include "vc_opt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vc_parse.h"

#define PATH_MAX_LEN 256

void vc_opt_error(vc_opt_ctx_t *ctx, const config_setting_t *s, const char *path, const char *fmt,
                  ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *file = ctx->file;
    int line = 0;
    if (s) {
        line = config_setting_source_line(s);
        if (config_setting_source_file(s))
            file = config_setting_source_file(s);
    }
    vc_diag_add(ctx->diag, file, line, path, "%s", msg);
    ctx->errors++;
}

void vc_opt_syntax_error(const config_t *cfg, const char *file, vc_diag_t *diag)
{
    const char *text = config_error_text(cfg) ? config_error_text(cfg) : "cannot parse";
    const char *where = config_error_file(cfg) ? config_error_file(cfg) : file;
    if (strcmp(text, "syntax error") == 0)
        vc_diag_add(diag, where, config_error_line(cfg), NULL,
                    "syntax error: look for a missing ',' between list elements, a missing ';' "
                    "after a setting, or an unclosed bracket or quote, here or just before");
    else
        vc_diag_add(diag, where, config_error_line(cfg), NULL, "syntax error: %s", text);
}

static const char *type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP: return "a group { ... }";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a floating-point number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
    case CONFIG_TYPE_LIST: return "a list ( ... )";
    default: return "nothing";
    }
}

static const char *expects(const vc_opt_t *o)
{
    switch (o->type) {
    case VC_OPT_STRING: return "a string";
    case VC_OPT_INT: return "an integer";
    case VC_OPT_BOOL: return "true or false";
    case VC_OPT_SIZE: return "a size (an integer in bytes or a string like \"5MiB\")";
    case VC_OPT_DURATION: return "a duration string with a unit, like \"200ms\" or \"10s\"";
    case VC_OPT_COUNT: return "a count (an integer or a string like \"80K\")";
    case VC_OPT_ENUM: return "a string";
    default: return "a value";
    }
}

int vc_opt_valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 63 || !isalnum((unsigned char)name[0]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c) && c != '_' && c != '-' && c != '.')
            return 0;
    }
    return 1;
}

static int is_int(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

static void store_int(const vc_opt_t *o, void *obj, int64_t v)
{
    char *p = (char *)obj + o->off;
    if (o->size == sizeof(int)) {
        int i = (int)v;
        memcpy(p, &i, sizeof i);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static int64_t load_int(const vc_opt_t *o, const void *obj)
{
    const char *p = (const char *)obj + o->off;
    if (o->size == sizeof(int)) {
        int i;
        memcpy(&i, p, sizeof i);
        return i;
    }
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void format_number(const vc_opt_t *o, int64_t v, char *buf, size_t len)
{
    if (o->type == VC_OPT_SIZE)
        vc_format_size(v, buf, len);
    else if (o->type == VC_OPT_DURATION)
        vc_format_duration_ns(v * 1000000, buf, len);
    else
        snprintf(buf, len, "%" PRId64, v);
}

static int has_range(const vc_opt_t *o)
{
    return o->min != 0 || o->max != 0;
}

static int check_range(const vc_opt_t *o, const config_setting_t *s, int64_t v, const char *path,
                       vc_opt_ctx_t *ctx)
{
    int64_t max = o->max;
    if (!has_range(o))
        max = o->size == sizeof(int) ? INT32_MAX : INT64_MAX;
    if (v >= o->min && v <= max && (o->size != sizeof(int) || v <= INT32_MAX))
        return 0;
    char lo[VC_FMT_MAX], hi[VC_FMT_MAX], got[VC_FMT_MAX];
    format_number(o, o->min, lo, sizeof lo);
    format_number(o, max, hi, sizeof hi);
    format_number(o, v, got, sizeof got);
    vc_opt_error(ctx, s, path, "%s is out of range: must be between %s and %s", got, lo, hi);
    return 1;
}

int vc_opt_read_one(const vc_opt_t *o, const config_setting_t *s, void *obj, const char *path,
                    vc_opt_ctx_t *ctx)
{
    int t = config_setting_type(s);
    char err[256];
    int64_t v = 0;
    vc_status_t rc;
    switch (o->type) {
    case VC_OPT_CUSTOM:
        return o->parse ? o->parse(o, s, obj, ctx, path) : 0;
    case VC_OPT_STRING: {
        if (t != CONFIG_TYPE_STRING)
            break;
        const char *str = config_setting_get_string(s);
        size_t n = strlen(str);
        if (n >= o->size) {
            vc_opt_error(ctx, s, path, "too long (%zu characters; at most %zu)", n, o->size - 1);
            return 1;
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)str[i];
            if ((ch < 0x20 || ch == 0x7f) &&
                !((o->flags & VC_OPT_MULTILINE) && (ch == '\n' || ch == '\t'))) {
                vc_opt_error(ctx, s, path, "contains a control character (code %u) at position "
                                           "%zu", ch, i);
                return 1;
            }
        }
        if ((o->flags & VC_OPT_NONEMPTY) && n == 0) {
            vc_opt_error(ctx, s, path, "must not be empty");
            return 1;
        }
        if ((o->flags & VC_OPT_NAME) && !vc_opt_valid_name(str)) {
            vc_opt_error(ctx, s, path,
                         "\"%.64s\" is not a valid name: use 1 to 63 letters, digits, '_', '-' "
                         "or '.', starting with a letter or digit",
                         str);
            return 1;
        }
        memcpy((char *)obj + o->off, str, n + 1);
        return 0;
    }
    case VC_OPT_BOOL: {
        int b;
        if (t == CONFIG_TYPE_BOOL) {
            b = config_setting_get_bool(s);
        } else if (t == CONFIG_TYPE_STRING) {
            if (vc_parse_bool(config_setting_get_string(s), &b, err, sizeof err)) {
                vc_opt_error(ctx, s, path, "%s", err);
                return 1;
            }
        } else {
            break;
        }
        store_int(o, obj, b);
        return 0;
    }
    case VC_OPT_INT:
        if (!is_int(s))
            break;
        v = config_setting_get_int64(s);
        if (check_range(o, s, v, path, ctx))
            return 1;
        store_int(o, obj, v);
        return 0;
    case VC_OPT_SIZE:
    case VC_OPT_COUNT:
    case VC_OPT_DURATION:
        if (is_int(s) && o->type != VC_OPT_DURATION) {
            v = config_setting_get_int64(s);
            if (v < 0) {
                vc_opt_error(ctx, s, path, "must not be negative");
                return 1;
            }
        } else if (t == CONFIG_TYPE_STRING) {
            const char *str = config_setting_get_string(s);
            rc = o->type == VC_OPT_SIZE    ? vc_parse_size(str, &v, err, sizeof err)
                 : o->type == VC_OPT_COUNT ? vc_parse_count(str, &v, err, sizeof err)
                                           : vc_parse_duration_ms(str, &v, err, sizeof err);
            if (rc) {
                vc_opt_error(ctx, s, path, "%s", err);
                return 1;
            }
        } else if (is_int(s)) {
            vc_opt_error(ctx, s, path, "a duration needs a unit: write it as a string, e.g. "
                                       "\"%lldms\" or \"%llds\"",
                         config_setting_get_int64(s), config_setting_get_int64(s));
            return 1;
        } else {
            break;
        }
        if (check_range(o, s, v, path, ctx))
            return 1;
        store_int(o, obj, v);
        return 0;
    case VC_OPT_ENUM: {
        if (t != CONFIG_TYPE_STRING)
            break;
        const char *str = config_setting_get_string(s);
        for (int i = 0; o->choices[i]; i++) {
            if (strcmp(o->choices[i], str) == 0) {
                store_int(o, obj, i);
                return 0;
            }
        }
        char list[256] = "";
        for (int i = 0; o->choices[i]; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", o->choices[i]);
        }
        vc_opt_error(ctx, s, path, "unknown value \"%.64s\": expected one of %s", str, list);
        return 1;
    }
    }
    vc_opt_error(ctx, s, path, "expects %s, got %s", expects(o), type_name(t));
    return 1;
}

const vc_opt_t *vc_opt_find(const vc_opt_t *table, const char *name, int v)
{
    for (const vc_opt_t *o = table; o->name; o++)
        if (strcmp(o->name, name) == 0 && (o->mask == 0 || (o->mask & (1u << v))))
            return o;
    return NULL;
}

static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
            d[i][j] = c < x ? (c < y ? c : y) : (x < y ? x : y);
        }
    return d[la][lb];
}

static int looks_like_secret(const char *name)
{
    static const char *const words[] = {"secret", "password", "passwd", "token", "access_key",
                                        "accesskey", "access-key", "credential", "session_key",
                                        "private_key", "api_key", "apikey"};
    char low[128];
    size_t n = strlen(name);
    if (n >= sizeof low)
        n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i]))
            return 1;
    return 0;
}

static void join_path(char *out, size_t len, const char *base, const char *name)
{
    if (base && *base)
        snprintf(out, len, "%s.%s", base, name);
    else
        snprintf(out, len, "%s", name);
}

int vc_opt_read_group(const vc_opt_t *table, const config_setting_t *group, void *obj, int v,
                      const char *const *variants, const char *path, vc_opt_ctx_t *ctx)
{
    int errors = 0;
    int n = config_setting_length(group);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
        const char *name = config_setting_name(s);
        char sub[PATH_MAX_LEN];
        join_path(sub, sizeof sub, path, name ? name : "?");
        if (!name)
            continue;
        const vc_opt_t *o = vc_opt_find(table, name, v);
        if (o) {
            errors += vc_opt_read_one(o, s, obj, sub, ctx);
            continue;
        }
        /* Not for this variant, or not at all. */
        const vc_opt_t *other = NULL;
        for (const vc_opt_t *x = table; x->name; x++)
            if (strcmp(x->name, name) == 0)
                other = x;
        if (other && variants) {
            char list[256] = "";
            for (int k = 0; variants[k]; k++)
                if (other->mask & (1u << k)) {
                    size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", *list ? ", " : "", variants[k]);
                }
            vc_opt_error(ctx, s, sub, "'%s' does not apply to %s (only to: %s)", name,
                         variants[v], list);
        } else if (looks_like_secret(name)) {
            vc_opt_error(ctx, s, sub,
                         "'%s' looks like a credential: credentials never go in this file. "
                         "Each agent reads its own from its environment, its AWS credentials "
                         "file or its AIS token file (see the agent config)",
                         name);
        } else {
            const char *best = NULL;
            int bestd = 3;
            for (const vc_opt_t *x = table; x->name; x++) {
                if (x->mask && !(x->mask & (1u << v)))
                    continue;
                int d = distance(name, x->name);
                if (d < bestd) {
                    bestd = d;
                    best = x->name;
                }
            }
            if (best)
                vc_opt_error(ctx, s, sub, "unknown setting '%s' (did you mean '%s'?)", name, best);
            else
                vc_opt_error(ctx, s, sub, "unknown setting '%s'", name);
        }
        errors++;
    }
    for (const vc_opt_t *o = table; o->name; o++) {
        if (!(o->flags & VC_OPT_REQUIRED) || (o->mask && !(o->mask & (1u << v))))
            continue;
        if (!config_setting_get_member(group, o->name)) {
            vc_opt_error(ctx, group, path, "missing required setting '%s': %s", o->name, o->help);
            errors++;
        }
    }
    return errors;
}

void vc_opt_write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '\f': fputs("\\f", out); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(out, "\\x%02x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void vc_opt_write_value(const vc_opt_t *o, const void *obj, FILE *out)
{
    char buf[VC_FMT_MAX];
    switch (o->type) {
    case VC_OPT_STRING:
        vc_opt_write_string(out, (const char *)obj + o->off);
        break;
    case VC_OPT_INT:
    case VC_OPT_COUNT: {
        int64_t v = load_int(o, obj);
        fprintf(out, "%" PRId64 "%s", v, (v > INT32_MAX || v < INT32_MIN) ? "L" : "");
        break;
    }
    case VC_OPT_BOOL:
        fputs(load_int(o, obj) ? "true" : "false", out);
        break;
    case VC_OPT_SIZE:
    case VC_OPT_DURATION:
        format_number(o, load_int(o, obj), buf, sizeof buf);
        vc_opt_write_string(out, buf);
        break;
    case VC_OPT_ENUM: {
        int64_t i = load_int(o, obj);
        int n = 0;
        while (o->choices[n])
            n++;
        vc_opt_write_string(out, i >= 0 && i < n ? o->choices[i] : "?");
        break;
    }
    case VC_OPT_CUSTOM:
        if (o->write)
            o->write(o, obj, out, 0, NULL);
        break;
    }
}

void vc_opt_write_group(const vc_opt_t *table, const void *obj, int v, FILE *out, int indent,
                        const void *user)
{
    for (const vc_opt_t *o = table; o->name; o++) {
        if ((o->mask && !(o->mask & (1u << v))) || (o->flags & VC_OPT_INPUT_ONLY))
            continue;
        if ((o->type == VC_OPT_CUSTOM && !o->write) || (o->omit && o->omit(obj)))
            continue;
        fprintf(out, "%*s%s = ", indent, "", o->name);
        if (o->type == VC_OPT_CUSTOM)
            o->write(o, obj, out, indent, user);
        else
            vc_opt_write_value(o, obj, out);
        fprintf(out, ";  # %s\n", o->help);
    }
}

static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else if (*s == '\n')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

static void doc_type(const vc_opt_t *o, FILE *out)
{
    char lo[VC_FMT_MAX], hi[VC_FMT_MAX];
    static const char *const names[] = {
        [VC_OPT_STRING] = "string",   [VC_OPT_INT] = "integer",   [VC_OPT_BOOL] = "boolean",
        [VC_OPT_SIZE] = "size",       [VC_OPT_DURATION] = "duration", [VC_OPT_COUNT] = "count",
        [VC_OPT_ENUM] = "one of",     [VC_OPT_CUSTOM] = "",
    };
    if (o->type == VC_OPT_CUSTOM) {
        md_cell(out, o->doc_type ? o->doc_type : "");
        return;
    }
    fputs(names[o->type], out);
    if (o->type == VC_OPT_ENUM)
        for (int i = 0; o->choices[i]; i++)
            fprintf(out, "%s`%s`", i ? ", " : " ", o->choices[i]);
    if (o->type == VC_OPT_STRING && (o->flags & VC_OPT_NAME))
        fputs(" (name)", out);
    if (has_range(o)) {
        format_number(o, o->min, lo, sizeof lo);
        format_number(o, o->max, hi, sizeof hi);
        fprintf(out, ", %s to %s", lo, hi);
    }
}

void vc_opt_write_reference(const vc_opt_t *table, const char *const *variants, int nvariants,
                            void (*init)(void *obj, int v), size_t obj_size, FILE *out)
{
    void *obj = calloc(1, obj_size);
    if (!obj)
        return;
    fprintf(out, "| option | type | default | %shelp |\n", variants ? "applies to | " : "");
    fprintf(out, "|---|---|---|%s---|\n", variants ? "---|" : "");
    for (const vc_opt_t *o = table; o->name; o++) {
        fprintf(out, "| `%s` | ", o->name);
        doc_type(o, out);
        fputs(" | ", out);
        if (o->flags & VC_OPT_REQUIRED) {
            fputs("required", out);
        } else if (o->doc_default || o->type == VC_OPT_CUSTOM) {
            md_cell(out, o->doc_default ? o->doc_default : "");
        } else {
            /* One value, or the value per variant when they differ. */
            char vals[32][64];
            int nv = 0, same = 1;
            int idx[32];
            for (int k = 0; k < (nvariants ? nvariants : 1) && k < 32; k++) {
                if (o->mask && !(o->mask & (1u << k)))
                    continue;
                init(obj, k);
                char *buf = NULL;
                size_t len = 0;
                FILE *m = open_memstream(&buf, &len);
                if (!m)
                    continue;
                vc_opt_write_value(o, obj, m);
                fclose(m);
                snprintf(vals[nv], sizeof vals[nv], "%s", buf ? buf : "");
                free(buf);
                idx[nv] = k;
                if (nv > 0 && strcmp(vals[nv], vals[0]) != 0)
                    same = 0;
                nv++;
            }
            for (int k = 0; k < nv; k++) {
                if (same && k > 0)
                    break;
                if (!same)
                    fprintf(out, "%s%s: ", k ? "; " : "", variants[idx[k]]);
                fputc('`', out);
                md_cell(out, vals[k]);
                fputc('`', out);
            }
        }
        fputs(" | ", out);
        if (variants) {
            if (!o->mask) {
                fputs("all", out);
            } else {
                int first = 1;
                for (int k = 0; k < nvariants; k++)
                    if (o->mask & (1u << k)) {
                        fprintf(out, "%s%s", first ? "" : ", ", variants[k]);
                        first = 0;
                    }
            }
            fputs(" | ", out);
        }
        md_cell(out, o->help);
        fputs(" |\n", out);
    }
    free(obj);
}
