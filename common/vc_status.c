/* vc_status: names of the status codes. */
#include "vc_status.h"

static const char *const names[VC_STATUS_COUNT] = {
    [VC_OK] = "ok",
    [VC_ERR_NOMEM] = "out of memory",
    [VC_ERR_ARG] = "invalid argument",
    [VC_ERR_CONFIG] = "invalid configuration",
    [VC_ERR_IO] = "I/O error",
    [VC_ERR_NET] = "network error",
    [VC_ERR_TIMEOUT] = "timed out",
    [VC_ERR_PROTO] = "malformed message or reply",
    [VC_ERR_SERVER] = "server error",
    [VC_ERR_AUTH] = "authentication failed",
    [VC_ERR_NOTFOUND] = "not found",
    [VC_ERR_MISMATCH] = "result mismatch",
    [VC_ERR_UNSUPPORTED] = "not supported",
    [VC_ERR_CANCELLED] = "cancelled",
    [VC_ERR_INTERNAL] = "internal error",
};

const char *vc_strerror(vc_status_t status)
{
    if ((unsigned)status >= VC_STATUS_COUNT || !names[status])
        return "unknown status";
    return names[status];
}
