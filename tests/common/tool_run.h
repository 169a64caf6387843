/* fwpt tests — run the host tool of this build ($FWPT_BUILD/fwpt, else build/fwpt) and take
 * what it prints (stdout and stderr); the files it reads and writes. Hosted C. */
#ifndef FWPT_TESTS_TOOL_RUN_H
#define FWPT_TESTS_TOOL_RUN_H

#include <stddef.h>
#include <stdio.h>

/* The tool's path into path (cap bytes): 1 when it is there to run; 0 when it is not built, said on stderr (the
 * caller fails a CHECK and ends). */
int tool_find(char *path, size_t cap);
/* In a test's main (tests/check.h included): the tool's path into the array tool, or the test ends there with a
 * failed check and its summary line under name. */
#define TOOL_FIND_OR_END(tool, name)                                                                                   \
    do {                                                                                                               \
        if (!tool_find(tool, sizeof tool)) {                                                                           \
            CHECK(!"fwpt tool present");                                                                               \
            return check_summary(name);                                                                                \
        }                                                                                                              \
    } while (0)
/* In a test case: the same, the case ending there. */
#define TOOL_FIND_OR_RETURN(tool)                                                                                      \
    do {                                                                                                               \
        if (!tool_find(tool, sizeof tool)) {                                                                           \
            CHECK(!"fwpt tool present");                                                                               \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

/* `TOOL ARGS` with stderr (and stdout unless stdout_null) on a new pseudo-terminal, FWPT_PROGRESS_DELAY_MS set to
 * delay_ms (NULL: unset): what the terminal got, NUL-terminated in out (cap bytes), and the wait status. */
size_t run_on_pty(const char *tool, const char *args, int stdout_null, const char *delay_ms, char *out, size_t cap,
                  int *status);

/* `fwpt CMD ARGS 2>&1` into out (NUL-terminated, at most cap - 1 bytes); returns the exit status,
 * -1 if it could not run or did not exit. */
int tool_run(const char *cmd, const char *args, char *out, size_t cap);

/* The tool's input and output files: write_file writes n bytes to path (a failure ends the test with
 * status 1); slurp reads a whole file into malloc'd memory (*n its size), NULL if it cannot be opened. */
void write_file(const char *path, const void *data, size_t n);
char *slurp(const char *path, size_t *n);

/* A generated program saved as a \fwpt\ directory: DIR/trace.pt, DIR/img-BASE.bin and a DIR/sideband.json
 * naming the one image "Prog". save_program_open writes the trace and the image and leaves sideband.json to the
 * caller: it returns it opened for writing. A file that cannot be written ends the test with status 1. */
struct progen;
void save_program(const char *dir, const struct progen *p);
FILE *save_program_open(const char *dir, const struct progen *p);

#endif
