#!/usr/bin/env python3
"""The links of the README and docs/ pages: every relative link names a file of the checkout, and every
#anchor names a heading of the page it points to (GitHub's rule: lower case, punctuation other than '-' and
'_' dropped, spaces as '-', a repeated heading gets -1, -2, ...). Each link checked is one pass; each broken
one is one failure, printed as "FILE:LINE: [text](target): why".
A link stays inside the repository: a relative link that leads out of the checkout, and a page outside it
named in inline code (`../x/NAME.md`), are failures too (the reader of the repository has neither).
Usage: tests/docs/check_links.py [ROOT]   (ROOT: the checkout, default the one holding this script)"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(root)
pages = ["README.md"] + sorted("docs/" + f for f in os.listdir("docs") if f.endswith(".md"))
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def strip_code(text):
    """Fenced blocks and inline code hold no links."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return out


def anchors(path):
    seen, found = {}, set()
    fenced = False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else "%s-%d" % (slug, n))
    return found


passed = failed = 0
for page in pages:
    for no, line in enumerate(strip_code(open(page, encoding="utf-8").read()), 1):
        for text, target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto: are not checked (no network here)
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
            why = None
            if dest == ".." or dest.startswith("../") or os.path.isabs(file):
                why = "leads out of the repository (%s)" % dest
            elif not os.path.exists(dest):
                why = "no such file %s" % dest
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                why = "no heading #%s in %s" % (anchor, dest)
            if why:
                failed += 1
                print("%s:%d: [%s](%s): %s" % (page, no, text, target, why))
            else:
                passed += 1
    fenced = False
    for no, line in enumerate(open(page, encoding="utf-8").read().split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        for path in re.findall(r"`([^`\s]+\.md)`", line):
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path))
            if path.startswith("../") and (dest == ".." or dest.startswith("../") or not os.path.exists(dest)):
                failed += 1
                print("%s:%d: `%s`: a page outside the repository (link a page of the repository instead)" % (page, no, path))
print("docs_links: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
