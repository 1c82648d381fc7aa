/* vk_cmd_common: what `vantage coordinator` and `vantage run` share on the
 * command line: loading the campaign with its diagnostics, durations,
 * signal handling that stops the coordinator cleanly, exit codes. */
#ifndef VK_CMD_COMMON_H
#define VK_CMD_COMMON_H

#include <stdint.h>

#include "vc_campaign.h"
#include "vc_status.h"
#include "vk_coord.h"

/* Loads a campaign, printing every problem; NULL when it is not usable.
 * Caller owns the result. */
vc_campaign_t *vk_cmd_load_campaign(const char *cmd, const char *path);
/* Parses a duration option ("90" = 90 s, "1.5s", "500ms"); prints and
 * returns -1 when invalid. */
int vk_cmd_duration_ms(const char *cmd, const char *opt, const char *text, int64_t *out);
/* SIGINT/SIGTERM stop k (NULL: default handling again). */
void vk_cmd_install_signals(vk_coord_t *k);
/* The end-of-campaign report: the text report of DIR/results.db written to
 * DIR/report.txt and printed on standard output. */
void vk_cmd_final_report(const char *dir);
/* Exit status for the result of vk_coord_run. */
int vk_cmd_exit_code(vc_status_t rc);

#endif
