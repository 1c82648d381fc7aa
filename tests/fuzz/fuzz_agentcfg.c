/* The agent config loader (common/vc_agentcfg.h) on any text; a config that
 * loads is written back and must load again. */
#include <stdio.h>

#include "fuzz_util.h"
#include "vc_agentcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    vc_diag_t *diag = vc_diag_new();
    vc_agentcfg_t cfg;
    vc_agentcfg_init(&cfg);
    vc_status_t st = vc_agentcfg_load_string(text, "/fuzz/agent.cfg", &cfg, diag);
    FUZZ_CHECK(st == VC_OK || vc_diag_count(diag) > 0);
    if (st == VC_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
            abort();
        FUZZ_CHECK(vc_agentcfg_write(&cfg, f) == VC_OK);
        fclose(f);
        vc_agentcfg_t again;
        vc_agentcfg_init(&again);
        vc_diag_clear(diag);
        st = vc_agentcfg_load_string(buf, "/fuzz/agent.cfg", &again, diag);
        if (st != VC_OK)
            vc_diag_print(diag, stderr);
        FUZZ_CHECK(st == VC_OK);
        FUZZ_CHECK(strcmp(again.name, cfg.name) == 0 && again.max_workers == cfg.max_workers);
        free(buf);
    }
    vc_diag_destroy(&diag);
    free(text);
    return 0;
}
