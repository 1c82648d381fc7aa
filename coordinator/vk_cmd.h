/* vk_cmd: the coordinator-side subcommands of the vantage executable. Each
 * takes argv with argv[0] being the subcommand name and returns the exit status. */
#ifndef VK_CMD_H
#define VK_CMD_H

int vk_cmd_run(int argc, char **argv);         /* vantage run CAMPAIGN.cfg --out DIR */
int vk_cmd_coordinator(int argc, char **argv); /* vantage coordinator CAMPAIGN.cfg --bind ... --out DIR */
int vk_cmd_check(int argc, char **argv);       /* vantage check CAMPAIGN.cfg */
int vk_cmd_report(int argc, char **argv);      /* vantage report DIR [--format ...] */
int vk_cmd_compare(int argc, char **argv);     /* vantage compare DIR_A DIR_B */

#endif
