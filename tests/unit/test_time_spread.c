/* analyze/time_spread: the ticks between two time changes shared by the instructions between them (the first ones
 * get the remainder), nothing across an overflow or an enable, a change point after a reset counts none; the
 * profile's unit; the duration line (CPUID 15H crystal clock, else the nominal ratio; the soft note). */
#include <stdio.h>
#include <string.h>

#include "analyze/time_spread.h"
#include "tests/check.h"

static struct fwpt_profile prof;
static uint64_t mod[2];
static struct fwpt_profile_func funcs[64];
static struct fwpt_profile_node nodes[64];
static uint32_t hash[128];
static struct fwpt_flow_event held[4];
static struct fwpt_time_spread t;

static void insn(uint64_t ip, uint64_t tsc, bool ok)
{
    struct fwpt_flow_event e = {.kind = FWPT_FLOW_INSN, .size = 1, .iclass = FWPT_IC_OTHER, .ip = ip};
    fwpt_time_spread_add(&t, &e, tsc, ok);
}

static void event(uint8_t kind)
{
    struct fwpt_flow_event e = {.kind = kind};
    fwpt_time_spread_add(&t, &e, 0, false);
}

static void reset(uint32_t cap)
{
    fwpt_profile_init(&prof, NULL, mod, funcs, 64, nodes, 64, hash, 128);
    fwpt_time_spread_init(&t, &prof, held, cap);
}

/* The profile's unit: TSC ticks, or plain ticks when the software backend stepped the call. */
TEST(profile_unit)
{
    reset(4);
    CHECK_STR(fwpt_profile_unit(&prof, false), "TSC ticks");
    CHECK_STR(fwpt_profile_unit(&prof, true), "ticks");
}

/* The run two cases share: the ticks between two time changes shared by the instructions between them, nothing
 * across an overflow, a CBR held in order, a full held buffer counting none. With check, the totals along the way
 * are checked too. */
static void spread_run(bool check)
{
    reset(4);
    insn(0x10, 1000, true); /* the first change point: none */
    insn(0x11, 1000, true);
    insn(0x12, 1000, true);
    insn(0x13, 1010, true); /* 10 ticks over 0x11, 0x12, 0x13: 4, 3, 3 */
    if (check) {
        CHECK_EQ(prof.insns, 10);
        CHECK_EQ(nodes[0].insns, 10);
    }
    insn(0x14, 1005, true); /* back (a later MTC): no time */
    insn(0x15, 1020, true); /* 10 ticks over 0x14, 0x15 */
    if (check)
        CHECK_EQ(prof.insns, 20);
    event(FWPT_FLOW_OVERFLOW); /* nothing across it */
    insn(0x16, 5000, true);
    insn(0x17, 5003, true);
    if (check)
        CHECK_EQ(prof.insns, 23);
    event(FWPT_FLOW_CBR); /* held in order, counts nothing */
    insn(0x18, 5003, true);
    insn(0x19, 5003, true);
    insn(0x1a, 5003, true);
    insn(0x1b, 5003, true); /* the held buffer (4) fills: those count none */
    insn(0x1c, 5010, true);
    fwpt_time_spread_end(&t);
}

/* The ticks between two time changes go to the instructions between them (the first ones get the remainder);
 * nothing across an overflow; a time that goes back counts none. */
TEST(ticks_spread_between_time_changes)
{
    spread_run(true);
    CHECK_EQ(t.ticks, 30);
    CHECK_EQ(prof.insns, 30);
    CHECK(t.have_span);
    CHECK_EQ(t.first_tsc, 1000);
    CHECK_EQ(t.last_tsc, 5010);
    CHECK_EQ(prof.events, 2);
}

/* The duration line: from the CPUID 15H crystal clock, else from the nominal ratio, with the soft note. */
TEST(duration_line_crystal_then_nominal)
{
    char buf[512];
    struct fwpt_bufsink bs;
    struct fwpt_sink o;

    spread_run(false);
    o = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    struct fwpt_time_config c = {.cpuid_15_eax = 2, .cpuid_15_ebx = 200};
    fwpt_time_spread_duration(&t, &c, 24000000, false, &o); /* 2.4 GHz: 4010 ticks = 1.670 us */
    buf[bs.len] = 0;
    CHECK_STR(buf, "time: 4010 TSC ticks from the first instruction with a time to the last (1.670 us at 2400 MHz); "
                   "30 ticks spread over the instructions\n");
    o = fwpt_bufsink_init(&bs, buf, sizeof buf - 1);
    c = (struct fwpt_time_config){.nom_freq = 20}; /* no crystal clock: 2 GHz from the nominal ratio */
    fwpt_time_spread_duration(&t, &c, 0, true, &o);
    buf[bs.len] = 0;
    CHECK_STR(buf, "time: 4010 TSC ticks from the first instruction with a time to the last (2.005 us at 2000 MHz); "
                   "30 ticks spread over the instructions\n"
                   "time: note: the software backend single-stepped this call: the times are those of "
                   "single-stepping (an exception per instruction), not the call's real speed\n");
}

/* before the first TSC (relative time) and then with one: no ticks across the change */
TEST(no_ticks_across_relative_to_tsc_change)
{
    reset(4);
    insn(0x10, 5, false);
    insn(0x11, 9, false); /* 4 relative ticks */
    insn(0x12, 9000, true);
    insn(0x13, 9002, true);
    fwpt_time_spread_end(&t);
    CHECK_EQ(prof.insns, 6);
    CHECK_EQ(t.first_tsc, 9000);
}

TEST_MAIN("test_time_spread")
