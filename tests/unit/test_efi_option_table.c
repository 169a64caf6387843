/* The EFI app's NAME=VALUE options (efi/options.c's table, compiled in here): each row's value read into its
 * field, its range ends accepted and refused, and the refusal naming the option and the value exactly. */
#include "tests/check.h"
#include "efi/options.c"

static struct fwpt_efi_options o;
static char err[200];

static int parse(const char *s)
{
    fwpt_options_default(&o);
    return fwpt_options_parse(s, strlen(s), false, &o, err, sizeof err);
}

/* s is refused with exactly the message msg */
static void refused(const char *s, const char *msg)
{
    CHECK_EQ(parse(s), -1);
    CHECK_STR(err, msg);
}

TEST(sizes)
{
    CHECK_EQ(parse("size=4M region=64K"), 0);
    CHECK_EQ(o.buffer_size, 4u << 20);
    CHECK_EQ(o.region_size, 64u << 10);
    refused("size=0", "bad size in 'size=0' (e.g. size=4M)");
    refused("size=x", "bad size in 'size=x' (e.g. size=4M)");
    refused("region=0", "bad size in 'region=0' (e.g. region=64K)");
    refused("region=", "bad size in 'region=' (e.g. region=64K)");
}

TEST(field4)
{
    CHECK_EQ(parse("mtc=0 cyc=15 psb=7"), 0);
    CHECK_EQ(o.mtc, 0);
    CHECK_EQ(o.cyc, 15);
    CHECK_EQ(o.psb, 7);
    refused("mtc=16", "bad value in 'mtc=16' (MTCFreq 0..15)");
    refused("cyc=16", "bad value in 'cyc=16' (CycThresh 0..15)");
    refused("psb=-1", "bad value in 'psb=-1' (PSBFreq 0..15)");
}

TEST(counts)
{
    CHECK_EQ(parse("progress=3600 steps=1 listing=all"), 0);
    CHECK_EQ(o.progress, 3600);
    CHECK_EQ(o.steps, 1);
    CHECK_EQ(o.listing, UINT64_MAX);
    CHECK_EQ(parse("progress=0 listing=0"), 0);
    CHECK_EQ(o.progress, 0);
    CHECK_EQ(o.listing, 0);
    refused("progress=3601", "bad count in 'progress=3601' (progress=SECONDS, 0..3600)");
    refused("steps=0", "bad count in 'steps=0' (steps=N, at least 1)");
    refused("listing=some", "bad count in 'listing=some' (listing=N or listing=all)");
}

TEST(filter_dir_backend_profile)
{
    CHECK_EQ(parse("filter=1000-1fff out=/run/1/ backend=soft profile=skylake"), 0);
    CHECK_EQ(o.filter, FWPT_FILTER_RANGE);
    CHECK_EQ(o.filter_a, 0x1000);
    CHECK_EQ(o.filter_b, 0x1fff);
    CHECK_STR(o.out_dir, "\\run\\1");
    CHECK_EQ(o.backend, FWPT_BACKEND_SOFT);
    CHECK_STR(o.profile, "skylake");
    CHECK_EQ(parse("filter=target backend=hw"), 0);
    CHECK_EQ(o.filter, FWPT_FILTER_TARGET);
    CHECK_EQ(o.backend, FWPT_BACKEND_HW);
    refused("filter=2-1", "bad filter 'filter=2-1' (filter=target or filter=A-B, hex, A <= B)");
    refused("out=", "empty directory in 'out=' (out=DIR on the boot volume, e.g. out=\\run1)");
    refused("backend=sw", "unknown backend in 'backend=sw' (auto, hw or soft)");
    refused("profile=", "bad profile name in 'profile=' (profile=NAME, e.g. profile=skylake)");
    refused("profile=0123456789012345678901234567890123456789012345678901234567890123",
            "bad profile name in 'profile=0123456789012345678901234567890123456789012345678901234567890123' "
            "(profile=NAME, e.g. profile=skylake)");
}

TEST(msr_probes)
{
    CHECK_EQ(parse("rdmsr=0x570 wrmsr=0xffffffff:0x12"), 0);
    CHECK(o.have_rdmsr_probe && o.have_wrmsr_probe);
    CHECK_EQ(o.rdmsr_probe, 0x570);
    CHECK_EQ(o.wrmsr_probe, 0xffffffffu);
    CHECK_EQ(o.wrmsr_value, 0x12);
    refused("rdmsr=0x100000000", "bad MSR number in 'rdmsr=0x100000000' (rdmsr=MSR, a 32-bit number such as 0x570)");
    refused("wrmsr=0x100000000:1", "bad MSR write in 'wrmsr=0x100000000:1' (wrmsr=MSR:VALUE)");
    refused("wrmsr=0x570", "bad MSR write in 'wrmsr=0x570' (wrmsr=MSR:VALUE)");
}

TEST(every_row_is_an_option_word)
{
    /* a target's PATH is never one of them */
    for (size_t i = 0; i < N_VALUE_OPTIONS; i++) {
        char line[64];
        snprintf(line, sizeof line, "trace read-file %s1", value_options[i].name);
        CHECK_EQ(parse(line), -1);
        CHECK(strstr(err, "is an option, not a path") != NULL);
    }
    CHECK_EQ(N_VALUE_OPTIONS, 14);
}

TEST_MAIN("efi-option-table")
