/* A small EFI application whose trace the names tests read with its own symbols (tests/qemu/test_names.sh, built
 * with -g: build/names.so keeps the symbols and DWARF, build/names.efi is its PE image). Functions call each other
 * four deep (efi_main, run_checks, checksum_table, checksum_block), mix is inlined into checksum_block's loop at
 * -O2, and that loop makes checksum_block the top of the profile. It returns 0x4e4d when the sum is the one written
 * here, so the status StartImage hands back proves the code ran as compiled; any other sum returns EFI_ABORTED. */
#include <efi.h>

#define NAMES_SUM 0x9250c5e67ae05446ull /* run_checks(96), computed apart from this code */
#define NAMES_STATUS 0x4e4d

/* read at run time, so the compiler cannot fold the calls into a constant */
static volatile UINT64 names_rounds = 96;

/* small, one caller: GCC inlines it at -O2 (DWARF: an inlined subroutine inside checksum_block) */
static inline UINT64 mix(UINT64 x)
{
    x ^= x >> 7;
    return x * 0x9e3779b97f4a7c15ull;
}

/* noipa: a real call with its own symbol (no clone, no inlining), so the call tree has these frames */
__attribute__((noipa)) static UINT64 checksum_block(UINT64 base, UINT64 n)
{
    UINT64 acc = 0;
    for (UINT64 i = 0; i < n; i++)
        acc += mix(base + i);
    return acc;
}

__attribute__((noipa)) static UINT64 checksum_table(UINT64 n)
{
    return checksum_block(0, n) ^ checksum_block(n, n / 2);
}

__attribute__((noipa)) static UINT64 run_checks(UINT64 n)
{
    return checksum_table(n) + checksum_table(n / 4);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
    (void)image;
    (void)st;
    return run_checks(names_rounds) == NAMES_SUM ? (EFI_STATUS)NAMES_STATUS : EFI_ABORTED;
}
