/* vantage: the one executable. It only dispatches subcommands to the
 * libraries (agent/, coordinator/); each subcommand parses its own options
 * and answers --help. */
#include <stdio.h>
#include <string.h>

#include "va_cmd.h"
#include "va_http.h"
#include "vk_cmd.h"

typedef int (*subcommand_fn)(int argc, char **argv);

typedef struct {
    const char *name;
    subcommand_fn fn;
    const char *summary;
} subcommand_t;

/* Subcommands, in the order `vantage --help` lists them. */
static const subcommand_t subcommands[] = {
    {"run", vk_cmd_run, "run a campaign on this machine: coordinator and its agents"},
    {"coordinator", vk_cmd_coordinator, "run the coordinator of a campaign; agents connect to it"},
    {"agent", va_cmd_agent, "run an agent that connects to a coordinator and runs its jobs"},
    {"check", vk_cmd_check, "validate a campaign file and print it with defaults filled in"},
    {"report", vk_cmd_report, "print or write the report of a campaign output directory"},
    {"compare", vk_cmd_compare, "compare the same jobs of two campaign output directories"},
    {"keygen", va_cmd_keygen, "write a CURVE key pair for an agent or a coordinator"},
    {"s3", va_cmd_s3, "talk to an S3 endpoint by hand: ls, put, get, head, rm (timed)"},
    {"ais", va_cmd_ais, "talk to an AIStore endpoint by hand: ls, nbi, put, get, head, rm"},
    {NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "vantage %s: distributed object-storage latency benchmark\n\n"
                 "usage: vantage <command> [options]   (vantage <command> --help for its options)\n\n"
                 "commands:\n",
            VANTAGE_VERSION);
    for (const subcommand_t *c = subcommands; c->name; c++)
        fprintf(out, "  %-12s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("vantage %s\n", VANTAGE_VERSION);
        return 0;
    }
    va_http_global_init();
    for (const subcommand_t *c = subcommands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "vantage: unknown command '%s' (vantage --help lists them)\n", argv[1]);
    return 2;
}
