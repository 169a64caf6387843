/* fwpt_printf (arch/text): every conversion of its subset against the C library's snprintf with
 * the same format and arguments (differential), over edge values; then what it does outside the
 * subset (printed as it stands) and that literal text between conversions is kept exactly. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/text.h"
#include "tests/check.h"

static char out[512];
static struct fwpt_bufsink bs;
static struct fwpt_sink sink;
static const char *reset(void)
{
    sink = fwpt_bufsink_init(&bs, out, sizeof out - 1);
    return out;
}
static const char *done(void)
{
    out[bs.len] = 0;
    return out;
}

/* P(FMT, ARGS...): fwpt_printf and snprintf must print the same bytes */
#define P(...)                                                                                   \
    do {                                                                                         \
        char want[512];                                                                          \
        snprintf(want, sizeof want, __VA_ARGS__);                                                \
        reset();                                                                                 \
        fwpt_printf(&sink, __VA_ARGS__);                                                         \
        CHECK_STR(done(), want);                                                                 \
        CHECK_EQ(bs.overflow, 0);                                                                \
    } while (0)

/* Text without conversions, %s, %c and %%: copied as snprintf copies it. */
TEST(literal_text_strings_and_chars)
{
    P("plain text, no conversions\n");
    P("%s", "");
    P("[%s] [%s]", "a", "two words");
    P("%c%c%c", 'f', 'w', '\n');
    P("%%d is not a conversion here: 100%%");
}

/* The 32-bit conversions and widths over edge values. */
TEST(unsigned_32_bit_edges)
{
    static const unsigned u32[] = {0, 1, 9, 10, 255, 4096, 0x7fffffffu, 0x80000000u, UINT_MAX};
    for (unsigned i = 0; i < sizeof u32 / sizeof *u32; i++) {
        P("%u|%x|%08x|%02x|%016x", u32[i], u32[i], u32[i], u32[i], u32[i]);
        P("%d", (int)u32[i]);
    }
}

/* The long and long long conversions over edge values. */
TEST(unsigned_64_bit_edges)
{
    static const unsigned long long u64[] = {0, 1, 0xfffull, 0xffffffffull, 0x100000000ull, 0x8000000000000000ull,
                                             ULLONG_MAX, 18446744073709551557ull, 1234567890123ull};
    for (unsigned i = 0; i < sizeof u64 / sizeof *u64; i++) {
        P("%llu %llx %016llx %04llx", u64[i], u64[i], u64[i], u64[i]);
        P("%lu %lx %012lx", (unsigned long)u64[i], (unsigned long)u64[i], (unsigned long)u64[i]);
        P("%lld %ld", (long long)u64[i], (long)u64[i]);
    }
}

/* The signed extremes. */
TEST(signed_extremes)
{
    P("%d %d %d %d", INT_MIN, -1, 0, INT_MAX);
    P("%lld %lld", LLONG_MIN, LLONG_MAX);
}

/* Lines as fwpt prints them: literal text between conversions kept exactly. */
TEST(mixed_lines_as_fwpt_prints)
{
    P("trace: %lu bytes captured in %u of %u regions; IA32_RTIT_STATUS 0x%lx\n", 4096ul, 1u, 2u, 0x20ul);
    P("%s/%u/%u (family 0x%x model 0x%x, CPUID.1:EAX %08x)", "6", 94u, 3u, 6u, 0x5eu, 0x506e3u);
}

/* Outside the subset: printed as it stands, nothing consumed. */
TEST(outside_subset_printed_as_is)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
    reset();
    fwpt_printf(&sink, "a%qb%");
    CHECK_STR(done(), "a%qb%");
    reset();
    fwpt_printf(&sink, "x%0");
    CHECK_STR(done(), "x%0");
    reset();
    fwpt_printf(&sink, "%5u|%u", 7u);
    CHECK_STR(done(), "%5u|7");
#pragma GCC diagnostic pop
}

/* A full buffer: the overflow is counted, never written past the end. */
TEST(full_buffer_counts_overflow)
{
    char small[4];
    struct fwpt_bufsink sb;
    struct fwpt_sink s4 = fwpt_bufsink_init(&sb, small, sizeof small);
    fwpt_printf(&s4, "%u-%s", 12345u, "ab");
    CHECK_EQ(sb.len, 4);
    CHECK_EQ(sb.overflow, 4);
    CHECK(small[0] == '1' && small[3] == '4');
}

TEST_MAIN("text")
