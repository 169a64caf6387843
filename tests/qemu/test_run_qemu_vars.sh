#!/usr/bin/env bash
# run-qemu.sh --vars FILE and --boots N / --then OPTS: the variables the firmware writes in one boot are read in the
# next. The witness is OVMF's own monotonic counter: MonotonicCounterRuntimeDxe reads the non-volatile variable MTC
# at every boot and writes it back one higher (UEFI spec, "GetNextHighMonotonicCount"), so after K boots of one
# store MTC is K, and a store that did not persist shows 1 again. Read from the store file on the host
# (tests/qemu/varstore.py). On Debian's OVMF (OVMF_CODE_4M + OVMF_VARS_4M) and on the EDK2 DEBUG build (one
# OVMF.fd: a writable copy of it is the one pflash unit). Prints "qemu-vars: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-vars
need "$B/fwpt.efi"
firmwares
vs() { python3 "$here/tests/qemu/varstore.py" "$@"; }

run() { # NAME ARGS... -> $work/NAME.out (stdout+stderr; a 300 s limit on each boot), rc
    local name=$1 t0=$SECONDS
    shift
    mkdir -p "$work/tmp"
    TMPDIR="$work/tmp" "$here/run-qemu.sh" --no-build --build "$B" --timeout 300 --out "$work/$name" "$@" \
        >"$work/$name.out" 2>&1
    rc=$?
    echo "run $name ($*): exit $rc, $((SECONDS - t0)) s"
}
has() { if grep -qaF -- "$2" "$work/$1.out"; then ok; else bad "$1: no '$2'"; grep -a '^run-qemu:' "$work/$1.out" | sed 's/^/    /'; fi; }
exit_is() { if [ "$rc" = "$2" ]; then ok; else bad "$1: exit $rc, expected $2"; fi; }
mtc_is() { # NAME STORE HEX: the store's MTC variable (little-endian UINT32) is HEX
    local got
    got=$(vs "$2" MTC) || got=absent
    if [ "$got" = "$3" ]; then ok; else bad "$1: MTC in $2 is $got, expected $3"; fi
}

for fw in $FIRMWARES; do
    fw_label=$fw
    store=$work/$fw.vars
    if [ $fw = debug ]; then
        export OVMF=$OVMF_DEBUG tmpl=$OVMF_DEBUG accel=tcg dbg=(--debug-log "$work/$fw-2.debug")
    else
        unset OVMF
        tmpl=/usr/share/OVMF/OVMF_VARS_4M.fd accel=auto dbg=()
    fi
    # 1. A new store: created from the template, written by the boot (MTC 1). On Debian's OVMF the default accel
    #    (KVM first, then TCG when KVM fails) runs with pflash too.
    run $fw-1 --accel $accel --vars "$store" -- shutdown
    has $fw-1 "the store created from $tmpl"
    if [ $fw = debug ]; then
        has $fw-1 "run-qemu: firmware: $store (pflash unit 0, writable: a copy of all of $OVMF_DEBUG, its first 540672 bytes the variable store)"
        # the code part of the copy is the firmware's, byte for byte; only the store changed
        if cmp -s -i 540672:540672 "$store" "$OVMF_DEBUG"; then ok; else bad "$fw-1: the code after the store differs from $OVMF_DEBUG"; fi
    else
        has $fw-1 "run-qemu: firmware: /usr/share/OVMF/OVMF_CODE_4M.fd (pflash unit 0, read-only) and the variable store $store (pflash unit 1)"
        has $fw-1 "run-qemu: accelerator: "
        if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then has $fw-1 "under KVM (-cpu host)"; fi
    fi
    has $fw-1 "verdict                 Intel PT not usable"
    exit_is $fw-1 3
    mtc_is $fw-1 "$store" 01000000
    if ! vs "$tmpl" MTC >/dev/null; then ok; else bad "$fw-1: the template $tmpl already holds MTC"; fi

    # 2. The same store kept, two boots, the second with its own options (out=\second): MTC 3, and the files of the
    #    last boot come back from \second.
    run $fw-2 --accel tcg --vars "$store" "${dbg[@]}" --then 'out=\second shutdown' -- shutdown
    has $fw-2 "the store kept (it holds the variables of earlier boots)"
    has $fw-2 "run-qemu: boot 1 of 2; app options: shutdown"
    has $fw-2 "run-qemu: boot 1 of 2: app status: EFI_UNSUPPORTED"
    has $fw-2 'run-qemu: boot 2 of 2: the same disk and variable store; app options: out=\second shutdown'
    has $fw-2 'options (\fwpt\fwpt.cfg): out=\second shutdown'
    has $fw-2 "run-qemu: the app's files (\\second on the disk) are in $work/$fw-2/second/: caps.txt"
    has $fw-2 "run-qemu: 2 of 2 boots run; exit status 3"
    if [ "$(grep -ac '^fwpt 0' "$work/$fw-2.out")" = 2 ]; then ok; else bad "$fw-2: the app did not start twice"; fi
    exit_is $fw-2 3
    mtc_is $fw-2 "$store" 03000000
    if [ $fw = debug ]; then
        # both boots' debug port in the one log, the second after a marker line; no ASSERT in either
        if grep -aqx 'run-qemu: boot 2 of 2' "$work/$fw-2.debug" &&
            [ "$(grep -ac 'MonotonicCounter\|DxeMain\|DXE IPL' "$work/$fw-2.debug")" -ge 2 ]; then ok; else
            bad "$fw-2: the debug log does not hold both boots"
        fi
        debug_clean $fw-2
        # a copy whose code is not this firmware's is refused before any boot
        cp "$store" "$work/other.vars" && printf 'X' | dd of="$work/other.vars" bs=1 seek=4000000 conv=notrunc 2>/dev/null
        run other --vars "$work/other.vars" -- shutdown
        has other "run-qemu: --vars '$work/other.vars': its firmware code (after the first 540672 bytes) is not $OVMF_DEBUG's: delete it to start afresh"
        exit_is other 2
    fi
done
fw_label=""
unset OVMF

# 3. A boot that fails ends the sequence: an option error (exit 1) in boot 1 of 2, boot 2 never starts.
run stop --accel tcg --vars "$work/stop.vars" --boots 2 -- no-such-option shutdown
has stop "run-qemu: boot 1 of 2: app status: EFI_INVALID_PARAMETER"
has stop "run-qemu: boot 1 of 2 ended with exit status 1: boots 2..2 not run"
has stop "run-qemu: 1 of 2 boots run; exit status 1"
if [ "$(grep -ac '^fwpt 0' "$work/stop.out")" = 1 ]; then ok; else bad "stop: the app started $(grep -ac '^fwpt 0' "$work/stop.out") times"; fi
exit_is stop 1
mtc_is stop "$work/stop.vars" 01000000

# 4. KVM failing after it wrote into the store: the TCG boot starts from the store as it was. A QEMU wrapper first on
#    PATH writes into the store under -accel kvm, then fails with QEMU's "KVM internal error".
mkdir -p "$work/bin"
real_qemu=$(command -v qemu-system-x86_64)
cat >"$work/bin/qemu-system-x86_64" <<WRAP
#!/usr/bin/env bash
printf '%s\n' "\$*" >>'$work/qemu-args'
if [[ " \$* " == *" -accel kvm "* ]]; then
    for a; do [[ "\$a" == *unit=1,file=* ]] && printf 'KVMWROTE' | dd of="\${a##*file=}" bs=1 seek=300000 conv=notrunc 2>/dev/null; done
    echo "KVM internal error. Suberror: 1 (the test wrapper)"; sleep 2; exit 1
fi
exec '$real_qemu' "\$@"
WRAP
chmod +x "$work/bin/qemu-system-x86_64"
cp "$work/stop.vars" "$work/kvm.vars"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    PATH="$work/bin:$PATH" run kvm --vars "$work/kvm.vars" --boots 2 -- shutdown
    has kvm "run-qemu: KVM failed: QEMU reported: KVM internal error. Suberror: 1 (the test wrapper); QEMU stopped"
    has kvm "run-qemu: the variable store $work/kvm.vars is as it was before the KVM attempt"
    has kvm "run-qemu: booting the FAT disk with $B/fwpt.efi under TCG (-cpu max) (KVM failed in boot 1: QEMU reported: KVM internal error"
    if [ "$(grep -c -- '-accel kvm' "$work/qemu-args")" = 1 ] && [ "$(grep -c -- '-accel tcg' "$work/qemu-args")" = 2 ] &&
        [ "$(grep -c -- "-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd -drive if=pflash,format=raw,unit=1,file=$work/kvm.vars " "$work/qemu-args")" = 3 ]; then ok; else
        bad "kvm: QEMU not started once under KVM then twice under TCG, each with the two pflash units: $(cat "$work/qemu-args")"
    fi
    if ! grep -aq KVMWROTE "$work/kvm.vars"; then ok; else bad "kvm: the KVM attempt's write is still in the store"; fi
    exit_is kvm 3
    mtc_is kvm "$work/kvm.vars" 03000000
else
    bad "kvm: NOT RUN: /dev/kvm is not usable here, so the KVM attempt with --vars cannot be made"
fi

# 5. Usage and set-up errors: one line, exit 2, before any boot; the firmware's own files are never written.
usage_is() { # NAME MESSAGE ARGS...
    local name=$1 says=$2
    shift 2
    run "$name" "$@"
    exit_is "$name" 2
    if [ "$(cat "$work/$name.out")" = "$says" ]; then ok; else bad "$name: said '$(cat "$work/$name.out")', expected '$says'"; fi
}
usage_is boots0 "run-qemu: --boots '0': expected the number of boots, 1..100" --boots 0
usage_is bootsx "run-qemu: --boots 'two': expected the number of boots, 1..100" --boots two
usage_is thens "run-qemu: --boots 2: 2 --then options give the options of 3 boots" --boots 2 --then shutdown --then shutdown
usage_is thenv "run-qemu: --then needs a value (see --help)" --then
usage_is tmplvars "run-qemu: --vars '/usr/share/OVMF/OVMF_VARS_4M.fd' is the firmware's own /usr/share/OVMF/OVMF_VARS_4M.fd: give a file of your own (the guest writes into it)" --vars /usr/share/OVMF/OVMF_VARS_4M.fd
head -c 131072 /dev/zero >"$work/small.vars"
usage_is sizevars "run-qemu: --vars '$work/small.vars': 131072 bytes, but /usr/share/OVMF/OVMF_VARS_4M.fd has 540672: not a variable store of this firmware" --vars "$work/small.vars"

finish
