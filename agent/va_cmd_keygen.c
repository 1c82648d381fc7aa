/* vantage keygen: writes a CURVE key pair with czmq's zcert format.
 * DIR/NAME.key is the public certificate (copy it to the coordinator's
 * allow-list directory, or give it to agents as --coordinator-key);
 * DIR/NAME.key_secret holds both keys, mode 0600, and never leaves the host.
 * Existing files are never overwritten unless --force says so: losing a
 * secret key locks an agent out of every coordinator that knows it. */
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "va_cmd.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage keygen DIR [--name NAME] [--force]\n\n"
            "Writes a CURVE key pair: DIR/NAME.key (public, give it to the other side)\n"
            "and DIR/NAME.key_secret (secret, mode 0600, keep it on this host).\n\n"
            "  --name NAME   file name and certificate name (default: this host's name)\n"
            "  --force       replace an existing key pair\n"
            "  --help        this text\n\n"
            "An agent's NAME.key goes into the coordinator's --allow directory; the\n"
            "coordinator's coordinator.key is given to agents with --coordinator-key.\n");
}

static int valid_name(const char *n)
{
    if (!*n || strlen(n) > 64 || n[0] == '.')
        return 0;
    for (const char *p = n; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            return 0;
    return 1;
}

int va_cmd_keygen(int argc, char **argv)
{
    static const struct option opts[] = {{"name", required_argument, NULL, 'n'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    char name[HOST_NAME_MAX + 1] = "";
    int force = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:fh", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            snprintf(name, sizeof name, "%s", optarg);
            break;
        case 'f':
            force = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "vantage keygen: expected one directory argument\n");
        usage(stderr);
        return 2;
    }
    const char *dir = argv[optind];
    if (!name[0]) {
        if (gethostname(name, sizeof name) != 0)
            snprintf(name, sizeof name, "vantage");
        name[strcspn(name, ".")] = '\0';
    }
    if (!valid_name(name)) {
        fprintf(stderr,
                "vantage keygen: invalid name '%s': use 1-64 letters, digits, '-', '_' or '.'\n",
                name);
        return 2;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "vantage keygen: cannot create directory %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char pub[PATH_MAX], sec[PATH_MAX];
    if (snprintf(pub, sizeof pub, "%s/%s.key", dir, name) >= (int)sizeof pub ||
        snprintf(sec, sizeof sec, "%s/%s.key_secret", dir, name) >= (int)sizeof sec) {
        fprintf(stderr, "vantage keygen: path too long: %s\n", dir);
        return 2;
    }
    int exists = access(pub, F_OK) == 0 || access(sec, F_OK) == 0;
    if (exists && !force) {
        fprintf(stderr,
                "vantage keygen: %s or %s already exists; not overwriting a key pair "
                "(use --force to replace it, which locks out every peer that knows the old key)\n",
                pub, sec);
        return 1;
    }
    if (exists && ((unlink(sec) != 0 && errno != ENOENT) || (unlink(pub) != 0 && errno != ENOENT))) {
        fprintf(stderr, "vantage keygen: cannot replace %s: %s\n", pub, strerror(errno));
        return 1;
    }

    int rc = 1;
    zcert_t *cert = zcert_new();
    if (!cert) {
        fprintf(stderr, "vantage keygen: cannot generate a key pair (libsodium/libzmq CURVE)\n");
        return 1;
    }
    zcert_set_meta(cert, "name", "%s", name);
    zcert_set_meta(cert, "created-by", "vantage %s", VANTAGE_VERSION);
    /* The secret file is created with a private umask and then forced to
     * 0600, so no window exists where it is readable by others. */
    mode_t old = umask(077);
    int src = zcert_save_secret(cert, sec);
    umask(old);
    if (src != 0 || chmod(sec, 0600) != 0) {
        fprintf(stderr, "vantage keygen: cannot write %s: %s\n", sec, strerror(errno));
        goto done;
    }
    if (zcert_save_public(cert, pub) != 0) {
        fprintf(stderr, "vantage keygen: cannot write %s: %s\n", pub, strerror(errno));
        unlink(sec);
        goto done;
    }
    chmod(pub, 0644);
    printf("public key  %s  (%s)\nsecret key  %s  (mode 0600, keep it on this host)\n", pub,
           zcert_public_txt(cert), sec);
    rc = 0;
done:
    zcert_destroy(&cert);
    return rc;
}
