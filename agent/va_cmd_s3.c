/* PLACEHOLDER: replaced by the module that implements this subcommand. */
#include <stdio.h>

#include "va_cmd.h"

int va_cmd_s3(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "vantage %s: not available in this build yet\n", argv[0]);
    return 3;
}
