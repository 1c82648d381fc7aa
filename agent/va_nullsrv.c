/* va_nullsrv: fixed-status, empty-body HTTP/1.1 answers on loopback. */
#include "va_nullsrv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONN 16
#define HEAD_MAX 65536

typedef struct {
    int fd;
    char *buf;
    size_t len;
    int64_t skip; /* body bytes still to discard */
    int answer;   /* reply once the body has been read */
} conn_t;

struct va_nullsrv_t {
    int lfd;
    int wake[2]; /* a byte on wake[1] stops the thread */
    int port;
    int status;
    pthread_t thread;
    atomic_llong requests, connections;
    conn_t conn[MAX_CONN];
    char reply[128];
    size_t reply_len;
};

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
    }
}

static void conn_close(conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
    c->len = 0;
    c->skip = 0;
    c->answer = 0;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Content-Length of a request head, 0 when absent, -1 when unreadable. */
static int64_t content_length(const char *head)
{
    for (const char *l = strstr(head, "\r\n"); l && l[2] != '\r'; l = strstr(l + 2, "\r\n")) {
        if (strncasecmp(l + 2, "Content-Length:", 15) == 0) {
            char *end;
            long long v = strtoll(l + 17, &end, 10);
            return v < 0 ? -1 : v;
        }
    }
    return 0;
}

static int has_header(const char *head, const char *name, const char *value)
{
    size_t nl = strlen(name);
    for (const char *l = strstr(head, "\r\n"); l && l[2] != '\r'; l = strstr(l + 2, "\r\n"))
        if (strncasecmp(l + 2, name, nl) == 0 && l[2 + nl] == ':') {
            const char *v = l + 3 + nl;
            while (*v == ' ')
                v++;
            return strncasecmp(v, value, strlen(value)) == 0;
        }
    return 0;
}

/* Consumes what arrived on c; -1 closes the connection. A request is
 * answered once its whole body has been read, as a server that looks at the
 * body would, so the client never sees its upload cut short. */
static int serve(va_nullsrv_t *self, conn_t *c)
{
    for (;;) {
        if (c->skip > 0) {
            size_t n = (size_t)c->skip < c->len ? (size_t)c->skip : c->len;
            memmove(c->buf, c->buf + n, c->len - n);
            c->len -= n;
            c->skip -= (int64_t)n;
            if (c->skip > 0)
                return 0;
        }
        if (c->answer) {
            /* counted before the client can see the answer */
            atomic_fetch_add(&self->requests, 1);
            if (send_all(c->fd, self->reply, self->reply_len) != 0)
                return -1;
            c->answer = 0;
        }
        c->buf[c->len] = '\0';
        char *end = strstr(c->buf, "\r\n\r\n");
        if (!end)
            return c->len >= HEAD_MAX ? -1 : 0;
        end[2] = '\0'; /* the head, ending in its last line's CRLF */
        int64_t body = content_length(c->buf);
        if (body < 0)
            return -1;
        if (body > 0 && has_header(c->buf, "Expect", "100-continue") &&
            send_all(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) != 0)
            return -1;
        size_t used = (size_t)(end + 4 - c->buf);
        memmove(c->buf, c->buf + used, c->len - used);
        c->len -= used;
        c->skip = body;
        c->answer = 1;
    }
}

static void *run(void *arg)
{
    va_nullsrv_t *self = arg;
    struct pollfd p[MAX_CONN + 2];
    for (;;) {
        int n = 0;
        p[n++] = (struct pollfd){.fd = self->wake[0], .events = POLLIN};
        p[n++] = (struct pollfd){.fd = self->lfd, .events = POLLIN};
        for (int i = 0; i < MAX_CONN; i++)
            p[n++] = (struct pollfd){.fd = self->conn[i].fd, .events = POLLIN};
        if (poll(p, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[0].revents)
            break;
        if (p[1].revents & POLLIN) {
            int fd = accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC);
            int slot = -1;
            for (int i = 0; fd >= 0 && i < MAX_CONN && slot < 0; i++)
                if (self->conn[i].fd < 0)
                    slot = i;
            if (fd >= 0 && (slot < 0 || !(self->conn[slot].buf = malloc(HEAD_MAX + 1)))) {
                close(fd); /* full: the client sees a closed connection */
            } else if (fd >= 0) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                self->conn[slot].fd = fd;
                atomic_fetch_add(&self->connections, 1);
            }
        }
        for (int i = 0; i < MAX_CONN; i++) {
            conn_t *c = &self->conn[i];
            if (c->fd < 0 || !p[i + 2].revents)
                continue;
            ssize_t r = recv(c->fd, c->buf + c->len, HEAD_MAX - c->len, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || (c->len += (size_t)r, serve(self, c)) != 0)
                conn_close(c);
        }
    }
    return NULL;
}

va_nullsrv_t *va_nullsrv_new(int status, char *err, size_t errlen)
{
    if (status < 100 || status > 599) {
        snprintf(err, errlen, "null server: status %d is not an HTTP status", status);
        return NULL;
    }
    va_nullsrv_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, errlen, "null server: out of memory");
        return NULL;
    }
    self->lfd = self->wake[0] = self->wake[1] = -1;
    for (int i = 0; i < MAX_CONN; i++)
        self->conn[i].fd = -1;
    self->status = status;
    self->reply_len = (size_t)snprintf(self->reply, sizeof self->reply,
                                       "HTTP/1.1 %d %s\r\nContent-Length: 0\r\n\r\n", status,
                                       reason(status));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if ((self->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        bind(self->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(self->lfd, 16) != 0 ||
        getsockname(self->lfd, (struct sockaddr *)&a, &al) != 0 ||
        pipe2(self->wake, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "null server: cannot listen on 127.0.0.1: %s", strerror(errno));
        goto fail;
    }
    self->port = ntohs(a.sin_port);
    if (pthread_create(&self->thread, NULL, run, self) != 0) {
        snprintf(err, errlen, "null server: cannot start its thread");
        goto fail;
    }
    return self;
fail:
    if (self->lfd >= 0)
        close(self->lfd);
    if (self->wake[0] >= 0) {
        close(self->wake[0]);
        close(self->wake[1]);
    }
    free(self);
    return NULL;
}

void va_nullsrv_destroy(va_nullsrv_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    va_nullsrv_t *self = *self_p;
    char b = 1;
    while (write(self->wake[1], &b, 1) < 0 && errno == EINTR)
        ;
    pthread_join(self->thread, NULL);
    for (int i = 0; i < MAX_CONN; i++)
        conn_close(&self->conn[i]);
    close(self->lfd);
    close(self->wake[0]);
    close(self->wake[1]);
    free(self);
    *self_p = NULL;
}

int va_nullsrv_port(const va_nullsrv_t *self) { return self->port; }
int64_t va_nullsrv_requests(const va_nullsrv_t *self) { return atomic_load(&self->requests); }
int64_t va_nullsrv_connections(const va_nullsrv_t *self)
{
    return atomic_load(&self->connections);
}
