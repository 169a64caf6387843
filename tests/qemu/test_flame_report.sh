#!/usr/bin/env bash
# The first run on a machine without Intel PT, and its pictures. `./run-qemu.sh` with no app options
# (trace locate-handle shutdown) under TCG: backend=auto picks the software tracer, says why and what it
# emulates, verifies the trace and exits 0; the app writes flame.svg and report.html, byte-identical to
# `fwpt flow DIR --flame` and `fwpt report DIR` on the saved directory. Then, against the call tree of
# `fwpt flow DIR --calls`: --folded, --chrome-trace (parsed as the Trace Event Format), and Debian's
# headless chromium on the SVG and the report (screenshots not blank; the DOM's frames and rows are the
# call tree's nodes; the page's #selftest click zooms; the run rows and the verify verdict as sideband.json's). The
# page of that trace cut in half: the run's verdict not green, the size, the cut and the note in red.
# Prints "qemu-flame-report: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-flame-report
need "$B/fwpt.efi" "$B/fwpt"
# Debian's python3 (python3-pil is a Debian package; another python3 first in PATH would not have it)
PY=/usr/bin/python3
check() { local out; if out=$("$PY" "$here/tests/qemu/pictures.py" "$@" 2>&1); then ok; echo "$out"; else bad "$out"; fi; }
for tool in chromium "$PY"; do
    command -v "$tool" >/dev/null || { bad "$tool is not installed (tools/ensure-deps.sh test installs it): the browser checks cannot run"; finish; }
done

# 1. No app options: run-qemu.sh's default line, backend=auto.
t0=$SECONDS
"$here/run-qemu.sh" --no-build --build "$B" --accel tcg --timeout 300 --out "$work/def" --log "$work/def.raw" \
    >/dev/null 2>"$work/def.err"
rc=$?
console_clean <"$work/def.raw" >"$work/def.log"
echo "boot def (./run-qemu.sh, no app options): exit $rc, $((SECONDS - t0)) s"
has() { if grep -qxF -- "$1" "$work/def.log"; then ok; else bad "no line '$1'"; grep -a '^trace: \|^verif\|^fwpt:' "$work/def.log" | head -n 12 | sed 's/^/    /'; fi; }
if [ "$rc" = 0 ]; then ok; else bad "run-qemu.sh with no app options: exit $rc, expected 0"; tail -n 5 "$work/def.err"; fi
has 'options (\fwpt\fwpt.cfg): trace locate-handle shutdown'
has 'trace: backend=auto: Intel PT is not usable here (the vendor is not GenuineIntel): the software tracer single-steps the call and encodes what a processor with Intel PT would write'
has 'trace: backend=auto: emulating skylake (Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz, family/model/stepping 6/94/3): the default profile (no built-in profile has this processor'"'"'s family and model)'
has 'trace: backend soft (single-step), CPU profile skylake'
if grep -qaE '^verified: [0-9]+ instructions decoded = single-stepped \(the whole call\)$' "$work/def.log"; then ok; else bad "no 'verified:' line"; fi
has 'verify: passed (the whole call)'
has 'fwpt: exit status EFI_SUCCESS (0x0)'
d=$work/def/fwpt
for f in flame.svg report.html sideband.json trace.pt; do
    if [ -s "$d/$f" ]; then ok; else bad "the app wrote no $f"; finish; fi
done
if grep -qE '^file: wrote \\fwpt\\flame.svg \([0-9]+ bytes\)$' "$work/def.log" &&
    grep -qE '^file: wrote \\fwpt\\report.html \([0-9]+ bytes\)$' "$work/def.log"; then ok; else bad "the console does not name flame.svg and report.html"; fi
# sideband.json's verify: the whole call, every instruction decoded compared, in the console's words
n_ver=$(sed -n 's/^verified: \([0-9]*\) instructions.*/\1/p' "$work/def.log")
want_verify='"verify":{"result":"passed","scope":"whole","compared":'$n_ver',"total":'$n_ver',"part":"the whole call","reason":"","text":"passed (the whole call)"}'
if grep -qF "$want_verify" "$d/sideband.json"; then ok; else bad "sideband.json: no $want_verify: $(grep -o '"verify":{[^}]*}' "$d/sideband.json")"; fi

# 2. The host tool writes the same bytes from the saved directory.
h=$work/host
mkdir -p "$h"
"$B/fwpt" flow "$d" --flame "$h/flame.svg" --folded "$h/folded.txt" --chrome-trace "$h/chrome.json" >"$h/stdout" 2>"$h/err"
if [ $? = 0 ] && [ ! -s "$h/stdout" ]; then ok; else bad "fwpt flow --flame/--folded/--chrome-trace failed or listed on stdout: $(head -c 300 "$h/err")"; fi
"$B/fwpt" report "$d" -o "$h/report.html" 2>"$h/err2"
if [ $? = 0 ]; then ok; else bad "fwpt report failed: $(head -c 300 "$h/err2")"; fi
if cmp "$d/flame.svg" "$h/flame.svg"; then ok; else bad "flame.svg: the app's and fwpt flow --flame's differ"; fi
if cmp "$d/report.html" "$h/report.html"; then ok; else bad "report.html: the app's and fwpt report's differ"; fi
# bad input: clear errors, non-zero exit
"$B/fwpt" report "$d" 2>"$h/err3"; rc=$?
if [ "$rc" = 2 ] && grep -qF 'fwpt report: no output file given (-o FILE)' "$h/err3"; then ok; else bad "fwpt report without -o: exit $rc, $(head -c 200 "$h/err3")"; fi
"$B/fwpt" flow "$d" --flame /nonexistent/dir/f.svg 2>"$h/err4"; rc=$?
if [ "$rc" = 1 ] && grep -qF 'fwpt flow: cannot write /nonexistent/dir/f.svg: No such file or directory' "$h/err4"; then ok; else bad "--flame to a bad path: exit $rc, $(head -c 200 "$h/err4")"; fi

# 3. Folded stacks and Trace Event Format against the call tree.
"$B/fwpt" flow "$d" --calls --depth 1000 >"$h/calls.txt"
check folded "$h/calls.txt" "$d/sideband.json" "$h/folded.txt"
check chrome "$h/calls.txt" "$d/sideband.json" "$h/chrome.json"

# 4. Headless Chromium: render, DOM, scripted click.
chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium" "$@" 2>>"$work/chromium.err"; }
chrome --screenshot="$h/flame.png" --window-size=1220,500 "file://$d/flame.svg" >/dev/null
check png "$h/flame.png"
chrome --screenshot="$h/report.png" --window-size=1280,1400 "file://$d/report.html" >/dev/null
check png "$h/report.png"
chrome --dump-dom "file://$d/flame.svg#selftest" >"$h/flame.dom"
check flame-dom "$h/calls.txt" "$d/sideband.json" "$h/flame.dom"
chrome --dump-dom "file://$d/report.html#selftest" >"$h/report.dom"
check report-dom "$h/calls.txt" "$d/sideband.json" "$h/report.dom"

# 5. The page of a trace that is not the run's: trace.pt cut in half. fwpt report exits 1 and says why; in Chromium
# the run's "passed" is not green, the bytes decoded stand beside the recorded size in red, the decode says cut.
c=$work/cut
cp -r "$d" "$c"
rec=$(stat -c %s "$d/trace.pt")
head -c $((rec / 2)) "$d/trace.pt" >"$c/trace.pt"
"$B/fwpt" report "$c" -o "$h/cut.html" 2>"$h/err5"; rc=$?
if [ "$rc" = 1 ] && grep -qE "^fwpt flow: $c: the run recorded $rec trace bytes, $((rec / 2)) were decoded; .*\(said in red on the report page $h/cut.html\)$" "$h/err5"; then
    ok; else bad "fwpt report on a trace cut in half: exit $rc, $(head -c 400 "$h/err5")"; fi
note=$(sed -n "s|^fwpt flow: $c: \(.*\) (said in red on the report page .*|\1|p" "$h/err5")
chrome --dump-dom "file://$h/cut.html" >"$h/cut.dom"
check_broken() { local out; if out=$("$PY" "$here/tests/qemu/pictures.py" report-broken "$@" 2>&1); then ok; echo "$out"; else bad "$out"; fi; }
check_broken "$c/sideband.json" "$h/cut.dom" $((rec / 2)) \
    "the trace ends with tracing on: it was cut, the rest of the call is missing" "$note"

finish
