#!/usr/bin/env bash
# The boot trace end to end: `boot-trace install` writes fwpt's Driver#### option, the next boot's BdsDxe loads
# build/fwptdrv.efi from it (UEFI spec, "Load Option Processing"), the driver traces the boot to ReadyToBoot under
# backend=soft and writes \fwpt\boot\, and the boot goes on into the app. Under TCG, with --vars (the variables
# persist) and --boots/--then (run-qemu.sh's console marks each boot). Parts:
#   1. one-shot: the driver's lines in order, the app after it, the files, log.txt = the driver's console lines,
#      the host decode (`fwpt flow --profile`: the driver's instruction count, no error, no code missing), no
#      driver in the boot after;
#   2. an image that starts and is gone before ReadyToBoot (build/gonedrv.efi, a second Driver#### option written
#      into the store on the host by tests/qemu/varstore_add.py) is in the trace with the bytes it had;
#   3. keep: two traced boots, then `boot-trace remove` and the store as it was;
#   4. failures never stop the boot: an option line the driver refuses, a full volume.
# On Debian's OVMF and the EDK2 DEBUG build (its debug log must hold no ASSERT), each boot with a time limit.
# Prints "boot-trace: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" boot-trace
need "$B/fwpt.efi" "$B/fwptdrv.efi" "$B/fwpt" "$B/gonedrv.efi" "$B/gonedrv.so"
firmwares
vs() { python3 "$here/tests/qemu/varstore.py" "$@"; }
vadd() { python3 "$here/tests/qemu/varstore_add.py" "$@"; }
# FWPT_KEEP_WORK=1 keeps the scratch directory (the consoles, stores and copied files) and says where it is
if [ -n "${FWPT_KEEP_WORK:-}" ]; then trap - EXIT; echo "boot-trace: the scratch directory: $work"; fi
STEPS=200000
# part 2: BdsDxe connects the disk and loads the second driver option before it starts it, so the test driver runs
# long after the driver's entry returns: these limits leave about a quarter more steps than the start measured on
# each firmware (docs/testing.md); listing=1000 keeps flow.txt small
gone_steps() { if [ "$1" = debug ]; then echo "${FWPT_GONE_STEPS:-1600000}"; else echo "${FWPT_GONE_STEPS:-1300000}"; fi; }
LIMIT=240 # seconds, each boot

# run FW NAME ARGS...: run-qemu.sh under TCG on firmware FW with a store of its own ($work/NAME.vars unless ARGS give
# --vars); console (cleaned) in $work/NAME.out, files in $work/NAME/fwpt, exit status in rc, seconds in secs.
run() {
    local fw=$1 name=$2 t0=$SECONDS dbg=()
    shift 2
    mkdir -p "$work/tmp"
    [ "$fw" = debug ] && dbg=(--debug-log "$work/$name.debug")
    [[ " $* " == *" --vars "* ]] || set -- --vars "$work/$name.vars" "$@"
    if [ "$fw" = debug ]; then export OVMF=$OVMF_DEBUG; else unset OVMF; fi
    TMPDIR="$work/tmp" "$here/run-qemu.sh" --no-build --build "$B" --accel tcg --timeout $LIMIT "${dbg[@]}" \
        --out "$work/$name" "$@" 2>&1 | console_clean >"$work/$name.out"
    rc=${PIPESTATUS[0]}
    unset OVMF
    secs=$((SECONDS - t0))
    echo "run $name ($*): exit $rc, $secs s"
    [ "$fw" = debug ] && debug_clean "$name"
}
# boot NAME K: the console of boot K of run NAME (from run-qemu's line naming it to its app status line; a run of one
# boot names none: all of it)
boot() {
    if ! grep -q '^run-qemu: boot 1 of ' "$work/$1.out"; then [ "$2" = 1 ] && cat "$work/$1.out"; return; fi
    awk -v k="$2" '$0 ~ "^run-qemu: boot " k " of [0-9]+[;:] " && !on && !done { on = 1 }
        on { print } on && $0 ~ "^run-qemu: boot " k " of [0-9]+: app status" { on = 0; done = 1 }' "$work/$1.out"
}
# has NAME K LINE: boot K of run NAME holds LINE (a whole line)
has() { if boot "$1" "$2" | grep -qxF -- "$3"; then ok; else bad "$1 boot $2: no line '$3'"; fi; }
hasnt() { if ! boot "$1" "$2" | grep -qF -- "$3"; then ok; else bad "$1 boot $2: '$3' is there: $(boot "$1" "$2" | grep -m1 -F -- "$3")"; fi; }
# in_order NAME K LINE...: each LINE (a whole line; * matches any text) in boot K, in this order
in_order() {
    local name=$1 k=$2
    shift 2
    if boot "$name" "$k" | python3 -c '
import fnmatch, sys
want, lines, i = sys.argv[1:], sys.stdin.read().split("\n"), 0
for w in want:
    m = (lambda l: fnmatch.fnmatchcase(l, w)) if "*" in w else (lambda l: l == w)
    while i < len(lines) and not m(lines[i]):
        i += 1
    if i == len(lines):
        sys.exit(f"    not found after the lines before it: {w!r}")
    i += 1' "$@" 2>"$work/order.err"; then ok; else bad "$name boot $k: the lines are not there in order"; cat "$work/order.err"; fi
}
exit_is() { if [ "$rc" = "$2" ]; then ok; else bad "$1: exit $rc, expected $2"; grep -a '^run-qemu:' "$work/$1.out" | sed 's/^/    /'; fi; }
var_is() { # NAME STORE VAR HEX|absent
    local got
    got=$(vs "$2" "$3") || got=absent
    if [ "$got" = "$4" ]; then ok; else bad "$1: $3 in the store is $got, expected $4"; fi
}
# the driver's instruction count ("flow: N instructions, 0 decode errors; top modules:") in boot K of NAME
flow_n() { boot "$1" "$2" | sed -n 's/^flow: \([0-9]*\) instructions, 0 decode errors; top modules:$/\1/p' | head -n1; }

# host_checks NAME DIR N: the host tool on the copied \fwpt\boot: `fwpt flow --profile` decodes N instructions, exit
# 0, nothing on stderr (no decode error, no image without code); sideband.json's target is "boot" and each of its
# images has its file; report.html is the page of target boot
host_checks() {
    local name=$1 d=$2 n=$3
    "$B/fwpt" flow "$d" --profile --top 1000 >"$work/$name.prof" 2>"$work/$name.prof.err"
    local frc=$?
    if [ $frc = 0 ] && [ ! -s "$work/$name.prof.err" ]; then ok; else
        bad "$name: fwpt flow --profile: exit $frc, stderr: $(head -c 400 "$work/$name.prof.err")"
    fi
    if [ -n "$n" ] && grep -qxF "instructions per module ($n in all)" "$work/$name.prof"; then ok; else
        bad "$name: the host decoded '$(head -n1 "$work/$name.prof")', the driver printed 'flow: $n instructions'"
    fi
    if python3 - "$d" >"$work/$name.sb.err" 2>&1 <<'PY'; then ok; else bad "$name: sideband.json: $(cat "$work/$name.sb.err")"; fi
import json, os, sys
d = sys.argv[1]
sb = json.load(open(os.path.join(d, "sideband.json")))
if sb["target"]["name"] != "boot":
    sys.exit(f"target {sb['target']['name']!r}, expected 'boot'")
if not sb["images"]:
    sys.exit("no images")
for im in sb["images"]:
    f = os.path.join(d, im["file"] or "")
    if not im["file"] or not os.path.isfile(f) or os.path.getsize(f) != int(im["size"], 16):
        sys.exit(f"image {im['name']} at {im['base']}: no file {im['file']!r} of {int(im['size'], 16)} bytes")
PY
    if grep -qF '<title>fwpt report: boot</title>' "$d/report.html"; then ok; else bad "$name: report.html is not the page of target boot"; fi
}

# timeline_checks NAME DIR N [K]: `fwpt flow DIR --images` (the boot timeline) against the trace itself: the images'
# self instructions add up to N; the first is fwptdrv (the trace starts at the driver's return) with the first
# instruction; each image's first instruction is where the plain listing first shows its module, in that order, and
# every module of the listing is in the timeline; each image is one of sideband.json's, with its code file; "with
# callees" is at least self. K: the number of images the text view's header must name (its first line).
timeline_checks() {
    local name=$1 d=$2 n=$3
    "$B/fwpt" flow "$d" --images --format jsonl --top 3 >"$work/$name.tl" 2>"$work/$name.tl.err" &&
        "$B/fwpt" flow "$d" --no-disasm >"$work/$name.list" 2>>"$work/$name.tl.err"
    local frc=$?
    if [ $frc = 0 ] && [ ! -s "$work/$name.tl.err" ]; then ok; else
        bad "$name: fwpt flow --images / the listing: exit $frc, stderr: $(head -c 400 "$work/$name.tl.err")"
    fi
    if python3 - "$d" "$work/$name.tl" "$work/$name.list" "$n" >"$work/$name.tl.why" 2>&1 <<'PY'; then ok; else bad "$name: --images: $(cat "$work/$name.tl.why")"; fi
import json, os, re, sys
d, tl, listing, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [json.loads(l) for l in open(tl)]
head = [r for r in rows if r["type"] == "timeline"]
ims = [r for r in rows if r["type"] == "image"]
if len(head) != 1 or head[0]["insns"] != n:
    sys.exit(f"the header says {head[0]['insns'] if head else '?'} instructions, the driver decoded {n}")
if sum(r["self"] for r in ims) != n:
    sys.exit(f"the images' self instructions add up to {sum(r['self'] for r in ims)}, not {n}")
if not ims or ims[0]["module"] != "fwptdrv" or ims[0]["first_insn"] != 0 or ims[0]["order"] != 1:
    sys.exit(f"the first image is {ims[0] if ims else None}, not fwptdrv at instruction 0")
for r in ims:
    if r["with_callees"] < r["self"]:
        sys.exit(f"{r['module']}: with callees {r['with_callees']} < self {r['self']}")
# the listing: one line per instruction, "0xADDR  Module+0xOFF ..."; events start with "--"
first, k = {}, 0
for line in open(listing):
    m = re.match(r"0x[0-9a-f]+\s+(\S+?)\+0x[0-9a-f]+\s", line)
    if not m:
        continue
    first.setdefault(m.group(1), k)
    k += 1
if k != n:
    sys.exit(f"the listing has {k} instructions, not {n}")
got = [(r["module"], r["first_insn"]) for r in ims]
want = sorted(first.items(), key=lambda kv: kv[1])
if got != want:
    sys.exit(f"first-run order {got[:6]}... differs from the listing's first instructions {want[:6]}...")
sb = {(im["name"], int(im["base"], 16)) for im in json.load(open(os.path.join(d, "sideband.json")))["images"]}
for r in ims:
    if (r["module"], int(r["base"], 16)) not in sb:
        sys.exit(f"{r['module']} at {r['base']} is not an image of sideband.json")
PY
    if [ -n "${4:-}" ]; then
        "$B/fwpt" flow "$d" --images --top 1 2>/dev/null | head -n 1 >"$work/$name.tl.head"
        if grep -q "^images in the order they first ran: [0-9]* of [0-9]* images, $n instructions; time: none" \
            "$work/$name.tl.head"; then ok; else bad "$name: the text view's header: $(cat "$work/$name.tl.head")"; fi
    fi
}

# ---- the parts; each takes the firmware (release|debug) ----

part_oneshot() {
    local fw=$1 n=p1-$fw
    run $fw $n --boots 3 --then 'boot-trace status shutdown' --then 'boot-trace status shutdown' -- \
        boot-trace install backend=soft steps=$STEPS verify shutdown
    part_secs=$secs
    exit_is $n 0
    has $n 1 "boot-trace install: wrote DriverOrder: 0000 (was: not set)"
    has $n 1 "boot-trace install: read back Driver0000 and DriverOrder: as written"
    local N
    N=$(flow_n $n 2)
    in_order $n 2 "fwptdrv * - the boot trace of fwpt" \
        "fwptdrv: options (LoadOptions): backend=soft steps=$STEPS verify" \
        "boot-trace: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder" \
        "fwptdrv: one-shot: 1 Driver#### option removed (install with keep to trace every boot)" \
        "trace: target boot (BDS from here to ReadyToBoot)" \
        "fwptdrv: tracing the boot to ReadyToBoot" \
        "fwptdrv: ReadyToBoot: the end of the boot trace" \
        "trace: ended because: the step limit was reached; *" \
        "flow: ${N:-?} instructions, 0 decode errors; top modules:" \
        "verified: ${N:-?} instructions decoded = single-stepped (all that was stepped before the step limit)" \
        "verify: passed (all that was stepped before the step limit)" \
        'file: wrote \fwpt\boot\trace.pt (*' \
        'file: wrote \fwpt\boot\sideband.json (*' \
        'file: wrote \fwpt\boot\report.html (*' \
        'fwptdrv: boot trace status EFI_SUCCESS (0x0); files in \fwpt\boot; the boot goes on' \
        'file: wrote \fwpt\boot\log.txt (*' \
        "fwpt * - Intel Processor Trace for UEFI firmware" \
        'options (\fwpt\fwpt.cfg): boot-trace status shutdown' \
        "boot-trace: fwpt's driver option: none" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    hasnt $n 2 "file: FAILED"
    # no other driver started while it traced: no images line
    hasnt $n 2 "images: "
    # log.txt: the driver's console lines, from its first to "the boot goes on", byte for byte, but the progress
    # lines ("soft: 5 s: ...", "flow: 5 s: ..."), which go to the console only
    local d=$work/$n/fwpt/boot
    boot $n 2 | sed -n '/^fwptdrv .* - the boot trace of fwpt$/,/^fwptdrv: boot trace status .*; the boot goes on$/p' |
        grep -vE '^[a-z]+: [0-9]+ s: ' >"$work/$n.drv"
    if [ -s "$work/$n.drv" ] && tr -d '\r' <"$d/log.txt" | cmp -s - "$work/$n.drv"; then ok; else
        bad "$n: log.txt is not the driver's console lines ($(wc -l <"$work/$n.drv") lines on the console, $(wc -l <"$d/log.txt" 2>/dev/null) in log.txt)"
    fi
    local f
    for f in trace.pt packets.txt flow.txt sideband.json flame.svg report.html log.txt; do
        if [ -s "$d/$f" ]; then ok; else bad "$n: no boot/$f came back"; fi
    done
    host_checks $n "$d" "$N"
    timeline_checks $n "$d" "$N" 2
    # boot 3: no driver ran, nothing installed
    hasnt $n 3 "fwptdrv"
    in_order $n 3 'options (\fwpt\fwpt.cfg): boot-trace status shutdown' \
        "boot-trace: DriverOrder: not set (no driver options in the order)" \
        "boot-trace: no driver options (no Driver#### variable)" \
        "boot-trace: fwpt's driver option: none" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    var_is $n "$work/$n.vars" DriverOrder absent
    var_is $n "$work/$n.vars" Driver0000 absent
}

part_gone() {
    local fw=$1 n=p2-$fw
    run $fw $n-1 --vars "$work/$n.vars" -- boot-trace install backend=soft steps=$(gone_steps $fw) listing=1000 verify shutdown
    part_secs=$secs
    exit_is $n-1 0
    # a second driver option after fwpt's, written into the store between the boots: its device path is
    # Driver0000's up to the file path node (the same disk), then \fwpt\gonedrv.efi
    local like opt
    like=$(vs "$work/$n.vars" Driver0000) || like=""
    if opt=$(vadd --load-option "fwpt test: gonedrv" "$like" '\fwpt\gonedrv.efi') &&
        vadd "$work/$n.vars" Driver0001 "$opt" && vadd "$work/$n.vars" DriverOrder 00000100; then ok; else
        bad "$n: cannot add Driver0001 to the store (Driver0000: '$like')"
    fi
    var_is $n "$work/$n.vars" DriverOrder 00000100
    var_is $n "$work/$n.vars" Driver0001 "$opt"
    run $fw $n-2 --vars "$work/$n.vars" --copy "$B/gonedrv.efi=\\fwpt\\gonedrv.efi" -- boot-trace status shutdown
    part_secs=$((part_secs + secs))
    exit_is $n-2 0
    local N
    N=$(flow_n $n-2 1)
    in_order $n-2 1 "boot-trace: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder" \
        "fwptdrv: one-shot: 1 Driver#### option removed (install with keep to trace every boot)" \
        "fwptdrv: tracing the boot to ReadyToBoot" \
        "fwptdrv: ReadyToBoot: the end of the boot trace" \
        "images: 1 started while the trace ran (their code copied as they started), 1 of them no longer loaded" \
        "flow: ${N:-?} instructions, 0 decode errors; top modules:" \
        "verify: passed (all that was stepped before the step limit)" \
        'fwptdrv: boot trace status EFI_SUCCESS (0x0); files in \fwpt\boot; the boot goes on' \
        'options (\fwpt\fwpt.cfg): boot-trace status shutdown' \
        "boot-trace: DriverOrder: 1 entry: 0001" \
        "boot-trace: fwpt's driver option: none" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    # the one-shot removal left the other option: DriverOrder is 0001 alone
    var_is $n "$work/$n.vars" DriverOrder 0100
    var_is $n "$work/$n.vars" Driver0000 absent
    local d=$work/$n-2/fwpt/boot
    host_checks $n-2 "$d" "$N"
    # the profile names the image and its function gonedrv_checksum (at its offset in build/gonedrv.so), called once
    local off
    off=$(nm "$B/gonedrv.so" | sed -n 's/^0*\([0-9a-f]*\) t gonedrv_checksum$/\1/p')
    if grep -qE "^ +[1-9][0-9]*  gonedrv$" "$work/$n-2.prof"; then ok; else bad "$n-2: the profile has no module gonedrv: $(head -n 20 "$work/$n-2.prof")"; fi
    # its instructions as objdump counts them: those before the loop, gonedrv_rounds (64) times the loop's, the ret
    local want
    want=$(objdump -d --no-show-raw-insn "$B/gonedrv.so" | sed -n '/<gonedrv_checksum>:/,/^$/p' | python3 -c '
import re, sys
rows = re.findall(r"^ *([0-9a-f]+):\t(\S+)(?:\s+([0-9a-f]+) <)?", sys.stdin.read(), re.M)
rows = [(int(a, 16), op, int(t, 16) if t else None) for a, op, t in rows]
jne = [(a, t) for a, op, t in rows if op == "jne" and t is not None and t < a]
if len(jne) != 1:
    sys.exit(1)
end, head = jne[0]
before = sum(1 for a, _, _ in rows if a < head)
body = sum(1 for a, _, _ in rows if head <= a <= end)
print(before + 64 * body + 1)')
    if [ -n "$off" ] && [ -n "$want" ] && grep -qE "^ +$want +1  0x[0-9a-f]+  gonedrv\+0x$off$" "$work/$n-2.prof"; then ok; else
        bad "$n-2: the profile has no entry gonedrv+0x$off (gonedrv_checksum) with ${want:-?} instructions (objdump: the loop 64 times) and 1 call"
    fi
    # the timeline: gonedrv ran, named, with its own instructions, entered from DxeCore (StartImage calls its entry)
    timeline_checks $n-2 "$d" "$N"
    if python3 - "$work/$n-2.tl" "$work/$n-2.prof" >"$work/$n.tlg.err" 2>&1 <<'PY'; then ok; else bad "$n-2: --images: $(cat "$work/$n.tlg.err")"; fi
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
g = [r for r in rows if r["type"] == "image" and r["module"] == "gonedrv"]
m = re.search(r"^ +([0-9]+)  gonedrv$", open(sys.argv[2]).read(), re.M)
if len(g) != 1 or not m or g[0]["self"] != int(m.group(1)):
    sys.exit(f"gonedrv in the timeline: {g}, in the profile: {m.group(1) if m else None} instructions")
if not any(r["type"] == "image_entry" and r["module"] == "gonedrv" and r["caller_module"] == "DxeCore" for r in rows):
    sys.exit("no call from DxeCore entered gonedrv")
PY
    # its img file holds the bytes it had when it started: SizeOfImage bytes, its code (.text: no relocation in it)
    # as in the PE file, the entry point's bytes first
    if python3 - "$d" "$B/gonedrv.efi" >"$work/$n.img.err" 2>&1 <<'PY'; then ok; else bad "$n-2: $(cat "$work/$n.img.err")"; fi
import json, os, struct, sys
d, pe = sys.argv[1], open(sys.argv[2], "rb").read()
ims = [im for im in json.load(open(os.path.join(d, "sideband.json")))["images"] if im["name"] == "gonedrv"]
if len(ims) != 1:
    sys.exit(f"{len(ims)} images named gonedrv in sideband.json")
img = open(os.path.join(d, ims[0]["file"]), "rb").read()
e = struct.unpack_from("<I", pe, 0x3C)[0]
nsec, opt = struct.unpack_from("<HH", pe, e + 6)[0], struct.unpack_from("<H", pe, e + 20)[0]
entry, size_of_image = struct.unpack_from("<I", pe, e + 24 + 16)[0], struct.unpack_from("<I", pe, e + 24 + 56)[0]
if len(img) != size_of_image:
    sys.exit(f"{ims[0]['file']}: {len(img)} bytes, the PE's SizeOfImage is {size_of_image}")
text = None
for i in range(nsec):
    s = e + 24 + opt + 40 * i
    name = pe[s:s + 8].rstrip(b"\0").decode()
    vsize, va, rsize, raw = struct.unpack_from("<IIII", pe, s + 8)
    if name == ".text":
        text = (va, raw, min(vsize, rsize))
if not text or not text[0] <= entry < text[0] + text[2]:
    sys.exit(f"no .text section holding the entry point {entry:#x} in {sys.argv[2]}")
va, raw, n = text
if img[entry:entry + 16] != pe[raw + entry - va:raw + entry - va + 16]:
    sys.exit(f"{ims[0]['file']}: the 16 bytes at the entry point +{entry:#x} are {img[entry:entry + 16].hex()}, "
             f"the PE file's {pe[raw + entry - va:raw + entry - va + 16].hex()}")
if img[va:va + n] != pe[raw:raw + n]:
    sys.exit(f"{ims[0]['file']}: .text ({n} bytes at +{va:#x}) differs from the PE file's")
PY
}

part_keep() {
    local fw=$1 n=p3-$fw
    run $fw $n --boots 3 --then 'boot-trace status shutdown' --then 'boot-trace remove shutdown' -- \
        boot-trace install backend=soft steps=50000 keep shutdown
    part_secs=$secs
    exit_is $n 0
    has $n 1 "boot-trace install: wrote DriverOrder: 0000 (was: not set)"
    local k
    for k in 2 3; do
        in_order $n $k "fwptdrv: options (LoadOptions): backend=soft steps=50000 keep" \
            "fwptdrv: keep: its Driver#### option stays (\`boot-trace remove\` ends it)" \
            "fwptdrv: tracing the boot to ReadyToBoot" \
            "fwptdrv: ReadyToBoot: the end of the boot trace" \
            'fwptdrv: boot trace status EFI_SUCCESS (0x0); files in \fwpt\boot; the boot goes on' \
            "fwpt * - Intel Processor Trace for UEFI firmware" \
            "fwpt: exit status EFI_SUCCESS (0x0)"
        hasnt $n $k "one-shot"
    done
    has $n 2 "boot-trace: DriverOrder: 1 entry: 0000"
    has $n 2 "boot-trace: fwpt's driver option: installed"
    in_order $n 3 'options (\fwpt\fwpt.cfg): boot-trace remove shutdown' \
        "boot-trace remove: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder" \
        "boot-trace remove: DriverOrder deleted: it named only fwpt's option (empty and absent are the same to the boot manager)" \
        "boot-trace remove: the next boot loads no fwpt driver" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    host_checks $n "$work/$n/fwpt/boot" "$(flow_n $n 3)"
    # DriverOrder as it was before the install: not set
    var_is $n "$work/$n.vars" DriverOrder absent
    var_is $n "$work/$n.vars" Driver0000 absent
}

part_refused() {
    local fw=$1 n=p4a-$fw
    run $fw $n --boots 2 --then 'boot-trace status shutdown' -- boot-trace install test-unchecked bogus=1 shutdown
    part_secs=$secs
    exit_is $n 0
    in_order $n 2 "fwptdrv: options (LoadOptions): bogus=1" \
        "boot-trace: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder" \
        "fwptdrv: one-shot: 1 Driver#### option removed (install with keep to trace every boot)" \
        "fwptdrv: error: unknown option 'bogus=1' (see 'help')" \
        "fwptdrv: the boot goes on untraced" \
        "fwptdrv: ReadyToBoot: the end of the boot trace" \
        "fwptdrv: nothing traced: its options were refused (see log.txt); the boot goes on" \
        'file: wrote \fwpt\boot\log.txt (*' \
        "fwpt * - Intel Processor Trace for UEFI firmware" \
        "boot-trace: fwpt's driver option: none" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    hasnt $n 2 "tracing the boot"
    if grep -qxF "fwptdrv: error: unknown option 'bogus=1' (see 'help')" <(tr -d '\r' <"$work/$n/fwpt/boot/log.txt"); then ok; else
        bad "$n: log.txt does not hold the error"
    fi
    if [ ! -e "$work/$n/fwpt/boot/trace.pt" ]; then ok; else bad "$n: a trace.pt was written"; fi
    var_is $n "$work/$n.vars" DriverOrder absent
    var_is $n "$work/$n.vars" Driver0000 absent
}

part_full() {
    local fw=$1 n=p4b-$fw free
    # a 34 MiB disk with a filler file that leaves 256 KiB: the app's small files fit, the trace's do not
    if [ -z "${filler:-}" ]; then
        printf 'x\n' >"$work/probe.cfg"
        FWPT_IMG_MB=34 "$here/tools/mkimage.sh" fat "$work/probe.img" "$B/fwpt.efi" "$work/probe.cfg" >/dev/null
        free=$(MTOOLS_SKIP_CHECK=1 mdir -i "$work/probe.img" ::/ | sed -n 's/^ *\([0-9 ]*\) bytes free$/\1/p' | tr -d ' ')
        if ! [[ "$free" =~ ^[0-9]+$ ]] || [ "$free" -le 262144 ]; then
            bad "$n: NOT RUN: the free space of a 34 MiB disk made by tools/mkimage.sh is '$free' bytes (mdir)"
            return
        fi
        filler=$work/filler.bin
        head -c $((free - 262144)) /dev/zero >"$filler"
        rm -f "$work/probe.img"
    fi
    FWPT_IMG_MB=34 run $fw $n --boots 2 --then 'boot-trace status shutdown' --copy "$filler=\\filler.bin" -- \
        boot-trace install backend=soft steps=50000 shutdown
    part_secs=$secs
    exit_is $n 0
    in_order $n 2 "fwptdrv: tracing the boot to ReadyToBoot" \
        "fwptdrv: ReadyToBoot: the end of the boot trace" \
        'file: FAILED *' \
        "fwptdrv: boot trace status *; the files were NOT all written; the boot goes on" \
        "fwpt * - Intel Processor Trace for UEFI firmware" \
        "boot-trace: fwpt's driver option: none" \
        "fwpt: exit status EFI_SUCCESS (0x0)"
    var_is $n "$work/$n.vars" Driver0000 absent
}

# test_boot_trace.sh [PART...] runs those parts only (oneshot gone keep refused full); FWPT_FIRMWARES=release|debug
# one firmware only
parts=${*:-oneshot gone keep refused full}
FIRMWARES=${FWPT_FIRMWARES:-$FIRMWARES}
for fw in $FIRMWARES; do
    fw_label=$fw
    t0=$SECONDS times=""
    for p in $parts; do
        # on Debian's OVMF the one-shot trace only; the rest on the DEBUG build (its debug log shows a firmware left
        # in a bad state, and it clears freed memory: an image gone by ReadyToBoot has only its copy), which keeps
        # the test near 3 minutes; all of it on Debian's OVMF when there is no DEBUG build
        case $p in oneshot) ;; *) [ $fw = debug ] || [ "$FIRMWARES" = release ] || continue ;; esac
        part_$p $fw
        times="$times $p $part_secs s,"
    done
    echo "time on $fw:${times%,}: $((SECONDS - t0)) s in all"
done
fw_label=""
finish
