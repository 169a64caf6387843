#!/usr/bin/env bash
# Names from a gnu-efi build's own symbols, end to end, on Debian's OVMF under TCG (docs/symbols.md). build/names.efi
# (tests/qemu/efi/names.c, -g) is traced with `trace load-image` under backend=soft: a first boot learns where
# LoadImage puts it (and keeps the first 20000 steps: fwpt's own code around the call, then DxeCore), a second (the
# README's ./run-qemu.sh line, with this firmware's range) traces the whole call with an IP filter on that range, so
# the trace holds the image's code only. On the host, every view
# of `fwpt flow|report --symbols build/names.so` is the same command's output without --symbols with the names of
# the contract, as binutils give them (tests/qemu/names_check.py: nm for names, addr2line for file:line and
# inlined), and the pictures still agree with the call tree (tests/qemu/pictures.py); headless Chromium renders the
# flame graph and the report page with the names in their DOM. fwpt's own image BOOTX64 with build/fwpt.so (names as
# nm), and with a stale build of it (build/tests/fwpt-stale.so: one constant of fwpt_target_call changed): the
# warning, and every byte of the output as without --symbols. README.md's example blocks over this run
# (out/names/fwpt) are run by tests/docs/check_examples.py --names. Prints "qemu-names: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-names
need "$B/fwpt.efi" "$B/fwpt" "$B/fwpt.so" "$B/names.efi" "$B/names.so" "$B/tests/fwpt-stale.so"
# Debian's python3 (python3-pil is a Debian package; another python3 first in PATH would not have it)
PY=/usr/bin/python3
for tool in chromium "$PY" nm addr2line; do
    command -v "$tool" >/dev/null || { bad "$tool is not installed (tools/ensure-deps.sh test installs it): the checks cannot run"; finish; }
done
rc_is() { if [ "$rc" = "$2" ]; then ok; else bad "$1: exit $rc, expected $2"; tail -n 3 "$work/$1.err"; fi; }
has() { if grep -qxF -- "$2" "$work/$1.log"; then ok; else bad "$1: no line '$2'"; grep -a -E '^(trace|target|flow|fwpt:)' "$work/$1.log" | sed 's/^/    /'; fi; }
# names_check CHECK ELF SIDEBAND MODULE PLAIN NAMED [WANT...] / pictures CHECK ...: one check each
names_check() { local out; if out=$("$PY" "$here/tests/qemu/names_check.py" "$@" 2>&1); then ok; echo "$out"; else bad "${out#FAIL: }"; fi; }
pictures() { local out; if out=$("$PY" "$here/tests/qemu/pictures.py" "$@" 2>&1); then ok; echo "$out"; else bad "${out#FAIL: }"; fi; }
# stderr_is NAME TEXT: the stderr of host run NAME is exactly TEXT
stderr_is() { if [ "$(cat "$h/$1.err")" = "$2" ]; then ok; else bad "$1: stderr is '$(head -c 500 "$h/$1.err")', expected '$2'"; fi; }
# images DIR: the number of images sideband.json lists
images() { "$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["images"]))' "$1/sideband.json"; }
# host NAME CMD...: build/fwpt CMD, stdout in $h/NAME, stderr in $h/NAME.err, exit status in rc
host() { local n=$1; shift; "$B/fwpt" "$@" >"$h/$n" 2>"$h/$n.err"; rc=$?; }
h=$work/host
mkdir -p "$h"
copy=(--copy "$B/names.efi=/fwpt/names.efi")

# 1. Where LoadImage puts the image, in a boot that steps only the start of the call.
boot_fw release 120 probe max "${copy[@]}" -- trace load-image '\fwpt\names.efi' backend=soft steps=20000 quiet shutdown
rc_is probe 0
loaded='^target: load-image returned EFI_SUCCESS \(0x0\), StartImage EFI status \(0x4e4d\), image at (0x[0-9a-f]+) size (0x[0-9a-f]+)$'
if read -r lo size < <(sed -nE "s/$loaded/\1 \2/p" "$work/probe.log") && [ -n "$size" ]; then
    ok
else
    bad "probe: no line 'target: load-image returned EFI_SUCCESS (0x0), StartImage EFI status (0x4e4d), image at ...' (0x4e4d: names.efi's sum was right)"
    finish
fi
hi=$(printf '0x%x' $((lo + size - 1)))

# 2. The whole call, traced inside the image only: README.md's line as written there, with the range of this firmware.
line=$(grep -o '^ *\./run-qemu\.sh --copy build/names\.efi=.* filter=0x[0-9a-f]*-0x[0-9a-f]* .*' "$here/README.md" | head -n 1)
if [ -n "$line" ]; then ok; else bad "README.md has no './run-qemu.sh --copy build/names.efi=... filter=A-B ...' line"; finish; fi
read -r -a words <<<"${line#*./run-qemu.sh }"
args=()
for ((i = 0; i < ${#words[@]}; i++)); do
    w=${words[i]//\'/}
    case $w in
    --out) i=$((i + 1)) ;; # the test's own directory instead
    --copy) args+=(--copy "${words[i + 1]/#build\//$B/}"); i=$((i + 1)) ;;
    filter=*) args+=("filter=$lo-$hi") ;;
    *) args+=("$w") ;;
    esac
done
boot_fw release 300 names max "${args[@]}"
rc_is names 0
has names "target: load-image returned EFI_SUCCESS (0x0), StartImage EFI status (0x4e4d), image at $lo size $size"
has names "trace: IA32_RTIT_CTL 0x100002105, ADDR0 filter $lo-$hi"
has names "trace: ended because: the call returned; tracing disabled by software (TraceEn=0): every byte produced is kept"
d=$work/names/fwpt
n_fw=$(sed -n 's/^flow: \([0-9]*\) instructions, 0 decode errors; top modules:$/\1/p' "$work/names.log")
top=$(sed -n '/^flow: .*top modules:$/,/^[^ ]/p' "$work/names.log" | grep '^  ' | awk '{print $1 "=" $2}' | tr '\n' ' ')
if [ -n "$n_fw" ] && [ "$top" = "names=$n_fw " ]; then ok; else bad "names: the trace holds '$top', not names.efi's code only ($n_fw instructions)"; fi

# 3. Every view, without and with --symbols build/names.so.
sym=(--symbols "$B/names.so")
views=(
    "profile|flow $d --profile --top 100"
    "calls|flow $d --calls --depth 1000"
    "profile-jsonl|flow $d --profile --top 100 --format jsonl"
    "calls-jsonl|flow $d --calls --depth 1000 --format jsonl"
    "listing|flow $d"
    "listing-jsonl|flow $d --format jsonl"
    "edges|flow $d --edges"
    "edges-jsonl|flow $d --edges --format jsonl"
)
for v in "${views[@]}"; do
    n=${v%%|*}
    # shellcheck disable=SC2086 # the command line is word-split on purpose
    host "$n.plain" ${v#*|}
    # shellcheck disable=SC2086
    host "$n.named" ${v#*|} "${sym[@]}"
    if [ "$rc" = 0 ] && [ -s "$h/$n.named" ]; then ok; else bad "fwpt ${v#*|} --symbols: exit $rc, $(head -c 300 "$h/$n.named.err")"; fi
    names_check "$n" "$B/names.so" "$d/sideband.json" names "$h/$n.plain" "$h/$n.named" \
        efi_main run_checks checksum_table checksum_block _relocate
done
# stderr: no warning, the one line that says what matched (names.efi by its name; DxeCore has no symbol file)
n_img=$(images "$d")
stderr_is profile.named "names: 1 of $n_img traced images matched (1 by name; $((n_img - 1)) without a symbol file)"
for f in plain named; do
    s=()
    [ "$f" = named ] && s=("${sym[@]}")
    host "pics.$f" flow "$d" --flame "$h/flame.$f.svg" --folded "$h/folded.$f" --chrome-trace "$h/chrome.$f.json" "${s[@]}"
    if [ "$rc" = 0 ] && [ ! -s "$h/pics.$f" ]; then ok; else bad "fwpt flow --flame/--folded/--chrome-trace ($f): exit $rc, $(head -c 300 "$h/pics.$f.err")"; fi
    host "report.$f" report "$d" -o "$h/report.$f.html" "${s[@]}"
    if [ "$rc" = 0 ]; then ok; else bad "fwpt report ($f): exit $rc, $(head -c 300 "$h/report.$f.err")"; fi
done
names_check folded "$B/names.so" "$d/sideband.json" names "$h/folded.plain" "$h/folded.named" efi_main checksum_block
names_check chrome "$B/names.so" "$d/sideband.json" names "$h/chrome.plain.json" "$h/chrome.named.json" efi_main checksum_block
# the named pictures agree with the named call tree as the plain ones do with the plain one
pictures folded "$h/calls.named" "$d/sideband.json" "$h/folded.named"
pictures chrome "$h/calls.named" "$d/sideband.json" "$h/chrome.named.json"

# 4. Headless Chromium: the flame graph and the report page, their DOM after the page's script ran.
chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium" "$@" 2>>"$work/chromium.err"; }
for f in plain named; do
    chrome --dump-dom "file://$h/flame.$f.svg#selftest" >"$h/flame.$f.dom"
    chrome --dump-dom "file://$h/report.$f.html#selftest" >"$h/report.$f.dom"
done
names_check flame-dom "$B/names.so" "$d/sideband.json" names "$h/flame.plain.dom" "$h/flame.named.dom" \
    efi_main run_checks checksum_table checksum_block _relocate
names_check report-dom "$B/names.so" "$d/sideband.json" names "$h/report.plain.dom" "$h/report.named.dom" \
    efi_main run_checks checksum_table checksum_block _relocate
pictures flame-dom "$h/calls.named" "$d/sideband.json" "$h/flame.named.dom"

# 5. fwpt's own image in the first boot's trace (fwpt_target_call, around the call; a root-level part of the trace,
#    so in the listing only): BOOTX64 with build/fwpt.so, matched by its code (the name differs); then with a stale
#    build of it: the warning, and every byte of stdout as without --symbols.
p=$work/probe/fwpt
n_img=$(images "$p")
# the first byte of .text where the two builds differ (ELF address = offset in the image: docs/symbols.md)
first=$("$PY" - "$B/fwpt.so" "$B/tests/fwpt-stale.so" <<'PY'
import subprocess, sys
def text(f):
    for l in subprocess.run(["objdump", "-h", "-w", f], capture_output=True, text=True).stdout.splitlines():
        p = l.split()
        if len(p) > 6 and p[1] == ".text":
            data = open(f, "rb").read()
            return int(p[3], 16), data[int(p[5], 16):int(p[5], 16) + int(p[2], 16)]
(va, a), (vb, b) = text(sys.argv[1]), text(sys.argv[2])
d = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
print("0x%x" % (va + d[0]) if va == vb and len(a) == len(b) and d else "")
PY
)
if [ -n "$first" ]; then ok; else bad "fwpt.so and fwpt-stale.so: .text not the same size and place with a difference inside"; fi
for v in "profile|flow $p --profile --top 100" "calls|flow $p --calls --depth 1000" "listing|flow $p" \
    "listing-jsonl|flow $p --format jsonl"; do
    n=${v%%|*}
    # shellcheck disable=SC2086 # the command line is word-split on purpose
    host "own-$n.plain" ${v#*|}
    # shellcheck disable=SC2086
    host "own-$n.named" ${v#*|} --symbols "$B/fwpt.so"
    if [ "$rc" = 0 ]; then ok; else bad "fwpt ${v#*|} --symbols fwpt.so: exit $rc, $(head -c 300 "$h/own-$n.named.err")"; fi
    stderr_is "own-$n.named" "names: 1 of $n_img traced images matched (1 by code bytes; $((n_img - 1)) without a symbol file)"
    case $n in
    listing*) names_check "$n" "$B/fwpt.so" "$p/sideband.json" BOOTX64 "$h/own-$n.plain" "$h/own-$n.named" fwpt_target_call ;;
    *) if cmp -s "$h/own-$n.plain" "$h/own-$n.named"; then ok; else bad "fwpt ${v#*|} --symbols fwpt.so: BOOTX64 has no function entry in this trace, yet the output changed"; fi ;;
    esac
    # shellcheck disable=SC2086
    host "own-$n.stale" ${v#*|} --symbols "$B/tests/fwpt-stale.so"
    if [ "$rc" = 0 ]; then ok; else bad "fwpt ${v#*|} --symbols fwpt-stale.so: exit $rc, expected 0"; fi
    if cmp -s "$h/own-$n.plain" "$h/own-$n.stale"; then ok; else bad "fwpt ${v#*|} --symbols fwpt-stale.so: stdout differs from the one without --symbols"; fi
    stderr_is "own-$n.stale" "fwpt flow: symbols for BOOTX64 do not match the traced image: .text differs at +$first (stale build?): $B/tests/fwpt-stale.so
names: 0 of $n_img traced images matched ($n_img without a symbol file)"
done

# 6. README.md's examples over this run (out/names/fwpt), as the page writes them.
if out=$("$PY" "$here/tests/docs/check_examples.py" --names "$work/names/fwpt" --build "$B" "$here" 2>&1) &&
    grep -q '^note: names run: [1-9][0-9]* example blocks checked$' <<<"$out"; then
    ok
else
    bad "the examples over the names run differ from this run:"
fi
printf '%s\n' "$out" | sed 's/^/    /'
finish
