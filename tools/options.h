/* fwpt host tool — the commands' options as tables: each option's name, its value, its help and where it goes,
 * and one parser that walks argv with such a table (fwpt flow, fwpt dump). */
#ifndef FWPT_TOOLS_OPTIONS_H
#define FWPT_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct fwpt_opt;

/* Takes option o (as given: name, "-j" for --jobs) with its value v into the command's options dst: 0, else the
 * exit status (the message said on stderr). v is NULL for an option without a value, and for one whose value is
 * missing when the command lets the option say so itself (fwpt_opt_cmd.missing_said false). */
typedef int (*fwpt_opt_set_fn)(void *dst, const struct fwpt_opt *o, const char *as_given, const char *v);

struct fwpt_opt {
    const char *name;  /* "--format" */
    const char *alias; /* "-q" for --quiet, or NULL */
    const char *value; /* what its value is, as messages say it ("'text' or 'jsonl'"); NULL: it takes none */
    bool eq;           /* the value may also follow '=' in the same argument (--format=jsonl) */
    size_t off;        /* where it goes: the offset in dst of the bool a flag (no value, no set) switches on, or of
                        * the field its set function fills (fwpt_opt_set_str) */
    fwpt_opt_set_fn set;
    const char *help;  /* its lines of the usage, each ending in '\n' (NULL: said with another option's) */
};

/* A command's table of n options. missing_said: a value option given last is refused by the parser ("CMD: OPT:
 * expected VALUE, got nothing (it is the last argument)", exit status 2) instead of set with NULL. */
struct fwpt_opt_cmd {
    const char *cmd;     /* "fwpt flow": the messages' prefix */
    const char *operand; /* "DIR|FILE": the messages' name of the one operand */
    const struct fwpt_opt *opts;
    size_t n;
    bool missing_said;
    void (*usage)(FILE *f); /* the whole usage (--help on stdout, an unknown option's on stderr) */
    bool more;           /* operands after the first go to the struct fwpt_opt_list at more_off in dst */
    size_t more_off;
};

/* The parse of argv[1..argc) goes on to the run: fwpt_opt_parse's value then. */
#define FWPT_OPT_RUN (-1)

/* Walks argv: --help and -h print the usage (exit status 0), an option of the table is set, another word that
 * begins with '-' (not "-" alone) is an unknown option (exit status 2, with the usage), and the one operand goes
 * to *operand (a second one: exit status 2, unless the command takes more: c->more). FWPT_OPT_RUN, or the exit status. */
int fwpt_opt_parse(const struct fwpt_opt_cmd *c, int argc, char **argv, void *dst, const char **operand);
/* The option named a (exactly: no "=VALUE"), or NULL. */
const struct fwpt_opt *fwpt_opt_find(const struct fwpt_opt_cmd *c, const char *a);
/* A set function for an option whose value is kept as given: the const char * at o->off in dst. */
int fwpt_opt_set_str(void *dst, const struct fwpt_opt *o, const char *as_given, const char *v);
/* A repeatable option's values, as given, in the order given (v malloc'd; NULL while there is none). */
struct fwpt_opt_list {
    const char **v;
    size_t n;
};
/* A set function for a repeatable option: v appended to the struct fwpt_opt_list at o->off in dst. */
int fwpt_opt_add_str(void *dst, const struct fwpt_opt *o, const char *as_given, const char *v);
/* The help lines of the options, in the table's order. */
void fwpt_opt_help(const struct fwpt_opt_cmd *c, FILE *f);

#endif
