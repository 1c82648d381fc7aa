/* The campaign loader (common/vc_campaign.h) on any text. A campaign that
 * loads is written back (vantage check) and must load again to a campaign
 * whose written form is the same: the loader and the writer agree. */
#include <stdio.h>

#include "fuzz_util.h"
#include "vc_campaign.h"

static char *write_text(const vc_campaign_t *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    FUZZ_CHECK(vc_campaign_write(c, f) == VC_OK);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    vc_diag_t *diag = vc_diag_new();
    vc_campaign_t *c = NULL;
    vc_status_t st = vc_campaign_load_string(text, "fuzz.cfg", &c, diag);
    FUZZ_CHECK((st == VC_OK) == (c != NULL));
    FUZZ_CHECK(st == VC_OK || vc_diag_count(diag) > 0);
    if (c) {
        char *once = write_text(c);
        vc_campaign_t *again = NULL;
        vc_diag_clear(diag);
        st = vc_campaign_load_string(once, "fuzz.cfg", &again, diag);
        if (st != VC_OK)
            vc_diag_print(diag, stderr);
        FUZZ_CHECK(st == VC_OK);
        char *twice = write_text(again);
        FUZZ_CHECK(strcmp(once, twice) == 0);
        free(twice);
        free(once);
        vc_campaign_destroy(&again);
        vc_campaign_destroy(&c);
    }
    vc_diag_destroy(&diag);
    free(text);
    return 0;
}
