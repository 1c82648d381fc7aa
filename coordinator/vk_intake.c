/* vk_intake: a queue in, a queue out, one writer thread between them. */
#include "vk_intake.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vk_store.h"

typedef struct node {
    vk_intake_item_t *it;
    struct node *next;
} node_t;

typedef struct {
    node_t *head, *tail;
} fifo_t;

struct vk_intake {
    vk_store_t *st;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work;
    fifo_t in, out;
    size_t pending, max_pending;
    int stop;
    int efd;
};

static void push(fifo_t *q, node_t *n)
{
    n->next = NULL;
    if (q->tail)
        q->tail->next = n;
    else
        q->head = n;
    q->tail = n;
}

static node_t *pop(fifo_t *q)
{
    node_t *n = q->head;
    if (n) {
        q->head = n->next;
        if (!q->head)
            q->tail = NULL;
    }
    return n;
}

static void *writer(void *arg)
{
    vk_intake_t *in = arg;
    pthread_mutex_lock(&in->mu);
    for (;;) {
        node_t *n = pop(&in->in);
        if (!n) {
            if (in->stop)
                break;
            pthread_cond_wait(&in->work, &in->mu);
            continue;
        }
        pthread_mutex_unlock(&in->mu);
        vk_intake_item_t *it = n->it;
        vp_samples_t *b = &it->msg.u.samples;
        it->rc = vk_store_add_samples(in->st, it->agent_name, it->job_name, b->samples,
                                      b->nsamples, it->offset_ns, &it->inserted,
                                      &it->duplicates);
        if (it->rc)
            snprintf(it->err, sizeof it->err, "%s", vk_store_errmsg(in->st));
        /* The samples are stored: their memory is not needed for the ACK. */
        vp_msg_clear(&it->msg);
        pthread_mutex_lock(&in->mu);
        push(&in->out, n);
        uint64_t one = 1;
        ssize_t w = write(in->efd, &one, sizeof one);
        (void)w;
    }
    pthread_mutex_unlock(&in->mu);
    return NULL;
}

vk_intake_t *vk_intake_new(const char *dir, size_t max_pending, char *err, size_t errlen)
{
    if (max_pending < 1) {
        snprintf(err, errlen, "intake queue needs room for at least one batch");
        return NULL;
    }
    vk_intake_t *in = calloc(1, sizeof *in);
    if (!in) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    in->max_pending = max_pending;
    in->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (in->efd < 0) {
        snprintf(err, errlen, "eventfd failed");
        free(in);
        return NULL;
    }
    if (vk_store_open(dir, 0, &in->st, err, errlen) != VC_OK) {
        close(in->efd);
        free(in);
        return NULL;
    }
    pthread_mutex_init(&in->mu, NULL);
    pthread_cond_init(&in->work, NULL);
    if (pthread_create(&in->th, NULL, writer, in) != 0) {
        snprintf(err, errlen, "cannot start the sample writer thread");
        vk_store_destroy(&in->st);
        pthread_cond_destroy(&in->work);
        pthread_mutex_destroy(&in->mu);
        close(in->efd);
        free(in);
        return NULL;
    }
    return in;
}

void vk_intake_destroy(vk_intake_t **p)
{
    if (!p || !*p)
        return;
    vk_intake_t *in = *p;
    pthread_mutex_lock(&in->mu);
    in->stop = 1;
    pthread_cond_signal(&in->work);
    pthread_mutex_unlock(&in->mu);
    pthread_join(in->th, NULL);
    node_t *n;
    while ((n = pop(&in->in)) || (n = pop(&in->out))) {
        vk_intake_item_free(n->it);
        free(n);
    }
    vk_store_destroy(&in->st);
    pthread_cond_destroy(&in->work);
    pthread_mutex_destroy(&in->mu);
    close(in->efd);
    free(in);
    *p = NULL;
}

vk_intake_item_t *vk_intake_item_new(void)
{
    vk_intake_item_t *it = calloc(1, sizeof *it);
    if (it)
        vp_msg_init(&it->msg, VP_SAMPLES);
    return it;
}

void vk_intake_item_free(vk_intake_item_t *it)
{
    if (!it)
        return;
    vp_msg_clear(&it->msg);
    free(it);
}

vc_status_t vk_intake_submit(vk_intake_t *in, vk_intake_item_t *it)
{
    node_t *n = malloc(sizeof *n);
    if (!n)
        return VC_ERR_NOMEM;
    n->it = it;
    pthread_mutex_lock(&in->mu);
    if (in->pending >= in->max_pending) {
        pthread_mutex_unlock(&in->mu);
        free(n);
        return VC_ERR_ARG;
    }
    in->pending++;
    push(&in->in, n);
    pthread_cond_signal(&in->work);
    pthread_mutex_unlock(&in->mu);
    return VC_OK;
}

vk_intake_item_t *vk_intake_result(vk_intake_t *in)
{
    pthread_mutex_lock(&in->mu);
    node_t *n = pop(&in->out);
    if (n)
        in->pending--;
    if (!in->out.head) {
        uint64_t v;
        ssize_t r = read(in->efd, &v, sizeof v);
        (void)r;
    }
    pthread_mutex_unlock(&in->mu);
    if (!n)
        return NULL;
    vk_intake_item_t *it = n->it;
    free(n);
    return it;
}

int vk_intake_full(vk_intake_t *in)
{
    pthread_mutex_lock(&in->mu);
    int full = in->pending >= in->max_pending;
    pthread_mutex_unlock(&in->mu);
    return full;
}

size_t vk_intake_pending(vk_intake_t *in)
{
    pthread_mutex_lock(&in->mu);
    size_t n = in->pending;
    pthread_mutex_unlock(&in->mu);
    return n;
}

int vk_intake_fd(const vk_intake_t *in) { return in->efd; }
