/* The ListObjectsV2 page parser (agent/va_s3xml.h), fed the way libcurl hands
 * it a body: in pieces. The first byte chooses the piece size so the fuzzer
 * also explores element and character-data boundaries falling between feeds. */
#include "fuzz_util.h"
#include "va_s3xml.h"

static va_s3xml_list_t *g_list;

static int on_obj(void *ud, const va_s3xml_object_t *o)
{
    (void)ud;
    FUZZ_CHECK(o->key && strlen(o->key) == o->key_len && o->key_len <= VA_S3XML_KEY_MAX);
    FUZZ_CHECK(o->etag && o->last_modified);
    return 0;
}

static int on_prefix(void *ud, const char *p, size_t len)
{
    (void)ud;
    FUZZ_CHECK(p && strlen(p) == len);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!g_list && !(g_list = va_s3xml_list_new()))
        abort();
    size_t piece = data[0] ? data[0] : size;
    data++, size--;
    if (va_s3xml_list_begin(g_list, on_obj, on_prefix, NULL) != VC_OK)
        abort();
    vc_status_t st = VC_OK;
    for (size_t off = 0; off < size && st == VC_OK; off += piece) {
        size_t n = size - off < piece ? size - off : piece;
        st = va_s3xml_list_feed(g_list, (const char *)data + off, n);
    }
    va_s3xml_page_t page;
    vc_status_t end = va_s3xml_list_end(g_list, &page);
    if (end == VC_OK) {
        FUZZ_CHECK(page.is_truncated == 0 || page.is_truncated == 1);
        FUZZ_CHECK(fuzz_terminated(page.next_token, sizeof page.next_token));
        FUZZ_CHECK(page.objects >= 0 && page.prefixes >= 0);
    } else {
        FUZZ_CHECK(va_s3xml_list_error(g_list)[0] != '\0');
    }
    return 0;
}
