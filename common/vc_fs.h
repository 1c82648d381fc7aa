/* vc_fs: small file-system helpers shared by the commands and the store. */
#ifndef VC_FS_H
#define VC_FS_H

#include <sys/types.h>

/* Creates dir and any missing parents (like mkdir -p). Missing parents get
 * mode 0755, dir itself gets mode; an existing directory is fine. Returns 0,
 * or -1 with errno set (ENAMETOOLONG for a path longer than PATH_MAX). */
int vc_mkdir_p(const char *dir, mode_t mode);

#endif
