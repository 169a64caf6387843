#!/usr/bin/env python3
"""The names of `fwpt flow DIR --symbols X` on a trace of the EDK2 DEBUG build of OVMF, against binutils.

For the traced images of the modules asked (--module, e.g. DxeCore, Fat, CpuDxe), each matched to its .debug file by
the FV file GUID sideband.json records (MODULES.tsv: debug_file, module, file_guid), every address the output names
is checked against the symbol file at (address - the image's recorded base), the address rule of docs/symbols.md:
- the function: the function symbols holding the address (tests/qemu/names_oracle.py's Elf: readelf and nm); `FUNC`
  at its start, else `FUNC+0xOFF`; none holding it: no name at all;
- file and line (--dwarf): `addr2line -e FILE ADDR`'s first frame (the discriminator cut), where binutils 2.40 names
  another file of a DWARF 5 unit than the row does, the row `objdump --dwarf=decodedline` prints is the referee (the
  rule tests/unit/test_symbols.c applies); `"inlined":true` exactly where `addr2line -i` prints more than one frame;
  without DWARF (--dwarf not given): no file, line or inlined at all.
Checked: JSON lines (--jsonl: profile `function` and call-tree `call` records; --listing: every distinct `insn`
address; --edges: both ends of every edge, its from_/to_ keys), the text profile and call tree (--text: `0xENTRY  Module+0xOFF  NAME (FILE:LINE)`, the file's basename),
folded stacks (--folded: no frame of a checked module left as Module+0xOFF where a function holds it) and the stderr
(--stderr: `names: N of M traced images matched (...)` with every EDK2 image that has a symbol file matched, --by
naming how, and no warning). Each check prints "ok ..." or "FAIL ..."; the last line is
"names-edk2-check: N passed, N failed"."""
import argparse
import json
import os
import re
import sys

from names_oracle import Elf, func_name, jsonl, named_text, sideband_images

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True, help="the saved directory (sideband.json)")
ap.add_argument("--symbols", required=True, help="the folder of the .debug files given to --symbols")
ap.add_argument("--modules", required=True, help="MODULES.tsv of the EDK2 build")
ap.add_argument("--module", action="append", default=[], help="a module to check (repeatable)")
ap.add_argument("--dwarf", action="store_true", help="the symbol files have DWARF: check file, line, inlined")
ap.add_argument("--jsonl", help="fwpt flow --profile --calls --format jsonl output")
ap.add_argument("--text", help="fwpt flow --profile --calls output")
ap.add_argument("--listing", help="fwpt flow --format jsonl output (the instruction listing)")
ap.add_argument("--folded", help="fwpt flow --folded output")
ap.add_argument("--edges", help="fwpt flow --edges --format jsonl output")
ap.add_argument("--stderr", help="fwpt flow's stderr")
ap.add_argument("--by", help="how every matched image must be matched, as the names: line says it (e.g. 'CodeView path')")
ap.add_argument("--file-pattern", default="{debug_file}", help="the name of a module's file in --symbols")
args = ap.parse_args()
passed = failed = 0
referee = 0  # file:line where addr2line names another file and the line-table row is the referee
for k in ("jsonl", "text", "listing", "folded", "edges", "stderr"):
    f = getattr(args, k)
    if f and not os.path.isfile(f):
        print("FAIL %s: no such file (fwpt flow did not write it)" % f)
        print("names-edk2-check: 0 passed, 1 failed")
        sys.exit(1)


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)
    return cond


sb = {"images": sideband_images(args.dir)}
rows = [l.rstrip("\n").split("\t") for l in open(args.modules)][1:]
by_guid = {r[2].lower(): r for r in rows if len(r) > 2}


# The images checked: the traced image of each module, its .debug file found by the FV file GUID it recorded.
images = {}
for im in sb["images"]:
    g = (im.get("fv_guid") or "").lower()
    if im["name"] not in args.module:
        continue
    row = by_guid.get(g)
    if not check(row is not None and row[1] == im["name"],
                 "%s: its recorded fv_guid %s is module %s's FILE_GUID in MODULES.tsv" % (im["name"], g, row and row[1])):
        continue
    name = args.file_pattern.format(debug_file=row[0], module=row[1], guid=row[2])
    path = os.path.join(args.symbols, name)
    check(os.path.basename(im.get("pdb", "")).rsplit(".", 1)[0] == row[1],
          "%s: its CodeView path %s names module %s" % (im["name"], im.get("pdb"), row[1]))
    images[im["name"]] = (int(im["base"], 16), int(im["size"], 16), Elf(path))
for m in args.module:
    if m not in ("CpuDxe",):  # CpuDxe only when traced
        check(m in images, "%s is among the traced images" % m)


def where(ip):
    for m, (base, size, elf) in images.items():
        if base <= ip < base + size:
            return m, ip - base, elf
    return None, None, None


def expected(ip, listing=False):
    """what the output must say of ip: {"names": acceptable function values, "offsets": ..., "file", "line",
    "inlined", "known"}; None outside the checked images"""
    m, a, elf = where(ip)
    if not m:
        return None
    cands = elf.names(a)
    e = {"module": m, "elf": a, "names": set(), "offsets": set()}
    for n, s in cands:
        e["names"].add(n if listing else func_name(n, a - s))
        e["offsets"].add("0x%x" % (a - s))
    e["known"] = bool(cands)
    e["file"] = e["line"] = None
    e["inlined"] = False
    if args.dwarf:
        f, ln, frames = elf.src(a)
        if f:
            e["file"], e["line"] = f, ln
        e["inlined"] = frames > 1
    return e


def line_ok(e, file, line):
    """file:line as addr2line says, or (binutils naming another file of the unit) as the line-table row says"""
    if e["file"] is None:
        return file is None and line is None
    global referee
    if file == e["file"] and line == e["line"]:
        return True
    if file is not None and line == e["line"] and where_elf(e).row_says(e["elf"], file, line):
        referee += 1
        return True
    return False


def where_elf(e):
    return images[e["module"]][2]


def record_ok(r, e, listing=False):
    """a JSON record's function, function_offset, file, line, inlined against e: '' or what differs"""
    bad = []
    if e["known"]:
        if r.get("function") not in e["names"]:
            bad.append("function %r, expected one of %s" % (r.get("function"), sorted(e["names"])))
        if listing and r.get("function_offset") not in e["offsets"]:
            bad.append("function_offset %r, expected %s" % (r.get("function_offset"), sorted(e["offsets"])))
    elif "function" in r or "function_offset" in r:
        bad.append("function %r where no function symbol holds the address" % r.get("function"))
    if not line_ok(e, r.get("file"), r.get("line")):
        bad.append("file:line %s:%s, addr2line %s:%s" % (r.get("file"), r.get("line"), e["file"], e["line"]))
    if r.get("inlined", False) != e["inlined"] or r.get("inlined", True) is not True:
        bad.append("inlined %r, addr2line -i %s" % (r.get("inlined"), "more than one frame" if e["inlined"] else "one frame"))
    return "; ".join(bad)


# JSON lines: the profile's functions and the call tree's nodes.
named = {}  # entry -> the record's function, file, line (the text views must say the same)
if args.jsonl:
    recs = jsonl(args.jsonl)
    n = {m: 0 for m in images}
    bad = []
    for r in recs:
        if r.get("type") not in ("function", "call") or "entry" not in r:
            continue
        ip = int(r["entry"], 16)
        e = expected(ip)
        if not e:
            continue
        n[e["module"]] += 1
        why = record_ok(r, e)
        if why:
            bad.append("%s record at %s (%s+0x%x): %s" % (r["type"], r["entry"], e["module"], e["elf"], why))
        named[ip] = (r.get("function"), r.get("file"), r.get("line"))
    for b in bad[:10]:
        print("    " + b)
    check(not bad, "%s: %d profile function and call-tree records of %s named as nm, %s (%d differ)" % (
        args.jsonl, sum(n.values()), ", ".join("%s %d" % kv for kv in n.items()),
        "file:line as addr2line, inlined as addr2line -i" if args.dwarf else "no file:line (no DWARF)", len(bad)))
    for m in images:
        if m != "CpuDxe":
            check(n[m] > 0, "%s: the profile and call tree hold functions of %s" % (args.jsonl, m))
    known = sum(1 for ip, v in named.items() if v[0])
    check(known > 0, "%s: %d of %d distinct entries named" % (args.jsonl, known, len(named)))

# The two CpuDxe modules: the traced one's names come from its own file; the other file would name some of the same
# addresses differently (so the check above tells the two apart).
if "CpuDxe" in images and named:
    base, size, elf = images["CpuDxe"]
    mine = os.path.basename(elf.path)
    for r in rows:
        other = os.path.join(args.symbols, args.file_pattern.format(debug_file=r[0], module=r[1], guid=r[2]))
        if r[1] != "CpuDxe" or os.path.basename(other) == mine or not os.path.exists(other):
            continue
        o = Elf(other)
        ips = [ip for ip in named if base <= ip < base + size]
        differ = [ip for ip in ips if {n for n, s in o.names(ip - base)} != {n for n, s in elf.names(ip - base)}]
        check(ips and differ, "CpuDxe: %d of its %d entries have other names in %s than in %s, its own file" % (
            len(differ), len(ips), os.path.basename(other), mine))

# The text profile and call tree: after '0xENTRY  Module+0xOFF', two spaces, the name, ' (BASENAME:LINE)'.
if args.text:
    bad, n = [], 0
    pat = re.compile(r"^\s*(?:\d+\s+){2,3}\s*0x([0-9a-f]+)  (\S+\+0x[0-9a-f]+)(.*)$")
    for l in open(args.text):
        mt = pat.match(l.rstrip("\n"))
        if not mt:
            continue
        ip = int(mt.group(1), 16)
        e = expected(ip)
        if not e:
            continue
        n += 1
        want = ""
        fn, file, line = named.get(ip, (None, None, None))
        if e["known"]:
            want = "  " + named_text(fn if fn in e["names"] else sorted(e["names"])[0],
                                     file if e["file"] is not None and line_ok(e, file, line) else e["file"], e["line"])
        if mt.group(3) != want:
            bad.append("%r, expected %r after %s" % (l.rstrip("\n"), want, mt.group(2)))
    for b in bad[:10]:
        print("    " + b)
    check(n > 0 and not bad, "%s: %d profile and call-tree lines of the checked modules say NAME%s (%d differ)" % (
        args.text, n, " (FILE:LINE)" if args.dwarf else "", len(bad)))

# The listing (JSON lines): every distinct instruction address of the checked modules.
if args.listing:
    seen, bad = {}, []
    ips = []
    for l in open(args.listing):
        if '"type":"insn"' not in l:
            continue
        r = json.loads(l)
        ip = int(r["ip"], 16)
        if ip in seen:
            continue
        seen[ip] = r
        ips.append(ip)
    for m, (base, size, elf) in images.items():
        elf.ask([ip - base for ip in ips if base <= ip < base + size] if args.dwarf else [])
    n = {m: 0 for m in images}
    inl, ref0 = 0, referee
    for ip in ips:
        e = expected(ip, listing=True)
        if not e:
            continue
        n[e["module"]] += 1
        inl += e["inlined"]
        why = record_ok(seen[ip], e, listing=True)
        if why:
            bad.append("insn %s (%s+0x%x): %s" % (seen[ip]["ip"], e["module"], e["elf"], why))
    for b in bad[:10]:
        print("    " + b)
    check(sum(n.values()) > 0 and not bad, "%s: %d distinct instruction addresses (%s): function+offset as nm%s (%d differ)" % (
        args.listing, sum(n.values()), ", ".join("%s %d" % kv for kv in n.items()),
        ", file:line as addr2line (%d by the line-table row), inlined as addr2line -i (%d)" % (referee - ref0, inl)
        if args.dwarf else ", no file:line", len(bad)))

# --edges (JSON lines): both ends of every edge, as from_/to_ keys, named as the profile names an address.
if args.edges:
    recs = [json.loads(l) for l in open(args.edges) if '"type":"edge"' in l]
    ends = [(r, end) for r in recs for end in ("from", "to")]
    for m, (base, size, elf) in images.items():
        elf.ask([int(r[e], 16) - base for r, e in ends if base <= int(r[e], 16) < base + size] if args.dwarf else [])
    bad, n = [], 0
    for r, end in ends:
        e = expected(int(r[end], 16))
        if not e:
            continue
        n += 1
        sub = {k[len(end) + 1:]: v for k, v in r.items() if k.startswith(end + "_")}
        why = record_ok(sub, e)
        if why:
            bad.append("edge %s end %s (%s+0x%x): %s" % (end, r[end], e["module"], e["elf"], why))
    for b in bad[:10]:
        print("    " + b)
    check(n > 0 and not bad, "%s: %d edge ends in the checked modules (of %d edges) named as nm%s (%d differ)" % (
        args.edges, n, len(recs), ", file:line as addr2line, inlined as addr2line -i" if args.dwarf else "", len(bad)))

# Folded stacks: no frame of a checked module is left Module+0xOFF where a function symbol holds it.
if args.folded:
    left, frames = [], set()
    for l in open(args.folded):
        stack = l.rsplit(" ", 1)[0]
        for f in stack.split(";"):
            frames.add(f)
    for f in frames:
        mt = re.fullmatch(r"(\w+)\+0x([0-9a-f]+)", f)
        if mt and mt.group(1) in images and images[mt.group(1)][2].names(int(mt.group(2), 16)):
            left.append(f)
    want = {v[0] for ip, v in named.items() if v[0]}
    check(not left and want and want <= frames, "%s: every named function of the call tree is a frame, none of the "
          "checked modules left as Module+0xOFF (%d left: %s)" % (args.folded, len(left), " ".join(sorted(left)[:5])))

# stderr: the names line, every EDK2 image with a symbol file matched, no warning.
if args.stderr:
    err = open(args.stderr).read().splitlines()
    have = [im for im in sb["images"] if (im.get("fv_guid") or "").lower() in by_guid]
    lines = [l for l in err if l.startswith("names: ")]
    mt = re.match(r"names: (\d+) of (\d+) traced images matched \((.*)\)$", lines[0]) if len(lines) == 1 else None
    check(mt and int(mt.group(1)) == len(have) and int(mt.group(2)) == len(sb["images"]),
          "%s: one line 'names: %d of %d traced images matched (...)': %s" % (args.stderr, len(have), len(sb["images"]),
                                                                              lines))
    if args.by and mt:
        check("%d by %s" % (len(have), args.by) in mt.group(3),
              "%s: all %d matched by %s: %s" % (args.stderr, len(have), args.by, mt.group(3)))
    others = [l for l in err if not l.startswith("names: ")]
    check(not others, "%s: nothing else on stderr (no mismatch warning): %s" % (args.stderr, others[:3]))

print("names-edk2-check: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
