/* Host test of the EFI app's option parser (efi/options.c is pure C: compiled in here). */
#include "tests/check.h"
#include "efi/options.c"
#include "tests/common/refusal.h"

static int parse(const char *s, bool skip, struct fwpt_efi_options *o, char *err)
{
    fwpt_options_default(o);
    return fwpt_options_parse(s, strlen(s), skip, o, err, 160);
}

static struct fwpt_efi_options o;
static char err[160];

/* defaults */
TEST(defaults)
{
    CHECK_EQ(parse("", false, &o, err), 0);
    CHECK(!o.trace && !o.shutdown && !o.help && !o.quiet && !o.ring);
    CHECK_EQ(o.mtc, -1);
    CHECK_EQ(o.cyc, -1);
    CHECK_EQ(o.psb, -1);
    CHECK_STR(o.out_dir, "\\fwpt");
    CHECK_EQ(o.backend, FWPT_BACKEND_AUTO); /* Intel PT when usable, else the software tracer */
    CHECK_EQ(o.filter, FWPT_FILTER_NONE);
    CHECK_EQ(o.listing, 1000000);
    CHECK_EQ(o.progress, 5);
}

/* a full line, with the shell's image name skipped */
TEST(full_line_with_image_name_skipped)
{
    CHECK_EQ(parse("fs0:\\EFI\\fwpt.efi trace read-file \\fwpt\\fwpt.cfg size=8M region=64K ring "
                   "filter=target tsc mtc=3 cyc=0x2 psb=5 ptwrite noretcomp out=/run1/ quiet shutdown "
                   "backend=soft profile=skylake verify",
                   true, &o, err),
             0);
    CHECK_STR(err, "");
    CHECK(o.trace);
    CHECK_EQ(o.target, FWPT_TARGET_READ_FILE);
    CHECK_STR(o.target_path, "\\fwpt\\fwpt.cfg");
    CHECK_EQ(o.buffer_size, 8ull << 20);
    CHECK_EQ(o.region_size, 64ull << 10);
    CHECK(o.ring && o.tsc && o.ptwrite && o.noretcomp && o.quiet && o.shutdown && o.verify);
    CHECK_EQ(o.filter, FWPT_FILTER_TARGET);
    CHECK_EQ(o.mtc, 3);
    CHECK_EQ(o.cyc, 2);
    CHECK_EQ(o.psb, 5);
    CHECK_STR(o.out_dir, "\\run1");
    CHECK_EQ(o.backend, FWPT_BACKEND_SOFT);
    CHECK_STR(o.profile, "skylake");
}

/* image name: only skipped when asked and when it looks like one */
TEST(image_name_skipped_only_when_asked)
{
    CHECK_EQ(parse("FWPT.EFI shutdown", true, &o, err), 0);
    CHECK(o.shutdown);
    CHECK_EQ(parse("fwpt.efi shutdown", false, &o, err), -1);
    CHECK_STR(err, "unknown option 'fwpt.efi' (see 'help')");
    CHECK_EQ(parse("shutdown help", true, &o, err), 0);
    CHECK(o.shutdown && o.help && !o.wait);
    CHECK_EQ(parse("wait", false, &o, err), 0);
    CHECK(o.wait && !o.shutdown);
}

/* what the parser takes for the image name: a path or a name ending in .efi, any case */
TEST(what_looks_like_an_image_name)
{
    CHECK(fwpt_options_is_image_name("FS0:\\EFI\\BOOT\\BOOTX64.EFI"));
    CHECK(fwpt_options_is_image_name("fwpt.efi"));
    CHECK(!fwpt_options_is_image_name("tsc"));
    CHECK(!fwpt_options_is_image_name("efi"));
    /* typed in the UEFI shell without ".efi": the command word is the image, not an option */
    CHECK(fwpt_options_is_image_name("fwpt"));
    CHECK(fwpt_options_is_image_name("FWPT"));
    CHECK(fwpt_options_is_image_name("BootX64"));
    CHECK(!fwpt_options_is_image_name("fwpt2"));
    CHECK_EQ(parse("fwpt trace memory-map shutdown", true, &o, err), 0);
    CHECK_EQ(o.target, FWPT_TARGET_MEMORY_MAP);
    CHECK(o.shutdown);
}

/* config file shape: comments and several lines */
TEST(config_file_comments_and_lines)
{
    CHECK_EQ(parse("# fwpt.cfg\r\ntrace memory-map # the map\n\n  stop shutdown\n#ring\n", false, &o, err), 0);
    CHECK_EQ(o.target, FWPT_TARGET_MEMORY_MAP);
    CHECK(!o.ring && o.shutdown);
}

/* every target by name */
TEST(every_target_by_name)
{
    for (unsigned t = 1; t < FWPT_TARGET_COUNT; t++) {
        char line[300];
        snprintf(line, sizeof line, "trace %s%s", fwpt_target_name((enum fwpt_target)t),
                 target_has_arg[t] ? " \\x.efi" : "");
        CHECK_EQ(parse(line, false, &o, err), 0);
        CHECK_EQ(o.target, t);
    }
    CHECK_STR(fwpt_target_name(FWPT_TARGET_GET_VARIABLE), "get-variable");
}

/* filters */
TEST(filter_ranges)
{
    CHECK_EQ(parse("filter=7f000000-7f0fffff", false, &o, err), 0);
    CHECK_EQ(o.filter, FWPT_FILTER_RANGE);
    CHECK_EQ(o.filter_a, 0x7f000000);
    CHECK_EQ(o.filter_b, 0x7f0fffff);
    CHECK_EQ(parse("filter=0x1000-0x2000", false, &o, err), 0);
    CHECK_EQ(o.filter_a, 0x1000);
    CHECK_EQ(o.filter_b, 0x2000);
}

/* how much of the flow flow.txt lists */
TEST(listing_progress_and_steps_counts)
{
    CHECK_EQ(parse("listing=250", false, &o, err), 0);
    CHECK_EQ(o.listing, 250);
    CHECK_EQ(parse("listing=0", false, &o, err), 0);
    CHECK_EQ(o.listing, 0);
    CHECK_EQ(parse("listing=all", false, &o, err), 0);
    CHECK_EQ(o.listing, UINT64_MAX);
    CHECK_EQ(parse("trace locate-handle backend=soft", false, &o, err), 0);
    CHECK_EQ(o.steps, 0); /* the default limit (FWPT_SOFT_MAX_STEPS) */
    CHECK_EQ(parse("progress=1", false, &o, err), 0);
    CHECK_EQ(o.progress, 1);
    CHECK_EQ(parse("progress=0", false, &o, err), 0);
    CHECK_EQ(o.progress, 0);
    CHECK_EQ(parse("steps=4000 backend=soft", false, &o, err), 0);
    CHECK_EQ(o.steps, 4000);
    CHECK_EQ(parse("backend=soft steps=0x10", false, &o, err), 0);
    CHECK_EQ(o.steps, 16);
}

/* auto may pick the software tracer: its settings are kept for that case */
TEST(auto_backend_keeps_soft_tracer_settings)
{
    CHECK_EQ(parse("trace locate-handle steps=4000 profile=tremont", false, &o, err), 0);
    CHECK_EQ(o.backend, FWPT_BACKEND_AUTO);
    CHECK_EQ(o.steps, 4000);
    CHECK_STR(o.profile, "tremont");
    CHECK_EQ(parse("backend=soft backend=auto", false, &o, err), 0);
    CHECK_EQ(o.backend, FWPT_BACKEND_AUTO);
    CHECK_EQ(parse("backend=hw", false, &o, err), 0);
    CHECK_EQ(o.backend, FWPT_BACKEND_HW);
}

/* the test-only word that calls the target above its allowed TPL: off unless named */
TEST(test_raise_tpl_off_unless_named)
{
    CHECK_EQ(parse("trace read-file \\fwpt\\fwpt.cfg backend=soft", false, &o, err), 0);
    CHECK(!o.test_raise_tpl);
    CHECK_EQ(parse("trace read-file \\fwpt\\fwpt.cfg test-raise-tpl", false, &o, err), 0);
    CHECK(o.test_raise_tpl);
    CHECK_STR(o.target_path, "\\fwpt\\fwpt.cfg");
}

/* MSR probes */
TEST(msr_probes)
{
    CHECK_EQ(parse("rdmsr=0x570 wrmsr=0x6e1:0x100000000", false, &o, err), 0);
    CHECK(o.have_rdmsr_probe && o.have_wrmsr_probe);
    CHECK_EQ(o.rdmsr_probe, 0x570);
    CHECK_EQ(o.wrmsr_probe, 0x6e1);
    CHECK_EQ(o.wrmsr_value, 0x100000000ull);
}

/* errors: -1 and a message that names the word */
TEST(refusals_name_the_word)
{
    static const struct refusal bad[] = {
        {"shutdown bogus", "unknown option 'bogus' (see 'help')"},
        {"trace", "'trace' needs a target (one of locate-handle, memory-map, allocate-pages, get-variable, "
                  "connect-all, read-file PATH, load-image PATH)"},
        {"trace nothing", "unknown trace target 'nothing' (one of locate-handle, memory-map, allocate-pages, "
                          "get-variable, connect-all, read-file PATH, load-image PATH)"},
        {"trace load-image", "'trace load-image' needs a PATH on the boot volume: nothing follows it"},
        /* the PATH forgotten: the next word is an option, not a file name */
        {"trace read-file shutdown", "'trace read-file' needs a PATH on the boot volume: 'shutdown' is an option, "
                                     "not a path (a file of that name: \\shutdown)"},
        {"trace load-image size=4M", "'trace load-image' needs a PATH on the boot volume: 'size=4M' is an option, "
                                     "not a path (a file of that name: \\size=4M)"},
        {"trace read-file trace", "'trace read-file' needs a PATH on the boot volume: 'trace' is an option, not a "
                                  "path (a file of that name: \\trace)"},
        {"out=", "empty directory in 'out=' (out=DIR on the boot volume, e.g. out=\\run1)"},
        {"profile=", "bad profile name in 'profile=' (profile=NAME, e.g. profile=skylake)"},
        {"rdmsr=0x1g", "bad MSR number in 'rdmsr=0x1g' (rdmsr=MSR, a 32-bit number such as 0x570)"},
        {"rdmsr=0x100000000", "bad MSR number in 'rdmsr=0x100000000' (rdmsr=MSR, a 32-bit number such as 0x570)"},
        {"trace memory-map trace locate-handle", "'trace' given twice"},
        {"size=12Q", "bad size in 'size=12Q' (e.g. size=4M)"},
        {"mtc=16", "bad value in 'mtc=16' (MTCFreq 0..15)"},
        {"filter=2000-1000", "bad filter 'filter=2000-1000' (filter=target or filter=A-B, hex, A <= B)"},
        {"backend=fpga", "unknown backend in 'backend=fpga' (auto, hw or soft)"},
        {"wrmsr=0x10", "bad MSR write in 'wrmsr=0x10' (wrmsr=MSR:VALUE)"},
        /* the counts */
        {"listing=lots", "bad count in 'listing=lots' (listing=N or listing=all)"},
        {"listing=", "bad count in 'listing=' (listing=N or listing=all)"},
        {"progress=3601", "bad count in 'progress=3601' (progress=SECONDS, 0..3600)"},
        {"progress=", "bad count in 'progress=' (progress=SECONDS, 0..3600)"},
        {"steps=0", "bad count in 'steps=0' (steps=N, at least 1)"},
        {"steps=many", "bad count in 'steps=many' (steps=N, at least 1)"},
        {"steps=", "bad count in 'steps=' (steps=N, at least 1)"},
        /* the software tracer's settings with Intel PT (which has no step limit) */
        {"trace locate-handle steps=4000 backend=hw",
         "'steps=' applies to the software tracer only (backend=soft or auto)"},
        {"trace locate-handle profile=skylake backend=hw",
         "'profile=' applies to the software tracer only (backend=soft or auto)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK_EQ(parse(bad[k].args, false, &o, err), -1);
        CHECK_STR(err, bad[k].says);
    }
}

/* a refused line still powers off (or waits) when it says so, even after the refused word */
TEST(refused_line_still_shuts_down_or_waits)
{
    CHECK_EQ(parse("trace read-file shutdown", false, &o, err), -1);
    CHECK(o.shutdown && !o.wait);
    CHECK_STR(o.target_path, "");
    CHECK_EQ(parse("bogus wait shutdown", false, &o, err), -1);
    CHECK_STR(err, "unknown option 'bogus' (see 'help')");
    CHECK(o.shutdown && o.wait);
    CHECK_EQ(parse("trace load-image\n", false, &o, err), -1);
    CHECK(!o.shutdown && !o.wait);
}

/* a file named like an option, given with its directory */
TEST(file_named_like_an_option)
{
    CHECK_EQ(parse("trace read-file \\shutdown shutdown", false, &o, err), 0);
    CHECK_STR(o.target_path, "\\shutdown");
    CHECK(o.shutdown);
}

/* a path longer than the buffer: named by its start, not cut silently */
TEST(path_longer_than_buffer_refused)
{
    {
        char line[400] = "trace read-file \\";
        memset(line + strlen(line), 'a', 300);
        CHECK_EQ(parse(line, false, &o, err), -1);
        static const char says[] = "'trace read-file': PATH longer than 255 characters: '\\aaaa";
        CHECK(strncmp(err, says, sizeof says - 1) == 0);
    }
}

/* the usage and the refusals name every target */
TEST(usage_and_refusals_name_every_target)
{
    for (unsigned t = 1; t < FWPT_TARGET_COUNT; t++) {
        CHECK(strstr(fwpt_options_usage(), fwpt_target_name((enum fwpt_target)t)) != NULL);
        CHECK(strstr(TARGET_WORDS, fwpt_target_name((enum fwpt_target)t)) != NULL);
    }
}

/* boot-trace status: a command of its own, alone or beside a trace; the other words refused by name */
TEST(boot_trace_status)
{
    CHECK_EQ(parse("boot-trace status shutdown", false, &o, err), 0);
    CHECK(o.boot_trace_status && o.shutdown && !o.trace);
    CHECK_EQ(parse("trace get-variable boot-trace status", false, &o, err), 0);
    CHECK(o.boot_trace_status && o.trace);
    CHECK_EQ(o.target, FWPT_TARGET_GET_VARIABLE);
    CHECK_EQ(parse("shutdown", false, &o, err), 0);
    CHECK(!o.boot_trace_status);
    CHECK_EQ(parse("boot-trace", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace' needs a command (status, install or remove)");
    CHECK_EQ(parse("boot-trace uninstall shutdown", false, &o, err), -1);
    CHECK_STR(err, "unknown boot-trace command 'uninstall' (status, install or remove)");
    CHECK(o.shutdown && !o.boot_trace_status);
    CHECK_EQ(parse("boot-trace status boot-trace status", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace' given twice");
    /* a target's PATH is never the word boot-trace */
    CHECK_EQ(parse("trace read-file boot-trace status", false, &o, err), -1);
    CHECK_STR(err, "'trace read-file' needs a PATH on the boot volume: 'boot-trace' is an option, not a path (a file "
                   "of that name: \\boot-trace)");
    CHECK(strstr(fwpt_options_usage(), "  boot-trace status ") != NULL);
}


/* boot-trace install: the rest of the line, less shutdown / wait / test-unchecked, is the driver's, checked as the
 * driver reads it; remove takes nothing */
TEST(boot_trace_install_remove)
{
    struct fwpt_efi_options o;
    char err[160];
    CHECK_EQ(parse("boot-trace install backend=soft shutdown steps=300000   verify keep", false, &o, err), 0);
    CHECK(o.boot_trace_install && o.shutdown && !o.trace && !o.boot_trace_status && !o.test_unchecked);
    CHECK_STR(o.driver_opts, "backend=soft steps=300000 verify keep");
    CHECK(!o.keep); /* the app's own options: keep is the driver's */
    CHECK_EQ(parse("boot-trace install", false, &o, err), 0);
    CHECK(o.boot_trace_install);
    CHECK_STR(o.driver_opts, "");
    CHECK_EQ(parse("boot-trace install backend=soft trace locate-handle shutdown", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace install': the driver would refuse its options: 'trace' is an option of the app, not of "
                   "the boot-trace driver (see 'help')");
    CHECK(o.shutdown);
    CHECK_EQ(parse("boot-trace install steps=0", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace install': the driver would refuse its options: bad count in 'steps=0' (steps=N, at "
                   "least 1)");
    CHECK_EQ(parse("boot-trace install test-unchecked bogus=1 shutdown", false, &o, err), 0);
    CHECK(o.test_unchecked && o.shutdown);
    CHECK_STR(o.driver_opts, "bogus=1");
    CHECK_EQ(parse("boot-trace remove shutdown", false, &o, err), 0);
    CHECK(o.boot_trace_remove && o.shutdown && !o.boot_trace_install);
    CHECK_EQ(parse("boot-trace remove boot-trace install", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace' given twice");
    CHECK_EQ(parse("keep", false, &o, err), -1);
    CHECK_STR(err, "'keep' is an option of the boot-trace driver (boot-trace install keep)");
    char longer[700];
    memset(longer, 0, sizeof longer);
    strcpy(longer, "boot-trace install");
    for (int i = 0; i < 80; i++)
        strcat(longer, " verify");
    CHECK_EQ(parse(longer, false, &o, err), -1);
    CHECK_STR(err, "'boot-trace install': the driver's options are longer than 511 characters at 'verify'");
    CHECK(strstr(fwpt_options_usage(), "  boot-trace install [OPTIONS]") != NULL);
    CHECK(strstr(fwpt_options_usage(), "  boot-trace remove ") != NULL);
}

/* install and remove change the driver options: never in the boot of a trace, whichever word comes first */
TEST(boot_trace_install_remove_not_with_trace)
{
    struct fwpt_efi_options o;
    char err[160];
    CHECK_EQ(parse("trace locate-handle boot-trace install backend=soft shutdown", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace install' changes the driver options and cannot run with 'trace': give them in two "
                   "boots");
    CHECK(o.shutdown);
    CHECK_EQ(parse("trace get-variable boot-trace install test-unchecked", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace install' changes the driver options and cannot run with 'trace': give them in two "
                   "boots");
    CHECK_EQ(parse("boot-trace remove trace locate-handle shutdown", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace remove' changes the driver options and cannot run with 'trace': give them in two "
                   "boots");
    CHECK(o.shutdown);
    CHECK_EQ(parse("trace locate-handle boot-trace remove", false, &o, err), -1);
    CHECK_STR(err, "'boot-trace remove' changes the driver options and cannot run with 'trace': give them in two "
                   "boots");
    /* status still goes with a trace; install and remove alone are fine */
    CHECK_EQ(parse("trace locate-handle boot-trace status", false, &o, err), 0);
    CHECK_EQ(parse("boot-trace remove wait", false, &o, err), 0);
    CHECK(o.boot_trace_remove && o.wait && !o.trace);
}

static int parse_driver(const char *line, struct fwpt_efi_options *o, char *err)
{
    return fwpt_options_parse_driver(line, strlen(line), o, err, 160);
}

/* the driver's line: trace settings, keep, out= (default \fwpt\boot); the app's words refused by name */
TEST(driver_options)
{
    struct fwpt_efi_options o;
    char err[160];
    CHECK_EQ(parse_driver("", &o, err), 0);
    CHECK_STR(o.out_dir, "\\fwpt\\boot");
    CHECK(!o.keep && o.backend == FWPT_BACKEND_AUTO && !o.trace);
    CHECK_EQ(parse_driver("backend=soft steps=300000 verify keep size=1M ring out=\\bt quiet", &o, err), 0);
    CHECK(o.keep && o.verify && o.ring && o.quiet && o.backend == FWPT_BACKEND_SOFT);
    CHECK_EQ(o.steps, 300000);
    CHECK_EQ(o.buffer_size, 1u << 20);
    CHECK_STR(o.out_dir, "\\bt");
    static const char *const app[] = {"shutdown", "wait", "help", "trace", "boot-trace", "rdmsr=0x570",
                                      "wrmsr=0x570:0", "test-raise-tpl", "test-unchecked"};
    for (size_t i = 0; i < sizeof app / sizeof app[0]; i++) {
        char want[160];
        snprintf(want, sizeof want, "'%s' is an option of the app, not of the boot-trace driver (see 'help')", app[i]);
        CHECK_EQ(parse_driver(app[i], &o, err), -1);
        CHECK_STR(err, want);
    }
    CHECK_EQ(parse_driver("filter=target", &o, err), -1);
    CHECK_STR(err, "'filter=target' needs a target: the boot-trace driver traces the boot (filter=A-B limits it to an "
                   "address range)");
    CHECK_EQ(parse_driver("filter=1000-2000", &o, err), 0);
    CHECK_EQ(parse_driver("bogus=1", &o, err), -1);
    CHECK_STR(err, "unknown option 'bogus=1' (see 'help')");
    CHECK_EQ(parse_driver("backend=hw steps=5", &o, err), -1);
}

TEST_MAIN("efi-options")
