/* vc_secretfile: the checks a file holding a secret (a CURVE secret key, a token)
 * must pass before it is used, as ssh does for private keys: a regular file,
 * owned by the user, readable by nobody else. */
#ifndef VC_SECRETFILE_H
#define VC_SECRETFILE_H

#include <stddef.h>

#include "vc_status.h"

/* VC_OK when path is a regular file of this user with no group/other
 * permission bits; VC_ERR_NOTFOUND when it does not exist; VC_ERR_AUTH with
 * what to do (chmod 600) when it is too open; VC_ERR_IO otherwise. */
vc_status_t vc_secretfile_check(const char *path, char *err, size_t errlen);

#endif
