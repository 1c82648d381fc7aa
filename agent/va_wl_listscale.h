/* va_wl_listscale: the NBI latency-vs-scale benchmark (seed 1), request for
 * request as AIS's bench.py does it (ais-rest-api.md section 13):
 *   warm-up  (job->warmup, s3-direct selected) one S3 listing of the first
 *            point's prefix, to open the persistent connection;
 *   for each scale point (label, prefix, expected count):
 *   1. count check: a full listing (AIS regular when an AIS path is
 *      selected, else S3) must return exactly the expected count; otherwise
 *      the point is skipped;
 *   2. (ais-nbi selected) create an inventory of the prefix with force and
 *      wait for it, polling every nbi_poll_ms up to nbi_timeout_ms;
 *   3. runs timed full listings by each selected path, in the order
 *      ais-regular, ais-nbi, s3-direct (ListObjectsV2 against the direct
 *      target, MaxKeys = page_size, one warm connection throughout);
 *   4. destroy the inventory, also after a failure or a cancellation.
 * A job cut by an interleaved schedule (vc_plan) does only its part:
 * verify_count, nbi_create and nbi_destroy say whether it does steps 1, 2
 * and 4 (without nbi_create the NBI listings use the bucket's inventory;
 * without nbi_destroy a successful inventory is left for the next step, but
 * one whose creation failed is removed); runs are numbered from run_first;
 * interleave lists run-major, each run taking every selected path once in
 * the order rotated by the run index (run r starts with path r mod npaths).
 * AIS listings use the server's page size (pagesize 0), as bench.py;
 * page_size is the S3 MaxKeys (S3 caps it at 1000).
 * The inventory is the one the creation job made: AIS names it after the job
 * id, so the NBI listings send that name (what bench.py reads back from
 * show-inventory). AIS keeps one inventory per bucket: two list-scale jobs on
 * one bucket at once replace each other's inventories.
 *
 * Samples (label = the point's label, scale = its expected count, worker 0):
 *   "count-check"  step 1; keys = count seen; flagged VC_SF_WARMUP when it
 *                  passed (untimed in the seed, not part of any statistic);
 *                  a wrong count is err_class VC_EC_MISMATCH, code
 *                  "CountMismatch", flag VC_SF_COUNT_MISMATCH, no warm-up
 *                  flag, so it counts as the point's error;
 *   "nbi-create"   step 2: duration_ns = client-observed creation time,
 *                  server_ns = the server's job duration, keys = names;
 *   "ais-regular", "ais-nbi", "s3-direct"  step 3, run = run_first + i, pages,
 *                  keys, per-page times, bytes, phases of the first request,
 *                  CPU; a listing whose key count differs is flagged
 *                  VC_SF_COUNT_MISMATCH with VC_EC_MISMATCH;
 *                  the warm-up is an "s3-direct" with VC_SF_WARMUP;
 *   "nbi-destroy"  step 4.
 * A failing step (wrong count, creation failure, a listing that fails, an
 * unreachable server) is that step's sample with its error class and a
 * message saying what failed; the point's remaining steps are skipped (the
 * inventory is still destroyed) and the job goes on with the next point. */
#ifndef VA_WL_LISTSCALE_H
#define VA_WL_LISTSCALE_H

#include <stddef.h>

#include "va_workload.h"

vc_status_t va_wl_listscale(const vc_job_t *job, const va_workload_env_t *env, char *err,
                            size_t errlen);

#endif
