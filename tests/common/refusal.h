/* fwpt tests — a row of a table of refused input: what is given (a command line's arguments, an option's value)
 * and what the refusal must say. The tests of bad options and values each loop over such a table. */
#ifndef FWPT_TESTS_REFUSAL_H
#define FWPT_TESTS_REFUSAL_H

struct refusal {
    const char *args, *says;
};

#endif
