/* The spool reader (agent/va_spool.h): whatever a crash, a full disk or a
 * stray editor left in the spool file. Open recovers it, every surviving
 * batch is read back (CRC-checked) and must decode as a SAMPLES message, and
 * the spool stays usable for appends. The file lives in a private directory
 * under /dev/shm (tmpfs) so an iteration costs no disk I/O. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "va_spool.h"
#include "vc_log.h"

static char g_dir[256];
static char g_path[300];

static void empty_dir(void)
{
    DIR *d = opendir(g_dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

static void remove_dir(void)
{
    empty_dir();
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("VANTAGE_LOG", "error", 1); /* recovery warns on every damaged file; run.sh filters the rest */
    snprintf(g_dir, sizeof g_dir, "%s/vantage-fuzz-spool-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(g_dir))
        abort();
    snprintf(g_path, sizeof g_path, "%s/spool", g_dir);
    atexit(remove_dir);
    return 0;
}

static int on_batch(void *arg, const va_spool_batch_t *b)
{
    vp_decoder_t *dec = arg;
    vp_msg_t m;
    char err[256];
    FUZZ_CHECK(vp_decoder_decode(dec, b->msg, b->len, &m, err, sizeof err) == VC_OK);
    FUZZ_CHECK(m.type == VP_SAMPLES && m.u.samples.job_id == b->job_id &&
               m.u.samples.first_seq == b->first_seq && m.u.samples.nsamples == b->nsamples);
    vp_msg_clear(&m);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    empty_dir();
    int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    close(fd);
    char err[512];
    va_spool_t *sp = va_spool_open(g_path, err, sizeof err);
    if (sp) {
        va_spool_set_fsync(sp, 0);
        vp_decoder_t *dec = vp_decoder_new();
        vc_status_t st = va_spool_foreach(sp, 0, 0, on_batch, dec, err, sizeof err);
        FUZZ_CHECK(st == VC_OK);
        vp_decoder_destroy(&dec);
        va_spool_job_t jobs[4];
        size_t n = va_spool_jobs(sp, jobs, 4);
        /* What was recovered can be continued. */
        uint64_t job = n ? jobs[0].job_id : 1;
        vc_sample_t s;
        vc_sample_init(&s);
        VC_SAMPLE_SET(&s, op, "get");
        if (!(n && jobs[0].finished))
            (void)va_spool_append(sp, job, va_spool_next_seq(sp, job), &s, 1, NULL, err,
                                  sizeof err);
        va_spool_destroy(&sp);
    }
    return 0;
}
