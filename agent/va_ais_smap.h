/* va_ais_smap: what vantage needs from an AIS cluster before it measures
 * (ais-rest-api.md §10): the cluster map (targets, and how many are active:
 * not in maintenance or being decommissioned) and the software version, with
 * the gate that refuses NBI on clusters older than AIS 4.3. */
#ifndef VA_AIS_SMAP_H
#define VA_AIS_SMAP_H

#include <stddef.h>

#include "vc_status.h"

typedef struct {
    char uuid[64];         /* cluster uuid */
    char version[32];      /* Smap version (a decimal string) */
    char primary_id[64];
    char primary_url[256]; /* public_net.direct_url of the primary proxy */
    int nproxies;
    int ntargets;
    int nactive;           /* targets without maintenance/decommission flags */
} va_ais_smap_t;

/* Snode flags that take a target out of service (Python Snode.in_maint_or_decomm). */
#define VA_AIS_SNODE_MAINT_MASK 0xcu

vc_status_t va_ais_smap_parse(const char *body, size_t len, va_ais_smap_t *m, char *err,
                              size_t errlen);

/* Parses the what=software_version text ("5.0.0.abc1234", "4.3", with or
 * without a leading 'v' or quotes) into major.minor; clean gets the version
 * made printable (at most 31 bytes). */
vc_status_t va_ais_version_parse(const char *text, size_t len, int *major, int *minor,
                                 char *clean, size_t cleanlen);

#define VA_AIS_NBI_MIN_MAJOR 4
#define VA_AIS_NBI_MIN_MINOR 3

/* VC_OK when major.minor >= 4.3, else VC_ERR_UNSUPPORTED with a message that
 * names the version found and where. */
vc_status_t va_ais_version_check_nbi(int major, int minor, const char *version,
                                     const char *where, char *err, size_t errlen);

#endif
