/* vp_msg: the wire protocol between coordinator and agents (proto/PROTOCOL.md).
 * Every message is one msgpack array [version, type, request_id, body] with
 * body a map. This module turns a vp_msg_t into bytes and bytes back into a
 * vp_msg_t; it knows no sockets. The decoder is the trust boundary: it checks
 * the shape, the version, every field's type, every length and every enum,
 * and fails with a message naming the field, never with a crash or an assert.
 *
 * SAMPLES is the hot message (hundreds of thousands of samples a second), so
 * a sample travels as a msgpack array of fields in a fixed order (PROTOCOL.md
 * "Sample record") and a long-lived vp_decoder_t reuses its msgpack zone. */
#ifndef VP_MSG_H
#define VP_MSG_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "vc_clock.h"
#include "vc_job.h"
#include "vc_sample.h"
#include "vc_status.h"

/* Protocol major version: the first element of every message. A peer with
 * another major version is rejected; minor versions only add optional body
 * keys (which older peers ignore) and are announced in HELLO. */
#define VP_PROTO_MAJOR 1
#define VP_PROTO_MINOR 0

/* Largest encoded message either side sends or accepts. The runtime sets
 * ZMQ_MAXMSGSIZE to this on every socket. */
#define VP_MAX_MSG_SIZE (16u * 1024u * 1024u)

/* Limits the decoder enforces (a field at the limit is accepted). String
 * limits are in bytes without the terminating NUL; the fixed arrays below are
 * one larger. */
#define VP_MAX_SAMPLES 10000     /* samples in one SAMPLES batch */
#define VP_MAX_PAGES 100000      /* pages in one sample */
#define VP_MAX_CAPS 32           /* capabilities in HELLO */
#define VP_MAX_RESUME 64         /* jobs in HELLO's resume list and WELCOME's acks */

#define VP_NAME_LEN 64   /* agent name, site label, campaign name */
#define VP_HOST_LEN 255  /* hostname */
#define VP_TEXT_LEN 255  /* reasons, error text, OS description, progress step */
#define VP_VER_LEN 31    /* program version string */
#define VP_IP_LEN 63     /* textual IPv4 or IPv6 address */
#define VP_CAP_LEN 31    /* one capability word */

typedef enum {
    VP_HELLO = 1,  /* agent -> coordinator: who I am, what I still hold */
    VP_WELCOME,    /* coordinator -> agent: admitted; what is already stored */
    VP_REJECT,     /* coordinator -> agent: not admitted, and why */
    VP_PING,       /* either way: heartbeat, carries t1 */
    VP_PONG,       /* answer to PING: t1 echoed, t2, t3 */
    VP_JOB,        /* coordinator -> agent: run this job */
    VP_PROGRESS,   /* agent -> coordinator: how far a job is */
    VP_SAMPLES,    /* agent -> coordinator: a batch of sample records */
    VP_ACK,        /* coordinator -> agent: samples stored up to a seq */
    VP_DONE,       /* agent -> coordinator: a job ended */
    VP_CANCEL,     /* coordinator -> agent: stop a job */
    VP_BYE,        /* either way: leaving */
    VP_TYPE_END    /* one past the last type */
} vp_type_t;

/* How a job ended (DONE). */
typedef enum {
    VP_JOB_OK = 0,      /* ran to completion (requests may have failed: see errors) */
    VP_JOB_FAILED,      /* could not run or stopped on an error; error text says why */
    VP_JOB_CANCELLED,   /* stopped by CANCEL */
    VP_JOB_INTERRUPTED, /* the agent restarted while it ran; spooled samples are resent */
    VP_JOB_STATUS_END
} vp_job_status_t;

/* State of a job an agent reports in HELLO after a reconnect or restart. */
typedef enum {
    VP_RJ_RUNNING = 0,  /* still running in this agent process */
    VP_RJ_FINISHED,     /* ended (DONE may not have arrived); only unacked samples left */
    VP_RJ_INTERRUPTED,  /* the agent restarted; the job will not continue */
    VP_RJ_STATE_END
} vp_resume_state_t;

typedef struct {
    uint64_t job_id;
    uint64_t next_seq;        /* the next seq the agent would use (all below were produced) */
    uint64_t acked_seq;       /* highest contiguous seq the agent saw acknowledged */
    vp_resume_state_t state;
} vp_resume_t;

typedef struct {
    uint64_t job_id;
    uint64_t seq;             /* highest contiguous seq stored; 0: none */
} vp_ack_t;

typedef struct {
    char name[VP_NAME_LEN + 1];          /* required, non-empty */
    char site[VP_NAME_LEN + 1];          /* required, may be empty */
    char version[VP_VER_LEN + 1];        /* program version, e.g. "0.1.0"; required */
    uint32_t proto_minor;                /* VP_PROTO_MINOR of the agent; required */
    char hostname[VP_HOST_LEN + 1];      /* required */
    char os[VP_TEXT_LEN + 1];            /* "Linux 6.1.0 x86_64"; required, may be empty */
    int32_t cpus;                        /* online CPUs, >= 1; required */
    char public_ip[VP_IP_LEN + 1];       /* empty when unknown; optional */
    uint32_t ncaps;
    char caps[VP_MAX_CAPS][VP_CAP_LEN + 1]; /* "s3" "ais" "list-scale" ...; optional */
    vc_wall_ns_t wall_ns;                /* agent wall clock when sent; required */
    uint32_t nresume;
    vp_resume_t resume[VP_MAX_RESUME];   /* jobs with state on the agent; optional */
} vp_hello_t;

typedef struct {
    char version[VP_VER_LEN + 1];        /* coordinator program version; required */
    uint32_t proto_minor;                /* required */
    int64_t heartbeat_ms;                /* PING interval the coordinator uses, > 0; required */
    vc_wall_ns_t wall_ns;                /* coordinator wall clock when sent; required */
    uint32_t nacks;
    vp_ack_t acks[VP_MAX_RESUME];        /* per resumed job: what is already stored; optional */
} vp_welcome_t;

typedef struct {
    char reason[VP_TEXT_LEN + 1];        /* required, non-empty */
} vp_reason_t;                           /* REJECT and BYE */

typedef struct {
    vc_wall_ns_t t1;                     /* sender's wall clock at send; required */
} vp_ping_t;

typedef struct {
    vc_wall_ns_t t1;                     /* echoed from PING; required */
    vc_wall_ns_t t2;                     /* answerer's wall clock at PING receipt; required */
    vc_wall_ns_t t3;                     /* answerer's wall clock at PONG send; required */
} vp_pong_t;

typedef struct {
    char campaign[VP_NAME_LEN + 1];      /* required, non-empty */
    uint64_t job_id;                     /* coordinator-assigned, never reused by a store; > 0 */
    vc_wall_ns_t start_at;               /* in the AGENT's wall clock (the coordinator applies
                                            its offset estimate); 0: at once; required */
    vc_job_t job;                        /* the spec; never carries credentials; required */
} vp_job_msg_t;

typedef struct {
    uint64_t job_id;                     /* required */
    int64_t done;                        /* >= 0; required */
    int64_t total;                       /* -1 unknown; required */
    int64_t errors;                      /* >= 0; required */
    char step[VP_TEXT_LEN + 1];          /* "listing 10K run 3/20"; optional */
} vp_progress_t;

typedef struct {
    uint64_t job_id;                     /* required, > 0 */
    uint64_t first_seq;                  /* seq of samples[0], >= 1; samples[i].seq = first_seq + i */
    uint32_t nsamples;                   /* 1..VP_MAX_SAMPLES */
    vc_sample_t *samples;                /* owned by the message (vp_msg_clear frees, pages too) */
} vp_samples_t;

typedef struct {
    uint64_t job_id;                     /* required */
    uint64_t seq;                        /* highest contiguous seq stored for the job */
} vp_ack_msg_t;

typedef struct {
    uint64_t job_id;                     /* required */
    vp_job_status_t status;              /* required */
    char error[VP_TEXT_LEN + 1];         /* empty when status is OK; optional */
    int64_t samples;                     /* samples produced = last seq; required */
    int64_t errors;                      /* samples with an error class; required */
} vp_done_t;

typedef struct {
    uint64_t job_id;                     /* required */
} vp_cancel_t;

typedef struct {
    vp_type_t type;
    uint64_t request_id;                 /* chosen by the sender; a reply echoes it */
    union {
        vp_hello_t hello;
        vp_welcome_t welcome;
        vp_reason_t reject;
        vp_ping_t ping;
        vp_pong_t pong;
        vp_job_msg_t job;
        vp_progress_t progress;
        vp_samples_t samples;
        vp_ack_msg_t ack;
        vp_done_t done;
        vp_cancel_t cancel;
        vp_reason_t bye;
    } u;
} vp_msg_t;

/* Zeroes the message and sets its type: every optional field at its default
 * (empty strings, counts 0, PROGRESS total -1). */
void vp_msg_init(vp_msg_t *m, vp_type_t type);

/* Frees what the message owns (SAMPLES' sample array and their pages) and
 * re-initialises it with its type. Safe on an initialised or decoded message,
 * and after a failed decode. */
void vp_msg_clear(vp_msg_t *m);

/* "HELLO", "SAMPLES", ...; "unknown" for anything else. Never NULL. */
const char *vp_msg_type_name(int type);

/* Encodes m into out, replacing out's content (out->size is set to the
 * message length; the buffer's memory is reused). out must have been set up
 * with msgpack_sbuffer_init. For SAMPLES, samples[i].seq is ignored: the
 * wire carries first_seq only. Returns VC_ERR_ARG when m breaks a limit the
 * decoder would reject (too many samples, an empty required string, an
 * encoded size over VP_MAX_MSG_SIZE, ...), VC_ERR_NOMEM on allocation
 * failure. */
vc_status_t vp_msg_encode(const vp_msg_t *m, msgpack_sbuffer *out);

/* Upper bound of the encoded size of one sample; lets a sender split a batch
 * so the message stays under VP_MAX_MSG_SIZE (count ~64 bytes of envelope). */
size_t vp_sample_wire_size(const vc_sample_t *s);

/* Decodes one message. On success *out is filled (caller owns it: call
 * vp_msg_clear). On failure *out holds nothing to free, err tells what and
 * which field ("SAMPLES.samples[3].op: string of 40 bytes exceeds 23") and
 * the status is VC_ERR_PROTO (malformed, unknown type), VC_ERR_UNSUPPORTED
 * (other major version) or VC_ERR_NOMEM. err may be NULL. Uses a fresh
 * msgpack zone each call; loops should use a vp_decoder_t. */
vc_status_t vp_msg_decode(const void *data, size_t len, vp_msg_t *out, char *err, size_t errlen);

/* A decoder that keeps its msgpack zone between calls (the SAMPLES path).
 * Not thread-safe; one per receiving thread. */
typedef struct vp_decoder vp_decoder_t;

/* Caller owns the result; NULL when out of memory. */
vp_decoder_t *vp_decoder_new(void);
void vp_decoder_destroy(vp_decoder_t **p);
/* As vp_msg_decode. */
vc_status_t vp_decoder_decode(vp_decoder_t *d, const void *data, size_t len, vp_msg_t *out,
                              char *err, size_t errlen);

/* Names for the enums, as they appear in logs ("ok", "failed", ...). */
const char *vp_job_status_name(int status);
const char *vp_resume_state_name(int state);

#endif
