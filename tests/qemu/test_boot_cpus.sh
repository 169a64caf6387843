#!/usr/bin/env bash
# QEMU/TCG smoke test: boots the real fwpt.efi under OVMF with several CPU models and checks the
# enumeration lines, the verdict and its reason, caps.txt against the console, the #GP catch of
# the hardware MSR backend, option errors, `trace` without PT, and one boot of the USB image.
# Prints "qemu-boot: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-boot
efi=$B/fwpt.efi
need "$efi"

# boot NAME CPU APP-OPTIONS... : see boot_tcg in lib.sh
boot() {
    local name=$1 cpu=$2
    shift 2
    boot_tcg 120 "$name" "$cpu" -- "$@"
}
# has NAME LINE: the console holds exactly this line
has() {
    if grep -qxF -- "$2" "$work/$1.log"; then ok; else bad "$1: no line '$2'"; grep -a -E "^(vendor|max basic|verdict|fwpt:)" "$work/$1.log" | sed 's/^/    /'; fi
}
rc_is() { if [ "$rc" = "$2" ]; then ok; else bad "$1: exit status $rc, expected $2"; cat "$work/$1.err" | tail -n 5; fi; }
# caps.txt copied out of the image is, byte for byte, a block of the console
caps_match() {
    local f="$work/$1/fwpt/caps.txt"
    if [ ! -s "$f" ]; then bad "$1: no caps.txt copied out of the image"; return; fi
    if python3 - "$f" "$work/$1.log" <<'PY'; then ok; else bad "$1: caps.txt is not a block of the console output"; fi
import sys
caps = open(sys.argv[1], 'rb').read()
con = open(sys.argv[2], 'rb').read()
sys.exit(0 if caps.startswith(b"fwpt ") and b"\nverdict " in caps and caps in con else 1)
PY
}

V='verdict                 Intel PT not usable'
# qemu64: QEMU's default model is AMD-flavoured (AuthenticAMD, max leaf 0xd) -> not Intel
boot qemu64 qemu64 trace locate-handle backend=hw shutdown
rc_is qemu64 3
has qemu64 'vendor                  AuthenticAMD'
has qemu64 'max basic leaf          0xd'
has qemu64 'CPUID.(07H,0):EBX       00000000 (EBX[25] Intel PT = 0)'
has qemu64 "$V (not_intel): the vendor is not GenuineIntel"
has qemu64 'trace: target locate-handle'
has qemu64 'trace: backend hw (Intel PT)'
has qemu64 'trace: Intel PT is not usable on this processor: the vendor is not GenuineIntel; nothing traced (the report is in \fwpt\caps.txt)'
has qemu64 'trace: hint: backend=soft (or the default, backend=auto) traces the same call without Intel PT, by single-stepping (e.g. `trace locate-handle backend=soft verify`)'
if [ ! -e "$work/qemu64/fwpt/trace.pt" ]; then ok; else bad "qemu64: trace.pt written without a trace"; fi
has qemu64 'fwpt: exit status EFI_UNSUPPORTED (0x8000000000000003)'
caps_match qemu64

# max under TCG reports AuthenticAMD
boot max max shutdown
rc_is max 3
has max 'vendor                  AuthenticAMD'
has max "$V (not_intel): the vendor is not GenuineIntel"
caps_match max

# max as GenuineIntel: highest basic leaf 0xd, and QEMU answers leaf 14H with leaf 0xd's data:
# the enumeration must not read it. Also the hardware backend: a plain RDMSR, and a WRMSR that
# TCG refuses with #GP (IA32_PKRS with bits 63:32 set) caught and reported, never a hang.
boot maxintel max,vendor=GenuineIntel rdmsr=0x1b wrmsr=0x6e1:0x100000000 trace memory-map backend=hw shutdown
rc_is maxintel 3
has maxintel 'vendor                  GenuineIntel'
has maxintel 'max basic leaf          0xd'
has maxintel 'CPUID.(14H,0)           n/a (above the max basic leaf)'
has maxintel "$V (max_leaf_below_14): the highest basic CPUID leaf is below 14H"
has maxintel 'options (\fwpt\fwpt.cfg): rdmsr=0x1b wrmsr=0x6e1:0x100000000 trace memory-map backend=hw shutdown'
has maxintel 'trace: Intel PT is not usable on this processor: the highest basic CPUID leaf is below 14H; nothing traced (the report is in \fwpt\caps.txt)'
has maxintel 'rdmsr 0x1b = 0xfee00900'
has maxintel 'wrmsr 0x6e1: #GP caught (the CPU raised #GP on the access (MSR not implemented or value refused))'
caps_match maxintel

# Skylake-Client: Intel, highest basic leaf 0xd under TCG
boot skl Skylake-Client shutdown
rc_is skl 3
has skl 'vendor                  GenuineIntel'
has skl 'family/model/stepping   6/94/3 (family 0x6 model 0x5e stepping 0x3, CPUID.1:EAX 000506e3)'
has skl 'max basic leaf          0xd'
has skl "$V (max_leaf_below_14): the highest basic CPUID leaf is below 14H"
caps_match skl

# Skylake-Client,+intel-pt: TCG warns and drops the feature bit but raises the max leaf to 14H,
# whose subleaf 0 is then all zero -> leaf 7 bit clear
boot sklpt Skylake-Client,+intel-pt shutdown
rc_is sklpt 3
has sklpt 'max basic leaf          0x14'
has sklpt 'CPUID.(14H,0)           EAX 00000000 EBX 00000000 ECX 00000000 EDX 00000000'
has sklpt "$V (leaf7_bit_clear): CPUID.(EAX=07H,ECX=0):EBX[25] (Intel PT) is clear"
if grep -q "intel-pt" "$work/sklpt.err" "$work/sklpt.raw"; then ok; else bad "sklpt: no TCG warning about intel-pt"; fi

# EPYC: AMD
boot epyc EPYC shutdown
rc_is epyc 3
has epyc 'vendor                  AuthenticAMD'
has epyc 'family/model/stepping   23/1/2 (family 0x17 model 0x1 stepping 0x2, CPUID.1:EAX 00800f12)'
has epyc "$V (not_intel): the vendor is not GenuineIntel"
caps_match epyc

# options: an unknown one is named; help prints the usage and succeeds
boot badopt qemu64 shutdown bogus=1
rc_is badopt 1
has badopt "fwpt: error: unknown option 'bogus=1' (see 'help')"
has badopt 'fwpt: exit status EFI_INVALID_PARAMETER (0x8000000000000002)'
# read-file with its PATH forgotten: refused naming the target (not 'shutdown' taken as the path), and QEMU still
# powers off by itself (the app's shutdown, not run-qemu.sh stopping it), well within the time limit
t0=$SECONDS
boot nopath qemu64 trace read-file shutdown
rc_is nopath 1
has nopath "fwpt: error: 'trace read-file' needs a PATH on the boot volume: 'shutdown' is an option, not a path (a file of that name: \\shutdown)"
has nopath 'fwpt: exit status EFI_INVALID_PARAMETER (0x8000000000000002)'
has nopath 'fwpt: shutdown'
if ! grep -q "without 'shutdown'" "$work/nopath.err" && [ $((SECONDS - t0)) -lt 60 ]; then ok; else
    bad "nopath: QEMU did not power off by itself ($((SECONDS - t0)) s): $(grep '^run-qemu' "$work/nopath.err" | tail -n 3)"
fi
# a file that is not there: the path and the reason, with the EFI status
boot nofile qemu64 trace read-file '\nope.txt' shutdown
rc_is nofile 1
has nofile 'trace: cannot prepare target read-file \nope.txt: not found on the boot volume (EFI_NOT_FOUND (0x800000000000000e))'
has nofile 'fwpt: shutdown'
# a refused plan names the setting as given (size=3), not the region size derived from it; out=\DIR (backslash)
# is where run-qemu.sh copies the files from
boot size3 qemu64 trace locate-handle size=3 'out=\run3' shutdown
rc_is size3 1
has size3 'plan: refused: size=3: must be a power of two from 4K to 32K, or a multiple of 64K (the default region size)'
if grep -q '^verdict ' "$work/size3/run3/caps.txt" 2>/dev/null; then ok; else bad "size3: out=\\run3 not copied back to OUT/run3"; fi
if grep -qF "run-qemu: the app's files (\\run3 on the disk) are in $work/size3/run3/: caps.txt" "$work/size3.err"; then ok; else
    bad "size3: where the files went is not said: $(grep '^run-qemu' "$work/size3.err")"
fi
boot help qemu64 help shutdown
rc_is help 0
has help '  trace TARGET      trace one firmware call with Intel PT; TARGET is one of:'
has help '    load-image PATH   LoadImage + StartImage of the EFI image PATH on the boot volume'
has help 'fwpt: exit status EFI_SUCCESS (0x0)'

# The USB image (GPT + ESP), attached as a USB stick on qemu-xhci.
usb=$B/fwpt-usb.img
[ -f "$usb" ] || { "$here/tools/mkimage.sh" usb "$work/usb.img" "$efi" >/dev/null; usb=$work/usb.img; }
boot_tcg 120 usb max --image "$usb" -- shutdown
rc_is usb 3
if grep -qa 'USB' "$work/usb.log"; then ok; else bad "usb: firmware did not boot from a USB device"; grep -a BdsDxe "$work/usb.log"; fi
has usb "$V (not_intel): the vendor is not GenuineIntel"
caps_match usb

finish
