/* vk_auth: who may talk to the coordinator. A ZAP handler (ZeroMQ's
 * authentication protocol) that admits a CURVE client only when its public
 * key is in the allow-list directory (czmq zcertstore: one public .key file
 * per agent, re-read when the directory changes, so adding a key needs no
 * restart). A refused client is logged with its address and public key
 * (never anything secret), at most once a minute per key. An admitted
 * client's messages carry User-Id = its public key (Z85) and the property
 * "Name" = the certificate's name, so the coordinator can tie an agent name
 * to a key.
 * czmq's zauth does the same lookup but cannot report which key it refused
 * nor tell the key's name, hence this small handler over the same zcertstore.
 * One per process (ZAP is per ZeroMQ context); start it before binding. */
#ifndef VK_AUTH_H
#define VK_AUTH_H

#include <czmq.h>
#include <stddef.h>

#include "vc_status.h"

typedef struct vk_auth vk_auth_t;

/* Starts the handler. allow_dir must be a readable directory. Caller owns the
 * result; NULL with a message in err on failure. */
vk_auth_t *vk_auth_new(const char *allow_dir, char *err, size_t errlen);
void vk_auth_destroy(vk_auth_t **p);

/* Clients admitted and refused so far (for logs and tests). */
void vk_auth_counts(vk_auth_t *a, size_t *admitted, size_t *refused);

/* Loads a key pair whose secret half is at secret_file (zcert format, as
 * `vantage keygen` writes; checked to be private to this user) and makes
 * sock a CURVE server with it. */
vc_status_t vk_auth_apply_server(zsock_t *sock, const char *secret_file, char *err,
                                 size_t errlen);

#endif
