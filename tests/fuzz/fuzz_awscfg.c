/* The AWS shared credentials and config file reader (agent/va_awscfg.h): the
 * same bytes serve as ~/.aws/credentials and ~/.aws/config (through
 * AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE), with no AWS_* variable set,
 * so everything comes from the files. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "va_awscfg.h"

static char g_path[256];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                 "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
                                 "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                                 "AWS_ENDPOINT_URL_S3", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    snprintf(g_path, sizeof g_path, "%s/vantage-fuzz-aws-%d",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    setenv("AWS_SHARED_CREDENTIALS_FILE", g_path, 1);
    setenv("AWS_CONFIG_FILE", g_path, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    close(fd);
    va_awscfg_t cfg;
    char err[1024];
    if (va_awscfg_load(NULL, &cfg, err, sizeof err) == VC_OK) {
        FUZZ_CHECK(cfg.access_key[0] && cfg.secret_key[0]);
        FUZZ_CHECK(fuzz_terminated(cfg.endpoint, sizeof cfg.endpoint));
        FUZZ_CHECK(fuzz_terminated(cfg.region, sizeof cfg.region) && cfg.region[0]);
    } else {
        FUZZ_CHECK(err[0] != '\0');
    }
    va_awscfg_clear(&cfg);
    unlink(g_path);
    return 0;
}
