/* fwpt — flow printers (see flow_print.h). */
#include "render/flow_print.h"
#include "base/json.h"

/* ,"key":"0x<v>" */
static void json_0x(const struct fwpt_sink *o, const char *key, uint64_t v)
{
    fwpt_puts(o, ",\"");
    fwpt_puts(o, key);
    fwpt_puts(o, "\":\"");
    fwpt_put_0x(o, v);
    fwpt_putc(o, '"');
}

static void json_ip(const struct fwpt_flow_printer *p, const char *key, const char *mkey, const char *okey,
                    uint64_t ip)
{
    const struct fwpt_sink *o = p->out;
    json_0x(o, key, ip);
    const struct fwpt_module *m = fwpt_image_module_find(p->mods, ip, NULL);
    if (m) {
        fwpt_puts(o, ",\"");
        fwpt_puts(o, mkey);
        fwpt_puts(o, "\":");
        fwpt_put_json_str(o, m->name);
        json_0x(o, okey, ip - m->base);
    }
}

static void json_offset(const struct fwpt_sink *o, uint64_t off)
{
    fwpt_puts(o, ",\"offset\":");
    fwpt_put_dec(o, off);
}

/* The tail of an event bound to an IP (when it has one): that IP, then the trace offset. */
static void json_at(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    if (ev->ip_valid)
        json_ip(p, "ip", "module", "module_offset", ev->ip);
    json_offset(p->out, ev->offset);
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

/* ---- time (fwpt_flow_print_event_time) ---- */
struct item_time {
    uint64_t tsc;
    bool ok;
};

static void json_tsc(const struct fwpt_sink *o, const struct item_time *t)
{
    fwpt_puts(o, ",\"tsc\":\"");
    fwpt_put_0x(o, t->tsc);
    fwpt_puts(o, t->ok ? "\"" : "\",\"tsc_rel\":true");
}

static void print_jsonl(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, const struct item_time *t)
{
    const struct fwpt_sink *o = p->out;
    fwpt_puts(o, "{\"type\":\"");
    fwpt_puts(o, fwpt_flow_kind_name((enum fwpt_flow_kind)ev->kind));
    fwpt_putc(o, '"');
    if (t)
        json_tsc(o, t);
    switch (ev->kind) {
    case FWPT_FLOW_INSN: {
        fwpt_puts(o, ",\"ip\":\"");
        fwpt_put_0x(o, ev->ip);
        fwpt_puts(o, "\",\"size\":");
        fwpt_put_dec(o, ev->size);
        const struct fwpt_module *m = fwpt_image_module_find(p->mods, ev->ip, NULL);
        if (m) {
            fwpt_puts(o, ",\"module\":");
            fwpt_put_json_str(o, m->name);
            json_0x(o, "module_offset", ev->ip - m->base);
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
        json_at(p, ev);
        break;
    case FWPT_FLOW_MODE:
        fwpt_puts(o, ",\"mode\":");
        fwpt_put_dec(o, ev->mode);
        json_at(p, ev);
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
            json_0x(o, "cr2", ev->to);
        }
        if (ev->status & FWPT_EVD_VMXQ) {
            json_0x(o, "vmxq", ev->to);
        }
        if (ev->status & FWPT_EVD_VMXR) {
            json_0x(o, "vmxr", ev->data);
        }
        json_at(p, ev);
        break;
    }
    case FWPT_FLOW_IFLAGS:
        fwpt_puts(o, ev->detail ? ",\"if\":true" : ",\"if\":false");
        json_at(p, ev);
        break;
    case FWPT_FLOW_ERROR:
        fwpt_puts(o, ",\"status\":");
        fwpt_put_json_str(o, fwpt_status_name((enum fwpt_status)ev->status));
        fwpt_puts(o, ",\"message\":");
        fwpt_put_json_str(o, fwpt_status_msg((enum fwpt_status)ev->status));
        json_at(p, ev);
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
        json_0x(o, "base", ev->to);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_PTWRITE:
        fwpt_puts(o, ",\"payload\":\"");
        fwpt_put_0x(o, ev->to);
        fwpt_puts(o, "\",\"bytes\":");
        fwpt_put_dec(o, ev->size);
        json_at(p, ev);
        break;
    case FWPT_FLOW_EXSTOP:
        json_at(p, ev);
        break;
    case FWPT_FLOW_CBR:
        fwpt_puts(o, ",\"ratio\":");
        fwpt_put_dec(o, ev->detail);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_MNT:
        json_0x(o, "payload", ev->to);
        json_offset(o, ev->offset);
        break;
    case FWPT_FLOW_MWAIT:
        fwpt_puts(o, ",\"hints\":\"");
        fwpt_put_0x(o, ev->to & 0xffffffffu);
        fwpt_puts(o, "\",\"ext\":\"");
        fwpt_put_0x(o, ev->to >> 32);
        fwpt_putc(o, '"');
        json_at(p, ev);
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
        json_at(p, ev);
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
    const struct fwpt_module *m = fwpt_image_module_find(p->mods, ip, NULL);
    if (m) {
        fwpt_puts(p->out, " (");
        fwpt_image_module_put_where(p->mods, p->out, ip, 0);
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
        fwpt_image_module_put_where(p->mods, o, ev->ip, p->mods && p->mods->n ? 28 : 0);
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

static void print_event(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, const struct item_time *t)
{
    if (ev->kind == FWPT_FLOW_TSX)
        p->intx = ev->detail == FWPT_TSX_BEGIN;
    else if (ev->kind == FWPT_FLOW_OVERFLOW)
        p->intx = 0; /* unknown after an overflow until the next MODE.TSX */
    if (p->format == FWPT_FLOW_FMT_JSONL) {
        print_jsonl(p, ev, t);
    } else {
        if (t) {
            fwpt_put_hex(p->out, t->tsc, 16);
            fwpt_puts(p->out, t->ok ? "  " : "~ ");
        }
        print_text(p, ev);
    }
}

void fwpt_flow_print_event(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev) { print_event(p, ev, NULL); }

void fwpt_flow_print_event_time(struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, uint64_t tsc,
                                bool tsc_ok)
{
    struct item_time t = {tsc, tsc_ok};
    print_event(p, ev, &t);
}

void fwpt_flow_print_tick(const struct fwpt_flow_printer *p, uint64_t ip, uint64_t tsc, bool tsc_ok)
{
    const struct fwpt_sink *o = p->out;
    if (p->format == FWPT_FLOW_FMT_JSONL) {
        fwpt_puts(o, "{\"type\":\"tick\",\"tsc\":\"");
        fwpt_put_0x(o, tsc);
        fwpt_puts(o, tsc_ok ? "\"" : "\",\"tsc_rel\":true");
        json_ip(p, "ip", "module", "module_offset", ip);
        fwpt_puts(o, "}\n");
        return;
    }
    fwpt_puts(o, "-- tick 0x");
    fwpt_put_hex(o, tsc, 16);
    fwpt_puts(o, tsc_ok ? " at " : " (no TSC yet) at ");
    text_ip(p, ip);
    fwpt_putc(o, '\n');
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
