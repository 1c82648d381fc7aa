/* vantage agent: command line (and optional config file) for va_agent.
 * Options on the command line override the config file. SIGINT/SIGTERM stop
 * the agent cleanly: the current batch is spooled and the agent says BYE. */
#include <czmq.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "va_agent.h"
#include "va_calibrate_cli.h"
#include "va_cmd.h"
#include "vc_fs.h"
#include "vc_agentcfg.h"
#include "vc_clock.h"
#include "vc_diag.h"
#include "vc_log.h"
#include "vc_parse.h"
#include "vc_secretfile.h"

static va_agent_t *volatile running_agent;

static void on_signal(int sig)
{
    (void)sig;
    if (running_agent)
        va_agent_stop(running_agent);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage agent --connect tcp://HOST:PORT --name NAME [options]\n"
            "       vantage agent --calibrate [--calibrate-count N]\n\n"
            "Connects out to a coordinator, runs the jobs it sends and streams the samples\n"
            "back. Samples are spooled to disk until the coordinator acknowledges them, so\n"
            "a lost link or a restart with the same --spool loses nothing.\n\n"
            "  --connect EP           coordinator endpoint, tcp://HOST:PORT\n"
            "  --name NAME            this agent's name, as the campaign lists it\n"
            "  --site LABEL           site label for reports (\"aws-us-east-1\", \"home fiber\")\n"
            "  --config FILE          agent config file (libconfig); options below override it\n"
            "  --keys DIR|FILE        this agent's key pair: DIR/NAME.key_secret, or the\n"
            "                         _secret file itself (vantage keygen DIR --name NAME)\n"
            "  --coordinator-key FILE the coordinator's public key (default DIR/coordinator.key)\n"
            "  --spool DIR            where unacknowledged samples are kept (default\n"
            "                         ./vantage-spool); the file is DIR/NAME.spool\n"
            "  --spool-max SIZE       pause the job while the spool holds more unacknowledged\n"
            "                         samples than this (default 1GiB; 0: no limit)\n"
            "  --work DIR             directory for workload files (default /tmp)\n"
            "  --insecure             no CURVE: plain TCP, loopback coordinators only\n"
            "  --batch N              samples per SAMPLES message (default 1000)\n"
            "  --batch-ms MS          send a partial batch after MS ms (default 100)\n"
            "  --window N             unacknowledged batches in flight (default 32)\n"
            "  --heartbeat-ms MS      heartbeat interval before the coordinator sets it (2000)\n"
            "  --lost-after-ms MS     reconnect after this long without a word (10000)\n"
            "  --max-workers N        refuse jobs asking for more workers (64)\n"
            "  --log LEVEL            error|warn|info|debug (default info, or $VANTAGE_LOG)\n"
            "  --calibrate            measure this host's own overhead (timer, per-request floor\n"
            "                         against a local null server), print it and exit\n"
            "  --calibrate-count N    requests per kind for --calibrate (default 1000)\n"
            "  --help                 this text\n");
}

enum {
    OPT_CONNECT = 256, OPT_NAME, OPT_SITE, OPT_CONFIG, OPT_KEYS, OPT_CKEY, OPT_SPOOL, OPT_WORK,
    OPT_INSECURE, OPT_BATCH, OPT_BATCH_MS, OPT_WINDOW, OPT_HB, OPT_LOST, OPT_MAXW, OPT_LOG,
    OPT_NO_FSYNC, OPT_TEST_OFFSET, OPT_TEST_RATE, OPT_SPOOL_MAX, OPT_CALIBRATE, OPT_CAL_COUNT,
    OPT_HELP
};

static int parse_int(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "vantage agent: --%s %s: expected an integer in %lld..%lld\n", opt, v, lo,
                hi);
        return -1;
    }
    *out = x;
    return 0;
}

/* The agent config names where object-store credentials come from; the
 * workloads read them the standard way (environment, ~/.aws/credentials), so
 * the config's choices become that environment for this process. The AIS
 * token file is read here (it must be private to this user, like a key). */
static int apply_credentials(const vc_agentcfg_t *cfg)
{
    if (cfg->aws_profile[0])
        setenv("AWS_PROFILE", cfg->aws_profile, 1);
    if (cfg->aws_credentials_file[0])
        setenv("AWS_SHARED_CREDENTIALS_FILE", cfg->aws_credentials_file, 1);
    if (cfg->s3_endpoint[0])
        setenv("AWS_ENDPOINT_URL", cfg->s3_endpoint, 1);
    if (cfg->ais_endpoint[0])
        setenv("AIS_ENDPOINT", cfg->ais_endpoint, 1);
    if (!cfg->ais_token_file[0])
        return 0;
    char err[512];
    if (vc_secretfile_check(cfg->ais_token_file, err, sizeof err) != VC_OK) {
        fprintf(stderr, "vantage agent: AIS token: %s\n", err);
        return -1;
    }
    FILE *f = fopen(cfg->ais_token_file, "r");
    char tok[4096];
    size_t n = f ? fread(tok, 1, sizeof tok - 1, f) : 0;
    if (f)
        fclose(f);
    tok[n] = '\0';
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
        tok[--n] = '\0';
    if (!n) {
        fprintf(stderr, "vantage agent: AIS token file %s is empty or unreadable\n",
                cfg->ais_token_file);
        return -1;
    }
    setenv("AIS_AUTHN_TOKEN", tok, 1);
    memset(tok, 0, sizeof tok);
    return 0;
}

int va_cmd_agent(int argc, char **argv)
{
    static const struct option opts[] = {
        {"connect", required_argument, NULL, OPT_CONNECT},
        {"name", required_argument, NULL, OPT_NAME},
        {"site", required_argument, NULL, OPT_SITE},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"keys", required_argument, NULL, OPT_KEYS},
        {"coordinator-key", required_argument, NULL, OPT_CKEY},
        {"spool", required_argument, NULL, OPT_SPOOL},
        {"spool-max", required_argument, NULL, OPT_SPOOL_MAX},
        {"work", required_argument, NULL, OPT_WORK},
        {"insecure", no_argument, NULL, OPT_INSECURE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"batch-ms", required_argument, NULL, OPT_BATCH_MS},
        {"window", required_argument, NULL, OPT_WINDOW},
        {"heartbeat-ms", required_argument, NULL, OPT_HB},
        {"lost-after-ms", required_argument, NULL, OPT_LOST},
        {"max-workers", required_argument, NULL, OPT_MAXW},
        {"log", required_argument, NULL, OPT_LOG},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"calibrate-count", required_argument, NULL, OPT_CAL_COUNT},
        /* Not in --help: benchmarks of the network path, and tests that
         * shift this agent's wall clock by a known amount. */
        {"no-fsync", no_argument, NULL, OPT_NO_FSYNC},
        {"test-wall-offset-ms", required_argument, NULL, OPT_TEST_OFFSET},
        {"test-max-rate", required_argument, NULL, OPT_TEST_RATE},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0}};
    const char *connect = NULL, *name = NULL, *site = NULL, *config = NULL, *keys = NULL,
               *ckey = NULL, *spool = NULL, *work = NULL;
    int64_t spool_max = -1;
    int insecure = 0, no_fsync = 0;
    long long batch = -1, batch_ms = -1, window = -1, hb = -1, lost = -1, maxw = -1, offset = 0,
              rate = 0, cal_count = 0;
    int calibrate = 0;
    int c, idx = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
        long long *num = NULL;
        long long lo = 1, hi = INT32_MAX;
        switch (c) {
        case OPT_CONNECT: connect = optarg; break;
        case OPT_NAME: name = optarg; break;
        case OPT_SITE: site = optarg; break;
        case OPT_CONFIG: config = optarg; break;
        case OPT_KEYS: keys = optarg; break;
        case OPT_CKEY: ckey = optarg; break;
        case OPT_SPOOL: spool = optarg; break;
        case OPT_WORK: work = optarg; break;
        case OPT_SPOOL_MAX: {
            char perr[256];
            if (vc_parse_size(optarg, &spool_max, perr, sizeof perr) != VC_OK) {
                fprintf(stderr, "vantage agent: --spool-max: %s\n", perr);
                return 2;
            }
            break;
        }
        case OPT_INSECURE: insecure = 1; break;
        case OPT_CALIBRATE: calibrate = 1; break;
        case OPT_CAL_COUNT: num = &cal_count; hi = 100000; break;
        case OPT_NO_FSYNC: no_fsync = 1; break;
        case OPT_BATCH: num = &batch; hi = 10000; break;
        case OPT_BATCH_MS: num = &batch_ms; hi = 60000; break;
        case OPT_WINDOW: num = &window; hi = 100000; break;
        case OPT_HB: num = &hb; lo = 10; hi = 600000; break;
        case OPT_LOST: num = &lost; lo = 20; hi = 86400000; break;
        case OPT_MAXW: num = &maxw; hi = 100000; break;
        case OPT_TEST_RATE: num = &rate; hi = 100000000; break;
        case OPT_TEST_OFFSET: num = &offset; lo = -86400000LL * 365; hi = 86400000LL * 365; break;
        case OPT_LOG: {
            int l = vc_log_level_parse(optarg);
            if (l < 0) {
                fprintf(stderr, "vantage agent: --log %s: use error, warn, info or debug\n", optarg);
                return 2;
            }
            vc_log_set_level((vc_log_level_t)l);
            break;
        }
        case OPT_HELP:
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
        if (num && parse_int(opts[idx].name, optarg, lo, hi, num) != 0)
            return 2;
    }
    if (optind != argc) {
        fprintf(stderr, "vantage agent: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (calibrate)
        return va_calibrate_print(cal_count, stdout);

    vc_agentcfg_t cfg;
    vc_agentcfg_init(&cfg);
    if (config) {
        vc_diag_t *diag = vc_diag_new();
        vc_status_t rc = vc_agentcfg_load(config, &cfg, diag);
        if (rc) {
            fprintf(stderr, "vantage agent: cannot use config %s:\n", config);
            if (diag)
                vc_diag_print(diag, stderr);
            vc_diag_destroy(&diag);
            return 2;
        }
        vc_diag_destroy(&diag);
        if (apply_credentials(&cfg) != 0)
            return 2;
    }
    va_agent_opts_t o;
    va_agent_opts_init(&o);
    if (config) {
        o.batch_max = cfg.max_batch;
        o.heartbeat_ms = cfg.heartbeat_ms;
        o.lost_after_ms = cfg.lost_after_ms;
        o.max_workers = cfg.max_workers;
        o.spool_max_bytes = cfg.spool_max_bytes;
    }
    if (spool_max >= 0)
        o.spool_max_bytes = spool_max;
    o.endpoint = connect ? connect : (config && cfg.coordinator[0] ? cfg.coordinator : NULL);
    o.name = name ? name : (config && cfg.name[0] ? cfg.name : NULL);
    o.site = site ? site : cfg.site;
    o.insecure = insecure;
    if (batch > 0) o.batch_max = (int)batch;
    if (batch_ms > 0) o.batch_ms = batch_ms;
    if (window > 0) o.window = (int)window;
    if (hb > 0) o.heartbeat_ms = hb;
    if (lost > 0) o.lost_after_ms = lost;
    if (maxw > 0) o.max_workers = (int)maxw;
    o.spool_fsync = !no_fsync;
    o.test_max_rate = rate;
    if (!o.endpoint || !o.name) {
        fprintf(stderr, "vantage agent: --connect and --name are required (or in --config)\n");
        usage(stderr);
        return 2;
    }

    /* Key files: --keys DIR means DIR/NAME.key_secret and DIR/coordinator.key. */
    char secret[PATH_MAX] = "", coord[PATH_MAX] = "";
    if (keys) {
        struct stat st;
        if (stat(keys, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(secret, sizeof secret, "%s/%s.key_secret", keys, o.name);
            snprintf(coord, sizeof coord, "%s/coordinator.key", keys);
        } else {
            snprintf(secret, sizeof secret, "%s", keys);
        }
    } else if (config) {
        snprintf(secret, sizeof secret, "%s_secret", cfg.cert_file);
        snprintf(coord, sizeof coord, "%s", cfg.coordinator_cert_file);
    }
    if (ckey)
        snprintf(coord, sizeof coord, "%s", ckey);
    if (!insecure) {
        o.secret_file = secret[0] ? secret : NULL;
        o.coordinator_key = coord[0] ? coord : NULL;
    }

    char spool_dir[PATH_MAX], spool_path[PATH_MAX];
    snprintf(spool_dir, sizeof spool_dir, "%s",
             spool ? spool : (config ? cfg.spool_dir : "vantage-spool"));
    if (vc_mkdir_p(spool_dir, 0700) != 0) {
        fprintf(stderr, "vantage agent: cannot create spool directory %s: %s\n", spool_dir,
                strerror(errno));
        return 1;
    }
    snprintf(spool_path, sizeof spool_path, "%s/%s.spool", spool_dir, o.name);
    o.spool_path = spool_path;
    o.work_dir = work ? work : (config && cfg.work_dir[0] ? cfg.work_dir : NULL);
    if (o.work_dir && vc_mkdir_p(o.work_dir, 0700) != 0) {
        fprintf(stderr, "vantage agent: cannot create work directory %s: %s\n", o.work_dir,
                strerror(errno));
        return 1;
    }

    if (offset)
        vc_clock_set_wall_offset(offset * VC_NS_PER_MS);

    /* Our own handlers: czmq's would make every ZeroMQ call fail with EINTR
     * and leave no chance to spool the last batch. */
    zsys_handler_set(NULL);
    char err[512];
    va_agent_t *a = va_agent_new(&o, err, sizeof err);
    if (!a) {
        fprintf(stderr, "vantage agent: %s\n", err);
        return 1;
    }
    running_agent = a;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    vc_status_t rc = va_agent_run(a);
    running_agent = NULL;
    if (rc)
        fprintf(stderr, "vantage agent: %s\n", va_agent_error(a));
    va_agent_destroy(&a);
    return rc ? 1 : 0;
}
