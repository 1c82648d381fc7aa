/* vc_secretfile: permission checks for secret key files. */
#include "vc_secretfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

vc_status_t vc_secretfile_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot read secret file %s: %s", path, strerror(errno));
        return errno == ENOENT ? VC_ERR_NOTFOUND : VC_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "secret file %s is not a regular file", path);
        return VC_ERR_IO;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "secret file %s belongs to another user (uid %u)", path,
                 (unsigned)st.st_uid);
        return VC_ERR_AUTH;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(err, errlen,
                 "secret file %s is accessible by others (mode %03o); run: chmod 600 %s",
                 path, (unsigned)(st.st_mode & 0777), path);
        return VC_ERR_AUTH;
    }
    return VC_OK;
}
