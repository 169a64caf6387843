/* fwpt — fast instruction listings: the bytes fwpt_flow_print_event prints (text or JSON lines), for runs of
 * instructions at a time (fwpt_flow_next_batch), formatted straight into one large caller buffer that goes to the
 * sink when full. Per module a prefix is formatted once ("Name+0x", ",\"module\":\"Name\",\"module_offset\":\"0x"); hex
 * digits are made eight at a time; the module lookup is a range check on the last module (and on the last gap
 * between modules); the disassembly hook, when there is one, is asked once per (address, mode) and its text kept
 * in a small cache; so are the build's names (fwpt_flow_list_names: the resolver is asked once per address, its
 * column or JSON keys kept formatted). Events, and instructions the fast path leaves out (very long module or
 * function names), go through
 * fwpt_flow_print_event into the same buffer, so the output is the printer's, byte for byte.
 *
 *     static char buf[1 << 16];
 *     struct fwpt_flow_lister l;
 *     fwpt_flow_list_init(&l, &sink, FWPT_FLOW_FMT_JSONL, &mods, pre, NULL, NULL, NULL, 0, buf, sizeof buf);
 *     while (fwpt_flow_next_batch(&f, &insns, &n, &ev) == FWPT_OK)
 *         n ? fwpt_flow_list_insns(&l, insns, n) : fwpt_flow_list_event(&l, &ev);
 *     fwpt_flow_list_flush(&l);
 *
 * Freestanding, no allocation: the caller owns the buffer, the module prefixes and the disassembly cache. */
#ifndef FWPT_RENDER_FLOW_LIST_H
#define FWPT_RENDER_FLOW_LIST_H

#include <stddef.h>
#include <stdint.h>
#include "decode/flow.h"
#include "render/flow_print.h"

/* A module's prefixes, formatted once. Names too long for them (text: more than 76 bytes, where the printer
 * would cut "Name+0xoffset" at 95; JSON: more than 103 bytes escaped) are left to the printer. */
struct fwpt_list_module {
    uint8_t text_len, json_len; /* 0: left to fwpt_flow_print_event */
    char text[80];              /* "Name+0x" */
    char json[128];             /* ",\"module\":\"Name\",\"module_offset\":\"0x" */
};

/* One disassembly cache entry: what follows the size for (ip, mode), as the printer writes it. */
struct fwpt_list_asm {
    uint64_t ip;
    uint8_t used, mode, len; /* len: bytes in text (0: the hook had no text) */
    char text[117];          /* "  mov eax, ebx" (text) or ",\"asm\":\"mov eax, ebx\"" (jsonl) */
};

/* One name cache entry: what the build's symbols add for ip, formatted as the printer writes it: text, the column
 * "FUNC+0xOFF (FILE:LINE)" padded to 28 (named: the resolver knows the function; else the module's column);
 * JSON, the keys after "module_offset" (render/names.h). */
#define FWPT_LIST_NAME_TEXT 240u
struct fwpt_list_name {
    uint64_t ip;
    uint8_t used, named, slow; /* slow: longer than FWPT_LIST_NAME_TEXT, left to the printer */
    uint8_t len;               /* bytes in text */
    char text[FWPT_LIST_NAME_TEXT + 4];
};

/* Free room kept at the buffer's end for one instruction line; the buffer must hold at least twice this. */
#define FWPT_LIST_LINE_MAX 1280u

struct fwpt_flow_lister {
    struct fwpt_flow_printer pr;      /* events, and what the fast path leaves out; pr.out is bsink */
    struct fwpt_sink bsink;           /* appends to buf */
    const struct fwpt_sink *out;      /* full buffers go here */
    char *buf;
    size_t cap, len;
    struct fwpt_list_module *pre;     /* pr.mods->n entries, or NULL */
    struct fwpt_list_asm *acache;     /* NULL: the hook is asked every time */
    size_t amask;
    uint64_t gap_lo, gap_hi;          /* [gap_lo, gap_hi]: addresses in no module (when gap_valid) */
    uint8_t gap_valid;
    struct fwpt_list_name *ncache;    /* the names of the instructions' addresses (fwpt_flow_list_names) */
    size_t nmask;
    uint64_t insns;                   /* instructions listed */
};

/* mods may be NULL; pre: mods->n entries (NULL: every instruction in a module goes through the printer).
 * acache: nacache entries, a power of two (or NULL, 0). The disassembly hook must give the same text for the
 * same (ip, mode) during one listing (the code does not change under a saved trace). A buffer under
 * 2 * FWPT_LIST_LINE_MAX bytes works, through the printer alone (slowly). */
void fwpt_flow_list_init(struct fwpt_flow_lister *l, const struct fwpt_sink *out, enum fwpt_flow_format fmt,
                           struct fwpt_modules *mods, struct fwpt_list_module *pre, fwpt_disasm_fn disasm,
                           void *disasm_ctx, struct fwpt_list_asm *acache, size_t nacache, char *buf, size_t cap);
/* Names from the build's symbols (render/resolve.h; NULL: none), as the printer shows them, through a cache of
 * ncache entries (a power of two) the caller owns (NULL, 0: every named instruction through the printer). The
 * resolver must give the same answer for the same address during one listing. */
void fwpt_flow_list_names(struct fwpt_flow_lister *l, const struct fwpt_resolver *r, struct fwpt_list_name *cache,
                          size_t ncache);
/* n consecutive instructions (kind FWPT_FLOW_INSN), as fwpt_flow_next_batch gives them. */
void fwpt_flow_list_insns(struct fwpt_flow_lister *l, const struct fwpt_flow_obuf_insn *v, uint32_t n);
/* One event (or instruction). */
void fwpt_flow_list_event(struct fwpt_flow_lister *l, const struct fwpt_flow_event *ev);
/* fwpt_flow_print_cut into the same buffer. */
void fwpt_flow_list_cut(struct fwpt_flow_lister *l, uint64_t ip, uint64_t offset);
/* Hands what the buffer holds to the sink. */
void fwpt_flow_list_flush(struct fwpt_flow_lister *l);

#endif
