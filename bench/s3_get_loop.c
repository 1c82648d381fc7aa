/* s3_get_loop: vantage's side of bench/overhead.sh. THREADS workers, each
 * with its own va_s3 client (one keep-alive connection, SigV4 signing),
 * GET one object again and again for SECONDS, and each request fills a
 * vc_sample_t (the record the agent would send) kept in a per-thread ring.
 * The server may ignore the signature (nginx serving a static file).
 * Prints "requests N errors N".
 *
 *   s3_get_loop ENDPOINT BUCKET KEY [THREADS [SECONDS]] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "va_http.h"
#include "va_s3.h"
#include "vc_clock.h"
#include "vc_sample.h"

#define RING 256

typedef struct {
    const char *endpoint, *bucket, *key;
    vc_mono_ns_t end;
    long requests, errors;
    vc_sample_t ring[RING];
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    char err[256];
    va_s3_opts_t o = {.endpoint = w->endpoint, .region = "us-east-1",
                      .access_key = "VANTAGEBENCHACCESSKEY", .secret_key = "vantage-bench-secret",
                      .addressing = VA_S3_ADDR_PATH, .timeout_ms = 10000};
    va_s3_t *s3 = va_s3_new(&o, err, sizeof err);
    if (!s3) {
        fprintf(stderr, "s3_get_loop: %s\n", err);
        w->errors++;
        return NULL;
    }
    for (long i = 0; vc_mono_now() < w->end; i++) {
        vc_sample_t *s = &w->ring[i % RING];
        vc_sample_init(s);
        s->run = (int32_t)i;
        if (va_s3_get(s3, w->bucket, w->key, NULL, s) == VC_OK && s->http_status == 200)
            w->requests++;
        else
            w->errors++;
    }
    va_s3_destroy(&s3);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: s3_get_loop ENDPOINT BUCKET KEY [THREADS [SECONDS]]\n");
        return 2;
    }
    int n = argc > 4 ? atoi(argv[4]) : 8;
    double secs = argc > 5 ? atof(argv[5]) : 10;
    if (n < 1 || n > 1024 || secs <= 0) {
        fprintf(stderr, "s3_get_loop: THREADS must be 1..1024 and SECONDS > 0\n");
        return 2;
    }
    va_http_global_init();
    worker_t *w = calloc((size_t)n, sizeof *w);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (!w || !t)
        return 1;
    vc_mono_ns_t end = vc_mono_now() + (vc_mono_ns_t)(secs * 1e9);
    for (int i = 0; i < n; i++) {
        w[i] = (worker_t){.endpoint = argv[1], .bucket = argv[2], .key = argv[3], .end = end};
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    long requests = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        requests += w[i].requests;
        errors += w[i].errors;
    }
    printf("requests %ld errors %ld\n", requests, errors);
    free(w);
    free(t);
    return errors ? 1 : 0;
}
