/* fwpt — software packet generation: given the programmed IA32_RTIT_CTL / ADDRn and the sequence
 * of retired instructions, emit the packets a processor would (SDM Vol. 3C "Intel Processor Trace":
 * TNT, TIP with IP compression, RET compression, FUP/TIP.PGE/TIP.PGD for IP filtering and TraceStop,
 * PSB+ every 2^(PSBFreq+11) bytes, TSC/TMA/MTC/CYC). Freestanding; bytes go out through a callback
 * (the output model's emit entry point, which honours STOP/END/INT and operational errors). */
#ifndef FWPT_SIM_SOFT_ENC_H
#define FWPT_SIM_SOFT_ENC_H

#include <stddef.h>
#include <stdint.h>
#include "arch/rtit.h"
#include "base/status.h"

/* Packet bytes in trace order. A non-OK status stops the encoder (reported by every later call). */
typedef enum fwpt_status (*fwpt_soft_emit_fn)(void *ctx, const uint8_t *bytes, size_t n);

struct fwpt_soft_enc_config {
    uint64_t ctl;                             /* IA32_RTIT_CTL as programmed (TraceEn ignored) */
    uint64_t addr_a[FWPT_MAX_ADDR_RANGES];    /* IA32_RTIT_ADDRn_A/B: inclusive ranges */
    uint64_t addr_b[FWPT_MAX_ADDR_RANGES];
    unsigned cpl;                             /* privilege level of the traced code (0 in firmware) */
    uint32_t tsc_per_ctc;                     /* TSC ticks per crystal clock tick (CPUID 15H); 0 = 1 */
};

/* One retired instruction. time: caller clock (TSC units) at retirement; core clocks for CYC are
 * counted in the same unit. */
struct fwpt_soft_insn {
    uint64_t ip;
    uint64_t next_ip;       /* IP of the next instruction executed (branch target or ip + size) */
    uint64_t time;
    uint8_t size;
    uint8_t iclass;         /* enum fwpt_insn_class (decode/insn.h) */
    uint8_t zero_len_call;  /* CALL_REL with displacement 0: not pushed (SDM RET compression rule 2) */
    uint8_t leaves;         /* next_ip is outside the traced call (return to the caller): TIP.PGD */
};

#define FWPT_SOFT_RETSTACK 64 /* SDM: "Allocate space to store 64 RET targets" */

struct fwpt_soft_enc_counts {
    uint64_t psb, tnt, tip, tip_pge, tip_pgd, fup, mode, tsc, tma, mtc, cyc, tracestop;
    uint64_t tnt_bits, ret_compressed, bytes;
};

struct fwpt_soft_enc {
    struct fwpt_soft_enc_config cfg;
    fwpt_soft_emit_fn emit;
    void *emit_ctx;
    enum fwpt_status status;
    uint64_t last_ip;           /* IP compression reference (SDM "Last IP"), 0 after PSB */
    uint8_t tnt_bits, tnt_count; /* pending short-TNT bits, oldest first in the high bits */
    uint64_t tnt_time;          /* time of the first pending TNT bit (CYC applies to it) */
    uint64_t retstack[FWPT_SOFT_RETSTACK];
    unsigned ret_top, ret_count;
    uint64_t psb_period, bytes_since_psb;
    uint64_t last_cyc_time, last_ctc;
    int trigger_en, packet_en, started;
    struct fwpt_soft_enc_counts counts;
};

/* Cfg is copied. Nothing is emitted until fwpt_soft_enc_start. */
void fwpt_soft_enc_init(struct fwpt_soft_enc *e, const struct fwpt_soft_enc_config *cfg,
                        fwpt_soft_emit_fn emit, void *emit_ctx);
/* TraceEn 0->1 with the next instruction at ip: PSB+ (TSC, TMA when on), then MODE.Exec and
 * TIP.PGE(ip) when PacketEn (CPL/OS/User, IP filter) holds at ip. TraceStop at ip stops at once. */
enum fwpt_status fwpt_soft_enc_start(struct fwpt_soft_enc *e, uint64_t ip, uint64_t time);
/* One retired instruction. */
enum fwpt_status fwpt_soft_enc_step(struct fwpt_soft_enc *e, const struct fwpt_soft_insn *insn);
/* The feed ends before the code does (the soft backend's step limit): with the next instruction at ip, tracing
 * ends there as a disable between instructions does, FUP(ip) + TIP.PGD(ip), so a decoder stops exactly after
 * the last instruction fed (SDM "Filtering by IP": a disable not at a branch). Nothing when PacketEn is clear. */
enum fwpt_status fwpt_soft_enc_end_at(struct fwpt_soft_enc *e, uint64_t ip, uint64_t time);
/* TraceEn 1->0 by WRMSR: pending TNT flushed, TIP.PGD without IP if PacketEn was still set. */
enum fwpt_status fwpt_soft_enc_stop(struct fwpt_soft_enc *e, uint64_t time);
/* TriggerEn (cleared by TraceStop). */
int fwpt_soft_enc_triggered(const struct fwpt_soft_enc *e);
/* Packet by packet, for traces written by hand (tests/cases): one packet as decode/packet.h describes it (type
 * and payload fields; offset and size ignored), in the SDM's format (Vol. 3C "Packet Definitions"), through the
 * emit callback. IP packets take ipc and payload as given (payload: the raw IP bytes); Last IP follows them (a PSB
 * resets it) for fwpt_soft_enc_ip. A type, ipc or field the SDM has no encoding for is FWPT_E_INVAL, nothing
 * written. The config may be all zero (no CYC, TNT or PSB of the instruction-driven encoder is added). */
struct fwpt_packet;
enum fwpt_status fwpt_soft_enc_packet(struct fwpt_soft_enc *e, const struct fwpt_packet *p);
/* FUP, TIP, TIP.PGE or TIP.PGD (type: enum fwpt_pkt_type) to ip, with the shortest IPBytes against Last IP. */
enum fwpt_status fwpt_soft_enc_ip(struct fwpt_soft_enc *e, unsigned type, uint64_t ip);
/* PacketEn at ip under the configured CPL and IP filter (SDM "Filtering by IP"). */
int fwpt_soft_enc_filter_en(const struct fwpt_soft_enc_config *cfg, uint64_t ip);
/* Whether ip lies in a TraceStop range. */
int fwpt_soft_enc_in_tracestop(const struct fwpt_soft_enc_config *cfg, uint64_t ip);

#endif
