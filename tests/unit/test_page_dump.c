/* fwpt tests — the page-dump reader of the bench against libxdc (tests/common/page_dump.c): libxdc's test data keeps
 * code as FILE.addr (one 64-bit page address a page; low bits set: not mapped) and the pages in the same order.
 * Pages sorted and joined into runs, a page listed twice kept once (its first copy), unmapped words skipped, reads
 * by address, and every malformed input refused naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "tests/common/page_dump.h"
#include "tests/common/scratch.h"
#include "tests/common/tool_run.h"

static char addr_path[4200], dump_path[4200];

/* words[i] and page i of the dump, filled with (uint8_t)(i + 1); extra_pages more pages than words */
static void write_dump(const uint64_t *words, size_t n, size_t dump_pages)
{
    const char *d = scratch_dir("test_page_dump");
    snprintf(addr_path, sizeof addr_path, "%s/data.addr", d);
    snprintf(dump_path, sizeof dump_path, "%s/data", d);
    static uint8_t a[64 * 8], pages[64 * PAGE_DUMP_PAGE];
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            a[i * 8 + (size_t)k] = (uint8_t)(words[i] >> (8 * k));
    for (size_t i = 0; i < dump_pages; i++)
        memset(pages + i * PAGE_DUMP_PAGE, (int)(i + 1), PAGE_DUMP_PAGE);
    write_file(addr_path, a, n * 8);
    write_file(dump_path, pages, dump_pages * PAGE_DUMP_PAGE);
}

/* out of order, one unmapped, one listed twice, two runs */
static const uint64_t words[] = {0x402000, 0x400000, 0x401000, 0x500001, 0x400000, 0x7ffff7a00000};

TEST(runs_sorted_joined)
{
    write_dump(words, 6, 6);
    struct page_dump d;
    CHECK_EQ(page_dump_load("test", addr_path, dump_path, &d), 0);
    CHECK_EQ(d.n, 2);
    CHECK_EQ(d.pages, 4);
    CHECK_EQ(d.unmapped, 1);
    CHECK_EQ(d.duplicates, 1);
    CHECK_EQ(d.npages_file, 6);
    if (d.n == 2) {
        CHECK_EQ(d.runs[0].base, 0x400000);
        CHECK_EQ(d.runs[0].size, 0x3000);
        CHECK_EQ(d.runs[0].code[0], 2);      /* 0x400000: word 1 (word 4, the same page again, dropped) */
        CHECK_EQ(d.runs[0].code[0x1fff], 3); /* 0x401fff: word 2 */
        CHECK_EQ(d.runs[0].code[0x2000], 1); /* 0x402000: word 0 */
        CHECK_EQ(d.runs[1].base, 0x7ffff7a00000);
        CHECK_EQ(d.runs[1].size, 0x1000);
        CHECK_EQ(d.runs[1].code[0xfff], 6);
    }
    const uint64_t want_addr[] = {0x402000, 0x400000, 0x401000, UINT64_MAX, UINT64_MAX, 0x7ffff7a00000};
    for (size_t i = 0; i < 6 && d.page_addr; i++)
        CHECK_EQ(d.page_addr[i], want_addr[i]);
    page_dump_free(&d);
    CHECK(d.runs == NULL && d.n == 0);
}

TEST(read_by_address)
{
    write_dump(words, 6, 6);
    struct page_dump d;
    CHECK_EQ(page_dump_load("test", addr_path, dump_path, &d), 0);
    const uint8_t *b = NULL;
    CHECK_EQ(page_dump_read(&d, 0x400000, &b), 0x3000);
    CHECK(b && b[0] == 2);
    CHECK_EQ(page_dump_read(&d, 0x402fff, &b), 1);
    CHECK(b && b[0] == 1);
    CHECK_EQ(page_dump_read(&d, 0x401800, &b), 0x1800);
    CHECK(b && b[0] == 3);
    CHECK_EQ(page_dump_read(&d, 0x7ffff7a00010, &b), 0xff0);
    CHECK(b && b[0] == 6);
    CHECK_EQ(page_dump_read(&d, 0x403000, &b), 0);       /* just past the first run */
    CHECK_EQ(page_dump_read(&d, 0x3fffff, &b), 0);       /* just before it */
    CHECK_EQ(page_dump_read(&d, 0x500000, &b), 0);       /* the unmapped page */
    CHECK_EQ(page_dump_read(&d, 0x7ffff7a01000, &b), 0); /* past the last */
    CHECK_EQ(page_dump_read(&d, 0, &b), 0);
    page_dump_free(&d);
}

TEST(refusals)
{
    struct page_dump d;
    write_dump(words, 6, 5); /* a page short */
    CHECK_EQ(page_dump_load("test", addr_path, dump_path, &d), -1);
    CHECK(d.runs == NULL && d.page_addr == NULL && d.n == 0);
    write_dump(words, 6, 6);
    write_file(addr_path, "\0\0\0\0\0\0\0\0\0\0\0\0", 12); /* not whole words */
    CHECK_EQ(page_dump_load("test", addr_path, dump_path, &d), -1);
    const uint64_t unmapped[] = {0x400001, 0x401fff};
    write_dump(unmapped, 2, 2);
    CHECK_EQ(page_dump_load("test", addr_path, dump_path, &d), -1);
    write_dump(words, 6, 6);
    char missing[4300];
    snprintf(missing, sizeof missing, "%s.none", dump_path);
    CHECK_EQ(page_dump_load("test", addr_path, missing, &d), -1);
    snprintf(missing, sizeof missing, "%s.none", addr_path);
    CHECK_EQ(page_dump_load("test", missing, dump_path, &d), -1);
    CHECK(d.runs == NULL && d.n == 0);
}

int main(int argc, char **argv)
{
    int rc = check_run(argc, argv, "test_page_dump");
    scratch_remove("test_page_dump");
    return rc;
}
