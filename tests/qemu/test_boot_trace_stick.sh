#!/usr/bin/env bash
# The boot trace from a USB stick, as the README tells a user to do it: `make usb-image`'s disk (GPT + ESP, fwpt.efi as
# EFI/BOOT/BOOTX64.EFI, fwptdrv.efi beside it) on qemu-xhci + usb-storage, one --vars store, two boots: boot 1 runs
# `boot-trace install` from the stick, boot 2 is traced by the driver the boot manager loads from the stick and then
# runs `boot-trace status`. The option's device path names the stick's partition and its USB port (UEFI spec, "Hard
# Drive Media Device Path", "USB Device Path"): its HD() node is checked byte for byte against the image's GPT as
# sfdisk reads it. EDK2's BDS connects a driver option's path itself before it loads the file
# (EfiBootManagerProcessLoadOption -> EfiBootManagerConnectDevicePath): on the DEBUG build its debug log shows the
# xHCI started after "Process Driver0000" and not before. With the stick in another xHCI port the path leads nowhere:
# the driver is not loaded and the option stays (DEBUG build: "[Bds] Expand ... -> <null string>"). On Debian's OVMF
# and the EDK2 DEBUG build, each run under TCG with a time limit. Prints "boot-trace-stick: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" boot-trace-stick
need "$B/fwpt.efi" "$B/fwptdrv.efi" "$B/fwpt"
firmwares
vs() { python3 "$here/tests/qemu/varstore.py" "$@"; }
LIMIT=300
STEPS=200000

# The stick: built here from this build's files with the recipe of `make usb-image` (a copied build/fwpt-usb.img may
# be older than the build beside it)
img=$work/stick.img
"$here/tools/mkimage.sh" usb "$img" "$B/fwpt.efi" >/dev/null || { bad "tools/mkimage.sh usb failed"; finish; }
read -r p_start p_size p_uuid < <(sfdisk --dump "$img" |
    sed -n 's/.*start= *\([0-9]*\), size= *\([0-9]*\),.*uuid=\([0-9A-Fa-f-]*\).*/\1 \2 \3/p' | head -n1)
[ -n "${p_uuid:-}" ] || { bad "no partition in $img (sfdisk --dump)"; finish; }
p_uuid=${p_uuid^^}
path="PciRoot(0)/Pci(0x2,0x0)/Usb(0x0,0x0)/HD(1,GPT,$p_uuid)/\\EFI\\BOOT\\fwptdrv.efi"
# the Hard Drive node as the UEFI spec lays it out: type 4, subtype 1, length 42, partition 1, start, size (LBAs),
# the partition's unique GUID, MBRType 2 (GPT), SignatureType 2 (GUID)
hd_node=$(python3 -c "
import struct, uuid, sys
print(struct.pack('<BBHIQQ16sBB', 4, 1, 42, 1, $p_start, $p_size, uuid.UUID('$p_uuid').bytes_le, 2, 2).hex())")
usb_note="boot-trace install: the file path names the USB port the stick is in: reboot with the stick in the same port (in another port the boot manager does not find the driver: no trace, and Driver0000 stays until boot-trace remove)"

has() { if grep -qaF -- "$2" "$work/$1.log"; then ok; else bad "$1: no '$2'"; grep -a 'boot-trace\|fwptdrv\|fwpt: exit' "$work/$1.log" | sed 's/^/    /' | head -20; fi; }
hasnt() { if ! grep -qaF -- "$2" "$work/$1.log"; then ok; else bad "$1: '$2' is there: $(grep -a -m1 -F -- "$2" "$work/$1.log")"; fi; }
# line NAME TEXT: the first line number in NAME.log holding TEXT (empty when none)
line() { grep -anF -m1 -- "$2" "$work/$1.log" | cut -d: -f1; }
# before WHAT A B: line A comes before line B, both present
before() {
    if [ -n "$2" ] && [ -n "$3" ] && [ "$2" -lt "$3" ]; then ok; else bad "$1 (lines ${2:-none} and ${3:-none})"; fi
}
driver_vars() { vs "$1" | awk '/^Driver[0-9A-F][0-9A-F][0-9A-F][0-9A-F] / {print $1}' | sort | tr '\n' ' '; }

for fw in $FIRMWARES; do
    fw_label=$fw
    s=$work/$fw.vars n=$fw-stick
    # boot 1 installs from the stick, boot 2 is traced (the README's line with --image)
    t0=$SECONDS
    boot_fw $fw $LIMIT $n max --image "$img" --vars "$s" --then 'boot-trace status shutdown' -- \
        boot-trace install backend=soft steps=$STEPS verify shutdown
    echo "  $fw: install + traced boot: $((SECONDS - t0)) s"
    [ "$rc" = 0 ] && ok || bad "$n: run-qemu.sh exit status $rc, expected 0 (see $n.err: $(tail -n1 "$work/$n.err"))"
    debug_clean $n
    b2=$(line $n "run-qemu: boot 2 of 2")
    [ -n "$b2" ] && ok || bad "$n: no second boot in the console log"
    b2=${b2:-1}
    head -n "$((b2 - 1))" "$work/$n.log" >"$work/$n-1.log"
    tail -n +"$b2" "$work/$n.log" >"$work/$n-2.log"

    # boot 1: the option names the stick's partition and port
    has $n-1 "boot-trace install: the driver: \\EFI\\BOOT\\fwptdrv.efi, $(stat -c %s "$B/fwptdrv.efi") bytes, PE32+ x64, subsystem 11 (an EFI boot service driver)"
    has $n-1 "boot-trace install: wrote Driver0000: attributes 0x1 (active), description \"fwpt boot trace\", file path $path, optional data \"backend=soft steps=$STEPS verify\" (66 bytes: UTF-16 with a NUL); NV+BS+RT"
    has $n-1 "boot-trace install: wrote DriverOrder: 0000 (was: not set)"
    has $n-1 "$usb_note"
    has $n-1 "fwpt: exit status EFI_SUCCESS (0x0)"
    hasnt $n-1 "fwptdrv "

    # boot 2: the boot manager loaded the driver from the stick before the app; it traced, verified and wrote its files
    before "$n-2: the driver's first line before the app's" "$(line $n-2 "fwptdrv 0.2 - the boot trace of fwpt")" \
        "$(line $n-2 "fwpt 0.2 - Intel Processor Trace")"
    has $n-2 "fwptdrv: options (LoadOptions): backend=soft steps=$STEPS verify"
    has $n-2 "boot-trace: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder"
    has $n-2 "fwptdrv: one-shot: 1 Driver#### option removed (install with keep to trace every boot)"
    has $n-2 "trace: ended because: the step limit was reached"
    has $n-2 "verify: passed (all that was stepped before the step limit)"
    has $n-2 "fwptdrv: boot trace status EFI_SUCCESS (0x0); files in \\fwpt\\boot; the boot goes on"
    has $n-2 "boot-trace: DriverOrder: not set (no driver options in the order)"
    has $n-2 "boot-trace: fwpt's driver option: none"
    has $n-2 "fwpt: exit status EFI_SUCCESS (0x0)"
    got=$(driver_vars "$s")
    [ -z "$got" ] && ok || bad "$n: the store still holds [$got] after the one-shot"
    vs "$s" DriverOrder >/dev/null && bad "$n: DriverOrder is still in the store" || ok

    # the files came back from the stick: \fwpt\boot\ with trace.pt, sideband.json, log.txt
    d=$work/$n/fwpt/boot
    for f in trace.pt sideband.json log.txt; do
        [ -s "$d/$f" ] && ok || bad "$n: no \\fwpt\\boot\\$f on the stick"
    done
    wrote=$(sed -n 's/^file: wrote \\fwpt\\boot\\trace.pt (\([0-9]*\) bytes)$/\1/p' "$work/$n-2.log")
    [ -n "$wrote" ] && [ "$wrote" = "$(stat -c %s "$d/trace.pt" 2>/dev/null)" ] && ok ||
        bad "$n: trace.pt is $(stat -c %s "$d/trace.pt" 2>/dev/null) bytes on the stick, the driver said ${wrote:-nothing}"
    [ "$(head -n1 "$d/log.txt" 2>/dev/null | tr -d '\r')" = "fwptdrv 0.2 - the boot trace of fwpt" ] && ok ||
        bad "$n: log.txt does not start with the driver's first line"
    grep -qaxF "verify: passed (all that was stepped before the step limit)" "$d/log.txt" 2>/dev/null && ok ||
        bad "$n: log.txt has no 'verify: passed'"
    first=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['images'][0]['name'])" "$d/sideband.json" 2>&1)
    [ "$first" = fwptdrv ] && ok || bad "$n: sideband.json's first image is '$first', expected fwptdrv"
    # on the host: the saved trace decodes to as many instructions as the driver verified
    n_ver=$(sed -n 's/^verified: \([0-9]*\) instructions decoded = single-stepped.*/\1/p' "$work/$n-2.log")
    n_host=$("$B/fwpt" flow "$d" --profile 2>"$work/$n.flow.err" | sed -n 's/^instructions per module (\([0-9]*\) in all)$/\1/p')
    [ -n "$n_ver" ] && [ "$n_ver" = "$n_host" ] && ok ||
        bad "$n: fwpt flow counts ${n_host:-nothing} instructions, the driver verified ${n_ver:-none} ($(head -n1 "$work/$n.flow.err"))"
    # the step limit was reached, and every instruction stepped was verified (a REP iteration is a step of its own
    # and an instruction after STI/HLT retires without one: steps and instructions differ either way)
    soft=""
    soft=$(sed -n 's/^soft: profile [^,]*, \([0-9]*\) steps, \([0-9]*\) instructions .*/\1 \2/p' "$work/$n-2.log" | head -n1)
    [ -n "$n_ver" ] && [ "$soft" = "$STEPS $n_ver" ] && ok ||
        bad "$n: the soft line says '${soft:-nothing}' (steps, instructions), expected $STEPS steps and the ${n_ver:-?} verified"

    if [ $fw = debug ]; then
        # BDS connected the stick for the driver option: the xHCI starts after "Process Driver0000" (in boot 2 of the
        # debug log), not in PlatformBootManagerBeforeConsole; the file is found and the driver returns
        sed -n '/^run-qemu: boot 2 of 2/,$p' "$work/$n.debug" | tr -d '\r' >"$work/$n-2dbg.log"
        bc=$(line $n-2dbg "PlatformBootManagerBeforeConsole")
        pd=$(line $n-2dbg "Process Driver0000 (fwpt boot trace) ...")
        xs=$(line $n-2dbg "XhcDriverBindingStart: XHCI started")
        fo=$(line $n-2dbg "FSOpen: Open '\\EFI\\BOOT\\fwptdrv.efi' Success")
        rs=$(line $n-2dbg "Driver0000 Return Status = Success")
        ac=$(line $n-2dbg "PlatformBootManagerAfterConsole")
        before "$n: BeforeConsole before Process Driver0000" "$bc" "$pd"
        before "$n: Process Driver0000 before the xHCI starts" "$pd" "$xs"
        before "$n: the xHCI starts before the driver's file is opened" "$xs" "$fo"
        before "$n: the file opened before Driver0000 returns" "$fo" "$rs"
        before "$n: Driver0000 returns before AfterConsole" "$rs" "$ac"
        has $n-2dbg "[Bds] Expand PciRoot(0x0)/Pci(0x2,0x0)/USB(0x0,0x0)/HD(1,GPT,$p_uuid,$(printf '0x%X,0x%X' "$p_start" "$p_size"))/\\EFI\\BOOT\\fwptdrv.efi -> PciRoot(0x0)/Pci(0x2,0x0)/USB(0x0,0x0)/HD(1,GPT,$p_uuid"
    fi

    # install alone into a second store: the option's bytes read on the host (the path as gnu-efi prints it, the HD
    # node as the image's GPT gives it)
    s2=$work/$fw.port.vars m=$fw-port
    boot_fw $fw $LIMIT $m-1 max --image "$img" --vars "$s2" -- boot-trace install backend=soft steps=$STEPS shutdown
    debug_clean $m-1
    has $m-1 "$usb_note"
    got=$(vs "$s2" --loadopt Driver0000 | sed -n 3p)
    [ "$got" = "file path $path" ] && ok || bad "$m-1: Driver0000's path decodes as [$got], expected [file path $path]"
    vs "$s2" Driver0000 | grep -q "$hd_node" && ok || bad "$m-1: Driver0000 holds no HD node $hd_node"

    if [ $fw = debug ]; then
        # The stick in another xHCI port at the reboot (a QEMU wrapper adds port=3 to the usb-storage device): the
        # path names port 0 of the root hub, BDS finds nothing there, the driver is not loaded, the option stays.
        # (Debian's OVMF then does not boot the stick either, but the EFI shell: the DEBUG build only.)
        mkdir -p "$work/wrap"
        printf '#!/bin/bash\nargs=()\nfor a in "$@"; do case "$a" in usb-storage,*) a="$a,port=3" ;; esac; args+=("$a"); done\nexec %s "${args[@]}"\n' \
            "$(command -v qemu-system-x86_64)" >"$work/wrap/qemu-system-x86_64"
        chmod +x "$work/wrap/qemu-system-x86_64"
        PATH=$work/wrap:$PATH boot_fw $fw $LIMIT $m-2 max --image "$img" --vars "$s2" -- boot-trace status shutdown
        debug_clean $m-2
        [ "$rc" = 0 ] && ok || bad "$m-2: run-qemu.sh exit status $rc, expected 0"
        hasnt $m-2 "fwptdrv "
        opts="backend=soft steps=$STEPS"
        has $m-2 "boot-trace: Driver0000: attributes 0x1 (active), description \"fwpt boot trace\", file path $path, optional data $(((${#opts} + 1) * 2)) bytes (fwpt's)"
        has $m-2 "boot-trace: fwpt's driver option: installed"
        cp "$work/$m-2.debug" "$work/$m-2dbg.log"
        has $m-2dbg "UsbEnumeratePort: new device connected at port 2"
        has $m-2dbg "[Bds] Expand PciRoot(0x0)/Pci(0x2,0x0)/USB(0x0,0x0)/HD(1,GPT,$p_uuid,$(printf '0x%X,0x%X' "$p_start" "$p_size"))/\\EFI\\BOOT\\fwptdrv.efi -> <null string>"
        [ "$(driver_vars "$s2")" = "Driver0000 " ] && ok || bad "$m-2: the store holds [$(driver_vars "$s2")], expected [Driver0000 ]"
    fi
done
fw_label=""
finish
