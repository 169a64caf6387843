/* fwpt — minimal test harness for host tests.
 *
 * Named cases: a test file defines its cases with TEST(name) { ... } and ends with TEST_MAIN("suite") (or calls
 * check_run(argc, argv, "suite") from its own main). Run with no argument, the binary runs every case in the
 * order written; given arguments, only the cases whose name matches one of them (a name or a shell pattern:
 * `build/tests/test_x 'tnt_*' psb_plus`); `--list` prints the names. Each case reports one line
 * ("ok NAME (N checks)" or "FAIL NAME: N of M checks failed"); a failed check names its case, file and line.
 * A case must not depend on another having run: what several share is set up by a helper each one calls.
 * Every test binary ends with "NAME: N passed, N failed" (checks, totalled by tests/run.sh) and exits non-zero on
 * any failure, on a pattern that matches no case, and on a case that checked nothing. */
#ifndef FWPT_TESTS_CHECK_H
#define FWPT_TESTS_CHECK_H

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static unsigned long check_passed, check_failed;
static const char *check_case_name = ""; /* the case running: named in every failure */

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (cond) {                                                                         \
            check_passed++;                                                                 \
        } else {                                                                            \
            check_failed++;                                                                 \
            if (check_failed <= 50)                                                         \
                fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", __FILE__, __LINE__, check_case_name, #cond);   \
        }                                                                                   \
    } while (0)

#define CHECK_EQ(a, b)                                                                      \
    do {                                                                                    \
        unsigned long long check_a_ = (unsigned long long)(a), check_b_ = (unsigned long long)(b); \
        if (check_a_ == check_b_) {                                                         \
            check_passed++;                                                                 \
        } else {                                                                            \
            check_failed++;                                                                 \
            if (check_failed <= 50)                                                         \
                fprintf(stderr, "%s:%d: [%s] CHECK_EQ failed: %s == %s (0x%llx != 0x%llx)\n", \
                        __FILE__, __LINE__, check_case_name, #a, #b, check_a_, check_b_);   \
        }                                                                                   \
    } while (0)

#define CHECK_STR(a, b)                                                                     \
    do {                                                                                    \
        const char *check_a_ = (a), *check_b_ = (b);                                        \
        if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) {                      \
            check_passed++;                                                                 \
        } else {                                                                            \
            check_failed++;                                                                 \
            if (check_failed <= 50)                                                         \
                fprintf(stderr, "%s:%d: [%s] CHECK_STR failed: %s == %s (\"%s\" != \"%s\")\n", \
                        __FILE__, __LINE__, check_case_name, #a, #b, check_a_ ? check_a_ : "(null)", \
                        check_b_ ? check_b_ : "(null)");                                    \
        }                                                                                   \
    } while (0)

/* ---- named cases ---- */
#define CHECK_MAX_CASES 1024
struct check_case {
    const char *name;
    void (*fn)(void);
    const char *file;
    int line;
};
static struct check_case check_cases[CHECK_MAX_CASES];
static unsigned check_ncases;

static inline void check_register(const char *name, void (*fn)(void), const char *file, int line)
{
    if (check_ncases == CHECK_MAX_CASES) {
        fprintf(stderr, "%s:%d: more than %d cases in one test\n", file, line, CHECK_MAX_CASES);
        exit(2);
    }
    check_cases[check_ncases++] = (struct check_case){name, fn, file, line};
}

/* TEST(name) { body }: a case, registered before main() runs, in the order of the file. */
#define TEST(name)                                                                          \
    static void check_case_##name(void);                                                    \
    __attribute__((constructor)) static void check_register_##name(void)                    \
    {                                                                                       \
        check_register(#name, check_case_##name, __FILE__, __LINE__);                       \
    }                                                                                       \
    static void check_case_##name(void)

static inline int check_summary(const char *name);

static inline int check_matches(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (!fnmatch(argv[i], name, 0))
            return 1;
    return 0;
}

/* Runs the cases argv names (all without arguments); returns main's exit status. */
static inline int check_run(int argc, char **argv, const char *suite)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (unsigned i = 0; i < check_ncases; i++)
            printf("%s\n", check_cases[i].name);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        unsigned n = 0;
        for (unsigned c = 0; c < check_ncases; c++)
            n += !fnmatch(argv[i], check_cases[c].name, 0);
        if (!n) {
            fprintf(stderr, "%s: no case matches '%s' (--list names them)\n", suite, argv[i]);
            check_failed++;
        }
    }
    unsigned ran = 0, failed_cases = 0;
    for (unsigned c = 0; c < check_ncases; c++) {
        const struct check_case *k = &check_cases[c];
        if (!check_matches(k->name, argc, argv))
            continue;
        unsigned long p0 = check_passed, f0 = check_failed;
        check_case_name = k->name;
        k->fn();
        check_case_name = "";
        unsigned long p = check_passed - p0, f = check_failed - f0;
        ran++;
        if (!p && !f) {
            fprintf(stderr, "%s:%d: [%s] the case checked nothing\n", k->file, k->line, k->name);
            check_failed++;
            f = 1;
        }
        if (f) {
            failed_cases++;
            printf("FAIL %s: %lu of %lu checks failed\n", k->name, f, p + f);
        } else {
            printf("ok   %s (%lu check%s)\n", k->name, p, p == 1 ? "" : "s");
        }
    }
    printf("%s: %u of %u cases run, %u failed\n", suite, ran, check_ncases, failed_cases);
    return check_summary(suite);
}

/* A file's main(): its cases, as the command line picks them. */
#define TEST_MAIN(suite)                                                                    \
    int main(int argc, char **argv) { return check_run(argc, argv, suite); }

static inline int check_summary(const char *name)
{
    printf("%s: %lu passed, %lu failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* Directory of the CPUID data: tests/data (a copy of shared/data, so that a checkout alone passes);
 * FWPT_DATA overrides. Tests run from the checkout's top directory. */
static inline const char *check_data_dir(void)
{
    const char *d = getenv("FWPT_DATA");
    return d && *d ? d : "tests/data";
}

#endif
