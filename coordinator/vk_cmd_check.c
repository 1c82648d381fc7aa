/* vantage check: validates a campaign file (or an agent config) and prints
 * it back with every default filled in, in libconfig syntax, so that what
 * will run is visible before anything runs; the output loads as a campaign
 * itself. Exit 0 when valid, 1 with every error listed otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vc_agentcfg.h"
#include "vc_campaign.h"
#include "vc_diag.h"
#include "vc_job_json.h"
#include "vc_plan.h"
#include "vk_cmd.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage check [options] CAMPAIGN.cfg\n"
            "       vantage check --agent AGENT.cfg\n"
            "       vantage check --reference [--agent]\n\n"
            "Validates a campaign file and prints the effective campaign: every setting with\n"
            "its value, defaults filled in, in the file's own syntax (it loads as a campaign).\n"
            "Exit status 0 when valid; 1 with every error as FILE:LINE: SETTING: problem.\n\n"
            "options:\n"
            "  -q, --quiet      validate only, print nothing when valid\n"
            "  --plan           also print, per job, what each agent is sent and in which wave\n"
            "  --json           print each job as the JSON the results store keeps, one a line\n"
            "  --agent          the file is an agent config (vantage agent --config FILE)\n"
            "  --reference      print the option reference (Markdown) of campaign files, or of\n"
            "                   agent configs with --agent, and exit\n"
            "  -h, --help       this help\n\n"
            "The format is described in docs/campaign-format.md and docs/agent-config.md.\n");
}

static void print_plan(const vc_campaign_t *c, FILE *out)
{
    for (size_t j = 0; j < vc_campaign_job_count(c); j++) {
        const vc_campaign_job_t *e = vc_campaign_job(c, j);
        vc_plan_step_t *steps = NULL;
        size_t n = 0;
        if (vc_plan_job(c, j, &steps, &n) != VC_OK) {
            fprintf(out, "# job %s: cannot plan (out of memory)\n", e->job.id);
            continue;
        }
        fprintf(out, "# job %s (%s, %s): %zu step%s\n", e->job.id, vc_workload_name(e->job.kind),
                vc_schedule_name(e->schedule), n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
            const vc_job_t *sj = &steps[i].job;
            fprintf(out, "#   wave %-4d agent %-12s slice %d", steps[i].wave,
                    vc_campaign_agent(c, (size_t)steps[i].agent)->name, sj->slice);
            if (sj->kind == VC_WL_LIST_SCALE)
                fprintf(out, ": scale %s%s%s run %d..%d%s%s", sj->nscale ? sj->scale[0].label : "?",
                        sj->nscale > 1 ? ".." : "",
                        sj->nscale > 1 ? sj->scale[sj->nscale - 1].label : "", sj->run_first,
                        sj->run_first + sj->runs - 1,
                        sj->nbi_create && (sj->paths & VC_PATH_AIS_NBI) ? " +create" : "",
                        sj->nbi_destroy && (sj->paths & VC_PATH_AIS_NBI) ? " +destroy" : "");
            else if (sj->kind == VC_WL_OPS)
                fprintf(out, ": iteration %d..%d", sj->run_first,
                        sj->run_first + sj->iterations - 1);
            fputc('\n', out);
        }
        free(steps);
    }
}

/* Prints every error and a count; returns the exit status. */
static int report_errors(vc_diag_t **diag, const char *file)
{
    vc_diag_print(*diag, stderr);
    fprintf(stderr, "vantage check: %s: %zu error%s\n", file, vc_diag_count(*diag),
            vc_diag_count(*diag) == 1 ? "" : "s");
    vc_diag_destroy(diag);
    return 1;
}

static int check_agent(const char *path, int quiet)
{
    vc_diag_t *diag = vc_diag_new();
    vc_agentcfg_t cfg;
    if (!diag) {
        fprintf(stderr, "vantage check: out of memory\n");
        return 1;
    }
    vc_status_t rc = vc_agentcfg_load(path, &cfg, diag);
    if (rc)
        return report_errors(&diag, path);
    vc_diag_destroy(&diag);
    if (!quiet && vc_agentcfg_write(&cfg, stdout) != VC_OK) {
        fprintf(stderr, "vantage check: cannot write to standard output\n");
        return 1;
    }
    return 0;
}

int vk_cmd_check(int argc, char **argv)
{
    int quiet = 0, plan = 0, json = 0, agent = 0, reference = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--plan") == 0) {
            plan = 1;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--agent") == 0) {
            agent = 1;
        } else if (strcmp(a, "--reference") == 0) {
            reference = 1;
        } else if (strcmp(a, "--") == 0 && i + 1 < argc && !file && i + 2 == argc) {
            file = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "vantage check: unknown option '%s' (vantage check --help)\n", a);
            return 2;
        } else if (file) {
            fprintf(stderr, "vantage check: one file at a time ('%s' and '%s')\n", file, a);
            return 2;
        } else {
            file = a;
        }
    }
    if (reference) {
        vc_status_t rc = agent ? vc_agentcfg_write_reference(stdout)
                               : vc_campaign_write_reference(stdout);
        return rc == VC_OK ? 0 : 1;
    }
    if (!file) {
        fprintf(stderr, "vantage check: which file? (vantage check CAMPAIGN.cfg; --help)\n");
        return 2;
    }
    if (agent)
        return check_agent(file, quiet);

    vc_diag_t *diag = vc_diag_new();
    vc_campaign_t *c = NULL;
    if (!diag) {
        fprintf(stderr, "vantage check: out of memory\n");
        return 1;
    }
    vc_status_t rc = vc_campaign_load(file, &c, diag);
    if (rc)
        return report_errors(&diag, file);
    vc_diag_destroy(&diag);
    int status = 0;
    if (!quiet) {
        if (json) {
            for (size_t i = 0; i < vc_campaign_job_count(c); i++) {
                char *text = vc_job_to_json(&vc_campaign_job(c, i)->job, 0);
                if (!text) {
                    status = 1;
                    break;
                }
                puts(text);
                free(text);
            }
        } else if (vc_campaign_write(c, stdout) != VC_OK) {
            status = 1;
        }
        if (plan) {
            fputc('\n', stdout);
            print_plan(c, stdout);
        }
        if (fflush(stdout) != 0 || ferror(stdout))
            status = 1;
        if (status)
            fprintf(stderr, "vantage check: cannot write to standard output\n");
    }
    vc_campaign_destroy(&c);
    return status;
}
