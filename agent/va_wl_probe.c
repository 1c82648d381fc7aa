/* va_wl_probe: TCP connect time and a 404 HEAD, on a schedule. */
#include "va_wl_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "va_target.h"
#include "va_wl.h"
#include "vc_log.h"

#define COMP "probe"
#define MAX_COUNT 1000000
#define MAX_INTERVAL_MS (3600 * 1000)
#define CONNECT_TIMEOUT_MS 10000

vc_status_t va_wl_split_hostport(const char *hp, char *host, size_t hostlen, char *port,
                                 size_t portlen)
{
    const char *colon, *h = hp;
    size_t hl;
    if (!hp || !*hp)
        return VC_ERR_ARG;
    if (hp[0] == '[') {
        const char *close = strchr(hp, ']');
        if (!close || close[1] != ':')
            return VC_ERR_ARG;
        h = hp + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(hp, ':');
        if (!colon || strchr(hp, ':') != colon)
            return VC_ERR_ARG;
        hl = (size_t)(colon - hp);
    }
    const char *p = colon + 1;
    size_t pl = strlen(p);
    if (!hl || hl >= hostlen || !pl || pl >= portlen || pl > 5 || strspn(p, "0123456789") != pl)
        return VC_ERR_ARG;
    long v = strtol(p, NULL, 10);
    if (v < 1 || v > 65535)
        return VC_ERR_ARG;
    memcpy(host, h, hl);
    host[hl] = '\0';
    memcpy(port, p, pl + 1);
    return VC_OK;
}

int va_wl_probe_late(int64_t lag_ns, int64_t interval_ns)
{
    int64_t slack = interval_ns / 10;
    if (slack < 10 * VC_NS_PER_MS)
        slack = 10 * VC_NS_PER_MS;
    return lag_ns > slack;
}

/* One timed connect to ai; fills s. */
static void probe_connect(const struct addrinfo *ai, const char *where, vc_sample_t *s)
{
    int64_t u0, s0, u1, s1;
    int err = 0;
    VC_SAMPLE_SET(s, op, "probe-connect");
    vc_thread_cpu_us(&u0, &s0);
    s->start_wall_ns = vc_wall_now();
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
    vc_mono_ns_t t0 = vc_mono_now();
    if (fd < 0) {
        err = errno;
    } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            err = errno;
        } else {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int n;
            do
                n = poll(&p, 1, CONNECT_TIMEOUT_MS);
            while (n < 0 && errno == EINTR);
            socklen_t len = sizeof err;
            if (n == 0)
                err = ETIMEDOUT;
            else if (n < 0)
                err = errno;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                err = errno;
        }
    }
    s->duration_ns = vc_mono_now() - t0;
    vc_thread_cpu_us(&u1, &s1);
    if (fd >= 0)
        close(fd);
    s->cpu_user_us = u1 - u0;
    s->cpu_sys_us = s1 - s0;
    s->bytes_sent = s->bytes_recv = 0;
    s->keys = -1;
    if (!err) {
        s->connect_us = (int32_t)(s->duration_ns / 1000);
        return;
    }
    char msg[VC_ERRMSG_MAX];
    s->err_class = err == ETIMEDOUT ? VC_EC_TIMEOUT : VC_EC_CONNECT;
    const char *name = strerrorname_np(err);
    VC_SAMPLE_SET(s, err_code, name ? name : "ConnectFailed");
    snprintf(msg, sizeof msg, "TCP connect to %s failed: %s", where, strerror(err));
    VC_SAMPLE_SET(s, err_msg, msg);
}

static vc_status_t check(const vc_job_t *job, char *err, size_t errlen)
{
    if (job->probe_count < 1 || job->probe_count > MAX_COUNT) {
        snprintf(err, errlen, "probe: probe_count %d is out of range (1..%d)", job->probe_count,
                 MAX_COUNT);
        return VC_ERR_ARG;
    }
    if (job->probe_interval_ms < 0 || job->probe_interval_ms > MAX_INTERVAL_MS) {
        snprintf(err, errlen, "probe: probe_interval_ms %" PRId64 " is out of range (0..%d)",
                 job->probe_interval_ms, MAX_INTERVAL_MS);
        return VC_ERR_ARG;
    }
    return VC_OK;
}

/* Sleeps until the monotonic time `until`, waking to check for a cancel. */
static void sleep_until(va_wl_t *wl, vc_mono_ns_t until)
{
    for (;;) {
        vc_mono_ns_t now = vc_mono_now();
        if (now >= until || va_wl_cancelled(wl))
            return;
        int64_t d = until - now;
        vc_sleep_ns(d > 50 * VC_NS_PER_MS ? 50 * VC_NS_PER_MS : d);
    }
}

vc_status_t va_wl_probe(const vc_job_t *job, const va_workload_env_t *env, char *err,
                        size_t errlen)
{
    vc_status_t rc = check(job, err, errlen);
    if (rc)
        return rc;
    va_target_opts_t to = {.timeout_ms = job->timeout_ms};
    struct addrinfo *ai = NULL;
    va_wl_t *wl = NULL;
    char host[256], port[8], key[VC_NAME_MAX + 64], where[300];
    va_target_t *client = va_target_new(&job->target, &to, err, errlen);
    if (!client)
        return VC_ERR_CONFIG;
    snprintf(where, sizeof where, "%s", va_target_where(client));
    if (va_wl_split_hostport(where, host, sizeof host, port, sizeof port) != VC_OK) {
        rc = VC_ERR_ARG;
        snprintf(err, errlen, "probe: cannot tell host and port from the endpoint '%s'", where);
        goto done;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g != 0 || !ai) {
        rc = VC_ERR_NET;
        snprintf(err, errlen, "probe: cannot resolve %s: %s (check the target's endpoint)", where,
                 gai_strerror(g));
        goto done;
    }
    snprintf(key, sizeof key, "vantage-probe/%s/missing",
             env->agent_name && *env->agent_name && !strchr(env->agent_name, '/')
                 ? env->agent_name
                 : "agent");
    if (!(wl = va_wl_new(job, env, "probe", 1))) {
        rc = VC_ERR_NOMEM;
        snprintf(err, errlen, "probe: out of memory");
        goto done;
    }
    va_wl_set_total(wl, 2 * (int64_t)job->probe_count);
    va_wl_progress(wl, 1);
    int64_t interval = job->probe_interval_ms * VC_NS_PER_MS;
    /* Labelled by the target's campaign name, the same from every site, so
     * the report compares the sites' baselines; host:port (which differs when
     * sites reach the target through different addresses) stays in messages. */
    const char *label = job->target.name[0] ? job->target.name : where;
    vc_mono_ns_t t0 = vc_mono_now();
    for (int i = 0; i < job->probe_count; i++) {
        vc_mono_ns_t due = t0 + (int64_t)i * interval;
        sleep_until(wl, due);
        if (va_wl_cancelled(wl))
            break;
        int late = va_wl_probe_late(vc_mono_now() - due, interval);
        vc_sample_t s;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, label, label);
        s.scale = 0;
        s.run = i;
        s.worker = 0;
        probe_connect(ai, where, &s);
        va_wl_emit(wl, &s, late);

        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, label, label);
        s.scale = 0;
        s.run = i;
        s.worker = 0;
        vc_status_t hr = va_target_head(client, key, &s);
        if (hr == VC_ERR_NOTFOUND || s.http_status == 404) {
            /* the expected answer to a probe */
            s.err_class = VC_EC_NONE;
            s.err_code[0] = s.err_msg[0] = '\0';
        } else if (hr != VC_OK) {
            vc_debug(COMP, "%s", va_target_error(client));
        }
        VC_SAMPLE_SET(&s, op, "probe-head");
        va_wl_emit(wl, &s, late);
    }
    va_wl_progress(wl, 1);
    if (va_wl_cancelled(wl)) {
        rc = VC_ERR_CANCELLED;
        snprintf(err, errlen, "probe: cancelled");
    }
done:
    if (ai)
        freeaddrinfo(ai);
    va_wl_destroy(&wl);
    va_target_destroy(&client);
    return rc;
}
