/* fwpt — flow printers (see flow_print.h). */
#include "render/flow_print.h"
#include "base/json.h"
#include "render/names.h"

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

/* ---- what each event shows: one table, two renderers (text lines, JSON lines) ---- */

/* When a field is shown: the event's conditions, computed once per event (event_cond). */
enum {
    C_IP = 1u << 0,        /* ip_valid */
    C_SYNC = 1u << 1,      /* sync: from PSB+ */
    C_ASYNC = 1u << 2,     /* async (DISABLED: bound to a FUP; PWRE: hardware; TRIG: MULT) */
    C_DETAIL = 1u << 3,    /* detail != 0 */
    C_TSX_BEGIN = 1u << 4, /* detail is FWPT_TSX_BEGIN */
    C_TSX_COMMIT = 1u << 5,
    C_CFE_NAMED = 1u << 6, /* detail is a CFE type with a name */
    C_CFE_VECTOR = 1u << 7,
    C_EVD_CR2 = 1u << 8, /* status: the EVD data that came with a CFE */
    C_EVD_VMXQ = 1u << 9,
    C_EVD_VMXR = 1u << 10,
};

/* What a field shows, and in which form: an IP (with "module"/"offset" keys in JSON, "(Module+0x..)" in text),
 * a number in hex (JSON: a string) or decimal, a name (JSON: a string), a C-state, a boolean (JSON only). */
enum field_value {
    V_NONE,        /* text only: the literal alone */
    V_IP,          /* ip; JSON keys "ip", "module", "module_offset" */
    V_FROM,        /* ip as "from", "from_module", "from_offset" */
    V_TO,          /* to as "to", "to_module", "to_offset" */
    V_TARGET,      /* to as "target", "target_module", "target_offset" */
    V_HEX_TO,      /* to */
    V_HEX_TO_LO32, /* to bits 31:0 */
    V_HEX_TO_HI32, /* to bits 63:32 */
    V_HEX_DATA,    /* data */
    V_HEX_DETAIL,  /* detail */
    V_DEC_DETAIL,  /* detail */
    V_DEC_SIZE,    /* size */
    V_DEC_MODE,    /* mode */
    V_CSTATE_DETAIL, /* "C<n>" of the raw C-state in detail */
    V_CSTATE_SIZE,   /* "C<n>" of size */
    V_PWRE_STATE,    /* "C<detail>.<size>" */
    V_WAKE,          /* the PWRX wake reason of status */
    V_CFE_NAME,      /* the CFE type's name (JSON: "reserved" for one without) */
    V_TSX_NAME,      /* begin, commit, abort */
    V_STATUS_NAME,   /* E_X */
    V_STATUS_MSG,    /* its message */
    V_BOOL_ASYNC,    /* JSON true/false */
    V_BOOL_DETAIL,
    V_TRUE,          /* JSON true (shown only when its condition holds) */
};

enum { IN_TEXT = 1, IN_JSON = 2, IN_BOTH = 3 };

struct field {
    uint8_t in;          /* IN_TEXT, IN_JSON or both */
    uint8_t value;       /* enum field_value */
    uint16_t when;       /* shown when every one of these conditions holds */
    uint16_t unless;     /* and none of these */
    const char *key;     /* JSON: what comes before the value (J, JQ), NULL for an IP (json_ip names its keys) */
    const char *text;    /* text: the literal before the value */
};

/* A JSON key as printed before its value: bare (numbers, booleans, escaped strings) or with the value's opening
 * quote (hex numbers, C-states, names); one write each. */
#define J(key) ",\"" key "\":"
#define JQ(key) ",\"" key "\":\""

#define EVENT_FIELDS 11
/* The fields of each event kind in the order they are printed (text and JSON each skip the other's); every event
 * line ends with its trace offset. */
static const struct field event_fields[FWPT_FLOW_KIND_COUNT][EVENT_FIELDS] = {
    [FWPT_FLOW_ENABLED] = {{IN_TEXT, V_NONE, C_SYNC, 0, NULL, "-- enabled (PSB+) at "},
                           {IN_TEXT, V_NONE, 0, C_SYNC, NULL, "-- enabled at "},
                           {IN_BOTH, V_IP, 0, 0, NULL, ""},
                           {IN_JSON, V_TRUE, C_SYNC, 0, J("sync"), NULL},
                           {IN_JSON, V_TRUE, C_DETAIL, 0, J("resumed"), NULL}},
    [FWPT_FLOW_DISABLED] = {{IN_TEXT, V_NONE, C_ASYNC, 0, NULL, "-- disabled at "},
                            {IN_TEXT, V_NONE, 0, C_ASYNC, NULL, "-- disabled"},
                            {IN_TEXT, V_NONE, C_IP, C_ASYNC, NULL, " (target "},
                            {IN_BOTH, V_IP, C_IP, 0, NULL, ""},
                            {IN_TEXT, V_NONE, C_IP, C_ASYNC, NULL, ")"},
                            {IN_JSON, V_TARGET, C_ASYNC | C_DETAIL, 0, NULL, NULL},
                            {IN_JSON, V_BOOL_ASYNC, 0, 0, J("async"), NULL}},
    [FWPT_FLOW_INTERRUPT] = {{IN_BOTH, V_FROM, 0, 0, NULL, "-- interrupt from "},
                             {IN_BOTH, V_TO, 0, 0, NULL, " to "}},
    [FWPT_FLOW_OVERFLOW] = {{IN_TEXT, V_NONE, 0, 0, NULL, "-- overflow"},
                            {IN_BOTH, V_IP, C_IP, 0, NULL, ", resumes at "}},
    [FWPT_FLOW_MODE] = {{IN_BOTH, V_DEC_MODE, 0, 0, J("mode"), "-- mode "},
                        {IN_TEXT, V_NONE, 0, 0, NULL, "-bit"},
                        {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_ERROR] = {{IN_JSON, V_STATUS_NAME, 0, 0, J("status"), NULL},
                         {IN_BOTH, V_STATUS_MSG, 0, 0, J("message"), "-- error: "},
                         {IN_TEXT, V_STATUS_NAME, 0, 0, NULL, " ("},
                         {IN_TEXT, V_NONE, 0, 0, NULL, ")"},
                         {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_TSX] = {{IN_TEXT, V_NONE, C_SYNC, 0, NULL, "-- in a TSX transaction (PSB+ status)"},
                       {IN_TEXT, V_NONE, C_TSX_BEGIN, C_SYNC, NULL, "-- TSX transaction begins"},
                       {IN_TEXT, V_NONE, C_TSX_COMMIT, C_SYNC, NULL, "-- TSX transaction commits"},
                       {IN_TEXT, V_NONE, 0, C_SYNC | C_TSX_BEGIN | C_TSX_COMMIT, NULL, "-- TSX transaction aborts"},
                       {IN_TEXT, V_NONE, C_SYNC, C_TSX_BEGIN, NULL, ": no"},
                       {IN_JSON, V_TSX_NAME, 0, 0, JQ("tsx"), NULL},
                       {IN_BOTH, V_IP, C_IP, 0, NULL, " at "},
                       {IN_JSON, V_TRUE, C_SYNC, 0, J("status"), NULL}},
    [FWPT_FLOW_STOPPED] = {{IN_TEXT, V_NONE, 0, 0, NULL, "-- tracing stopped (TraceStop)"}},
    [FWPT_FLOW_PAGING] = {{IN_BOTH, V_HEX_TO, 0, 0, JQ("cr3"), "-- paging: CR3 "},
                          {IN_TEXT, V_NONE, C_DETAIL, 0, NULL, " (non-root)"},
                          {IN_JSON, V_BOOL_DETAIL, 0, 0, J("nr"), NULL}},
    [FWPT_FLOW_VMCS] = {{IN_BOTH, V_HEX_TO, 0, 0, JQ("base"), "-- VMCS "}},
    [FWPT_FLOW_PTWRITE] = {{IN_BOTH, V_HEX_TO, 0, 0, JQ("payload"), "-- ptwrite "},
                           {IN_JSON, V_DEC_SIZE, 0, 0, J("bytes"), NULL},
                           {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_EXSTOP] = {{IN_TEXT, V_NONE, 0, 0, NULL, "-- execution stopped (EXSTOP)"},
                          {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_CBR] = {{IN_BOTH, V_DEC_DETAIL, 0, 0, J("ratio"), "-- core:bus ratio "}},
    [FWPT_FLOW_MNT] = {{IN_BOTH, V_HEX_TO, 0, 0, JQ("payload"), "-- maintenance packet "}},
    [FWPT_FLOW_MWAIT] = {{IN_BOTH, V_HEX_TO_LO32, 0, 0, JQ("hints"), "-- MWAIT hints "},
                         {IN_BOTH, V_HEX_TO_HI32, 0, 0, JQ("ext"), ", extensions "},
                         {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_PWRE] = {{IN_BOTH, V_PWRE_STATE, 0, 0, JQ("state"), "-- power entry: "},
                        {IN_TEXT, V_NONE, C_ASYNC, 0, NULL, " (hardware)"},
                        {IN_JSON, V_BOOL_ASYNC, 0, 0, J("hw"), NULL}},
    [FWPT_FLOW_PWRX] = {{IN_BOTH, V_CSTATE_DETAIL, 0, 0, JQ("last"), "-- power exit: last "},
                        {IN_BOTH, V_CSTATE_SIZE, 0, 0, JQ("deepest"), ", deepest "},
                        {IN_BOTH, V_WAKE, 0, 0, JQ("wake"), ", wake: "}},
    [FWPT_FLOW_TRIG] = {{IN_BOTH, V_HEX_DETAIL, 0, 0, JQ("trbv"), "-- trigger "},
                        {IN_TEXT, V_NONE, C_ASYNC, 0, NULL, " (fired more than once)"},
                        {IN_JSON, V_BOOL_ASYNC, 0, 0, J("mult"), NULL},
                        {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_END] = {{IN_TEXT, V_NONE, 0, 0, NULL,
                        "-- end of the trace data, tracing on: what follows comes from the code alone"}},
    /* the VMX exit reason: text before the qualification, JSON after */
    [FWPT_FLOW_CFE] = {{IN_TEXT, V_NONE, 0, 0, NULL, "-- event "},
                       {IN_BOTH, V_CFE_NAME, C_CFE_NAMED, 0, JQ("cfe"), ""},
                       {IN_TEXT, V_DEC_DETAIL, 0, C_CFE_NAMED, NULL, "type "},
                       {IN_JSON, V_CFE_NAME, 0, C_CFE_NAMED, JQ("cfe"), NULL},
                       {IN_JSON, V_DEC_DETAIL, 0, 0, J("cfe_type"), NULL},
                       {IN_BOTH, V_DEC_SIZE, C_CFE_VECTOR, 0, J("vector"), " vector "},
                       {IN_BOTH, V_HEX_TO, C_EVD_CR2, 0, JQ("cr2"), ", cr2 "},
                       {IN_TEXT, V_HEX_DATA, C_EVD_VMXR, 0, NULL, ", exit reason "},
                       {IN_BOTH, V_HEX_TO, C_EVD_VMXQ, 0, JQ("vmxq"), ", exit qualification "},
                       {IN_JSON, V_HEX_DATA, C_EVD_VMXR, 0, JQ("vmxr"), NULL},
                       {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
    [FWPT_FLOW_IFLAGS] = {{IN_TEXT, V_NONE, C_DETAIL, 0, NULL, "-- interrupts enabled (IF=1)"},
                          {IN_TEXT, V_NONE, 0, C_DETAIL, NULL, "-- interrupts disabled (IF=0)"},
                          {IN_JSON, V_BOOL_DETAIL, 0, 0, J("if"), NULL},
                          {IN_BOTH, V_IP, C_IP, 0, NULL, " at "}},
};

static unsigned event_cond(const struct fwpt_flow_event *ev)
{
    unsigned c = (ev->ip_valid ? C_IP : 0) | (ev->sync ? C_SYNC : 0) | (ev->async ? C_ASYNC : 0) |
                 (ev->detail ? C_DETAIL : 0) | (ev->detail == FWPT_TSX_BEGIN ? C_TSX_BEGIN : 0) |
                 (ev->detail == FWPT_TSX_COMMIT ? C_TSX_COMMIT : 0);
    if (ev->kind == FWPT_FLOW_CFE)
        c |= (cfe_name(ev->detail) ? C_CFE_NAMED : 0) | (cfe_has_vector(ev->detail) ? C_CFE_VECTOR : 0) |
             (ev->status & FWPT_EVD_CR2 ? C_EVD_CR2 : 0) | (ev->status & FWPT_EVD_VMXQ ? C_EVD_VMXQ : 0) |
             (ev->status & FWPT_EVD_VMXR ? C_EVD_VMXR : 0);
    return c;
}

static bool field_shown(const struct field *f, unsigned in, unsigned cond)
{
    return (f->in & in) && (cond & f->when) == f->when && !(cond & f->unless);
}

/* A field's number (hex and decimal values, the IPs). */
static uint64_t field_num(const struct field *f, const struct fwpt_flow_event *ev)
{
    switch (f->value) {
    case V_IP:
    case V_FROM:
        return ev->ip;
    case V_TO:
    case V_TARGET:
    case V_HEX_TO:
        return ev->to;
    case V_HEX_TO_LO32:
        return ev->to & 0xffffffffu;
    case V_HEX_TO_HI32:
        return ev->to >> 32;
    case V_HEX_DATA:
        return ev->data;
    case V_HEX_DETAIL:
    case V_DEC_DETAIL:
        return ev->detail;
    case V_DEC_SIZE:
        return ev->size;
    case V_DEC_MODE:
        return ev->mode;
    default:
        return 0;
    }
}

/* A field's name (V_CFE_NAME of a reserved type: NULL). */
static const char *field_name(const struct field *f, const struct fwpt_flow_event *ev)
{
    switch (f->value) {
    case V_WAKE:
        return wake_name(ev->status);
    case V_CFE_NAME:
        return cfe_name(ev->detail);
    case V_TSX_NAME:
        return tsx_name(ev->detail);
    case V_STATUS_NAME:
        return fwpt_status_name((enum fwpt_status)ev->status);
    case V_STATUS_MSG:
        return fwpt_status_msg((enum fwpt_status)ev->status);
    default:
        return NULL;
    }
}

/* The C-state values: "C1", "C1.0". */
static void put_state(const struct fwpt_sink *o, const struct field *f, const struct fwpt_flow_event *ev)
{
    put_cstate(o, f->value == V_CSTATE_SIZE ? ev->size : ev->detail);
    if (f->value == V_PWRE_STATE) {
        fwpt_putc(o, '.');
        fwpt_put_dec(o, cstate(ev->size));
    }
}

static void json_field(const struct fwpt_flow_printer *p, const struct field *f, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
    switch (f->value) {
    case V_IP:
        json_ip(p, "ip", "module", "module_offset", ev->ip);
        return;
    case V_FROM:
        json_ip(p, "from", "from_module", "from_offset", ev->ip);
        return;
    case V_TO:
        json_ip(p, "to", "to_module", "to_offset", ev->to);
        return;
    case V_TARGET:
        json_ip(p, "target", "target_module", "target_offset", ev->to);
        return;
    default:
        break;
    }
    fwpt_puts(o, f->key);
    switch (f->value) {
    case V_HEX_TO:
    case V_HEX_TO_LO32:
    case V_HEX_TO_HI32:
    case V_HEX_DATA:
    case V_HEX_DETAIL:
        fwpt_put_0x(o, field_num(f, ev));
        fwpt_putc(o, '"');
        break;
    case V_DEC_DETAIL:
    case V_DEC_SIZE:
    case V_DEC_MODE:
        fwpt_put_dec(o, field_num(f, ev));
        break;
    case V_CSTATE_DETAIL:
    case V_CSTATE_SIZE:
    case V_PWRE_STATE:
        put_state(o, f, ev);
        fwpt_putc(o, '"');
        break;
    case V_BOOL_ASYNC:
        fwpt_puts(o, ev->async ? "true" : "false");
        break;
    case V_BOOL_DETAIL:
        fwpt_puts(o, ev->detail ? "true" : "false");
        break;
    case V_TRUE:
        fwpt_puts(o, "true");
        break;
    case V_STATUS_NAME:
    case V_STATUS_MSG:
        fwpt_put_json_str(o, field_name(f, ev));
        break;
    default: { /* the names of the tables here: nothing to escape */
        const char *name = field_name(f, ev);
        fwpt_puts(o, name ? name : "reserved");
        fwpt_putc(o, '"');
        break;
    }
    }
}

static void text_field(const struct fwpt_flow_printer *p, const struct field *f, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
    if (f->text[0])
        fwpt_puts(o, f->text);
    switch (f->value) {
    case V_NONE:
        break;
    case V_IP:
    case V_FROM:
    case V_TO:
    case V_TARGET:
        text_ip(p, field_num(f, ev));
        break;
    case V_HEX_TO:
    case V_HEX_TO_LO32:
    case V_HEX_TO_HI32:
    case V_HEX_DATA:
    case V_HEX_DETAIL:
        fwpt_put_0x(o, field_num(f, ev));
        break;
    case V_DEC_DETAIL:
    case V_DEC_SIZE:
    case V_DEC_MODE:
        fwpt_put_dec(o, field_num(f, ev));
        break;
    case V_CSTATE_DETAIL:
    case V_CSTATE_SIZE:
    case V_PWRE_STATE:
        put_state(o, f, ev);
        break;
    default:
        fwpt_puts(o, field_name(f, ev));
        break;
    }
}

/* The fields of ev's kind shown in one format (in: IN_TEXT or IN_JSON). */
static void event_walk(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, unsigned in)
{
    const unsigned cond = event_cond(ev);
    const struct field *row = event_fields[ev->kind];
    for (unsigned k = 0; k < EVENT_FIELDS && row[k].in; k++) {
        if (!field_shown(&row[k], in, cond))
            continue;
        if (in == IN_JSON)
            json_field(p, &row[k], ev);
        else
            text_field(p, &row[k], ev);
    }
}

/* The instruction line, JSON: {"type":"insn","ip":..,"size":N[,"module":..][,"asm":..][,"spec":true]} */
static void json_insn(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
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
    struct fwpt_resolved r;
    if (fwpt_resolve(p->resolver, ev->ip, &r))
        fwpt_name_put_json(o, &r, ev->ip, "", true);
    char text[128];
    if (p->disasm && p->disasm(p->disasm_ctx, ev->ip, ev->mode, text, sizeof text)) {
        text[sizeof text - 1] = 0;
        fwpt_puts(o, ",\"asm\":");
        fwpt_put_json_str(o, text);
    }
    if (p->intx)
        fwpt_puts(o, ",\"spec\":true");
}

static void print_jsonl(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev, const struct item_time *t)
{
    const struct fwpt_sink *o = p->out;
    fwpt_puts(o, "{\"type\":\"");
    fwpt_puts(o, fwpt_flow_kind_name((enum fwpt_flow_kind)ev->kind));
    fwpt_putc(o, '"');
    if (t)
        json_tsc(o, t);
    if (ev->kind == FWPT_FLOW_INSN) {
        json_insn(p, ev);
    } else if (ev->kind < FWPT_FLOW_KIND_COUNT) {
        event_walk(p, ev, IN_JSON);
        json_offset(o, ev->offset);
    }
    fwpt_puts(o, "}\n");
}

/* A sink that passes on what it is given and counts it. */
struct counter {
    const struct fwpt_sink *o;
    size_t n;
};
static void count_write(void *ctx, const char *s, size_t n)
{
    struct counter *c = ctx;
    c->o->write(c->o->ctx, s, n);
    c->n += n;
}

/* The instruction line, text: "0x<ip16>  Module+0xoff  <size>[ ?]  <disassembly>" (the build's
 * "FUNC+0xOFF (FILE:LINE)" in place of Module+0xoff when the resolver knows the function) */
static void text_insn(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    const struct fwpt_sink *o = p->out;
    fwpt_puts(o, "0x");
    fwpt_put_hex(o, ev->ip, 16);
    fwpt_puts(o, "  ");
    struct fwpt_resolved r;
    if (fwpt_resolve(p->resolver, ev->ip, &r) && r.function) {
        /* the build's name in the module's column: "FUNC+0xOFF (FILE:LINE)", padded as the column is */
        struct counter c = {o, 0};
        const struct fwpt_sink cs = {count_write, &c};
        fwpt_name_put_text(&cs, &r, ev->ip);
        for (size_t k = c.n; k < 28; k++)
            fwpt_putc(o, ' ');
    } else {
        fwpt_image_module_put_where(p->mods, o, ev->ip, p->mods && p->mods->n ? 28 : 0);
    }
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
}

static void print_text(const struct fwpt_flow_printer *p, const struct fwpt_flow_event *ev)
{
    if (ev->kind == FWPT_FLOW_INSN) {
        text_insn(p, ev);
        return;
    }
    if (ev->kind < FWPT_FLOW_KIND_COUNT)
        event_walk(p, ev, IN_TEXT);
    else
        fwpt_puts(p->out, "-- ?");
    text_offset(p->out, ev->offset);
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
