/* vc_log: stderr logging. A single write per line so that lines from
 * several threads or processes do not interleave. */
#include "vc_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int level = -1;

static void init_level(void)
{
    if (level >= 0)
        return;
    const char *env = getenv("VANTAGE_LOG");
    int l = env ? vc_log_level_parse(env) : -1;
    level = l >= 0 ? l : VC_LOG_INFO;
}

void vc_log_set_level(vc_log_level_t l) { level = (int)l; }

vc_log_level_t vc_log_get_level(void)
{
    init_level();
    return (vc_log_level_t)level;
}

int vc_log_level_parse(const char *name)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void vc_log(vc_log_level_t l, const char *component, const char *fmt, ...)
{
    init_level();
    if ((int)l > level)
        return;
    static const char *const tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};
    char line[2048];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%02d:%02d:%02d.%03ld %s [%s] ", tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, tags[l], component ? component : "-");
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line - 1)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
