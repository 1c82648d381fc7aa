/* le_conf: profile options, driven by one table (see le_conf.h). */
#include "le_conf.h"

#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

typedef struct {
    const char *flag; /* command-line flag, NULL if profile only */
    const char *key;  /* profile key, NULL if flag only */
    size_t off[2];    /* the double(s) it sets; off[1] == NONE for one */
    double min, max;
    const char *unit;
    const char *help;
} le_opt_t;

#define F(field) offsetof(le_profile_t, field)

static const le_opt_t opts[] = {
    {"--delay-up", "delay_up_ms", {F(delay_ms[LE_UP]), NONE}, 0, 60000, "ms",
     "one-way delay client -> upstream"},
    {"--delay-down", "delay_down_ms", {F(delay_ms[LE_DOWN]), NONE}, 0, 60000, "ms",
     "one-way delay upstream -> client"},
    {"--delay", NULL, {F(delay_ms[LE_UP]), F(delay_ms[LE_DOWN])}, 0, 60000, "ms",
     "both one-way delays (RTT = up + down)"},
    {"--jitter-up", "jitter_up_ms", {F(jitter_ms[LE_UP]), NONE}, 0, 60000, "ms",
     "uniform +- on each up chunk's delay"},
    {"--jitter-down", "jitter_down_ms", {F(jitter_ms[LE_DOWN]), NONE}, 0, 60000, "ms",
     "uniform +- on each down chunk's delay"},
    {"--jitter", NULL, {F(jitter_ms[LE_UP]), F(jitter_ms[LE_DOWN])}, 0, 60000, "ms",
     "both jitters"},
    {"--rate-up", "rate_up_mbit", {F(rate_mbit[LE_UP]), NONE}, 0, 100000, "Mbit/s",
     "upload payload rate, shared by all connections; 0 = no cap"},
    {"--rate-down", "rate_down_mbit", {F(rate_mbit[LE_DOWN]), NONE}, 0, 100000, "Mbit/s",
     "download payload rate, shared by all connections; 0 = no cap"},
    {"--burst", "burst_kib", {F(burst_kib), NONE}, 0, 65536, "KiB",
     "token bucket depth; 0 = automatic (20 ms of the rate, >= 2 chunks)"},
    {"--queue", "queue_kib", {F(queue_kib), NONE}, 0, 65536, "KiB",
     "buffer per connection and direction before reading stops; 0 = automatic"},
    {"--handshake", "handshake", {F(handshake), NONE}, 0, 1, "0|1",
     "1: a new connection's first bytes wait one RTT, as after a real TCP handshake"},
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

void le_profile_defaults(le_profile_t *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "custom");
    p->handshake = 1;
}

static void opt_store(le_profile_t *p, const le_opt_t *o, double v)
{
    for (int i = 0; i < 2; i++)
        if (o->off[i] != NONE)
            *(double *)(void *)((char *)p + o->off[i]) = v;
}

static int opt_in_range(const le_opt_t *o, double v)
{
    if (!isfinite(v) || v < o->min || v > o->max)
        return 0;
    /* the 0|1 switch takes nothing in between */
    return o->max != 1 || v == 0 || v == 1;
}

vc_status_t le_profile_load(le_profile_t *p, const char *path, char *err, size_t errlen)
{
    vc_status_t rc = VC_OK;
    config_t cfg;
    config_init(&cfg);
    if (!config_read_file(&cfg, path)) {
        if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
            snprintf(err, errlen, "%s: cannot read the profile: %s", path, strerror(errno));
        else
            snprintf(err, errlen, "%s:%d: %s", config_error_file(&cfg) ? config_error_file(&cfg) : path,
                     config_error_line(&cfg), config_error_text(&cfg));
        rc = VC_ERR_CONFIG;
        goto done;
    }
    config_setting_t *root = config_root_setting(&cfg);
    int n = config_setting_length(root);
    for (int i = 0; i < n; i++) {
        config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *key = config_setting_name(s);
        int line = (int)config_setting_source_line(s);
        int type = config_setting_type(s);
        if (key && strcmp(key, "name") == 0) {
            const char *v = config_setting_get_string(s);
            if (v == NULL || strlen(v) >= sizeof(p->name) || strlen(v) == 0) {
                snprintf(err, errlen, "%s:%d: name must be a non-empty string under %zu characters",
                         path, line, sizeof(p->name));
                rc = VC_ERR_CONFIG;
                goto done;
            }
            snprintf(p->name, sizeof(p->name), "%s", v);
            continue;
        }
        const le_opt_t *o = NULL;
        for (size_t k = 0; k < NOPTS && key; k++)
            if (opts[k].key && strcmp(opts[k].key, key) == 0)
                o = &opts[k];
        if (o == NULL) {
            snprintf(err, errlen, "%s:%d: unknown key '%s' (see linkemu --help for the keys)", path,
                     line, key ? key : "?");
            rc = VC_ERR_CONFIG;
            goto done;
        }
        double v;
        if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
            v = (double)config_setting_get_int64(s);
        else if (type == CONFIG_TYPE_FLOAT)
            v = config_setting_get_float(s);
        else if (type == CONFIG_TYPE_BOOL)
            v = config_setting_get_bool(s) ? 1 : 0;
        else {
            snprintf(err, errlen, "%s:%d: %s must be a number (%s)", path, line, key, o->unit);
            rc = VC_ERR_CONFIG;
            goto done;
        }
        if (!opt_in_range(o, v)) {
            snprintf(err, errlen, "%s:%d: %s = %g is out of range [%g, %g] %s", path, line, key, v,
                     o->min, o->max, o->unit);
            rc = VC_ERR_CONFIG;
            goto done;
        }
        opt_store(p, o, v);
    }
done:
    config_destroy(&cfg);
    return rc;
}

vc_status_t le_profile_set_flag(le_profile_t *p, const char *flag, const char *value, char *err,
                                size_t errlen)
{
    for (size_t k = 0; k < NOPTS; k++) {
        const le_opt_t *o = &opts[k];
        if (o->flag == NULL || strcmp(o->flag, flag) != 0)
            continue;
        if (value == NULL) {
            snprintf(err, errlen, "%s needs a value (%s)", flag, o->unit);
            return VC_ERR_ARG;
        }
        char *end = NULL;
        errno = 0;
        double v = strtod(value, &end);
        if (errno || end == value || *end != '\0' || !opt_in_range(o, v)) {
            snprintf(err, errlen, "%s %s: expected a number in [%g, %g] %s", flag, value, o->min,
                     o->max, o->unit);
            return VC_ERR_ARG;
        }
        opt_store(p, o, v);
        return VC_OK;
    }
    return VC_ERR_NOTFOUND;
}

le_link_params_t le_profile_link(const le_profile_t *p, int dir)
{
    le_link_params_t lp = {
        .delay_ms = p->delay_ms[dir],
        .jitter_ms = p->jitter_ms[dir],
        .rate_mbit = p->rate_mbit[dir],
        .burst = (size_t)(p->burst_kib * 1024.0),
    };
    return lp;
}

size_t le_profile_queue_bytes(const le_profile_t *p)
{
    if (p->queue_kib > 0)
        return (size_t)(p->queue_kib * 1024.0);
    /* The buffer holds what waits for the link plus what is in flight on it:
     * twice the larger bandwidth-delay product keeps a single connection at
     * full rate; 256 KiB at least (an uncapped link still has a delay), 8 MiB
     * at most so that many connections stay cheap. */
    double bdp = 0;
    for (int d = 0; d < 2; d++) {
        double rate = p->rate_mbit[d] > 0 ? p->rate_mbit[d] : 1000.0;
        double b = rate * 1e6 / 8.0 * (p->delay_ms[d] + p->jitter_ms[d]) / 1e3;
        if (b > bdp)
            bdp = b;
    }
    double q = 2 * bdp;
    if (q < 256 * 1024.0)
        q = 256 * 1024.0;
    if (q > 8 * 1024 * 1024.0)
        q = 8 * 1024 * 1024.0;
    return (size_t)q;
}

static void rate_text(double mbit, char *buf, size_t len)
{
    if (mbit > 0)
        snprintf(buf, len, "%g Mbit/s", mbit);
    else
        snprintf(buf, len, "no cap");
}

void le_profile_describe(const le_profile_t *p, char *buf, size_t len)
{
    char up[32], down[32];
    rate_text(p->rate_mbit[LE_UP], up, sizeof(up));
    rate_text(p->rate_mbit[LE_DOWN], down, sizeof(down));
    snprintf(buf, len, "%s: up %g+-%g ms %s, down %g+-%g ms %s, RTT %g ms", p->name,
             p->delay_ms[LE_UP], p->jitter_ms[LE_UP], up, p->delay_ms[LE_DOWN],
             p->jitter_ms[LE_DOWN], down, p->delay_ms[LE_UP] + p->delay_ms[LE_DOWN]);
}

void le_profile_help(FILE *out)
{
    for (size_t k = 0; k < NOPTS; k++) {
        const le_opt_t *o = &opts[k];
        char left[64];
        snprintf(left, sizeof(left), "%s %s", o->flag, o->unit);
        fprintf(out, "  %-22s %s%s%s%s\n", left, o->help, o->key ? " [profile: " : "",
                o->key ? o->key : "", o->key ? "]" : "");
    }
}
