/* s3_get_loop: vantage's side of bench/overhead.sh. CONNECTIONS va_s3
 * clients (each one keep-alive connection, SigV4 signing every request)
 * driven by one thread through a va_http_loop, as the agent's ops workload
 * drives its workers, GET one object again and again for SECONDS; every
 * request fills a vc_sample_t (the record the agent sends) kept in a ring.
 * The server may ignore the signature (nginx serving a static file).
 * Prints "requests N errors N".
 *
 *   s3_get_loop ENDPOINT BUCKET KEY [CONNECTIONS [SECONDS]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "va_http.h"
#include "va_s3.h"
#include "vc_clock.h"
#include "vc_sample.h"

#define RING 256

typedef struct {
    va_s3_t *s3;
    vc_sample_t *s;
} slot_t;

static vc_sample_t ring[RING];
static long next_sample;

static int start(slot_t *sl, const va_s3_obj_t *o, va_http_loop_t *loop)
{
    sl->s = &ring[next_sample % RING];
    vc_sample_init(sl->s);
    sl->s->run = (int32_t)next_sample++;
    if (va_s3_begin(sl->s3, o, sl->s) != VC_OK)
        return -1;
    return va_http_loop_add(loop, va_s3_http(sl->s3)) == VC_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: s3_get_loop ENDPOINT BUCKET KEY [CONNECTIONS [SECONDS]]\n");
        return 2;
    }
    int n = argc > 4 ? atoi(argv[4]) : 8;
    double secs = argc > 5 ? atof(argv[5]) : 10;
    if (n < 1 || n > 1024 || secs <= 0) {
        fprintf(stderr, "s3_get_loop: CONNECTIONS must be 1..1024 and SECONDS > 0\n");
        return 2;
    }
    va_http_global_init();
    char err[256];
    va_s3_opts_t so = {.endpoint = argv[1], .region = "us-east-1",
                       .access_key = "VANTAGEBENCHACCESSKEY", .secret_key = "vantage-bench-secret",
                       .addressing = VA_S3_ADDR_PATH, .timeout_ms = 10000};
    va_s3_obj_t o = {.op = VA_S3_GET, .bucket = argv[2], .key = argv[3]};
    slot_t *slot = calloc((size_t)n, sizeof *slot);
    va_http_t **done = calloc((size_t)n, sizeof *done);
    va_http_loop_t *loop = va_http_loop_new();
    if (!slot || !done || !loop)
        return 1;
    long requests = 0, errors = 0;
    for (int i = 0; i < n; i++) {
        if (!(slot[i].s3 = va_s3_new(&so, err, sizeof err))) {
            fprintf(stderr, "s3_get_loop: %s\n", err);
            return 1;
        }
        va_http_set_owner(va_s3_http(slot[i].s3), &slot[i]);
        if (start(&slot[i], &o, loop) != 0)
            errors++;
    }
    vc_mono_ns_t end = vc_mono_now() + (vc_mono_ns_t)(secs * 1e9);
    while (va_http_loop_active(loop) > 0) {
        int k = va_http_loop_run(loop, 100, done, n);
        if (k < 0)
            return 1;
        int more = vc_mono_now() < end;
        for (int i = 0; i < k; i++) {
            slot_t *sl = va_http_owner(done[i]);
            if (va_s3_end(sl->s3) == VC_OK && sl->s->http_status == 200)
                requests++;
            else
                errors++;
            if (more && start(sl, &o, loop) != 0)
                errors++;
        }
    }
    printf("requests %ld errors %ld\n", requests, errors);
    if (errors)
        fprintf(stderr, "s3_get_loop: last error: %s\n", va_s3_last_error(slot[0].s3));
    for (int i = 0; i < n; i++)
        va_s3_destroy(&slot[i].s3);
    va_http_loop_destroy(&loop);
    free(slot);
    free(done);
    return errors ? 1 : 0;
}
