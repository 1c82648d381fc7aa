/* vc_plan: turns one campaign job and its schedule into the ordered steps
 * the coordinator sends. The cutting of interleaved jobs lives here, beside
 * the schedule definitions, so the coordinator and `vantage check --plan`
 * agree by construction. */
#include "vc_plan.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    vc_plan_step_t *steps;
    size_t n, cap;
    int slice[VC_CAMPAIGN_MAX_AGENTS]; /* next slice number per agent slot */
} plan_t;

static void add(plan_t *p, int wave, int agent_slot, const vc_campaign_job_t *e,
                const vc_job_t *job)
{
    vc_plan_step_t *s = &p->steps[p->n++];
    s->wave = wave;
    s->agent = e->agents[agent_slot];
    s->job = *job;
    s->job.slice = p->slice[agent_slot]++;
}

static size_t count_steps(const vc_campaign_job_t *e)
{
    size_t n = (size_t)e->nagents;
    if (e->schedule != VC_SCHED_INTERLEAVED)
        return n;
    if (e->job.kind == VC_WL_LIST_SCALE)
        return n * (size_t)e->job.nscale * (size_t)e->job.runs;
    if (e->job.kind == VC_WL_OPS)
        return n * (size_t)e->job.iterations;
    return n;
}

vc_status_t vc_plan_job(const vc_campaign_t *c, size_t job_index, vc_plan_step_t **steps,
                        size_t *nsteps)
{
    const vc_campaign_job_t *e = vc_campaign_job(c, job_index);
    *steps = NULL;
    *nsteps = 0;
    if (!e || e->nagents < 1)
        return VC_ERR_ARG;
    plan_t p;
    memset(&p, 0, sizeof p);
    p.cap = count_steps(e);
    p.steps = calloc(p.cap, sizeof *p.steps);
    if (!p.steps)
        return VC_ERR_NOMEM;
    const vc_job_t *orig = &e->job;
    int n = e->nagents;
    int wave = 0;

    if (e->schedule == VC_SCHED_PARALLEL) {
        for (int k = 0; k < n; k++)
            add(&p, 0, k, e, orig);
    } else if (e->schedule == VC_SCHED_INTERLEAVED && orig->kind == VC_WL_LIST_SCALE) {
        for (int pt = 0; pt < orig->nscale; pt++) {
            for (int r = 0; r < orig->runs; r++) {
                for (int k = 0; k < n; k++) {
                    int slot = (r + k) % n;
                    int first = r == 0 && k == 0, last = r == orig->runs - 1 && k == n - 1;
                    vc_job_t j = *orig;
                    j.nscale = 1;
                    memset(j.scale, 0, sizeof j.scale);
                    j.scale[0] = orig->scale[pt];
                    j.runs = 1;
                    j.run_first = r;
                    j.interleave = 1;
                    /* The bucket has one inventory: made before the point's first
                     * listing, removed after its last, whoever runs them. */
                    j.nbi_create = orig->nbi_create && first;
                    j.nbi_destroy = orig->nbi_destroy && last;
                    j.verify_count = orig->verify_count && first;
                    /* One warm-up per agent, on its first step of the job. */
                    j.warmup = orig->warmup && p.slice[slot] == 0;
                    add(&p, wave++, slot, e, &j);
                }
            }
        }
    } else if (e->schedule == VC_SCHED_INTERLEAVED && orig->kind == VC_WL_OPS) {
        for (int i = 0; i < orig->iterations; i++) {
            for (int k = 0; k < n; k++) {
                vc_job_t j = *orig;
                j.iterations = 1;
                j.run_first = i;
                j.interleave = 1;
                add(&p, wave++, (i + k) % n, e, &j);
            }
        }
    } else {
        for (int k = 0; k < n; k++)
            add(&p, wave++, k, e, orig);
    }
    *steps = p.steps;
    *nsteps = p.n;
    return VC_OK;
}
