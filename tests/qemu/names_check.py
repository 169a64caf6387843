#!/usr/bin/env python3
"""fwpt's views with --symbols against binutils, for tests/qemu/test_names.sh. Each check reads the output of the
same command with and without --symbols (PLAIN, NAMED) and an ELF file with symbols placed at the base the saved
trace recorded for MODULE (sideband.json), and asks: is NAMED exactly PLAIN, with the names of THE NAMES CONTRACT
(docs/symbols.md) where the ELF file knows the function, and nothing else changed?
The oracle is binutils (tests/qemu/names_oracle.py's Elf): the function holding runtime address A is the function
symbol nm lists holding A - base (the name `FUNC` at its start, `FUNC+0xOFF` inside); the source position is
`addr2line -e ELF`'s first frame (the file as it prints it, the line), `inlined` is `addr2line -i` printing more
than one frame. An address outside MODULE, or one nm has no function for, keeps PLAIN's bytes.
Usage: names_check.py CHECK ELF SIDEBAND.json MODULE PLAIN NAMED [WANT...]
  profile    text of `fwpt flow DIR --profile`: each function row gets "  NAME (FILE:LINE)" after its columns
  profile-jsonl, calls-jsonl  JSON lines of --profile / --calls: "function", "file", "line", "inlined" added
  calls      text of `fwpt flow DIR --calls`: each node gets "  NAME (FILE:LINE)"
  listing    text listing: the module+offset column of each instruction line becomes "FUNC+0xOFF (FILE:LINE)"
  listing-jsonl  JSON lines listing: "insn" records get function, function_offset, file, line, inlined
  edges, edges-jsonl  --edges: both ends of each edge, text "0xA (NAME (FILE:LINE))", JSON from_/to_ keys
  folded     folded stacks: each frame's name
  chrome     Trace Event Format: each slice's name
  flame-dom  the flame graph's DOM (headless Chromium): each frame's title
  report-dom the report page's DOM: each call tree row's text, and its flame graph's frames
WANT: names that must appear among the named ones (so that a run naming nothing fails).
Prints one line; exits 1 on failure."""
import html
import json
import re
import sys

from names_oracle import Elf, func_name, jsonl, listing_line, named_text, parse_named, sideband_images

check, elf, sideband, module, plain_path, named_path = sys.argv[1:7]
want = sys.argv[7:]


def fail(msg):
    print("FAIL: %s: %s" % (check, msg))
    sys.exit(1)


base = [(int(im["base"], 16), int(im["size"], 16)) for im in sideband_images(sideband) if im["name"] == module]
if len(base) != 1:
    fail("%s: %d images named %s" % (sideband, len(base), module))
base, size = base[0]
symbols = Elf(elf)
if not symbols.iv:
    fail("nm lists no function of %s" % elf)


def inside(a):
    return base <= a < base + size


def lookup(addrs):
    """addr2line for the runtime addresses inside MODULE, in one run"""
    symbols.ask([a - base for a in addrs if inside(a)])


def func(a):
    """(names, entry) of the function holding runtime address a, None outside MODULE or without one"""
    held = symbols.names(a - base) if inside(a) else []
    if not held:
        return None
    names = sorted({n for n, s in held})
    return names, base + [s for n, s in held if n == names[0]][0]


def name_of(a):
    """the name the contract prints for a, with every alias nm has for the symbol; None when unknown"""
    f = func(a)
    if not f:
        return None
    return [func_name(n, a - f[1]) for n in f[0]]


def src(a):
    """(file or None, line, frames) of runtime address a as addr2line prints them"""
    return symbols.src(a - base) if inside(a) else (None, 0, 0)


named_seen = set()


def expect_name(a, got, what):
    """got: the name printed for a (None: none printed)"""
    exp = name_of(a)
    if exp is None:
        if got is not None:
            fail("%s: 0x%x has no function in nm, but is named '%s'" % (what, a, got))
        return
    if got not in exp:
        fail("%s: 0x%x (%s+0x%x) is named %s, nm: %s" % (what, a, module, a - base, got, " or ".join(exp)))
    named_seen.add(got.split("+")[0])


def check_named(a, col, what):
    """col, what a text view prints for a known function: 'NAME' [+ ' (FILE:LINE)'], NAME as nm, FILE:LINE as
    addr2line"""
    got = parse_named(col)
    if not got:
        fail("%s: '%s' is not 'NAME (FILE:LINE)'" % (what, col))
    expect_name(a, got[0], what)
    fl, ln, _ = src(a)
    if col != named_text(got[0], fl, ln):
        fail("%s: 0x%x's source is %s:%s, addr2line: %s:%s" % (what, a, got[1], got[2], fl, ln))


def line_pairs(what):
    """PLAIN's and NAMED's lines, as many in each"""
    plain, named = open(plain_path).read().splitlines(), open(named_path).read().splitlines()
    if len(plain) != len(named):
        fail("%d %s with --symbols, %d without" % (len(named), what, len(plain)))
    return plain, named


def check_text_rows(rowre, what):
    """profile / calls: each named line = the plain line + '  NAME' [+ ' (FILE:LINE)']"""
    plain, named = line_pairs("lines")
    rows = 0
    for k, (p, n) in enumerate(zip(plain, named)):
        m = rowre.match(p)
        if not m:
            if p != n:
                fail("line %d changed: '%s' -> '%s'" % (k + 1, p, n))
            continue
        a = int(m.group(1), 16)
        if not n.startswith(p):
            fail("line %d: '%s' does not begin with the plain line '%s'" % (k + 1, n, p))
        rest = n[len(p):]
        if func(a) is None:
            if rest:
                fail("line %d: 0x%x has no function in nm, but the line gained '%s'" % (k + 1, a, rest))
            continue
        rows += 1
        if not rest.startswith("  "):
            fail("line %d: '%s' after the columns is not '  NAME (FILE:LINE)'" % (k + 1, rest))
        check_named(a, rest[2:], "%s line %d" % (what, k + 1))
    if not rows:
        fail("no row inside %s" % module)
    return rows


def jsonl_pairs():
    plain, named = jsonl(plain_path), jsonl(named_path)
    if len(plain) != len(named):
        fail("%d records with --symbols, %d without" % (len(named), len(plain)))
    return zip(plain, named)


def check_jsonl(types, addr_key, listing):
    rows = 0
    pairs = list(jsonl_pairs())
    lookup([int(p[addr_key], 16) for p, _ in pairs if p.get("type") in types and addr_key in p])  # one addr2line run
    for k, (p, n) in enumerate(pairs):
        added = {key: n[key] for key in n if key not in p}
        rest = {key: n[key] for key in n if key in p}
        if rest != p:
            fail("record %d changed: %s -> %s" % (k + 1, p, n))
        if p.get("type") not in types or addr_key not in p:
            if added:
                fail("record %d (%s) gained %s" % (k + 1, p.get("type"), added))
            continue
        a = int(p[addr_key], 16)
        exp = {}
        f = func(a)
        fl, ln, frames = src(a)
        if f:
            got = added.get("function")
            ok = f[0] if listing else name_of(a)  # the listing gives the offset apart
            exp["function"] = got if got in ok else ok[0]
            if listing:
                exp["function_offset"] = "0x%x" % (a - f[1])
            named_seen.add(exp["function"].split("+")[0])
        if fl and (f or listing):
            exp["file"], exp["line"] = fl, ln
        if frames > 1 and (f or listing):
            exp["inlined"] = True
        if added != exp:
            fail("record %d (0x%x, %s+0x%x): added %s, expected %s (nm, addr2line)" %
                 (k + 1, a, module, a - base, added, exp))
        rows += bool(f)
    if not rows:
        fail("no record inside %s named" % module)
    return rows


def check_listing_text():
    plain, named = line_pairs("lines")
    addrs = set()
    lookup([m[0] for m in map(listing_line, plain) if m])  # one addr2line run
    for k, (p, n) in enumerate(zip(plain, named)):
        mp, mn = listing_line(p), listing_line(n)
        if not mp:
            if p != n:
                fail("line %d changed: '%s' -> '%s'" % (k + 1, p, n))
            continue
        if not mn or mn[0] != mp[0] or mn[2].split() != mp[2].split():
            fail("line %d: '%s' is not '%s' with another name column" % (k + 1, n, p))
        a, col = mp[0], mn[1]
        if func(a) is None:
            if col != mp[1]:
                fail("line %d: 0x%x has no function in nm, but its column is '%s', not '%s'" % (k + 1, a, col, mp[1]))
            continue
        addrs.add(a)
        check_named(a, col, "line %d" % (k + 1))
        if len(n) - len(n.lstrip()) != len(p) - len(p.lstrip()):
            fail("line %d: indented differently" % (k + 1))
    if not addrs:
        fail("no instruction inside %s named" % module)
    return len(addrs)


def frame_map(name):
    """a plain frame name module+0xOFF (an entry) -> the name the contract gives it"""
    m = re.fullmatch(re.escape(module) + r"\+0x([0-9a-f]+)", name)
    if not m:
        return name
    a = base + int(m.group(1), 16)
    exp = name_of(a)
    return exp if exp else name


def same_frame(p, n, what):
    exp = frame_map(p)
    if isinstance(exp, list):
        if n not in exp:
            fail("%s: frame %s is %s, nm: %s" % (what, p, n, " or ".join(exp)))
        named_seen.add(n.split("+")[0])
        return 1
    if n != exp:
        fail("%s: frame %s became %s" % (what, p, n))
    return 0


def check_folded():
    plain, named = line_pairs("stacks")
    n_named = 0
    for k, (p, n) in enumerate(zip(plain, named)):
        ps, pc = p.rsplit(" ", 1)
        ns, nc = n.rsplit(" ", 1)
        if pc != nc or len(ps.split(";")) != len(ns.split(";")):
            fail("line %d: '%s' is not '%s' renamed" % (k + 1, n, p))
        n_named += sum(same_frame(a, b, "line %d" % (k + 1)) for a, b in zip(ps.split(";"), ns.split(";")))
    return n_named


def check_chrome():
    pe, ne = json.load(open(plain_path))["traceEvents"], json.load(open(named_path))["traceEvents"]
    if len(pe) != len(ne):
        fail("%d slices with --symbols, %d without" % (len(ne), len(pe)))
    n_named = 0
    for k, (p, n) in enumerate(zip(pe, ne)):
        if {x: y for x, y in p.items() if x != "name"} != {x: y for x, y in n.items() if x != "name"}:
            fail("slice %d: %s is not %s renamed" % (k, n, p))
        n_named += same_frame(p["name"], n["name"], "slice %d" % k)
    return n_named


FRAME = re.compile(r'<g class="f" data-x="(\d+)" data-n="(\d+)" data-d="(\d+)"[^>]*><title>(.*?): (\d+ instructions[^<]*)<')


def check_flame_dom(pdom, ndom, what):
    pf, nf = FRAME.findall(pdom), FRAME.findall(ndom)
    if not pf or len(pf) != len(nf):
        fail("%s: %d frames with --symbols, %d without" % (what, len(nf), len(pf)))
    n_named = 0
    for p, n in zip(pf, nf):
        if p[:3] + p[4:] != n[:3] + n[4:]:
            fail("%s: frame %s is not %s renamed" % (what, n, p))
        n_named += same_frame(html.unescape(p[3]), html.unescape(n[3]), what)
    return n_named


ROW = re.compile(r'<(summary|div class="leaf")[^>]* data-entry="(0x[0-9a-f]+)"[^>]*>(.*?)</(?:summary|div)>', re.S)


def check_report_dom():
    pdom, ndom = open(plain_path).read(), open(named_path).read()
    prow, nrow = ROW.findall(pdom), ROW.findall(ndom)
    if not prow or len(prow) != len(nrow):
        fail("%d call tree rows with --symbols, %d without" % (len(nrow), len(prow)))
    rows = 0
    for p, n in zip(prow, nrow):
        if p[1] != n[1]:
            fail("call tree row of %s is now of %s" % (p[1], n[1]))
        a = int(p[1], 16)
        text = html.unescape(re.sub(r"<[^>]*>", " ", n[2]))
        exp = name_of(a)
        if exp is None:
            if html.unescape(re.sub(r"<[^>]*>", " ", p[2])) != text:
                fail("call tree row of 0x%x (no function in nm) changed: %s" % (a, text))
            continue
        words = text.split()
        hit = [e for e in exp if e in words]
        if not hit:
            fail("the call tree row of 0x%x reads '%s': no %s" % (a, " ".join(words), " or ".join(exp)))
        if "%s+0x%x" % (module, a - base) in words:
            fail("the call tree row of 0x%x still reads %s+0x%x: '%s'" % (a, module, a - base, " ".join(words)))
        named_seen.add(hit[0])
        rows += 1
    return rows, check_flame_dom(pdom, ndom, "the report's flame graph")


EDGE = re.compile(r"(0x[0-9a-f]+) \((.+)\)")


def check_edges_text():
    """--edges: 'FROM (where) -> TO (where): N', each where NAME [(FILE:LINE)] when nm has a function"""
    plain, named = line_pairs("lines")
    ends = 0
    for k, (p, n) in enumerate(zip(plain, named)):
        if not re.match(r"0x[0-9a-f]+ \(.* -> 0x[0-9a-f]+ \(.*\): \d+$", p):
            if p != n:
                fail("line %d changed: '%s' -> '%s'" % (k + 1, p, n))
            continue
        (pf, pt), (nf, nt) = p.split(" -> "), n.split(" -> ")
        pt, pc = pt.rsplit(": ", 1)
        nt, nc = nt.rsplit(": ", 1)
        if pc != nc:
            fail("line %d: count %s, without --symbols %s" % (k + 1, nc, pc))
        for pe, ne in ((pf, nf), (pt, nt)):
            mp, mn = EDGE.fullmatch(pe), EDGE.fullmatch(ne)
            if not mp or not mn or mp.group(1) != mn.group(1):
                fail("line %d: '%s' is not '%s' with another name" % (k + 1, ne, pe))
            a = int(mp.group(1), 16)
            if func(a) is None:
                if mn.group(2) != mp.group(2):
                    fail("line %d: 0x%x has no function in nm, but reads '%s'" % (k + 1, a, mn.group(2)))
                continue
            check_named(a, mn.group(2), "line %d" % (k + 1))
            ends += 1
    if not ends:
        fail("no edge end inside %s named" % module)
    return ends


def check_edges_jsonl():
    """edge records: from_/to_ function, file, line, inlined for each end (file and line wherever addr2line knows)"""
    pairs = list(jsonl_pairs())
    lookup([int(p[e], 16) for p, _ in pairs if p.get("type") == "edge" for e in ("from", "to")])
    ends = 0
    for k, (p, n) in enumerate(pairs):
        added = {key: n[key] for key in n if key not in p}
        if {key: n[key] for key in n if key in p} != p:
            fail("record %d changed: %s -> %s" % (k + 1, p, n))
        exp = {}
        for e in ("from", "to") if p.get("type") == "edge" else ():
            a = int(p[e], 16)
            fl, ln, frames = src(a)
            names = name_of(a)
            if names:
                got = added.get(e + "_function")
                exp[e + "_function"] = got if got in names else names[0]
                named_seen.add(exp[e + "_function"].split("+")[0])
                ends += 1
            if fl:
                exp[e + "_file"], exp[e + "_line"] = fl, ln
            if frames > 1:
                exp[e + "_inlined"] = True
        if added != exp:
            fail("record %d (%s -> %s): added %s, expected %s (nm, addr2line)" % (k + 1, p.get("from"), p.get("to"), added, exp))
    if not ends:
        fail("no edge end inside %s named" % module)
    return ends


def main():
    if check == "profile":
        n = check_text_rows(re.compile(r"^\s+\d+\s+\d+  (0x[0-9a-f]+)  \S+$"), "profile")
        msg = "%d function rows named as nm, entries' lines as addr2line" % n
    elif check == "calls":
        n = check_text_rows(re.compile(r"^\s+\d+\s+\d+\s+\d+  \s*(0x[0-9a-f]+)  \S+$"), "call tree")
        msg = "%d call tree nodes named as nm, entries' lines as addr2line" % n
    elif check == "profile-jsonl":
        msg = "%d function records named as nm, lines as addr2line" % check_jsonl(("function",), "entry", False)
    elif check == "calls-jsonl":
        msg = "%d call records named as nm, lines as addr2line" % check_jsonl(("call",), "entry", False)
    elif check == "listing":
        msg = "%d distinct instruction addresses named as nm, lines as addr2line" % check_listing_text()
    elif check == "listing-jsonl":
        recs = check_jsonl(("insn",), "ip", True)
        msg = "%d insn records: function+offset as nm, file:line as addr2line, inlined as addr2line -i (%d addresses inlined)" % (
            recs, sum(1 for a, w in symbols.a2l.items() if w[2] > 1 and func(base + a)))
    elif check == "edges":
        msg = "%d edge ends named as nm, lines as addr2line" % check_edges_text()
    elif check == "edges-jsonl":
        msg = "%d edge ends named as nm; file, line, inlined as addr2line" % check_edges_jsonl()
    elif check == "folded":
        msg = "%d frames named as nm, the rest as without --symbols" % check_folded()
    elif check == "chrome":
        msg = "%d slices named as nm, the rest as without --symbols" % check_chrome()
    elif check == "flame-dom":
        msg = "%d frames in Chromium's DOM named as nm" % check_flame_dom(open(plain_path).read(), open(named_path).read(), "flame")
    elif check == "report-dom":
        r, f = check_report_dom()
        msg = "%d call tree rows and %d flame frames in Chromium's DOM named as nm" % (r, f)
    else:
        fail("unknown check")
    missing = [w for w in want if w not in named_seen]
    if missing:
        fail("%s never named (named: %s)" % (", ".join(missing), ", ".join(sorted(named_seen)) or "nothing"))
    print("ok: %s: %s" % (check, msg))


try:
    main()
except (OSError, ValueError, KeyError) as e:  # a missing or unparsable output file: the command before failed
    fail("%s: %s" % (type(e).__name__, e))
