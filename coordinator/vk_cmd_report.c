/* vk_cmd_report: `vantage report DIR`: reads DIR/results.db (read-only, so it
 * works while a campaign is still writing) and prints or writes a report. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "vk_cmd.h"
#include "vk_report.h"
#include "vk_store.h"
#include "vk_summary.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: vantage report DIR [--format %s] [--agent NAME] [--job ID] [--raw]\n"
            "                          [--output FILE]\n\n"
            "Reports the campaign stored in DIR/results.db.\n\n"
            "  -f, --format FMT   text (default): the seed benchmarks' tables, the cross-site\n"
            "                     comparison and detailed statistics; csv or json: one row or\n"
            "                     object per (job, agent, op, scale point) group; html: one\n"
            "                     self-contained page with charts and the same tables\n"
            "  -a, --agent NAME   only this agent\n"
            "  -j, --job ID       only this job\n"
            "  -r, --raw          every raw sample instead of summaries (csv or json)\n"
            "  -o, --output FILE  write to FILE instead of standard output\n"
            "  -h, --help         this text\n\n"
            "Columns and fields: docs/report-formats.md; the SQLite schema for your own\n"
            "queries: docs/results-schema.md.\n",
            vk_report_format_names());
}

int vk_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"agent", required_argument, NULL, 'a'},
        {"job", required_argument, NULL, 'j'},    {"raw", no_argument, NULL, 'r'},
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format = "text", *output = NULL;
    vk_filter_t filter = {0};
    int raw = 0, c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:a:j:ro:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'a': filter.agent = optarg; break;
        case 'j': filter.job = optarg; break;
        case 'r': raw = 1; break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "vantage report: give exactly one campaign output directory\n");
        usage(stderr);
        return 2;
    }
    const char *dir = argv[optind];
    const vk_report_format_t *fmt = vk_report_format(format);
    if (!fmt) {
        fprintf(stderr, "vantage report: unknown format '%s' (one of %s)\n", format,
                vk_report_format_names());
        return 2;
    }
    if ((raw && !fmt->raw) || (!raw && !fmt->summary && !fmt->store)) {
        fprintf(stderr, "vantage report: %s%s output is not available in this build%s\n",
                format, raw ? " raw" : "", raw ? " (raw samples: --format csv or json)" : "");
        return 2;
    }
    char err[1024];
    vk_store_t *st = NULL;
    if (vk_store_open(dir, VK_STORE_READONLY, &st, err, sizeof err)) {
        fprintf(stderr, "vantage report: %s\n", err);
        return 1;
    }
    FILE *out = stdout;
    if (output && !(out = fopen(output, "w"))) {
        perror(output);
        vk_store_destroy(&st);
        return 1;
    }
    vc_status_t rc;
    if (raw) {
        rc = fmt->raw(st, &filter, out);
        if (rc)
            snprintf(err, sizeof err, "exporting raw samples of %s failed: %s: %s",
                     vk_store_path(st), vc_strerror(rc), vk_store_errmsg(st));
    } else if (fmt->store) {
        rc = fmt->store(st, &filter, out, err, sizeof err);
    } else {
        vk_summary_t *sum = NULL;
        rc = vk_summary_build(st, &filter, &sum, err, sizeof err);
        if (!rc) {
            if ((filter.agent || filter.job) && !sum->njobs)
                fprintf(stderr, "vantage report: warning: no job matches%s%s%s%s in %s\n",
                        filter.agent ? " agent " : "", filter.agent ? filter.agent : "",
                        filter.job ? " job " : "", filter.job ? filter.job : "", dir);
            rc = fmt->summary(sum, out);
            if (rc)
                snprintf(err, sizeof err, "writing the report failed: %s", vc_strerror(rc));
        }
        vk_summary_destroy(&sum);
    }
    if (out != stdout && fclose(out) != 0 && !rc) {
        snprintf(err, sizeof err, "writing %s failed", output);
        rc = VC_ERR_IO;
    }
    vk_store_destroy(&st);
    if (rc) {
        fprintf(stderr, "vantage report: %s\n", err);
        return 1;
    }
    return 0;
}
