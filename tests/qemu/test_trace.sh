#!/usr/bin/env bash
# `trace TARGET` end to end in QEMU/TCG. Without PT (the hardware backend under TCG) it must end
# cleanly with the reason and EFI_UNSUPPORTED. With the software backend (backend=soft: a CPU
# profile, the output model, single-stepping) the whole path runs: plan, ToPA, MSR sequence,
# target, readback, packet + flow decode in firmware, files; the decoded flow is verified against
# the single-stepped ground truth, and the saved files decode on the host to the same result.
# Every boot runs on both firmwares (lib.sh firmwares): Debian's OVMF and the EDK2 DEBUG build, whose debug log must
# hold no ASSERT and no FATAL ERROR (one check per boot); a target called above its allowed TPL on purpose
# (test-raise-tpl) must be caught by that check. FWPT_QEMU_SLOW=1 adds the whole load-image.
# Prints "qemu-trace: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-trace
need "$B/fwpt.efi" "$B/fwpt" "$B/hello.efi"

# NAME CPU [run-qemu options --] APP-OPTIONS...: on firmware $fw, then its debug log checked (DEBUG firmware)
boot() { boot_fw "$fw" 240 "$@"; debug_clean "$1"; }
has() { if grep -qxF -- "$2" "$work/$1.log"; then ok; else bad "$1: no line '$2'"; grep -a -E '^(trace|target|verif|fwpt:|plan)' "$work/$1.log" | sed 's/^/    /'; fi; }
has_re() { if grep -qaE -- "$2" "$work/$1.log"; then ok; else bad "$1: nothing matches /$2/"; fi; }
rc_is() { if [ "$rc" = "$2" ]; then ok; else bad "$1: exit $rc, expected $2"; tail -n 3 "$work/$1.err"; fi; }
file_ok() { if [ -s "$work/$1/fwpt/$2" ]; then ok; else bad "$1: no $2 copied out of the image"; fi; }

# sideband NAME: sideband.json parses; every image listed has its img file with exactly its size;
# prints "name base size" per image for further checks
sideband() {
    python3 - "$work/$1/fwpt" <<'PY'
import json, os, sys
d = sys.argv[1]
sb = json.load(open(os.path.join(d, "sideband.json")))
for k in ("cpu", "caps", "cpuid_15h", "max_nonturbo_ratio", "ctl", "settings", "target", "trace", "images", "memory", "loaded_images"):
    assert k in sb, "missing key " + k
assert sb["trace"]["bytes"] == os.path.getsize(os.path.join(d, "trace.pt")), "trace.bytes != size of trace.pt"
assert sb["images"], "no images"
for im in sb["images"]:
    f = os.path.join(d, im["file"])
    assert im["file"] == "img-%x.bin" % int(im["base"], 16), im["file"]
    assert os.path.getsize(f) == int(im["size"], 16), f + " size"
    print(im["name"], im["base"], im["size"])
assert len(sb["memory"]) == len(sb["images"])
assert len(sb["loaded_images"]) >= len(sb["images"])
PY
}

# 1. The hardware backend under TCG (no PT) is checked by test_boot_cpus.sh (qemu64 and
#    max,vendor=GenuineIntel boots run `trace`).

# tpl_ok NAME: the target was called at the application's TPL and the stepped call kept the timer off, not the TPL up;
# after the run (steps= runs too) GetTimerPeriod reads the period of before the stepped call
tpl_ok() {
    has "$1" 'target: called at TPL_APPLICATION (4)'
    has "$1" 'soft: the timer interrupt was off while stepping (EFI_TIMER_ARCH_PROTOCOL period 10000 us, restored after); the TPL was not raised'
    has "$1" 'soft: timer after the run: EFI_TIMER_ARCH_PROTOCOL period 10000 us, as before the stepped call'
}

work_root=$work
firmwares
for fw in $FIRMWARES; do
fw_label=$fw
work=$work_root/$fw
mkdir -p "$work"
echo "--- firmware: $fw"

# 2. Software backend, whole call, verified; host decode of the saved files agrees.
boot soft max -- trace locate-handle backend=soft profile=skylake verify quiet shutdown
rc_is soft 0
has soft 'trace: backend soft (single-step), CPU profile skylake'
tpl_ok soft
has_re soft '^target: locate-handle -> BS->LocateHandleBuffer at DxeCore\+0x[0-9a-f]+$'
has_re soft '^target: locate-handle returned EFI_SUCCESS \(0x0\), [0-9]+ handles$'
has soft 'scheme:      ToPA (multiple entries)'
has soft 'trace: IA32_RTIT_CTL 0x2105'
has soft 'topa: restricted memory checked: APIC page yes, SMRR not reported, MTRRs yes (8 variable, fixed)'
has_re soft '^trace: [1-9][0-9]* bytes captured in 1 of 32 regions; '
has soft 'trace: ended because: the call returned; tracing disabled by software (TraceEn=0): every byte produced is kept'
has_re soft '^packets: psb=[1-9][0-9]* psbend=[1-9][0-9]* .*tip.pge=1 tip.pgd=1 .*errors=0$'
has_re soft '^flow: [1-9][0-9]* instructions, 0 decode errors; top modules:$'
has_re soft '^verified: [0-9]+ instructions decoded = single-stepped \(the whole call\)$'
# the soft CPU's CPUID 15H: one TSC tick per crystal clock tick, as its encoder keeps time (libipt needs it for MTC)
has_re soft '^  ptxed --cpu 6/94/3 --cpuid-0x15.eax 1 --cpuid-0x15.ebx 1 --pt trace.pt( --raw img-[0-9a-f]+\.bin:0x[0-9a-f]+)+$'
for f in caps.txt trace.pt packets.txt flow.txt sideband.json; do file_ok soft "$f"; done
if sideband soft >"$work/soft.images"; then ok; else bad "soft: sideband.json check failed"; fi
if grep -q '^DxeCore ' "$work/soft.images"; then ok; else bad "soft: DxeCore not among the traced images"; fi
if cmp -s <("$B/fwpt" dump "$work/soft/fwpt/trace.pt") "$work/soft/fwpt/packets.txt"; then ok; else bad "soft: fwpt dump trace.pt differs from packets.txt"; fi
n_fw=$(sed -n 's/^flow: \([0-9]*\) instructions.*/\1/p' "$work/soft.log")
n_host=$("$B/fwpt" flow "$work/soft/fwpt" --profile 2>/dev/null | sed -n 's/^instructions per module (\([0-9]*\) in all)$/\1/p')
if [ -n "$n_fw" ] && [ "$n_fw" = "$n_host" ]; then ok; else bad "soft: firmware decoded '$n_fw' instructions, host fwpt flow '$n_host'"; fi
# flow.txt: the firmware's listing equals the host's (no disassembly), and so does its module profile
flow_listing "$work/soft/fwpt/flow.txt" >"$work/soft.listing"
"$B/fwpt" flow "$work/soft/fwpt" --no-disasm >"$work/soft.hostflow" 2>/dev/null
if [ -s "$work/soft.listing" ] && cmp -s "$work/soft.listing" "$work/soft.hostflow"; then ok; else bad "soft: flow.txt listing empty or differs from host fwpt flow --no-disasm"; fi
# the host's listing (render/flow_list) = the event-at-a-time printer's (--slow-print), text and jsonl, Zydis on and off
for f in "" "--no-disasm" "--format jsonl" "--format jsonl --no-disasm"; do
    # shellcheck disable=SC2086 # $f is word-split on purpose
    if "$B/fwpt" flow "$work/soft/fwpt" $f >"$work/soft.fast" 2>&1 && "$B/fwpt" flow "$work/soft/fwpt" $f --slow-print >"$work/soft.slow" 2>&1 &&
        [ -s "$work/soft.fast" ] && cmp -s "$work/soft.fast" "$work/soft.slow"; then ok; else bad "soft: fwpt flow $f differs from fwpt flow $f --slow-print"; fi
done
if ! grep -qaE '^(soft|soft record|flow|packets): [0-9]+ s: ' "$work/soft.log"; then ok; else bad "soft: progress lines with quiet"; fi
# flow.txt's function list is its top 50 (the host's default is 40; the DEBUG build's locate-handle has more)
if cmp -s <(sed -n '1,/^instructions per function entry/p' "$work/soft/fwpt/flow.txt") \
    <("$B/fwpt" flow "$work/soft/fwpt" --profile --top 50 2>/dev/null | sed -n '1,/^instructions per function entry/p'); then ok; else bad "soft: flow.txt module profile differs from host fwpt flow --profile"; fi
# libipt (the oracle) decodes the same saved files to the same number of instructions
px=$B/tests/soft_ptxed
[ -x "$px" ] || { px=$work/soft_ptxed; gcc -std=c11 -D_DEFAULT_SOURCE -O2 -I"$here" -o "$px" "$here/tests/qemu/soft/soft_ptxed.c" -lipt; }
n_ipt=$("$px" --ips "$work/soft/fwpt" 2>/dev/null | wc -l)
if [ -n "$n_fw" ] && [ "$n_ipt" = "$n_fw" ]; then ok; else bad "soft: libipt decoded $n_ipt instructions, the firmware $n_fw"; fi
n_ver=$(sed -n 's/^verified: \([0-9]*\) instructions.*/\1/p' "$work/soft.log")
if [ -n "$n_ver" ] && [ "$n_fw" = "$n_ver" ]; then ok; else bad "soft: flow $n_fw != verified $n_ver"; fi

# 3. filter=target: ADDR0 = the image implementing RT->GetVariable, and only it is traced. The same boot runs
#    boot-trace status first: a fresh OVMF (variables in RAM, none kept) holds no DriverOrder and no Driver####.
boot filter max -- boot-trace status trace get-variable backend=soft filter=target verify quiet shutdown
rc_is filter 0
has filter 'boot-trace: DriverOrder: not set (no driver options in the order)'
has filter 'boot-trace: no driver options (no Driver#### variable)'
has filter "boot-trace: fwpt's driver option: none"
has filter 'boot-trace: the first free number: Driver0000'
tpl_ok filter
has_re filter '^target: get-variable -> RT->GetVariable at VariableRuntimeDxe\+0x[0-9a-f]+$'
has_re filter '^target: get-variable returned EFI_SUCCESS \(0x0\), BootOrder is [1-9][0-9]* bytes$'
has_re filter '^verified: [0-9]+ instructions decoded = single-stepped'
range=$(sed -n 's/^trace: IA32_RTIT_CTL 0x100002105, ADDR0 filter \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)$/\1 \2/p' "$work/filter.log")
sideband filter >"$work/filter.images" 2>/dev/null
vrd=""
if read -r _ vb vs < <(grep '^VariableRuntimeDxe ' "$work/filter.images"); then
    vrd=$(printf '%s 0x%x' "$vb" $((vb + vs - 1)))
fi
if [ -n "$range" ] && [ "$range" = "$vrd" ]; then ok; else bad "filter: ADDR0 '$range' is not VariableRuntimeDxe '$vrd'"; fi
top=$(sed -n '/^flow: .*top modules:$/,/^[^ ]/p' "$work/filter.log" | grep '^  ' | awk '{print $1}' | tr '\n' ' ')
if [ "$top" = "VariableRuntimeDxe " ]; then ok; else bad "filter: modules decoded: '$top'"; fi

# 4. A setting the profile lacks is refused by name; a ring smaller than the trace wraps and
#    the newest part is still verified.
if [ "$fw" = release ]; then # nothing is traced: the firmware does not matter
    boot refuse max -- trace locate-handle backend=soft profile=skylake ptwrite shutdown
    rc_is refuse 3
    has refuse 'trace: refused: PTWEn needs the capability ptwrite: PTWRITE is not enumerated'
fi
boot ring max -- trace memory-map backend=soft profile=broadwell size=4K ring verify quiet shutdown
rc_is ring 0
has ring 'scheme:      ToPA (single output region)'
has_re ring '^trace: 4096 bytes captured in 1 of 1 regions; '
has_re ring '^verified: [0-9]+ instructions'

# 5. read-file: the FAT driver's Open raises the TPL to TPL_CALLBACK itself (a DEBUG DxeCore ASSERTs if the caller's
#    TPL is higher). On Debian's OVMF, progress: a line every second (progress=1) of single-stepping (about 450000
#    steps, seconds under TCG), written to COM1 from the #DB handler; on the console only, never in the files. On the
#    DEBUG build (whose FAT driver takes five times as long) a short file.
if [ "$fw" = release ]; then
    boot progress max -- trace read-file '\EFI\BOOT\BOOTX64.EFI' backend=soft progress=1 verify shutdown
    has_re progress '^soft: [1-9][0-9]* s: [1-9][0-9]* steps, [1-9][0-9]* trace bytes, [1-9][0-9]* instructions, [1-9][0-9]*/s$'
    if ! grep -qaE ': [0-9]+ s: ' "$work/progress/fwpt/flow.txt" "$work/progress/fwpt/packets.txt"; then ok; else bad "progress: progress lines in the files"; fi
    file='\EFI\BOOT\BOOTX64.EFI'
else
    boot progress max -- trace read-file '\fwpt\fwpt.cfg' backend=soft verify quiet shutdown
    file='\fwpt\fwpt.cfg'
fi
rc_is progress 0
tpl_ok progress
read_of=$(sed -n 's/^target: read-file returned EFI_SUCCESS (0x0), read [1-9][0-9]* bytes of //p' "$work/progress.log")
if [ "$read_of" = "$file" ]; then ok; else bad "progress: no 'target: read-file returned EFI_SUCCESS (0x0), read N bytes of $file'"; fi
has_re progress '^verified: [0-9]+ instructions decoded = single-stepped \(the whole call\)$'

# 6. The other targets, verified (load-image: build/hello.efi, built by make): allocate-pages whole; connect-all (DEBUG build) and load-image (about 1.6 M
#    instructions) with a step limit (the rest of the call runs untraced); FWPT_QEMU_SLOW=1 steps load-image whole.
boot alloc max -- trace allocate-pages backend=soft verify quiet shutdown
rc_is alloc 0
tpl_ok alloc
has_re alloc '^target: allocate-pages returned EFI_SUCCESS \(0x0\), 16 pages at 0x[0-9a-f]+, FreePages EFI_SUCCESS \(0x0\)$'
has_re alloc '^verified: [0-9]+ instructions decoded = single-stepped \(the whole call\)$'
if [ "$fw" = debug ]; then # on Debian's OVMF test_soft_trace.sh traces connect-all twice
    boot conn max -- trace connect-all backend=soft steps=100000 verify quiet shutdown
    rc_is conn 0
    tpl_ok conn
    has_re conn '^target: connect-all returned EFI_SUCCESS \(0x0\), [0-9]+ of [1-9][0-9]* handles connected$'
    has_re conn '^verified: [0-9]+ instructions decoded = single-stepped \(all that was stepped before the step limit\)$'
fi
load_steps=steps=100000 load_verified='all that was stepped before the step limit'
[ "${FWPT_QEMU_SLOW:-0}" = 1 ] && load_steps="" load_verified='the whole call'
boot load max --copy "$B/hello.efi=/fwpt/hello.efi" -- trace load-image '\fwpt\hello.efi' backend=soft $load_steps verify quiet shutdown
rc_is load 0
tpl_ok load
has_re load '^target: load-image returned EFI_SUCCESS \(0x0\), StartImage EFI status \(0x1234\), image at 0x[0-9a-f]+ size 0x[0-9a-f]+$'
has_re load '^flow: [1-9][0-9]* instructions, 0 decode errors'
has_re load "^verified: [0-9]+ instructions decoded = single-stepped \\($load_verified\\)\$"
if [ -n "$load_steps" ]; then ok; else
    base=$(sed -n 's/.*image at \(0x[0-9a-f]*\) size.*/\1/p' "$work/load.log")
    if sideband load | grep -q "^hello $base "; then ok; else bad "load: hello.efi at $base not among the traced images"; fi
fi
done
fw_label="" work=$work_root

# 7. The check works: on the DEBUG firmware, read-file called at TPL_NOTIFY on purpose (test-raise-tpl) makes DxeCore
#    print its FATAL ERROR when the FAT driver raises to TPL_CALLBACK, and the debug-log check that passed every boot
#    above must fail this one; run-qemu.sh's summary names it.
if [ -f "$OVMF_DEBUG" ]; then
    fw_label="debug, test-raise-tpl" work=$work_root/debug
    boot_fw debug 240 raise max -- trace read-file '\fwpt\fwpt.cfg' backend=soft verify quiet test-raise-tpl shutdown
    has raise 'target: called at TPL_APPLICATION (4); test-raise-tpl: the service runs at TPL_NOTIFY (16), above what the UEFI spec allows for most services'
    if (fail=0; debug_clean raise >/dev/null; [ "$fail" -gt 0 ]); then ok; else bad "raise: debug_clean passed a debug log with the TPL raised around read-file"; fi
    if grep -aqF 'FATAL ERROR - RaiseTpl with OldTpl(0x10) > NewTpl(0x8)' "$work/raise.debug"; then ok; else bad "raise: no 'FATAL ERROR - RaiseTpl with OldTpl(0x10) > NewTpl(0x8)' in the debug log"; fi
    if grep -qE '^run-qemu: the firmware.s debug log .*raise\.debug holds [1-9][0-9]* ASSERT or FATAL ERROR lines; the first: ' "$work/raise.err"; then ok; else bad "raise: run-qemu.sh's summary does not name the ASSERT"; fi
    fw_label="" work=$work_root
fi

finish
