/* fwpt host tool — one function per subcommand, each in tools/cmd_NAME.c. */
#ifndef FWPT_TOOLS_COMMANDS_H
#define FWPT_TOOLS_COMMANDS_H

#include <stdio.h>
#include "arch/text.h"

/* argv[0] is the subcommand name. Return the process exit status. */
int fwpt_cmd_caps(int argc, char **argv);
int fwpt_cmd_plan(int argc, char **argv);
int fwpt_cmd_dump(int argc, char **argv);
int fwpt_cmd_flow(int argc, char **argv);

/* A sink writing to a stdio stream. */
struct fwpt_sink fwpt_file_sink(FILE *f);

#endif
