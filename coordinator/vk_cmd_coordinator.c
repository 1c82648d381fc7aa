/* vantage coordinator: loads a campaign and runs vk_coord on it. Also home
 * of the option parsing shared with `vantage run` (vk_cmd_coord_common.h). */
#include <czmq.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vc_campaign.h"
#include "vc_diag.h"
#include "vc_log.h"
#include "vc_parse.h"
#include "vk_cmd.h"
#include "vk_cmd_common.h"
#include "vk_coord.h"
#include "vk_report_text.h"
#include "vk_store.h"
#include "vk_summary.h"

static vk_coord_t *volatile running_coord;

static void on_signal(int sig)
{
    (void)sig;
    if (running_coord)
        vk_coord_stop(running_coord);
}

void vk_cmd_install_signals(vk_coord_t *k)
{
    running_coord = k;
    zsys_handler_set(NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = k ? on_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int vk_cmd_duration_ms(const char *cmd, const char *opt, const char *text, int64_t *out)
{
    char buf[64], err[256];
    /* A bare number means seconds, the unit people expect for timeouts. */
    if (text[0] && strspn(text, "0123456789") == strlen(text) && strlen(text) < 20) {
        snprintf(buf, sizeof buf, "%ss", text);
        text = buf;
    }
    if (vc_parse_duration_ms(text, out, err, sizeof err) != VC_OK) {
        fprintf(stderr, "vantage %s: --%s: %s\n", cmd, opt, err);
        return -1;
    }
    return 0;
}

vc_campaign_t *vk_cmd_load_campaign(const char *cmd, const char *path)
{
    vc_diag_t *diag = vc_diag_new();
    vc_campaign_t *c = NULL;
    vc_status_t rc = vc_campaign_load(path, &c, diag);
    if (rc) {
        fprintf(stderr, "vantage %s: campaign %s is not usable (%s):\n", cmd, path,
                vc_strerror(rc));
        if (diag)
            vc_diag_print(diag, stderr);
    }
    vc_diag_destroy(&diag);
    return c;
}

int vk_cmd_exit_code(vc_status_t rc)
{
    switch (rc) {
    case VC_OK:
        return 0;
    case VC_ERR_MISMATCH:
        return 4; /* finished, with incomplete or failed jobs */
    case VC_ERR_CANCELLED:
        return 130;
    default:
        return 1;
    }
}

void vk_cmd_final_report(const char *dir)
{
    char err[1024], path[PATH_MAX];
    vk_store_t *st = NULL;
    vk_summary_t *sum = NULL;
    if (vk_store_open(dir, VK_STORE_READONLY, &st, err, sizeof err) != VC_OK ||
        vk_summary_build(st, &(vk_filter_t){0}, &sum, err, sizeof err) != VC_OK) {
        vc_warn("report", "no report: %s (try: vantage report %s)", err, dir);
        vk_store_destroy(&st);
        return;
    }
    snprintf(path, sizeof path, "%s/report.txt", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        vk_report_text(sum, f);
        fclose(f);
    }
    vk_report_text(sum, stdout);
    fflush(stdout);
    vc_info("report", "report written to %s (other formats: vantage report %s --format csv|json)",
            path, dir);
    vk_summary_destroy(&sum);
    vk_store_destroy(&st);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage coordinator CAMPAIGN.cfg --bind tcp://ADDR:PORT --out DIR [options]\n\n"
            "Runs a campaign: waits for its agents, sends them their jobs, stores every\n"
            "sample in DIR/results.db. Run it again with the same --out to resume.\n\n"
            "  --bind EP           where agents connect, e.g. tcp://0.0.0.0:5555\n"
            "  --out DIR           campaign output directory (results.db)\n"
            "  --keys DIR|FILE     coordinator key pair: DIR/coordinator.key_secret or the\n"
            "                      _secret file (vantage keygen DIR --name coordinator)\n"
            "  --allow DIR         agents' public .key files: only these agents are admitted\n"
            "                      (default: DIR/allow of --keys DIR)\n"
            "  --insecure          no CURVE (plain TCP): only on a loopback --bind\n"
            "  --wait-agents T     how long to wait for the agents before the first job\n"
            "                      (default: the campaign's agent_wait, 120s; \"90\" = 90 s)\n"
            "  --heartbeat T       heartbeat interval (default 1s)\n"
            "  --lost-after T      an agent silent this long is lost (default 10s)\n"
            "  --rejoin-wait T     at the end, wait this long for lost agents (default 60s)\n"
            "  --progress MODE     auto|tty|log: live table or log lines (default auto)\n"
            "  --no-report         do not print the report at the end (vantage report DIR)\n"
            "  --log LEVEL         error|warn|info|debug\n"
            "  --help              this text\n\n"
            "Exit status: 0 all jobs complete, 4 finished with incomplete or failed jobs,\n"
            "1 error, 2 usage, 130 interrupted (resume by running it again).\n");
}

int vk_cmd_coordinator(int argc, char **argv)
{
    enum { O_BIND = 256, O_OUT, O_KEYS, O_ALLOW, O_INSECURE, O_WAIT, O_HB, O_LOST, O_REJOIN,
           O_PROGRESS, O_LOG, O_NOREPORT, O_HELP };
    static const struct option opts[] = {
        {"bind", required_argument, NULL, O_BIND},
        {"out", required_argument, NULL, O_OUT},
        {"keys", required_argument, NULL, O_KEYS},
        {"allow", required_argument, NULL, O_ALLOW},
        {"insecure", no_argument, NULL, O_INSECURE},
        {"wait-agents", required_argument, NULL, O_WAIT},
        {"heartbeat", required_argument, NULL, O_HB},
        {"lost-after", required_argument, NULL, O_LOST},
        {"rejoin-wait", required_argument, NULL, O_REJOIN},
        {"progress", required_argument, NULL, O_PROGRESS},
        {"log", required_argument, NULL, O_LOG},
        {"no-report", no_argument, NULL, O_NOREPORT},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    vk_coord_opts_t o;
    vk_coord_opts_init(&o);
    const char *keys = NULL, *allow = NULL;
    int report = 1;
    int c, idx = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
        int64_t *dur = NULL;
        switch (c) {
        case O_BIND: o.bind = optarg; break;
        case O_OUT: o.out_dir = optarg; break;
        case O_KEYS: keys = optarg; break;
        case O_ALLOW: allow = optarg; break;
        case O_INSECURE: o.insecure = 1; break;
        case O_NOREPORT: report = 0; break;
        case O_WAIT: dur = &o.wait_agents_ms; break;
        case O_HB: dur = &o.heartbeat_ms; break;
        case O_LOST: dur = &o.lost_after_ms; break;
        case O_REJOIN: dur = &o.rejoin_wait_ms; break;
        case O_PROGRESS:
            if (strcmp(optarg, "auto") == 0)
                o.progress_tty = -1;
            else if (strcmp(optarg, "tty") == 0)
                o.progress_tty = 1;
            else if (strcmp(optarg, "log") == 0)
                o.progress_tty = 0;
            else {
                fprintf(stderr, "vantage coordinator: --progress %s: use auto, tty or log\n",
                        optarg);
                return 2;
            }
            break;
        case O_LOG: {
            int l = vc_log_level_parse(optarg);
            if (l < 0) {
                fprintf(stderr, "vantage coordinator: --log %s: use error, warn, info or debug\n",
                        optarg);
                return 2;
            }
            vc_log_set_level((vc_log_level_t)l);
            break;
        }
        case O_HELP:
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
        if (dur && vk_cmd_duration_ms("coordinator", opts[idx].name, optarg, dur) != 0)
            return 2;
    }
    if (optind != argc - 1 || !o.bind || !o.out_dir) {
        fprintf(stderr, "vantage coordinator: needs CAMPAIGN.cfg, --bind and --out\n");
        usage(stderr);
        return 2;
    }
    char secret[PATH_MAX] = "", allowdir[PATH_MAX] = "";
    if (keys) {
        struct stat st;
        if (stat(keys, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(secret, sizeof secret, "%s/coordinator.key_secret", keys);
            snprintf(allowdir, sizeof allowdir, "%s/allow", keys);
        } else {
            snprintf(secret, sizeof secret, "%s", keys);
        }
    }
    if (allow)
        snprintf(allowdir, sizeof allowdir, "%s", allow);
    if (!o.insecure) {
        o.secret_file = secret[0] ? secret : NULL;
        o.allow_dir = allowdir[0] ? allowdir : NULL;
    }
    vc_campaign_t *camp = vk_cmd_load_campaign("coordinator", argv[optind]);
    if (!camp)
        return 2;
    char err[1024];
    vk_cmd_install_signals(NULL);
    vk_coord_t *k = vk_coord_new(&o, camp, err, sizeof err);
    if (!k) {
        fprintf(stderr, "vantage coordinator: %s\n", err);
        vc_campaign_destroy(&camp);
        return 1;
    }
    vk_cmd_install_signals(k);
    vc_status_t rc = vk_coord_run(k);
    vk_cmd_install_signals(NULL);
    if (rc && rc != VC_ERR_MISMATCH)
        fprintf(stderr, "vantage coordinator: %s\n", vk_coord_error(k));
    vk_coord_destroy(&k);
    if (report && (rc == VC_OK || rc == VC_ERR_MISMATCH))
        vk_cmd_final_report(o.out_dir);
    vc_campaign_destroy(&camp);
    return vk_cmd_exit_code(rc);
}
