#!/usr/bin/env python3
"""fwpt flow --annotate against binutils: for the functions of one traced module that ran most, the per-line counts
`fwpt flow DIR --symbols SYMS --annotate NAME` prints must equal the oracle's, computed without fwpt's resolver:
the instruction addresses of the listing (`fwpt flow DIR --no-disasm`, counted per address), the function of each
from `nm -S` (the symbol whose [start, start + size) holds it), its file:line from `addr2line` (the line-table row:
the inlined function's line for inlined code; where binutils 2.40 names another file of a DWARF 5 unit for the
row, e.g. "<artificial>" in LTO units, the row of `objdump -w --dwarf=decodedline` is the referee). Checked exactly: the header (name, Module+0xOFF, entry, count, the
trace's total), each row's count and share, every line with counts present and none other, the `no line` row;
the same in --format jsonl with the files' full paths, "inlined" on the rows where `addr2line -i` prints more than
one frame for one of the addresses.
With --source-root OLD=NEW over a made-up copy of the main source file whose line N reads "fwpt line N": every
row with text shows its own line's text, and the rows run from two lines before the first counted line to two
after the last. An unknown name exits 1 naming near names; --annotate without --symbols exits 2; the report page
with symbols has the section of the top 5 functions, those of MODULE in the oracle's order (all five when MODULE
ran most). --by time (a trace with time): the
rows add up to the function's ticks, and the trace's ticks are those --profile --by time spread.

Usage: tests/oracle/annotate_lines.py FWPT DIR SYMS MODULE DEBUG_FILE [N [NAME...]]
  FWPT the tool, DIR a saved trace directory, SYMS what --symbols is given, MODULE the traced module to check
  (its name in sideband.json), DEBUG_FILE its ELF symbol file with DWARF lines, N functions (default 3), NAME
  more functions to check (e.g. one with code inlined from another file: the rows "FILE:LINE" after its own).
Prints one line per failed check and "annotate_lines: N passed, N failed"; exit 1 on a failure, 2 on bad usage."""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)
    return cond


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def pct(v, total):
    h = (v * 10000 + total // 2) // total if total else 0
    return "%d.%02d" % (h // 100, h % 100)


def main():
    if len(sys.argv) < 6:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        sys.exit(2)
    tool, d, syms, module, debug = sys.argv[1:6]
    nfun = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    sb = json.load(open(os.path.join(d, "sideband.json")))
    base = [int(str(i["base"]), 0) for i in sb["images"] if i["name"] == module]
    if not check(len(base) == 1, "%s: one image named %s (%d)" % (d, module, len(base))):
        return
    base = base[0]

    # the instruction addresses, counted
    rc, out, err = run([tool, "flow", d, "--no-disasm", "-q"])
    counts = collections.Counter()
    total = 0
    for line in out.splitlines():
        m = re.match(r"0x([0-9a-f]{16})  ", line)
        if m:
            counts[int(m.group(1), 16)] += 1
            total += 1
    check(total > 0, "the listing has instructions (exit %d)" % rc)

    # nm -S: the functions of the module, at base
    funcs = []
    for line in run(["nm", "-S", "--defined-only", debug])[1].splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            funcs.append((base + int(f[0], 16), int(f[1], 16), f[3]))
    funcs.sort()
    starts = [f[0] for f in funcs]

    import bisect

    def func_of(a):
        i = bisect.bisect_right(starts, a) - 1
        while i >= 0 and funcs[i][0] <= a:
            if a < funcs[i][0] + funcs[i][1]:
                return funcs[i]
            i -= 1
        return None

    # objdump -w --dwarf=decodedline: the line table's rows (file base name, line) by address; for an address the
    # last row printed of those at the greatest address <= it
    lt_rows = []
    for l in run(["objdump", "-w", "--dwarf=decodedline", debug])[1].splitlines():
        f = l.split()
        if len(f) >= 3 and f[2].startswith("0x") and f[1].isdigit():
            lt_rows.append((int(f[2], 16), len(lt_rows), f[0], int(f[1])))
    lt_rows.sort()
    row_addrs = [r[0] for r in lt_rows]

    def line_row(e):
        i = bisect.bisect_right(row_addrs, e) - 1
        return (lt_rows[i][2], lt_rows[i][3]) if i >= 0 else None

    def key(f):
        """a file as the oracle knows it: its path, or "*/NAME" where only objdump's base name is known"""
        return f if f is None or f in known or ("*/" + os.path.basename(f)) not in known else "*/" + os.path.basename(f)

    per_func = collections.defaultdict(list)
    for a in counts:
        f = func_of(a)
        if f:
            per_func[(f[0], f[2])].append(a)
    ranked = sorted(per_func, key=lambda k: (-sum(counts[a] for a in per_func[k]), k[0]))
    names = collections.Counter(k[1] for k in per_func)
    chosen = [k for k in ranked if names[k[1]] == 1][:nfun]
    check(len(chosen) == nfun, "%d functions of %s ran with a name of their own (%d)" % (nfun, module, len(chosen)))
    for extra in sys.argv[7:]:
        k = [k for k in per_func if k[1] == extra]
        if check(len(k) == 1, "%s ran in %s, once (%d)" % (extra, module, len(k))) and k[0] not in chosen:
            chosen.append(k[0])

    for entry, name in chosen:
        addrs = sorted(per_func[(entry, name)])
        a2l = run(["addr2line", "-e", debug] + ["0x%x" % (a - base) for a in addrs + [entry]])[1].splitlines()
        loc = {}
        for a, s in zip(addrs + [entry], a2l):
            file, _, ln = s.rpartition(":")
            ln = ln.split()[0]
            loc[a] = (file, int(ln)) if ln.isdigit() and int(ln) and file != "??" else (None, 0)
            # binutils 2.40 names some rows of DWARF 5 line tables by another file of the unit ("<comp
            # dir>/<artificial>" in GCC's LTO units): there the row itself is the referee, as objdump prints it
            # (its file's base name: "*/NAME", the directory not known)
            row = line_row(a - base)
            if loc[a][0] and row and row[1] == loc[a][1] and os.path.basename(loc[a][0]) != row[0]:
                loc[a] = ("*/" + row[0], loc[a][1])
        mainfile, eline = loc[entry]
        want = collections.Counter()
        for a in addrs:
            f, ln = loc[a]
            want[(os.path.basename(f) if f else None, ln)] += counts[a]
        fcount = sum(counts[a] for a in addrs)

        # inlined: addr2line -i prints more than one frame for the address
        frames = collections.Counter()
        cur = None
        for l in run(["addr2line", "-a", "-i", "-e", debug] + ["0x%x" % (a - base) for a in addrs])[1].splitlines():
            if re.match(r"^0x[0-9a-f]+$", l):
                cur = int(l, 16) + base
            elif cur is not None:
                frames[cur] += 1
        want_inl = set()
        for a in addrs:
            if frames[a] > 1:
                f, ln = loc[a]
                want_inl.add((f, ln))

        # JSON lines: the same counts with the files as addr2line names them, "inlined" where addr2line -i says so
        rc, out, err = run([tool, "flow", d, "-q", "--symbols", syms, "--annotate", name, "--format", "jsonl"])
        recs = [json.loads(l) for l in out.splitlines()] if rc == 0 else []
        jl = collections.Counter()
        inl = set()
        for r in recs[1:]:
            k = (r.get("file"), r.get("line", 0))
            jl[k] += r["count"]
            if r.get("inlined"):
                inl.add(k)
        full = collections.Counter()
        for a in addrs:
            full[loc[a]] += counts[a]
        known = set(f for f, ln in loc.values())
        jl = collections.Counter({(key(k[0]), k[1]): v for k, v in jl.items()})
        inl = set((key(k[0]), k[1]) for k in inl)
        hfile = key(recs[0].get("file")) if recs else None
        check(recs and recs[0]["type"] == "annotate" and recs[0]["count"] == fcount and recs[0]["total"] == total and
              recs[0]["entry"] == "0x%x" % entry and hfile == mainfile and recs[0].get("line") == eline,
              "%s: jsonl header %s" % (name, recs[:1]))
        check(jl == full, "%s: jsonl per-line counts %s, expected %s" % (name, sorted(jl.items(), key=str),
                                                                        sorted(full.items(), key=str)))
        check(inl == want_inl, "%s: jsonl inlined rows %s, addr2line -i: %s" % (name, sorted(inl, key=str),
                                                                               sorted(want_inl, key=str)))

        rc, out, err = run([tool, "flow", d, "-q", "--symbols", syms, "--annotate", name])
        if not check(rc == 0, "--annotate %s: exit %d: %s" % (name, rc, err.strip()[:300])):
            continue
        lines = out.splitlines()
        head = "%s  %s+0x%x  0x%x: %d instructions (%s%% of %d in the trace)" % (
            name, module, entry - base, entry, fcount, pct(fcount, total), total)
        check(lines[0] == head, "%s: header %r, expected %r" % (name, lines[0], head))
        m = re.match(r"^source: (.*) \(the entry at line (\d+)\)$", lines[1])
        shown_main = m.group(1) if m else ""
        check(m and key(shown_main) == mainfile and int(m.group(2)) == eline,
              "%s: %r, expected %s at line %d" % (name, lines[1], mainfile, eline))
        got = collections.Counter()
        mb = os.path.basename(mainfile)
        bad_rows = []
        for line in lines[4:]:
            m = re.match(r"^ *(\d+) +(\d+\.\d\d) +(\d+)$", line)  # main file, no source text
            o = re.match(r"^ *(\d+) +(\d+\.\d\d)  (\S+):(\d+)$", line)
            n = re.match(r"^ *(\d+) +(\d+\.\d\d) no line$", line)
            if m:
                k, v, p = (mb, int(m.group(3))), int(m.group(1)), m.group(2)
            elif o:
                k, v, p = (o.group(3), int(o.group(4))), int(o.group(1)), o.group(2)
            elif n:
                k, v, p = (None, 0), int(n.group(1)), n.group(2)
            else:
                continue
            got[k] += v
            if p != pct(v, fcount):
                bad_rows.append(line)
        check(got == want, "%s: per-line counts %s, expected (addr2line) %s" % (
            name, sorted(got.items(), key=str), sorted(want.items(), key=str)))
        check(not bad_rows, "%s: shares of the function's count wrong in %s" % (name, bad_rows[:3]))

        # the source text, through --source-root
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.dirname(shown_main)
            copy = os.path.join(tmp, os.path.basename(shown_main))
            last = max(ln for (f, ln) in want if f == mb)
            with open(copy, "w") as fo:
                for i in range(1, last + 10):
                    fo.write("fwpt line %d\n" % i)
            rc, out2, err = run([tool, "flow", d, "-q", "--symbols", syms, "--annotate", name,
                                 "--source-root", "%s=%s" % (root, tmp)])
            rows = [l for l in out2.splitlines()[4:] if re.match(r"^ {0,9}\d* +[\d.]* +\d+  fwpt line", l)]
            text_ok = all(re.search(r" (\d+)  fwpt line (\d+)$", l).group(1) ==
                          re.search(r" (\d+)  fwpt line (\d+)$", l).group(2) for l in rows)
            check(rc == 0 and rows and text_ok, "%s: --source-root: each row's text is its line (%d rows, exit %d)"
                  % (name, len(rows), rc))
            shown = [int(re.search(r" (\d+)  fwpt line", l).group(1)) for l in rows]
            counted = sorted(ln for (f, ln) in want if f == mb)
            first = counted[0] if not (eline < counted[0] and counted[0] - eline <= 8) else eline
            check(shown and shown[0] == max(1, first - 2) and shown[-1] == counted[-1] + 2,
                  "%s: --source-root: rows %s..%s, expected %d..%d" % (
                      name, shown[:1], shown[-1:], max(1, first - 2), counted[-1] + 2))
            check("source file not found" not in out2.split("in other files")[0],
                  "%s: --source-root: the main file was found" % name)

    # --by time: the rows add up to the header's ticks (when the trace has time at all)
    if chosen:
        rc, out, err = run([tool, "flow", d, "-q", "--symbols", syms, "--annotate", chosen[0][1], "--by", "time"])
        if rc == 1 and "no time in the trace" in err:
            print("NOTE: --by time not checked: no time in the trace")
        else:
            m = re.match(r".*: (\d+) TSC ticks \(", out.split("\n")[0])
            rows = sum(int(r.group(1)) for r in (re.match(r"^ *(\d+) +\d+\.\d\d", l) for l in out.splitlines()[4:]) if r)
            check(rc == 0 and m and int(m.group(1)) == rows and out.splitlines()[3].startswith("     ticks"),
                  "--by time: exit %d, header %r, rows add up to %d" % (rc, out.split("\n")[0], rows))
            # the trace's ticks: those --profile --by time spread over the instructions
            t = re.search(r"of (\d+) in the trace\)", out.split("\n")[0])
            rc2, prof, err = run([tool, "flow", d, "-q", "--profile", "--by", "time", "--top", "1"])
            spread = re.search(r"; (\d+) ticks spread over the instructions", prof)
            check(t and spread and t.group(1) == spread.group(1),
                  "--by time: the trace's ticks %s, --profile --by time spread %s" % (
                      t and t.group(1), spread and spread.group(1)))

    rc, out, err = run([tool, "flow", d, "-q", "--symbols", syms, "--annotate", "NoSuchFunctionQ"])
    check(rc == 1 and err.startswith("fwpt flow: --annotate NoSuchFunctionQ: no function by that name ran"),
          "an unknown name: exit %d, %r" % (rc, err[:200]))
    rc, out, err = run([tool, "flow", d, "-q", "--symbols", d + "/no-such.debug", "--annotate", "x"])
    check(rc == 2 and "no --symbols file matched a traced image" in err,
          "--annotate with --symbols that match nothing: exit %d, %r" % (rc, err[:200]))
    with tempfile.TemporaryDirectory() as tmp:
        flame = os.path.join(tmp, "f.svg")
        rc, out, err = run([tool, "flow", d, "-q", "--annotate", chosen[0][1] if chosen else "x", "--flame", flame])
        check(rc == 2 and "needs --symbols" in err and not os.path.exists(flame),
              "--annotate without --symbols: exit %d, %r, no --flame file left (%s)" % (rc, err[:200],
                                                                                     os.path.exists(flame)))
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "r.html")
        rc, out, err = run([tool, "report", d, "-o", page, "-q", "--symbols", syms])
        html = open(page).read() if os.path.exists(page) else ""
        h3 = re.findall(r"<h3>([^<]*)</h3>", html)
        mine = [n for n in h3 if n in names]  # the module's, in the page's order: the first of its ranking
        top = [k[1] for k in ranked[:len(mine)]]
        check(rc == 0 and "<h2>Source lines of the top functions</h2>" in html and len(h3) == 5 and mine == top,
              "report --symbols: the section names %s, of %s %s, expected its first %s (exit %d)" % (
                  h3, module, mine, top, rc))
        rc, out, err = run([tool, "report", d, "-o", page, "-q"])
        check(rc == 0 and "Source lines of the top functions" not in open(page).read(),
              "report without --symbols: no section (exit %d)" % rc)

    print("annotate_lines: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
