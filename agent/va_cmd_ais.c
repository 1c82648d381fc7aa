/* va_cmd_ais: `vantage ais ...`, AIStore by hand: readiness, listing
 * (regular and NBI), inventories, objects. Every command is one or a few
 * timed requests through va_ais; --timing prints their sample record. */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "va_ais.h"
#include "va_cmd.h"

typedef struct {
    const char *endpoint;
    int timing, json, insecure, help;
    int64_t timeout_ms;
    /* ls */
    int inventory, quiet;
    const char *inv_name, *props;
    int64_t page_size;
    /* nbi */
    const char *name;
    int wait, force;
    int64_t poll_ms, timeout_s, names_per_chunk;
    /* put */
    int64_t size;
    int npos;
    const char *pos[4];
} args_t;

enum { T_FLAG, T_STR, T_INT };
static const struct {
    const char *name;
    int type;
    size_t off;
} options[] = {
    {"--endpoint", T_STR, offsetof(args_t, endpoint)},
    {"--timing", T_FLAG, offsetof(args_t, timing)},
    {"--json", T_FLAG, offsetof(args_t, json)},
    {"--insecure", T_FLAG, offsetof(args_t, insecure)},
    {"--help", T_FLAG, offsetof(args_t, help)},
    {"-h", T_FLAG, offsetof(args_t, help)},
    {"--inventory", T_FLAG, offsetof(args_t, inventory)},
    {"--quiet", T_FLAG, offsetof(args_t, quiet)},
    {"--inv-name", T_STR, offsetof(args_t, inv_name)},
    {"--props", T_STR, offsetof(args_t, props)},
    {"--page-size", T_INT, offsetof(args_t, page_size)},
    {"--name", T_STR, offsetof(args_t, name)},
    {"--wait", T_FLAG, offsetof(args_t, wait)},
    {"--force", T_FLAG, offsetof(args_t, force)},
    {"--poll-ms", T_INT, offsetof(args_t, poll_ms)},
    {"--timeout-s", T_INT, offsetof(args_t, timeout_s)},
    {"--names-per-chunk", T_INT, offsetof(args_t, names_per_chunk)},
    {"--size", T_INT, offsetof(args_t, size)},
    {"--timeout-ms", T_INT, offsetof(args_t, timeout_ms)},
    {NULL, 0, 0},
};

static const char usage_text[] =
    "usage: vantage ais [options] <command> ...\n"
    "\n"
    "Talk to an AIStore cluster by hand, every request timed.\n"
    "Buckets are written as AIS writes them: s3://BUCKET (provider aws), ais://BUCKET.\n"
    "\n"
    "commands:\n"
    "  health                              readiness, cluster map and software version\n"
    "  ls [--inventory [--inv-name N]] [--page-size N] [--props P] [--quiet] s3://BUCKET[/PREFIX]\n"
    "                                      list objects (one name per line, then a count line);\n"
    "                                      --inventory lists from the bucket's NBI\n"
    "  nbi create s3://BUCKET[/PREFIX] [--name N] [--force] [--wait [--poll-ms N] [--timeout-s N]]\n"
    "             [--names-per-chunk N] [--page-size N]\n"
    "                                      create a Native Bucket Inventory (prints the job id;\n"
    "                                      --wait waits for it and prints its server-side time;\n"
    "                                      --page-size: S3 page size while creating)\n"
    "  nbi show s3://BUCKET[/PREFIX] [--name N]  list the bucket's inventories (for PREFIX)\n"
    "  nbi rm s3://BUCKET[/PREFIX] [--name N]    destroy the inventory named N, those made for\n"
    "                                      PREFIX, or all of the bucket's\n"
    "  put [--size N | FILE] s3://BUCKET/KEY   upload FILE, or N random bytes; a KEY ending in '/'\n"
    "                                      gets 32 random letters appended (aisloader names)\n"
    "  get s3://BUCKET/KEY [FILE]          download to FILE (or count and discard the bytes)\n"
    "  head s3://BUCKET/KEY                print the object's size\n"
    "  rm s3://BUCKET/KEY                  delete the object\n"
    "\n"
    "options (anywhere on the line):\n"
    "  --endpoint URL     AIS proxy, http(s)://HOST:PORT (default: $AIS_ENDPOINT)\n"
    "  --timing           print each operation's timing record on stderr\n"
    "  --json             ask for JSON list replies instead of msgpack\n"
    "  --timeout-ms N     per-request timeout (default 60000)\n"
    "  --insecure         do not verify the server's TLS certificate\n"
    "  --help             this text\n"
    "\n"
    "The AuthN token, when AIS needs one, is read from AIS_AUTHN_TOKEN and never printed.\n"
    "Exit status: 0 success, 1 the operation failed, 2 bad usage.\n";

static int parse_args(int argc, char **argv, args_t *a)
{
    memset(a, 0, sizeof *a);
    a->poll_ms = 200;
    a->timeout_s = 600;
    a->size = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (a->npos == (int)(sizeof a->pos / sizeof a->pos[0])) {
                fprintf(stderr, "vantage ais: too many arguments at '%s' (see --help)\n", arg);
                return 2;
            }
            a->pos[a->npos++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        int k;
        for (k = 0; options[k].name; k++)
            if (strlen(options[k].name) == nlen && strncmp(options[k].name, arg, nlen) == 0)
                break;
        if (!options[k].name) {
            fprintf(stderr, "vantage ais: unknown option '%s' (see --help)\n", arg);
            return 2;
        }
        if (options[k].type == T_FLAG) {
            if (eq) {
                fprintf(stderr, "vantage ais: %s takes no value\n", options[k].name);
                return 2;
            }
            *(int *)((char *)a + options[k].off) = 1;
            continue;
        }
        const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!val) {
            fprintf(stderr, "vantage ais: %s needs a value\n", options[k].name);
            return 2;
        }
        if (options[k].type == T_STR) {
            *(const char **)((char *)a + options[k].off) = val;
            continue;
        }
        char *end;
        errno = 0;
        long long v = strtoll(val, &end, 10);
        if (errno || end == val || *end || v < 0) {
            fprintf(stderr, "vantage ais: %s wants a non-negative integer, not '%s'\n",
                    options[k].name, val);
            return 2;
        }
        *(int64_t *)((char *)a + options[k].off) = v;
    }
    return 0;
}

static void print_timing(const args_t *a, const vc_sample_t *s)
{
    if (!a->timing)
        return;
    fprintf(stderr, "timing: op=%s status=%d total=%.3fms", s->op, s->http_status,
            s->duration_ns / 1e6);
    if (s->server_ns >= 0)
        fprintf(stderr, " server=%.3fms", s->server_ns / 1e6);
    fprintf(stderr, " dns=%dus connect=%dus tls=%dus ttfb=%dus sent=%" PRId64 "B recv=%" PRId64
                    "B cpu_user=%" PRId64 "us cpu_sys=%" PRId64 "us",
            s->dns_us, s->connect_us, s->tls_us, s->ttfb_us, s->bytes_sent, s->bytes_recv,
            s->cpu_user_us, s->cpu_sys_us);
    if (s->keys >= 0)
        fprintf(stderr, " pages=%d keys=%" PRId64, s->pages, s->keys);
    fprintf(stderr, " error=%s", vc_errclass_name(s->err_class));
    if (s->err_class != VC_EC_NONE)
        fprintf(stderr, " code=%s", s->err_code);
    fputc('\n', stderr);
    for (uint32_t i = 0; i < s->npages; i++)
        fprintf(stderr, "timing:   page %u: %.3fms keys=%" PRId64 " bytes=%" PRId64 "\n", i + 1,
                s->page[i].duration_ns / 1e6, s->page[i].keys, s->page[i].bytes);
}

/* The operation failed: the client's full message, and the exit status. */
static int fail(const char *cmd, va_ais_t *ais)
{
    fprintf(stderr, "vantage ais %s: %s\n", cmd, va_ais_error(ais));
    return 1;
}

static int need_pos(const args_t *a, int min, int max, const char *cmd, const char *what)
{
    if (a->npos - 1 < min || a->npos - 1 > max) {
        fprintf(stderr, "vantage ais %s: expected %s (see vantage ais --help)\n", cmd, what);
        return 0;
    }
    return 1;
}

static int parse_uri(const char *cmd, const char *uri, va_ais_bck_t *bck, char *path,
                     size_t pathlen)
{
    char err[512];
    if (va_ais_bck_parse(uri, bck, path, pathlen, err, sizeof err)) {
        fprintf(stderr, "vantage ais %s: %s\n", cmd, err);
        return 0;
    }
    return 1;
}

/* An inventory name given by the user: checked before anything is sent. */
static int name_ok(const char *cmd, const char *name)
{
    char err[256];
    if (name && va_ais_nbi_name_check(name, err, sizeof err)) {
        fprintf(stderr, "vantage ais %s: %s\n", cmd, err);
        return 0;
    }
    return 1;
}

static int on_entry(void *arg, const va_ais_entry_t *e)
{
    const args_t *a = arg;
    if (!a->quiet) {
        fwrite(e->name, 1, e->name_len, stdout);
        fputc('\n', stdout);
    }
    return 0;
}

static int cmd_ls(va_ais_t *ais, const args_t *a)
{
    va_ais_bck_t bck;
    char prefix[VA_AIS_OBJNAME_MAX + 1];
    if (!need_pos(a, 1, 1, "ls", "one s3://BUCKET[/PREFIX]") ||
        !parse_uri("ls", a->pos[1], &bck, prefix, sizeof prefix))
        return 2;
    if (a->inv_name && !a->inventory) {
        fprintf(stderr, "vantage ais ls: --inv-name goes with --inventory\n");
        return 2;
    }
    if (!name_ok("ls", a->inv_name))
        return 2;
    va_ais_list_opts_t o = {.prefix = prefix, .page_size = a->page_size, .props = a->props,
                            .nbi = a->inventory, .inv_name = a->inv_name,
                            .on_entry = on_entry, .arg = (void *)a};
    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = va_ais_list(ais, &bck, &o, &s);
    print_timing(a, &s);
    int ret = 0;
    if (rc) {
        ret = fail("ls", ais);
        fprintf(stderr, "vantage ais ls: %" PRId64 " objects in %d pages before the failure\n",
                s.keys, s.pages);
    } else {
        printf("%" PRId64 " objects\n", s.keys);
    }
    vc_sample_clear(&s);
    return ret;
}

static void print_inv(const va_ais_inv_t *v)
{
    printf("%s\tprefix=%s\tnames=%" PRId64 "\tchunks=%" PRId64 "\ttargets=%" PRId64, v->name,
           v->prefix[0] ? v->prefix : "(all)", v->ntotal, v->chunks, v->nat);
    if (v->started_ns > 0 && v->finished_ns >= v->started_ns)
        printf("\tbuild=%.3fms", (v->finished_ns - v->started_ns) / 1e6);
    printf("\n");
}

static int cmd_nbi(va_ais_t *ais, const args_t *a)
{
    if (a->npos < 2) {
        fprintf(stderr, "vantage ais nbi: expected create, show or rm (see --help)\n");
        return 2;
    }
    const char *sub = a->pos[1];
    char cmd[32];
    snprintf(cmd, sizeof cmd, "nbi %s", sub);
    if (a->npos != 3) {
        fprintf(stderr, "vantage ais %s: expected one s3://BUCKET[/PREFIX]\n", cmd);
        return 2;
    }
    va_ais_bck_t bck;
    char prefix[VA_AIS_OBJNAME_MAX + 1];
    if (!parse_uri(cmd, a->pos[2], &bck, prefix, sizeof prefix) || !name_ok(cmd, a->name))
        return 2;
    vc_sample_t s;
    vc_sample_init(&s);
    int ret = 0;
    if (strcmp(sub, "create") == 0) {
        char job[VA_AIS_JOB_ID_MAX];
        va_ais_nbi_opts_t o = {.name = a->name, .prefix = prefix, .force = a->force,
                               .names_per_chunk = a->names_per_chunk,
                               .pagesize = a->page_size};
        vc_status_t rc;
        if (a->wait) {
            va_ais_cluster_t cl;
            if (va_ais_probe(ais, 10000, 200, 1, NULL, &cl)) {
                ret = fail(cmd, ais);
                goto out;
            }
            rc = va_ais_nbi_create_wait(ais, &bck, &o, a->poll_ms, a->timeout_s * 1000, NULL, job,
                                        sizeof job, &s);
        } else {
            rc = va_ais_nbi_create(ais, &bck, &o, job, sizeof job, &s);
        }
        print_timing(a, &s);
        if (rc) {
            if (job[0] && a->wait)
                fprintf(stderr, "vantage ais %s: job %s\n", cmd, job);
            ret = fail(cmd, ais);
        } else if (a->wait) {
            printf("%s finished: server %.3f ms, client %.3f ms", job,
                   s.server_ns >= 0 ? s.server_ns / 1e6 : -1.0, s.duration_ns / 1e6);
            if (s.keys >= 0)
                printf(", %" PRId64 " names", s.keys);
            printf("\n");
            if (s.server_ns < 0)
                fprintf(stderr, "vantage ais %s: server-side time unknown: %s\n", cmd,
                        va_ais_error(ais));
        } else {
            printf("%s\n", job);
        }
    } else if (strcmp(sub, "show") == 0 || strcmp(sub, "rm") == 0) {
        /* a PREFIX selects the inventories made for exactly that prefix */
        va_ais_inv_t *inv = NULL;
        size_t n = 0, shown = 0;
        int is_show = sub[0] == 's';
        if ((is_show || prefix[0]) && va_ais_nbi_show(ais, &bck, a->name, &inv, &n, &s)) {
            print_timing(a, &s);
            ret = fail(cmd, ais);
            goto out;
        }
        if (is_show) {
            print_timing(a, &s);
            for (size_t i = 0; i < n; i++)
                if (!prefix[0] || strcmp(inv[i].prefix, prefix) == 0) {
                    print_inv(&inv[i]);
                    shown++;
                }
            printf("%zu inventories\n", shown);
        } else if (!prefix[0]) {
            vc_status_t rc = va_ais_nbi_destroy(ais, &bck, a->name, &s);
            print_timing(a, &s);
            if (rc)
                ret = fail(cmd, ais);
            else
                printf("destroyed %s\n", a->name ? a->name : "all inventories of the bucket");
        } else {
            for (size_t i = 0; i < n && !ret; i++) {
                if (strcmp(inv[i].prefix, prefix) != 0)
                    continue;
                vc_sample_clear(&s);
                if (va_ais_nbi_destroy(ais, &bck, inv[i].name, &s))
                    ret = fail(cmd, ais);
                else
                    printf("destroyed %s\n", inv[i].name);
                print_timing(a, &s);
                shown++;
            }
            if (!shown && !ret) {
                fprintf(stderr, "vantage ais %s: %s has no inventory for prefix '%s'\n", cmd,
                        a->pos[2], prefix);
                ret = 1;
            }
        }
        free(inv);
    } else {
        fprintf(stderr, "vantage ais nbi: unknown command '%s': create, show or rm\n", sub);
        ret = 2;
    }
out:
    vc_sample_clear(&s);
    return ret;
}

static int cmd_health(va_ais_t *ais, const args_t *a)
{
    if (!need_pos(a, 0, 0, "health", "no arguments"))
        return 2;
    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = va_ais_health(ais, 1, &s);
    print_timing(a, &s);
    vc_sample_clear(&s);
    if (rc)
        return fail("health", ais);
    va_ais_cluster_t cl;
    if (va_ais_cluster(ais, &cl))
        return fail("health", ais);
    printf("AIS at %s: ready, version %s, %d proxies, %d targets (%d active), cluster map v%s\n",
           va_ais_where(ais), cl.version, cl.smap.nproxies, cl.smap.ntargets, cl.smap.nactive,
           cl.smap.version);
    char err[512];
    if (va_ais_version_check_nbi(cl.major, cl.minor, cl.version, va_ais_where(ais), err,
                                 sizeof err))
        printf("NBI: not available (%s)\n", err);
    else
        printf("NBI: available\n");
    return 0;
}

static int cmd_object(va_ais_t *ais, const args_t *a, const char *cmd)
{
    va_ais_bck_t bck;
    char key[VA_AIS_OBJNAME_MAX + 1];
    const char *uri, *file = NULL;
    int is_put = strcmp(cmd, "put") == 0, is_get = strcmp(cmd, "get") == 0;
    if (is_put) {
        if (!need_pos(a, a->size >= 0 ? 1 : 2, a->size >= 0 ? 1 : 2, cmd,
                      a->size >= 0 ? "--size N s3://BUCKET/KEY" : "FILE s3://BUCKET/KEY"))
            return 2;
        file = a->size >= 0 ? NULL : a->pos[1];
        uri = a->pos[a->npos - 1];
    } else if (is_get) {
        if (!need_pos(a, 1, 2, cmd, "s3://BUCKET/KEY [FILE]"))
            return 2;
        uri = a->pos[1];
        file = a->npos == 3 ? a->pos[2] : NULL;
    } else {
        if (!need_pos(a, 1, 1, cmd, "s3://BUCKET/KEY"))
            return 2;
        uri = a->pos[1];
    }
    if (!parse_uri(cmd, uri, &bck, key, sizeof key))
        return 2;
    if (!key[0]) {
        fprintf(stderr, "vantage ais %s: '%s' names no object: write s3://BUCKET/KEY\n", cmd,
                uri);
        return 2;
    }
    if (is_put && key[strlen(key) - 1] == '/') {
        uint64_t rng = va_ais_rng_seed();
        char named[sizeof key];
        if (va_ais_random_name(named, sizeof named, key, &rng)) {
            fprintf(stderr, "vantage ais put: key prefix too long\n");
            return 2;
        }
        memcpy(key, named, sizeof key);
    }
    vc_sample_t s;
    vc_sample_init(&s);
    vc_status_t rc = VC_OK;
    int ret = 0;
    FILE *f = NULL;
    char *buf = NULL;
    if (is_put && file) {
        struct stat st;
        if (!(f = fopen(file, "rb")) || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "vantage ais put: cannot read '%s': %s\n", file,
                    f ? "not a regular file" : strerror(errno));
            ret = 1;
            goto out;
        }
        rc = va_ais_put_file(ais, &bck, key, f, (int64_t)st.st_size, &s);
    } else if (is_put) {
        if (!(buf = malloc(a->size ? (size_t)a->size : 1))) {
            fprintf(stderr, "vantage ais put: cannot allocate %" PRId64 " bytes\n", a->size);
            ret = 1;
            goto out;
        }
        uint64_t rng = va_ais_rng_seed();
        for (int64_t i = 0; i < a->size; i++)
{
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            buf[i] = (char)(rng >> 56);
        }
        rc = va_ais_put(ais, &bck, key, buf, (size_t)a->size, &s);
    } else if (is_get) {
        if (file && !(f = fopen(file, "wb"))) {
            fprintf(stderr, "vantage ais get: cannot write '%s': %s\n", file, strerror(errno));
            ret = 1;
            goto out;
        }
        int64_t n;
        rc = va_ais_get(ais, &bck, key, f, &n, &s);
    } else if (strcmp(cmd, "head") == 0) {
        int64_t size;
        rc = va_ais_head(ais, &bck, key, &size, &s);
        if (!rc)
            printf("%s\t%" PRId64 " bytes\n", uri, size);
    } else {
        rc = va_ais_delete(ais, &bck, key, &s);
    }
    print_timing(a, &s);
    if (rc) {
        ret = fail(cmd, ais);
    } else if (is_put) {
        char b[VA_AIS_BCK_NAME_MAX + 160];
        va_ais_bck_format(&bck, b, sizeof b);
        printf("put %s/%s\t%" PRId64 " bytes\n", b, key, s.bytes_sent);
    } else if (is_get) {
        printf("got %s\t%" PRId64 " bytes\n", uri, s.bytes_recv);
    } else if (strcmp(cmd, "rm") == 0) {
        printf("deleted %s\n", uri);
    }
out:
    if (f)
        fclose(f);
    free(buf);
    vc_sample_clear(&s);
    return ret;
}

int va_cmd_ais(int argc, char **argv)
{
    args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    if (a.help || a.npos == 0) {
        fputs(usage_text, a.help ? stdout : stderr);
        return a.help ? 0 : 2;
    }
    const char *cmd = a.pos[0];
    static const char *const known[] = {"ls", "nbi", "health", "put", "get", "head", "rm", NULL};
    int ok = 0;
    for (int i = 0; known[i]; i++)
        ok |= strcmp(cmd, known[i]) == 0;
    if (!ok) {
        fprintf(stderr, "vantage ais: unknown command '%s' (see vantage ais --help)\n", cmd);
        return 2;
    }
    char err[512];
    va_ais_opts_t o = {.endpoint = a.endpoint, .timeout_ms = (long)a.timeout_ms, .prefer_json = a.json,
                       .insecure_tls = a.insecure};
    va_ais_t *ais = va_ais_new(&o, err, sizeof err);
    if (!ais) {
        fprintf(stderr, "vantage ais %s: %s\n", cmd, err);
        return 2;
    }
    if (strcmp(cmd, "ls") == 0)
        rc = cmd_ls(ais, &a);
    else if (strcmp(cmd, "nbi") == 0)
        rc = cmd_nbi(ais, &a);
    else if (strcmp(cmd, "health") == 0)
        rc = cmd_health(ais, &a);
    else
        rc = cmd_object(ais, &a, cmd);
    va_ais_destroy(&ais);
    return rc;
}
