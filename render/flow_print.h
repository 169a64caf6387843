/* fwpt — printing the instruction flow (text or JSON lines), with Module+offset from the image map
 * (decode/image). Freestanding: everything goes through struct fwpt_sink, so the EFI console and the
 * host tool print the same bytes. Disassembly is an optional hook (the host tool plugs Zydis in).
 * The summaries (profile, call tree) are analyze/profile's. */
#ifndef FWPT_RENDER_FLOW_PRINT_H
#define FWPT_RENDER_FLOW_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/text.h"
#include "decode/flow.h"
#include "decode/image.h"
#include "render/resolve.h"

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
    const struct fwpt_resolver *resolver; /* the build's symbols (render/resolve.h), NULL: none */
};

/* One line per instruction or event.
 * text:  "0x<ip16>  Module+0xoff  <size>  <disassembly>"  /  "-- <event> ..."
 *        (with a resolver that knows the function: "FUNC+0xOFF (FILE:LINE)" in Module+0xoff's column, 28 wide)
 * jsonl: {"type":"insn","ip":"0x..","size":N[,"module":"..","offset":"0x.."][,"function":"FUNC",
 *         "function_offset":"0x..","file":"..","line":N,"inlined":true][,"asm":".."][,"spec":true]}
 *        (the names' keys each when the resolver knows it: render/names.h)
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

#endif
