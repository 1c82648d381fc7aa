/* va_calibrate_cli: `vantage agent --calibrate`, the agent's own overhead
 * measured here and now (the calibrate workload, va_wl_calibrate), printed
 * for a person deciding whether this host can measure what they want. */
#ifndef VA_CALIBRATE_CLI_H
#define VA_CALIBRATE_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Runs `count` calibration requests per kind (0: the workload's default) and
 * prints the timer resolution and cost and the per-request floor to out.
 * Returns the exit status (0, or 1 when calibration could not run). */
int va_calibrate_print(int64_t count, FILE *out);

#endif
