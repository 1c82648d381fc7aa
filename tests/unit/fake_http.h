/* fake_http: a scripted HTTP/1.1 server on 127.0.0.1 for client unit tests.
 * One thread per server handles one connection at a time (keep-alive), logs
 * every request, and asks the test's handler for each reply. Header-only so
 * each test executable carries its own copy. */
#ifndef FAKE_HTTP_H
#define FAKE_HTTP_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define FK_MAX_LOG 256

typedef struct {
    char method[16];
    char target[2048];
    char headers[8192]; /* raw header lines */
    char *body;
    size_t body_len;
} fk_req_t;

typedef struct {
    int status;
    char headers[2048]; /* extra "Name: value\r\n" lines */
    char *body;         /* malloc'd; the server frees it */
    size_t body_len;
    int no_length;      /* send the body with chunked encoding */
    int drop;           /* close the connection without replying */
} fk_resp_t;

typedef void (*fk_handler_t)(void *arg, int nth, const fk_req_t *req, fk_resp_t *resp);

typedef struct {
    int lfd, port;
    pthread_t th;
    atomic_int stop;
    fk_handler_t handler;
    void *arg;
    pthread_mutex_t mu;
    fk_req_t log[FK_MAX_LOG];
    int nlog;
} fk_server_t;

static const char *fk_header(const fk_req_t *r, const char *name, char *out, size_t outlen)
{
    size_t n = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        const char *eol = strstr(p, "\r\n");
        if (!eol)
            break;
        if ((size_t)(eol - p) > n && strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1;
            while (*v == ' ')
                v++;
            snprintf(out, outlen, "%.*s", (int)(eol - v), v);
            return out;
        }
        p = eol + 2;
    }
    return NULL;
}

static int fk_read_some(fk_server_t *s, int fd, char *buf, size_t cap)
{
    for (;;) {
        if (atomic_load(&s->stop))
            return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 50);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        ssize_t n = recv(fd, buf, cap, 0);
        return n <= 0 ? -1 : (int)n;
    }
}

static void fk_send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void fk_serve_conn(fk_server_t *s, int fd)
{
    static __thread char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        char *end;
        while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
            if (have == sizeof buf)
                return;
            int n = fk_read_some(s, fd, buf + have, sizeof buf - have);
            if (n < 0)
                return;
            have += (size_t)n;
        }
        fk_req_t req;
        memset(&req, 0, sizeof req);
        size_t hlen = (size_t)(end - buf) + 4;
        sscanf(buf, "%15s %2047s", req.method, req.target);
        const char *hs = strstr(buf, "\r\n") + 2;
        snprintf(req.headers, sizeof req.headers, "%.*s", (int)(end + 2 - hs), hs);
        char cl[32];
        size_t blen = fk_header(&req, "Content-Length", cl, sizeof cl) ? strtoul(cl, NULL, 10) : 0;
        while (have < hlen + blen) {
            int n = fk_read_some(s, fd, buf + have, sizeof buf - have);
            if (n < 0)
                return;
            have += (size_t)n;
        }
        req.body = malloc(blen + 1);
        memcpy(req.body, buf + hlen, blen);
        req.body[blen] = '\0';
        req.body_len = blen;
        memmove(buf, buf + hlen + blen, have - hlen - blen);
        have -= hlen + blen;

        pthread_mutex_lock(&s->mu);
        int nth = s->nlog;
        if (s->nlog < FK_MAX_LOG)
            s->log[s->nlog++] = req;
        pthread_mutex_unlock(&s->mu);
        fk_resp_t resp = {.status = 200};
        s->handler(s->arg, nth, &req, &resp);
        if (nth >= FK_MAX_LOG)
            free(req.body);
        if (resp.drop) {
            free(resp.body);
            return;
        }
        char head[4096];
        int head_req = strcmp(req.method, "HEAD") == 0;
        int n;
        if (resp.no_length)
            n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\n%sTransfer-Encoding: chunked\r\n\r\n",
                         resp.status, resp.headers);
        else if (head_req && strcasestr(resp.headers, "Content-Length:"))
            n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\n%s\r\n", resp.status, resp.headers);
        else
            n = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\n%sContent-Length: %zu\r\n\r\n",
                         resp.status, resp.headers, resp.body_len);
        fk_send_all(fd, head, (size_t)n);
        if (!head_req && resp.no_length) {
            char sz[32];
            int m = snprintf(sz, sizeof sz, "%zx\r\n", resp.body_len);
            if (resp.body_len) {
                fk_send_all(fd, sz, (size_t)m);
                fk_send_all(fd, resp.body, resp.body_len);
                fk_send_all(fd, "\r\n", 2);
            }
            fk_send_all(fd, "0\r\n\r\n", 5);
        } else if (!head_req) {
            fk_send_all(fd, resp.body, resp.body_len);
        }
        free(resp.body);
    }
}

static void *fk_main(void *arg)
{
    fk_server_t *s = arg;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {.fd = s->lfd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        fk_serve_conn(s, fd);
        close(fd);
    }
    return NULL;
}

static fk_server_t *fk_start(fk_handler_t h, void *arg)
{
    fk_server_t *s = calloc(1, sizeof *s);
    s->handler = h;
    s->arg = arg;
    pthread_mutex_init(&s->mu, NULL);
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) || listen(s->lfd, 8) ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al)) {
        close(s->lfd);
        free(s);
        return NULL;
    }
    s->port = ntohs(a.sin_port);
    pthread_create(&s->th, NULL, fk_main, s);
    return s;
}

static void fk_stop(fk_server_t **sp)
{
    fk_server_t *s = *sp;
    if (!s)
        return;
    atomic_store(&s->stop, 1);
    pthread_join(s->th, NULL);
    close(s->lfd);
    for (int i = 0; i < s->nlog; i++)
        free(s->log[i].body);
    pthread_mutex_destroy(&s->mu);
    free(s);
    *sp = NULL;
}

/* Replies helpers. */
static void fk_body(fk_resp_t *r, const void *data, size_t len)
{
    r->body = malloc(len ? len : 1);
    memcpy(r->body, data, len);
    r->body_len = len;
}

static void fk_text(fk_resp_t *r, int status, const char *ctype, const char *text)
{
    r->status = status;
    if (ctype)
        snprintf(r->headers, sizeof r->headers, "Content-Type: %s\r\n", ctype);
    fk_body(r, text, strlen(text));
}

#endif
