/* vantage run: a whole campaign on this machine in one command. The
 * coordinator runs in this process; each agent of the campaign is a separate
 * process of this same executable (/proc/self/exe agent ...) connected over
 * loopback with CURVE keys made for the run under OUT/keys (kept, so running
 * the command again resumes the campaign with the same keys and spools).
 * Agents' logs go to OUT/logs/agent-NAME.log. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vc_fs.h"
#include "vc_clock.h"
#include "vc_log.h"
#include "vk_cmd.h"
#include "vk_cmd_common.h"
#include "vk_coord.h"

#define SELF "/proc/self/exe"
#define MAX_AGENT_ARGS 24

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage run CAMPAIGN.cfg --out DIR [options]\n\n"
            "Runs the coordinator and every agent of the campaign on this machine (agents\n"
            "as separate processes over loopback, with CURVE keys made for the run in\n"
            "DIR/keys). Results in DIR/results.db; run it again to resume.\n\n"
            "  --out DIR          campaign output directory\n"
            "  --port N           loopback port for the coordinator (default: any free one)\n"
            "  --insecure         no CURVE between the local processes\n"
            "  --wait-agents T    how long to wait for the agents to start (default 60s)\n"
            "  --batch N          samples per SAMPLES message of the agents (default 1000)\n"
            "  --no-fsync         agents do not fsync their spools (benchmarks only)\n"
            "  --progress MODE    auto|tty|log\n"
            "  --log LEVEL        error|warn|info|debug\n"
            "  --help             this text\n");
}

/* Runs argv (of this executable) to completion; output to logfd if >= 0. */
static int run_self(char *const argv[], int logfd)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (logfd >= 0) {
            dup2(logfd, STDOUT_FILENO);
            dup2(logfd, STDERR_FILENO);
        }
        execv(SELF, argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static pid_t spawn_self(char *const argv[], const char *logpath)
{
    int fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        /* The agent must not take the terminal's Ctrl-C: the coordinator
         * stops it with SIGTERM after the campaign. */
        setpgid(0, 0);
        execv(SELF, argv);
        _exit(127);
    }
    close(fd);
    return pid;
}

static int ensure_key(const char *dir, const char *name, int quiet_fd)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.key_secret", dir, name);
    if (access(path, F_OK) == 0)
        return 0;
    char *argv[] = {"vantage", "keygen", (char *)dir, "--name", (char *)name, NULL};
    return run_self(argv, quiet_fd) == 0 ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[4096];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    fclose(in);
    if (fclose(out) != 0)
        rc = -1;
    return rc;
}

static void stop_agents(pid_t *pids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGTERM);
    vc_mono_ns_t deadline = vc_mono_now() + 10 * VC_NS_PER_S;
    for (size_t left = n; left > 0 && vc_mono_now() < deadline;) {
        left = 0;
        for (size_t i = 0; i < n; i++) {
            if (pids[i] <= 0)
                continue;
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
                pids[i] = 0;
            else
                left++;
        }
        if (left)
            vc_sleep_ns(20 * VC_NS_PER_MS);
    }
    for (size_t i = 0; i < n; i++)
        if (pids[i] > 0) {
            vc_warn("run", "agent process %d did not stop; killing it", (int)pids[i]);
            kill(pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
        }
}

int vk_cmd_run(int argc, char **argv)
{
    enum { O_OUT = 256, O_PORT, O_INSECURE, O_WAIT, O_BATCH, O_NOFSYNC, O_PROGRESS, O_LOG,
           O_HELP };
    static const struct option opts[] = {
        {"out", required_argument, NULL, O_OUT},
        {"port", required_argument, NULL, O_PORT},
        {"insecure", no_argument, NULL, O_INSECURE},
        {"wait-agents", required_argument, NULL, O_WAIT},
        {"batch", required_argument, NULL, O_BATCH},
        {"no-fsync", no_argument, NULL, O_NOFSYNC},
        {"progress", required_argument, NULL, O_PROGRESS},
        {"log", required_argument, NULL, O_LOG},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    vk_coord_opts_t o;
    vk_coord_opts_init(&o);
    o.wait_agents_ms = 60000;
    o.rejoin_wait_ms = 10000;
    const char *out = NULL, *batch = NULL, *loglevel = NULL;
    long port = 0;
    int nofsync = 0;
    int c, idx = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
        switch (c) {
        case O_OUT: out = optarg; break;
        case O_PORT: {
            char *end;
            port = strtol(optarg, &end, 10);
            if (*end || port < 1 || port > 65535) {
                fprintf(stderr, "vantage run: --port %s: expected 1..65535\n", optarg);
                return 2;
            }
            break;
        }
        case O_INSECURE: o.insecure = 1; break;
        case O_WAIT:
            if (vk_cmd_duration_ms("run", "wait-agents", optarg, &o.wait_agents_ms) != 0)
                return 2;
            break;
        case O_BATCH: batch = optarg; break;
        case O_NOFSYNC: nofsync = 1; break;
        case O_PROGRESS:
            o.progress_tty = strcmp(optarg, "tty") == 0 ? 1 : strcmp(optarg, "log") == 0 ? 0 : -1;
            if (o.progress_tty < 0 && strcmp(optarg, "auto") != 0) {
                fprintf(stderr, "vantage run: --progress %s: use auto, tty or log\n", optarg);
                return 2;
            }
            break;
        case O_LOG:
            if (vc_log_level_parse(optarg) < 0) {
                fprintf(stderr, "vantage run: --log %s: use error, warn, info or debug\n", optarg);
                return 2;
            }
            vc_log_set_level((vc_log_level_t)vc_log_level_parse(optarg));
            loglevel = optarg;
            break;
        case O_HELP:
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1 || !out) {
        fprintf(stderr, "vantage run: needs CAMPAIGN.cfg and --out DIR\n");
        usage(stderr);
        return 2;
    }
    vc_campaign_t *camp = vk_cmd_load_campaign("run", argv[optind]);
    if (!camp)
        return 2;

    int rcode = 1;
    vk_coord_t *k = NULL;
    size_t nag = vc_campaign_agent_count(camp);
    pid_t *pids = calloc(nag ? nag : 1, sizeof *pids);
    char keys[PATH_MAX], agkeys[PATH_MAX], allow[PATH_MAX], spool[PATH_MAX], logs[PATH_MAX],
        secret[PATH_MAX], ckey[PATH_MAX], bind[64], err[1024];
    snprintf(keys, sizeof keys, "%s/keys", out);
    snprintf(agkeys, sizeof agkeys, "%s/keys/agents", out);
    snprintf(allow, sizeof allow, "%s/keys/allow", out);
    snprintf(spool, sizeof spool, "%s/spool", out);
    snprintf(logs, sizeof logs, "%s/logs", out);
    snprintf(secret, sizeof secret, "%s/coordinator.key_secret", keys);
    snprintf(ckey, sizeof ckey, "%s/coordinator.key", keys);
    if (!pids || vc_mkdir_p(out, 0755) || vc_mkdir_p(keys, 0700) || vc_mkdir_p(agkeys, 0700) ||
        vc_mkdir_p(allow, 0700) || vc_mkdir_p(spool, 0700) || vc_mkdir_p(logs, 0755)) {
        fprintf(stderr, "vantage run: cannot create the directories under %s: %s\n", out,
                strerror(errno));
        goto done;
    }
    if (!o.insecure) {
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        int bad = ensure_key(keys, "coordinator", devnull);
        for (size_t i = 0; i < nag && !bad; i++) {
            const char *name = vc_campaign_agent(camp, i)->name;
            char from[PATH_MAX], to[PATH_MAX];
            snprintf(from, sizeof from, "%s/%s.key", agkeys, name);
            snprintf(to, sizeof to, "%s/%s.key", allow, name);
            bad = ensure_key(agkeys, name, devnull) || copy_file(from, to);
        }
        if (devnull >= 0)
            close(devnull);
        if (bad) {
            fprintf(stderr, "vantage run: cannot make the run's CURVE keys in %s\n", keys);
            goto done;
        }
        o.secret_file = secret;
        o.allow_dir = allow;
    }
    if (port)
        snprintf(bind, sizeof bind, "tcp://127.0.0.1:%ld", port);
    else
        snprintf(bind, sizeof bind, "tcp://127.0.0.1:*");
    o.bind = bind;
    o.out_dir = out;
    vk_cmd_install_signals(NULL);
    if (!(k = vk_coord_new(&o, camp, err, sizeof err))) {
        fprintf(stderr, "vantage run: %s\n", err);
        goto done;
    }
    for (size_t i = 0; i < nag; i++) {
        const vc_campaign_agent_t *ag = vc_campaign_agent(camp, i);
        char logpath[PATH_MAX];
        snprintf(logpath, sizeof logpath, "%s/agent-%s.log", logs, ag->name);
        char *av[MAX_AGENT_ARGS];
        int n = 0;
        av[n++] = "vantage";
        av[n++] = "agent";
        av[n++] = "--connect";
        av[n++] = (char *)vk_coord_endpoint(k);
        av[n++] = "--name";
        av[n++] = (char *)ag->name;
        av[n++] = "--site";
        av[n++] = (char *)ag->site;
        av[n++] = "--spool";
        av[n++] = spool;
        if (o.insecure) {
            av[n++] = "--insecure";
        } else {
            av[n++] = "--keys";
            av[n++] = agkeys;
            av[n++] = "--coordinator-key";
            av[n++] = ckey;
        }
        if (batch) {
            av[n++] = "--batch";
            av[n++] = (char *)batch;
        }
        if (nofsync)
            av[n++] = "--no-fsync";
        if (loglevel) {
            av[n++] = "--log";
            av[n++] = (char *)loglevel;
        }
        av[n] = NULL;
        pids[i] = spawn_self(av, logpath);
        if (pids[i] < 0) {
            fprintf(stderr, "vantage run: cannot start agent %s: %s\n", ag->name,
                    strerror(errno));
            goto done;
        }
        vc_info("run", "agent %s started (pid %d, log %s)", ag->name, (int)pids[i], logpath);
    }
    vk_cmd_install_signals(k);
    vc_status_t rc = vk_coord_run(k);
    vk_cmd_install_signals(NULL);
    if (rc && rc != VC_ERR_MISMATCH)
        fprintf(stderr, "vantage run: %s\n", vk_coord_error(k));
    rcode = vk_cmd_exit_code(rc);
    vk_coord_destroy(&k);
    stop_agents(pids, nag);
    if (rc == VC_OK || rc == VC_ERR_MISMATCH)
        vk_cmd_final_report(out);
done:
    vk_coord_destroy(&k);
    if (pids)
        stop_agents(pids, nag);
    free(pids);
    vc_campaign_destroy(&camp);
    return rcode;
}
