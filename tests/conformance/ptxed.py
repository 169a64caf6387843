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
import subprocess

# fwpt flow --format jsonl "type" -> the line ptxed prints. A function gets the JSON object and
# the case's options and returns the line, or None when ptxed prints nothing for that event.
def _ip_suffix(ev, opts, key="ip"):
    if "--event:ip" in opts and key in ev:
        return ", ip: %016x" % int(ev[key], 16)
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
    return ", %s: %016x" % ("at" if ev.get("async") else "ip", int(ev["ip"], 16))

TSX_NAMES = {"begin": "begin transaction", "commit": "committed", "abort": "aborted"}

def _tsx(ev, opts):
    if ev.get("status"):
        return None          # PSB+ status: the transaction state as found, no event in ptxed
    return "[%s%s]" % (TSX_NAMES[ev["tsx"]], _ip_suffix(ev, opts))

def _error(ev, opts):
    msg = LIBIPT_ERRORS.get(ev["status"], ev.get("message", ev["status"]))
    return "[%x, %x: error: %s]" % (ev["offset"], int(ev.get("ip", "0"), 16), msg)

EVENTS = {
    "enabled": _enabled,                                   # TIP.PGE (or PSB+ FUP at sync)
    "disabled": _disabled,                                 # TIP.PGD
    "interrupt": lambda ev, opts: "[interrupt]",           # FUP + TIP: asynchronous branch
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
    "end": lambda ev, opts: "[end of trace]",
    "cut": lambda ev, opts: None,
}

# fwpt status -> libipt's error message as ptxed prints it.
LIBIPT_ERRORS = {
    "E_NOMAP": "no memory mapped at this address",
    "E_NO_TNT": "trace stream does not match query",
    "E_NO_TIP": "trace stream does not match query",
    "E_BAD_CONTEXT": "unexpected packet context",
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
        if line is not None:
            lines.append(line)
    return lines

def run_case(repo, case_dir, row):
    opts = row["ptxed_opts"].split()
    org = int(row["org"], 16)
    cmd = [os.path.join(repo, "build", "fwpt"), "flow", os.path.join(case_dir, "trace.pt"),
           "--image", "%s@%x" % (os.path.join(case_dir, "code.bin"), org), "--format", "jsonl",
           "--no-disasm"]
    cpu = row["cpu"]
    if "--cpu" in opts:
        cpu = opts[opts.index("--cpu") + 1]
    if cpu != "-":
        cmd += ["--cpu", cpu]
    # ptxed --filter:addrN_cfg/_a/_b: the IP filter ranges the trace was recorded with
    for n in range(4):
        key = "--filter:addr%d_" % n
        if key + "cfg" in opts and opts[opts.index(key + "cfg") + 1] == "1":
            cmd += ["--filter", "%x-%x" % (int(opts[opts.index(key + "a") + 1], 0),
                                           int(opts[opts.index(key + "b") + 1], 0))]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    return p, fwpt_lines(p.stdout, opts)

def check_case(repo, case_dir, row):
    """(ok, reason): fwpt flow's instructions and events against ptxed.exp."""
    exp = expected_lines(os.path.join(case_dir, "ptxed.exp"))
    try:
        p, got = run_case(repo, case_dir, row)
    except subprocess.TimeoutExpired:
        return False, "fwpt flow timed out (30 s)"
    if p.returncode not in (0, 1):
        return False, "fwpt flow exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    for i in range(max(len(exp), len(got))):
        e = exp[i] if i < len(exp) else "<end>"
        g = got[i] if i < len(got) else "<end>"
        if e != g:
            return False, "line %d: expected %r, fwpt %r" % (i + 1, e, g)
    return True, ""

def family(name):
    base = name.split("@")[0]
    return base.split("-")[0]

def read_manifest(root):
    rows = []
    with open(os.path.join(root, "manifest.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            vals = line.rstrip("\n").split("\t")
            rows.append(dict(zip(head, vals)))
    return rows

def main():
    import sys
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = os.path.join(os.path.dirname(repo), "shared", "conformance", "libipt")
    rows = [r for r in read_manifest(root) if "ptxed.exp" in r["files"].split()]
    only = sys.argv[1:]
    fams = {}
    fails = []
    for r in rows:
        if only and not any(o in r["name"] for o in only):
            continue
        ok, why = check_case(repo, os.path.join(root, r["name"]), r)
        f = fams.setdefault(family(r["name"]), [0, 0])
        f[0 if ok else 1] += 1
        if not ok:
            fails.append((r["name"], why))
    for n, why in fails:
        print("FAIL %s: %s" % (n, why))
    for k in sorted(fams):
        print("%-14s %3d passed, %3d failed" % (k, fams[k][0], fams[k][1]))
    print("ptxed: %d passed, %d failed" % (sum(v[0] for v in fams.values()), sum(v[1] for v in fams.values())))

if __name__ == "__main__":
    main()
