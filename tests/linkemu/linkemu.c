/* linkemu: a user-space link emulator for emulated vantage points. A TCP
 * proxy that gives the connections through it the delay, jitter and rate
 * cap of an access link (ec2, fiber, mobile profiles), so that agents on one
 * machine measure the same storage as if from different places. Also the
 * client of its own control socket (--ctl). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "le_conf.h"
#include "le_proxy.h"
#include "vc_log.h"

#ifndef LINKEMU_PROFILE_DIR
#define LINKEMU_PROFILE_DIR "profiles"
#endif

static void usage(FILE *out)
{
    fprintf(out,
            "usage: linkemu --listen HOST:PORT --upstream HOST:PORT [--listen ... --upstream ...]\n"
            "               [--profile FILE|NAME] [link flags] [--ready-file PATH] [--control SOCK]\n"
            "       linkemu --ctl SOCK COMMAND...\n"
            "\n"
            "A TCP proxy that emulates one access link: every connection accepted on a\n"
            "--listen address goes to the --upstream of the same rank, with a one-way\n"
            "delay, bounded jitter (never reordering) and a rate cap per direction. The\n"
            "rate is shared by all connections of the process, as on one real link.\n"
            "\n"
            "Setup:\n"
            "  --listen HOST:PORT     local address; port 0 picks a free port (see ready line)\n"
            "  --upstream HOST:PORT   where connections of the preceding --listen go\n"
            "  --profile FILE|NAME    link profile (key = value; see profiles/*.cfg); a bare\n"
            "                         NAME is looked up as %s/NAME.cfg\n"
            "  --ready-file PATH      written (atomically) with the ready line once listening\n"
            "  --control SOCK         unix socket taking one command per connection:\n"
            "                         'down [reset|stall] [SECONDS]', 'up', 'status'\n"
            "  --netns NAME           bind the --listen addresses inside network namespace\n"
            "                         NAME (netns.sh add); upstreams are reached from ours.\n"
            "                         An agent there uses the servers' usual addresses, and\n"
            "                         absolute URLs (AIS redirects) cross the link too\n"
            "  --drop-mode reset|stall  what SIGUSR1 does (default reset); SIGUSR2 restores\n"
            "  --drop-seconds S       SIGUSR1 drops for S seconds (default 0: until SIGUSR2)\n"
            "  --seed N               jitter sequence (default: from the clock)\n"
            "  --max-conns N          connections at once (default 1024); more wait in backlog\n"
            "  --log LEVEL            error|warn|info|debug (default: VANTAGE_LOG or info)\n"
            "  --check                print the effective link and exit\n"
            "  --ctl SOCK COMMAND...  send a command to a running emulator, print its answer\n"
            "  --help, --version\n"
            "\n"
            "Link flags (override the profile; up = client -> upstream):\n",
            LINKEMU_PROFILE_DIR);
    le_profile_help(out);
    fprintf(out,
            "\n"
            "Once every listener is bound it prints 'ready ADDR:PORT...' on stdout (the\n"
            "bound addresses in --listen order). A link drop 'reset' resets every open\n"
            "connection and resets new ones on accept; 'stall' lets nothing cross until\n"
            "the link is restored. The TCP handshake with the emulator completes at once;\n"
            "with handshake = 1 a new connection's first bytes wait one RTT instead.\n");
}

static int ctl_client(const char *path, int argc, char **argv)
{
    char line[256] = "";
    size_t off = 0;
    for (int i = 0; i < argc; i++) {
        int n = snprintf(line + off, sizeof(line) - off, "%s%s", i ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(line) - off - 1) {
            fprintf(stderr, "linkemu --ctl: command too long\n");
            return 2;
        }
        off += (size_t)n;
    }
    line[off++] = '\n';
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "linkemu --ctl %s: path too long\n", path);
        return 2;
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        fprintf(stderr, "linkemu --ctl %s: cannot connect: %s (is the emulator running with --control %s?)\n",
                path, strerror(errno), path);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    if (write(fd, line, off) != (ssize_t)off) {
        fprintf(stderr, "linkemu --ctl %s: write failed: %s\n", path, strerror(errno));
        close(fd);
        return 1;
    }
    char reply[1024];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof(reply) - 1 && (n = read(fd, reply + got, sizeof(reply) - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    reply[got] = '\0';
    fputs(reply, stdout);
    return strncmp(reply, "ok", 2) == 0 ? 0 : 1;
}

static int write_ready_file(const char *path, const char *line)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    int bad = fprintf(f, "%s\n", line) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int parse_num(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    if (v == NULL) {
        fprintf(stderr, "linkemu: %s needs a value (try --help)\n", flag);
        return -1;
    }
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end != '\0' || !(x >= lo && x <= hi)) {
        fprintf(stderr, "linkemu: %s %s: expected a number in [%g, %g]\n", flag, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static int load_profile(le_profile_t *p, const char *arg)
{
    char path[4096], err[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s", arg);
    if (stat(path, &st) != 0 && strchr(arg, '/') == NULL)
        snprintf(path, sizeof(path), "%s/%s.cfg", LINKEMU_PROFILE_DIR, arg);
    if (le_profile_load(p, path, err, sizeof(err)) != VC_OK) {
        fprintf(stderr, "linkemu: %s\n", err);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    le_proxy_opts_t o = {.max_conns = 1024, .sig_mode = LE_DROP_RESET};
    le_profile_defaults(&o.profile);
    const char *profile = NULL, *ready_file = NULL;
    size_t nup = 0;
    int check = 0, seeded = 0;
    /* profile flags are applied after the profile whatever their order */
    const char *flags[64][2];
    size_t nflags = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("linkemu (vantage %s)\n", VANTAGE_VERSION);
            return 0;
        } else if (strcmp(a, "--ctl") == 0) {
            if (v == NULL || i + 2 >= argc) {
                fprintf(stderr, "linkemu: --ctl SOCK COMMAND... (try --help)\n");
                return 2;
            }
            return ctl_client(v, argc - i - 2, argv + i + 2);
        } else if (strcmp(a, "--check") == 0) {
            check = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "linkemu: %s needs a value or is unknown (try --help)\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--listen") == 0) {
            if (o.npairs >= LE_MAX_PAIRS) {
                fprintf(stderr, "linkemu: at most %d --listen addresses\n", LE_MAX_PAIRS);
                return 2;
            }
            o.listen[o.npairs++] = v;
        } else if (strcmp(a, "--upstream") == 0) {
            if (nup >= LE_MAX_PAIRS) {
                fprintf(stderr, "linkemu: at most %d --upstream addresses\n", LE_MAX_PAIRS);
                return 2;
            }
            o.upstream[nup++] = v;
        } else if (strcmp(a, "--profile") == 0) {
            profile = v;
        } else if (strcmp(a, "--ready-file") == 0) {
            ready_file = v;
        } else if (strcmp(a, "--control") == 0) {
            o.control_path = v;
        } else if (strcmp(a, "--netns") == 0) {
            o.netns = v;
        } else if (strcmp(a, "--drop-mode") == 0) {
            if (strcmp(v, "reset") == 0)
                o.sig_mode = LE_DROP_RESET;
            else if (strcmp(v, "stall") == 0)
                o.sig_mode = LE_DROP_STALL;
            else {
                fprintf(stderr, "linkemu: --drop-mode %s: expected reset or stall\n", v);
                return 2;
            }
        } else if (strcmp(a, "--drop-seconds") == 0) {
            if (parse_num(a, v, 0, 86400, &o.sig_seconds))
                return 2;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_num(a, v, 0, 9007199254740992.0, &x))
                return 2;
            o.seed = (uint64_t)x;
            seeded = 1;
        } else if (strcmp(a, "--max-conns") == 0) {
            if (parse_num(a, v, 1, 1000000, &x))
                return 2;
            o.max_conns = (int)x;
        } else if (strcmp(a, "--log") == 0) {
            int l = vc_log_level_parse(v);
            if (l < 0) {
                fprintf(stderr, "linkemu: --log %s: expected error, warn, info or debug\n", v);
                return 2;
            }
            vc_log_set_level((vc_log_level_t)l);
        } else if (nflags < sizeof(flags) / sizeof(flags[0]) && strncmp(a, "--", 2) == 0) {
            flags[nflags][0] = a;
            flags[nflags][1] = v;
            nflags++;
        } else {
            fprintf(stderr, "linkemu: unknown option %s (try --help)\n", a);
            return 2;
        }
    }

    if (profile && load_profile(&o.profile, profile) != 0)
        return 2;
    for (size_t k = 0; k < nflags; k++) {
        char err[256];
        vc_status_t rc = le_profile_set_flag(&o.profile, flags[k][0], flags[k][1], err, sizeof(err));
        if (rc == VC_ERR_NOTFOUND) {
            fprintf(stderr, "linkemu: unknown option %s (try --help)\n", flags[k][0]);
            return 2;
        }
        if (rc != VC_OK) {
            fprintf(stderr, "linkemu: %s\n", err);
            return 2;
        }
    }
    if (check) {
        char desc[256];
        le_profile_describe(&o.profile, desc, sizeof(desc));
        printf("%s; buffer %zu bytes per connection and direction\n", desc,
               le_profile_queue_bytes(&o.profile));
        return 0;
    }
    if (o.npairs == 0 || o.npairs != nup) {
        fprintf(stderr, "linkemu: give one --upstream per --listen (%zu --listen, %zu --upstream; try --help)\n",
                o.npairs, nup);
        return 2;
    }
    if (!seeded)
        o.seed = (uint64_t)getpid() ^ ((uint64_t)time(NULL) << 20);

    char err[512], line[1024];
    le_proxy_t *px = le_proxy_new(&o, err, sizeof(err));
    if (px == NULL) {
        fprintf(stderr, "linkemu: %s\n", err);
        return 1;
    }
    le_proxy_ready_line(px, line, sizeof(line));
    if (ready_file && write_ready_file(ready_file, line) != 0) {
        fprintf(stderr, "linkemu: --ready-file %s: cannot write: %s\n", ready_file, strerror(errno));
        le_proxy_destroy(&px);
        return 1;
    }
    printf("%s\n", line);
    fflush(stdout);
    vc_status_t rc = le_proxy_run(px);
    le_proxy_destroy(&px);
    if (ready_file)
        unlink(ready_file);
    return rc == VC_OK ? 0 : 1;
}
