/* fwpt — instructions per second of fwpt_insn_decode vs Zydis' ZydisDecoderDecodeInstruction
 * (minimal mode, no operands) over the same real code: a linear sweep of /usr/bin .text sections. */
#include <dirent.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/oracle/insn_oracle.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint8_t *code;
static size_t code_len, code_cap;

static void add_elf_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        fclose(fp);
        return;
    }
    uint8_t *f = malloc((size_t)st.st_size);
    size_t n = f ? fread(f, 1, (size_t)st.st_size, fp) : 0;
    fclose(fp);
    const Elf64_Ehdr *eh = (const void *)f;
    if (n == (size_t)st.st_size && memcmp(f, ELFMAG, SELFMAG) == 0 && f[EI_CLASS] == ELFCLASS64 &&
        eh->e_machine == EM_X86_64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= n) {
        for (unsigned k = 0; k < eh->e_shnum; k++) {
            const Elf64_Shdr *sh = (const void *)(f + eh->e_shoff + k * sizeof(Elf64_Shdr));
            if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR) ||
                sh->sh_offset + sh->sh_size > n)
                continue;
            if (code_len + sh->sh_size > code_cap) {
                code_cap = (code_len + sh->sh_size) * 2;
                code = realloc(code, code_cap);
            }
            memcpy(code + code_len, f + sh->sh_offset, sh->sh_size);
            code_len += sh->sh_size;
        }
    }
    free(f);
}

int main(void)
{
    static const char *const bins[] = {"/usr/bin/bash", "/usr/bin/gdb", "/usr/bin/python3",
                                       "/usr/bin/qemu-system-x86_64", "/usr/bin/ld.bfd", "/usr/bin/clang",
                                       "/usr/bin/git", "/usr/bin/perl"};
    for (size_t k = 0; k < sizeof bins / sizeof bins[0] && code_len < (16u << 20); k++)
        add_elf_text(bins[k]);
    if (code_len < (1u << 20)) {
        fprintf(stderr, "bench_insn: less than 1 MB of code found\n");
        return 1;
    }
    if (code_len > (16u << 20))
        code_len = 16u << 20;

    ZydisDecoder zd;
    if (zy_init(&zd, FWPT_MODE_64, 1) != 0)
        return 1;

    /* Same walk for both: advance by the decoded length, by 1 where the decoder refuses. Passes
     * alternate so that load from other processes on the machine hits both alike. */
    unsigned long fw_insns = 0, zy_insns = 0, fw_sum = 0, zy_sum = 0;
    double fw_time = 0, zy_time = 0, t0;
    int reps = 0, zreps = 0;
    while (fw_time + zy_time < 3.0) {
        t0 = now();
        for (size_t off = 0; off < code_len;) {
            struct fwpt_insn in;
            if (fwpt_insn_decode(code + off, code_len - off, FWPT_MODE_64, &in) == FWPT_OK) {
                off += in.size;
                fw_sum += in.iclass;
                fw_insns++;
            } else {
                off++;
            }
        }
        fw_time += now() - t0;
        reps++;
        t0 = now();
        for (size_t off = 0; off < code_len;) {
            ZydisDecodedInstruction z;
            if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&zd, NULL, code + off, code_len - off, &z))) {
                off += z.length;
                zy_sum += z.mnemonic;
                zy_insns++;
            } else {
                off++;
            }
        }
        zy_time += now() - t0;
        zreps++;
    }

    double fw_rate = fw_insns / fw_time, zy_rate = zy_insns / zy_time;
    printf("bench_insn: %zu code bytes, %lu instructions per pass (fwpt) / %lu (zydis)\n", code_len,
           fw_insns / reps, zy_insns / zreps);
    printf("bench_insn: fwpt_insn_decode %.1f M insn/s, Zydis minimal %.1f M insn/s, ratio %.1fx"
           " (checksums %lu %lu)\n",
           fw_rate / 1e6, zy_rate / 1e6, fw_rate / zy_rate, fw_sum % 1000, zy_sum % 1000);
    free(code);
    return 0;
}
