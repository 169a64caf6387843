#!/usr/bin/env bash
# `boot-trace install` and `boot-trace remove` on a persistent variable store (run-qemu.sh --vars), boot after boot:
# what the app writes (Driver####, DriverOrder: UEFI spec, "Load Option Processing", "Globally Defined Variables") is
# read back on the host from the store file by tests/qemu/varstore.py, an independent reader of EDK2's store format
# and of EFI_LOAD_OPTION; the boot manager then loads fwptdrv.efi in the next boot (its "fwptdrv " line on COM1 before
# the app starts). Also: a second install replaces the first, remove leaves a foreign option and its place in
# DriverOrder, and install refuses a missing driver, a file that is no boot service driver and a bad option before
# writing anything. On Debian's OVMF and on the EDK2 DEBUG build (no ASSERT in its debug log), each boot under TCG
# with a time limit. Prints "boot-trace-install: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" boot-trace-install
need "$B/fwpt.efi" "$B/fwptdrv.efi"
firmwares
vs() { python3 "$here/tests/qemu/varstore.py" "$@"; }
LIMIT=240

has() { if grep -qaF -- "$2" "$work/$1.log"; then ok; else bad "$1: no '$2'"; grep -a 'boot-trace\|fwpt: exit' "$work/$1.log" | sed 's/^/    /'; fi; }
hasnt() { if ! grep -qaF -- "$2" "$work/$1.log"; then ok; else bad "$1: '$2' is there: $(grep -a -m1 -F -- "$2" "$work/$1.log")"; fi; }
status_is() { has "$1" "fwpt: exit status $2"; }
# var_is NAME STORE VAR HEX|absent: the store's VAR holds these bytes (or is absent)
var_is() {
    local got
    got=$(vs "$2" "$3") || got=absent
    if [ "$got" = "$4" ]; then ok; else bad "$1: $3 in the store is $got, expected $4"; fi
}
# loadopt_is NAME STORE VAR EXPECTED-LINES: varstore.py --loadopt's four lines, and the attributes NV+BS+RT
loadopt_is() {
    local got
    got=$(vs "$2" --loadopt "$3") || got="$3 absent"
    if [ "$got" = "$4" ]; then ok; else bad "$1: $3 decodes as [$got], expected [$4]"; fi
    got=$(vs "$2" --attr "$3") || got=absent
    if [ "$got" = 0x7 ]; then ok; else bad "$1: $3 has attributes $got, expected 0x7 (NV+BS+RT)"; fi
}
# driver_vars STORE: the Driver#### names in the store, one line
driver_vars() { vs "$1" | awk '/^Driver[0-9A-F][0-9A-F][0-9A-F][0-9A-F] / {print $1}' | sort | tr '\n' ' '; }
vars_are() { local got; got=$(driver_vars "$2"); if [ "$got" = "$3" ]; then ok; else bad "$1: the Driver#### variables are [$got], expected [$3]"; fi; }
# loaded NAME: the boot manager loaded fwptdrv.efi: its COM1 line comes before the app's first line
loaded() {
    local d a
    d=$(grep -an -m1 '^fwptdrv ' "$work/$1.log" | cut -d: -f1)
    a=$(grep -an -m1 '^fwpt 0' "$work/$1.log" | cut -d: -f1)
    if [ -n "$d" ] && [ -n "$a" ] && [ "$d" -lt "$a" ]; then ok; else bad "$1: no 'fwptdrv ' line before the app's (driver line ${d:-none}, app line ${a:-none})"; fi
}
not_loaded() { hasnt "$1" "fwptdrv "; }

# The build without the driver (nodrv), and one whose fwptdrv.efi is the app (an EFI application, subsystem 10)
mkdir -p "$work/nodrv" "$work/appdrv"
cp "$B/fwpt.efi" "$work/nodrv/fwpt.efi"
cp "$B/fwpt.efi" "$work/appdrv/fwpt.efi"
cp "$B/fwpt.efi" "$work/appdrv/fwptdrv.efi"
# a foreign option: inactive (the boot manager skips it), no optional data
foreign=$(python3 -c "
import struct
d = 'other driver\0'.encode('utf-16-le'); f = '\\\\EFI\\\\other.efi\0'.encode('utf-16-le')
node = struct.pack('<BBH', 4, 4, 4 + len(f)) + f + bytes([0x7f, 0xff, 4, 0])
print((struct.pack('<IH', 0, len(node)) + d + node).hex())")
path='PciRoot(0)/Pci(0x2,0x0)/\EFI\BOOT\fwptdrv.efi'

for fw in $FIRMWARES; do
    fw_label=$fw
    s=$work/$fw.vars
    b() { local n=$fw-$1; shift; boot_fw $fw $LIMIT $n max --vars "$s" -- "$@"; debug_clean $n; }

    # 1. A new store: nothing installed, DriverOrder absent (OVMF ships none)
    b status0 boot-trace status shutdown
    has $fw-status0 "boot-trace: DriverOrder: not set (no driver options in the order)"
    has $fw-status0 "boot-trace: fwpt's driver option: none"
    not_loaded $fw-status0
    var_is $fw-status0 "$s" DriverOrder absent
    vars_are $fw-status0 "$s" ""

    # 2. install: Driver0000 with the driver's options, DriverOrder created; both as varstore.py reads them
    b install boot-trace install backend=soft steps=1000 keep shutdown
    has $fw-install "boot-trace install: the driver: \\EFI\\BOOT\\fwptdrv.efi, $(stat -c %s "$B/fwptdrv.efi") bytes, PE32+ x64, subsystem 11 (an EFI boot service driver)"
    has $fw-install "boot-trace install: wrote Driver0000: attributes 0x1 (active), description \"fwpt boot trace\", file path $path, optional data \"backend=soft steps=1000 keep\" (58 bytes: UTF-16 with a NUL); NV+BS+RT"
    has $fw-install "boot-trace install: wrote DriverOrder: 0000 (was: not set)"
    has $fw-install "boot-trace install: read back Driver0000 and DriverOrder: as written"
    has $fw-install "boot-trace install: next: reboot: the driver traces the boot to ReadyToBoot and writes \\fwpt\\boot\\ on this volume (boot-trace remove undoes this)"
    hasnt $fw-install "replaces"
    hasnt $fw-install "names the USB port" # a virtio disk: no USB node in the path
    status_is $fw-install "EFI_SUCCESS (0x0)"
    var_is $fw-install "$s" DriverOrder 0000
    vs "$s" --attr DriverOrder | grep -qx 0x7 && ok || bad "$fw-install: DriverOrder's attributes are not NV+BS+RT"
    loadopt_is $fw-install "$s" Driver0000 "attributes 0x1
description fwpt boot trace
file path $path
optional data backend=soft steps=1000 keep (58 bytes)"
    vars_are $fw-install "$s" "Driver0000 "

    # 3. The next boot: the boot manager loads the driver before the app; status shows it installed
    b status1 boot-trace status shutdown
    loaded $fw-status1
    has $fw-status1 "boot-trace: DriverOrder: 1 entry: 0000"
    has $fw-status1 "boot-trace: Driver0000: attributes 0x1 (active), description \"fwpt boot trace\", file path $path, optional data 58 bytes (fwpt's)"
    has $fw-status1 "boot-trace: fwpt's driver option: installed"
    status_is $fw-status1 "EFI_SUCCESS (0x0)"

    # 4. A second install replaces the first: one fwpt option, the new options
    b install2 boot-trace install backend=soft steps=2000 keep shutdown
    has $fw-install2 "boot-trace install: replaces fwpt's earlier option Driver0000 (written over)"
    has $fw-install2 "boot-trace install: wrote DriverOrder: 0000 (was: 0000)"
    status_is $fw-install2 "EFI_SUCCESS (0x0)"
    var_is $fw-install2 "$s" DriverOrder 0000
    loadopt_is $fw-install2 "$s" Driver0000 "attributes 0x1
description fwpt boot trace
file path $path
optional data backend=soft steps=2000 keep (58 bytes)"
    vars_are $fw-install2 "$s" "Driver0000 "

    # 5. remove: the option deleted, DriverOrder (now empty) deleted: the store as before install
    b remove boot-trace remove shutdown
    has $fw-remove "boot-trace remove: removed Driver0000 (fwpt's option): deleted, and taken out of DriverOrder"
    has $fw-remove "boot-trace remove: DriverOrder deleted: it named only fwpt's option (empty and absent are the same to the boot manager)"
    has $fw-remove "boot-trace remove: the next boot loads no fwpt driver"
    status_is $fw-remove "EFI_SUCCESS (0x0)"
    loaded $fw-remove # still installed when this boot began
    var_is $fw-remove "$s" DriverOrder absent
    vars_are $fw-remove "$s" ""

    # 6. The next boot: no driver, status as in boot 1; remove again has nothing to do
    b status2 boot-trace status shutdown
    not_loaded $fw-status2
    has $fw-status2 "boot-trace: DriverOrder: not set (no driver options in the order)"
    has $fw-status2 "boot-trace: fwpt's driver option: none"
    b remove2 boot-trace remove shutdown
    has $fw-remove2 "boot-trace remove: nothing to remove: no fwpt driver option is installed"
    hasnt $fw-remove2 "removed Driver"
    status_is $fw-remove2 "EFI_SUCCESS (0x0)"

    # 7 and 8 on the DEBUG build only (the app's own logic, the same on both; its debug log shows a firmware left
    # in a bad state), on Debian's OVMF when there is no DEBUG build: the test stays near 3 minutes
    [ $fw = debug ] || [ "$FIRMWARES" = release ] || continue
    # 7. Refusals before anything is written: a bad driver option, no fwptdrv.efi, an app as fwptdrv.efi
    b bad boot-trace install steps=0 shutdown
    has $fw-bad "fwpt: error: 'boot-trace install': the driver would refuse its options: bad count in 'steps=0' (steps=N, at least 1)"
    status_is $fw-bad "EFI_INVALID_PARAMETER (0x8000000000000002)"
    hasnt $fw-bad "wrote Driver"
    B=$work/nodrv b nodrv boot-trace install backend=soft shutdown
    has $fw-nodrv "boot-trace install: no \\EFI\\BOOT\\fwptdrv.efi on the app's volume: copy build/fwptdrv.efi next to the app; nothing written"
    status_is $fw-nodrv "EFI_NOT_FOUND (0x800000000000000e)"
    B=$work/appdrv b appdrv boot-trace install backend=soft shutdown
    has $fw-appdrv "boot-trace install: \\EFI\\BOOT\\fwptdrv.efi is an EFI application (PE subsystem 10), not an EFI boot service driver (11): copy build/fwptdrv.efi there; nothing written"
    status_is $fw-appdrv "EFI_LOAD_ERROR (0x8000000000000001)"
    var_is $fw-appdrv "$s" DriverOrder absent
    vars_are $fw-appdrv "$s" ""

    # 8. A foreign option (written into the store on the host, as the firmware appends): install takes the next
    #    number and goes first in DriverOrder; remove leaves the foreign option and the order it had
    vs "$s" --add Driver0000 "$foreign" && vs "$s" --add DriverOrder 0000 && ok || bad "$fw: cannot add the foreign option"
    b install3 boot-trace install backend=soft steps=1000 keep shutdown
    has $fw-install3 "boot-trace install: wrote Driver0001: attributes 0x1 (active)"
    has $fw-install3 "boot-trace install: wrote DriverOrder: 0001 0000 (was: 0000)"
    status_is $fw-install3 "EFI_SUCCESS (0x0)"
    var_is $fw-install3 "$s" DriverOrder 01000000
    var_is $fw-install3 "$s" Driver0000 "$foreign"
    vars_are $fw-install3 "$s" "Driver0000 Driver0001 "
    b status3 boot-trace status shutdown
    loaded $fw-status3
    has $fw-status3 "boot-trace: DriverOrder: 2 entries: 0001 0000"
    has $fw-status3 "boot-trace: Driver0000: attributes 0x0 (inactive), description \"other driver\", file path \\EFI\\other.efi, optional data 0 bytes"
    b remove3 boot-trace remove shutdown
    has $fw-remove3 "boot-trace remove: removed Driver0001 (fwpt's option): deleted, and taken out of DriverOrder"
    has $fw-remove3 "boot-trace remove: DriverOrder now: 0000"
    status_is $fw-remove3 "EFI_SUCCESS (0x0)"
    var_is $fw-remove3 "$s" DriverOrder 0000
    var_is $fw-remove3 "$s" Driver0000 "$foreign"
    vars_are $fw-remove3 "$s" "Driver0000 "
done
fw_label=""
finish
