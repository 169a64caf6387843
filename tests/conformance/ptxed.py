#!/usr/bin/env python3
"""fwpt flow against Intel's decoder conformance corpus (libipt's test programs, compiled).

Each case of ../shared/conformance/libipt/manifest.tsv that has a ptxed.exp is decoded with
`build/fwpt flow TRACE --image code.bin@ORG --format jsonl [--cpu F/M]` and the instructions,
events and errors are compared line by line with what libipt's ptxed prints (ptxed --no-inst).

fwpt's JSON events become ptxed's bracketed lines through EVENTS below (the table the docs show).
Importable: no work at import time.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import REPO, build_path, case_cpu, corpus_root, family, read_manifest  # noqa: E402

# fwpt flow --format jsonl "type" -> the line ptxed prints. A function gets the JSON object and
# the case's options and returns the line, or None when ptxed prints nothing for that event.
def _ip_suffix(ev, opts):
    if "--event:ip" in opts and "ip" in ev:
        return ", ip: %016x" % int(ev["ip"], 16)
    return ""

def _enabled(ev, opts):
    if ev.get("sync"):
        return None          # first synchronization at a PSB+ FUP: ptxed prints no event
    name = "resumed" if ev.get("resumed") else "enabled"
    return "[%s%s]" % (name, _ip_suffix(ev, opts))

def _disabled(ev, opts):
    return "[disabled%s]" % _disabled_ip(ev, opts)

def _exec_mode(ev, opts):
    return "[exec mode: %s-bit%s]" % (ev["mode"], _ip_suffix(ev, opts))

def _disabled_ip(ev, opts):
    # ptxed --event:ip: "at" for an asynchronous disable (FUP + TIP.PGD), "ip" for the TIP.PGD target
    if "--event:ip" not in opts or "ip" not in ev:
        return ""
    s = ", %s: %016x" % ("at" if ev.get("async") else "ip", int(ev["ip"], 16))
    if ev.get("async") and "target" in ev:
        s += ", ip: %016x" % int(ev["target"], 16)
    return s

WAKE = {"interrupt": "int", "timer": "tmr", "store": "st", "hw": "hw", "none": "none"}

TSX_NAMES = {"begin": "begin transaction", "commit": "committed", "abort": "aborted"}

def _tsx(ev, opts):
    if ev.get("status"):
        return None          # PSB+ status: the transaction state as found, no event in ptxed
    return "[%s%s]" % (TSX_NAMES[ev["tsx"]], _ip_suffix(ev, opts))

# Event Trace CFE (SDM "CFE Packet") as ptxed prints it: vectors in decimal (SIPI's in hex), EVD data
# (CR2; VMX exit reason, then qualification) when it came. Reserved types: ptxed prints nothing.
CFE_PLAIN = ("iret", "smi", "rsm", "init", "vmentry", "shutdown", "uiret", "syscall")

def _cfe(ev, opts):
    t = ev["cfe"]
    if t == "intr":
        s = "interrupt %d" % ev["vector"]
        if "cr2" in ev:
            s += ", cr2: %016x" % int(ev["cr2"], 16)
    elif t == "sipi":
        s = "sipi: %x" % ev["vector"]
    elif t in ("vmexit", "vmexit_intr"):
        s = "vmexit"
        if t == "vmexit_intr":
            s += ", intr: %d" % ev["vector"]
        for k in ("vmxr", "vmxq"):
            if k in ev:
                s += ", %s: %016x" % (k, int(ev[k], 16))
    elif t in ("uintr", "swintr"):
        s = "%s %d" % (t, ev["vector"])
    elif t in CFE_PLAIN:
        s = t
    else:
        return None
    return "[%s%s]" % (s, _ip_suffix(ev, opts))

def _iflags(ev, opts):
    if "--event:iflags" not in opts:
        return None
    return "[interrupts %s%s]" % ("enabled" if ev["if"] else "disabled", _ip_suffix(ev, opts))

def _error(ev, opts):
    msg = LIBIPT_ERRORS.get(ev["status"], ev.get("message", ev["status"]))
    return "[%x, %x: error: %s]" % (ev["offset"], int(ev.get("ip", "0"), 16), msg)

EVENTS = {
    "enabled": _enabled,                                   # TIP.PGE (or PSB+ FUP at sync)
    "disabled": _disabled,                                 # TIP.PGD
    "interrupt": lambda ev, opts: "[interrupt%s]" % (      # FUP + TIP: asynchronous branch
        ", from: %016x, to: %016x" % (int(ev["from"], 16), int(ev["to"], 16)) if "--event:ip" in opts else ""),
    "overflow": lambda ev, opts: "[overflow%s]" % _ip_suffix(ev, opts),
    "mode": _exec_mode,                                    # MODE.Exec changed the code size
    "error": _error,
    "tsx": _tsx,                                           # MODE.TSX bound to its FUP
    "stopped": lambda ev, opts: "[stopped]",               # TraceStop
    "exstop": lambda ev, opts: "[exstop%s]" % _ip_suffix(ev, opts),
    "ptwrite": lambda ev, opts: "[ptwrite: %x%s]" % (int(ev["payload"], 16), _ip_suffix(ev, opts)),
    "paging": lambda ev, opts: "[paging, cr3: %016x%s]" % (int(ev["cr3"], 16), ", nr" if ev.get("nr") else ""),
    "vmcs": lambda ev, opts: "[vmcs, base: %016x]" % int(ev["base"], 16),
    # The trace data ends with tracing on. ptxed stops here (pts_eos); fwpt goes on listing what the
    # code alone implies up to the first instruction that needs a packet (docs: "the end of a trace"):
    # those instructions are not compared.
    "cbr": lambda ev, opts: "[cbr: %x]" % ev["ratio"],
    "mnt": lambda ev, opts: "[mnt: %x]" % int(ev["payload"], 16),
    "mwait": lambda ev, opts: "[mwait %x %x%s]" % (int(ev["hints"], 16), int(ev["ext"], 16), _ip_suffix(ev, opts)),
    "pwre": lambda ev, opts: "[pwre %s%s]" % (ev["state"].lower(), " hw" if ev["hw"] else ""),
    "pwrx": lambda ev, opts: "[pwrx %s: %s (%s)]" % (WAKE[ev["wake"]], ev["last"].lower(), ev["deepest"].lower()),
    "trig": lambda ev, opts: "[trig %02x%s%s]" % (int(ev["trbv"], 16), ", mult" if ev["mult"] else "",
                                                  _ip_suffix(ev, opts)),
    "cfe": _cfe,                                           # Event Trace CFE (+ EVD data)
    "iflags": _iflags,                                     # MODE.Exec's IF bit changed (Event Trace)
    "end": lambda ev, opts: "[end of trace]",
    "tick": lambda ev, opts: "[tick]",                     # fwpt flow --ticks: a branch's packet changed the time
    "cut": lambda ev, opts: None,
}

# fwpt status -> libipt's error message as ptxed prints it.
LIBIPT_ERRORS = {
    "E_NOMAP": "no memory mapped at this address",
    "E_NO_TNT": "trace stream does not match query",
    "E_NO_TIP": "trace stream does not match query",
    "E_BAD_CONTEXT": "unexpected packet context",
    "E_BAD_STATUS": "bad status update",
}

def expected_lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f if l.strip()]

def fwpt_lines(out, opts):
    lines = []
    ended = False
    for raw in out.splitlines():
        if not raw.startswith("{"):
            continue
        ev = json.loads(raw)
        t = ev["type"]
        if ended and t == "insn":
            continue
        ended = ended or t == "end"
        if t == "insn":
            lines.append(("? " if ev.get("spec") else "") + "%016x" % int(ev["ip"], 16))
            continue
        fmt = EVENTS.get(t)
        line = fmt(ev, opts) if fmt else "[fwpt event %s]" % t
        if line is not None and "--event:time" in opts and "tsc" in ev:
            line = "[%016x  %s" % (int(ev["tsc"], 16), line[1:])  # ptxed --event:time: the event's time first
        if line is not None:
            lines.append(line)
    return lines

def run_case(repo, case_dir, row, cpu_none=False):
    opts = row["ptxed_opts"].split()
    org = int(row["org"], 16)
    cmd = [build_path("fwpt"), "flow", os.path.join(case_dir, "trace.pt"),
           "--image", "%s@%x" % (os.path.join(case_dir, "code.bin"), org), "--format", "jsonl",
           "--no-disasm"]
    cpu = case_cpu(row)
    if "--cpu" in opts:
        cpu = opts[opts.index("--cpu") + 1]
    if "--event:iflags" in opts:
        cmd += ["--iflags"]  # ptxed's --event:iflags asks libipt for them (enable_iflags_events)
    if "--event:tick" in opts:
        cmd += ["--ticks"]  # ptxed's --event:tick asks libipt for tick events (enable_tick_events)
    elif "--event:time" in opts:
        cmd += ["--time"]
    for o in ("--mtc-freq", "--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx"):
        if o in opts:
            cmd += [o, opts[opts.index(o) + 1]]
    if "--insn:keep-tcal-on-ovf" in opts:
        cmd += ["--keep-tcal-on-ovf"]
    if cpu_none:
        cmd += ["--cpu", "none"]
    elif cpu:
        cmd += ["--cpu", cpu]
    # ptxed --filter:addrN_cfg/_a/_b: the IP filter ranges the trace was recorded with
    for n in range(4):
        key = "--filter:addr%d_" % n
        if key + "cfg" in opts and opts[opts.index(key + "cfg") + 1] == "1":
            cmd += ["--filter", "%x-%x" % (int(opts[opts.index(key + "a") + 1], 0),
                                           int(opts[opts.index(key + "b") + 1], 0))]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    return p, fwpt_lines(p.stdout, opts)

# Where libipt reads a packet otherwise than the SDM and fwpt follows the SDM (the ptdump half lists
# the same): (name, reason, test(expected line, fwpt's line, trace bytes) -> True when that is the difference).
def _pwre_hw(e, g, trace):
    # SDM Table "PWRE Packet Definition": HW is byte 2 bit 7; libipt 2.x reads it from bit 3.
    if not (e.startswith("[pwre ") and e == g[:-1] + " hw]"):
        return False
    return any(trace[i] == 0x02 and trace[i + 1] == 0x22 and trace[i + 2] & 0x08 and not trace[i + 2] & 0x80
               for i in range(len(trace) - 3))

_ERR = re.compile(r"^\[([0-9a-f]+), ([0-9a-f]+): (error: .*)\]$")

def _error_offset(e, g, trace):
    # The trace offset of a decode error: fwpt names the packet the walk was at when it failed (the next
    # one it would have read); libipt names its query decoder's read position, which runs ahead of the
    # walk by a packet or a PSB+ (it decodes TNT and PSB+ ahead). Same IP, same error, same place in
    # the flow: only the number differs, by less than a PSB+.
    me, mg = _ERR.match(e), _ERR.match(g)
    return bool(me and mg and me.group(2, 3) == mg.group(2, 3) and
                abs(int(me.group(1), 16) - int(mg.group(1), 16)) <= 0x20)

LIBIPT_DIFFERENCES = [
    ("error-offset", "libipt's error offset is its query decoder's read position, fwpt's the packet the walk was at",
     _error_offset),
    ("pwre-hw", "libipt reads PWRE's HW from byte 2 bit 3, the SDM table puts it in bit 7", _pwre_hw),
]

_RESYNC_ERR = re.compile(r"^\[([0-9a-f]+), ([0-9a-f]+): resync error: (.*)\]$")

def one_error_per_fault(exp):
    """ptxed --resync-on-error prints a fault twice when libipt's resync fails on the same packet it
    failed on ("[o, ip: error: M]" then "[o, ip: resync error: M]": it re-reads the PSB+ whose status
    did not fit); fwpt reports each fault once. Only that exact repetition is dropped."""
    out = []
    for line in exp:
        m = _RESYNC_ERR.match(line)
        if m and out and out[-1] == "[%s, %s: error: %s]" % m.group(1, 2, 3):
            continue
        out.append(line)
    return out

def check_case(repo, case_dir, row):
    """(ok, reason): fwpt flow's instructions and events against ptxed.exp."""
    exp = one_error_per_fault(expected_lines(os.path.join(case_dir, "ptxed.exp")))
    try:
        p, got = run_case(repo, case_dir, row)
    except subprocess.TimeoutExpired:
        return False, "fwpt flow timed out (30 s)"
    # 0 whole, 1 errors or nothing decoded, 3 a trace that ends with tracing on (docs/host-tool.md)
    if p.returncode not in (0, 1, 3):
        return False, "fwpt flow exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    with open(os.path.join(case_dir, "trace.pt"), "rb") as f:
        trace = f.read()
    for i in range(max(len(exp), len(got))):
        e = exp[i] if i < len(exp) else "<end>"
        g = got[i] if i < len(got) else "<end>"
        if e != g and not any(d[2](e, g, trace) for d in LIBIPT_DIFFERENCES):
            return False, "line %d: expected %r, fwpt %r" % (i + 1, e, g)
    return True, ""

def _ptdump_listing(name):
    """The case's ptxed.exp is a packet listing (offset, two spaces, psb), not a flow."""
    try:
        with open(os.path.join(corpus_root(), name, "ptxed.exp")) as f:
            return f.readline().startswith("0000000000000000  psb")
    except OSError:
        return False

# Cases about ptxed's own presentation, not the flow: name pattern -> reason. Each is still compared
# where it can be (see PRESENTATION_FILTERS); none hides a disagreement on instructions or events.
PRESENTATION_ONLY = [
    (lambda n, o: "--block:show-blocks" in o and not _ptdump_listing(n),
     "ptxed --block:show-blocks marks the block decoder's blocks with [block]: compared with those lines left out"),
    (lambda n, o: "--stat" in o and "--quiet" in o,
     "ptxed --quiet --stat prints only its statistics, no flow: nothing to compare (the packets are checked by the ptdump half)"),
    (lambda n, o: _ptdump_listing(n),
     "the corpus keeps ptdump's listing as this case's ptxed.exp (it tests ptxed's --stat or --block:end-on-jump "
     "output, which the corpus does not keep): the packets are checked by the ptdump half"),
    (lambda n, o: n == "bad_cpu",
     "ptxed --cpu 0/0 prints a config error and decodes nothing; fwpt flow refuses --cpu 0/0 with exit 2 naming the option (checked)"),
]

# Cases fwpt does not decode the way ptxed does yet, with the reason; each must fail (a case that now
# passes must leave this list, so the list stays exact). The flow conformance is complete when it is empty.
NOT_YET = [
]

def classify(name, opts, table):
    for test, why in table:
        if test(name, opts):
            return why
    return None

def check_presentation(repo, case_dir, row):
    opts = row["ptxed_opts"].split()
    if _ptdump_listing(row["name"]):
        return True, ""
    if "--block:show-blocks" in opts:
        exp = [l for l in expected_lines(os.path.join(case_dir, "ptxed.exp")) if l != "[block]"]
        p, got = run_case(repo, case_dir, row)
        return exp == got, "" if exp == got else "flow differs with [block] lines left out"
    if row["name"] == "bad_cpu":
        p, _ = run_case(repo, case_dir, row)
        ok = p.returncode == 2 and "--cpu" in p.stderr
        return ok, "" if ok else "fwpt flow did not refuse --cpu 0/0 with exit 2"
    return True, ""

def check_without_cpu(repo, case_dir, row):
    """An errata case decoded with no processor (no errata): fwpt may not report more decode errors
    than libipt's instruction decoder with no processor (build/tests/ipt_errors), and may not list an
    instruction twice in a row at the same place after an error. (ok, reason, fwpt errors, libipt errors)"""
    p, _ = run_case(repo, case_dir, row, cpu_none=True)
    ferr = sum(1 for l in p.stdout.splitlines() if l.startswith('{"type":"error"'))
    q = subprocess.run([build_path("tests", "ipt_errors"), os.path.join(case_dir, "trace.pt"),
                        os.path.join(case_dir, "code.bin"), "%x" % int(row["org"], 16)],
                       capture_output=True, text=True, timeout=30)
    if q.returncode != 0 or not q.stdout.startswith("errors "):
        return False, "ipt_errors failed: %s" % q.stderr.strip(), ferr, -1
    ierr = int(q.stdout.split()[1])
    if ferr > ierr:
        return False, "without a processor fwpt reports %d errors, libipt %d" % (ferr, ierr), ferr, ierr
    return True, "", ferr, ierr

def main():
    repo = REPO
    root = corpus_root()
    if not os.path.isfile(os.path.join(root, "manifest.tsv")):
        print("conformance corpus not found at %s: the ptxed cases were NOT RUN" % root)
        print("conformance_ptxed: 0 passed, 1 failed (corpus missing)")
        return 1
    rows = [r for r in read_manifest(root) if "ptxed.exp" in r["files"].split()]
    only = sys.argv[1:]
    fams, fails, notyet, stale, pres = {}, [], [], [], 0
    for r in rows:
        if only and not any(o in r["name"] for o in only):
            continue
        opts = r["ptxed_opts"].split()
        case_dir = os.path.join(root, r["name"])
        why_p = classify(r["name"], opts, PRESENTATION_ONLY)
        if why_p:
            ok, why = check_presentation(repo, case_dir, r)
            pres += 1
        else:
            ok, why = check_case(repo, case_dir, r)
        f = fams.setdefault(family(r["name"]), [0, 0, 0])
        ny = None if why_p else classify(r["name"], opts, NOT_YET)
        if ok and ny:
            stale.append((r["name"], ny))
            f[1] += 1
        elif ok:
            f[0] += 1
        elif ny:
            notyet.append((r["name"], ny, why))
            f[2] += 1
        else:
            fails.append((r["name"], why))
            f[1] += 1
    # errata cases without the processor, against libipt without one
    nocpu = {}
    for r in rows:
        if "@cpu_" not in r["name"] or (only and not any(o in r["name"] for o in only)):
            continue
        ok, why, ferr, ierr = check_without_cpu(repo, os.path.join(root, r["name"]), r)
        c = nocpu.setdefault(family(r["name"]), [0, 0, 0, 0])
        c[0 if ok else 1] += 1
        c[2] += ferr
        c[3] += max(ierr, 0)
        if not ok:
            fails.append((r["name"] + " (--cpu none)", why))
    for k in sorted(nocpu):
        print("without a processor %-8s %3d passed, %d failed; decode errors: fwpt %d, libipt %d" %
              (k, nocpu[k][0], nocpu[k][1], nocpu[k][2], nocpu[k][3]))
    passed_nocpu = sum(v[0] for v in nocpu.values())
    failed_nocpu = sum(v[1] for v in nocpu.values())
    for n, why in fails:
        print("FAIL %s: %s" % (n, why))
    for n, ny in stale:
        print("FAIL %s: passes now: take it off NOT_YET (%s)" % (n, ny))
    reasons = {}
    for n, ny, why in notyet:
        reasons.setdefault(ny, []).append(n)
    for ny, names in reasons.items():
        print("NOT YET (%d): %s: %s" % (len(names), ny, " ".join(names)))
    print("%-22s %6s %6s %7s" % ("family", "passed", "failed", "not yet"))
    for k in sorted(fams):
        print("%-22s %6d %6d %7d" % (k, fams[k][0], fams[k][1], fams[k][2]))
    passed = sum(v[0] for v in fams.values()) + passed_nocpu
    failed = sum(v[1] for v in fams.values()) + failed_nocpu
    print("conformance_ptxed: %d passed, %d failed (%d cases with a ptxed.exp: %d presentation-only checked as such, "
          "%d not yet decoded as ptxed does, listed above; %d errata cases also without a processor)" %
          (passed, failed, len(rows), pres, len(notyet), passed_nocpu + failed_nocpu))
    return 1 if failed else 0

if __name__ == "__main__":
    raise SystemExit(main())
