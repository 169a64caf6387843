/* fwpt — instruction flow reconstruction: packets + code bytes -> every executed instruction and
 * the events between them (SDM Vol. 3C "Intel Processor Trace": COFI tracing, IP compression,
 * RET compression, packet relationships). Freestanding, no allocation: the caller owns the state
 * (fwpt_flow_size() bytes, aligned as malloc aligns; its layout is private) and the instruction cache;
 * code bytes come from a callback and are read in place.
 *
 *     struct fwpt_flow *f = malloc(fwpt_flow_size());
 *     static struct fwpt_flow_block cache[4096];        // optional, power of two
 *     fwpt_flow_init(f, trace, len, read_code, ctx, cache, 4096);
 *     struct fwpt_flow_event ev;
 *     while (fwpt_flow_next(f, &ev) == FWPT_OK) { ... ev.kind ... }
 *
 * Rules followed (and where a decoder has a choice, why):
 *  - one TNT bit per conditional branch (Jcc, JrCXZ, LOOPcc); bits in execution order.
 *  - near CALLs push their next IP on a 64-entry stack (the oldest entry is dropped when full),
 *    except zero-length calls (SDM "Indirect Transfer Compression for Returns (RET)"). Every near RET pops; a RET that meets a TNT bit is a
 *    compressed RET (bit must be 1, the target is the popped entry), otherwise it takes a TIP.
 *  - the stack is cleared at OVF and whenever the decoder (re)synchronizes. A PSB met while in
 *    sync does not clear it: the processor compresses no RET across a PSB, so entries older than
 *    the PSB are never used, while calls executed after the PSB's FUP IP but before the walk
 *    reaches the next packet must stay on it.
 *  - after consuming a packet the decoder looks ahead (as the processor orders packets): FUP =
 *    asynchronous event bound to the instruction at its IP (FUP+TIP: interrupt/exception,
 *    FUP+TIP.PGD: tracing disabled there); OVF = overflow, resumes at the next FUP or TIP.PGE;
 *    PSB+ = status (IP/mode when not yet synchronized).
 *  - TIP.PGD without FUP binds to the next branch that needs a TNT bit or a TIP.
 *  - errors are events naming the trace offset and IP; decoding resumes at the next IP packet
 *    (TIP, TIP.PGE, PSB+ FUP, OVF+FUP) or, after a packet-level error, at the next PSB.
 */
#ifndef FWPT_FLOW_H
#define FWPT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fwpt/export.h"
#include "fwpt/insn.h"
#include "fwpt/packet.h"
#include "fwpt/status.h"

/* Code-read callback: make the bytes at linear address 'ip' available. Returns how many
 * contiguous bytes start at *bytes (0: no code mapped there). The pointer must stay valid until
 * the next call. In firmware it points into live memory of a loaded image (never faulting: only
 * inside known images/ranges); on the host into an image file loaded in memory. */
typedef size_t (*fwpt_flow_read_fn)(void *ctx, uint64_t ip, const uint8_t **bytes);

/* Longest run of instructions one cache entry holds. */
#define FWPT_FLOW_BLOCK_INSNS 10

/* One cache entry: the instructions from 'ip' up to and including the first one that changes the
 * flow (or FWPT_FLOW_BLOCK_INSNS of them). 32 bytes (small entries keep the working set in the
 * data cache). The caller provides an array of these. */
struct fwpt_flow_block {
    uint64_t ip;        /* start; FWPT_FLOW_NO_IP when empty */
    uint64_t target;    /* last instruction: target of a relative branch */
    uint8_t ninsn;      /* instructions in sizes[] */
    uint8_t mode;       /* enum fwpt_exec_mode the block was decoded in */
    uint8_t iclass;     /* class of the last instruction */
    uint8_t flags;      /* FWPT_FLOW_BF_* */
    uint16_t nbytes;    /* total length of the instructions */
    uint8_t sizes[FWPT_FLOW_BLOCK_INSNS];
};
#define FWPT_FLOW_NO_IP (~(uint64_t)0)
#define FWPT_FLOW_BF_ZERO_LEN_CALL 0x01u /* last is a zero-length call (not pushed) */

enum fwpt_flow_kind {
    FWPT_FLOW_INSN = 0,   /* ip, size, iclass: one executed instruction */
    FWPT_FLOW_ENABLED,    /* TIP.PGE: tracing starts at ip; or PSB+ FUP first synchronization (sync=1) */
    FWPT_FLOW_DISABLED,   /* TIP.PGD: after the last instruction; ip = FUP IP (async) or PGD target if any */
    FWPT_FLOW_INTERRUPT,  /* FUP+TIP: asynchronous transfer from ip (not executed) to 'to' */
    FWPT_FLOW_OVERFLOW,   /* OVF: execution lost; resumes at ip (ip_valid=0 when resuming with TIP.PGE) */
    FWPT_FLOW_MODE,       /* MODE.Exec changed the code size (or it was not known): mode; ip when bound to a FUP */
    FWPT_FLOW_ERROR,      /* status, ip (where the walk was), offset (trace offset) */
    FWPT_FLOW_TSX,        /* MODE.TSX: detail = enum fwpt_flow_tsx; ip (ip_valid) where it binds; sync = status
                           * from PSB+ (the transaction state as the decoder found it, no change) */
    FWPT_FLOW_STOPPED,    /* TraceStop: tracing stopped (TraceStop address range, or ToPA STOP) */
    FWPT_FLOW_PAGING,     /* PIP: payload = CR3 (bits 4:0 zero), detail = NR bit; sync = status from PSB+ */
    FWPT_FLOW_VMCS,       /* VMCS: payload = VMCS base address; sync = status from PSB+ */
    FWPT_FLOW_PTWRITE,    /* PTW: payload, size = payload bytes (4 or 8); ip when a FUP gave the PTWRITE's IP */
    FWPT_FLOW_EXSTOP,     /* EXSTOP: execution stopped (C-state, ...); ip when a FUP gave it */
    FWPT_FLOW_CBR,        /* CBR outside PSB+: the core:bus ratio changed to detail */
    FWPT_FLOW_MNT,        /* MNT: payload (to) */
    FWPT_FLOW_MWAIT,      /* MWAIT: to = hints (EAX) | extensions (ECX) << 32; ip when the EXSTOP's FUP gave it */
    FWPT_FLOW_PWRE,       /* PWRE: detail = resolved C-state, size = sub C-state (raw fields), async = HW */
    FWPT_FLOW_PWRX,       /* PWRX: detail = last core C-state, size = deepest (raw fields), status = wake reason */
    FWPT_FLOW_TRIG,       /* TRIG: detail = TRBV (the triggers that fired), async = MULT; ip when a FUP gave it, or
                           * with ICNT: the instruction it stands before */
    FWPT_FLOW_END,        /* the trace data ends here with tracing on: what follows comes from the code
                           * alone, up to the first instruction that needs a packet (see fwpt_flow_cut) */
    FWPT_FLOW_CFE,        /* Event Trace CFE: detail = enum fwpt_cfe_type, size = vector; status = FWPT_EVD_* bits
                           * of the EVD data given: to = CR2 or VMX exit qualification, data = VMX exit reason;
                           * ip when a FUP gave it */
    FWPT_FLOW_IFLAGS,     /* Event Trace MODE.Exec: RFLAGS.IF changed to detail (1: interrupts enabled);
                           * ip when a FUP gave it */
    FWPT_FLOW_KIND_COUNT
};

struct fwpt_flow_event {
    uint8_t kind;       /* enum fwpt_flow_kind */
    uint8_t size;       /* INSN: length */
    uint8_t iclass;     /* INSN: enum fwpt_insn_class */
    uint8_t mode;       /* enum fwpt_exec_mode in effect */
    uint8_t ip_valid;   /* events: ip is meaningful */
    uint8_t async;      /* DISABLED: bound to a FUP (between instructions) */
    uint8_t sync;       /* ENABLED: from a PSB+ FUP rather than a TIP.PGE; TSX, PAGING, VMCS: PSB+ status */
    uint8_t detail;     /* ENABLED: 1 = resumed where tracing stopped; TSX: enum fwpt_flow_tsx; PAGING: NR */
    uint32_t status;    /* ERROR: enum fwpt_status */
    uint64_t ip;
    uint64_t to;        /* INTERRUPT: target; PAGING: CR3; VMCS: base; PTWRITE: payload */
    uint64_t offset;    /* events: trace offset of the packet that caused it */
    uint64_t data;      /* CFE: VMX exit reason (EVD type 2) */
};

/* FWPT_FLOW_CFE types (SDM Table "CFE Packet Type and Vector Fields"). Vector: INTR, VMEXIT_INTR, SIPI,
 * UINTR, SWINTR. Other type values are given as they are. */
enum fwpt_cfe_type {
    FWPT_CFE_INTR = 1, FWPT_CFE_IRET, FWPT_CFE_SMI, FWPT_CFE_RSM, FWPT_CFE_SIPI, FWPT_CFE_INIT,
    FWPT_CFE_VMENTRY, FWPT_CFE_VMEXIT, FWPT_CFE_VMEXIT_INTR, FWPT_CFE_SHUTDOWN,
    FWPT_CFE_UINTR = 12, FWPT_CFE_UIRET, FWPT_CFE_SWINTR, FWPT_CFE_SYSCALL
};
/* FWPT_FLOW_CFE status bits: the EVD packets that came with it (SDM Table "EVD Packet Type") */
#define FWPT_EVD_CR2 0x1u   /* to: page-fault linear address (INTR, vector 14) */
#define FWPT_EVD_VMXQ 0x2u  /* to: VMX exit qualification (VMEXIT, VMEXIT_INTR) */
#define FWPT_EVD_VMXR 0x4u  /* data: VMX exit reason (VMEXIT, VMEXIT_INTR) */

/* FWPT_FLOW_TSX details (SDM "MODE.TSX Packet": InTX, TXAbort). Instructions between BEGIN and
 * COMMIT/ABORT ran inside a transaction (speculatively: an abort discards their effects). */
enum fwpt_flow_tsx { FWPT_TSX_NONE = 0, FWPT_TSX_BEGIN, FWPT_TSX_COMMIT, FWPT_TSX_ABORT };

/* A run of consecutive instructions: ip of the first, sizes of each (for fwpt_flow_next_run). */
struct fwpt_flow_run {
    uint64_t ip;
    const uint8_t *sizes;
    uint32_t n;
    uint8_t mode;
};

/* One buffered instruction. kind..mode are laid out as the first four bytes of struct
 * fwpt_flow_event (kind is always FWPT_FLOW_INSN) so fwpt_flow_next copies them at once. */
struct fwpt_flow_obuf_insn {
    uint64_t ip;
    uint8_t kind, size, iclass, mode; /* mode: enum fwpt_exec_mode the instruction ran in */
    uint32_t reserved;
};

/* The decoder's state (private: its layout changes with any version). */
struct fwpt_flow;

FWPT_BEGIN_DECLS

/* Bytes a caller allocates for one struct fwpt_flow. */
FWPT_API size_t fwpt_flow_size(void);
/* dst becomes a copy of src: it decodes on from there as src would. They share what src was given (the trace, the
 * code reader, the block cache: fwpt_flow_use_cache gives dst one of its own). */
FWPT_API void fwpt_flow_copy(struct fwpt_flow *dst, const struct fwpt_flow *src);

/* cache may be NULL (ncache 0): every block is then decoded again (slow). ncache: a power of two.
 * FWPT_E_INVAL: a cache size that is not a power of two (or a cache without a size, a size without a cache);
 * FWPT_E_NOSYNC: the trace has no PSB. Either way f is usable: its reads give the end (FWPT_E_EOS). */
FWPT_API enum fwpt_status fwpt_flow_init(struct fwpt_flow *f, const uint8_t *trace, size_t len,
                                         fwpt_flow_read_fn read, void *read_ctx, struct fwpt_flow_block *cache,
                                         size_t ncache);
/* The same over a trace in pieces, read where they lie (fwpt_pkt_init_segs): the readback's spans, decoded in
 * place. */
FWPT_API enum fwpt_status fwpt_flow_init_segs(struct fwpt_flow *f, const struct fwpt_pkt_seg *segs, uint32_t nsegs,
                                              fwpt_flow_read_fn read, void *read_ctx,
                                              struct fwpt_flow_block *cache, size_t ncache);

/* The IP filter ranges (ADDRn_A..ADDRn_B, inclusive; ADDRn_CFG = 1) the trace was recorded with, so
 * that a TIP.PGD without an IP can be bound to the direct branch that left them (erratum SKL014).
 * At most FWPT_FLOW_FILTERS; n = 0: none known. */
FWPT_API void fwpt_flow_set_filter(struct fwpt_flow *f, const uint64_t (*ranges)[2], uint32_t n);

/* RFLAGS.IF changes as events (FWPT_FLOW_IFLAGS): MODE.Exec's IF bit holds RFLAGS.IF only when the trace was
 * recorded with Event Trace (IA32_RTIT_CTL.EventEn; SDM "MODE.Exec Packet"), and is 0 otherwise, so the events
 * are given only when asked (as libipt's enable_iflags_events). Default: off. */
FWPT_API void fwpt_flow_set_iflags(struct fwpt_flow *f, bool on);

/* The code reader from now on (the same code read from elsewhere: the block cache is kept). */
FWPT_API void fwpt_flow_set_reader(struct fwpt_flow *f, fwpt_flow_read_fn read, void *read_ctx);

/* Empties the instruction cache (after code changed). */
FWPT_API void fwpt_flow_cache_reset(struct fwpt_flow *f);

/* Limit of instructions walked without consuming a packet before FWPT_E_RUNAWAY (default 1M). */
FWPT_API void fwpt_flow_set_runaway_limit(struct fwpt_flow *f, uint64_t n);

/* Next instruction or event. FWPT_OK with *ev filled, FWPT_E_EOS at the end of the trace.
 * Errors inside the trace are FWPT_FLOW_ERROR events (decoding continues). FWPT_E_INTERNAL, after every
 * event queued before it, is a decoder bug (an event found the event queue full), never the trace's
 * fault: the decode stops there, no event lost silently. */
FWPT_API enum fwpt_status fwpt_flow_next(struct fwpt_flow *f, struct fwpt_flow_event *ev);

/* Fast mode: the next run of instructions (FWPT_OK, *run filled, *ev.kind == FWPT_FLOW_INSN)
 * or the next event (FWPT_OK, run->n == 0, *ev filled). Runs and events come in the same order
 * fwpt_flow_next gives them; the sizes pointer is valid until the next call. Use either
 * fwpt_flow_next or fwpt_flow_next_run for one decode, not both. */
FWPT_API enum fwpt_status fwpt_flow_next_run(struct fwpt_flow *f, struct fwpt_flow_run *run,
                                             struct fwpt_flow_event *ev);

/* Batch mode (the fastest): *insns points to *n consecutive executed instructions (valid until
 * the next call), or *n == 0 and *ev holds the next event. Same order as fwpt_flow_next; the two
 * may be mixed. */
FWPT_API enum fwpt_status fwpt_flow_next_batch(struct fwpt_flow *f, const struct fwpt_flow_obuf_insn **insns,
                                               uint32_t *n, struct fwpt_flow_event *ev);

/* After FWPT_E_EOS: true when the trace ended with tracing on, i.e. no TIP.PGD before the end (the buffer
 * filled, or the file was cut), and the walk stopped because it needed a packet that is not there. *ip is the
 * instruction whose successor needed it (the last one given out), or the IP of a FUP whose TIP is missing.
 * The instructions after the last packet follow from the code alone: an interrupt taken there would have
 * written a FUP into the part that is missing. false after a clean end (TIP.PGD) or an end while searching. */
FWPT_API bool fwpt_flow_cut(const struct fwpt_flow *f, uint64_t *ip);

FWPT_API const char *fwpt_flow_kind_name(enum fwpt_flow_kind k);

/* The trace bytes decode errors cost so far: from each error to the packet where the walk took up
 * the IP again (to the trace's end when it did not). */
FWPT_API uint64_t fwpt_flow_bytes_skipped(const struct fwpt_flow *f);

/* Synchronization (the role of libipt's pt_blk_sync_forward, _sync_set, _get_offset, _get_sync_offset).
 * fwpt_flow_init synchronizes at the trace's first PSB. A decoder (re)synchronized at a PSB starts there as one
 * that found this PSB first (SDM "Decoder Synchronization (PSB+)"): the walk, the RET compression stack, the
 * events waiting and the time are dropped; its configuration, block cache and statistics are kept; it gives
 * the FWPT_FLOW_ENABLED (sync) event of the PSB+ FUP, then the instructions from there.
 * To the next PSB after the decoder's position (the next packet it has not read; the PSB it synchronized at
 * when it has read nothing since): FWPT_E_NOSYNC when there is none (decoder unchanged). */
FWPT_API enum fwpt_status fwpt_flow_sync_forward(struct fwpt_flow *f);
/* At the PSB that starts at offset: FWPT_E_EOS when offset is past the trace's end, FWPT_E_NOSYNC when no PSB
 * starts there (decoder unchanged either way). */
FWPT_API enum fwpt_status fwpt_flow_sync_set(struct fwpt_flow *f, uint64_t offset);
/* The trace offset of the next packet the decoder has not read (it reads ahead of the instructions it gave). */
FWPT_API enum fwpt_status fwpt_flow_get_offset(const struct fwpt_flow *f, uint64_t *offset);
/* The offset of the PSB the decoder last synchronized at (fwpt_flow_init, a sync call, or the resynchronization
 * after a packet-level error); FWPT_E_NOSYNC before any. */
FWPT_API enum fwpt_status fwpt_flow_get_sync_offset(const struct fwpt_flow *f, uint64_t *offset);

/* The block cache to use from now on, its entries kept (blocks decoded from the same code: one cache can serve
 * decoders one after the other). ncache as fwpt_flow_init's: FWPT_E_INVAL (cache unchanged) when it is not a
 * power of two, or a cache comes without a size or a size without a cache. */
FWPT_API enum fwpt_status fwpt_flow_use_cache(struct fwpt_flow *f, struct fwpt_flow_block *cache, size_t ncache);
/* Another trace of the same code: f starts it as fwpt_flow_init would (synchronized at its first PSB; the walk,
 * RET compression stack, events waiting, time and statistics dropped), keeping what it was set up with (code
 * reader, block cache and its entries, errata, filter ranges, IF events, runaway limit, time on or off): a warm
 * decoder for trace after trace (fwpt/coverage.h). FWPT_E_NOSYNC: the trace has no PSB (reads give the end). */
FWPT_API enum fwpt_status fwpt_flow_reset_trace(struct fwpt_flow *f, const uint8_t *trace, size_t len);
/* Instructions walked so far (given, or counted by a block step). */
FWPT_API uint64_t fwpt_flow_insns(const struct fwpt_flow *f);

/* Block step (the role of libipt's pt_blk_next): the flow as blocks of instructions, for walks that need no
 * single instruction (analyze/summary.c). One call gives several records into the caller's buffer, each a block
 * (ip, count and sizes of its instructions, the class of the last) or a chain (below), in the order
 * fwpt_flow_next gives their instructions; or, with no record, the next event (the same events, in the same
 * places). A record's last instruction is the one whose transfer the next record or event follows: where it
 * went is the next record's ip (or the event's). Use either this or fwpt_flow_next for one decode, not both.
 *
 * Chains: an optional cache, owned by the caller, of the blocks followed from one block with the TNT bits in
 * hand (at most FWPT_FLOW_CHAIN_BITS; with none, those of the TNT packet read ahead): conditional branches,
 * direct jumps, fall-through, direct calls whose first block it holds, the compressed returns of those calls
 * (their target is the call's next IP), one compressed return from a call made before it (to the RET
 * compression stack's top then: part of its key, ret_to); SDM "Indirect Transfer Compression for Returns
 * (RET)". A chain ends right after its last bit, before a block it cannot follow (not cached, in another region,
 * too many), or with a block whose end needs more than it holds (pending: a TIP, a conditional branch with no bit
 * in hand, a return past its start). One lookup walks it all: the decoder applies its calls and returns to its
 * stack and its bits; the record names the chain, whose calls, returns and edges inside are there to read. */
#define FWPT_FLOW_CHAIN_BLOCKS 16 /* blocks one chain follows at most */
#define FWPT_FLOW_CHAIN_BITS 8    /* TNT bits it takes at most */
#define FWPT_FLOW_CHAIN_CALLS 8   /* calls and returns inside it at most */
#define FWPT_FLOW_REGION_MIXED 0xffffffffu
#define FWPT_FLOW_NO_STOP (~(uint64_t)0)

struct fwpt_flow_chain {
    uint64_t ip;         /* first block; FWPT_FLOW_NO_IP: empty */
    uint64_t next;       /* not pending: where the walk goes on; pending: the last block's fall-through */
    uint64_t last_ip;    /* pending: its last instruction; else the branch whose edge leads to next (edge) */
    uint64_t uses;       /* the caller's (zeroed when built): e.g. walks of it not yet counted */
    uint64_t ret_to;     /* it returns from a call made before it, to this (the stack's top must be this); 0: not */
    uint32_t ninsn;      /* instructions */
    uint32_t tail;       /* of them after the last TNT bit it used */
    uint32_t region;     /* the region (chains' region callback) of every instruction */
    uint16_t key;        /* the TNT bits it was made for: (1 << k) | the k oldest bits in hand */
    uint8_t mode, used, pending, cls, flags, edge;
    uint8_t nedges;      /* edges between its blocks (in its cold part) */
    uint8_t miss;        /* it ended before a block that was not cached yet */
    uint8_t nops;        /* calls and returns inside it (in its cold part) */
} __attribute__((aligned(64))); /* one cache line: the walk's chain of loads goes through these */
#ifdef __cplusplus
static_assert(sizeof(struct fwpt_flow_chain) == 64, "a chain cache entry is one cache line");
#else
_Static_assert(sizeof(struct fwpt_flow_chain) == 64, "a chain cache entry is one cache line");
#endif

struct fwpt_flow_chain_edge {
    uint64_t from, to;
};
/* A call or return inside a chain, after n instructions since the one before (or the chain's start). */
struct fwpt_flow_chain_op {
    uint64_t entry;      /* call: the function entered (the call's target) */
    uint64_t ret;        /* call: its next IP (pushed for RET compression); return: 0 */
    uint32_t n;
    uint32_t call;
    uint32_t user[3];    /* the caller's (zeroed when built): e.g. a profile's hint */
};
/* What a chain holds that the walk needs less often. */
struct fwpt_flow_chain_cold {
    uint64_t target;     /* pending: the last block's branch target */
    uint64_t block_ip;   /* pending: the last block's start */
    struct fwpt_flow_chain_edge edges[FWPT_FLOW_CHAIN_BLOCKS - 1];
    struct fwpt_flow_chain_op ops[FWPT_FLOW_CHAIN_CALLS];
};

/* The chain cache: v and cold, mask + 1 entries each (a power of two). region: the region of a cached block
 * (FWPT_FLOW_REGION_MIXED: none; a chain keeps to one); NULL: one region. evict: called before an entry is
 * built anew (the caller counts what it kept in it). */
struct fwpt_flow_chains {
    struct fwpt_flow_chain *v;
    struct fwpt_flow_chain_cold *cold;
    size_t mask;
    uint32_t (*region)(void *ctx, uint64_t ip, const struct fwpt_flow_block *b);
    void (*evict)(void *ctx, struct fwpt_flow_chain *c, struct fwpt_flow_chain_cold *cold);
    void *ctx;
    /* private: lookups in the current window of 256 and misses among them, block starts to walk without chains */
    uint32_t window, built, rest;
    /* statistics */
    uint64_t hits, misses;
};
/* Empties n entries (a power of two) of v and cold into c, no callbacks, counts 0. */
FWPT_API void fwpt_flow_chains_init(struct fwpt_flow_chains *c, struct fwpt_flow_chain *v, struct fwpt_flow_chain_cold *cold,
                           size_t n);

/* One record. */
struct fwpt_flow_blk {
    uint64_t ip;                        /* first instruction */
    const uint8_t *sizes;               /* a block: its instructions' sizes (valid until the next call) */
    struct fwpt_flow_chain *chain;      /* a chain (NULL: a block); its uses and ops' user words are the caller's */
    uint32_t ninsn;                     /* instructions */
    uint8_t iclass;                     /* a block: the class of its last instruction (FWPT_IC_OTHER: the block
                                         * was cut before its end, at an event's instruction) */
};

/* One call: the caller's buffer (v, cap >= 1) and chains (NULL: blocks only); stop_at: stop before the walk
 * takes a branch packet at or after this trace offset (FWPT_FLOW_NO_STOP: never) -- at the end of a block whose
 * branch takes it, no TNT bit in hand, nothing else pending, the packet read ahead: a TNT for a conditional
 * branch, a TIP for an indirect one. Two decoders there in the same state decode the rest alike. n: records
 * given; stopped: it stopped at stop_at (no record, no event). */
struct fwpt_flow_blocks {
    struct fwpt_flow_blk *v;
    uint32_t cap, n;
    struct fwpt_flow_chains *chains;
    uint64_t stop_at;
    uint8_t stopped;
};
/* FWPT_OK: q->n records, or q->n == 0 and *ev the next event (or q->stopped); FWPT_E_EOS at the end; else as
 * fwpt_flow_next. */
FWPT_API enum fwpt_status fwpt_flow_next_blocks(struct fwpt_flow *f, struct fwpt_flow_blocks *q, struct fwpt_flow_event *ev);
/* The block whose end waits for its packet (after a stop): true, with its last instruction's class and IP and its
 * fall-through; false when no block end waits. */
FWPT_API bool fwpt_flow_block_end(const struct fwpt_flow *f, uint8_t *iclass, uint64_t *last_ip, uint64_t *next_ip);

/* Where two flow decoders agree: a trace cut at its PSBs is decoded piece by piece, each piece by a decoder that
 * starts fresh at its PSB (fwpt_flow_sync_set), and the pieces join where the decoder of the piece before, going
 * on past the PSB, gets to the same place in the same state. */
enum fwpt_flow_seam {
    FWPT_FLOW_SEAM_DIFFERENT = 0, /* the decoders may go on differently */
    FWPT_FLOW_SEAM_SAME,          /* they decode the rest of the trace alike */
    /* alike, except that b's RET compression stack holds fewer (the newest) of a's entries: they differ only
     * where b finds its stack empty for a compressed RET (FWPT_E_RETSTACK), where a may pop an older entry */
    FWPT_FLOW_SEAM_SAME_STACK_TOP,
};
/* a: the decoder that went on past the PSB; b: the one that started at it. Both stopped by the block step's
 * stop_at: at the end of a block whose branch takes the packet read ahead, nothing else pending. Compares
 * everything the rest of the decode depends on. */
FWPT_API enum fwpt_flow_seam fwpt_flow_seam_compare(const struct fwpt_flow *a, const struct fwpt_flow *b);

FWPT_END_DECLS

#endif
