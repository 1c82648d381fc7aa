/* vk_auth: ZAP handler over a zcertstore allow-list. */
#include "vk_auth.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>

#include "vc_log.h"
#include "vc_secretfile.h"

#define ZAP_ENDPOINT "inproc://zeromq.zap.01"
#define REFUSAL_LOG_INTERVAL_MS 60000

struct vk_auth {
    zactor_t *actor;
    char allow_dir[1024];
    atomic_size_t admitted, refused;
};

/* ZAP metadata: 1-byte name length, name, 4-byte big-endian value length, value. */
static size_t put_property(byte *buf, size_t cap, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    if (nl > 255 || 1 + nl + 4 + vl > cap)
        return 0;
    buf[0] = (byte)nl;
    memcpy(buf + 1, name, nl);
    buf[1 + nl] = (byte)(vl >> 24);
    buf[2 + nl] = (byte)(vl >> 16);
    buf[3 + nl] = (byte)(vl >> 8);
    buf[4 + nl] = (byte)vl;
    memcpy(buf + 5 + nl, value, vl);
    return 5 + nl + vl;
}

static void reply(zsock_t *rep, const char *reqid, size_t reqid_len, const char *code,
                  const char *text, const char *user, const byte *meta, size_t meta_len)
{
    zmsg_t *m = zmsg_new();
    zmsg_addstr(m, "1.0");
    zmsg_addmem(m, reqid, reqid_len);
    zmsg_addstr(m, code);
    zmsg_addstr(m, text);
    zmsg_addstr(m, user);
    zmsg_addmem(m, meta, meta_len);
    zmsg_send(&m, rep);
}

static void handle(vk_auth_t *self, zsock_t *rep, zcertstore_t *store, zhash_t *logged)
{
    zmsg_t *req = zmsg_recv(rep);
    if (!req)
        return;
    zframe_t *version = zmsg_pop(req), *reqid = zmsg_pop(req), *domain = zmsg_pop(req),
             *address = zmsg_pop(req), *identity = zmsg_pop(req), *mech = zmsg_pop(req),
             *key = zmsg_pop(req);
    char addr[128] = "?";
    if (address)
        snprintf(addr, sizeof addr, "%.*s", (int)zframe_size(address),
                 (const char *)zframe_data(address));
    if (!version || !reqid || !mech || !zframe_streq(version, "1.0")) {
        vc_warn("auth", "malformed ZAP request from %s ignored", addr);
        goto done;
    }
    if (!zframe_streq(mech, "CURVE") || !key || zframe_size(key) != 32) {
        atomic_fetch_add(&self->refused, 1);
        vc_warn("auth", "refused a client from %s: not a CURVE handshake (the coordinator "
                        "requires CURVE keys; run the agent with --keys and --coordinator-key)",
                addr);
        reply(rep, (const char *)zframe_data(reqid), zframe_size(reqid), "400",
              "CURVE required", "", NULL, 0);
        goto done;
    }
    char z85[41];
    zmq_z85_encode(z85, zframe_data(key), 32);
    zcert_t *cert = zcertstore_lookup(store, z85);
    if (!cert) {
        atomic_fetch_add(&self->refused, 1);
        int64_t now = zclock_mono();
        int64_t *last = zhash_lookup(logged, z85);
        if (!last || now - *last >= REFUSAL_LOG_INTERVAL_MS) {
            vc_warn("auth",
                    "refused an agent from %s: its public key %s is not in the allow-list %s "
                    "(to admit it, copy its .key file there)",
                    addr, z85, self->allow_dir);
            int64_t *t = last ? last : malloc(sizeof *t);
            if (t) {
                *t = now;
                if (!last && zhash_insert(logged, z85, t) == 0)
                    zhash_freefn(logged, z85, free);
                else if (!last)
                    free(t);
            }
        }
        reply(rep, (const char *)zframe_data(reqid), zframe_size(reqid), "400",
              "key not allowed", "", NULL, 0);
        goto done;
    }
    atomic_fetch_add(&self->admitted, 1);
    const char *name = zcert_meta(cert, "name");
    byte meta[256];
    size_t ml = name ? put_property(meta, sizeof meta, "Name", name) : 0;
    vc_debug("auth", "admitted %s with key %s (%s)", addr, z85, name ? name : "no name");
    reply(rep, (const char *)zframe_data(reqid), zframe_size(reqid), "200", "OK", z85, meta, ml);
done:
    zframe_destroy(&version);
    zframe_destroy(&reqid);
    zframe_destroy(&domain);
    zframe_destroy(&address);
    zframe_destroy(&identity);
    zframe_destroy(&mech);
    zframe_destroy(&key);
    zmsg_destroy(&req);
}

static void actor(zsock_t *pipe, void *arg)
{
    vk_auth_t *self = arg;
    zsock_t *rep = zsock_new(ZMQ_REP);
    zcertstore_t *store = zcertstore_new(self->allow_dir);
    zhash_t *logged = zhash_new();
    if (!rep || !store || !logged || zsock_bind(rep, ZAP_ENDPOINT) != 0) {
        zsock_signal(pipe, 1);
        goto out;
    }
    zsock_signal(pipe, 0);
    zpoller_t *poller = zpoller_new(pipe, rep, NULL);
    while (poller) {
        zsock_t *which = zpoller_wait(poller, -1);
        if (which == rep) {
            handle(self, rep, store, logged);
            continue;
        }
        if (which == pipe) {
            char *cmd = zstr_recv(pipe);
            int term = !cmd || streq(cmd, "$TERM");
            zstr_free(&cmd);
            if (term)
                break;
            continue;
        }
        if (zpoller_terminated(poller))
            break;
    }
    zpoller_destroy(&poller);
out:
    zhash_destroy(&logged);
    zcertstore_destroy(&store);
    zsock_destroy(&rep);
}

vk_auth_t *vk_auth_new(const char *allow_dir, char *err, size_t errlen)
{
    struct stat st;
    if (!allow_dir || stat(allow_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen,
                 "allow-list directory %s is not readable (%s): create it and put each "
                 "agent's public .key file in it",
                 allow_dir ? allow_dir : "(none)", allow_dir ? strerror(errno) : "not given");
        return NULL;
    }
    vk_auth_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(self->allow_dir, sizeof self->allow_dir, "%s", allow_dir);
    zdir_t *dir = zdir_new(allow_dir, "-");
    if (dir) {
        zfile_t **files = zdir_flatten(dir);
        for (size_t i = 0; files && files[i]; i++) {
            const char *fn = zfile_filename(files[i], NULL);
            size_t fl = strlen(fn);
            if (fl > 7 && strcmp(fn + fl - 7, "_secret") == 0)
                vc_warn("auth",
                        "%s is a secret key file in the allow-list directory: the coordinator "
                        "needs only public .key files; move it back to its owner",
                        fn);
        }
        zdir_flatten_free(&files);
        zdir_destroy(&dir);
    }
    self->actor = zactor_new(actor, self);
    if (!self->actor) {
        snprintf(err, errlen,
                 "cannot start the authentication handler (is another one running in this "
                 "process?)");
        free(self);
        return NULL;
    }
    return self;
}

void vk_auth_destroy(vk_auth_t **p)
{
    if (!p || !*p)
        return;
    zactor_destroy(&(*p)->actor);
    free(*p);
    *p = NULL;
}

void vk_auth_counts(vk_auth_t *a, size_t *admitted, size_t *refused)
{
    if (admitted)
        *admitted = atomic_load(&a->admitted);
    if (refused)
        *refused = atomic_load(&a->refused);
}

vc_status_t vk_auth_apply_server(zsock_t *sock, const char *secret_file, char *err,
                                 size_t errlen)
{
    vc_status_t rc = vc_secretfile_check(secret_file, err, errlen);
    if (rc)
        return rc;
    /* zcert_load takes the public file name and reads NAME_secret when present. */
    char pub[1024];
    size_t l = strlen(secret_file);
    if (l < 8 || strcmp(secret_file + l - 7, "_secret") != 0 || l - 7 >= sizeof pub) {
        snprintf(err, errlen, "%s: a secret key file name ends in _secret (vantage keygen)",
                 secret_file);
        return VC_ERR_ARG;
    }
    memcpy(pub, secret_file, l - 7);
    pub[l - 7] = '\0';
    zcert_t *cert = zcert_load(pub);
    if (!cert || strspn(zcert_secret_txt(cert), "0") == 40) {
        snprintf(err, errlen, "cannot load a CURVE key pair from %s (made by vantage keygen?)",
                 secret_file);
        zcert_destroy(&cert);
        return VC_ERR_AUTH;
    }
    zcert_apply(cert, sock);
    zsock_set_curve_server(sock, 1);
    zsock_set_zap_domain(sock, "vantage");
    zcert_destroy(&cert);
    return VC_OK;
}
