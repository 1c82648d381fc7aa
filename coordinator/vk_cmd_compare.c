/* vk_cmd_compare: `vantage compare DIR_A DIR_B`: the same jobs, ops, scale
 * points and agents (or sites) of two campaigns side by side, B/A. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "vk_cmd.h"
#include "vk_compare.h"
#include "vk_store.h"
#include "vk_summary.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage compare DIR_A DIR_B [--format text|csv|json] [--agent NAME]\n"
            "                       [--job ID] [--by agent|site]\n\n"
            "Puts the groups (job, agent, op, scale point) of two campaign output\n"
            "directories side by side with the ratios B/A of p50, p95 and mean.\n\n"
            "  -f, --format FMT   text (default), csv or json\n"
            "  -a, --agent NAME   only this agent\n"
            "  -j, --job ID       only this job\n"
            "  -b, --by KEY       match groups by agent name (default) or by site label\n"
            "  -h, --help         this text\n");
}

static vk_summary_t *load(const char *dir, const vk_filter_t *f)
{
    char err[1024];
    vk_store_t *st = NULL;
    vk_summary_t *s = NULL;
    if (vk_store_open(dir, VK_STORE_READONLY, &st, err, sizeof err) ||
        vk_summary_build(st, f, &s, err, sizeof err))
        fprintf(stderr, "vantage compare: %s\n", err);
    vk_store_destroy(&st);
    return s;
}

int vk_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"agent", required_argument, NULL, 'a'},
        {"job", required_argument, NULL, 'j'},    {"by", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *format = "text";
    vk_filter_t filter = {0};
    int by_site = 0, c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:a:j:b:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'a': filter.agent = optarg; break;
        case 'j': filter.job = optarg; break;
        case 'b':
            if (strcmp(optarg, "site") && strcmp(optarg, "agent")) {
                fprintf(stderr, "vantage compare: --by takes agent or site, not '%s'\n", optarg);
                return 2;
            }
            by_site = strcmp(optarg, "site") == 0;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 2) {
        fprintf(stderr, "vantage compare: give two campaign output directories\n");
        usage(stderr);
        return 2;
    }
    if (strcmp(format, "text") && strcmp(format, "csv") && strcmp(format, "json")) {
        fprintf(stderr, "vantage compare: unknown format '%s' (text, csv or json)\n", format);
        return 2;
    }
    const char *da = argv[optind], *db = argv[optind + 1];
    vk_summary_t *a = load(da, &filter), *b = a ? load(db, &filter) : NULL;
    vk_compare_t *cmp = NULL;
    int status = 1;
    if (a && b && vk_compare_build(a, b, by_site, &cmp) == VC_OK) {
        char na[1200], nb[1200];
        snprintf(na, sizeof na, "%s (campaign %s)", da, a->campaign.name);
        snprintf(nb, sizeof nb, "%s (campaign %s)", db, b->campaign.name);
        vc_status_t rc = strcmp(format, "csv") == 0    ? vk_compare_csv(cmp, stdout)
                         : strcmp(format, "json") == 0 ? vk_compare_json(cmp, na, nb, stdout)
                                                       : vk_compare_text(cmp, na, nb, stdout);
        if (rc)
            fprintf(stderr, "vantage compare: writing the comparison failed: %s\n",
                    vc_strerror(rc));
        status = rc ? 1 : 0;
    }
    vk_compare_destroy(&cmp);
    vk_summary_destroy(&a);
    vk_summary_destroy(&b);
    return status;
}
