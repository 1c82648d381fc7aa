/* vantage: the one executable. It only dispatches subcommands to the
 * libraries (agent/, coordinator/); each subcommand parses its own options
 * and answers --help. */
#include <stdio.h>
#include <string.h>

#include "va_http.h"

typedef int (*subcommand_fn)(int argc, char **argv);

typedef struct {
    const char *name;
    subcommand_fn fn;
    const char *summary;
} subcommand_t;

/* Subcommands, in the order `vantage --help` lists them. */
static const subcommand_t subcommands[] = {
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
