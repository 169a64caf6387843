#!/usr/bin/env bash
# run-qemu.sh's own guarantees: KVM is tried and, when it is missing or fails, QEMU is stopped and
# the run repeated under TCG, saying why; a guest that does not finish is stopped at the time
# limit with a clear message and exit 124. Prints "qemu-run: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-run
need "$B/fwpt.efi"

run() { # NAME ARGS... -> $work/NAME.out (stdout+stderr), rc
    local name=$1 t0=$SECONDS
    shift
    mkdir -p "$work/tmp"
    TMPDIR="$work/tmp" "$here/run-qemu.sh" --no-build --build "$B" --out "$work/$name" "$@" >"$work/$name.out" 2>&1
    rc=$?
    echo "run $name ($*): exit $rc, $((SECONDS - t0)) s"
}
has() { if grep -qaF -- "$2" "$work/$1.out"; then ok; else bad "$1: no '$2'"; grep -a '^run-qemu:' "$work/$1.out" | sed 's/^/    /'; fi; }

# 1. KVM asked for with a model KVM on this machine cannot run: either QEMU aborts or OVMF dies
#    with "KVM internal error"; either way the run must end under TCG with the report.
run kvm --accel kvm --cpu qemu64 --kvm-probe 10 -- shutdown
if [ -e /dev/kvm ]; then
    has kvm "run-qemu: booting the FAT disk with $B/fwpt.efi under KVM (-cpu qemu64)"
    if grep -qa '^run-qemu: KVM failed: ' "$work/kvm.out"; then
        has kvm "falling back to TCG (software emulation) although --accel kvm was asked for"
        has kvm "run-qemu: booting the FAT disk with $B/fwpt.efi under TCG (-cpu qemu64)"
    else
        # KVM really works here: then the app ran under it
        has kvm "run-qemu: accelerator: kvm"
    fi
else
    has kvm "run-qemu: KVM is not usable: /dev/kvm does not exist; falling back to TCG"
fi
has kvm "verdict                 Intel PT not usable"
has kvm "fwpt: exit status EFI_UNSUPPORTED (0x8000000000000003)"
if [ "$rc" = 3 ]; then ok; else bad "kvm: exit $rc, expected 3"; fi
if [ -s "$work/kvm/fwpt/caps.txt" ]; then ok; else bad "kvm: caps.txt not copied out"; fi
# run-qemu.sh's QEMU disks live in its TMPDIR: no QEMU may survive and the scratch dir is gone
if ! pgrep -f "$work/tmp/" >/dev/null && [ -z "$(ls -A "$work/tmp")" ]; then ok; else bad "kvm: a QEMU of this run is still alive or its scratch dir is left"; fi

# 2. The default (auto) path: KVM with -cpu host first when /dev/kvm is usable.
run auto -- shutdown
has auto "run-qemu: accelerator: "
if [ -e /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    has auto "under KVM (-cpu host)"
else
    has auto "under TCG (-cpu max)"
fi
if [ "$rc" = 3 ] || [ "$rc" = 0 ]; then ok; else bad "auto: exit $rc"; fi

# 3. The time limit: 2 s is shorter than any OVMF boot under TCG.
run timeout --accel tcg --cpu qemu64 --timeout 2 -- shutdown
has timeout "run-qemu: TIMEOUT: the guest did not finish within 2s under tcg; QEMU killed"
if [ "$rc" = 124 ]; then ok; else bad "timeout: exit $rc, expected 124"; fi
if ! pgrep -f "$work/tmp/" >/dev/null && [ -z "$(ls -A "$work/tmp")" ]; then ok; else bad "timeout: QEMU still alive or scratch dir left"; fi

# 4. A CPU exception in the guest ("!!!! X64 Exception Type") stops QEMU at once: exit 125.
cb=$work/crashbuild
mkdir -p "$cb"
if gcc -std=c11 -O2 -I/usr/include/efi -I/usr/include/efi/x86_64 -ffreestanding -fpic -fshort-wchar \
    -mno-red-zone -fno-stack-protector -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI \
    -c "$here/tests/qemu/efi/crash.c" -o "$cb/crash.o" &&
    ld -nostdlib -znocombreloc -T /usr/lib/elf_x86_64_efi.lds -shared -Bsymbolic -L/usr/lib \
        /usr/lib/crt0-efi-x86_64.o "$cb/crash.o" -o "$cb/crash.so" -lefi -lgnuefi &&
    objcopy -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' -j '.rela.*' \
        -j .reloc --target efi-app-x86_64 --subsystem=10 "$cb/crash.so" "$cb/fwpt.efi"; then
    t0=$SECONDS
    mkdir -p "$work/tmp"
    TMPDIR="$work/tmp" "$here/run-qemu.sh" --no-build --build "$cb" --out "$work/crash" --accel tcg --cpu qemu64 \
        --timeout 120 -- shutdown >"$work/crash.out" 2>&1
    rc=$?
    echo "run crash (an app raising #UD): exit $rc, $((SECONDS - t0)) s"
    has crash "run-qemu: the guest raised a CPU exception (see '!!!! X64 Exception Type' above); QEMU killed"
    if [ "$rc" = 125 ]; then ok; else bad "crash: exit $rc, expected 125"; fi
    if [ $((SECONDS - t0)) -lt 60 ]; then ok; else bad "crash: took $((SECONDS - t0)) s (not stopped at once)"; fi
else
    bad "crash: could not build tests/qemu/efi/crash.c"
fi

# 5. Usage errors end at once with exit 2.
run usage --accel xen
has usage "run-qemu: --accel must be auto, kvm or tcg"
if [ "$rc" = 2 ]; then ok; else bad "usage: exit $rc, expected 2"; fi

finish
