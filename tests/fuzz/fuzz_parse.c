/* The command-line and config value parsers (common/vc_parse.h): sizes,
 * durations, counts, percentages, booleans, integers and endpoint URLs. A
 * value that parses formats to a text that parses back to the same value.
 * The first byte picks the parser. */
#include "fuzz_util.h"
#include "vc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 8;
    char *text = fuzz_cstr(data + 1, size - 1);
    char err[256];
    char buf[VC_FMT_MAX];
    int64_t v, back;
    switch (which) {
    case 0:
        if (vc_parse_size(text, &v, err, sizeof err) == VC_OK) {
            FUZZ_CHECK(v >= 0);
            FUZZ_CHECK(vc_parse_size(vc_format_size(v, buf, sizeof buf), &back, NULL, 0) == VC_OK);
            FUZZ_CHECK(back == v);
        }
        break;
    case 1:
        if (vc_parse_duration_ns(text, &v, err, sizeof err) == VC_OK) {
            FUZZ_CHECK(v >= 0);
            FUZZ_CHECK(vc_parse_duration_ns(vc_format_duration_ns(v, buf, sizeof buf), &back, NULL,
                                            0) == VC_OK);
            FUZZ_CHECK(back == v);
        }
        break;
    case 2:
        if (vc_parse_duration_ms(text, &v, err, sizeof err) == VC_OK)
            FUZZ_CHECK(v >= 0);
        break;
    case 3:
        if (vc_parse_count(text, &v, err, sizeof err) == VC_OK) {
            FUZZ_CHECK(v >= 0);
            FUZZ_CHECK(vc_parse_count(vc_format_count(v, buf, sizeof buf), &back, NULL, 0) == VC_OK);
            FUZZ_CHECK(back == v);
        }
        break;
    case 4: {
        double f;
        if (vc_parse_percent(text, &f, err, sizeof err) == VC_OK)
            FUZZ_CHECK(f >= 0.0 && f <= 1.0);
        break;
    }
    case 5: {
        int b;
        if (vc_parse_bool(text, &b, err, sizeof err) == VC_OK)
            FUZZ_CHECK(b == 0 || b == 1);
        break;
    }
    case 6:
        if (vc_parse_int(text, -1000000, INT64_MAX, &v, err, sizeof err) == VC_OK)
            FUZZ_CHECK(v >= -1000000);
        break;
    default:
        if (vc_parse_http_url(text, err, sizeof err) == VC_OK)
            FUZZ_CHECK(strncmp(text, "http", 4) == 0);
        break;
    }
    free(text);
    return 0;
}
