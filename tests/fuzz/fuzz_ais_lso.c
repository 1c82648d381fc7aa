/* AIS list-objects reply pages (agent/va_ais_lso.h): the msgpack decoder (with
 * its pre-check of container lengths) and the JSON decoder, one page reused
 * across calls as the client does. The first byte picks the decoder. */
#include "fuzz_util.h"
#include "va_ais_lso.h"

static void check_page(const va_ais_page_t *p)
{
    FUZZ_CHECK(p->uuid != NULL && p->token != NULL);
    for (size_t i = 0; i < p->nentries; i++) {
        const va_ais_entry_t *e = &p->entries[i];
        FUZZ_CHECK(e->name && strlen(e->name) == e->name_len && e->name_len <= VA_AIS_NAME_MAX);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int json = data[0] & 1;
    data++, size--;
    char err[256];
    va_ais_page_t page;
    va_ais_page_init(&page);
    vc_status_t st = json ? va_ais_page_decode_json(data, size, &page, err, sizeof err)
                          : va_ais_page_decode_msgpack(data, size, &page, err, sizeof err);
    if (st == VC_OK) {
        check_page(&page);
        /* Reuse, as across pages of one listing. */
        st = json ? va_ais_page_decode_json(data, size, &page, err, sizeof err)
                  : va_ais_page_decode_msgpack(data, size, &page, err, sizeof err);
        FUZZ_CHECK(st == VC_OK);
        check_page(&page);
    } else {
        FUZZ_CHECK(page.nentries == 0);
    }
    va_ais_page_clear(&page);
    (void)va_ais_msgpack_check(data, size, err, sizeof err);
    return 0;
}
