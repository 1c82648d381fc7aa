/* vc_fs: file-system helpers. */
#include "vc_fs.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

int vc_mkdir_p(const char *dir, mode_t mode)
{
    char tmp[PATH_MAX];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof tmp) {
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(tmp, dir, len + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, mode) != 0 && errno != EEXIST ? -1 : 0;
}
