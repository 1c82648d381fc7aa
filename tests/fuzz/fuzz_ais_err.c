/* AIS error replies (agent/va_ais_err.h): a JSON body or Hdr-Error header
 * value, under any status. The first two bytes pick the status. */
#include "fuzz_util.h"
#include "va_ais_err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    long status = 100 + (long)((data[0] << 8 | data[1]) % 500);
    data += 2, size -= 2;
    va_ais_err_t e;
    (void)va_ais_err_parse(status, (const char *)data, size, &e);
    FUZZ_CHECK(fuzz_terminated(e.code, sizeof e.code) && e.code[0] != '\0');
    FUZZ_CHECK(fuzz_terminated(e.message, sizeof e.message));
    FUZZ_CHECK(fuzz_terminated(e.node, sizeof e.node));
    for (const char *p = e.message; *p; p++)
        FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
    return 0;
}
