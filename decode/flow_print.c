/* fwpt — flow printers and summaries (see flow_print.h). */
#include "decode/flow_print.h"
#include "decode/flow_print_internal.h"

const struct fwpt_module *fwpt_module_find(struct fwpt_modules *m, uint64_t ip, size_t *index)
{
    if (m && m->n) {
        size_t i = m->last < m->n ? m->last : 0;
        if (ip - m->v[i].base < m->v[i].size) {
            if (index)
                *index = i;
            return &m->v[i];
        }
        for (i = 0; i < m->n; i++)
            if (ip - m->v[i].base < m->v[i].size) {
                m->last = i;
                if (index)
                    *index = i;
                return &m->v[i];
            }
    }
    if (index)
        *index = m ? m->n : 0;
    return NULL;
}

/* "Module+0xoff" or "" */
static void put_where(struct fwpt_modules *mods, const struct fwpt_sink *o, uint64_t ip, unsigned width)
{
    char buf[96];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    const struct fwpt_module *m = fwpt_module_find(mods, ip, NULL);
    if (m) {
        fwpt_puts(&s, m->name);
        fwpt_putc(&s, '+');
        fwpt_put_0x(&s, ip - m->base);
    }
    buf[b.len < sizeof buf ? b.len : sizeof buf - 1] = 0;
    if (width)
        fwpt_put_padded(o, buf, width);
    else
        fwpt_puts(o, buf);
}

static void json_ip(const struct fwpt_flow_printer *p, const char *key, const char *mkey, const char *okey,
                    uint64_t ip)
{
    const struct fwpt_sink *o = p->out;
    fwpt_puts(o, ",\"");
    fwpt_puts(o, key);
    fwpt_puts(o, "\":\"");
    fwpt_put_0x(o, ip);
    fwpt_putc(o, '"');
    const struct fwpt_module *m = fwpt_module_find(p->mods, ip, NULL);
    if (m) {
        fwpt_puts(o, ",\"");
        fwpt_puts(o, mkey);
        fwpt_puts(o, "\":");
        fwpt_put_json_str(o, m->name);
        fwpt_puts(o, ",\"");
        fwpt_puts(o, okey);
        fwpt_puts(o, "\":\"");
        fwpt_put_0x(o, ip - m->base);
        fwpt_putc(o, '"');
    }
}

static void json_offset(const struct fwpt_sink *o, uint64_t off)
{
    fwpt_puts(o, ",\"offset\":");
    fwpt_put_dec(o, off);
}

/* PWRE/PWRX C-state fields hold the C-state minus one, modulo 16 (SDM "PWRE Packet": 0000b C1 ...
 * 1111b C0), as MWAIT's hints do. */
static unsigned cstate(uint8_t raw) { return (raw + 1u) & 0xfu; }

/* PWRX wake reason bits (SDM "PWRX Packet"): interrupt, timer deadline, store to the monitored
 * address, hardware (autonomous) wake; the first set one. */
static const char *wake_name(uint32_t w)
{
    return w & 1 ? "interrupt" : w & 2 ? "timer" : w & 4 ? "store" : w & 8 ? "hw" : "none";
}

/* CFE types by their SDM names (Table "CFE Packet Type and Vector Fields"), lower case; NULL: reserved. */
static const char *cfe_name(uint8_t t)
{
    static const char *const names[16] = {
        NULL, "intr", "iret", "smi", "rsm", "sipi", "init", "vmentry", "vmexit", "vmexit_intr", "shutdown",
        NULL, "uintr", "uiret", "swintr", "syscall",
    };
    return t < 16 ? names[t] : NULL;
}

/* Does the CFE type carry a vector (INTR, VMEXIT_INTR, SIPI, UINTR, SWINTR)? */
static bool cfe_has_vector(uint8_t t)
{
    return t == FWPT_CFE_INTR || t == FWPT_CFE_VMEXIT_INTR || t == FWPT_CFE_SIPI || t == FWPT_CFE_UINTR ||
           t == FWPT_CFE_SWINTR;
}

static void put_cstate(const struct fwpt_sink *o, uint8_t raw)
{
    fwpt_putc(o, 'C');
    fwpt_put_dec(o, cstate(raw));
}

static const char *tsx_name(uint8_t what)
{
    return what == FWPT_TSX_BEGIN ? "begin" : what == FWPT_TSX_COMMIT ? "commit" : "abort";
}

static void print_jsonl(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
    fwpt_puts(o, "{\"type\":\"");
    fwpt_puts(o, fwpt_flow_kind_name((enum fwpt_flow_kind)ev->kind));
    fwpt_putc(o, '"');
    switch (ev->kind) {
    case FWPT_FLOW_INSN: {
        fwpt_puts(o, ",\"ip\":\"");
        fwpt_put_0x(o, ev->ip);
        fwpt_puts(o, "\",\"size\":");
        fwpt_put_dec(o, ev->size);
        const struct fwpt_module *m = fwpt_module_find(p->mods, ev->ip, NULL);
        if (m) {
            fwpt_puts(o, ",\"module\":");
            fwpt_put_json_str(o, m->name);
            fwpt_puts(o, ",\"offset\":\"");
            fwpt_put_0x(o, ev->ip - m->base);
            fwpt_putc(o, '"');
        }
        char text[128];
        if (p->disasm && p->disasm(p->disasm_ctx, ev->ip, ev->mode, text, sizeof text)) {
            text[sizeof text - 1] = 0;
            fwpt_puts(o, ",\"asm\":");
            fwpt_put_json_str(o, text);
        }
        if (p->intx)
            fwpt_puts(o, ",\"spec\":true");
        break;
    }
    case FWPT_FLOW_ENABLED:
        json_ip(p, "ip", "module", "module_offset", ev->ip);
        if (ev->sync)
            fwpt_puts(o, ",\"sync\":true");
        if (ev->detail)
            fwpt_puts(o, ",\"resumed\":true");
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_DISABLED:
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        if (ev->async && ev->detail)
            json_ip(p, "target", "target_module", "target_offset", ev->to);
        fwpt_puts(o, ev->async ? ",\"async\":true" : ",\"async\":false");
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_INTERRUPT:
        json_ip(p, "from", "from_module", "from_offset", ev->ip);
        json_ip(p, "to", "to_module", "to_offset", ev->to);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_OVERFLOW:
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_MODE:
        fwpt_puts(o, ",\"mode\":");
        fwpt_put_dec(o, ev->mode);
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_CFE: {
        const char *name = cfe_name(ev->detail);
        fwpt_puts(o, ",\"cfe\":\"");
        fwpt_puts(o, name ? name : "reserved");
        fwpt_puts(o, "\",\"cfe_type\":");
        fwpt_put_dec(o, ev->detail);
        if (cfe_has_vector(ev->detail)) {
            fwpt_puts(o, ",\"vector\":");
            fwpt_put_dec(o, ev->size);
        }
        if (ev->status & FWPT_EVD_CR2) {
            fwpt_puts(o, ",\"cr2\":\"");
            fwpt_put_0x(o, ev->to);
            fwpt_putc(o, '"');
        }
        if (ev->status & FWPT_EVD_VMXQ) {
            fwpt_puts(o, ",\"vmxq\":\"");
            fwpt_put_0x(o, ev->to);
            fwpt_putc(o, '"');
        }
        if (ev->status & FWPT_EVD_VMXR) {
            fwpt_puts(o, ",\"vmxr\":\"");
            fwpt_put_0x(o, ev->data);
            fwpt_putc(o, '"');
        }
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    }
    case FWPT_FLOW_IFLAGS:
        fwpt_puts(o, ev->detail ? ",\"if\":true" : ",\"if\":false");
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_ERROR:
        fwpt_puts(o, ",\"status\":");
        fwpt_put_json_str(o, fwpt_status_name((enum fwpt_status)ev->status));
        fwpt_puts(o, ",\"message\":");
        fwpt_put_json_str(o, fwpt_status_msg((enum fwpt_status)ev->status));
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_TSX:
        fwpt_puts(o, ",\"tsx\":\"");
        fwpt_puts(o, tsx_name(ev->detail));
        fwpt_putc(o, '"');
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        if (ev->sync)
            fwpt_puts(o, ",\"status\":true");
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_PAGING:
        fwpt_puts(o, ",\"cr3\":\"");
        fwpt_put_0x(o, ev->to);
        fwpt_puts(o, ev->detail ? "\",\"nr\":true" : "\",\"nr\":false");
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_VMCS:
        fwpt_puts(o, ",\"base\":\"");
        fwpt_put_0x(o, ev->to);
        fwpt_putc(o, '"');
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_PTWRITE:
        fwpt_puts(o, ",\"payload\":\"");
        fwpt_put_0x(o, ev->to);
        fwpt_puts(o, "\",\"bytes\":");
        fwpt_put_dec(o, ev->size);
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_EXSTOP:
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_CBR:
        fwpt_puts(o, ",\"ratio\":");
        fwpt_put_dec(o, ev->detail);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_MNT:
        fwpt_puts(o, ",\"payload\":\"");
        fwpt_put_0x(o, ev->to);
        fwpt_putc(o, '"');
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_MWAIT:
        fwpt_puts(o, ",\"hints\":\"");
        fwpt_put_0x(o, ev->to & 0xffffffffu);
        fwpt_puts(o, "\",\"ext\":\"");
        fwpt_put_0x(o, ev->to >> 32);
        fwpt_putc(o, '"');
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_PWRE:
        fwpt_puts(o, ",\"state\":\"");
        put_cstate(o, ev->detail);
        fwpt_putc(o, '.');
        fwpt_put_dec(o, cstate(ev->size));
        fwpt_puts(o, ev->async ? "\",\"hw\":true" : "\",\"hw\":false");
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_PWRX:
        fwpt_puts(o, ",\"last\":\"");
        put_cstate(o, ev->detail);
        fwpt_puts(o, "\",\"deepest\":\"");
        put_cstate(o, ev->size);
        fwpt_puts(o, "\",\"wake\":\"");
        fwpt_puts(o, wake_name(ev->status));
        fwpt_putc(o, '"');
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_TRIG:
        fwpt_puts(o, ",\"trbv\":\"");
        fwpt_put_0x(o, ev->detail);
        fwpt_puts(o, ev->async ? "\",\"mult\":true" : "\",\"mult\":false");
        if (ev->ip_valid)
            json_ip(p, "ip", "module", "module_offset", ev->ip);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_STOPPED:
    case FWPT_FLOW_END:
        json_offset(o, ev->offset);
        break;
    default:
        break;
    }
    fwpt_puts(o, "}\n");
}

static void text_ip(const struct fwpt_flow_printer *p, uint64_t ip)
{
    fwpt_put_0x(p->out, ip);
    const struct fwpt_module *m = fwpt_module_find(p->mods, ip, NULL);
    if (m) {
        fwpt_puts(p->out, " (");
        put_where(p->mods, p->out, ip, 0);
        fwpt_putc(p->out, ')');
    }
}

static void text_offset(const struct fwpt_sink *o, uint64_t off)
{
    fwpt_puts(o, " [trace offset ");
    fwpt_put_0x(o, off);
    fwpt_puts(o, "]\n");
}

static void print_text(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
    switch (ev->kind) {
    case FWPT_FLOW_INSN: {
        fwpt_puts(o, "0x");
        fwpt_put_hex(o, ev->ip, 16);
        fwpt_puts(o, "  ");
        put_where(p->mods, o, ev->ip, p->mods && p->mods->n ? 28 : 0);
        fwpt_puts(o, ev->size < 10 ? "  " : " ");
        fwpt_put_dec(o, ev->size);
        if (p->intx)
            fwpt_puts(o, " ?"); /* inside a TSX transaction: committed or discarded later */
        char text[128];
        if (p->disasm && p->disasm(p->disasm_ctx, ev->ip, ev->mode, text, sizeof text)) {
            text[sizeof text - 1] = 0;
            fwpt_puts(o, "  ");
            fwpt_puts(o, text);
        }
        fwpt_putc(o, '\n');
        return;
    }
    case FWPT_FLOW_ENABLED:
        fwpt_puts(o, ev->sync ? "-- enabled (PSB+) at " : "-- enabled at ");
        text_ip(p, ev->ip);
        break;
    case FWPT_FLOW_DISABLED:
        fwpt_puts(o, ev->async ? "-- disabled at " : "-- disabled");
        if (ev->ip_valid) {
            if (!ev->async)
                fwpt_puts(o, " (target ");
            text_ip(p, ev->ip);
            if (!ev->async)
                fwpt_putc(o, ')');
        }
        break;
    case FWPT_FLOW_INTERRUPT:
        fwpt_puts(o, "-- interrupt from ");
        text_ip(p, ev->ip);
        fwpt_puts(o, " to ");
        text_ip(p, ev->to);
        break;
    case FWPT_FLOW_OVERFLOW:
        fwpt_puts(o, "-- overflow");
        if (ev->ip_valid) {
            fwpt_puts(o, ", resumes at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_MODE:
        fwpt_puts(o, "-- mode ");
        fwpt_put_dec(o, ev->mode);
        fwpt_puts(o, "-bit");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_CFE: {
        const char *name = cfe_name(ev->detail);
        fwpt_puts(o, "-- event ");
        if (name) {
            fwpt_puts(o, name);
        } else {
            fwpt_puts(o, "type ");
            fwpt_put_dec(o, ev->detail);
        }
        if (cfe_has_vector(ev->detail)) {
            fwpt_puts(o, " vector ");
            fwpt_put_dec(o, ev->size);
        }
        if (ev->status & FWPT_EVD_CR2) {
            fwpt_puts(o, ", cr2 ");
            fwpt_put_0x(o, ev->to);
        }
        if (ev->status & FWPT_EVD_VMXR) {
            fwpt_puts(o, ", exit reason ");
            fwpt_put_0x(o, ev->data);
        }
        if (ev->status & FWPT_EVD_VMXQ) {
            fwpt_puts(o, ", exit qualification ");
            fwpt_put_0x(o, ev->to);
        }
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    }
    case FWPT_FLOW_IFLAGS:
        fwpt_puts(o, ev->detail ? "-- interrupts enabled (IF=1)" : "-- interrupts disabled (IF=0)");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_TSX:
        fwpt_puts(o, ev->sync ? "-- in a TSX transaction (PSB+ status)" :
                     ev->detail == FWPT_TSX_BEGIN ? "-- TSX transaction begins" :
                     ev->detail == FWPT_TSX_COMMIT ? "-- TSX transaction commits" : "-- TSX transaction aborts");
        if (ev->sync && ev->detail != FWPT_TSX_BEGIN)
            fwpt_puts(o, ": no");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_STOPPED:
        fwpt_puts(o, "-- tracing stopped (TraceStop)");
        break;
    case FWPT_FLOW_PAGING:
        fwpt_puts(o, "-- paging: CR3 ");
        fwpt_put_0x(o, ev->to);
        if (ev->detail)
            fwpt_puts(o, " (non-root)");
        break;
    case FWPT_FLOW_VMCS:
        fwpt_puts(o, "-- VMCS ");
        fwpt_put_0x(o, ev->to);
        break;
    case FWPT_FLOW_PTWRITE:
        fwpt_puts(o, "-- ptwrite ");
        fwpt_put_0x(o, ev->to);
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_EXSTOP:
        fwpt_puts(o, "-- execution stopped (EXSTOP)");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_CBR:
        fwpt_puts(o, "-- core:bus ratio ");
        fwpt_put_dec(o, ev->detail);
        break;
    case FWPT_FLOW_MNT:
        fwpt_puts(o, "-- maintenance packet ");
        fwpt_put_0x(o, ev->to);
        break;
    case FWPT_FLOW_MWAIT:
        fwpt_puts(o, "-- MWAIT hints ");
        fwpt_put_0x(o, ev->to & 0xffffffffu);
        fwpt_puts(o, ", extensions ");
        fwpt_put_0x(o, ev->to >> 32);
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_PWRE:
        fwpt_puts(o, "-- power entry: ");
        put_cstate(o, ev->detail);
        fwpt_putc(o, '.');
        fwpt_put_dec(o, cstate(ev->size));
        if (ev->async)
            fwpt_puts(o, " (hardware)");
        break;
    case FWPT_FLOW_PWRX:
        fwpt_puts(o, "-- power exit: last ");
        put_cstate(o, ev->detail);
        fwpt_puts(o, ", deepest ");
        put_cstate(o, ev->size);
        fwpt_puts(o, ", wake: ");
        fwpt_puts(o, wake_name(ev->status));
        break;
    case FWPT_FLOW_TRIG:
        fwpt_puts(o, "-- trigger ");
        fwpt_put_0x(o, ev->detail);
        if (ev->async)
            fwpt_puts(o, " (fired more than once)");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    case FWPT_FLOW_END:
        fwpt_puts(o, "-- end of the trace data, tracing on: what follows comes from the code alone");
        break;
    case FWPT_FLOW_ERROR:
        fwpt_puts(o, "-- error: ");
        fwpt_puts(o, fwpt_status_msg((enum fwpt_status)ev->status));
        fwpt_puts(o, " (");
        fwpt_puts(o, fwpt_status_name((enum fwpt_status)ev->status));
        fwpt_puts(o, ")");
        if (ev->ip_valid) {
            fwpt_puts(o, " at ");
            text_ip(p, ev->ip);
        }
        break;
    default:
        fwpt_puts(o, "-- ?");
        break;
    }
    text_offset(o, ev->offset);
}

void fwpt_flow_print_event(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    if (ev->kind == FWPT_FLOW_TSX)
        p->intx = ev->detail == FWPT_TSX_BEGIN;
    else if (ev->kind == FWPT_FLOW_OVERFLOW)
        p->intx = 0; /* unknown after an overflow until the next MODE.TSX */
    if (p->format == FWPT_FLOW_FMT_JSONL)
        print_jsonl(p, ev);
    else
        print_text(p, ev);
}

void fwpt_flow_print_cut(const struct fwpt_flow_printer *p, uint64_t ip, uint64_t offset)
{
    const struct fwpt_sink *o = p->out;
    if (p->format == FWPT_FLOW_FMT_JSONL) {
        fwpt_puts(o, "{\"type\":\"cut\"");
        json_ip(p, "ip", "module", "module_offset", ip);
        json_offset(o, offset);
        fwpt_puts(o, "}\n");
        return;
    }
    fwpt_puts(o, "-- end of trace with tracing on: the walk stopped at ");
    text_ip(p, ip);
    fwpt_puts(o, ", which needs a packet the trace does not hold (buffer full or file cut); the instructions "
                 "after the last packet follow from the code");
    text_offset(o, offset);
}

/* ---- summaries ---- */

void fwpt_profile_init(struct fwpt_profile *p, struct fwpt_modules *mods, uint64_t *mod_insns,
                       struct fwpt_profile_func *funcs, size_t nfuncs, struct fwpt_profile_node *nodes,
                       size_t nnodes, uint32_t *node_hash, size_t nhash)
{
    fwpt_memset(p, 0, sizeof *p);
    p->mods = mods;
    p->mod_insns = mod_insns;
    fwpt_memset(mod_insns, 0, ((mods ? mods->n : 0) + 1) * sizeof *mod_insns);
    p->funcs = funcs;
    p->funcs_mask = nfuncs - 1;
    for (size_t i = 0; i < nfuncs; i++) {
        funcs[i].entry = FWPT_FLOW_NO_IP;
        funcs[i].calls = funcs[i].insns = 0;
    }
    p->nodes = nodes;
    p->nodes_cap = nnodes;
    p->node_hash = node_hash;
    p->node_hash_mask = nhash - 1;
    fwpt_memset(node_hash, 0, nhash * sizeof *node_hash);
    fwpt_memset(&nodes[0], 0, sizeof nodes[0]);
    nodes[0].entry = FWPT_FLOW_NO_IP;
    p->nnodes = 1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Function slot for entry, created if needed; (size_t)-1 when the table is full. */
static size_t func_slot(struct fwpt_profile *p, uint64_t entry)
{
    size_t i = (size_t)mix(entry) & p->funcs_mask;
    for (size_t k = 0; k <= p->funcs_mask; k++, i = (i + 1) & p->funcs_mask) {
        if (p->funcs[i].entry == entry)
            return i;
        if (p->funcs[i].entry == FWPT_FLOW_NO_IP) {
            if (p->nfuncs * 4 >= (p->funcs_mask + 1) * 3)
                break; /* keep the table at most 3/4 full */
            p->funcs[i].entry = entry;
            p->nfuncs++;
            return i;
        }
    }
    p->dropped++;
    return (size_t)-1;
}

static uint32_t node_child(struct fwpt_profile *p, uint32_t parent, uint64_t entry)
{
    size_t i = (size_t)mix(entry * 31 + parent) & p->node_hash_mask;
    for (size_t k = 0; k <= p->node_hash_mask; k++, i = (i + 1) & p->node_hash_mask) {
        uint32_t n = p->node_hash[i];
        if (!n)
            break;
        if (p->nodes[n - 1].entry == entry && p->nodes[n - 1].parent == parent)
            return n - 1;
    }
    if (p->nnodes >= p->nodes_cap || p->node_hash[i] || p->nnodes * 4 >= (p->node_hash_mask + 1) * 3) {
        p->dropped++;
        return parent; /* table full: count in the caller's node */
    }
    uint32_t n = (uint32_t)p->nnodes++;
    struct fwpt_profile_node *d = &p->nodes[n];
    fwpt_memset(d, 0, sizeof *d);
    d->entry = entry;
    d->parent = parent;
    d->depth = p->nodes[parent].depth + 1;
    if (p->nodes[parent].first_child)
        p->nodes[p->nodes[parent].last_child].next_sibling = n;
    else
        p->nodes[parent].first_child = n;
    p->nodes[parent].last_child = n;
    p->node_hash[i] = n + 1;
    return n;
}

static void enter(struct fwpt_profile *p, uint64_t entry)
{
    uint32_t parent = p->depth ? p->stack_node[p->depth - 1] : 0;
    uint32_t node = node_child(p, parent, entry);
    size_t fs = func_slot(p, entry);
    p->nodes[node].calls++;
    if (fs != (size_t)-1)
        p->funcs[fs].calls++;
    if (p->depth == FWPT_PROFILE_DEPTH) {
        if (p->frame_hook)
            p->frame_hook(p->frame_ctx, p, FWPT_FRAME_DROP_OUTER, p->stack_node[0]);
        /* drop the outermost frame */
        for (uint32_t k = 1; k < FWPT_PROFILE_DEPTH; k++) {
            p->stack_node[k - 1] = p->stack_node[k];
            p->stack_func[k - 1] = p->stack_func[k];
        }
        p->depth--;
    }
    p->stack_node[p->depth] = node;
    p->stack_func[p->depth] = (uint32_t)fs;
    p->depth++;
    if (p->frame_hook)
        p->frame_hook(p->frame_ctx, p, FWPT_FRAME_PUSH, node);
}

static void leave(struct fwpt_profile *p)
{
    if (p->frame_hook)
        p->frame_hook(p->frame_ctx, p, FWPT_FRAME_POP, p->stack_node[p->depth - 1]);
    p->depth--;
}

void fwpt_profile_add(struct fwpt_profile *p, const struct fwpt_flow_event *ev)
{
    if (ev->kind != FWPT_FLOW_INSN) {
        p->events++;
        if (ev->kind == FWPT_FLOW_INTERRUPT) {
            p->call_pending = 0;
            p->ret_pending = 0;
            enter(p, ev->to); /* the handler runs as if called */
        } else if (ev->kind == FWPT_FLOW_OVERFLOW || ev->kind == FWPT_FLOW_ERROR) {
            while (p->depth) /* the call stack is unknown from here */
                leave(p);
            p->call_pending = p->ret_pending = 0;
        } else if (ev->kind == FWPT_FLOW_DISABLED) {
            p->call_pending = p->ret_pending = 0;
        }
        return;
    }
    if (p->call_pending) {
        p->call_pending = 0;
        if (ev->ip != p->call_next)
            enter(p, ev->ip); /* a zero-length call (call next) is no call */
    }
    p->insns++;
    size_t mi = 0;
    fwpt_module_find(p->mods, ev->ip, &mi);
    p->mod_insns[mi]++;
    uint32_t node = p->depth ? p->stack_node[p->depth - 1] : 0;
    p->nodes[node].insns++;
    if (p->depth && p->stack_func[p->depth - 1] != (uint32_t)-1)
        p->funcs[p->stack_func[p->depth - 1]].insns++;
    switch (ev->iclass) {
    case FWPT_IC_CALL_REL: case FWPT_IC_CALL_IND: case FWPT_IC_FAR_CALL:
        p->call_pending = 1;
        p->call_next = ev->ip + ev->size;
        break;
    case FWPT_IC_RET: case FWPT_IC_FAR_RET: case FWPT_IC_IRET:
        if (p->depth)
            leave(p);
        break;
    default:
        break;
    }
}

static void put_u64_w(const struct fwpt_sink *o, uint64_t v, unsigned width)
{
    char buf[24];
    struct fwpt_bufsink b;
    struct fwpt_sink s = fwpt_bufsink_init(&b, buf, sizeof buf - 1);
    fwpt_put_dec(&s, v);
    buf[b.len] = 0;
    for (size_t k = b.len; k < width; k++)
        fwpt_putc(o, ' ');
    fwpt_puts(o, buf);
}

static void put_entry(struct fwpt_profile *p, const struct fwpt_sink *o, uint64_t entry)
{
    fwpt_put_0x(o, entry);
    if (fwpt_module_find(p->mods, entry, NULL)) {
        fwpt_puts(o, "  ");
        put_where(p->mods, o, entry, 0);
    }
}

void fwpt_profile_print(struct fwpt_profile *p, const struct fwpt_sink *out, size_t top_n)
{
    size_t nm = p->mods ? p->mods->n : 0;
    fwpt_puts(out, "instructions per module (");
    fwpt_put_dec(out, p->insns);
    fwpt_puts(out, " in all)\n");
    for (size_t i = 0; i <= nm; i++) {
        if (!p->mod_insns[i])
            continue;
        put_u64_w(out, p->mod_insns[i], 14);
        fwpt_puts(out, "  ");
        fwpt_puts(out, i < nm ? p->mods->v[i].name : "(no module)");
        fwpt_putc(out, '\n');
    }
    fwpt_puts(out, "instructions per function entry (self; top ");
    fwpt_put_dec(out, top_n < p->nfuncs ? top_n : p->nfuncs);
    fwpt_puts(out, " of ");
    fwpt_put_dec(out, p->nfuncs);
    fwpt_puts(out, ")\n           insns      calls  entry\n");
    /* top_n by repeated scans (no sorting memory): insns descending, then entry ascending */
    uint64_t prev_insns = ~(uint64_t)0, prev_entry = 0;
    size_t shown = 0;
    int first = 1;
    while (shown < top_n) {
        size_t best = (size_t)-1;
        for (size_t i = 0; i <= p->funcs_mask; i++) {
            const struct fwpt_profile_func *f = &p->funcs[i];
            if (f->entry == FWPT_FLOW_NO_IP)
                continue;
            if (!first && (f->insns > prev_insns || (f->insns == prev_insns && f->entry <= prev_entry)))
                continue;
            if (best == (size_t)-1 || f->insns > p->funcs[best].insns ||
                (f->insns == p->funcs[best].insns && f->entry < p->funcs[best].entry))
                best = i;
        }
        if (best == (size_t)-1)
            break;
        put_u64_w(out, p->funcs[best].insns, 16);
        put_u64_w(out, p->funcs[best].calls, 11);
        fwpt_puts(out, "  ");
        put_entry(p, out, p->funcs[best].entry);
        fwpt_putc(out, '\n');
        prev_insns = p->funcs[best].insns;
        prev_entry = p->funcs[best].entry;
        first = 0;
        shown++;
    }
    if (p->dropped) {
        fwpt_puts(out, "(");
        fwpt_put_dec(out, p->dropped);
        fwpt_puts(out, " function/call-tree entries did not fit the tables)\n");
    }
}

void fwpt_calltree_print(struct fwpt_profile *p, const struct fwpt_sink *out, uint32_t max_depth)
{
    /* totals: children are created after their parents, so a reverse pass sums subtrees */
    for (size_t i = 0; i < p->nnodes; i++)
        p->nodes[i].total = p->nodes[i].insns;
    for (size_t i = p->nnodes; i-- > 1;)
        p->nodes[p->nodes[i].parent].total += p->nodes[i].total;
    fwpt_puts(out, "call tree: calls, instructions (self / with callees), entry\n");
    fwpt_puts(out, "      calls        self       total  function\n");
    put_u64_w(out, 0, 11);
    put_u64_w(out, p->nodes[0].insns, 12);
    put_u64_w(out, p->nodes[0].total, 12);
    fwpt_puts(out, "  (root)\n");
    /* depth-first, iterative: next node = first child, else next sibling of self or an ancestor */
    uint32_t n = p->nodes[0].first_child;
    while (n) {
        const struct fwpt_profile_node *d = &p->nodes[n];
        if (d->depth <= max_depth) {
            put_u64_w(out, d->calls, 11);
            put_u64_w(out, d->insns, 12);
            put_u64_w(out, d->total, 12);
            fwpt_puts(out, "  ");
            for (uint32_t k = 1; k < d->depth; k++)
                fwpt_puts(out, "  ");
            put_entry(p, out, d->entry);
            fwpt_putc(out, '\n');
        }
        if (d->first_child && d->depth < max_depth) {
            n = d->first_child;
            continue;
        }
        while (n && !p->nodes[n].next_sibling)
            n = p->nodes[n].parent;
        if (n)
            n = p->nodes[n].next_sibling;
    }
}

/* ---- the tables' lookups for decode/sumprof.c (decode/flow_print_internal.h) ---- */
uint32_t fwpt_profile_i_node(struct fwpt_profile *p, uint32_t parent, uint64_t entry)
{
    return node_child(p, parent, entry);
}
size_t fwpt_profile_i_func(struct fwpt_profile *p, uint64_t entry) { return func_slot(p, entry); }

/* n instructions from ip at once, in module mi, the last of class iclass with next IP next: what n calls of
 * fwpt_profile_add would count (for decode/sumprof.c, whose walk does not list instructions). */
void fwpt_profile_i_run(struct fwpt_profile *p, uint64_t ip, uint64_t n, size_t mi, unsigned iclass, uint64_t next)
{
    if (p->call_pending) {
        p->call_pending = 0;
        if (ip != p->call_next)
            enter(p, ip); /* a zero-length call (call next) is no call */
    }
    p->insns += n;
    p->mod_insns[mi] += n;
    p->nodes[p->depth ? p->stack_node[p->depth - 1] : 0].insns += n;
    if (p->depth && p->stack_func[p->depth - 1] != (uint32_t)-1)
        p->funcs[p->stack_func[p->depth - 1]].insns += n;
    switch (iclass) {
    case FWPT_IC_CALL_REL: case FWPT_IC_CALL_IND: case FWPT_IC_FAR_CALL:
        p->call_pending = 1;
        p->call_next = next;
        break;
    case FWPT_IC_RET: case FWPT_IC_FAR_RET: case FWPT_IC_IRET:
        if (p->depth)
            leave(p);
        break;
    default:
        break;
    }
}
void fwpt_profile_i_enter(struct fwpt_profile *p, uint64_t entry) { enter(p, entry); }
void fwpt_profile_i_leave(struct fwpt_profile *p)
{
    if (p->depth)
        leave(p);
}
