/* The protocol decoder (proto/vp_msg.h): every byte a peer sends over ZeroMQ.
 * Both the one-shot and the long-lived decoder see the input; a message that
 * decodes must encode again and decode to the same type (what the agent
 * spools and resends is re-encoded). */
#include "fuzz_util.h"
#include "vp_msg.h"

static vp_decoder_t *g_dec;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    vp_msg_t m;
    vc_status_t st = vp_msg_decode(data, size, &m, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err) || st == VC_OK);
    if (st == VC_OK) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        if (vp_msg_encode(&m, &sb) == VC_OK) {
            vp_msg_t again;
            vc_status_t st2 = vp_msg_decode(sb.data, sb.size, &again, err, sizeof err);
            FUZZ_CHECK(st2 == VC_OK);
            FUZZ_CHECK(again.type == m.type && again.request_id == m.request_id);
            vp_msg_clear(&again);
        }
        msgpack_sbuffer_destroy(&sb);
        vp_msg_clear(&m);
    }
    if (!g_dec)
        g_dec = vp_decoder_new();
    if (g_dec && vp_decoder_decode(g_dec, data, size, &m, err, sizeof err) == VC_OK)
        vp_msg_clear(&m);
    return 0;
}
