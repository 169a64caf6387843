#!/usr/bin/env python3
"""The example blocks of README.md and docs/*.md against what the tools print today.
- A fenced block whose lines begin with `$ build/fwpt ...` (a `# comment` after the command is dropped) is run,
  command by command, with bash from a scratch directory where `build` is the build directory and `out/fwpt` the
  saved directory given (stdout and stderr together); the lines under a command are its output.
- A block whose commands read `out/names/fwpt` is over the run of tests/qemu/test_names.sh (build/names.efi traced
  with load-image, read with --symbols build/names.so): run only with --names DIR (that run's saved directory),
  else skipped and counted apart (test_names.sh runs them; the run of ./run-qemu.sh does not have it).
- A fenced block right after the line `<!-- example: console of ./run-qemu.sh -->` is the console of the default
  run (`./run-qemu.sh`: the app's console and run-qemu.sh's own lines), given with --console.
How they compare: `...` alone on a line stands for any lines (none or more), `...` inside a line for any text, a
line `<...>` for any lines; a trailing note after three spaces, `   (like this)`, is the page's comment, not
output; runs of spaces count as one. A command's output is compared whole; a console block is found in the
console in order. Lines of run-qemu.sh about KVM depend on the host and are not compared (the test boots TCG).
Numbers: a command that reads no saved directory (`fwpt plan`, `fwpt caps --profile`) must print the page's
numbers exactly. Output of a run (the saved directory, the console) holds numbers that change with the OVMF
build and with the app's own code (addresses, instruction counts, sizes), so there each number may differ from
the page, but consistently: a number of four or more characters the page writes twice stands for the same
number of the run both times, and two different numbers of the page stand for two different numbers of the run
(a page that says 15354 instructions here and 15228 there fails). The numbers that differ are listed as a note.
Each block is one pass; each mismatch is one failure, printed as "PAGE:LINE: ...".
Usage: tests/docs/check_examples.py [--saved DIR] [--console FILE] [--names DIR] [--build DIR] [ROOT]
Without --saved (--console), the blocks that need it are skipped and counted."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--saved", help="a saved \\fwpt\\ directory (out/fwpt of the run)")
ap.add_argument("--console", help="the console of ./run-qemu.sh (its stdout and stderr)")
ap.add_argument("--names", help="the saved directory of the names run (out/names/fwpt of tests/qemu/test_names.sh)")
ap.add_argument("--build", help="the build directory (default $FWPT_BUILD or ROOT/build)")
ap.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
args = ap.parse_args()
root = os.path.abspath(args.root)
build = os.path.abspath(args.build or os.environ.get("FWPT_BUILD") or os.path.join(root, "build"))
os.chdir(root)
pages = ["README.md"] + sorted("docs/" + f for f in os.listdir("docs") if f.endswith(".md"))
MARK = "<!-- example: console of ./run-qemu.sh -->"
NUM = re.compile(r"0x[0-9a-fA-F]+|(?<![\w.])[0-9a-f]*[0-9][0-9a-f]*(?![\w])")
NOTE = re.compile(r"\s{3,}\((?:[^()]|\([^()]*\))*\)\s*$")
passed = failed = skipped = skipped_names = checked_names = 0


def fail(page, line, msg):
    global failed
    failed += 1
    print("%s:%d: %s" % (page, line, msg))


def norm(line):
    return re.sub(r"\s+", " ", line.rstrip())


def doc_line(line):
    """A page's line as a pattern: (regex, numbers) with numbers masked, `...` as any text, the note dropped."""
    line = norm(NOTE.sub("", line))
    nums, out, pos = [], "", 0
    parts = re.split(r"(\.\.\.)", line)
    for part in parts:
        if part == "...":
            out += "(?:.*?)"
            continue
        pos = 0
        for m in NUM.finditer(part):
            out += re.escape(part[pos:m.start()]) + "(" + ("0x[0-9a-fA-F]+" if m.group().startswith("0x") else "[0-9a-f]+") + ")"
            nums.append(m.group())
            pos = m.end()
        out += re.escape(part[pos:])
    return re.compile(out + r"\Z"), nums


def is_any(line):
    s = NOTE.sub("", line).strip()
    return s == "..." or re.fullmatch(r"<[^>]*>", s) is not None


def match(doc, actual, anchored):
    """doc: [(page line number, text)]; actual: [text]. Returns (None, pairs of (doc number, run number, line))
    or (error, None)."""
    segs, cur = [], []
    lead = not anchored
    for no, text in doc:
        if is_any(text):
            if cur or not segs:
                segs.append(cur)
            cur = []
            continue
        cur.append((no, text) + doc_line(text))
    segs.append(cur)
    if not anchored:
        segs = [[]] + segs + [[]]
    acts = [norm(a) for a in actual]
    pairs, at = [], 0
    for k, seg in enumerate(segs):
        first, last = k == 0, k == len(segs) - 1
        if not seg:
            if last:
                at = len(acts)
            continue
        starts = [at] if first else range(at, len(acts) - len(seg) + 1)
        if last and not first:
            starts = [len(acts) - len(seg)] if len(acts) - len(seg) >= at else []
        found, best = None, (-1, 0, at)
        for s in starts:
            got = []
            for j, (no, text, rx, nums) in enumerate(seg):
                m = rx.match(acts[s + j]) if s + j < len(acts) else None
                if not m:
                    best = max(best, (j, -s, s + j))
                    break
                got += [(d, r, no) for d, r in zip(nums, m.groups())]
            else:
                found = s
                pairs += got
                break
        if found is None:
            j, _, a = best
            no, text = seg[max(j, 0)][0], seg[max(j, 0)][1]
            near = "'%s' at line %d" % (acts[a], a + 1) if a < len(acts) else "no line there"
            return ("the output differs: the page has '%s', the run %s" % (norm(text), near), no), None
        at = found + len(seg)
    if anchored and at != len(acts):
        return ("the run prints more lines than the page (next: '%s')" % acts[at], doc[-1][0]), None
    return None, pairs


def blocks(page):
    lines = open(page, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            marked = i > 0 and lines[i - 1].strip() == MARK
            yield marked, [(n + 1, lines[n]) for n in range(i + 1, j)]
            i = j + 1
        else:
            i += 1


scratch = tempfile.mkdtemp()
os.symlink(build, os.path.join(scratch, "build"))
if args.saved:
    os.mkdir(os.path.join(scratch, "out"))
    os.symlink(os.path.abspath(args.saved), os.path.join(scratch, "out", "fwpt"))
if args.names:
    os.makedirs(os.path.join(scratch, "out", "names"))
    os.symlink(os.path.abspath(args.names), os.path.join(scratch, "out", "names", "fwpt"))
console = None
if args.console:
    console = open(args.console, encoding="utf-8", errors="replace").read().replace(build + "/", "build/").split("\n")
    console = [l for l in console if not re.match(r"run-qemu: .*(KVM|kvm)", l)]

for page in pages:
    mapping = {}  # page number -> (run number, line)
    for marked, body in blocks(page):
        runs = []  # (anchored, doc lines, output lines, from a run)
        if marked:
            if console is None:
                skipped += 1
                continue
            doc = [(n, t) for n, t in body if not re.match(r"run-qemu: .*(KVM|falling back to TCG)", t)]
            runs.append((False, doc, console, True))
        elif body and body[0][1].startswith("$ build/fwpt"):
            cmds = []
            for n, t in body:
                if t.startswith("$ "):
                    cmds.append((n, re.sub(r"\s+#.*$", "", t[2:]), []))
                elif cmds:
                    cmds[-1][2].append((n, t))
            if any("out/fwpt" in c for _, c, _ in cmds) and not args.saved:
                skipped += 1
                continue
            if any("out/names/fwpt" in c for _, c, _ in cmds):
                if not args.names:
                    skipped_names += 1
                    continue
                checked_names += 1
            for n, cmd, doc in cmds:
                p = subprocess.run(["bash", "-c", cmd + " 2>&1"], cwd=scratch, capture_output=True, text=True, timeout=120)
                out = p.stdout.rstrip("\n").split("\n") if p.stdout else []
                if not doc:
                    fail(page, n, "'%s': no output on the page" % cmd)
                    continue
                runs.append((True, doc, out, "out/fwpt" in cmd or "out/names/fwpt" in cmd))
        else:
            continue
        ok = True
        for anchored, doc, out, of_run in runs:
            err, pairs = match(doc, out, anchored)
            if err:
                fail(page, err[1], err[0])
                ok = False
                continue
            for d, r, no in pairs:
                if not of_run and d != r:
                    fail(page, no, "%s on the page, %s in the output" % (d, r))
                    ok = False
                if len(d) < 4:
                    continue
                if d in mapping and mapping[d][0] != r:
                    fail(page, no, "%s stands for %s here but for %s at line %d" % (d, r, mapping[d][0], mapping[d][1]))
                    ok = False
                else:
                    other = [(e, v) for e, v in mapping.items() if v[0] == r and e != d]
                    if other:
                        fail(page, no, "%s and %s (line %d) are both %s in the run" % (d, other[0][0], other[0][1][1], r))
                        ok = False
                    mapping.setdefault(d, (r, no))
        if ok:
            passed += 1
    moved = sorted("%s -> %s" % (d, r) for d, (r, _) in mapping.items() if d != r)
    if moved:
        print("note: %s: numbers of this run that differ from the page (OVMF or app build): %s"
              % (page, ", ".join(moved[:12]) + (", ..." if len(moved) > 12 else "")))
if skipped_names:
    print("note: %d example blocks are over the names run (--names; tests/qemu/test_names.sh checks them): not checked here"
          % skipped_names)
if args.names:
    print("note: names run: %d example blocks checked" % checked_names)
if skipped:
    print("note: %d example blocks need a run (--saved, --console): not checked here" % skipped)
print("docs_examples: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
