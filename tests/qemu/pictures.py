#!/usr/bin/env python3
"""Checks of the pictures of one saved trace against its call tree (`fwpt flow DIR --calls --depth 1000`),
for tests/qemu/test_flame_report.sh. Usage: pictures.py CHECK CALLS.txt SIDEBAND.json FILE...
  folded FOLDED          every node with instructions of its own is one line "path self", nothing else
  chrome JSON            Trace Event Format; slices nest into the call tree: per path, count = calls, sum(dur) = total
  flame-dom DOM          the SVG's frames (after Chromium ran its script) are the nodes: name, depth, width;
                         its #selftest click zoomed the widest depth-2 frame (x, width, shown, hidden, children)
  report-dom DOM         the report's call tree rows are the nodes in order; run rows; the inline flame as above
Usage: pictures.py report-broken SIDEBAND.json DOM BYTES DECODE NOTE
                         the page of a trace that is not the run's: BYTES decoded, the recorded size in red, the
                         decode verdict DECODE and the verify note NOTE in red, the run's verdict not green
  png PNG                a screenshot that is not blank
Prints one line per check and exits 1 on the first failure."""
import html
import json
import re
import sys

W, PAD = 1200, 10


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load_tree(calls_path, sideband_path):
    sb = json.load(open(sideband_path))
    impl = sb["target"]["impl"].split(" ")[0]
    impl_addr = int(sb["target"]["impl_addr"], 16)
    nodes = []  # dicts: depth, entry, name, calls, self, total, path (names, root first), parent index
    stack = []
    started = False
    for line in open(calls_path):
        line = line.rstrip("\n")
        if line.startswith("      calls        self       total  function"):
            started = True
            continue
        if not started or not line.strip():
            continue
        calls, self_, total = (int(x) for x in line[:35].split())
        text = line[37:]
        if text == "(root)":
            depth, entry, name = 0, None, "(root)"
        else:
            depth = (len(text) - len(text.lstrip(" "))) // 2 + 1
            parts = text.split()
            entry = int(parts[0], 16)
            # with --symbols a node known to the symbol files reads "0xENTRY  Module+0xOFF  NAME (FILE:LINE)": the
            # frames are named NAME
            name = parts[2] if len(parts) > 2 else impl if entry == impl_addr and impl else (
                parts[1] if len(parts) > 1 else parts[0])
        del stack[depth:]
        parent = stack[-1] if stack else None
        path = (nodes[parent]["path"] if parent is not None else ()) + (name,)
        nodes.append(dict(depth=depth, entry=entry, name=name, calls=calls, self=self_, total=total, path=path,
                          parent=parent))
        stack.append(len(nodes) - 1)
    if not nodes or nodes[0]["name"] != "(root)":
        fail("%s: no call tree" % calls_path)
    # x of each node inside the root, as the flame lays it out (children left to right from the parent's x)
    cursor = {}
    for i, n in enumerate(nodes):
        if n["depth"] and not n["total"]:
            continue
        x = cursor.get(n["depth"], 0)
        n["x"] = x
        cursor[n["depth"]] = x + n["total"]
        cursor[n["depth"] + 1] = x
    return sb, nodes


def check_folded(nodes, path):
    want = {";".join(n["path"]): n["self"] for n in nodes if n["self"]}
    got = {}
    for line in open(path):
        stack, count = line.rstrip("\n").rsplit(" ", 1)
        if stack in got:
            fail("folded: %s twice" % stack)
        got[stack] = int(count)
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:6]
        fail("folded: differs from the call tree: %s" % diff)
    print("ok: folded: %d stacks, %d instructions = --calls" % (len(got), sum(got.values())))


def check_chrome(nodes, path):
    doc = json.load(open(path))
    ev = doc["traceEvents"]
    for e in ev:
        if e["ph"] != "X" or not isinstance(e["ts"], int) or not isinstance(e["dur"], int) or e["dur"] < 0 or \
                e["pid"] != 1 or e["tid"] != 1 or not isinstance(e["name"], str):
            fail("chrome: not a complete event: %s" % e)
    # nest by time: a slice is inside the innermost open one that contains it
    ev = sorted(ev, key=lambda e: (e["ts"], -e["dur"], e["args"]["depth"]))
    stack, count, dur = [], {}, {}
    for e in ev:
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"]:
            stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"]:
            fail("chrome: slice %s overlaps %s" % (e, stack[-1]))
        stack.append(e)
        if e["args"]["depth"] != len(stack):
            fail("chrome: slice %s at depth %d" % (e, len(stack)))
        p = ("(root)",) + tuple(x["name"] for x in stack)
        count[p] = count.get(p, 0) + 1
        dur[p] = dur.get(p, 0) + e["dur"]
    want_count = {n["path"]: n["calls"] for n in nodes if n["depth"]}
    want_dur = {n["path"]: n["total"] for n in nodes if n["depth"]}
    if count != want_count:
        fail("chrome: slices per call-tree node differ from --calls: %s" %
             sorted(set(count.items()) ^ set(want_count.items()))[:6])
    if dur != want_dur:
        fail("chrome: durations per node differ from --calls totals: %s" %
             sorted(set(dur.items()) ^ set(want_dur.items()))[:6])
    print("ok: chrome: %d slices = the calls of --calls (%d nodes), durations = totals" % (len(ev), len(want_count)))


FRAME = re.compile(r'<g class="f" data-x="(\d+)" data-n="(\d+)" data-d="(\d+)"[^>]*><title>(.*?): \d+ instructions')


def check_flame(nodes, dom, what):
    frames = [(html.unescape(m.group(4)), int(m.group(3)), int(m.group(1)), int(m.group(2)))
              for m in FRAME.finditer(dom)]
    want = [(n["name"], n["depth"], n["x"], n["total"]) for n in nodes if n["total"] or not n["depth"]]
    if frames != want:
        fail("%s: frames differ from the call tree (%d frames, %d nodes): %s" %
             (what, len(frames), len(want), [f for f in frames if f not in want][:3] + [w for w in want if w not in frames][:3]))
    m = re.search(r'id="fwpt-selftest"([^>]*)>([^<]*)<', dom)
    if not m or m.group(1).endswith("/") or not m.group(2).strip():
        fail("%s: the page's #selftest wrote nothing (did its script run?)" % what)
    res = json.loads(html.unescape(m.group(2)))
    drawn = [n for n in nodes if n["total"] or not n["depth"]]
    cand = [n for n in drawn if n["depth"] == 2] or [n for n in drawn if n["depth"] == 1]
    z = max(cand, key=lambda n: n["total"])  # the first of the widest, as the script picks
    z = [n for n in cand if n["total"] == z["total"]][0]
    inside = [n for n in drawn if n["depth"] >= z["depth"] and n["x"] >= z["x"] and n["x"] + n["total"] <= z["x"] + z["total"]]
    above = [n for n in drawn if n["depth"] < z["depth"] and n["x"] <= z["x"] and n["x"] + n["total"] >= z["x"] + z["total"]]
    if res["frames"] != len(drawn) or res["zoomed"] != z["name"] or res["zoomed_n"] != z["total"]:
        fail("%s: selftest zoomed %s (%s of %s frames), expected %s (%d)" %
             (what, res["zoomed"], res.get("zoomed_n"), res["frames"], z["name"], z["total"]))
    if abs(res["x"] - PAD) > 0.005 or abs(res["width"] - (W - 2 * PAD)) > 0.005:
        fail("%s: the zoomed frame is at x=%s width=%s, expected %d and %d" % (what, res["x"], res["width"], PAD, W - 2 * PAD))
    if res["shown"] != len(inside) + len(above) or res["hidden"] != len(drawn) - len(inside) - len(above):
        fail("%s: after the zoom %d frames shown, %d hidden; expected %d and %d" %
             (what, res["shown"], res["hidden"], len(inside) + len(above), len(drawn) - len(inside) - len(above)))
    if res["hidden"] == 0:
        fail("%s: the zoom hid no frame: the trace is too simple for this check" % what)
    names = [n["name"] for n in inside + above]
    for n in inside:
        if names.count(n["name"]) == 1:
            w = n["total"] * (W - 2 * PAD) / z["total"]
            if abs(res["widths"][n["name"]] - w) > 0.01:
                fail("%s: %s is %s px wide after the zoom, expected %.2f" % (what, n["name"], res["widths"][n["name"]], w))
    # search for the zoomed frame's name: the instructions of its outermost matches
    end, s = -1, 0
    for n in sorted([n for n in drawn if n["name"] == z["name"]], key=lambda n: (n["x"], -n["total"])):
        if n["x"] >= end:
            s, end = s + n["total"], n["x"] + n["total"]
    if res["search_sum"] != s:
        fail("%s: search matched %s instructions, expected %d" % (what, res["search_sum"], s))
    if abs(res["unzoomed_width"] - z["total"] * (W - 2 * PAD) / nodes[0]["total"]) > 0.02:
        fail("%s: reset zoom left the frame %s px wide" % (what, res["unzoomed_width"]))
    print("ok: %s: %d frames = the call tree's nodes; the click zoomed %s to the full width, %d shown, %d hidden" %
          (what, len(frames), z["name"], res["shown"], res["hidden"]))


ROW = re.compile(r'<(?:summary|div class="leaf")([^>]*)>')
ATTR = re.compile(r'data-(\w+)="([^"]*)"')


def check_report(sb, nodes, dom):
    rows = []
    for m in ROW.finditer(dom):
        a = dict(ATTR.findall(m.group(1)))
        if "calls" in a:
            rows.append((int(a["calls"]), int(a["self"]), int(a["total"]), int(a["depth"]), a["entry"]))
    want = [(n["calls"], n["self"], n["total"], n["depth"], "root" if n["entry"] is None else "0x%x" % n["entry"])
            for n in nodes]
    if rows != want:
        fail("report: call tree rows differ from --calls (%d rows, %d nodes)" % (len(rows), len(want)))
    if dom.count("<details") != sum(1 for i, n in enumerate(nodes) if any(m["parent"] == i for m in nodes)):
        fail("report: not one <details> per node with callees")
    verify = sb["verify"]["text"]
    for ident, value, cls in (("fwpt-insns", str(nodes[0]["total"]), None), ("fwpt-verify", html.escape(verify, False), "ok"),
                              ("fwpt-errors", "0", "ok"), ("fwpt-trace-bytes", str(sb["trace"]["bytes"]), None),
                              ("fwpt-decode", "the whole trace: tracing ended inside it", "ok")):
        got = element(dom, ident)
        if not got or got[1] != value or (cls and got[0] != cls):
            fail("report: %s is %s, expected %s (class %s)" % (ident, got, value, cls))
    for ident in ("fwpt-trace-recorded", "fwpt-verify-note"):
        if element(dom, ident):
            fail("report: %s on the page of the run's own trace" % ident)
    print("ok: report: %d call tree rows = --calls, instructions %d, verify %s" %
          (len(rows), nodes[0]["total"], verify))
    check_flame(nodes, dom, "report's flame graph")


def element(dom, ident):
    """(class, text) of the element with this id, None when absent"""
    m = re.search(r'id="%s"(?: class="([^"]*)")?>([^<]*)<' % ident, dom)
    return m and (m.group(1) or "", m.group(2))


def check_report_broken(sb, dom, want_bytes, want_decode, want_note):
    """the page of a trace that is not the run's: the run's verdict not green, the red size, decode and note"""
    verify = sb["verify"]["text"]
    want = (("fwpt-trace-bytes", ("", str(want_bytes))),
            ("fwpt-trace-recorded", ("bad", "(the run recorded %d bytes: this is not the trace it wrote)" % sb["trace"]["bytes"])),
            ("fwpt-decode", ("bad", want_decode)),
            ("fwpt-verify", ("", html.escape(verify, False))),
            ("fwpt-verify-note", ("bad", "but the trace decoded here is not what the run verified: " + want_note)))
    for ident, value in want:
        got = element(dom, ident)
        if got != value:
            fail("broken report: %s is %s, expected %s" % (ident, got, value))
    if re.search(r'class="ok"', dom.split("<h2>Instructions per module")[0].split('<table class="run">')[1]):
        fail("broken report: a green row in the run table")
    print("ok: broken report: %d bytes decoded, the %d recorded beside them in red; decode: %s; verify: %s, not green, with "
          "the red note" % (want_bytes, sb["trace"]["bytes"], want_decode, verify))


def check_png(path):
    from PIL import Image
    im = Image.open(path).convert("RGB")
    colours = im.getcolors(1 << 24)
    colours.sort(reverse=True)
    n = im.size[0] * im.size[1]
    other = n - colours[0][0]
    if len(colours) < 8 or other < n // 50:
        fail("%s: looks blank (%d colours, %d of %d pixels not the background)" % (path, len(colours), other, n))
    print("ok: %s: %dx%d, %d colours, %.1f%% not background" % (path, im.size[0], im.size[1], len(colours), 100.0 * other / n))


def main():
    check = sys.argv[1]
    if check == "png":
        return check_png(sys.argv[2])
    if check == "report-broken":
        return check_report_broken(json.load(open(sys.argv[2])), open(sys.argv[3]).read(), int(sys.argv[4]),
                                   sys.argv[5], sys.argv[6])
    sb, nodes = load_tree(sys.argv[2], sys.argv[3])
    arg = sys.argv[4]
    if check == "folded":
        check_folded(nodes, arg)
    elif check == "chrome":
        check_chrome(nodes, arg)
    elif check == "flame-dom":
        check_flame(nodes, open(arg).read(), "flame.svg")
    elif check == "report-dom":
        check_report(sb, nodes, open(arg).read())
    else:
        fail("unknown check " + check)


if __name__ == "__main__":
    main()
