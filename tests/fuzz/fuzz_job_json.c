/* The job spec JSON reader (common/vc_job_json.h): what a results store,
 * possibly copied from elsewhere, holds for each job. A spec that reads
 * writes back to a text that reads to the same spec. */
#include "fuzz_util.h"
#include "vc_job_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    char err[256];
    vc_job_t job;
    if (vc_job_from_json(text, &job, err, sizeof err) == VC_OK) {
        char *once = vc_job_to_json(&job, 0);
        FUZZ_CHECK(once != NULL);
        vc_job_t again;
        FUZZ_CHECK(vc_job_from_json(once, &again, err, sizeof err) == VC_OK);
        char *twice = vc_job_to_json(&again, 0);
        FUZZ_CHECK(twice && strcmp(once, twice) == 0);
        free(once);
        free(twice);
    }
    free(text);
    return 0;
}
