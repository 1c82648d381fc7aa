/* vc_log: one line per event on stderr, with time, level and component.
 * The level comes from VANTAGE_LOG (error|warn|info|debug) or vc_log_set_level().
 * Never log a secret: credentials are not passed to these functions anywhere. */
#ifndef VC_LOG_H
#define VC_LOG_H

typedef enum { VC_LOG_ERROR = 0, VC_LOG_WARN, VC_LOG_INFO, VC_LOG_DEBUG } vc_log_level_t;

void vc_log_set_level(vc_log_level_t level);
vc_log_level_t vc_log_get_level(void);
/* Parses "error", "warn", "info", "debug"; returns -1 on anything else. */
int vc_log_level_parse(const char *name);

void vc_log(vc_log_level_t level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define vc_error(comp, ...) vc_log(VC_LOG_ERROR, comp, __VA_ARGS__)
#define vc_warn(comp, ...) vc_log(VC_LOG_WARN, comp, __VA_ARGS__)
#define vc_info(comp, ...) vc_log(VC_LOG_INFO, comp, __VA_ARGS__)
#define vc_debug(comp, ...) vc_log(VC_LOG_DEBUG, comp, __VA_ARGS__)

#endif
