/* fwpt — minimal test harness for host tests. Each test binary ends with
 * "NAME: N passed, N failed" and exits non-zero on any failure. */
#ifndef FWPT_TESTS_CHECK_H
#define FWPT_TESTS_CHECK_H

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static unsigned long check_passed, check_failed;

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (cond) {                                                                         \
            check_passed++;                                                                 \
        } else {                                                                            \
            check_failed++;                                                                 \
            if (check_failed <= 50)                                                         \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
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
                fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (0x%llx != 0x%llx)\n",    \
                        __FILE__, __LINE__, #a, #b, check_a_, check_b_);                    \
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
                fprintf(stderr, "%s:%d: CHECK_STR failed: %s == %s (\"%s\" != \"%s\")\n",   \
                        __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",         \
                        check_b_ ? check_b_ : "(null)");                                    \
        }                                                                                   \
    } while (0)

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
