/* The S3 error-body parser (agent/va_s3xml.h): what a 4xx/5xx reply carries. */
#include "fuzz_util.h"
#include "va_s3xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    va_s3xml_error_t e;
    char err[256] = "";
    vc_status_t st = va_s3xml_error_parse((const char *)data, size, &e, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(e.code, sizeof e.code));
    FUZZ_CHECK(fuzz_terminated(e.message, sizeof e.message));
    FUZZ_CHECK(fuzz_terminated(e.request_id, sizeof e.request_id));
    FUZZ_CHECK(fuzz_terminated(e.resource, sizeof e.resource));
    /* The fields are printed as they are: no control characters. */
    for (const char *p = e.message; *p; p++)
        FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
    FUZZ_CHECK(st == VC_OK || err[0] != '\0');
    return 0;
}
