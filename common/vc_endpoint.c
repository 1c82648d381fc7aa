/* vc_endpoint: classification of ZeroMQ endpoint strings. */
#include "vc_endpoint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

int vc_endpoint_is_local(const char *ep)
{
    if (!ep)
        return 0;
    if (strncmp(ep, "inproc://", 9) == 0 || strncmp(ep, "ipc://", 6) == 0)
        return 1;
    if (strncmp(ep, "tcp://", 6) != 0)
        return 0;
    const char *host = ep + 6;
    /* "tcp://IFACE;HOST:PORT" names a source interface: the host is after ';'. */
    const char *semi = strchr(host, ';');
    if (semi)
        host = semi + 1;
    char h[256];
    size_t len;
    if (host[0] == '[') {
        const char *end = strchr(host, ']');
        if (!end)
            return 0;
        len = (size_t)(end - host - 1);
        host++;
    } else {
        const char *colon = strrchr(host, ':');
        len = colon ? (size_t)(colon - host) : strlen(host);
    }
    if (len == 0 || len >= sizeof h)
        return 0;
    memcpy(h, host, len);
    h[len] = '\0';
    if (strcmp(h, "localhost") == 0)
        return 1;
    struct in_addr a4;
    if (inet_pton(AF_INET, h, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    struct in6_addr a6;
    if (inet_pton(AF_INET6, h, &a6) == 1)
        return memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
    return 0;
}
