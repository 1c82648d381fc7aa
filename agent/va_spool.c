/* va_spool: append-only spool of unacknowledged sample batches.
 *
 * File layout (all integers little-endian):
 *   file header   8 bytes  "VASPOOL" 0x01
 *   record        header 16 bytes + payload
 *     header      u32 magic "VSPR", u8 type, 3 zero bytes, u32 payload length,
 *                 u32 CRC-32C of header bytes 4..11 followed by the payload
 *     BATCH  (1)  u64 job, u64 first_seq, u32 n, u32 zero, the encoded SAMPLES message
 *     ACK    (2)  u64 job, u64 seq: everything <= seq of job is acknowledged
 *     FINISH (3)  the encoded DONE message of a job that ended
 *     FORGET (4)  u64 job: drop everything of job
 * Recovery reads records in order and stops at the first that is incomplete,
 * fails its CRC or makes no sense; the file is cut there. If more than the
 * last record is lost that way (damage in the middle, not a torn append), a
 * copy of the damaged file is kept beside it for inspection.
 *
 * The index (per job: seqs, ack, batch offsets) lives in memory; batch bytes
 * are read back from the file when resent, so a long outage costs disk, not
 * memory. */
#include "va_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vc_crc32c.h"
#include "vc_log.h"

#define FILE_MAGIC "VASPOOL\x01"
#define FILE_HDR 8
#define REC_MAGIC 0x52505356u /* "VSPR" */
#define REC_HDR 16
#define BATCH_SUB 24
#define REC_MAX (VP_MAX_MSG_SIZE + BATCH_SUB)
/* Rewriting costs two fsyncs, so it waits until there is a fair amount to
 * reclaim: at 300,000 samples/s (~24 MB/s) about once every three seconds. */
#define COMPACT_MIN_BYTES (UINT64_C(64) << 20)

enum { R_BATCH = 1, R_ACK = 2, R_FINISH = 3, R_FORGET = 4 };

typedef struct {
    uint64_t first;
    uint32_t n;
    uint32_t len;  /* message bytes */
    uint64_t off;  /* file offset of the record header */
} batch_t;

typedef struct {
    uint64_t id;
    uint64_t next_seq;
    uint64_t acked;
    int finished;
    vp_done_t done;
    uint32_t finish_len; /* payload bytes of the FINISH record */
    batch_t *b;          /* b[head..nb) are unacknowledged */
    size_t head, nb, cap;
    uint64_t batch_bytes; /* record bytes of b[head..nb) */
} job_t;

struct va_spool {
    char *path;
    int fd;
    int sync;
    uint64_t compact_min; /* no automatic compaction below this file size */
    uint64_t size;        /* file size = where the next record goes */
    job_t *jobs;
    size_t njobs, jcap;
    msgpack_sbuffer enc; /* encoding buffer when the caller passes none */
    unsigned char *rbuf; /* record read buffer */
    size_t rcap;
    vp_decoder_t *dec;   /* checks batches during recovery */
};

/* ------------------------------------------------------------ helpers */

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}
static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static job_t *find_job(const va_spool_t *sp, uint64_t id)
{
    for (size_t i = 0; i < sp->njobs; i++)
        if (sp->jobs[i].id == id)
            return &sp->jobs[i];
    return NULL;
}

static job_t *get_job(va_spool_t *sp, uint64_t id)
{
    job_t *j = find_job(sp, id);
    if (j)
        return j;
    if (sp->njobs == sp->jcap) {
        size_t cap = sp->jcap ? sp->jcap * 2 : 8;
        job_t *p = realloc(sp->jobs, cap * sizeof *p);
        if (!p)
            return NULL;
        sp->jobs = p;
        sp->jcap = cap;
    }
    j = &sp->jobs[sp->njobs++];
    memset(j, 0, sizeof *j);
    j->id = id;
    j->next_seq = 1;
    return j;
}

static void drop_job(va_spool_t *sp, job_t *j)
{
    free(j->b);
    *j = sp->jobs[--sp->njobs];
}

static uint64_t batch_rec_bytes(const batch_t *b)
{
    return REC_HDR + BATCH_SUB + (uint64_t)b->len;
}

static int add_batch(job_t *j, uint64_t first, uint32_t n, uint32_t len, uint64_t off)
{
    if (j->nb == j->cap) {
        if (j->head > j->nb / 2) {
            /* reuse the acknowledged front rather than grow */
            memmove(j->b, j->b + j->head, (j->nb - j->head) * sizeof *j->b);
            j->nb -= j->head;
            j->head = 0;
        } else {
            size_t cap = j->cap ? j->cap * 2 : 16;
            batch_t *p = realloc(j->b, cap * sizeof *p);
            if (!p)
                return -1;
            j->b = p;
            j->cap = cap;
        }
    }
    j->b[j->nb++] = (batch_t){first, n, len, off};
    j->batch_bytes += REC_HDR + BATCH_SUB + (uint64_t)len;
    j->next_seq = first + n;
    return 0;
}

/* Applies an acknowledgement to the index: drops every batch wholly <= seq. */
static void apply_ack(job_t *j, uint64_t seq)
{
    if (seq <= j->acked)
        return;
    j->acked = seq;
    while (j->head < j->nb && j->b[j->head].first + j->b[j->head].n - 1 <= seq) {
        j->batch_bytes -= batch_rec_bytes(&j->b[j->head]);
        j->head++;
    }
    if (j->head == j->nb)
        j->head = j->nb = 0;
}

static uint64_t live_bytes(const va_spool_t *sp)
{
    uint64_t n = FILE_HDR;
    for (size_t i = 0; i < sp->njobs; i++) {
        const job_t *j = &sp->jobs[i];
        n += j->batch_bytes;
        if (j->acked)
            n += REC_HDR + 16;
        if (j->finished)
            n += REC_HDR + j->finish_len;
    }
    return n;
}

static int write_all(int fd, uint64_t off, const struct iovec *iov, int iovcnt)
{
    struct iovec v[4];
    memcpy(v, iov, (size_t)iovcnt * sizeof *v);
    int i = 0;
    while (i < iovcnt) {
        ssize_t w = pwritev(fd, v + i, iovcnt - i, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (uint64_t)w;
        while (i < iovcnt && (size_t)w >= v[i].iov_len) {
            w -= (ssize_t)v[i].iov_len;
            i++;
        }
        if (i < iovcnt) {
            v[i].iov_base = (char *)v[i].iov_base + w;
            v[i].iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int read_all(int fd, uint64_t off, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Writes one record (header + up to two payload parts) at off. */
static int write_record(int fd, uint64_t off, int type, const void *a, size_t alen,
                        const void *b, size_t blen)
{
    unsigned char h[REC_HDR] = {0};
    put32(h, REC_MAGIC);
    h[4] = (unsigned char)type;
    put32(h + 8, (uint32_t)(alen + blen));
    uint32_t crc = vc_crc32c(0, h + 4, 8);
    crc = vc_crc32c(crc, a, alen);
    if (blen)
        crc = vc_crc32c(crc, b, blen);
    put32(h + 12, crc);
    struct iovec iov[3] = {{h, REC_HDR}, {(void *)a, alen}, {(void *)b, blen}};
    return write_all(fd, off, iov, blen ? 3 : 2);
}

static int sync_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (dfd < 0)
        return -1;
    int rc = fsync(dfd);
    close(dfd);
    return rc;
}

static int grow_rbuf(va_spool_t *sp, size_t need)
{
    if (need <= sp->rcap)
        return 0;
    unsigned char *p = realloc(sp->rbuf, need);
    if (!p)
        return -1;
    sp->rbuf = p;
    sp->rcap = need;
    return 0;
}

/* Reads the record at off into sp->rbuf and checks it. Returns its payload
 * length, -1 when the record is incomplete or damaged, -2 on a read error. */
static int64_t read_record(va_spool_t *sp, uint64_t off, uint64_t file_size, int *type)
{
    unsigned char h[REC_HDR];
    if (file_size - off < REC_HDR)
        return -1;
    if (read_all(sp->fd, off, h, REC_HDR))
        return -2;
    uint32_t len = get32(h + 8);
    if (get32(h) != REC_MAGIC || h[5] || h[6] || h[7] || len > REC_MAX ||
        file_size - off - REC_HDR < len)
        return -1;
    if (grow_rbuf(sp, len ? len : 1))
        return -2;
    if (read_all(sp->fd, off + REC_HDR, sp->rbuf, len))
        return -2;
    uint32_t crc = vc_crc32c(vc_crc32c(0, h + 4, 8), sp->rbuf, len);
    if (crc != get32(h + 12))
        return -1;
    *type = h[4];
    return len;
}

/* Applies one good record read at off to the index; -1 when it makes no
 * sense (then recovery stops there), -2 when out of memory. */
static int replay(va_spool_t *sp, int type, const unsigned char *p, uint32_t len, uint64_t off)
{
    job_t *j;
    switch (type) {
    case R_BATCH: {
        if (len <= BATCH_SUB)
            return -1;
        uint64_t id = get64(p), first = get64(p + 8);
        uint32_t n = get32(p + 16);
        if (!id || !first || n < 1 || n > VP_MAX_SAMPLES || first > UINT64_MAX - n)
            return -1;
        if (!(j = get_job(sp, id)))
            return -2;
        if (first != j->next_seq)
            return -1;
        /* The CRC says the bytes are as written, not that they are the
         * SAMPLES message the header announces; one that is not would be
         * resent, and refused by the coordinator, forever. */
        vp_msg_t m;
        if (!sp->dec && !(sp->dec = vp_decoder_new()))
            return -2;
        if (vp_decoder_decode(sp->dec, p + BATCH_SUB, len - BATCH_SUB, &m, NULL, 0))
            return -1;
        int same = m.type == VP_SAMPLES && m.u.samples.job_id == id &&
                   m.u.samples.first_seq == first && m.u.samples.nsamples == n;
        vp_msg_clear(&m);
        if (!same)
            return -1;
        if (add_batch(j, first, n, len - BATCH_SUB, off))
            return -2;
        /* a batch wholly below an ack that came earlier in the file */
        if (j->acked >= first + n - 1) {
            uint64_t a = j->acked;
            j->acked = 0;
            apply_ack(j, a);
        }
        return 0;
    }
    case R_ACK: {
        if (len != 16)
            return -1;
        uint64_t id = get64(p), seq = get64(p + 8);
        if (!id)
            return -1;
        if (!(j = get_job(sp, id)))
            return -2;
        /* a compacted file carries the ack of batches that are gone */
        if (seq >= j->next_seq)
            j->next_seq = seq + 1;
        apply_ack(j, seq);
        return 0;
    }
    case R_FINISH: {
        vp_msg_t m;
        if (vp_msg_decode(p, len, &m, NULL, 0))
            return -1;
        if (m.type != VP_DONE) {
            vp_msg_clear(&m);
            return -1;
        }
        if (!(j = get_job(sp, m.u.done.job_id)))
            return -2;
        j->finished = 1;
        j->done = m.u.done;
        j->finish_len = len;
        return 0;
    }
    case R_FORGET:
        if (len != 8)
            return -1;
        if ((j = find_job(sp, get64(p))))
            drop_job(sp, j);
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------- public */

static vc_status_t recover(va_spool_t *sp, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(sp->fd, &st)) {
        seterr(err, errlen, "spool %s: cannot stat: %s", sp->path, strerror(errno));
        return VC_ERR_IO;
    }
    uint64_t fsize = (uint64_t)st.st_size;
    unsigned char fh[FILE_HDR];
    if (fsize < FILE_HDR) {
        /* new, or torn while being created: start it */
        if (fsize && (read_all(sp->fd, 0, fh, (size_t)fsize) ||
                      memcmp(fh, FILE_MAGIC, (size_t)fsize))) {
            seterr(err, errlen, "%s is not a vantage spool file (bad header); move it away "
                   "or point the agent at another spool path", sp->path);
            return VC_ERR_IO;
        }
        struct iovec iov = {(void *)FILE_MAGIC, FILE_HDR};
        if (ftruncate(sp->fd, 0) || write_all(sp->fd, 0, &iov, 1) || fsync(sp->fd) ||
            sync_dir(sp->path)) {
            seterr(err, errlen, "spool %s: cannot initialise: %s", sp->path, strerror(errno));
            return VC_ERR_IO;
        }
        sp->size = FILE_HDR;
        return VC_OK;
    }
    if (read_all(sp->fd, 0, fh, FILE_HDR) || memcmp(fh, FILE_MAGIC, FILE_HDR)) {
        seterr(err, errlen, "%s is not a vantage spool file (bad header); move it away or "
               "point the agent at another spool path", sp->path);
        return VC_ERR_IO;
    }
    uint64_t off = FILE_HDR;
    int records = 0;
    while (off < fsize) {
        int type = 0;
        int64_t len = read_record(sp, off, fsize, &type);
        if (len == -2) {
            seterr(err, errlen, "spool %s: read error at offset %" PRIu64 ": %s", sp->path, off,
                   strerror(errno));
            return VC_ERR_IO;
        }
        int r = len < 0 ? -1 : replay(sp, type, sp->rbuf, (uint32_t)len, off);
        if (r == -2) {
            seterr(err, errlen, "spool %s: out of memory while recovering", sp->path);
            return VC_ERR_NOMEM;
        }
        if (r < 0)
            break;
        off += REC_HDR + (uint64_t)len;
        records++;
    }
    if (off < fsize) {
        /* A torn append leaves at most one record's worth of bytes; more
         * than that after the cut means damage in the middle of the file. */
        unsigned char h[REC_HDR];
        uint64_t claimed = 0;
        if (fsize - off >= REC_HDR && !read_all(sp->fd, off, h, REC_HDR) && get32(h) == REC_MAGIC)
            claimed = REC_HDR + (uint64_t)get32(h + 8);
        int torn = fsize - off <= claimed || fsize - off < REC_HDR;
        if (torn) {
            vc_warn("spool", "%s: dropped an incomplete last record at offset %" PRIu64
                    " (%" PRIu64 " bytes; the agent stopped while writing it)", sp->path, off,
                    fsize - off);
        } else {
            char keep[4096];
            snprintf(keep, sizeof keep, "%s.damaged", sp->path);
            int kfd = open(keep, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            int copied = kfd >= 0;
            for (uint64_t o = 0; copied && o < fsize;) {
                size_t chunk = fsize - o > (1u << 20) ? (1u << 20) : (size_t)(fsize - o);
                if (grow_rbuf(sp, chunk) || read_all(sp->fd, o, sp->rbuf, chunk)) {
                    copied = 0;
                    break;
                }
                struct iovec iov = {sp->rbuf, chunk};
                if (write_all(kfd, o, &iov, 1))
                    copied = 0;
                o += chunk;
            }
            if (kfd >= 0 && (fsync(kfd) || close(kfd)))
                copied = 0;
            vc_error("spool", "%s: damaged record at offset %" PRIu64 "; the %" PRIu64
                     " bytes after it are dropped (samples in them are lost)%s%s", sp->path,
                     off, fsize - off, copied ? "; a copy of the damaged file is " : "",
                     copied ? keep : "");
        }
        if (ftruncate(sp->fd, (off_t)off) || fsync(sp->fd)) {
            seterr(err, errlen, "spool %s: cannot cut the damaged tail: %s", sp->path,
                   strerror(errno));
            return VC_ERR_IO;
        }
    }
    sp->size = off;
    vc_debug("spool", "%s: recovered %d records, %zu jobs", sp->path, records, sp->njobs);
    return VC_OK;
}

va_spool_t *va_spool_open(const char *path, char *err, size_t errlen)
{
    va_spool_t *sp = calloc(1, sizeof *sp);
    if (!sp || !(sp->path = strdup(path))) {
        free(sp);
        seterr(err, errlen, "out of memory");
        return NULL;
    }
    sp->sync = 1;
    sp->compact_min = COMPACT_MIN_BYTES;
    msgpack_sbuffer_init(&sp->enc);
    sp->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (sp->fd < 0) {
        seterr(err, errlen, "cannot open spool %s: %s", path, strerror(errno));
        goto fail;
    }
    /* two agents appending to one spool would interleave records */
    if (flock(sp->fd, LOCK_EX | LOCK_NB)) {
        seterr(err, errlen, "spool %s is in use by another process (%s); give each agent its "
               "own spool path", path, strerror(errno));
        goto fail;
    }
    vc_status_t rc = recover(sp, err, errlen);
    vp_decoder_destroy(&sp->dec);
    if (rc)
        goto fail;
    uint64_t live = live_bytes(sp);
    if (sp->size > sp->compact_min && live * 2 < sp->size && va_spool_compact(sp, err, errlen))
        goto fail;
    return sp;
fail:
    va_spool_destroy(&sp);
    return NULL;
}

void va_spool_destroy(va_spool_t **p)
{
    if (!p || !*p)
        return;
    va_spool_t *sp = *p;
    if (sp->fd >= 0)
        close(sp->fd);
    for (size_t i = 0; i < sp->njobs; i++)
        free(sp->jobs[i].b);
    free(sp->jobs);
    free(sp->rbuf);
    vp_decoder_destroy(&sp->dec);
    msgpack_sbuffer_destroy(&sp->enc);
    free(sp->path);
    free(sp);
    *p = NULL;
}

void va_spool_set_fsync(va_spool_t *sp, int on)
{
    sp->sync = on != 0;
}

void va_spool_set_compact_min(va_spool_t *sp, uint64_t bytes)
{
    sp->compact_min = bytes;
}

/* Appends a record at the end; on failure cuts the partial record away so
 * the file stays a sequence of whole records. */
static vc_status_t append_record(va_spool_t *sp, int type, const void *a, size_t alen,
                                 const void *b, size_t blen, int sync, char *err, size_t errlen)
{
    uint64_t off = sp->size;
    if (write_record(sp->fd, off, type, a, alen, b, blen) || (sync && fdatasync(sp->fd))) {
        int e = errno;
        if (ftruncate(sp->fd, (off_t)off))
            vc_error("spool", "%s: cannot cut a failed write at offset %" PRIu64 ": %s",
                     sp->path, off, strerror(errno));
        seterr(err, errlen, "spool %s: write failed at offset %" PRIu64 ": %s (disk full?)",
               sp->path, off, strerror(e));
        return VC_ERR_IO;
    }
    sp->size = off + REC_HDR + alen + blen;
    return VC_OK;
}

vc_status_t va_spool_append(va_spool_t *sp, uint64_t job_id, uint64_t first_seq,
                            const vc_sample_t *samples, size_t n, msgpack_sbuffer *msg, char *err,
                            size_t errlen)
{
    if (!job_id || n < 1 || n > VP_MAX_SAMPLES || !samples) {
        seterr(err, errlen, "spool %s: a batch needs a job id and 1 to %d samples (got %zu)",
               sp->path, VP_MAX_SAMPLES, n);
        return VC_ERR_ARG;
    }
    uint64_t want = va_spool_next_seq(sp, job_id);
    if (first_seq != want) {
        seterr(err, errlen, "spool %s: job %" PRIu64 " batch starts at seq %" PRIu64
               ", expected %" PRIu64 " (seqs must be contiguous)", sp->path, job_id, first_seq,
               want);
        return VC_ERR_ARG;
    }
    vp_msg_t m;
    vp_msg_init(&m, VP_SAMPLES);
    m.u.samples.job_id = job_id;
    m.u.samples.first_seq = first_seq;
    m.u.samples.nsamples = (uint32_t)n;
    m.u.samples.samples = (vc_sample_t *)samples; /* only read by the encoder */
    msgpack_sbuffer *out = msg ? msg : &sp->enc;
    vc_status_t rc = vp_msg_encode(&m, out);
    if (rc) {
        seterr(err, errlen, "spool %s: job %" PRIu64 " batch at seq %" PRIu64 " cannot be "
               "encoded (%s): a field breaks a protocol limit or the batch is over %u bytes",
               sp->path, job_id, first_seq, vc_strerror(rc), VP_MAX_MSG_SIZE);
        return rc;
    }
    job_t *j = get_job(sp, job_id);
    if (!j) {
        seterr(err, errlen, "out of memory");
        return VC_ERR_NOMEM;
    }
    unsigned char sub[BATCH_SUB] = {0};
    put64(sub, job_id);
    put64(sub + 8, first_seq);
    put32(sub + 16, (uint32_t)n);
    uint64_t off = sp->size;
    if ((rc = append_record(sp, R_BATCH, sub, BATCH_SUB, out->data, out->size, sp->sync, err,
                            errlen)))
        return rc;
    if (add_batch(j, first_seq, (uint32_t)n, (uint32_t)out->size, off)) {
        /* the record is on disk but not indexed: cut it so both agree */
        if (ftruncate(sp->fd, (off_t)off) == 0)
            sp->size = off;
        seterr(err, errlen, "out of memory");
        return VC_ERR_NOMEM;
    }
    return VC_OK;
}

static vc_status_t maybe_compact(va_spool_t *sp, char *err, size_t errlen)
{
    if (sp->size > sp->compact_min && live_bytes(sp) * 2 < sp->size)
        return va_spool_compact(sp, err, errlen);
    return VC_OK;
}

vc_status_t va_spool_ack(va_spool_t *sp, uint64_t job_id, uint64_t seq, char *err,
                         size_t errlen)
{
    job_t *j = find_job(sp, job_id);
    uint64_t produced = j ? j->next_seq - 1 : 0;
    if (seq > produced) {
        seterr(err, errlen, "spool %s: ack of seq %" PRIu64 " for job %" PRIu64 ", but only %"
               PRIu64 " were spooled; ignored", sp->path, seq, job_id, produced);
        return VC_ERR_ARG;
    }
    if (!j || seq <= j->acked)
        return VC_OK;
    unsigned char p[16];
    put64(p, job_id);
    put64(p + 8, seq);
    vc_status_t rc = append_record(sp, R_ACK, p, sizeof p, NULL, 0, 0, err, errlen);
    if (rc)
        return rc;
    apply_ack(j, seq);
    return maybe_compact(sp, err, errlen);
}

vc_status_t va_spool_finish(va_spool_t *sp, const vp_done_t *done, char *err, size_t errlen)
{
    vp_msg_t m;
    vp_msg_init(&m, VP_DONE);
    m.u.done = *done;
    vc_status_t rc = vp_msg_encode(&m, &sp->enc);
    if (rc) {
        seterr(err, errlen, "spool %s: DONE of job %" PRIu64 " cannot be encoded", sp->path,
               done->job_id);
        return rc;
    }
    job_t *j = get_job(sp, done->job_id);
    if (!j) {
        seterr(err, errlen, "out of memory");
        return VC_ERR_NOMEM;
    }
    if ((rc = append_record(sp, R_FINISH, sp->enc.data, sp->enc.size, NULL, 0, 1, err, errlen)))
        return rc;
    j->finished = 1;
    j->done = *done;
    j->finish_len = (uint32_t)sp->enc.size;
    return VC_OK;
}

vc_status_t va_spool_forget(va_spool_t *sp, uint64_t job_id, char *err, size_t errlen)
{
    job_t *j = find_job(sp, job_id);
    if (!j)
        return VC_OK;
    unsigned char p[8];
    put64(p, job_id);
    vc_status_t rc = append_record(sp, R_FORGET, p, sizeof p, NULL, 0, 0, err, errlen);
    if (rc)
        return rc;
    drop_job(sp, j);
    return maybe_compact(sp, err, errlen);
}

vc_status_t va_spool_foreach(va_spool_t *sp, uint64_t job_id, uint64_t from_seq,
                             int (*fn)(void *arg, const va_spool_batch_t *batch), void *arg,
                             char *err, size_t errlen)
{
    for (size_t i = 0; i < sp->njobs; i++) {
        const job_t *j = &sp->jobs[i];
        if (job_id && j->id != job_id)
            continue;
        /* batches are in seq order: find the first that reaches from_seq
         * without walking a long backlog that was already sent */
        size_t lo = j->head, hi = j->nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (j->b[mid].first + j->b[mid].n - 1 < from_seq)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < j->nb; k++) {
            const batch_t b = j->b[k];
            int type = 0;
            int64_t len = read_record(sp, b.off, sp->size, &type);
            if (len < 0 || type != R_BATCH || (uint64_t)len != BATCH_SUB + (uint64_t)b.len ||
                get64(sp->rbuf) != j->id || get64(sp->rbuf + 8) != b.first) {
                seterr(err, errlen, "spool %s: batch of job %" PRIu64 " at seq %" PRIu64
                       " (offset %" PRIu64 ") cannot be read back intact", sp->path, j->id,
                       b.first, b.off);
                return VC_ERR_IO;
            }
            va_spool_batch_t out = {j->id, b.first, b.n, sp->rbuf + BATCH_SUB, b.len};
            if (fn(arg, &out))
                return VC_ERR_CANCELLED;
        }
    }
    return VC_OK;
}

uint64_t va_spool_next_seq(const va_spool_t *sp, uint64_t job_id)
{
    const job_t *j = find_job(sp, job_id);
    return j ? j->next_seq : 1;
}

uint64_t va_spool_acked_seq(const va_spool_t *sp, uint64_t job_id)
{
    const job_t *j = find_job(sp, job_id);
    return j ? j->acked : 0;
}

size_t va_spool_jobs(const va_spool_t *sp, va_spool_job_t *out, size_t max)
{
    for (size_t i = 0; i < sp->njobs && i < max; i++) {
        const job_t *j = &sp->jobs[i];
        out[i] = (va_spool_job_t){
            .job_id = j->id,
            .next_seq = j->next_seq,
            .acked_seq = j->acked,
            .unacked = j->next_seq - 1 > j->acked ? j->next_seq - 1 - j->acked : 0,
            .finished = j->finished,
            .done = j->done,
        };
    }
    return sp->njobs;
}

static int write_ack(int fd, uint64_t *off, uint64_t job_id, uint64_t seq)
{
    unsigned char p[16];
    put64(p, job_id);
    put64(p + 8, seq);
    if (write_record(fd, *off, R_ACK, p, sizeof p, NULL, 0))
        return -1;
    *off += REC_HDR + sizeof p;
    return 0;
}

vc_status_t va_spool_compact(va_spool_t *sp, char *err, size_t errlen)
{
    size_t plen = strlen(sp->path);
    char *tmp = malloc(plen + 5);
    if (!tmp) {
        seterr(err, errlen, "out of memory");
        return VC_ERR_NOMEM;
    }
    memcpy(tmp, sp->path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    vc_status_t rc = VC_ERR_IO;
    uint64_t *newoff = NULL;
    size_t nbatches = 0;
    for (size_t i = 0; i < sp->njobs; i++)
        nbatches += sp->jobs[i].nb - sp->jobs[i].head;
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        seterr(err, errlen, "spool %s: cannot create %s for compaction: %s", sp->path, tmp,
               strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        seterr(err, errlen, "spool %s: cannot lock %s: %s", sp->path, tmp, strerror(errno));
        goto done;
    }
    newoff = malloc((nbatches ? nbatches : 1) * sizeof *newoff);
    if (!newoff) {
        rc = VC_ERR_NOMEM;
        seterr(err, errlen, "out of memory");
        goto done;
    }
    struct iovec iov = {(void *)FILE_MAGIC, FILE_HDR};
    uint64_t off = FILE_HDR;
    if (write_all(fd, 0, &iov, 1))
        goto ioerr;
    size_t bi = 0;
    for (size_t i = 0; i < sp->njobs; i++) {
        job_t *j = &sp->jobs[i];
        /* Replay needs each batch to start at the job's next seq. With the
         * acknowledged batches gone, an ack of the seq just before the first
         * kept batch (or of the real ack when none is kept) restores that;
         * the real ack, which may fall inside a kept batch, follows them. */
        uint64_t lead = j->head < j->nb ? j->b[j->head].first - 1 : j->acked;
        if (lead && write_ack(fd, &off, j->id, lead))
            goto ioerr;
        for (size_t k = j->head; k < j->nb; k++) {
            int type = 0;
            int64_t len = read_record(sp, j->b[k].off, sp->size, &type);
            if (len < 0 || type != R_BATCH) {
                seterr(err, errlen, "spool %s: batch of job %" PRIu64 " at offset %" PRIu64
                       " cannot be read back intact; not compacted", sp->path, j->id,
                       j->b[k].off);
                goto done;
            }
            if (write_record(fd, off, R_BATCH, sp->rbuf, (size_t)len, NULL, 0))
                goto ioerr;
            newoff[bi++] = off;
            off += REC_HDR + (uint64_t)len;
        }
        if (j->acked > lead && write_ack(fd, &off, j->id, j->acked))
            goto ioerr;
        if (j->finished) {
            vp_msg_t m;
            vp_msg_init(&m, VP_DONE);
            m.u.done = j->done;
            if (vp_msg_encode(&m, &sp->enc))
                goto ioerr;
            if (write_record(fd, off, R_FINISH, sp->enc.data, sp->enc.size, NULL, 0))
                goto ioerr;
            off += REC_HDR + sp->enc.size;
        }
    }
    if (fsync(fd) || rename(tmp, sp->path) || sync_dir(sp->path))
        goto ioerr;
    close(sp->fd);
    sp->fd = fd;
    fd = -1;
    vc_debug("spool", "%s: compacted from %" PRIu64 " to %" PRIu64 " bytes", sp->path, sp->size,
             off);
    sp->size = off;
    bi = 0;
    for (size_t i = 0; i < sp->njobs; i++) {
        job_t *j = &sp->jobs[i];
        if (!j->b)
            continue;
        memmove(j->b, j->b + j->head, (j->nb - j->head) * sizeof *j->b);
        j->nb -= j->head;
        j->head = 0;
        for (size_t k = 0; k < j->nb; k++)
            j->b[k].off = newoff[bi++];
    }
    rc = VC_OK;
    goto done;
ioerr:
    seterr(err, errlen, "spool %s: compaction into %s failed: %s", sp->path, tmp,
           strerror(errno));
done:
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(newoff);
    free(tmp);
    return rc;
}

void va_spool_size(const va_spool_t *sp, uint64_t *file_bytes, uint64_t *live)
{
    if (file_bytes)
        *file_bytes = sp->size;
    if (live)
        *live = live_bytes(sp);
}
