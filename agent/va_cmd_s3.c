/* vantage s3: one timed S3 operation from the command line (ls, put, get,
 * head, rm, mb), with credentials found the way the AWS CLI finds them. It is
 * the quickest way to check that an agent's site can reach a bucket, and
 * --timing prints the same record a benchmark stores. Exit status: 0 done,
 * 1 the operation failed, 2 bad usage or configuration. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "va_awscfg.h"
#include "va_cmd.h"
#include "va_s3.h"
#include "vc_sample.h"

enum { C_LS = 1, C_PUT = 2, C_GET = 4, C_HEAD = 8, C_RM = 16, C_MB = 32, C_ALL = 63 };

enum {
    O_ENDPOINT = 1000, O_REGION, O_PROFILE, O_PATH, O_VIRTUAL, O_CA, O_INSECURE, O_TIMEOUT,
    O_TIMING, O_UNSIGNED, O_HELP, O_MAXKEYS, O_DELIM, O_START, O_SIZE, O_DISCARD,
};

/* The option table drives parsing and --help. */
static const struct {
    const char *name;
    int has_arg;
    int id;
    const char *arg;
    unsigned cmds;
    const char *help;
} opts[] = {
    {"endpoint", 1, O_ENDPOINT, "URL", C_ALL, "S3 endpoint, http(s)://host[:port] (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's, or AWS)"},
    {"region", 1, O_REGION, "NAME", C_ALL, "signing region (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's, us-east-1)"},
    {"profile", 1, O_PROFILE, "NAME", C_ALL, "profile in ~/.aws/credentials and ~/.aws/config (default: AWS_PROFILE or default)"},
    {"path-style", 0, O_PATH, NULL, C_ALL, "address buckets as http://host/BUCKET/KEY (default for non-AWS endpoints)"},
    {"virtual-hosted", 0, O_VIRTUAL, NULL, C_ALL, "address buckets as http://BUCKET.host/KEY (default for AWS)"},
    {"ca-bundle", 1, O_CA, "FILE", C_ALL, "trust the CA certificates in this PEM file"},
    {"insecure", 0, O_INSECURE, NULL, C_ALL, "do not verify the server's TLS certificate"},
    {"timeout", 1, O_TIMEOUT, "SECONDS", C_ALL, "give up on a request after this long (default 60)"},
    {"timing", 0, O_TIMING, NULL, C_ALL, "print the timing record (phases, bytes, status, CPU) on stderr"},
    {"unsigned-payload", 0, O_UNSIGNED, NULL, C_PUT, "send the body as UNSIGNED-PAYLOAD instead of hashing it first"},
    {"max-keys", 1, O_MAXKEYS, "N", C_LS, "keys per page, 1-1000 (default 1000)"},
    {"delimiter", 1, O_DELIM, "D", C_LS, "group keys by this delimiter; groups print as 'PRE prefix'"},
    {"start-after", 1, O_START, "KEY", C_LS, "list keys after this one"},
    {"size", 1, O_SIZE, "N", C_PUT, "upload N zero bytes instead of a file (suffixes: K M G = KiB MiB GiB, KB MB GB)"},
    {"discard", 0, O_DISCARD, NULL, C_GET, "count the bytes, keep nothing"},
    {"help", 0, O_HELP, NULL, C_ALL, "show this help"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static const struct {
    const char *name;
    unsigned bit;
    const char *args;
    const char *what;
} cmds[] = {
    {"ls", C_LS, "s3://BUCKET[/PREFIX]", "list keys in order, one per line, then the count"},
    {"put", C_PUT, "FILE|--size N s3://BUCKET/KEY", "upload a file (streamed) or N zero bytes"},
    {"get", C_GET, "s3://BUCKET/KEY FILE|-|--discard", "download to a file, stdout, or nowhere"},
    {"head", C_HEAD, "s3://BUCKET/KEY", "print an object's size, ETag, date and type"},
    {"rm", C_RM, "s3://BUCKET/KEY", "delete an object"},
    {"mb", C_MB, "s3://BUCKET", "create a bucket (an existing one of yours is fine)"},
};
#define NCMDS (sizeof cmds / sizeof cmds[0])

static void usage(FILE *out, int ci)
{
    if (ci < 0) {
        fprintf(out, "usage: vantage s3 <command> [options] ARGS   (vantage s3 <command> --help)\n\n"
                     "One timed S3 request (or one full listing) with credentials found like the AWS CLI\n"
                     "finds them: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, ~/.aws/credentials.\n\n"
                     "commands:\n");
        for (size_t i = 0; i < NCMDS; i++)
            fprintf(out, "  %-5s %-36s %s\n", cmds[i].name, cmds[i].args, cmds[i].what);
        fprintf(out, "\nexit status: 0 done, 1 the request failed, 2 bad usage or configuration\n");
        return;
    }
    fprintf(out, "usage: vantage s3 %s [options] %s\n  %s\n\noptions:\n", cmds[ci].name, cmds[ci].args,
            cmds[ci].what);
    for (size_t i = 0; i < NOPTS; i++) {
        if (!(opts[i].cmds & cmds[ci].bit))
            continue;
        char left[48];
        snprintf(left, sizeof left, "--%s%s%s", opts[i].name, opts[i].arg ? " " : "",
                 opts[i].arg ? opts[i].arg : "");
        fprintf(out, "  %-22s %s\n", left, opts[i].help);
    }
}

/* Parses "5MiB", "5M", "1000", "10KB". Returns -1 when it is not a size. */
static int64_t parse_size(const char *s)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -1;
    static const struct {
        const char *suffix;
        int64_t mult;
    } units[] = {{"", 1},       {"B", 1},          {"K", 1 << 10},   {"KiB", 1 << 10},
                 {"M", 1 << 20}, {"MiB", 1 << 20},  {"G", 1 << 30},   {"GiB", 1 << 30},
                 {"KB", 1000},  {"MB", 1000000},   {"GB", 1000000000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0) {
            if (v > (unsigned long long)(INT64_MAX / units[i].mult))
                return -1;
            return (int64_t)v * units[i].mult;
        }
    return -1;
}

/* Splits s3://BUCKET[/KEY] into bucket and key (key may be "" or NULL). */
static int parse_s3_url(const char *url, char *bucket, size_t bsz, const char **key)
{
    if (strncmp(url, "s3://", 5) != 0)
        return -1;
    const char *b = url + 5, *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (bl == 0 || bl >= bsz)
        return -1;
    memcpy(bucket, b, bl);
    bucket[bl] = '\0';
    *key = slash ? slash + 1 : NULL;
    return 0;
}

static void ms(char *out, size_t n, int64_t us)
{
    if (us < 0)
        snprintf(out, n, "-");
    else
        snprintf(out, n, "%.3fms", (double)us / 1000.0);
}

static void print_timing(const vc_sample_t *s)
{
    char dns[32], con[32], tls[32], ttfb[32], total[32], cu[32], cs[32];
    ms(dns, sizeof dns, s->dns_us);
    ms(con, sizeof con, s->connect_us);
    ms(tls, sizeof tls, s->tls_us);
    ms(ttfb, sizeof ttfb, s->ttfb_us);
    ms(total, sizeof total, s->duration_ns < 0 ? -1 : s->duration_ns / 1000);
    ms(cu, sizeof cu, s->cpu_user_us);
    ms(cs, sizeof cs, s->cpu_sys_us);
    fprintf(stderr,
            "timing: op=%s status=%d dns=%s connect=%s tls=%s ttfb=%s total=%s bytes_sent=%" PRId64
            " bytes_recv=%" PRId64 " cpu_user=%s cpu_sys=%s",
            s->op, s->http_status, dns, con, tls, ttfb, total, s->bytes_sent, s->bytes_recv, cu, cs);
    if (s->pages > 0)
        fprintf(stderr, " pages=%d keys=%" PRId64, s->pages, s->keys);
    fprintf(stderr, " error=%s%s%s\n", vc_errclass_name(s->err_class), s->err_code[0] ? ":" : "",
            s->err_code);
    for (uint32_t i = 0; i < s->npages; i++)
        fprintf(stderr, "timing: page %u: %.3fms keys=%" PRId64 " bytes=%" PRId64 "\n", i + 1,
                (double)s->page[i].duration_ns / 1e6, s->page[i].keys, s->page[i].bytes);
}

typedef struct {
    int64_t keys, prefixes;
} ls_state_t;

static int ls_key(void *ud, const va_s3xml_object_t *o)
{
    ls_state_t *st = ud;
    st->keys++;
    fwrite(o->key, 1, o->key_len, stdout);
    putchar('\n');
    return 0;
}

static int ls_prefix(void *ud, const char *p, size_t len)
{
    ls_state_t *st = ud;
    st->prefixes++;
    fputs("PRE ", stdout);
    fwrite(p, 1, len, stdout);
    putchar('\n');
    return 0;
}

int va_cmd_s3(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout, -1);
        return argc < 2 ? 2 : 0;
    }
    int ci = -1;
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            ci = (int)i;
    if (ci < 0) {
        fprintf(stderr, "vantage s3: unknown command '%s' (vantage s3 --help lists them)\n", argv[1]);
        return 2;
    }
    const char *cname = cmds[ci].name;
    unsigned bit = cmds[ci].bit;

    struct option lo[NOPTS + 1];
    size_t nlo = 0;
    for (size_t i = 0; i < NOPTS; i++)
        if (opts[i].cmds & bit)
            lo[nlo++] = (struct option){opts[i].name, opts[i].has_arg, NULL, opts[i].id};
    lo[nlo] = (struct option){NULL, 0, NULL, 0};

    va_awscfg_opts_t co = {0};
    va_s3_addressing_t addressing = VA_S3_ADDR_AUTO;
    const char *ca = NULL, *delim = NULL, *start_after = NULL;
    int insecure = 0, timing = 0, unsigned_payload = 0, discard = 0, max_keys = 0;
    long timeout_ms = 0;
    int64_t size = -1;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc - 1, argv + 1, "", lo, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case O_ENDPOINT: co.endpoint = optarg; break;
        case O_REGION: co.region = optarg; break;
        case O_PROFILE: co.profile = optarg; break;
        case O_PATH: addressing = VA_S3_ADDR_PATH; break;
        case O_VIRTUAL: addressing = VA_S3_ADDR_VIRTUAL; break;
        case O_CA: ca = optarg; break;
        case O_INSECURE: insecure = 1; break;
        case O_TIMING: timing = 1; break;
        case O_UNSIGNED: unsigned_payload = 1; break;
        case O_DISCARD: discard = 1; break;
        case O_DELIM: delim = optarg; break;
        case O_START: start_after = optarg; break;
        case O_HELP: usage(stdout, ci); return 0;
        case O_TIMEOUT: {
            double sec = strtod(optarg, &end);
            if (end == optarg || *end || !(sec > 0) || sec > 86400) {
                fprintf(stderr, "vantage s3 %s: --timeout wants seconds between 0 and 86400, got '%s'\n",
                        cname, optarg);
                return 2;
            }
            timeout_ms = (long)(sec * 1000.0);
            if (timeout_ms < 1)
                timeout_ms = 1;
            break;
        }
        case O_MAXKEYS: {
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 1 || v > 1000) {
                fprintf(stderr, "vantage s3 ls: --max-keys wants 1 to 1000, got '%s'\n", optarg);
                return 2;
            }
            max_keys = (int)v;
            break;
        }
        case O_SIZE:
            if ((size = parse_size(optarg)) < 0) {
                fprintf(stderr, "vantage s3 put: --size wants a byte count such as 5MiB, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        default:
            fprintf(stderr, "vantage s3 %s: unknown or incomplete option '%s' (vantage s3 %s --help)\n",
                    cname, argv[optind] /* = (argv + 1)[optind - 1] */, cname);
            return 2;
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;

    /* positional arguments per command */
    const char *url = NULL, *local = NULL;
    int want_min = 1, want_max = 1;
    if (bit == C_PUT)
        want_min = size >= 0 ? 1 : 2, want_max = size >= 0 ? 1 : 2;
    if (bit == C_GET)
        want_min = discard ? 1 : 2, want_max = discard ? 1 : 2;
    if (nargs < want_min || nargs > want_max) {
        fprintf(stderr, "vantage s3 %s: expected %s\n", cname, cmds[ci].args);
        usage(stderr, ci);
        return 2;
    }
    if (bit == C_PUT && size < 0) {
        local = args[0];
        url = args[1];
    } else {
        url = args[0];
        local = nargs > 1 ? args[1] : NULL;
    }
    char bucket[256];
    const char *key = NULL;
    if (parse_s3_url(url, bucket, sizeof bucket, &key) != 0) {
        fprintf(stderr, "vantage s3 %s: '%s' is not s3://BUCKET[/KEY]\n", cname, url);
        return 2;
    }
    int needs_key = bit & (C_PUT | C_GET | C_HEAD | C_RM);
    if (needs_key && (!key || !*key)) {
        fprintf(stderr, "vantage s3 %s: '%s' names no object key (want s3://BUCKET/KEY)\n", cname, url);
        return 2;
    }

    char err[1024];
    va_awscfg_t *cfg = calloc(1, sizeof *cfg);
    if (!cfg) {
        fprintf(stderr, "vantage s3: out of memory\n");
        return 1;
    }
    if (va_awscfg_load(&co, cfg, err, sizeof err) != VC_OK) {
        fprintf(stderr, "vantage s3 %s: %s\n", cname, err);
        free(cfg);
        return 2;
    }
    va_s3_opts_t so = {0};
    va_s3_opts_from_awscfg(&so, cfg);
    so.addressing = addressing;
    so.insecure = insecure;
    so.ca_bundle = ca;
    so.timeout_ms = timeout_ms;
    so.unsigned_payload = unsigned_payload;
    va_s3_t *s3 = va_s3_new(&so, err, sizeof err);
    va_awscfg_clear(cfg);
    free(cfg);
    if (!s3) {
        fprintf(stderr, "vantage s3 %s: %s\n", cname, err);
        return 2;
    }

    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = VC_OK;
    int exit_code = 0;
    switch (bit) {
    case C_LS: {
        ls_state_t st = {0, 0};
        va_s3_list_opts_t lo2 = {.prefix = key, .delimiter = delim, .start_after = start_after,
                                 .max_keys = max_keys};
        rc = va_s3_list(s3, bucket, &lo2, ls_key, ls_prefix, &st, &s);
        if (rc == VC_OK) {
            if (st.prefixes)
                printf("%" PRId64 " keys, %" PRId64 " prefixes\n", st.keys, st.prefixes);
            else
                printf("%" PRId64 " keys\n", st.keys);
        }
        fflush(stdout);
        break;
    }
    case C_PUT:
        if (size >= 0) {
            void *zeros = calloc(1, size ? (size_t)size : 1);
            if (!zeros) {
                fprintf(stderr, "vantage s3 put: cannot allocate %" PRId64 " bytes; upload a file instead\n",
                        size);
                exit_code = 1;
                break;
            }
            rc = va_s3_put(s3, bucket, key, zeros, (size_t)size, &s);
            free(zeros);
        } else {
            rc = va_s3_put_file(s3, bucket, key, local, &s);
        }
        if (rc == VC_OK)
            fprintf(stderr, "uploaded %" PRId64 " bytes to s3://%s/%s\n", s.bytes_sent, bucket, key);
        break;
    case C_GET: {
        FILE *out = NULL;
        int to_stdout = local && strcmp(local, "-") == 0;
        if (!discard) {
            out = to_stdout ? stdout : fopen(local, "wb");
            if (!out) {
                fprintf(stderr, "vantage s3 get: cannot write %s: %s\n", local, strerror(errno));
                exit_code = 1;
                break;
            }
        }
        rc = va_s3_get(s3, bucket, key, out, &s);
        if (out && !to_stdout) {
            if (fclose(out) != 0 && rc == VC_OK) {
                fprintf(stderr, "vantage s3 get: writing %s: %s\n", local, strerror(errno));
                exit_code = 1;
            }
            if (rc != VC_OK)
                unlink(local); /* no partial or empty file left behind */
        }
        if (rc == VC_OK && !exit_code)
            fprintf(stderr, "downloaded %" PRId64 " bytes from s3://%s/%s%s%s\n", s.bytes_recv, bucket,
                    key, discard ? "" : " to ", discard ? " (discarded)" : local);
        break;
    }
    case C_HEAD: {
        va_s3_head_t h;
        rc = va_s3_head(s3, bucket, key, &h, &s);
        if (rc == VC_OK)
            printf("size: %" PRId64 "\netag: %s\nlast-modified: %s\ncontent-type: %s\n", h.size, h.etag,
                   h.last_modified, h.content_type);
        break;
    }
    case C_RM:
        rc = va_s3_delete(s3, bucket, key, &s);
        if (rc == VC_OK)
            fprintf(stderr, "deleted s3://%s/%s\n", bucket, key);
        break;
    case C_MB:
        rc = va_s3_create_bucket(s3, bucket, &s);
        if (rc == VC_OK)
            fprintf(stderr, "bucket s3://%s ready\n", bucket);
        break;
    default:
        break;
    }
    if (rc != VC_OK) {
        fprintf(stderr, "vantage s3 %s: %s\n", cname, va_s3_last_error(s3));
        exit_code = 1;
    }
    fflush(stdout); /* results before the timing record when both go to a terminal */
    if (timing)
        print_timing(&s);
    vc_sample_clear(&s);
    va_s3_destroy(&s3);
    return exit_code;
}
