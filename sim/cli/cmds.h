/* sim/cli/cmds.h — one entry point per subcommand, one file each
 * (cmd_<name>.c). Each gets argv starting at its own name and returns the
 * process exit status: 0 success, 1 bad input or configuration, 2 usage. */
#ifndef TLBSIM_CLI_CMDS_H
#define TLBSIM_CLI_CMDS_H

#include <stddef.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

int cmd_run(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_alloc(int argc, char **argv);
int cmd_chase(int argc, char **argv);
int cmd_gather(int argc, char **argv);
int cmd_uvm(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_mrc(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_quiz(int argc, char **argv);

#endif
