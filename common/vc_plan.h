/* vc_plan: what the coordinator sends, to whom and when, for one job of a
 * campaign, following the job's schedule. Pure: the coordinator executes
 * the steps in order and never has to interpret a schedule itself.
 *
 * Steps come grouped in waves (wave 0, 1, 2, ...). The coordinator starts a
 * wave only when every step of the previous wave has ended (DONE, failed or
 * the agent lost), and sends all steps of one wave with one common start_at
 * (coordinator wall clock, a short lead ahead so every agent has the JOB
 * before it), which it writes into step.job.start_at.
 *
 *   parallel     one wave: every agent of the job, the whole job.
 *   sequential   one wave per agent, in the job's agent order, the whole job.
 *   interleaved  list-scale: for each scale point, for each run r, one wave
 *                per agent, agents rotated by r (run r starts with agent
 *                r mod n); each step is the job cut to that scale point and
 *                that one run (run_first = r, runs = 1, interleave = 1), the
 *                first step of a scale point creating the NBI inventory and
 *                checking the count, the last destroying it.
 *                ops: for each iteration i, one wave per agent, rotated by
 *                i; each step does iteration i only (run_first = i,
 *                iterations = 1, interleave = 1).
 *                Other kinds have no runs to interleave: as sequential.
 * step.job.slice numbers the steps of one agent for one job (0, 1, ...), so
 * (agent, job id, slice) names one dispatch; it is 0 when a job is not cut. */
#ifndef VC_PLAN_H
#define VC_PLAN_H

#include <stddef.h>

#include "vc_campaign.h"
#include "vc_job.h"
#include "vc_status.h"

typedef struct {
    int wave;      /* 0-based; non-decreasing along the step array */
    int agent;     /* index into the campaign's agents */
    vc_job_t job;  /* what to send that agent (start_at left 0 for the coordinator) */
} vc_plan_step_t;

/* Plans job `job_index` of the campaign. On VC_OK *steps (caller frees with
 * free()) holds *nsteps >= 1 steps in execution order. VC_ERR_ARG for an
 * index out of range, VC_ERR_NOMEM. */
vc_status_t vc_plan_job(const vc_campaign_t *c, size_t job_index, vc_plan_step_t **steps,
                        size_t *nsteps);

#endif
