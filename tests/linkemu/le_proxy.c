/* le_proxy: event loop, connections, lanes, drop control (see le_proxy.h).
 *
 * Each connection has two directions; direction d reads from side d and
 * writes to side 1-d (side 0 is the client, side 1 the upstream, LE_UP = 0).
 * A direction's bytes live in one ring buffer and move through four
 * counters: rd (read from the source) >= sched (handed to the link, each
 * chunk with a release time in a marker) >= rel (release time passed) >= wr
 * (written to the destination). A direction with unscheduled bytes waits in
 * its lane's round-robin queue for tokens; each direction with a pending
 * release sits in one timer heap. */
#include "le_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "le_link.h"
#include "vc_clock.h"
#include "vc_log.h"

#define LOG "linkemu"
#define LE_NEVER INT64_MAX
#define LE_MARKS 256     /* chunks in flight per direction */
#define LE_CTL_LINE 256  /* longest control command */
#define LE_DISCARD 65536 /* scratch for data whose destination is gone */
#define LE_CTL_MAX 16    /* control connections open at once */

enum { END_OPEN = 0, END_FIN, END_RST };
typedef enum { H_LISTEN, H_SIDE, H_SIGNAL, H_TIMER, H_CTL_LISTEN, H_CTL_CONN } le_hkind_t;

typedef struct {
    le_hkind_t kind;
    void *ptr;
    int idx;
} le_handle_t;

typedef struct le_conn le_conn_t;

typedef struct le_dir {
    le_conn_t *c;
    int idx; /* LE_UP or LE_DOWN = the side it reads from */
    uint8_t *buf;
    size_t cap;
    uint64_t rd, sched, rel, wr;
    struct {
        uint64_t end;
        int64_t at;
    } mk[LE_MARKS];
    unsigned mk_head, mk_n;
    int64_t last_release;
    int64_t not_before; /* no scheduling before this (handshake) */
    int src_end;        /* END_*: what the source did */
    int end_sched, end_done;
    int64_t end_at;
    int dead;    /* destination gone: discard */
    int blocked; /* last write hit EAGAIN */
    struct le_dir *lq_prev, *lq_next;
    int in_lq;
    int64_t deadline;
    long heap_idx;
} le_dir_t;

typedef struct {
    int fd;
    int broken; /* error or reset seen: no more I/O on it */
    uint32_t mask;
    int registered;
    le_handle_t h;
} le_side_t;

struct le_conn {
    struct le_proxy *px;
    unsigned long id;
    int pair;
    int connected; /* upstream connect completed */
    int closed;
    le_side_t side[2];
    le_dir_t dir[2];
    le_conn_t *prev, *next, *grave_next;
};

typedef struct {
    le_link_t *link;
    le_dir_t *head, *tail;
    int64_t deadline;
} le_lane_t;

typedef struct {
    int fd;
    le_handle_t h;
    struct sockaddr_storage up;
    socklen_t uplen;
    char listen_txt[80];
    char up_txt[300];
} le_listener_t;

typedef struct le_ctl {
    int fd;
    le_handle_t h;
    char line[LE_CTL_LINE];
    size_t len;
    struct le_ctl *next;
} le_ctl_t;

struct le_proxy {
    le_profile_t prof;
    int epfd, sigfd, timerfd, ctlfd;
    int64_t timer_armed;
    char ctl_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    le_handle_t sig_h, timer_h, ctl_h;
    le_listener_t lis[LE_MAX_PAIRS];
    size_t nlis;
    int accepting;
    le_lane_t lane[2];
    size_t queue_bytes;
    le_conn_t *conns, *grave;
    le_ctl_t *ctls;
    size_t nctls, nconns, max_conns;
    unsigned long next_id;
    le_dir_t **heap;
    size_t heap_n, heap_cap;
    int down; /* 0 up, else 1 + le_drop_mode_t */
    int64_t restore_at;
    le_drop_mode_t sig_mode;
    double sig_seconds;
    int stop;
    uint64_t accepted, refused, dropped, bytes[2];
    uint8_t discard[LE_DISCARD];
};

static int stalled(const le_proxy_t *px)
{
    return px->down == 1 + LE_DROP_STALL;
}

/* ---- timer heap of directions keyed by deadline ---- */

static void heap_put(le_proxy_t *px, size_t i, le_dir_t *d)
{
    px->heap[i] = d;
    d->heap_idx = (long)i;
}

static void heap_up(le_proxy_t *px, size_t i)
{
    le_dir_t *d = px->heap[i];
    while (i > 0 && px->heap[(i - 1) / 2]->deadline > d->deadline) {
        heap_put(px, i, px->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_put(px, i, d);
}

static void heap_down(le_proxy_t *px, size_t i)
{
    le_dir_t *d = px->heap[i];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        int64_t best = d->deadline;
        if (l < px->heap_n && px->heap[l]->deadline < best)
            m = l, best = px->heap[l]->deadline;
        if (l + 1 < px->heap_n && px->heap[l + 1]->deadline < best)
            m = l + 1;
        if (m == i)
            break;
        heap_put(px, i, px->heap[m]);
        i = m;
    }
    heap_put(px, i, d);
}

static void heap_remove(le_proxy_t *px, le_dir_t *d)
{
    if (d->heap_idx < 0)
        return;
    size_t i = (size_t)d->heap_idx, last = --px->heap_n;
    d->heap_idx = -1;
    if (i == last)
        return;
    le_dir_t *moved = px->heap[last];
    heap_put(px, i, moved);
    heap_up(px, i);
    heap_down(px, (size_t)moved->heap_idx);
}

static void heap_set(le_proxy_t *px, le_dir_t *d, int64_t deadline)
{
    if (deadline == LE_NEVER) {
        heap_remove(px, d);
        return;
    }
    if (d->heap_idx < 0) {
        /* capacity is two per connection slot, fixed at start */
        d->deadline = deadline;
        heap_put(px, px->heap_n++, d);
        heap_up(px, (size_t)d->heap_idx);
        return;
    }
    int64_t old = d->deadline;
    d->deadline = deadline;
    if (deadline < old)
        heap_up(px, (size_t)d->heap_idx);
    else
        heap_down(px, (size_t)d->heap_idx);
}

/* ---- epoll registration ---- */

static void side_mask(le_proxy_t *px, le_side_t *s, uint32_t mask)
{
    if (s->fd < 0 || (s->registered && s->mask == mask))
        return;
    /* A socket with nothing to wait for is removed: EPOLLHUP/EPOLLERR are
     * reported whatever the mask, and would spin the loop. */
    if (mask == 0) {
        if (s->registered)
            epoll_ctl(px->epfd, EPOLL_CTL_DEL, s->fd, NULL);
        s->registered = 0;
        s->mask = 0;
        return;
    }
    struct epoll_event ev = {.events = mask, .data.ptr = &s->h};
    if (epoll_ctl(px->epfd, s->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s->fd, &ev) == 0) {
        s->registered = 1;
        s->mask = mask;
    } else {
        vc_warn(LOG, "epoll_ctl on fd %d failed: %s", s->fd, strerror(errno));
    }
}

/* ---- lanes: round-robin of directions waiting for tokens ---- */

static size_t dir_space(const le_dir_t *d)
{
    return d->cap - (size_t)(d->rd - d->wr);
}

static int dir_eligible(const le_dir_t *d, int64_t now)
{
    return !d->dead && d->rd > d->sched && d->mk_n < LE_MARKS && now >= d->not_before &&
           !d->c->closed;
}

static void lane_remove(le_lane_t *ln, le_dir_t *d)
{
    if (!d->in_lq)
        return;
    if (d->lq_prev)
        d->lq_prev->lq_next = d->lq_next;
    else
        ln->head = d->lq_next;
    if (d->lq_next)
        d->lq_next->lq_prev = d->lq_prev;
    else
        ln->tail = d->lq_prev;
    d->lq_prev = d->lq_next = NULL;
    d->in_lq = 0;
}

static void lane_append(le_lane_t *ln, le_dir_t *d)
{
    if (d->in_lq)
        return;
    d->lq_prev = ln->tail;
    d->lq_next = NULL;
    if (ln->tail)
        ln->tail->lq_next = d;
    else
        ln->head = d;
    ln->tail = d;
    d->in_lq = 1;
}

static void dir_timer_update(le_dir_t *d, int64_t now);

/* The source ended and every byte before the end has a release time: the
 * FIN or RST follows them through the delay line (it takes no tokens). */
static void dir_schedule_end(le_dir_t *d, int64_t now)
{
    if (d->end_sched || d->src_end == END_OPEN || d->sched != d->rd)
        return;
    le_link_t *link = d->c->px->lane[d->idx].link;
    int64_t from = now > d->not_before ? now : d->not_before;
    d->end_at = le_link_release(link, from, d->last_release);
    d->last_release = d->end_at;
    d->end_sched = 1;
}

static void lane_service(le_proxy_t *px, int idx, int64_t now)
{
    le_lane_t *ln = &px->lane[idx];
    ln->deadline = LE_NEVER;
    if (px->down)
        return;
    size_t quantum = le_link_quantum(ln->link);
    le_dir_t *d;
    while ((d = ln->head) != NULL) {
        if (!dir_eligible(d, now)) {
            lane_remove(ln, d);
            continue;
        }
        uint64_t pending = d->rd - d->sched;
        size_t n = pending < quantum ? (size_t)pending : quantum;
        int64_t wait = le_link_take(ln->link, n, now);
        if (wait > 0) {
            ln->deadline = now + wait; /* d keeps its turn at the head */
            return;
        }
        lane_remove(ln, d);
        int64_t at = le_link_release(ln->link, now, d->last_release);
        d->last_release = at;
        d->sched += n;
        unsigned lastm = (d->mk_head + d->mk_n - 1) % LE_MARKS;
        if (d->mk_n > 0 && d->mk[lastm].at == at) {
            d->mk[lastm].end = d->sched;
        } else {
            unsigned slot = (d->mk_head + d->mk_n) % LE_MARKS;
            d->mk[slot].end = d->sched;
            d->mk[slot].at = at;
            d->mk_n++;
        }
        dir_schedule_end(d, now);
        dir_timer_update(d, now);
        if (dir_eligible(d, now))
            lane_append(ln, d);
    }
}

/* ---- connections ---- */

static void fd_abort(int fd)
{
    /* linger 0: close sends RST, which is what a failed link looks like */
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
}

static void set_accepting(le_proxy_t *px, int on);

static void conn_close(le_conn_t *c, int abort_sides)
{
    le_proxy_t *px = c->px;
    if (c->closed)
        return;
    c->closed = 1;
    for (int s = 0; s < 2; s++) {
        le_side_t *sd = &c->side[s];
        if (sd->fd >= 0) {
            if (sd->registered)
                epoll_ctl(px->epfd, EPOLL_CTL_DEL, sd->fd, NULL);
            if (abort_sides && !sd->broken)
                fd_abort(sd->fd);
            else
                close(sd->fd);
            sd->fd = -1;
        }
        heap_remove(px, &c->dir[s]);
        lane_remove(&px->lane[s], &c->dir[s]);
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        px->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->grave_next = px->grave;
    px->grave = c;
    px->nconns--;
    vc_debug(LOG, "connection %lu closed%s", c->id, abort_sides ? " with reset" : "");
    if (!px->accepting && px->nconns < px->max_conns)
        set_accepting(px, 1);
}

static void conn_free(le_conn_t *c)
{
    for (int s = 0; s < 2; s++)
        free(c->dir[s].buf);
    free(c);
}

/* Side s failed (reset, error): what was read from it still goes out, then
 * a reset; what was going to it is discarded. */
static void side_broken(le_conn_t *c, int s, int64_t now)
{
    c->side[s].broken = 1;
    le_dir_t *in = &c->dir[s], *out = &c->dir[1 - s];
    if (in->end_done) {
        /* its FIN has been passed on already: the reset follows at once */
        conn_close(c, 1);
        return;
    }
    in->src_end = END_RST; /* a FIN not yet passed on becomes the reset */
    if (!out->dead) {
        out->dead = 1;
        out->rd = out->sched = out->rel = out->wr;
        out->mk_n = 0;
        out->blocked = 0;
        lane_remove(&c->px->lane[out->idx], out);
        heap_remove(c->px, out);
    }
    dir_schedule_end(in, now);
    dir_timer_update(in, now);
}

static void dir_flush(le_dir_t *d, int64_t now)
{
    le_conn_t *c = d->c;
    if (d->dead || c->closed || (d->idx == LE_UP && !c->connected))
        return;
    le_side_t *to = &c->side[1 - d->idx];
    while (d->wr < d->rel) {
        size_t len = (size_t)(d->rel - d->wr), off = (size_t)(d->wr % d->cap);
        size_t first = len < d->cap - off ? len : d->cap - off;
        struct iovec iov[2] = {{d->buf + off, first}, {d->buf, len - first}};
        ssize_t n = writev(to->fd, iov, len > first ? 2 : 1);
        if (n > 0) {
            d->wr += (uint64_t)n;
            c->px->bytes[d->idx] += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            d->blocked = 1;
            return;
        }
        side_broken(c, 1 - d->idx, now);
        return;
    }
    d->blocked = 0;
    if (d->wr == d->rd && d->end_sched && !d->end_done && d->end_at <= now && !stalled(c->px)) {
        d->end_done = 1;
        if (d->src_end == END_FIN) {
            shutdown(to->fd, SHUT_WR);
        } else {
            vc_debug(LOG, "connection %lu: reset passed %s", c->id, d->idx == LE_UP ? "up" : "down");
            conn_close(c, 1);
        }
    }
}

static void dir_timer_update(le_dir_t *d, int64_t now)
{
    int64_t dl = LE_NEVER;
    if (!d->c->closed && !d->dead && !stalled(d->c->px)) {
        if (d->mk_n > 0)
            dl = d->mk[d->mk_head].at;
        /* the end is due once everything before it is written; not before
         * the upstream is connected (its completion services us) */
        int writable = d->idx != LE_UP || d->c->connected;
        if (writable && d->end_sched && !d->end_done && d->wr == d->rd && d->end_at < dl)
            dl = d->end_at;
        if (d->rd > d->sched && now < d->not_before && d->not_before < dl)
            dl = d->not_before;
    }
    heap_set(d->c->px, d, dl);
}

static void conn_update(le_conn_t *c);

/* Due markers release their bytes; the direction joins its lane when it has
 * bytes for the link; writes what is due. */
static void dir_service(le_dir_t *d, int64_t now)
{
    le_conn_t *c = d->c;
    if (c->closed)
        return;
    if (!stalled(c->px)) {
        while (d->mk_n > 0 && d->mk[d->mk_head].at <= now) {
            d->rel = d->mk[d->mk_head].end;
            d->mk_head = (d->mk_head + 1) % LE_MARKS;
            d->mk_n--;
        }
    }
    if (dir_eligible(d, now))
        lane_append(&c->px->lane[d->idx], d);
    dir_flush(d, now);
    if (!c->closed)
        dir_timer_update(d, now);
}

static void dir_read(le_dir_t *d, int64_t now)
{
    le_conn_t *c = d->c;
    le_side_t *from = &c->side[d->idx];
    if (d->src_end != END_OPEN || from->broken || c->closed)
        return;
    /* a bounded number of reads per event: a fast source whose data is being
     * discarded must not hold the loop */
    for (int reads = 0; reads < 16; reads++) {
        ssize_t n;
        if (d->dead) {
            n = read(from->fd, c->px->discard, sizeof(c->px->discard));
        } else {
            size_t space = dir_space(d);
            if (space == 0)
                break;
            size_t off = (size_t)(d->rd % d->cap);
            size_t first = space < d->cap - off ? space : d->cap - off;
            struct iovec iov[2] = {{d->buf + off, first}, {d->buf, space - first}};
            n = readv(from->fd, iov, space > first ? 2 : 1);
            if (n > 0)
                d->rd += (uint64_t)n;
        }
        if (n > 0)
            continue;
        if (n == 0) {
            d->src_end = END_FIN;
        } else if (errno == EINTR) {
            continue;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
            side_broken(c, d->idx, now);
        }
        break;
    }
    if (c->closed)
        return;
    if (d->dead && d->src_end != END_OPEN && c->dir[1 - d->idx].dead) {
        conn_close(c, 1);
        return;
    }
    dir_schedule_end(d, now);
    dir_service(d, now);
}

static int dir_finished(const le_dir_t *d)
{
    return d->end_done || (d->dead && d->src_end != END_OPEN);
}

static void conn_update(le_conn_t *c)
{
    if (c->closed)
        return;
    if (dir_finished(&c->dir[0]) && dir_finished(&c->dir[1])) {
        conn_close(c, 0);
        return;
    }
    for (int s = 0; s < 2; s++) {
        le_side_t *sd = &c->side[s];
        uint32_t m = 0;
        if (!sd->broken) {
            if (s == 1 && !c->connected) {
                m = EPOLLOUT;
            } else {
                le_dir_t *in = &c->dir[s], *out = &c->dir[1 - s];
                if (in->src_end == END_OPEN && (in->dead || dir_space(in) > 0))
                    m |= EPOLLIN;
                if (out->blocked && !out->dead)
                    m |= EPOLLOUT;
            }
        }
        side_mask(c->px, sd, m);
    }
}

static void conn_new(le_proxy_t *px, int cfd, int pair, int64_t now)
{
    le_listener_t *li = &px->lis[pair];
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int ufd = socket(li->up.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    le_conn_t *c = calloc(1, sizeof(*c));
    uint8_t *b0 = malloc(px->queue_bytes), *b1 = malloc(px->queue_bytes);
    if (ufd < 0 || c == NULL || b0 == NULL || b1 == NULL) {
        vc_warn(LOG, "cannot open a connection to %s: %s; client reset", li->up_txt,
                ufd < 0 ? strerror(errno) : "out of memory");
        if (ufd >= 0)
            close(ufd);
        free(c);
        free(b0);
        free(b1);
        fd_abort(cfd);
        return;
    }
    setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->px = px;
    c->id = ++px->next_id;
    c->pair = pair;
    for (int s = 0; s < 2; s++) {
        c->side[s].fd = s == 0 ? cfd : ufd;
        c->side[s].h = (le_handle_t){H_SIDE, c, s};
        le_dir_t *d = &c->dir[s];
        d->c = c;
        d->idx = s;
        d->buf = s == 0 ? b0 : b1;
        d->cap = px->queue_bytes;
        d->last_release = INT64_MIN;
        d->heap_idx = -1;
        d->end_at = LE_NEVER;
    }
    if (px->prof.handshake > 0) {
        /* The client's connect completed here at once; on the emulated link
         * it would complete one RTT later, and the server would see the SYN
         * after the up delay. */
        int64_t up = le_link_delay_ns(px->lane[LE_UP].link);
        int64_t down = le_link_delay_ns(px->lane[LE_DOWN].link);
        c->dir[LE_UP].not_before = now + up + down;
        c->dir[LE_DOWN].not_before = now + up;
    }
    c->next = px->conns;
    if (px->conns)
        px->conns->prev = c;
    px->conns = c;
    px->nconns++;
    px->accepted++;
    if (connect(ufd, (struct sockaddr *)&li->up, li->uplen) == 0)
        c->connected = 1;
    else if (errno != EINPROGRESS) {
        vc_info(LOG, "connect to upstream %s failed: %s; client reset", li->up_txt, strerror(errno));
        conn_close(c, 1);
        return;
    }
    vc_debug(LOG, "connection %lu accepted on %s", c->id, li->listen_txt);
    conn_update(c);
}

static void on_side(le_conn_t *c, int s, uint32_t ev, int64_t now)
{
    if (c->closed)
        return;
    if (s == 1 && !c->connected) {
        int e = 0;
        socklen_t el = sizeof(e);
        if (getsockopt(c->side[1].fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
            e = errno;
        if (e != 0 || (ev & (EPOLLERR | EPOLLHUP))) {
            vc_info(LOG, "connect to upstream %s failed: %s; client reset",
                    c->px->lis[c->pair].up_txt, strerror(e ? e : ECONNREFUSED));
            conn_close(c, 1);
            return;
        }
        c->connected = 1;
        dir_service(&c->dir[LE_UP], now);
        conn_update(c);
        return;
    }
    if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))
        dir_read(&c->dir[s], now);
    if (!c->closed && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
        dir_service(&c->dir[1 - s], now);
    if (!c->closed && (ev & EPOLLERR) && !c->side[s].broken) {
        /* an error with nothing read or written (e.g. a reset while both
         * directions were idle) */
        side_broken(c, s, now);
        dir_service(&c->dir[s], now);
    }
    conn_update(c);
}

/* ---- link down / up ---- */

static const char *drop_name(le_drop_mode_t m)
{
    return m == LE_DROP_STALL ? "stall" : "reset";
}

static void link_down(le_proxy_t *px, le_drop_mode_t mode, double seconds, int64_t now)
{
    px->down = 1 + (int)mode;
    px->restore_at = seconds > 0 ? now + (int64_t)(seconds * 1e9) : LE_NEVER;
    size_t n = px->nconns;
    if (mode == LE_DROP_RESET) {
        while (px->conns)
            conn_close(px->conns, 1);
        px->dropped += n;
    } else {
        for (le_conn_t *c = px->conns; c; c = c->next)
            for (int d = 0; d < 2; d++)
                dir_timer_update(&c->dir[d], now);
    }
    char span[64] = "until restored";
    if (seconds > 0)
        snprintf(span, sizeof(span), "for %.3f s", seconds);
    vc_info(LOG, "link down (%s) %s; %zu connection(s) %s", drop_name(mode), span, n,
            mode == LE_DROP_RESET ? "reset" : "stalled");
}

static void link_up(le_proxy_t *px, int64_t now)
{
    if (!px->down)
        return;
    px->down = 0;
    px->restore_at = LE_NEVER;
    for (le_conn_t *c = px->conns, *next; c; c = next) {
        next = c->next;
        for (int d = 0; d < 2 && !c->closed; d++)
            dir_service(&c->dir[d], now);
        conn_update(c);
    }
    vc_info(LOG, "link up");
}

/* ---- control commands ---- */

static size_t buffered_bytes(const le_proxy_t *px)
{
    size_t b = 0;
    for (const le_conn_t *c = px->conns; c; c = c->next)
        for (int d = 0; d < 2; d++)
            b += (size_t)(c->dir[d].rd - c->dir[d].wr);
    return b;
}

void le_proxy_command(le_proxy_t *px, const char *line, char *reply, size_t len)
{
    char cmd[16] = "", a1[16] = "", a2[32] = "", extra[2] = "";
    int n = sscanf(line, "%15s %15s %31s %1s", cmd, a1, a2, extra);
    int64_t now = vc_mono_now();
    if (n >= 1 && strcmp(cmd, "down") == 0 && n <= 3) {
        le_drop_mode_t mode = LE_DROP_RESET;
        const char *secs = NULL;
        if (n >= 2) {
            if (strcmp(a1, "reset") == 0)
                mode = LE_DROP_RESET;
            else if (strcmp(a1, "stall") == 0)
                mode = LE_DROP_STALL;
            else
                secs = a1;
            if (n == 3) {
                if (secs != NULL)
                    goto usage;
                secs = a2;
            }
        }
        double seconds = 0;
        if (secs != NULL) {
            char *end = NULL;
            seconds = strtod(secs, &end);
            if (end == secs || *end != '\0' || !(seconds >= 0) || seconds > 86400) {
                snprintf(reply, len, "error: seconds '%s' is not a number in [0, 86400]", secs);
                return;
            }
        }
        if (px->down)
            link_up(px, now); /* a new drop replaces the current one */
        link_down(px, mode, seconds, now);
        snprintf(reply, len, "ok down %s %g", drop_name(mode), seconds);
        return;
    }
    if (n == 1 && strcmp(cmd, "up") == 0) {
        link_up(px, now);
        snprintf(reply, len, "ok up");
        return;
    }
    if (n == 1 && strcmp(cmd, "status") == 0) {
        char desc[256];
        le_profile_describe(&px->prof, desc, sizeof(desc));
        double left = px->restore_at == LE_NEVER ? 0 : (double)(px->restore_at - now) / 1e9;
        snprintf(reply, len,
                 "ok link=%s%s restore_in=%.3f conns=%zu accepted=%llu refused=%llu "
                 "dropped=%llu bytes_up=%llu bytes_down=%llu buffered=%zu queue=%zu profile=\"%s\"",
                 px->down ? "down-" : "up", px->down ? drop_name((le_drop_mode_t)(px->down - 1)) : "",
                 left > 0 ? left : 0, px->nconns, (unsigned long long)px->accepted,
                 (unsigned long long)px->refused, (unsigned long long)px->dropped,
                 (unsigned long long)px->bytes[LE_UP], (unsigned long long)px->bytes[LE_DOWN],
                 buffered_bytes(px), px->queue_bytes, desc);
        return;
    }
usage:
    snprintf(reply, len,
             "error: unknown command '%.64s' (down [reset|stall] [SECONDS] | up | status)", line);
}

static void ctl_close(le_proxy_t *px, le_ctl_t *k)
{
    epoll_ctl(px->epfd, EPOLL_CTL_DEL, k->fd, NULL);
    close(k->fd);
    for (le_ctl_t **pp = &px->ctls; *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    px->nctls--;
    free(k);
}

static void on_ctl_conn(le_proxy_t *px, le_ctl_t *k)
{
    for (;;) {
        ssize_t n = read(k->fd, k->line + k->len, sizeof(k->line) - 1 - k->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n > 0)
            k->len += (size_t)n;
        k->line[k->len] = '\0';
        char *nl = strchr(k->line, '\n');
        if (nl == NULL && n > 0 && k->len < sizeof(k->line) - 1)
            continue;
        char reply[640];
        if (nl == NULL && k->len == sizeof(k->line) - 1) {
            snprintf(reply, sizeof(reply), "error: command longer than %d bytes", LE_CTL_LINE - 2);
        } else {
            if (nl)
                *nl = '\0';
            le_proxy_command(px, k->line, reply, sizeof(reply));
        }
        size_t rl = strlen(reply);
        reply[rl++] = '\n';
        /* one short line to a local client: a full socket buffer means the
         * client is not reading, and it loses its answer */
        if (write(k->fd, reply, rl) < 0)
            vc_debug(LOG, "control reply lost: %s", strerror(errno));
        ctl_close(px, k);
        return;
    }
}

static void on_ctl_listen(le_proxy_t *px)
{
    for (;;) {
        int fd = accept4(px->ctlfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (px->nctls >= LE_CTL_MAX) {
            /* clients that connect and say nothing must not pile up */
            static const char busy[] = "error: too many control connections\n";
            if (write(fd, busy, sizeof(busy) - 1) < 0)
                vc_debug(LOG, "control: %s", strerror(errno));
            close(fd);
            continue;
        }
        le_ctl_t *k = calloc(1, sizeof(*k));
        if (k == NULL) {
            close(fd);
            continue;
        }
        k->fd = fd;
        k->h = (le_handle_t){H_CTL_CONN, k, 0};
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &k->h};
        if (epoll_ctl(px->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            free(k);
            continue;
        }
        k->next = px->ctls;
        px->ctls = k;
        px->nctls++;
    }
}

/* ---- listeners ---- */

static void set_accepting(le_proxy_t *px, int on)
{
    px->accepting = on;
    for (size_t i = 0; i < px->nlis; i++) {
        if (on) {
            struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &px->lis[i].h};
            epoll_ctl(px->epfd, EPOLL_CTL_ADD, px->lis[i].fd, &ev);
        } else {
            epoll_ctl(px->epfd, EPOLL_CTL_DEL, px->lis[i].fd, NULL);
        }
    }
    if (!on)
        vc_warn(LOG, "%zu connections open (--max-conns): new ones wait in the backlog",
                px->nconns);
}

static void on_listen(le_proxy_t *px, int pair, int64_t now)
{
    while (px->accepting) {
        int fd = accept4(px->lis[pair].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) {
                /* the listener would stay readable and spin the loop; a
                 * closing connection turns accepting back on */
                vc_warn(LOG, "accept on %s: %s", px->lis[pair].listen_txt, strerror(errno));
                if (px->nconns > 0)
                    set_accepting(px, 0);
            }
            return;
        }
        if (px->down == 1 + LE_DROP_RESET) {
            px->refused++;
            fd_abort(fd);
            continue;
        }
        conn_new(px, fd, pair, now);
        if (px->nconns >= px->max_conns)
            set_accepting(px, 0);
    }
}

/* ---- the loop ---- */

static void on_signal(le_proxy_t *px, int64_t now)
{
    struct signalfd_siginfo si;
    while (read(px->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGUSR1) {
            if (px->down)
                link_up(px, now);
            link_down(px, px->sig_mode, px->sig_seconds, now);
        } else if (si.ssi_signo == SIGUSR2) {
            link_up(px, now);
        } else {
            vc_info(LOG, "signal %u: stopping", si.ssi_signo);
            px->stop = 1;
        }
    }
}

/* A lane has directions queued and either no wait pending (someone joined)
 * or its tokens are due. */
static int lane_due(const le_proxy_t *px, int l, int64_t now)
{
    const le_lane_t *ln = &px->lane[l];
    return ln->head && !px->down && (ln->deadline <= now || ln->deadline == LE_NEVER);
}

static void run_due(le_proxy_t *px)
{
    for (int round = 0; round < 1000; round++) {
        int64_t now = vc_mono_now();
        if (px->restore_at <= now)
            link_up(px, now);
        for (int l = 0; l < 2; l++)
            if (lane_due(px, l, now))
                lane_service(px, l, now);
        int any = 0;
        /* Each direction at most once per round: one whose deadline stayed in
         * the past (a bug) costs CPU, and the loop still reads its signals. */
        for (size_t budget = px->heap_n; budget > 0 && px->heap_n > 0 && px->heap[0]->deadline <= now;
             budget--) {
            le_dir_t *d = px->heap[0];
            heap_remove(px, d);
            dir_service(d, now);
            conn_update(d->c);
            any = 1;
        }
        if (!any && !lane_due(px, 0, now) && !lane_due(px, 1, now))
            return;
    }
}

static int64_t next_deadline(const le_proxy_t *px)
{
    int64_t t = px->restore_at;
    if (px->heap_n > 0 && px->heap[0]->deadline < t)
        t = px->heap[0]->deadline;
    for (int l = 0; l < 2; l++)
        if (px->lane[l].head && !px->down && px->lane[l].deadline < t)
            t = px->lane[l].deadline;
    return t;
}

vc_status_t le_proxy_run(le_proxy_t *px)
{
    struct epoll_event evs[64];
    while (!px->stop) {
        run_due(px);
        while (px->grave) {
            le_conn_t *c = px->grave;
            px->grave = c->grave_next;
            conn_free(c);
        }
        int64_t next = next_deadline(px), now = vc_mono_now();
        int timeout = -1;
        if (next <= now) {
            timeout = 0;
        } else if (next != px->timer_armed) {
            struct itimerspec its = {0};
            if (next != LE_NEVER) {
                its.it_value.tv_sec = next / VC_NS_PER_S;
                its.it_value.tv_nsec = next % VC_NS_PER_S;
            }
            timerfd_settime(px->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
            px->timer_armed = next;
        }
        int n = epoll_wait(px->epfd, evs, 64, timeout);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            vc_error(LOG, "epoll_wait failed: %s", strerror(errno));
            return VC_ERR_IO;
        }
        now = vc_mono_now();
        for (int i = 0; i < n; i++) {
            le_handle_t *h = evs[i].data.ptr;
            switch (h->kind) {
            case H_LISTEN:
                on_listen(px, h->idx, now);
                break;
            case H_SIDE:
                on_side(h->ptr, h->idx, evs[i].events, now);
                break;
            case H_SIGNAL:
                on_signal(px, now);
                break;
            case H_TIMER: {
                uint64_t ticks;
                if (read(px->timerfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
                    vc_debug(LOG, "timerfd read: %s", strerror(errno));
                px->timer_armed = LE_NEVER;
                break;
            }
            case H_CTL_LISTEN:
                on_ctl_listen(px);
                break;
            case H_CTL_CONN:
                on_ctl_conn(px, h->ptr);
                break;
            }
        }
    }
    return VC_OK;
}

/* ---- construction ---- */

/* "host:port" or "[v6]:port" into host and port; 0 on success. */
static int split_hostport(const char *s, char *host, size_t hl, char *port, size_t pl)
{
    const char *colon;
    if (s[0] == '[') {
        const char *rb = strchr(s, ']');
        if (rb == NULL || rb[1] != ':' || (size_t)(rb - s - 1) >= hl)
            return -1;
        memcpy(host, s + 1, (size_t)(rb - s - 1));
        host[rb - s - 1] = '\0';
        colon = rb + 1;
    } else {
        colon = strrchr(s, ':');
        if (colon == NULL || (size_t)(colon - s) >= hl || colon == s)
            return -1;
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = '\0';
    }
    if (strlen(colon + 1) == 0 || strlen(colon + 1) >= pl)
        return -1;
    snprintf(port, pl, "%s", colon + 1);
    char *end = NULL;
    long v = strtol(port, &end, 10);
    return (*end == '\0' && v >= 0 && v <= 65535) ? 0 : -1;
}

static int resolve(const char *what, const char *s, int passive, struct sockaddr_storage *out,
                   socklen_t *outlen, char *err, size_t errlen)
{
    char host[256], port[16];
    if (split_hostport(s, host, sizeof(host), port, sizeof(port)) != 0) {
        snprintf(err, errlen, "%s '%s': expected HOST:PORT or [V6ADDR]:PORT", what, s);
        return -1;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0};
    struct addrinfo *ai = NULL;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0 || ai == NULL) {
        snprintf(err, errlen, "%s '%s': cannot resolve %s: %s", what, s, host, gai_strerror(rc));
        return -1;
    }
    /* "localhost" may come back as ::1 first while the local servers listen
     * on 127.0.0.1 only: a name that has both gets its IPv4 address */
    const struct addrinfo *pick = ai;
    for (const struct addrinfo *a = ai; a; a = a->ai_next)
        if (a->ai_family == AF_INET) {
            pick = a;
            break;
        }
    memcpy(out, pick->ai_addr, pick->ai_addrlen);
    *outlen = pick->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

static void addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)a;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
        snprintf(buf, len, "%s:%d", host, port);
    } else if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)a;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
        snprintf(buf, len, "[%s]:%d", host, port);
    } else {
        snprintf(buf, len, "?");
    }
}

static int epoll_add(le_proxy_t *px, int fd, le_handle_t *h)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = h};
    return epoll_ctl(px->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int open_control(le_proxy_t *px, const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(err, errlen, "--control %s: path longer than %zu bytes", path,
                 sizeof(sa.sun_path) - 1);
        return -1;
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        /* a socket left by an emulator that was killed; anything else is not ours */
        if (!S_ISSOCK(st.st_mode)) {
            snprintf(err, errlen, "--control %s: exists and is not a socket; choose another path",
                     path);
            return -1;
        }
        unlink(path);
    }
    px->ctlfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (px->ctlfd < 0 || bind(px->ctlfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(px->ctlfd, 16) != 0) {
        snprintf(err, errlen, "--control %s: cannot listen: %s", path, strerror(errno));
        return -1;
    }
    /* whoever can write it can drop the link */
    chmod(path, 0600);
    snprintf(px->ctl_path, sizeof(px->ctl_path), "%s", path);
    px->ctl_h = (le_handle_t){H_CTL_LISTEN, px, 0};
    return epoll_add(px, px->ctlfd, &px->ctl_h);
}

static int open_listener(le_proxy_t *px, size_t i, const char *listen_s, const char *up_s, char *err,
                         size_t errlen)
{
    le_listener_t *li = &px->lis[i];
    struct sockaddr_storage la;
    socklen_t ll;
    if (resolve("--listen", listen_s, 1, &la, &ll, err, errlen) != 0 ||
        resolve("--upstream", up_s, 0, &li->up, &li->uplen, err, errlen) != 0)
        return -1;
    snprintf(li->up_txt, sizeof(li->up_txt), "%s", up_s);
    li->fd = socket(la.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (li->fd < 0 || setsockopt(li->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(li->fd, (struct sockaddr *)&la, ll) != 0 || listen(li->fd, 1024) != 0) {
        snprintf(err, errlen, "--listen %s: cannot listen: %s%s", listen_s, strerror(errno),
                 errno == EADDRINUSE ? " (choose another port, or 0 for any)" : "");
        return -1;
    }
    struct sockaddr_storage bound;
    socklen_t bl = sizeof(bound);
    getsockname(li->fd, (struct sockaddr *)&bound, &bl);
    addr_text(&bound, li->listen_txt, sizeof(li->listen_txt));
    li->h = (le_handle_t){H_LISTEN, px, (int)i};
    return epoll_add(px, li->fd, &li->h);
}

/* Enters the namespace the listeners belong in; *home keeps ours to come
 * back to. A socket stays in the namespace it was made in, so listeners made
 * there accept the agent's connections on its own loopback while upstream
 * sockets, made after coming back, reach the host's servers. */
static int netns_enter(const char *name, int *home, char *err, size_t errlen)
{
    char path[512];
    if (strchr(name, '/'))
        snprintf(path, sizeof(path), "%s", name);
    else
        snprintf(path, sizeof(path), "/var/run/netns/%s", name);
    *home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*home < 0 || fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
        snprintf(err, errlen, "--netns %s: cannot enter %s: %s (root needed; create it with netns.sh add)",
                 name, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (*home >= 0)
            close(*home);
        *home = -1;
        return -1;
    }
    close(fd);
    return 0;
}

static int netns_leave(int home, char *err, size_t errlen)
{
    int rc = setns(home, CLONE_NEWNET);
    if (rc != 0)
        snprintf(err, errlen, "cannot return to the emulator's own network namespace: %s",
                 strerror(errno));
    close(home);
    return rc;
}

le_proxy_t *le_proxy_new(const le_proxy_opts_t *o, char *err, size_t errlen)
{
    le_proxy_t *px = calloc(1, sizeof(*px));
    if (px == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    px->epfd = px->sigfd = px->timerfd = px->ctlfd = -1;
    for (size_t i = 0; i < LE_MAX_PAIRS; i++)
        px->lis[i].fd = -1;
    px->prof = o->profile;
    px->restore_at = LE_NEVER;
    px->timer_armed = LE_NEVER;
    px->sig_mode = o->sig_mode;
    px->sig_seconds = o->sig_seconds;
    px->queue_bytes = le_profile_queue_bytes(&o->profile);
    int64_t now = vc_mono_now();
    for (int d = 0; d < 2; d++) {
        le_link_params_t lp = le_profile_link(&o->profile, d);
        px->lane[d].link = le_link_new(&lp, o->seed * 2 + (uint64_t)d, now);
        px->lane[d].deadline = LE_NEVER;
        if (px->lane[d].link == NULL) {
            snprintf(err, errlen, "invalid link parameters for the %s direction",
                     d == LE_UP ? "up" : "down");
            goto fail;
        }
    }
    if (o->npairs == 0 || o->npairs > LE_MAX_PAIRS) {
        snprintf(err, errlen, "need 1 to %d --listen/--upstream pairs", LE_MAX_PAIRS);
        goto fail;
    }
    /* two descriptors per connection; keep some for listeners and control */
    struct rlimit rl;
    size_t max = o->max_conns > 0 ? (size_t)o->max_conns : 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        if (rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
        if (rl.rlim_cur != RLIM_INFINITY && max > (rl.rlim_cur - 64) / 2)
            max = (rl.rlim_cur - 64) / 2;
    }
    px->max_conns = max;
    px->heap_cap = 2 * max;
    px->heap = calloc(px->heap_cap, sizeof(*px->heap));
    px->epfd = epoll_create1(EPOLL_CLOEXEC);
    px->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (px->heap == NULL || px->epfd < 0 || px->timerfd < 0) {
        snprintf(err, errlen, "cannot set up the event loop: %s", strerror(errno));
        goto fail;
    }
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGUSR1);
    sigaddset(&ss, SIGUSR2);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGINT);
    sigprocmask(SIG_BLOCK, &ss, NULL);
    signal(SIGPIPE, SIG_IGN);
    px->sigfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
    px->sig_h = (le_handle_t){H_SIGNAL, px, 0};
    px->timer_h = (le_handle_t){H_TIMER, px, 0};
    if (px->sigfd < 0 || epoll_add(px, px->sigfd, &px->sig_h) != 0 ||
        epoll_add(px, px->timerfd, &px->timer_h) != 0) {
        snprintf(err, errlen, "cannot set up signals: %s", strerror(errno));
        goto fail;
    }
    int home = -1;
    if (o->netns && netns_enter(o->netns, &home, err, errlen) != 0)
        goto fail;
    int lrc = 0;
    for (size_t i = 0; i < o->npairs && lrc == 0; i++) {
        lrc = open_listener(px, i, o->listen[i], o->upstream[i], err, errlen);
        if (lrc == 0)
            px->nlis++;
    }
    if (home >= 0 && netns_leave(home, lrc ? NULL : err, lrc ? 0 : errlen) != 0)
        lrc = -1;
    if (lrc != 0)
        goto fail;
    px->accepting = 1;
    if (o->control_path && open_control(px, o->control_path, err, errlen) != 0)
        goto fail;
    char desc[256];
    le_profile_describe(&px->prof, desc, sizeof(desc));
    for (size_t i = 0; i < px->nlis; i++)
        vc_info(LOG, "%s%s%s -> %s (%s)", px->lis[i].listen_txt, o->netns ? " in netns " : "",
                o->netns ? o->netns : "", px->lis[i].up_txt, desc);
    return px;
fail:
    le_proxy_destroy(&px);
    return NULL;
}

void le_proxy_destroy(le_proxy_t **pp)
{
    if (pp == NULL || *pp == NULL)
        return;
    le_proxy_t *px = *pp;
    while (px->conns)
        conn_close(px->conns, 1);
    while (px->grave) {
        le_conn_t *c = px->grave;
        px->grave = c->grave_next;
        conn_free(c);
    }
    while (px->ctls)
        ctl_close(px, px->ctls);
    for (size_t i = 0; i < LE_MAX_PAIRS; i++)
        if (px->lis[i].fd >= 0)
            close(px->lis[i].fd);
    if (px->ctlfd >= 0) {
        close(px->ctlfd);
        if (px->ctl_path[0])
            unlink(px->ctl_path);
    }
    if (px->sigfd >= 0)
        close(px->sigfd);
    if (px->timerfd >= 0)
        close(px->timerfd);
    if (px->epfd >= 0)
        close(px->epfd);
    for (int d = 0; d < 2; d++)
        le_link_destroy(&px->lane[d].link);
    free(px->heap);
    free(px);
    *pp = NULL;
}

void le_proxy_ready_line(const le_proxy_t *px, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "ready");
    for (size_t i = 0; i < px->nlis && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, " %s", px->lis[i].listen_txt);
}
