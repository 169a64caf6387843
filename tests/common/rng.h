/* The tests' pseudo-random numbers: xorshift64 (Marsaglia, shifts 13/7/17) on a caller-held state, so each
 * test keeps its own seed and its sequence is reproducible. Header-only. */
#ifndef FWPT_TESTS_RNG_H
#define FWPT_TESTS_RNG_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#endif
