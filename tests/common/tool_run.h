/* fwpt tests — run the host tool of this build ($FWPT_BUILD/fwpt, else build/fwpt) and take
 * what it prints (stdout and stderr). Hosted C. */
#ifndef FWPT_TESTS_TOOL_RUN_H
#define FWPT_TESTS_TOOL_RUN_H

#include <stddef.h>

/* `fwpt CMD ARGS 2>&1` into out (NUL-terminated, at most cap - 1 bytes); returns the exit status,
 * -1 if it could not run or did not exit. */
int tool_run(const char *cmd, const char *args, char *out, size_t cap);

#endif
