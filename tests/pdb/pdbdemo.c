/* pdbdemo: a tiny UEFI application built by clang and lld-link with a PDB (tests/pdb.mk), the image the PDB path
 * of the resolver is tested on (tests/unit/test_symbols_pdb.c). No gnu-efi: the entry takes the image handle and
 * the system table as opaque pointers (the UEFI specification's EFI_IMAGE_ENTRY_POINT, Microsoft x64 calling
 * convention: clang's default for a Windows target) and returns EFI_SUCCESS after calling the functions below.
 * scramble() is `static inline` and inlined at -O2 (CodeView S_INLINESITE records); helpers are noinline so each
 * has its own S_GPROC32/S_LPROC32. Built twice: -DPDBDEMO_CHANGED changes one function (another build, another
 * PDB signature). */
typedef unsigned long long u64;

volatile u64 pdbdemo_sink; /* keeps the results alive */

static inline u64 scramble(u64 x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

__attribute__((noinline)) u64 pdbdemo_leaf(u64 x)
{
    return scramble(x) + 3;
}

__attribute__((noinline)) static u64 sum_leaves(u64 x, unsigned n)
{
    u64 s = 0;
    for (unsigned i = 0; i < n; i++)
        s += pdbdemo_leaf(x + i);
    return s;
}

__attribute__((noinline)) u64 pdbdemo_walk(u64 n)
{
#ifdef PDBDEMO_CHANGED
    return sum_leaves(n, 5) + scramble(n);
#else
    return sum_leaves(n, 4) ^ scramble(n);
#endif
}

__attribute__((noinline)) static u64 countdown(u64 n)
{
    u64 steps = 0;
    while (n > 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

u64 efi_main(void *image_handle, void *system_table)
{
    u64 seed = (u64)image_handle ^ (u64)system_table;
    pdbdemo_sink = pdbdemo_walk(seed & 0xff);
    pdbdemo_sink = countdown(27 + (seed & 3));
    return 0; /* EFI_SUCCESS */
}
