/* fwpt — the set-up calls return the status enum (base/status.h): the flow decoder's init refuses a cache size
 * that is not a power of two (FWPT_E_INVAL) and says when the trace has no PSB (FWPT_E_NOSYNC), leaving the decoder
 * at its end either way; the summary profile, the edge table and the parallel walk say FWPT_E_NOMEM and
 * FWPT_E_INVAL where they returned false, -1 or a NULL table. */
#include "analyze/edges.h"
#include "analyze/parallel_host.h"
#include "analyze/sumprof.h"
#include "decode/flow.h"
#include "tests/check.h"

/* SDM "Packet Stream Boundary (PSB) Packet", then PSBEND: the smallest trace a decoder syncs on */
static const uint8_t psb_trace[] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                    0x02, 0x82, 0x02, 0x82, 0x02, 0x23};
static const uint8_t no_psb[] = {0x00, 0x00, 0x02, 0x82, 0x02, 0x82, 0x00, 0x00}; /* PADs, half a PSB */

static size_t no_code(void *ctx, uint64_t ip, const uint8_t **bytes)
{
    (void)ctx, (void)ip, (void)bytes;
    return 0;
}

static struct fwpt_flow_block cache[64];

/* What a decoder gives after init: its first read's status. */
static enum fwpt_status first_read(struct fwpt_flow *f)
{
    struct fwpt_flow_event ev;
    return fwpt_flow_next(f, &ev);
}

TEST(flow_init_ok)
{
    static struct fwpt_flow f;
    CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, cache, 64), FWPT_OK);
    CHECK_EQ(f.cache_mask, 63);
    CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, cache, 1), FWPT_OK);
    CHECK_EQ(f.cache_mask, 0);
    CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, NULL, 0), FWPT_OK);
    CHECK(f.cache == NULL);
    CHECK_EQ(first_read(&f), FWPT_E_EOS); /* a PSB+ and nothing traced */
    const struct fwpt_pkt_seg segs[] = {{psb_trace, 5}, {psb_trace + 5, sizeof psb_trace - 5}};
    CHECK_EQ(fwpt_flow_init_segs(&f, segs, 2, no_code, NULL, cache, 64), FWPT_OK);
}

TEST(flow_init_bad_cache_size)
{
    static struct fwpt_flow f;
    const size_t bad[] = {3, 63, 65, 100, 4095};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, cache, bad[i]), FWPT_E_INVAL);
        CHECK_EQ(first_read(&f), FWPT_E_EOS); /* refused: nothing decoded, never a partial walk */
    }
    CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, cache, 0), FWPT_E_INVAL);
    CHECK_EQ(fwpt_flow_init(&f, psb_trace, sizeof psb_trace, no_code, NULL, NULL, 64), FWPT_E_INVAL);
    const struct fwpt_pkt_seg seg = {psb_trace, sizeof psb_trace};
    CHECK_EQ(fwpt_flow_init_segs(&f, &seg, 1, no_code, NULL, cache, 48), FWPT_E_INVAL);
    CHECK_EQ(first_read(&f), FWPT_E_EOS);
}

TEST(flow_init_no_psb)
{
    static struct fwpt_flow f;
    CHECK_EQ(fwpt_flow_init(&f, no_psb, sizeof no_psb, no_code, NULL, cache, 64), FWPT_E_NOSYNC);
    CHECK_EQ(first_read(&f), FWPT_E_EOS); /* as before: the end at once */
    CHECK_EQ(fwpt_flow_init(&f, no_psb, 0, no_code, NULL, cache, 64), FWPT_E_NOSYNC);
    CHECK_EQ(first_read(&f), FWPT_E_EOS);
    const struct fwpt_pkt_seg segs[] = {{no_psb, 4}, {no_psb + 4, 4}};
    CHECK_EQ(fwpt_flow_init_segs(&f, segs, 2, no_code, NULL, NULL, 0), FWPT_E_NOSYNC);
    CHECK_EQ(first_read(&f), FWPT_E_EOS);
    /* a bad size is named before the missing PSB */
    CHECK_EQ(fwpt_flow_init(&f, no_psb, sizeof no_psb, no_code, NULL, cache, 6), FWPT_E_INVAL);
}

static void *refuse(void *ctx, void *old, size_t size)
{
    (void)ctx;
    if (!size)
        free(old);
    return NULL;
}
static const struct fwpt_resize no_memory = {refuse, NULL};

TEST(sumprof_init_status)
{
    static struct fwpt_sumprof sp;
    CHECK_EQ(fwpt_sumprof_init(&sp, NULL, true, false, &fwpt_parallel_resize), FWPT_OK);
    CHECK(sp.nodes != NULL);
    fwpt_sumprof_free(&sp);
    CHECK_EQ(fwpt_sumprof_init(&sp, NULL, true, false, &no_memory), FWPT_E_NOMEM);
    CHECK_EQ(fwpt_sumprof_spill(&sp), FWPT_E_INVAL); /* no profile to spill into */
}

TEST(edges_init_status)
{
    struct fwpt_edges e;
    static struct fwpt_edge v[16];
    CHECK_EQ(fwpt_edges_init(&e, NULL, 0, &fwpt_parallel_resize), FWPT_OK);
    CHECK(e.v != NULL);
    fwpt_edges_free(&e);
    CHECK_EQ(fwpt_edges_init(&e, v, 16, NULL), FWPT_OK);
    CHECK_EQ(e.mask, 15);
    CHECK_EQ(fwpt_edges_init(&e, v, 12, NULL), FWPT_E_INVAL);
    CHECK_EQ(fwpt_edges_init(&e, NULL, 0, &no_memory), FWPT_E_NOMEM);
    CHECK(e.v == NULL);
}

TEST(parallel_run_status)
{
    struct fwpt_par_setup s = {.trace = psb_trace, .len = sizeof psb_trace, .read = no_code, .jobs = 1};
    struct fwpt_parallel_out out;
    CHECK_EQ(fwpt_parallel_run(&s, NULL, &out), FWPT_OK);
    CHECK_EQ(out.insns, 0);
    fwpt_parallel_out_free(&out);
    s.block_cache = 100;
    CHECK_EQ(fwpt_parallel_run(&s, NULL, &out), FWPT_E_INVAL);
    s.block_cache = 0, s.path_cache = 3;
    CHECK_EQ(fwpt_parallel_run(&s, NULL, &out), FWPT_E_INVAL);
    s.path_cache = 0, s.cov_size = 1000;
    CHECK_EQ(fwpt_parallel_run(&s, NULL, &out), FWPT_E_INVAL);
    s.cov_size = 1024;
    CHECK_EQ(fwpt_parallel_run(&s, NULL, &out), FWPT_OK);
    fwpt_parallel_out_free(&out);
}

TEST_MAIN("init_status")
