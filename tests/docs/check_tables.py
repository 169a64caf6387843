#!/usr/bin/env python3
"""The Markdown tables of README.md and docs/*.md parse as GitHub renders them: a table is a run of lines that
begin with '|' outside code blocks; its first line is the header, its second the delimiter row (|---|:--:|...),
every row has the header's number of cells (cells are split at every '|' not escaped as '\\|', also inside
`code`, as GitHub does), and the table has a blank line (or a heading, or the start of the page) before it and
after it, so no row is taken into a paragraph and no paragraph line into the table. A row stranded after a
paragraph is a run without its delimiter row. Each table is one pass; each fault is one failure, printed as
"PAGE:LINE: why".
Usage: tests/docs/check_tables.py [ROOT]   (ROOT: the checkout, default the one holding this script)"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)
pages = ["README.md"] + sorted("docs/" + f for f in os.listdir("docs") if f.endswith(".md"))
DELIM = re.compile(r"\s*:?-{3,}:?\s*")
passed = failed = 0


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return re.split(r"(?<!\\)\|", row)


for page in pages:
    lines = open(page, encoding="utf-8").read().split("\n")
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
            i += 1
            continue
        if fenced or not line.startswith("|"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        faults = []
        before = lines[i - 1] if i > 0 else ""
        if before.strip() and not before.startswith("#"):
            faults.append((i, "a table row right after a paragraph line ('%s'): it renders as text; a blank line "
                              "before the table, or the rows belong to the table above" % before.strip()[:60]))
        if j - i < 2 or not all(DELIM.fullmatch(c) for c in cells(lines[i + 1])):
            faults.append((i, "no delimiter row (|---|---|) after the header: not a table"))
        else:
            width = len(cells(lines[i]))
            if len(cells(lines[i + 1])) != width:
                faults.append((i + 1, "the delimiter row has %d cells, the header %d" % (len(cells(lines[i + 1])), width)))
            for k in range(i + 2, j):
                if len(cells(lines[k])) != width:
                    faults.append((k, "%d cells, the header has %d (an unescaped '|' in a cell?)" % (len(cells(lines[k])), width)))
        if j < len(lines) and lines[j].strip():
            faults.append((j, "a line right after the table ('%s'): it becomes a table row; a blank line after the "
                              "table" % lines[j].strip()[:60]))
        for no, why in faults:
            print("%s:%d: %s" % (page, no + 1, why))
        failed += len(faults)
        passed += 0 if faults else 1
        i = j
print("docs_tables: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
