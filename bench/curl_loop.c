/* curl_loop: the bare-libcurl floor for bench/overhead.sh. One thread, a
 * libcurl multi handle driving N easy handles (each its own keep-alive
 * connection) that GET one URL again and again for SECONDS: no signing, no
 * timing record, the body discarded. Extra arguments are request header
 * lines sent as they are with every request (overhead.sh passes lines shaped
 * like vantage's signed ones, to show what libcurl itself spends on them).
 * Prints "requests N errors N".
 *
 *   curl_loop URL [CONNECTIONS [SECONDS [HEADER...]]] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <curl/curl.h>

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: curl_loop URL [CONNECTIONS [SECONDS [HEADER...]]]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 8;
    double secs = argc > 3 ? atof(argv[3]) : 10;
    if (n < 1 || n > 1024 || secs <= 0) {
        fprintf(stderr, "curl_loop: CONNECTIONS must be 1..1024 and SECONDS > 0\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct curl_slist *hl = NULL;
    for (int i = 4; i < argc; i++)
        hl = curl_slist_append(hl, argv[i]);
    CURLM *m = curl_multi_init();
    CURL **h = calloc((size_t)n, sizeof *h);
    if (!m || !h)
        return 1;
    for (int i = 0; i < n; i++) {
        h[i] = curl_easy_init();
        curl_easy_setopt(h[i], CURLOPT_URL, argv[1]);
        curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(h[i], CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(h[i], CURLOPT_NOSIGNAL, 1L);
        /* one connection per handle, as each vantage worker has */
        curl_easy_setopt(h[i], CURLOPT_MAXCONNECTS, 1L);
        if (hl)
            curl_easy_setopt(h[i], CURLOPT_HTTPHEADER, hl);
        curl_multi_add_handle(m, h[i]);
    }
    long requests = 0, errors = 0;
    double end = now_s() + secs;
    int running = n;
    while (running) {
        curl_multi_perform(m, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *e = msg->easy_handle;
            long status = 0;
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
            if (msg->data.result == CURLE_OK && status == 200)
                requests++;
            else
                errors++;
            curl_multi_remove_handle(m, e);
            if (now_s() < end) {
                curl_multi_add_handle(m, e);
                running++;
            }
        }
        if (running)
            curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    printf("requests %ld errors %ld\n", requests, errors);
    for (int i = 0; i < n; i++)
        curl_easy_cleanup(h[i]);
    free(h);
    curl_multi_cleanup(m);
    curl_slist_free_all(hl);
    curl_global_cleanup();
    return errors ? 1 : 0;
}
