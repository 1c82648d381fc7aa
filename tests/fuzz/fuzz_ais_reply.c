/* The other AIS replies vantage reads (agent/va_ais_smap.h, va_ais_job.h,
 * va_ais_nbi.h): cluster map, software version, job id, job status, job
 * snapshots (server-side NBI creation time), RFC 3339 times and the
 * show-inventory reply. The first byte picks the parser. */
#include "fuzz_util.h"
#include "va_ais_job.h"
#include "va_ais_nbi.h"
#include "va_ais_smap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 7;
    data++, size--;
    const char *body = (const char *)data;
    char err[256];
    switch (which) {
    case 0: {
        va_ais_smap_t m;
        if (va_ais_smap_parse(body, size, &m, err, sizeof err) == VC_OK)
            FUZZ_CHECK(m.nactive >= 0 && m.nactive <= m.ntargets);
        break;
    }
    case 1: {
        int major, minor;
        char clean[32];
        if (va_ais_version_parse(body, size, &major, &minor, clean, sizeof clean) == VC_OK) {
            FUZZ_CHECK(fuzz_terminated(clean, sizeof clean));
            (void)va_ais_version_check_nbi(major, minor, clean, "fuzz", err, sizeof err);
        }
        break;
    }
    case 2: {
        char id[VA_AIS_JOB_ID_MAX];
        if (va_ais_job_id_parse(body, size, id, sizeof id, err, sizeof err) == VC_OK)
            FUZZ_CHECK(id[0] != '\0' && strlen(id) < VA_AIS_JOB_ID_MAX);
        break;
    }
    case 3: {
        va_ais_job_status_t st;
        (void)va_ais_job_status_parse(body, size, &st, err, sizeof err);
        break;
    }
    case 4: {
        va_ais_job_time_t t;
        if (va_ais_job_total_time(body, size, &t, err, sizeof err) == VC_OK)
            FUZZ_CHECK(t.nsnaps >= 1 && t.ntargets >= 1);
        break;
    }
    case 5: {
        char *s = fuzz_cstr(data, size);
        int64_t ns;
        int is_zero;
        (void)va_ais_rfc3339_parse(s, &ns, &is_zero);
        free(s);
        break;
    }
    default: {
        va_ais_inv_t *invs = NULL;
        size_t n = 0;
        if (va_ais_nbi_show_parse(body, size, &invs, &n, err, sizeof err) == VC_OK)
            FUZZ_CHECK((n == 0) == (invs == NULL));
        free(invs);
        break;
    }
    }
    return 0;
}
