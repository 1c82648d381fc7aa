/* va_cmd: the agent-side subcommands of the vantage executable. Each takes
 * argv with argv[0] being the subcommand name and returns the exit status. */
#ifndef VA_CMD_H
#define VA_CMD_H

int va_cmd_s3(int argc, char **argv);     /* vantage s3 ls|put|get|head|rm */
int va_cmd_ais(int argc, char **argv);    /* vantage ais ls|nbi|put|get|head|rm|health */
int va_cmd_agent(int argc, char **argv);  /* vantage agent --connect ... */
int va_cmd_keygen(int argc, char **argv); /* vantage keygen DIR */

#endif
