/* fwpt — printing the instruction flow (text or JSON lines) and its summaries (instructions per
 * module and per function entry, call tree with counts). Freestanding: everything goes through
 * struct fwpt_sink, tables are caller-provided, so the EFI console and the host tool print the
 * same bytes. Disassembly is an optional hook (the host tool plugs Zydis in). */
#ifndef FWPT_DECODE_FLOW_PRINT_H
#define FWPT_DECODE_FLOW_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "decode/flow.h"

/* A loaded image: instructions inside [base, base+size) print as "name+0xoffset". */
struct fwpt_module {
    const char *name;
    uint64_t base, size;
};

struct fwpt_modules {
    const struct fwpt_module *v;
    size_t n;
    size_t last; /* lookup cache */
};

/* The module holding ip, or NULL. Index in *index (n when none) if index is not NULL. */
const struct fwpt_module *fwpt_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index);

/* Optional disassembler: writes a NUL-terminated text for the instruction into out. Returns 0 when
 * it has none. */
typedef size_t (*fwpt_disasm_fn)(void *ctx, uint64_t ip, uint8_t mode, char *out, size_t cap);

enum fwpt_flow_format { FWPT_FLOW_FMT_TEXT = 0, FWPT_FLOW_FMT_JSONL };

struct fwpt_flow_printer {
    const struct fwpt_sink *out;
    enum fwpt_flow_format format;
    struct fwpt_modules *mods;  /* may be NULL */
    fwpt_disasm_fn disasm;      /* may be NULL */
    void *disasm_ctx;
    uint8_t intx;               /* private: inside a TSX transaction (from the TSX events printed) */
};

/* One line per instruction or event.
 * text:  "0x<ip16>  Module+0xoff  <size>  <disassembly>"  /  "-- <event> ..."
 * jsonl: {"type":"insn","ip":"0x..","size":N[,"module":"..","offset":"0x.."][,"asm":".."][,"spec":true]}
 *        {"type":"enabled","ip":"0x..","offset":N[,"sync":true][,"resumed":true]}
 *        {"type":"disabled"[,"ip":"0x.."][,"target":"0x.."],"async":true|false,"offset":N}
 *          (async: ip = the FUP's, the next instruction not executed; target: the TIP.PGD's IP, if any)
 *        {"type":"interrupt","from":"0x..","to":"0x..","offset":N}
 *        {"type":"overflow"[,"ip":"0x.."],"offset":N}
 *        {"type":"mode","mode":16|32|64,"offset":N}
 *        {"type":"error","status":"NAME","message":"..","ip":"0x..","offset":N}
 *        {"type":"tsx","tsx":"begin"|"commit"|"abort"[,"ip":"0x.."][,"status":true],"offset":N}
 *        {"type":"stopped","offset":N}
 *        {"type":"paging","cr3":"0x..","nr":true|false,"offset":N}
 *        {"type":"vmcs","base":"0x..","offset":N}
 *        {"type":"ptwrite","payload":"0x..","bytes":4|8[,"ip":"0x.."],"offset":N}
 *        {"type":"exstop"[,"ip":"0x.."],"offset":N}
 *        {"type":"cbr","ratio":N,"offset":N}
 *        {"type":"mnt","payload":"0x..","offset":N}
 *        {"type":"mwait","hints":"0x..","ext":"0x.."[,"ip":"0x.."],"offset":N}
 *        {"type":"pwre","state":"C1.0","hw":true|false,"offset":N}
 *        {"type":"pwrx","last":"C1","deepest":"C0","wake":"interrupt|timer|store|hw|none","offset":N}
 *        {"type":"trig","trbv":"0x..","mult":true|false[,"ip":"0x.."],"offset":N}
 *        {"type":"end","offset":N}   (the trace data ends; later instructions follow from the code)
 * "spec": the instruction ran inside a TSX transaction (printed after a tsx begin, until commit/abort).
 * fwpt_flow_print_event_time: the same with the item's time (fwpt_flow_time): jsonl ,"tsc":"0x.." after "type"
 * (and ,"tsc_rel":true when tsc_ok is false: before the first TSC, the time MTC and CYC counted from 0); text:
 * the time as 16 hex digits first on the line, then two spaces ("~ " before the first TSC).
 * Module names and offsets are added to event IPs as "module"/"offset" (or "from_module"...). */
void fwpt_flow_print_event(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev);
void fwpt_flow_print_event_time(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, uint64_t tsc,
                                bool tsc_ok);
/* After the last event, when fwpt_flow_cut says the trace was cut (offset: the trace's length):
 * text:  "-- end of trace with tracing on: the walk stopped at 0x.. (Module+0x..), which needs a packet ..."
 * jsonl: {"type":"cut","ip":"0x..","offset":N} */
void fwpt_flow_print_cut(const struct fwpt_flow_printer *p, uint64_t ip, uint64_t offset);
/* A tick (fwpt_flow_tick: the branch at ip took a packet that changed the time to tsc), as libipt's tick event:
 * text:  "-- tick 0x<tsc16> at 0x.. (Module+0x..)"   jsonl: {"type":"tick","tsc":"0x..","ip":"0x.."} */
void fwpt_flow_print_tick(const struct fwpt_flow_printer *p, uint64_t ip, uint64_t tsc, bool tsc_ok);

/* ---- summaries ---- */

#define FWPT_PROFILE_DEPTH 256

struct fwpt_profile_func {
    uint64_t entry;  /* FWPT_FLOW_NO_IP: free slot */
    uint64_t calls;
    uint64_t insns;  /* executed while this function was the innermost one (self) */
};

struct fwpt_profile_node { /* call tree: one node per (caller node, callee entry) */
    uint64_t entry;
    uint64_t calls, insns, total; /* total: insns of the node and everything below it */
    uint32_t parent, first_child, last_child, next_sibling, depth;
};

/* Optional per-call hook (decode/flame: one Trace Event slice per call): PUSH after a frame was entered (p->insns:
 * the index of its first instruction), POP before one is left (p->insns: one past its last instruction; an
 * overflow or error pops every frame), DROP_OUTER before the outermost frame is dropped at FWPT_PROFILE_DEPTH. */
enum fwpt_frame_op { FWPT_FRAME_PUSH, FWPT_FRAME_POP, FWPT_FRAME_DROP_OUTER };
struct fwpt_profile;
typedef void (*fwpt_frame_fn)(void *ctx, const struct fwpt_profile *p, enum fwpt_frame_op op, uint32_t node);

struct fwpt_profile {
    struct fwpt_modules *mods;
    fwpt_frame_fn frame_hook;      /* NULL after fwpt_profile_init; set it to follow every call */
    void *frame_ctx;
    uint64_t *mod_insns;           /* mods->n + 1 counters: the last one counts IPs in no module */
    struct fwpt_profile_func *funcs;
    size_t funcs_mask;             /* table size - 1 (power of two) */
    size_t nfuncs;
    struct fwpt_profile_node *nodes; /* nodes[0] is the root (code outside any traced call) */
    size_t nodes_cap, nnodes;
    uint32_t *node_hash;           /* open addressing: node index + 1, 0 free */
    size_t node_hash_mask;
    uint32_t stack_node[FWPT_PROFILE_DEPTH];
    uint32_t stack_func[FWPT_PROFILE_DEPTH];
    uint32_t depth;                /* stack_*[depth-1] is the innermost frame; 0: root */
    uint8_t call_pending, ret_pending;
    uint64_t call_next;            /* next IP of the pending call: a zero-length call lands there */
    uint64_t insns, events, dropped; /* dropped: functions/nodes that did not fit the tables */
    uint8_t unit;                  /* what insns counts: FWPT_PROFILE_UNIT_* (decode/time_spread: ticks) */
};
enum { FWPT_PROFILE_UNIT_INSNS = 0, FWPT_PROFILE_UNIT_TICKS };
/* "instructions" / "TSC ticks"; short: "insns" / "ticks" */
const char *fwpt_profile_unit(const struct fwpt_profile *p, bool short_name);

/* Table sizes: nfuncs and nhash powers of two; nodes >= 1. mod_insns has mods->n + 1 entries
 * (mods may be NULL: then 1). */
void fwpt_profile_init(struct fwpt_profile *p, struct fwpt_modules *mods, uint64_t *mod_insns,
                       struct fwpt_profile_func *funcs, size_t nfuncs, struct fwpt_profile_node *nodes,
                       size_t nnodes, uint32_t *node_hash, size_t nhash);
/* Feed every instruction and event in order. */
void fwpt_profile_add(struct fwpt_profile *p, const struct fwpt_flow_event *ev);
/* The same, an instruction counting w (decode/time_spread: its TSC ticks) instead of 1. */
void fwpt_profile_add_weight(struct fwpt_profile *p, const struct fwpt_flow_event *ev, uint64_t w);
/* Instructions per module, then the top_n functions by instructions (self). */
void fwpt_profile_print(struct fwpt_profile *p, const struct fwpt_sink *out, size_t top_n);
/* The call tree, indented by depth (up to max_depth levels), with calls and instructions
 * (self and total) per node. */
void fwpt_calltree_print(struct fwpt_profile *p, const struct fwpt_sink *out, uint32_t max_depth);

#endif
