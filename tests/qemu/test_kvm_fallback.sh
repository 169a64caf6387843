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

# 5. Usage errors end at once with exit 2, naming the option and the value; never a bash error.
usage_is() { # NAME MESSAGE ARGS...: exit 2 with exactly this one line
    local name=$1 says=$2
    shift 2
    run "$name" "$@"
    if [ "$rc" = 2 ]; then ok; else bad "$name: exit $rc, expected 2"; fi
    if [ "$(cat "$work/$name.out")" = "$says" ]; then ok; else bad "$name: said '$(cat "$work/$name.out")', expected '$says'"; fi
}
usage_is usage "run-qemu: --accel 'xen': expected auto, kvm or tcg" --accel xen
usage_is copy "run-qemu: --copy 'hello.efi': expected SRC=DEST" --copy hello.efi
usage_is noval "run-qemu: --out needs a value (see --help)" --out
usage_is noval2 "run-qemu: --log needs a value, not the option '--no-build' (see --help)" --log --no-build
usage_is probe "run-qemu: --kvm-probe 'abc': expected whole seconds, 1..3600" --kvm-probe abc
usage_is tmo "run-qemu: --timeout '10s': expected whole seconds, 1..86400" --timeout 10s
usage_is tmo0 "run-qemu: --timeout '0': expected whole seconds, 1..86400" --timeout 0
# --help prints the real default app options, not a variable's name
"$here/run-qemu.sh" --help >"$work/help.out" 2>&1
if grep -qxF "App options (after --) default to: trace locate-handle shutdown." "$work/help.out" &&
    ! grep -q 'DEFAULT_APP_OPTIONS' "$work/help.out"; then ok; else bad "--help: no default app options line"; fi

# 6. A run that fails before the app starts keeps the previous results (OUT/fwpt is replaced only by new files).
mkdir -p "$work/keep/fwpt"
echo earlier >"$work/keep/fwpt/trace.pt"
run keep --accel tcg --cpu bogusmodel --out "$work/keep" -- shutdown
has keep "qemu-system-x86_64: unable to find CPU model 'bogusmodel'"
has keep "run-qemu: the app wrote no files in \\fwpt: $work/keep/fwpt/ (an earlier run's) left as it was"
if [ "$rc" = 4 ]; then ok; else bad "keep: exit $rc, expected 4"; fi
if [ "$(cat "$work/keep/fwpt/trace.pt" 2>/dev/null)" = earlier ] && [ "$(ls -A "$work/keep")" = fwpt ]; then ok; else
    bad "keep: the earlier OUT/fwpt was changed, or a staging folder is left: $(ls -A "$work/keep")"
fi

# 7. --cpu host,... when KVM fails: TCG cannot run 'host', so max with the same feature list, said; and the files
#    of out=/mydir are copied back into OUT/mydir/ (the earlier OUT/fwpt stays). A QEMU wrapper first on PATH
#    makes KVM fail on purpose (with QEMU's "KVM internal error") and records how QEMU was started.
mkdir -p "$work/bin"
real_qemu=$(command -v qemu-system-x86_64)
{
    echo '#!/usr/bin/env bash'
    echo "printf '%s\\n' \"\$*\" >>'$work/qemu-args'"
    echo 'prev=""'
    echo 'for a; do'
    echo '    if [ "$prev" = -accel ] && [ "$a" = kvm ]; then echo "KVM internal error. Suberror: 1 (the test wrapper)"; sleep 2; exit 1; fi'
    echo '    prev=$a'
    echo 'done'
    echo "exec '$real_qemu' \"\$@\""
} >"$work/bin/qemu-system-x86_64"
chmod +x "$work/bin/qemu-system-x86_64"
mkdir -p "$work/cpuhost/fwpt" "$work/cpuhost/mydir"
echo earlier >"$work/cpuhost/fwpt/caps.txt"
echo earlier >"$work/cpuhost/mydir/trace.pt" # an earlier run's OUT/mydir: replaced by the new files, not merged
PATH="$work/bin:$PATH" run cpuhost --cpu host,-x2apic --timeout 120 --out "$work/cpuhost" -- out=/mydir shutdown
has cpuhost "run-qemu: TCG cannot run -cpu host,-x2apic: -cpu max,-x2apic instead (the same features)"
has cpuhost "run-qemu: booting the FAT disk with $B/fwpt.efi under TCG (-cpu max,-x2apic)"
if grep -q -- "-accel tcg -cpu max,-x2apic " "$work/qemu-args"; then ok; else
    bad "cpuhost: QEMU not started with -accel tcg -cpu max,-x2apic: $(cat "$work/qemu-args")"
fi
if [ -e /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    has cpuhost "run-qemu: booting the FAT disk with $B/fwpt.efi under KVM (-cpu host,-x2apic)"
    has cpuhost "run-qemu: KVM failed: QEMU reported: KVM internal error. Suberror: 1 (the test wrapper); QEMU stopped"
else
    has cpuhost "run-qemu: KVM is not usable"
fi
has cpuhost 'file: wrote \mydir\caps.txt'
has cpuhost "run-qemu: the app's files (\\mydir on the disk) are in $work/cpuhost/mydir/: caps.txt"
if [ "$rc" = 3 ]; then ok; else bad "cpuhost: exit $rc, expected 3"; fi
if grep -q '^verdict ' "$work/cpuhost/mydir/caps.txt" 2>/dev/null; then ok; else bad "cpuhost: mydir/caps.txt not copied back"; fi
if [ ! -e "$work/cpuhost/mydir/trace.pt" ] && [ "$(ls -A "$work/cpuhost")" = "$(printf 'fwpt\nmydir')" ]; then ok; else
    bad "cpuhost: the earlier OUT/mydir was merged into, or a staging folder is left: $(ls -A "$work/cpuhost" "$work/cpuhost/mydir")"
fi
if [ "$(cat "$work/cpuhost/fwpt/caps.txt")" = earlier ]; then ok; else bad "cpuhost: OUT/fwpt (not the app's directory) was changed"; fi

finish
