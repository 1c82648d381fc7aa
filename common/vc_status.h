/* vc_status: the one status type every vantage function returns.
 * OK is zero so that `if (rc)` reads as "if it failed". */
#ifndef VC_STATUS_H
#define VC_STATUS_H

typedef enum {
    VC_OK = 0,
    VC_ERR_NOMEM,      /* allocation failed */
    VC_ERR_ARG,        /* bad argument, option or value given by the user */
    VC_ERR_CONFIG,     /* bad config or campaign file */
    VC_ERR_IO,         /* local file or socket I/O */
    VC_ERR_NET,        /* connection to a peer or server failed */
    VC_ERR_TIMEOUT,    /* something took longer than allowed */
    VC_ERR_PROTO,      /* a peer's message or a server's reply is malformed */
    VC_ERR_SERVER,     /* a server answered with an error status */
    VC_ERR_AUTH,       /* authentication or signature rejected */
    VC_ERR_NOTFOUND,   /* bucket, key, job or inventory does not exist */
    VC_ERR_MISMATCH,   /* a result differs from what was expected (counts) */
    VC_ERR_UNSUPPORTED,/* the peer or server cannot do what was asked */
    VC_ERR_CANCELLED,  /* stopped on request */
    VC_ERR_INTERNAL,   /* a bug: an invariant did not hold */
    VC_STATUS_COUNT
} vc_status_t;

/* A short English phrase for the status; never NULL. */
const char *vc_strerror(vc_status_t status);

#endif
