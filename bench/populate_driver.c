/* populate_driver: runs vantage's populate workload once, in-process, and
 * prints one JSON line with what bench/populate.sh compares: objects written,
 * failures, wall seconds and the process's user+system CPU seconds.
 * Built by bench/populate.sh against a release build's libraries.
 *   populate_driver BUCKET PREFIX COUNT WORKERS SIZE   (S3 settings from the AWS environment) */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "va_http.h"
#include "va_workload.h"
#include "vc_clock.h"

static atomic_llong ok, failed;

static void emit(void *arg, const vc_sample_t *s)
{
    (void)arg;
    if (s->err_class == VC_EC_NONE)
        atomic_fetch_add(&ok, 1);
    else
        atomic_fetch_add(&failed, 1);
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s BUCKET PREFIX COUNT WORKERS SIZE\n", argv[0]);
        return 2;
    }
    va_http_global_init();
    vc_job_t job;
    vc_job_init(&job, VC_WL_POPULATE);
    snprintf(job.target.name, sizeof job.target.name, "bench");
    snprintf(job.target.bucket, sizeof job.target.bucket, "%s", argv[1]);
    snprintf(job.prefix, sizeof job.prefix, "%s", argv[2]);
    job.count = strtoll(argv[3], NULL, 10);
    job.workers = atoi(argv[4]);
    job.object_size = strtoll(argv[5], NULL, 10);
    va_workload_env_t env = {.agent_name = "bench", .emit = emit};
    char err[1024];
    double c0 = cpu_s();
    vc_mono_ns_t t0 = vc_mono_now();
    vc_status_t rc = va_workload_run(&job, &env, err, sizeof err);
    double wall = (double)(vc_mono_now() - t0) / 1e9, cpu = cpu_s() - c0;
    if (rc != VC_OK) {
        fprintf(stderr, "populate failed: %s\n", err);
        return 1;
    }
    printf("{\"objects\": %lld, \"errors\": %lld, \"wall_s\": %.6f, \"cpu_s\": %.6f}\n",
           (long long)atomic_load(&ok), (long long)atomic_load(&failed), wall, cpu);
    return 0;
}
