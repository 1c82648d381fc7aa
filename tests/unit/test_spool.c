/* Tests of va_spool: what was appended and not acknowledged survives a
 * close, a kill -9, a torn last record and damage in the middle of the file;
 * acknowledged batches go away at compaction without disturbing the rest.
 * Each test works in its own temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "va_spool.h"
#include "vp_msg.h"

typedef struct {
    char dir[64];
    char path[128];
} fx_t;

static int setup(void **state)
{
    fx_t *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/vantage-spool-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->path, sizeof fx->path, "%s/spool", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fx_t *fx = *state;
    char p[160];
    static const char *const names[] = {"spool", "spool.tmp", "spool.damaged"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", fx->dir, names[i]);
        unlink(p);
    }
    rmdir(fx->dir);
    free(fx);
    return 0;
}

/* Sample k of job j: values derived from (j, k) so any mix-up shows. */
static void make_sample(vc_sample_t *s, uint64_t job, uint64_t seq)
{
    vc_sample_init(s);
    snprintf(s->op, sizeof s->op, "%s", seq % 3 ? "put" : "s3-direct");
    snprintf(s->label, sizeof s->label, "j%llu-s%llu", (unsigned long long)job,
             (unsigned long long)seq);
    s->duration_ns = (int64_t)(job * 1000000 + seq);
    s->start_wall_ns = INT64_C(1764488000000000000) + (int64_t)seq;
    s->run = (int32_t)(seq % 20);
    if (seq % 3 == 0)
        for (int p = 0; p < 3; p++)
            assert_int_equal(vc_sample_add_page(s, p, 1000, (int64_t)seq), VC_OK);
}

static void append(va_spool_t *sp, uint64_t job, uint64_t first, size_t n)
{
    vc_sample_t *s = calloc(n, sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        make_sample(&s[i], job, first + i);
    char err[256] = "";
    vc_status_t rc = va_spool_append(sp, job, first, s, n, NULL, err, sizeof err);
    if (rc)
        fail_msg("append job %llu seq %llu: %s", (unsigned long long)job,
                 (unsigned long long)first, err);
    for (size_t i = 0; i < n; i++)
        vc_sample_clear(&s[i]);
    free(s);
}

/* What foreach hands out, decoded and checked against make_sample. */
typedef struct {
    int nbatches;
    uint64_t firsts[4096];
    uint64_t jobs[4096];
    uint64_t samples;
} seen_t;

static int collect(void *arg, const va_spool_batch_t *b)
{
    seen_t *seen = arg;
    vp_msg_t m;
    char err[256];
    if (vp_msg_decode(b->msg, b->len, &m, err, sizeof err))
        fail_msg("spooled batch does not decode: %s", err);
    assert_int_equal(m.type, VP_SAMPLES);
    assert_int_equal(m.u.samples.job_id, b->job_id);
    assert_int_equal(m.u.samples.first_seq, b->first_seq);
    assert_int_equal(m.u.samples.nsamples, b->nsamples);
    for (uint32_t i = 0; i < m.u.samples.nsamples; i++) {
        vc_sample_t want;
        make_sample(&want, b->job_id, b->first_seq + i);
        const vc_sample_t *got = &m.u.samples.samples[i];
        assert_int_equal(got->seq, b->first_seq + i);
        assert_string_equal(got->label, want.label);
        assert_string_equal(got->op, want.op);
        assert_int_equal(got->duration_ns, want.duration_ns);
        assert_int_equal(got->npages, want.npages);
        for (uint32_t p = 0; p < got->npages; p++)
            assert_int_equal(got->page[p].bytes, want.page[p].bytes);
        vc_sample_clear(&want);
    }
    assert_true(seen->nbatches < 4096);
    seen->firsts[seen->nbatches] = b->first_seq;
    seen->jobs[seen->nbatches++] = b->job_id;
    seen->samples += b->nsamples;
    vp_msg_clear(&m);
    return 0;
}

static seen_t *walk(va_spool_t *sp, uint64_t job, uint64_t from)
{
    static seen_t seen;
    memset(&seen, 0, sizeof seen);
    char err[256] = "";
    vc_status_t rc = va_spool_foreach(sp, job, from, collect, &seen, err, sizeof err);
    if (rc)
        fail_msg("foreach: %s", err);
    return &seen;
}

static va_spool_t *open_ok(const char *path)
{
    char err[256] = "";
    va_spool_t *sp = va_spool_open(path, err, sizeof err);
    if (!sp)
        fail_msg("open %s: %s", path, err);
    return sp;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_append_ack_reopen(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    assert_int_equal(va_spool_next_seq(sp, 5), 1);
    append(sp, 5, 1, 10);
    append(sp, 5, 11, 10);
    append(sp, 5, 21, 5);
    assert_int_equal(va_spool_next_seq(sp, 5), 26);

    char err[256];
    /* seqs must be contiguous, batches bounded */
    vc_sample_t one;
    make_sample(&one, 5, 27);
    assert_int_equal(va_spool_append(sp, 5, 27, &one, 1, NULL, err, sizeof err), VC_ERR_ARG);
    assert_non_null(strstr(err, "expected 26"));
    assert_int_equal(va_spool_append(sp, 6, 2, &one, 1, NULL, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(va_spool_append(sp, 5, 26, &one, 0, NULL, err, sizeof err), VC_ERR_ARG);
    assert_int_equal(va_spool_append(sp, 0, 1, &one, 1, NULL, err, sizeof err), VC_ERR_ARG);
    vc_sample_clear(&one);

    assert_int_equal(va_spool_ack(sp, 5, 15, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_acked_seq(sp, 5), 15);
    assert_int_equal(va_spool_ack(sp, 5, 12, err, sizeof err), VC_OK); /* late, lower: no-op */
    assert_int_equal(va_spool_acked_seq(sp, 5), 15);
    assert_int_equal(va_spool_ack(sp, 5, 26, err, sizeof err), VC_ERR_ARG); /* never sent */
    assert_non_null(strstr(err, "only 25 were spooled"));
    assert_int_equal(va_spool_ack(sp, 99, 1, err, sizeof err), VC_ERR_ARG);

    /* 1..10 is gone; 11..20 stays whole although 11..15 are acked */
    seen_t *s = walk(sp, 0, 0);
    assert_int_equal(s->nbatches, 2);
    assert_int_equal(s->firsts[0], 11);
    assert_int_equal(s->firsts[1], 21);
    s = walk(sp, 5, 21);
    assert_int_equal(s->nbatches, 1);
    assert_int_equal(s->firsts[0], 21);
    assert_int_equal(walk(sp, 7, 0)->nbatches, 0);
    s = walk(sp, 5, 20); /* from inside a batch: that batch and the rest */
    assert_int_equal(s->nbatches, 2);
    assert_int_equal(s->firsts[0], 11);
    assert_int_equal(walk(sp, 5, 26)->nbatches, 0);

    va_spool_job_t jobs[4];
    assert_int_equal(va_spool_jobs(sp, jobs, 4), 1);
    assert_int_equal(jobs[0].job_id, 5);
    assert_int_equal(jobs[0].next_seq, 26);
    assert_int_equal(jobs[0].acked_seq, 15);
    assert_int_equal(jobs[0].unacked, 10);
    assert_int_equal(jobs[0].finished, 0);
    va_spool_destroy(&sp);
    assert_null(sp);
    va_spool_destroy(&sp);

    sp = open_ok(fx->path);
    assert_int_equal(va_spool_next_seq(sp, 5), 26);
    assert_int_equal(va_spool_acked_seq(sp, 5), 15);
    s = walk(sp, 0, 0);
    assert_int_equal(s->nbatches, 2);
    assert_int_equal(s->firsts[0], 11);
    assert_int_equal(s->samples, 15);
    /* and it goes on where it stopped */
    append(sp, 5, 26, 3);
    assert_int_equal(va_spool_ack(sp, 5, 28, err, sizeof err), VC_OK);
    assert_int_equal(walk(sp, 0, 0)->nbatches, 0);
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    assert_int_equal(va_spool_next_seq(sp, 5), 29);
    assert_int_equal(walk(sp, 0, 0)->nbatches, 0);
    va_spool_destroy(&sp);
}

/* The bytes append hands back for sending are the ones a resend reads. */
static int grab(void *arg, const va_spool_batch_t *b)
{
    msgpack_sbuffer *out = arg;
    msgpack_sbuffer_write(out, b->msg, b->len);
    return 1; /* stop after the first */
}

static void test_sent_bytes_equal_resent(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    vc_sample_t s[3];
    for (int i = 0; i < 3; i++)
        make_sample(&s[i], 8, (uint64_t)i + 1);
    msgpack_sbuffer sent, resent;
    msgpack_sbuffer_init(&sent);
    msgpack_sbuffer_init(&resent);
    char err[256];
    assert_int_equal(va_spool_append(sp, 8, 1, s, 3, &sent, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_foreach(sp, 0, 0, grab, &resent, err, sizeof err),
                     VC_ERR_CANCELLED);
    assert_int_equal(sent.size, resent.size);
    assert_memory_equal(sent.data, resent.data, sent.size);
    for (int i = 0; i < 3; i++)
        vc_sample_clear(&s[i]);
    msgpack_sbuffer_destroy(&sent);
    msgpack_sbuffer_destroy(&resent);
    va_spool_destroy(&sp);
}

/* Offsets of the record ends, from the file sizes after each append. */
static void three_batches(fx_t *fx, uint64_t ends[4])
{
    va_spool_t *sp = open_ok(fx->path);
    ends[0] = file_size(fx->path);
    append(sp, 3, 1, 4);
    ends[1] = file_size(fx->path);
    append(sp, 3, 5, 4);
    ends[2] = file_size(fx->path);
    append(sp, 3, 9, 4);
    ends[3] = file_size(fx->path);
    va_spool_destroy(&sp);
}

static void test_torn_tail(void **state)
{
    fx_t *fx = *state;
    uint64_t ends[4];
    three_batches(fx, ends);
    uint64_t last = ends[3] - ends[2];
    /* every way the last append can have been cut short */
    const uint64_t cuts[] = {1, 2, 15, 16, 17, last / 2, last - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        teardown(state);
        setup(state);
        fx = *state;
        three_batches(fx, ends);
        assert_int_equal(truncate(fx->path, (off_t)(ends[3] - cuts[i])), 0);
        va_spool_t *sp = open_ok(fx->path);
        assert_int_equal(va_spool_next_seq(sp, 3), 9);
        seen_t *s = walk(sp, 0, 0);
        assert_int_equal(s->nbatches, 2);
        assert_int_equal(s->samples, 8);
        assert_int_equal(file_size(fx->path), ends[2]); /* the torn bytes are gone */
        char damaged[160];
        snprintf(damaged, sizeof damaged, "%s.damaged", fx->path);
        assert_false(exists(damaged));
        /* appending goes on cleanly after the cut */
        append(sp, 3, 9, 2);
        va_spool_destroy(&sp);
        sp = open_ok(fx->path);
        assert_int_equal(va_spool_next_seq(sp, 3), 11);
        assert_int_equal(walk(sp, 0, 0)->nbatches, 3);
        va_spool_destroy(&sp);
    }

    /* a whole last record whose bytes never reached the disk (zeros) */
    teardown(state);
    setup(state);
    fx = *state;
    three_batches(fx, ends);
    int fd = open(fx->path, O_WRONLY);
    assert_true(fd >= 0);
    char zero[64] = {0};
    assert_int_equal(pwrite(fd, zero, sizeof zero, (off_t)(ends[2] + 20)), (ssize_t)sizeof zero);
    close(fd);
    va_spool_t *sp = open_ok(fx->path);
    assert_int_equal(va_spool_next_seq(sp, 3), 9);
    va_spool_destroy(&sp);
}

static void test_corrupted_record(void **state)
{
    fx_t *fx = *state;
    uint64_t ends[4];
    three_batches(fx, ends);
    /* flip one payload byte of the middle batch */
    int fd = open(fx->path, O_RDWR);
    assert_true(fd >= 0);
    unsigned char c;
    off_t at = (off_t)(ends[1] + 40);
    assert_int_equal(pread(fd, &c, 1, at), 1);
    c ^= 0x20;
    assert_int_equal(pwrite(fd, &c, 1, at), 1);
    close(fd);

    va_spool_t *sp = open_ok(fx->path);
    /* what follows a damaged record is not trusted: one batch is left */
    assert_int_equal(va_spool_next_seq(sp, 3), 5);
    seen_t *s = walk(sp, 0, 0);
    assert_int_equal(s->nbatches, 1);
    assert_int_equal(s->firsts[0], 1);
    assert_int_equal(file_size(fx->path), ends[1]);
    char damaged[160];
    snprintf(damaged, sizeof damaged, "%s.damaged", fx->path);
    assert_true(exists(damaged));
    assert_int_equal(file_size(damaged), ends[3]);
    va_spool_destroy(&sp);

    /* a file that is not a spool is refused, not overwritten */
    teardown(state);
    setup(state);
    fx = *state;
    FILE *f = fopen(fx->path, "w");
    assert_non_null(f);
    fputs("agent = { name = \"x\" }\n", f);
    fclose(f);
    uint64_t size = file_size(fx->path);
    char err[256] = "";
    assert_null(va_spool_open(fx->path, err, sizeof err));
    assert_non_null(strstr(err, "is not a vantage spool file"));
    assert_int_equal(file_size(fx->path), size);

    /* a spool in a directory that does not exist */
    assert_null(va_spool_open("/nonexistent-dir/spool", err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent-dir/spool"));
}

static void test_one_owner(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    char err[256] = "";
    assert_null(va_spool_open(fx->path, err, sizeof err));
    assert_non_null(strstr(err, "in use by another process"));
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    va_spool_destroy(&sp);
}

static void test_compaction(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    va_spool_set_fsync(sp, 0);
    va_spool_set_compact_min(sp, 1u << 20);
    char err[256];
    /* ~100 KB batches; job 1 will be wholly acked, job 2 acked inside a batch */
    for (uint64_t b = 0; b < 20; b++)
        append(sp, 1, 1 + b * 1000, 1000);
    for (uint64_t b = 0; b < 3; b++)
        append(sp, 2, 1 + b * 1000, 1000);
    uint64_t before = file_size(fx->path), live = 0, fsz = 0;
    assert_true(before > (1u << 20));
    assert_int_equal(va_spool_ack(sp, 2, 1500, err, sizeof err), VC_OK);
    /* acknowledging job 1 makes dead bytes dominate: compaction runs by itself */
    assert_int_equal(va_spool_ack(sp, 1, 20000, err, sizeof err), VC_OK);
    uint64_t after = file_size(fx->path);
    va_spool_size(sp, &fsz, &live);
    assert_int_equal(fsz, after);
    assert_true(after < before / 3);
    assert_true(live <= after + 64 && live + 64 >= after);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp", fx->path);
    assert_false(exists(tmp));

    seen_t *s = walk(sp, 0, 0);
    assert_int_equal(s->nbatches, 2);
    assert_int_equal(s->jobs[0], 2);
    assert_int_equal(s->firsts[0], 1001);
    assert_int_equal(s->firsts[1], 2001);
    assert_int_equal(va_spool_next_seq(sp, 1), 20001);
    /* appends after compaction land in the new file */
    append(sp, 2, 3001, 10);
    va_spool_destroy(&sp);

    sp = open_ok(fx->path);
    assert_int_equal(va_spool_next_seq(sp, 1), 20001); /* no batch left, seq remembered */
    assert_int_equal(va_spool_acked_seq(sp, 1), 20000);
    assert_int_equal(va_spool_next_seq(sp, 2), 3011);
    assert_int_equal(va_spool_acked_seq(sp, 2), 1500);
    s = walk(sp, 0, 0);
    assert_int_equal(s->nbatches, 3);
    assert_int_equal(s->samples, 2010);

    /* an explicit compaction with nothing to drop keeps everything */
    assert_int_equal(va_spool_compact(sp, err, sizeof err), VC_OK);
    assert_int_equal(walk(sp, 0, 0)->samples, 2010);
    /* a compaction that keeps a partly acked first batch (1001..2000, acked to 1500) */
    assert_int_equal(va_spool_ack(sp, 2, 1700, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_compact(sp, err, sizeof err), VC_OK);
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    assert_int_equal(va_spool_acked_seq(sp, 2), 1700);
    assert_int_equal(va_spool_next_seq(sp, 2), 3011);
    assert_int_equal(walk(sp, 0, 0)->nbatches, 3);
    va_spool_destroy(&sp);
}

static void test_finish_and_forget(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    char err[256];
    append(sp, 11, 1, 5);
    vp_done_t done = {11, VP_JOB_FAILED, "bucket b: AccessDenied", 5, 2};
    assert_int_equal(va_spool_finish(sp, &done, err, sizeof err), VC_OK);
    vp_done_t nosamples = {12, VP_JOB_OK, "", 0, 0}; /* a job that produced nothing */
    assert_int_equal(va_spool_finish(sp, &nosamples, err, sizeof err), VC_OK);
    append(sp, 13, 1, 2);
    va_spool_destroy(&sp);

    sp = open_ok(fx->path);
    va_spool_job_t jobs[8];
    size_t n = va_spool_jobs(sp, jobs, 8);
    assert_int_equal(n, 3);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].job_id == 11) {
            found++;
            assert_true(jobs[i].finished);
            assert_int_equal(jobs[i].done.status, VP_JOB_FAILED);
            assert_string_equal(jobs[i].done.error, "bucket b: AccessDenied");
            assert_int_equal(jobs[i].done.samples, 5);
            assert_int_equal(jobs[i].done.errors, 2);
            assert_int_equal(jobs[i].unacked, 5);
        } else if (jobs[i].job_id == 12) {
            found++;
            assert_true(jobs[i].finished);
            assert_int_equal(jobs[i].next_seq, 1);
        } else {
            assert_int_equal(jobs[i].job_id, 13);
            assert_false(jobs[i].finished);
        }
    }
    assert_int_equal(found, 2);
    assert_int_equal(va_spool_jobs(sp, jobs, 1), 3); /* tells how many there are */

    assert_int_equal(va_spool_forget(sp, 11, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_forget(sp, 12, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_forget(sp, 999, err, sizeof err), VC_OK);
    assert_int_equal(va_spool_jobs(sp, jobs, 8), 1);
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    assert_int_equal(va_spool_jobs(sp, jobs, 8), 1);
    assert_int_equal(jobs[0].job_id, 13);
    assert_int_equal(walk(sp, 0, 0)->samples, 2);
    assert_int_equal(va_spool_compact(sp, err, sizeof err), VC_OK);
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    assert_int_equal(va_spool_jobs(sp, jobs, 8), 1);
    assert_int_equal(walk(sp, 0, 0)->samples, 2);
    va_spool_destroy(&sp);
}

/* Many jobs, interleaved, against a model kept by the test. */
static void test_many_jobs(void **state)
{
    fx_t *fx = *state;
    enum { NJOBS = 40 };
    uint64_t next[NJOBS + 1], acked[NJOBS + 1], batch_first[NJOBS + 1][64];
    uint32_t batch_n[NJOBS + 1][64];
    int nb[NJOBS + 1];
    for (int j = 1; j <= NJOBS; j++) {
        next[j] = 1;
        acked[j] = 0;
        nb[j] = 0;
    }
    va_spool_t *sp = open_ok(fx->path);
    va_spool_set_fsync(sp, 0);
    char err[256];
    srand(7);
    for (int step = 0; step < 1500; step++) {
        int j = 1 + rand() % NJOBS;
        if (rand() % 3 || next[j] == 1) {
            if (nb[j] == 64)
                continue;
            uint32_t n = 1 + (uint32_t)(rand() % 40);
            append(sp, (uint64_t)j, next[j], n);
            batch_first[j][nb[j]] = next[j];
            batch_n[j][nb[j]++] = n;
            next[j] += n;
        } else {
            uint64_t seq = (uint64_t)rand() % next[j];
            assert_int_equal(va_spool_ack(sp, (uint64_t)j, seq, err, sizeof err), VC_OK);
            if (seq > acked[j])
                acked[j] = seq;
        }
        if (step == 700) {
            va_spool_destroy(&sp);
            sp = open_ok(fx->path);
            va_spool_set_fsync(sp, 0);
        }
        if (step == 1100)
            assert_int_equal(va_spool_compact(sp, err, sizeof err), VC_OK);
    }
    va_spool_destroy(&sp);
    sp = open_ok(fx->path);
    for (int j = 1; j <= NJOBS; j++) {
        assert_int_equal(va_spool_next_seq(sp, (uint64_t)j), next[j]);
        assert_int_equal(va_spool_acked_seq(sp, (uint64_t)j), acked[j]);
        /* exactly the batches not wholly acknowledged, in order */
        seen_t *s = walk(sp, (uint64_t)j, 0);
        int k = 0;
        for (int b = 0; b < nb[j]; b++) {
            if (batch_first[j][b] + batch_n[j][b] - 1 <= acked[j])
                continue;
            assert_true(k < s->nbatches);
            assert_int_equal(s->firsts[k], batch_first[j][b]);
            k++;
        }
        assert_int_equal(k, s->nbatches);
    }
    va_spool_destroy(&sp);
}

/* An agent killed (SIGKILL) while appending loses no batch that append
 * had reported as stored. */
static void test_killed_writer(void **state)
{
    fx_t *fx = *state;
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        char err[256];
        va_spool_t *sp = va_spool_open(fx->path, err, sizeof err);
        if (!sp)
            _exit(2);
        vc_sample_t s[50];
        for (uint64_t seq = 1;; seq += 50) {
            for (int i = 0; i < 50; i++)
                make_sample(&s[i], 77, seq + (uint64_t)i);
            if (va_spool_append(sp, 77, seq, s, 50, NULL, err, sizeof err))
                _exit(3);
            for (int i = 0; i < 50; i++)
                vc_sample_clear(&s[i]);
            uint64_t last = seq + 49;
            if (write(pfd[1], &last, sizeof last) != sizeof last)
                _exit(4);
        }
    }
    close(pfd[1]);
    uint64_t last = 0, got;
    for (int i = 0; i < 20; i++) {
        assert_int_equal(read(pfd[0], &got, sizeof got), (ssize_t)sizeof got);
        last = got;
    }
    kill(pid, SIGKILL);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    close(pfd[0]);

    va_spool_t *sp = open_ok(fx->path);
    assert_true(va_spool_next_seq(sp, 77) > last);
    seen_t *s = walk(sp, 77, 0);
    assert_int_equal(s->samples, va_spool_next_seq(sp, 77) - 1);
    va_spool_destroy(&sp);
}

/* Random damage anywhere in a spool: opening never crashes, and whatever
 * survives is exactly what was written (collect checks every sample), in
 * contiguous seqs. */
static void test_random_damage(void **state)
{
    fx_t *fx = *state;
    va_spool_t *sp = open_ok(fx->path);
    va_spool_set_fsync(sp, 0);
    char err[256];
    for (uint64_t b = 0; b < 6; b++) {
        append(sp, 21, 1 + b * 5, 5);
        append(sp, 22, 1 + b * 3, 3);
    }
    assert_int_equal(va_spool_ack(sp, 21, 12, err, sizeof err), VC_OK);
    vp_done_t done = {22, VP_JOB_OK, "", 18, 0};
    assert_int_equal(va_spool_finish(sp, &done, err, sizeof err), VC_OK);
    va_spool_destroy(&sp);

    uint64_t size = file_size(fx->path);
    unsigned char *orig = malloc(size), *bad = malloc(size);
    assert_non_null(orig);
    assert_non_null(bad);
    FILE *f = fopen(fx->path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(orig, 1, size, f), size);
    fclose(f);
    char damaged[160];
    snprintf(damaged, sizeof damaged, "%s.damaged", fx->path);
    srand(99);
    for (int it = 0; it < 300; it++) {
        memcpy(bad, orig, size);
        uint64_t len = size;
        if (it % 3 == 0)
            len = (uint64_t)rand() % size; /* cut anywhere */
        for (int k = 0; k < 1 + it % 4; k++)
            bad[(uint64_t)rand() % size] ^= (unsigned char)(1 + rand() % 255);
        f = fopen(fx->path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bad, 1, len, f), len);
        fclose(f);
        sp = va_spool_open(fx->path, err, sizeof err);
        if (!sp) {
            assert_non_null(strstr(err, fx->path)); /* the header was hit */
            continue;
        }
        seen_t *seen = walk(sp, 0, 0);
        for (int j = 21; j <= 22; j++) {
            uint64_t expect = va_spool_acked_seq(sp, (uint64_t)j);
            for (int b = 0; b < seen->nbatches; b++) {
                if (seen->jobs[b] != (uint64_t)j)
                    continue;
                /* the first kept batch may start inside the ack */
                if (expect >= seen->firsts[b])
                    expect = seen->firsts[b] - 1;
                assert_int_equal(seen->firsts[b], expect + 1);
                expect = seen->firsts[b] + (j == 21 ? 5 : 3) - 1;
            }
        }
        va_spool_destroy(&sp);
        unlink(damaged);
    }
    free(orig);
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_append_ack_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sent_bytes_equal_resent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupted_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_finish_and_forget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_jobs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_damage, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
