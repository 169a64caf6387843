/* fwpt — packet printers (text mirrors libipt's ptdump: offset, name, payload; JSON lines). */
#include "render/pkt_print.h"
#include "base/json.h"

const char *fwpt_pkt_print_error_name(enum fwpt_status s)
{
    switch (s) {
    case FWPT_E_EOS: return "eos";
    case FWPT_E_NOSYNC: return "nosync";
    case FWPT_E_TRUNCATED: return "truncated";
    case FWPT_E_BAD_OPCODE: return "bad_opcode";
    case FWPT_E_BAD_IPC: return "bad_ipc";
    case FWPT_E_BAD_PACKET: return "bad_packet";
    case FWPT_E_TOO_LONG: return "too_long";
    default: return "error";
    }
}

/* ---- text ---- */

static void text_hex(const struct fwpt_sink *o, const char *label, uint64_t v)
{
    if (label) {
        fwpt_puts(o, label);
        fwpt_putc(o, ' ');
    }
    fwpt_put_0x(o, v);
}

static void text_flag(const struct fwpt_sink *o, bool on, const char *name, int *first)
{
    if (!on)
        return;
    if (!*first)
        fwpt_putc(o, ' ');
    fwpt_puts(o, name);
    *first = 0;
}

static void text_tnt(const struct fwpt_sink *o, const struct fwpt_packet *pkt)
{
    /* ptdump: '!' taken, '.' not taken, in execution order */
    char s[64];
    unsigned n = pkt->tnt.count;
    for (unsigned i = 0; i < n; i++)
        s[i] = (pkt->tnt.bits >> i) & 1 ? '!' : '.';
    fwpt_putn(o, s, n);
}

/* The payload part of a text line ("" for packets without one). */
static void text_payload(const struct fwpt_sink *o, const struct fwpt_packet *p)
{
    int first = 1;
    switch (p->type) {
    case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64:
        text_tnt(o, p);
        break;
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        fwpt_put_dec(o, p->ip.ipc);
        fwpt_puts(o, ": ");
        if (p->ip.suppressed) {
            fwpt_puts(o, "suppressed");
        } else {
            static const unsigned digits[8] = {0, 4, 8, 12, 12, 0, 16, 0};
            fwpt_puts(o, "0x");
            fwpt_put_hex(o, p->ip.payload, digits[p->ip.ipc & 7]);
            fwpt_puts(o, "  ip ");
            fwpt_puts(o, "0x");
            fwpt_put_hex(o, p->ip.ip, 16);
        }
        break;
    case FWPT_PKT_PIP:
        text_hex(o, "cr3", p->pip.cr3);
        if (p->pip.nr)
            fwpt_puts(o, ", nr");
        break;
    case FWPT_PKT_MODE_EXEC:
        text_flag(o, p->mode_exec.csl, "cs.l", &first);
        text_flag(o, p->mode_exec.csd, "cs.d", &first);
        text_flag(o, p->mode_exec.iflag, "if", &first);
        if (!first)
            fwpt_puts(o, "  ");
        if (p->mode_exec.mode) {
            fwpt_put_dec(o, p->mode_exec.mode);
            fwpt_puts(o, "-bit");
        } else {
            fwpt_puts(o, "unknown");
        }
        break;
    case FWPT_PKT_MODE_TSX:
        text_flag(o, p->mode_tsx.intx, "intx", &first);
        text_flag(o, p->mode_tsx.abrt, "abrt", &first);
        break;
    case FWPT_PKT_TSC: text_hex(o, 0, p->tsc.tsc); break;
    case FWPT_PKT_CBR: text_hex(o, 0, p->cbr.ratio); break;
    case FWPT_PKT_MTC: text_hex(o, 0, p->mtc.ctc); break;
    case FWPT_PKT_TMA:
        text_hex(o, "CTC", p->tma.ctc);
        fwpt_puts(o, ", ");
        text_hex(o, "FC", p->tma.fc);
        break;
    case FWPT_PKT_CYC: text_hex(o, 0, p->cyc.value); break;
    case FWPT_PKT_VMCS: text_hex(o, 0, p->vmcs.base); break;
    case FWPT_PKT_MNT: text_hex(o, 0, p->mnt.payload); break;
    case FWPT_PKT_PTW:
        fwpt_put_dec(o, p->ptw.plc);
        fwpt_puts(o, ": ");
        text_hex(o, 0, p->ptw.payload);
        if (p->ptw.ip)
            fwpt_puts(o, ", ip");
        break;
    case FWPT_PKT_EXSTOP: text_flag(o, p->exstop.ip, "ip", &first); break;
    case FWPT_PKT_MWAIT:
        text_hex(o, "hints:", p->mwait.hints);
        fwpt_puts(o, ", ");
        text_hex(o, "ext:", p->mwait.ext);
        break;
    case FWPT_PKT_PWRE:
        fwpt_puts(o, "c");
        fwpt_put_dec(o, p->pwre.state);
        fwpt_putc(o, '.');
        fwpt_put_dec(o, p->pwre.sub_state);
        if (p->pwre.hw)
            fwpt_puts(o, ", hw");
        break;
    case FWPT_PKT_PWRX:
        fwpt_puts(o, "last: c");
        fwpt_put_dec(o, p->pwrx.last);
        fwpt_puts(o, ", deepest: c");
        fwpt_put_dec(o, p->pwrx.deepest);
        if (p->pwrx.wake_reason & 1) fwpt_puts(o, ", int");
        if (p->pwrx.wake_reason & 2) fwpt_puts(o, ", timer");
        if (p->pwrx.wake_reason & 4) fwpt_puts(o, ", store");
        if (p->pwrx.wake_reason & 8) fwpt_puts(o, ", hw");
        break;
    case FWPT_PKT_BBP:
        fwpt_puts(o, "type ");
        fwpt_put_dec(o, p->bbp.type);
        fwpt_puts(o, ", items ");
        fwpt_put_dec(o, p->bbp.item_bytes);
        fwpt_puts(o, " bytes");
        break;
    case FWPT_PKT_BIP:
        fwpt_puts(o, "id ");
        fwpt_put_dec(o, p->bip.id);
        fwpt_puts(o, ": ");
        text_hex(o, 0, p->bip.value);
        break;
    case FWPT_PKT_BEP: text_flag(o, p->bep.ip, "ip", &first); break;
    case FWPT_PKT_CFE:
        fwpt_puts(o, "type ");
        fwpt_put_dec(o, p->cfe.type);
        fwpt_puts(o, ", vector ");
        fwpt_put_0x(o, p->cfe.vector);
        if (p->cfe.ip)
            fwpt_puts(o, ", ip");
        break;
    case FWPT_PKT_EVD:
        fwpt_puts(o, "type ");
        fwpt_put_dec(o, p->evd.type);
        fwpt_puts(o, ": ");
        text_hex(o, 0, p->evd.payload);
        break;
    case FWPT_PKT_TRIG:
        fwpt_puts(o, "trbv ");
        fwpt_put_0x(o, p->trig.trbv);
        if (p->trig.ip)
            fwpt_puts(o, ", ip");
        if (p->trig.mult)
            fwpt_puts(o, ", mult");
        if (p->trig.icntv) {
            fwpt_puts(o, ", icnt ");
            fwpt_put_dec(o, p->trig.icnt);
        }
        break;
    default:
        break;
    }
}

void fwpt_pkt_print_text_col(const struct fwpt_sink *o, const struct fwpt_packet *p, const char *col_id,
                             const char *col)
{
    char line[160];
    struct fwpt_bufsink bs;
    struct fwpt_sink ps = fwpt_bufsink_init(&bs, line, sizeof line);
    text_payload(&ps, p);
    fwpt_put_hex(o, p->offset, 16);
    fwpt_puts(o, "  ");
    if (bs.len || col_id) {
        fwpt_put_padded(o, fwpt_pkt_type_name(p->type), 10);
        fwpt_putn(o, line, bs.len);
    } else {
        fwpt_puts(o, fwpt_pkt_type_name(p->type));
    }
    if (col_id) {
        for (size_t n = bs.len; n < 24; n++)
            fwpt_putc(o, ' ');
        fwpt_putc(o, ' ');
        fwpt_put_padded(o, col_id, 5);
        fwpt_puts(o, col);
    }
    fwpt_putc(o, '\n');
}

void fwpt_pkt_print_text(const struct fwpt_sink *o, const struct fwpt_packet *p)
{
    fwpt_pkt_print_text_col(o, p, 0, 0);
}

void fwpt_pkt_print_time_diag_text(const struct fwpt_sink *o, uint64_t offset, const char *what, enum fwpt_status s)
{
    fwpt_putc(o, '[');
    fwpt_put_hex(o, offset, 0);
    fwpt_puts(o, ": ");
    fwpt_puts(o, what);
    fwpt_puts(o, ": ");
    fwpt_puts(o, fwpt_status_msg(s));
    fwpt_puts(o, "]\n");
}

void fwpt_pkt_print_error_text(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s)
{
    fwpt_put_hex(o, offset, 16);
    fwpt_puts(o, "  error: ");
    fwpt_puts(o, fwpt_pkt_print_error_name(s));
    fwpt_puts(o, " (");
    fwpt_puts(o, fwpt_status_msg(s));
    fwpt_puts(o, ")\n");
}

/* ---- JSON lines ---- */

void fwpt_pkt_print_json(const struct fwpt_sink *o, const struct fwpt_packet *p)
{
    fwpt_pkt_print_json_col(o, p, 0, 0);
}

void fwpt_pkt_print_time_diag_json(const struct fwpt_sink *o, uint64_t offset, const char *what, enum fwpt_status s)
{
    struct fwpt_json j;
    fwpt_json_init(&j, o);
    fwpt_json_open(&j, NULL, '{');
    fwpt_json_dec(&j, "offset", offset);
    fwpt_json_str(&j, "time_error", what);
    fwpt_json_str(&j, "status", fwpt_status_name(s));
    fwpt_json_str(&j, "message", fwpt_status_msg(s));
    fwpt_json_close(&j, '}');
    fwpt_putc(o, '\n');
}

void fwpt_pkt_print_json_col(const struct fwpt_sink *o, const struct fwpt_packet *p, const char *col_id,
                             const char *col)
{
    struct fwpt_json jw, *j = &jw;
    fwpt_json_init(j, o);
    fwpt_json_open(j, NULL, '{');
    fwpt_json_dec(j, "offset", p->offset);
    fwpt_json_str(j, "type", fwpt_pkt_type_name(p->type));
    fwpt_json_dec(j, "size", p->size);
    switch (p->type) {
    case FWPT_PKT_TNT_8: case FWPT_PKT_TNT_64: {
        char s[64];
        unsigned n = p->tnt.count;
        for (unsigned i = 0; i < n; i++)
            s[i] = (p->tnt.bits >> i) & 1 ? 'T' : 'N';
        fwpt_json_strn(j, "bits", s, n);
        break;
    }
    case FWPT_PKT_TIP: case FWPT_PKT_TIP_PGE: case FWPT_PKT_TIP_PGD: case FWPT_PKT_FUP:
        fwpt_json_dec(j, "ipc", p->ip.ipc);
        if (!p->ip.suppressed) {
            fwpt_json_hex(j, "payload", p->ip.payload);
            fwpt_json_hex(j, "ip", p->ip.ip);
        }
        break;
    case FWPT_PKT_PIP: fwpt_json_hex(j, "cr3", p->pip.cr3); fwpt_json_bool(j, "nr", p->pip.nr); break;
    case FWPT_PKT_MODE_EXEC:
        fwpt_json_bool(j, "csl", p->mode_exec.csl);
        fwpt_json_bool(j, "csd", p->mode_exec.csd);
        fwpt_json_bool(j, "if", p->mode_exec.iflag);
        fwpt_json_dec(j, "mode", p->mode_exec.mode);
        break;
    case FWPT_PKT_MODE_TSX: fwpt_json_bool(j, "intx", p->mode_tsx.intx); fwpt_json_bool(j, "abrt", p->mode_tsx.abrt); break;
    case FWPT_PKT_TSC: fwpt_json_hex(j, "tsc", p->tsc.tsc); break;
    case FWPT_PKT_CBR: fwpt_json_dec(j, "ratio", p->cbr.ratio); break;
    case FWPT_PKT_MTC: fwpt_json_dec(j, "ctc", p->mtc.ctc); break;
    case FWPT_PKT_TMA: fwpt_json_dec(j, "ctc", p->tma.ctc); fwpt_json_dec(j, "fc", p->tma.fc); break;
    case FWPT_PKT_CYC: fwpt_json_dec(j, "value", p->cyc.value); break;
    case FWPT_PKT_VMCS: fwpt_json_hex(j, "base", p->vmcs.base); break;
    case FWPT_PKT_MNT: fwpt_json_hex(j, "payload", p->mnt.payload); break;
    case FWPT_PKT_PTW:
        fwpt_json_hex(j, "payload", p->ptw.payload);
        fwpt_json_dec(j, "bytes", p->ptw.bytes);
        fwpt_json_bool(j, "ip", p->ptw.ip);
        break;
    case FWPT_PKT_EXSTOP: fwpt_json_bool(j, "ip", p->exstop.ip); break;
    case FWPT_PKT_MWAIT: fwpt_json_dec(j, "hints", p->mwait.hints); fwpt_json_dec(j, "ext", p->mwait.ext); break;
    case FWPT_PKT_PWRE:
        fwpt_json_dec(j, "state", p->pwre.state);
        fwpt_json_dec(j, "sub_state", p->pwre.sub_state);
        fwpt_json_bool(j, "hw", p->pwre.hw);
        break;
    case FWPT_PKT_PWRX:
        fwpt_json_dec(j, "last", p->pwrx.last);
        fwpt_json_dec(j, "deepest", p->pwrx.deepest);
        fwpt_json_dec(j, "wake_reason", p->pwrx.wake_reason);
        break;
    case FWPT_PKT_BBP:
        fwpt_json_dec(j, "btype", p->bbp.type);
        fwpt_json_dec(j, "sz", p->bbp.sz);
        fwpt_json_dec(j, "item_bytes", p->bbp.item_bytes);
        break;
    case FWPT_PKT_BIP: fwpt_json_dec(j, "id", p->bip.id); fwpt_json_hex(j, "value", p->bip.value); fwpt_json_dec(j, "bytes", p->bip.bytes); break;
    case FWPT_PKT_BEP: fwpt_json_bool(j, "ip", p->bep.ip); break;
    case FWPT_PKT_CFE:
        fwpt_json_dec(j, "cfe_type", p->cfe.type);
        fwpt_json_dec(j, "vector", p->cfe.vector);
        fwpt_json_bool(j, "ip", p->cfe.ip);
        break;
    case FWPT_PKT_EVD: fwpt_json_dec(j, "evd_type", p->evd.type); fwpt_json_hex(j, "payload", p->evd.payload); break;
    case FWPT_PKT_TRIG:
        fwpt_json_dec(j, "trbv", p->trig.trbv);
        fwpt_json_bool(j, "ip", p->trig.ip);
        fwpt_json_bool(j, "mult", p->trig.mult);
        if (p->trig.icntv)
            fwpt_json_dec(j, "icnt", p->trig.icnt);
        break;
    default:
        break;
    }
    if (col_id) {
        fwpt_json_str(j, col_id[0] == 'f' ? "fcr" : "time", col);
    }
    fwpt_json_close(j, '}');
    fwpt_putc(o, '\n');
}

void fwpt_pkt_print_error_json(const struct fwpt_sink *o, uint64_t offset, enum fwpt_status s)
{
    struct fwpt_json j;
    fwpt_json_init(&j, o);
    fwpt_json_open(&j, NULL, '{');
    fwpt_json_dec(&j, "offset", offset);
    fwpt_json_str(&j, "error", fwpt_pkt_print_error_name(s));
    fwpt_json_close(&j, '}');
    fwpt_putc(o, '\n');
}
