/* vc_endpoint: what a ZeroMQ endpoint string says about where traffic goes,
 * without touching a socket. Plain (unencrypted) links are allowed only where
 * nobody else can listen: loopback TCP, ipc:// and inproc://. */
#ifndef VC_ENDPOINT_H
#define VC_ENDPOINT_H

/* 1 when ep is inproc://, ipc://, or tcp:// to 127.0.0.0/8, ::1 or
 * localhost; 0 for anything else (a wildcard bind to 0.0.0.0 or
 * to any interface counts as not local). */
int vc_endpoint_is_local(const char *ep);

#endif
