#!/usr/bin/env python3
"""fwpt dump against libipt's conformance corpus (../shared/conformance/libipt, see its README.md).

For each case with a ptdump.exp, run `build/fwpt dump trace.pt --format jsonl`, print every JSON
packet the way libipt's ptdump prints it (one formatter per packet type, below), and compare line
by line with ptdump.exp. The comparison ignores the amount of white space, as libipt's own test
script does (it compares with `diff -ub`).

Importable: nothing runs at import time. `check_case(repo_root, case_dir, row)` checks one case;
`main()` (python3 tests/conformance/ptdump.py [NAME...]) checks all of them (or the named ones; the corpus
is $FWPT_CONFORMANCE/libipt, which the Makefile sets, else ../shared/conformance/libipt beside the repository),
prints per-family counts and the failing cases with their first differing line, and ends with the
summary line `conformance_ptdump: N passed, N failed` that tests/run.sh reads.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import REPO, build_path, case_cpu, corpus_root, family, read_manifest  # noqa: E402

# The corpus' cases with a ptdump.exp (of 479; README.md of the corpus), for the count of a missing corpus.
CORPUS_PTDUMP_CASES = 451

# ---------------------------------------------------------------- ptdump options

# ptdump's timing options: fwpt dump takes the same (decode/time.c), and the time column ("tsc" or "fcr")
# and the time diagnostics ("[1a: calibration error: no timing information]") are compared too.
TIMING_OPTS = {"--time", "--tcal", "--time-delta", "--no-tcal", "--no-wall-clock", "--keep-tcal-on-ovf"}
TIMING_OPTS_WITH_ARG = {"--mtc-freq", "--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx"}

# Cases that are only about ptdump's own presentation: name -> reason. None may hide a
# disagreement on packets or fields (keep it minimal).
PRESENTATION_ONLY = {}

# Where libipt reads a packet otherwise than the SDM and fwpt follows the SDM: one rule each, applied to
# one line only when the trace's bytes show exactly that case; every other line is still compared.
# (name, reason, test(expected line, fwpt's line, fwpt's JSON packet, trace) -> True when the difference is
# exactly this one)
def _pwre_hw_bit(e, g, p, trace):
    # SDM Table "PWRE Packet Definition": HW is byte 2 bit 7; libipt 2.x reads it from bit 3. The rest of the
    # line (offset, C-states) must be the same.
    b2 = trace[p["offset"] + 2] if p.get("type") == "pwre" else 0
    return (p.get("type") == "pwre" and not p["hw"] and b2 & 0x08 and not b2 & 0x80 and
            normalize(e) == normalize(g) + ", hw")


def _tma_reserved_bits(e, g, p, trace):
    # SDM "Packet Definitions": "Packet bits listed as RSVD are not guaranteed to be 0"; libipt rejects a TMA
    # whose byte 4 or byte 6 bits 7:1 are set (without the SKZ84 erratum).
    o = p.get("offset", -1)
    return (p.get("type") == "tma" and (trace[o + 4] or trace[o + 6] & 0xfe) and
            normalize(e) == "[%x: error decoding packet: unknown packet]" % o)


LIBIPT_DIFFERENCES = [
    ("pwre-hw", "libipt reads PWRE's HW from byte 2 bit 3, the SDM table puts it in bit 7", _pwre_hw_bit),
    ("tma-rsvd", "libipt rejects TMA with reserved bits set, the SDM says RSVD bits are not guaranteed 0",
     _tma_reserved_bits),
]

# ptdump's --cpu F/M gives libipt the processor's errata; fwpt dump takes the same --cpu (the case's cpu
# column), and its errata table (arch/errata.c) decides (SKD007 and SKZ84 change packets).

# fwpt's decode errors (the JSON "error" value) -> libipt's error message (pt_errstr) as ptdump
# prints it: "[OFFSET: error decoding packet: MESSAGE]". None: libipt does not report it as an
# error: a packet that runs past the end of the trace is its end of stream (-pte_eos), on which
# ptdump stops without a line.
ERROR_MESSAGES = {
    "bad_opcode": "unknown opcode",   # -pte_bad_opc
    "bad_packet": "unknown packet",   # -pte_bad_packet
    "bad_ipc": "unknown packet",      # libipt rejects IPBytes 101b/111b as -pte_bad_packet
    "truncated": None,                # -pte_eos
    "too_long": "unknown packet",     # a CYC past 255 bytes; libipt stops CYC at 64 bits (-pte_bad_packet)
}

def parse_opts(opts):
    """ptdump_opts -> dict of what changes the expected output."""
    o = {"offset": True, "raw": False, "sync": True, "timing": False, "no_cyc": False, "time_args": [],
         "lastip": False, "exec_mode": False, "cpu": None, "unknown": []}
    words = opts.split()
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--no-offset":
            o["offset"] = False
        elif w == "--raw":
            o["raw"] = True
        elif w == "--no-sync":
            o["sync"] = False
        elif w == "--lastip":
            o["lastip"] = True
        elif w == "--exec-mode":
            o["exec_mode"] = True
        elif w == "--no-cyc":
            o["no_cyc"] = True  # ptdump hides CYC packets (and ignores them for time); so does fwpt dump
            o["time_args"].append(w)
        elif w == "--cpu":
            i += 1
            o["cpu"] = words[i] if i < len(words) else ""
        elif w in TIMING_OPTS:
            o["timing"] = True
            o["time_args"].append(w)
        elif w in TIMING_OPTS_WITH_ARG:
            o["timing"] = True
            o["time_args"] += words[i:i + 2]
            i += 1
        else:
            o["unknown"].append(w)
        i += 1
    return o


# ---------------------------------------------------------------- packet formatters
# Each returns (payload, tracking_id, tracking_payload); "" for absent columns. The formats are
# those of the corpus' ptdump.exp files.

def _hex(v):
    return "%x" % v


def _int(v):
    return int(v, 16) if isinstance(v, str) else int(v)


def fmt_none(p):
    return "", "", ""


def fmt_ip(p):
    ipc = p["ipc"]
    if ipc == 0:
        return "0: ????????????????", "", ""
    pay = _int(p["payload"])
    if ipc == 1:
        s = "????????????%04x" % pay
    elif ipc == 2:
        s = "????????%08x" % pay
    elif ipc == 4:
        s = "????%012x" % pay
    elif ipc == 3:  # sign-extended from bit 47
        s = "%016x" % ((pay | ~((1 << 48) - 1)) & ((1 << 64) - 1) if pay & (1 << 47) else pay)
    else:
        s = "%016x" % pay
    return "%x: %s" % (ipc, s), "", ""


def fmt_tnt(p):
    return p["bits"].replace("T", "!").replace("N", "."), "", ""


def fmt_mode_exec(p):
    flags = [n for n, k in (("cs.d", "csd"), ("cs.l", "csl"), ("if", "if")) if p[k]]
    return ", ".join(flags), "", ""


def fmt_mode_tsx(p):
    return ", ".join(n for n in ("intx", "abrt") if p[n]), "", ""


def fmt_pip(p):
    cr3 = _int(p["cr3"])
    return "%x%s" % (cr3, ", nr" if p["nr"] else ""), "cr3", "%016x" % cr3


def fmt_vmcs(p):
    base = _int(p["base"])
    return "%x" % base, "vmcs", "%016x" % base


def fmt_tma(p):
    return "%x, %x" % (p["ctc"], p["fc"]), "", ""


def fmt_ptw(p):
    plc = {4: 0, 8: 1}[p["bytes"]]
    return "%x: %x%s" % (plc, _int(p["payload"]), ", ip" if p["ip"] else ""), "", ""


def fmt_pwre(p):
    return "c%u.%u%s" % ((p["state"] + 1) & 0xf, (p["sub_state"] + 1) & 0xf, ", hw" if p["hw"] else ""), "", ""


def fmt_pwrx(p):
    # libipt names one wake reason: interrupt (bit 0), store (bit 2), hw (bit 3); none or several: bad
    wr = p["wake_reason"]
    names = [n for bit, n in ((1, "int"), (4, "st"), (8, "hw")) if wr & bit]
    name = names[0] if len(names) == 1 else "bad"
    return "%s: c%u, c%u" % (name, (p["last"] + 1) & 0xf, (p["deepest"] + 1) & 0xf), "", ""


def fmt_mwait(p):
    return "%08x, %08x" % (p["hints"], p["ext"]), "", ""


def fmt_exstop(p):
    return "ip" if p["ip"] else "", "", ""


CFE_NAMES = {1: "intr", 2: "iret", 3: "smi", 4: "rsm", 5: "sipi", 6: "init", 7: "vmentry", 8: "vmexit",
             9: "vmexit_intr", 10: "shutdown", 12: "uintr", 13: "uiret", 14: "swintr", 15: "syscall"}
CFE_VECTOR_DEC = {1, 9, 12, 14}  # types whose Vector field ptdump shows in decimal
CFE_VECTOR_HEX = {5}             # SIPI: the vector in hex


def fmt_cfe(p):
    t, v = p["cfe_type"], p["vector"]
    s = "%u" % t
    if t in CFE_VECTOR_DEC:
        s += ": %u" % v
    elif t in CFE_VECTOR_HEX:
        s += ": %x" % v
    if p["ip"]:
        s += ", ip"
    return s, "type", CFE_NAMES.get(t, "unknown")


EVD_NAMES = {0: "cr2", 1: "vmxq", 2: "vmxr"}


def fmt_evd(p):
    t = p["evd_type"]
    return "%u: %x" % (t, _int(p["payload"])), "type", EVD_NAMES.get(t, "unknown")


def fmt_trig(p):
    s = "%02x" % p["trbv"]
    if p["ip"]:
        s += ", ip"
    if p["mult"]:
        s += ", mult"
    if "icnt" in p:
        s += ", icnt: %u" % p["icnt"]
    return s, "", ""


def fmt_key_hex(key):
    return lambda p: (_hex(_int(p[key])), "", "")


FORMATTERS = {
    "pad": fmt_none, "psb": fmt_none, "psbend": fmt_none, "ovf": fmt_none, "stop": fmt_none,
    "tnt.8": fmt_tnt, "tnt.64": fmt_tnt,
    "tip": fmt_ip, "tip.pge": fmt_ip, "tip.pgd": fmt_ip, "fup": fmt_ip,
    "pip": fmt_pip, "vmcs": fmt_vmcs,
    "mode.exec": fmt_mode_exec, "mode.tsx": fmt_mode_tsx,
    "tsc": fmt_key_hex("tsc"), "cbr": fmt_key_hex("ratio"), "mtc": fmt_key_hex("ctc"), "cyc": fmt_key_hex("value"),
    "tma": fmt_tma, "mnt": fmt_key_hex("payload"), "ptw": fmt_ptw,
    "exstop": fmt_exstop, "mwait": fmt_mwait, "pwre": fmt_pwre, "pwrx": fmt_pwrx,
    "cfe": fmt_cfe, "evd": fmt_evd, "trig": fmt_trig,
    "invalid": fmt_none,  # ptdump: "<invalid>" (bytes an erratum corrupted, e.g. SKZ84's TMA)
}
OPCODE_NAMES = {"invalid": "<invalid>"}  # ptdump's name where it is not fwpt's type name
EXEC_MODES = {64: "64-bit", 32: "32-bit", 16: "16-bit", 0: "unknown"}


def ptdump_line(p, opts, trace):
    """One JSON packet of fwpt dump -> ptdump's line (ptdump's columns: offset, raw, opcode, payload,
    tracking id and payload)."""
    payload, tid, tpay = FORMATTERS[p["type"]](p)
    if opts["lastip"] and p["type"] in ("tip", "tip.pge", "tip.pgd", "fup"):
        tid, tpay = "ip", ("%016x" % _int(p["ip"])) if "ip" in p else "<suppressed>"
    if opts["exec_mode"] and p["type"] == "mode.exec":
        tid, tpay = "em", EXEC_MODES[p["mode"]]
    if "time" in p:
        tid, tpay = "tsc", p["time"]
    elif "fcr" in p:
        tid, tpay = "fcr", p["fcr"]
    cols = []
    if opts["offset"]:
        cols.append("%-17s" % ("%016x" % p["offset"]))
    if opts["raw"]:
        cols.append("%-33s" % trace[p["offset"]:p["offset"] + p["size"]].hex())
    name = OPCODE_NAMES.get(p["type"], p["type"])
    cols.append("%-10s" % name if payload or tid else name)
    line = " ".join(cols)
    if tid:
        line += " %-25s %-5s%s" % (payload, tid, tpay)
    elif payload:
        line += " " + payload
    return line


def normalize(line):
    """diff -b: runs of white space are equal, white space at the line's end is ignored."""
    return re.sub(r"\s+", " ", line.rstrip())


# ---------------------------------------------------------------- one case

CPU_DIAG = "[0: failed to determine errata: unknown cpu]"


def expected_lines(case_dir, opts):
    with open(os.path.join(case_dir, "ptdump.exp")) as f:
        lines = [l.rstrip("\n") for l in f]
    opts["cpu_diag"] = False
    out = []
    for l in lines:
        if opts["cpu"] is not None and l == CPU_DIAG:
            opts["cpu_diag"] = True
            continue  # ptdump's own diagnostic about its --cpu argument
        out.append(l)
    while out and not out[-1].strip():
        out.pop()
    return out


def fwpt_lines(repo_root, case_dir, opts, cpu=None):
    """fwpt dump's packets as ptdump lines, and the JSON object of each line (None for error lines)."""
    trace_path = os.path.join(case_dir, "trace.pt")
    with open(trace_path, "rb") as f:
        trace = f.read()
    cmd = [build_path("fwpt"), "dump", trace_path, "--format", "jsonl"]
    if opts["sync"]:
        cmd.append("--sync")
    if cpu:
        cmd += ["--cpu", cpu]
    cmd += opts["time_args"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    if r.returncode == 1 and opts["sync"] and not r.stdout and "no PSB" in r.stderr:
        return [], [], trace  # ptdump prints nothing when there is no sync point (-pte_eos on sync)
    out, pkts = [], []
    for jl in r.stdout.splitlines():
        p = json.loads(jl)
        if "time_error" in p:
            out.append("[%x: %s: %s]" % (p["offset"], p["time_error"], p["message"]))
            pkts.append(p)
            continue
        if "error" in p:
            msg = ERROR_MESSAGES[p["error"]]
            if msg is None:
                break  # libipt: end of the trace
            out.append("[%x: error decoding packet: %s]" % (p["offset"], msg))
            pkts.append(p)
            continue
        out.append(ptdump_line(p, opts, trace))
        pkts.append(p)
    return out, pkts, trace


def check_case(repo_root, case_dir, row):
    """-> (ok, reason). reason says what was checked, or the first differing line."""
    name = row["name"]
    if name in PRESENTATION_ONLY:
        return True, "presentation-only: " + PRESENTATION_ONLY[name]
    opts = parse_opts(row.get("ptdump_opts", ""))
    if opts["unknown"]:
        return False, "ptdump options not handled: " + " ".join(opts["unknown"])
    exp = expected_lines(case_dir, opts)
    cpu = case_cpu(row)
    try:
        got, pkts, trace = fwpt_lines(repo_root, case_dir, opts, cpu)
    except (RuntimeError, ValueError, KeyError) as e:
        return False, "fwpt dump: %s: %s" % (type(e).__name__, e)
    known = []
    for i in range(max(len(exp), len(got))):
        e = exp[i] if i < len(exp) else "<end>"
        g = got[i] if i < len(got) else "<end>"
        if normalize(e) != normalize(g):
            diff = [d for d in LIBIPT_DIFFERENCES if i < len(pkts) and d[2](e, g, pkts[i], trace)]
            if not diff:
                return False, "line %d: expected '%s', fwpt '%s'" % (i + 1, e, g)
            known.append(diff[0][0])
    what = "packets checked"
    if opts["timing"]:
        what += ", time too"
    if cpu:
        what += " (--cpu %s)" % cpu
    if opts["cpu_diag"]:
        what += " (ptdump's line about its --cpu argument not compared)"
    if known:
        diffs = [d for d in LIBIPT_DIFFERENCES if d[0] in known]
        what += "; fwpt follows the SDM where " + "; ".join(d[1] for d in diffs)
    return True, what


# ---------------------------------------------------------------- all cases

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    repo_root = REPO
    corpus = corpus_root()
    if not os.path.isfile(os.path.join(corpus, "manifest.tsv")):
        print("*** conformance corpus not found at %s: %d cases not run ***" % (corpus, CORPUS_PTDUMP_CASES))
        print("conformance_ptdump: 0 passed, %d failed" % CORPUS_PTDUMP_CASES)
        return 1
    if not os.access(build_path("fwpt"), os.X_OK):
        print("%s not found (make all)" % build_path("fwpt"))
        print("conformance_ptdump: 0 passed, 1 failed")
        return 1
    rows = [r for r in read_manifest(corpus) if "ptdump.exp" in r.get("files", "").split()]
    if argv:
        rows = [r for r in rows if r["name"] in argv]
    fams = {}
    failures, notes = [], {}
    for row in rows:
        ok, reason = check_case(repo_root, os.path.join(corpus, row["name"]), row)
        f = fams.setdefault(family(row["name"]), [0, 0])
        f[0 if ok else 1] += 1
        if not ok:
            failures.append((row["name"], reason))
        elif reason != "packets checked":
            notes.setdefault(reason, []).append(row["name"])
    print("%-24s %6s %6s" % ("family", "pass", "fail"))
    for fam in sorted(fams):
        print("%-24s %6d %6d" % (fam, fams[fam][0], fams[fam][1]))
    for reason, names in sorted(notes.items()):
        print("%d cases: %s" % (len(names), reason))
    for name, reason in failures:
        print("FAIL %s: %s" % (name, reason))
    passed = sum(v[0] for v in fams.values())
    failed = sum(v[1] for v in fams.values())
    print("conformance_ptdump: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
