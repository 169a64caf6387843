#!/usr/bin/env python3
"""docs/host-tool.md against the host tool's own help, read at test time (so a new option fails here until the
page describes it):
- the commands of `fwpt --help` are the commands of the page's command list and each has a `## fwpt CMD` section;
- every option that `fwpt CMD --help` names is described in that section: it appears in inline code outside the
  code blocks (a table row, a list item or a sentence), not only in the synopsis;
- every option the section documents (its synopsis block, the first cell of its table rows, inline code that
  begins with the option) is one `fwpt CMD --help` names;
- the same between `run-qemu.sh --help` and the section '## run-qemu.sh' of docs/user-guide.md.
An option named as another tool's (`ptxed --cpu`, `fwpt caps --list-profiles` in plan's help) is a reference,
not an option of CMD. Each command and option checked is one pass; each mismatch is one failure, printed as
"docs/host-tool.md[:LINE]: ...".
Usage: tests/docs/check_host_tool.py [ROOT [FWPT]]   (defaults: the checkout holding this script,
$FWPT_BUILD/fwpt or ROOT/build/fwpt)"""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tool = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.environ.get("FWPT_BUILD", os.path.join(root, "build")), "fwpt")
PAGE = "docs/host-tool.md"
# -x or --name (letters, digits, '.', '-'), not inside a word, a path or a number such as 0x-hex or -1c0
OPT = re.compile(r"(?<![\w./\-])(-[a-zA-Z](?![\w\-])|--[a-zA-Z0-9][a-zA-Z0-9.\-]*[a-zA-Z0-9])")
HELP = {"--help", "-h"}
passed = failed = 0


def fail(msg):
    global failed
    failed += 1
    print(msg)


def ok():
    global passed
    passed += 1


def run(args):
    try:
        p = subprocess.run([tool] + args, capture_output=True, text=True, timeout=30)
    except OSError as e:
        fail("%s: cannot run: %s" % (tool, e))
        return None
    if p.returncode != 0:
        fail("%s %s: exit %d, expected 0" % (tool, " ".join(args), p.returncode))
        return None
    return p.stdout


def help_options(cmd, text):
    """The options `fwpt CMD --help` names, without references to other tools' options."""
    text = re.sub(r"ptxed\s+--?[\w:.\-]+", "", text)  # (as ptxed --cpu), (ptxed --event:tick)
    # (fwpt caps --list-profiles), (see fwpt flow --help), `fwpt report DIR -o F`: another command's options
    text = re.sub(r"fwpt\s+(?!%s\b)\w+\s+[^,;:()`\n]*" % cmd, "", text)
    return set(OPT.findall(text)) - HELP


def code_blocks(lines):
    """(start, end) line index ranges of fenced (```) and indented (4 spaces after a blank line) code blocks."""
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            blocks.append((i + 1, j))
            i = j + 1
        elif lines[i].startswith("    ") and lines[i].strip() and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            blocks.append((i, j))
            i = j
        else:
            i += 1
    return blocks


os.chdir(root)
page = open(PAGE, encoding="utf-8").read().split("\n")
blocks = code_blocks(page)
in_code = set(n for s, e in blocks for n in range(s, e))

top = run(["--help"])
commands = []
if top is not None:
    m = re.search(r"^commands:\n((?:  \S.*\n?)+)", top, re.M)
    commands = [l.split()[0] for l in m.group(1).splitlines()] if m else []
    if not commands:
        fail("%s --help: no 'commands:' list" % tool)

# The page's command list: the first code block, lines "  NAME  what it does" after "fwpt COMMAND".
listed = []
for s, e in blocks:
    if page[s].startswith("fwpt COMMAND"):
        listed = [l.split()[0] for l in page[s + 1:e] if re.match(r"  \w", l)]
        break
sections = {}
for no, line in enumerate(page):
    m = re.match(r"## fwpt (\w+)\s*$", line)
    if m and no not in in_code:
        sections[m.group(1)] = no
for c in commands:
    if c in listed:
        ok()
    else:
        fail("%s: command '%s' (in `fwpt --help`) is missing from the command list" % (PAGE, c))
    if c in sections:
        ok()
    else:
        fail("%s: no section '## fwpt %s'" % (PAGE, c))
for c in listed:
    if c not in commands:
        fail("%s: command '%s' of the command list is not in `fwpt --help`" % (PAGE, c))

def check_section(page_name, lines, in_code_lines, code_blocks_, start, end, helped, cmd, synopsis_re, label):
    """helped (the options of `label`) against lines[start:end] of page_name."""
    described = {}  # option -> first line, from inline code outside code blocks
    documented = {}  # option -> first line, from the synopsis, table first cells, code spans that begin with it
    for no in range(start, end):
        line = lines[no]
        if no in in_code_lines:
            continue
        for span in re.findall(r"`([^`]*)`", line):
            for o in OPT.findall(span):
                described.setdefault(o, no + 1)
            if span.startswith("-"):
                for o in OPT.findall(span):
                    documented.setdefault(o, no + 1)
        if line.startswith("|"):
            first = line.split("|")[1]
            for o in OPT.findall(first):
                documented.setdefault(o, no + 1)
    for s_, e_ in code_blocks_:
        if start < s_ < end and re.match(synopsis_re, lines[s_].strip()):
            for no in range(s_, e_):
                for o in OPT.findall(lines[no]):
                    documented.setdefault(o, no + 1)
    for o in sorted(helped):
        if o in described:
            ok()
        else:
            fail("%s: ## %s: %s (in `%s`) is not described (in a table row, a list or a sentence; the synopsis "
                 "alone is not enough)" % (page_name, cmd, o, label))
    for o, no in sorted(documented.items()):
        if o in HELP:
            continue
        if o in helped:
            ok()
        else:
            fail("%s:%d: %s is documented for %s but `%s` does not name it" % (page_name, no, o, cmd, label))


ends = sorted(list(sections.values()) + [n for n, l in enumerate(page) if re.match(r"## ", l) and n not in in_code]
              + [len(page)])
for cmd in commands:
    if cmd not in sections:
        continue
    text = run([cmd, "--help"])
    if text is None:
        continue
    start = sections[cmd]
    end = min(n for n in ends if n > start)
    check_section(PAGE, page, in_code, blocks, start, end, help_options(cmd, text), "fwpt " + cmd,
                  r"fwpt %s\b" % cmd, "fwpt %s --help" % cmd)

# run-qemu.sh --help against the section '## run-qemu.sh' of docs/user-guide.md
GUIDE = "docs/user-guide.md"
guide = open(GUIDE, encoding="utf-8").read().split("\n")
gblocks = code_blocks(guide)
gcode = set(n for s_, e_ in gblocks for n in range(s_, e_))
heads = [n for n, l in enumerate(guide) if re.match(r"## ", l) and n not in gcode] + [len(guide)]
at = [n for n in heads[:-1] if guide[n].strip() == "## run-qemu.sh"]
p = subprocess.run(["bash", os.path.join(root, "run-qemu.sh"), "--help"], capture_output=True, text=True, timeout=30)
if p.returncode != 0:
    fail("run-qemu.sh --help: exit %d, expected 0" % p.returncode)
elif not at:
    fail("%s: no section '## run-qemu.sh'" % GUIDE)
else:
    check_section(GUIDE, guide, gcode, gblocks, at[0], min(n for n in heads if n > at[0]),
                  set(OPT.findall(p.stdout)) - HELP, "run-qemu.sh", r"\./run-qemu\.sh\b", "run-qemu.sh --help")

print("docs_host_tool: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
