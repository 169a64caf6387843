/* fwpt tests — code saved as a page dump, the way libxdc's test data keeps it (nyx-fuzz/libxdc_experiments,
 * test_data/NAME): FILE.addr holds one little-endian 64-bit word per page (the page's address; low 12 bits set:
 * the page was not mapped, no bytes), FILE.dump (or FILE) the pages' 4 KiB in the same order. The bench against
 * libxdc (tests/bench/peers.c) reads those traces' code through it; nothing of that data is in the repository. */
#ifndef FWPT_TESTS_PAGE_DUMP_H
#define FWPT_TESTS_PAGE_DUMP_H

#include <stddef.h>
#include <stdint.h>

#define PAGE_DUMP_PAGE 4096u

/* The mapped pages as runs of consecutive addresses, sorted by address: each run's bytes copied into code. A page
 * listed twice keeps its first copy (as libxdc's page cache does). */
struct page_run {
    uint64_t base;
    uint8_t *code;     /* malloc'd, size bytes */
    size_t size;
};
struct page_dump {
    struct page_run *runs;
    size_t n;
    size_t pages;      /* mapped pages kept */
    size_t unmapped;   /* words with low bits set */
    size_t duplicates; /* pages listed again (skipped) */
    /* the pages in file order, for a reader of the dump file itself (libipt's image section cache) */
    uint64_t *page_addr; /* page_addr[i]: address of the dump's page i; UINT64_MAX where not kept */
    size_t npages_file;
};

/* Reads addr_path and dump_path into *d. 0, or -1 with a line on stderr prefixed with who naming the file and
 * what is wrong (cannot be read, the .addr size not a multiple of 8, fewer pages in the dump than words, no
 * mapped page), and nothing to free. */
int page_dump_load(const char *who, const char *addr_path, const char *dump_path, struct page_dump *d);
void page_dump_free(struct page_dump *d);

/* fwpt_flow_init's read (ctx: a struct page_dump): the run holding ip, by binary search. */
size_t page_dump_read(void *ctx, uint64_t ip, const uint8_t **bytes);

#endif
