#!/usr/bin/env bash
# Boot images for fwpt, made without root (mkfs.vfat on a file, mtools, sfdisk on a file).
#   tools/mkimage.sh fat IMG EFI [CFG]   plain FAT disk (no partition table), for QEMU:
#                                        EFI/BOOT/BOOTX64.EFI and, with CFG, \fwpt\fwpt.cfg;
#                                        fwptdrv.efi (the boot-trace driver) beside the app when
#                                        the build has one beside EFI
#   tools/mkimage.sh usb IMG EFI [CFG]   GPT disk with one EFI System Partition at 1 MiB (FAT32)
#                                        holding EFI/BOOT/BOOTX64.EFI: `dd` it to a USB stick.
#                                        Without CFG, \fwpt\fwpt.cfg is a commented template
#                                        whose one active option is `wait`.
# Environment: FWPT_IMG_MB (disk size in MiB; default 256 for usb, 64 for fat). The usb image is sparse;
# 256 MiB because a default trace (2 MiB buffer) writes about 125 MB of files (packets.txt, flow.txt).
set -euo pipefail
die() { echo "mkimage: $*" >&2; exit 2; }
[ $# -ge 3 ] || die "usage: mkimage.sh fat|usb IMG EFI [CFG]"
kind=$1 img=$2 efi=$3 cfg=${4:-}
[ -f "$efi" ] || die "no EFI application at '$efi'"
[ -z "$cfg" ] || [ -f "$cfg" ] || die "no config file at '$cfg'"
for t in mkfs.vfat mmd mcopy sfdisk; do
    command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || [ -x "/sbin/$t" ] ||
        die "'$t' is missing (tools/ensure-deps.sh run installs dosfstools, mtools, fdisk)"
done
export PATH="$PATH:/usr/sbin:/sbin"
export MTOOLS_SKIP_CHECK=1
if [ "$kind" = usb ]; then mb=${FWPT_IMG_MB:-256}; else mb=${FWPT_IMG_MB:-64}; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

template() {
    cat <<'CFG'
# fwpt options: one line of words, '#' starts a comment (see `help`). Examples:
#   trace locate-handle shutdown
#   trace memory-map size=8M ring tsc
#   trace load-image \EFI\tools\Shell.efi filter=target
# With no options fwpt prints the capability report, writes \fwpt\caps.txt and returns;
# `wait` keeps the screen until a key is pressed.
wait
CFG
}

fill() { # fill TARGET(mtools image spec)
    local t=$1
    mmd -i "$t" ::/EFI ::/EFI/BOOT ::/fwpt
    mcopy -i "$t" "$efi" ::/EFI/BOOT/BOOTX64.EFI
    # `boot-trace install` finds the driver next to the app
    if [ -f "$(dirname "$efi")/fwptdrv.efi" ]; then mcopy -i "$t" "$(dirname "$efi")/fwptdrv.efi" ::/EFI/BOOT/fwptdrv.efi; fi
    if [ -n "$cfg" ]; then
        mcopy -i "$t" "$cfg" ::/fwpt/fwpt.cfg
    else
        template >"$tmp/fwpt.cfg"
        mcopy -i "$t" "$tmp/fwpt.cfg" ::/fwpt/fwpt.cfg
    fi
}

rm -f "$img"
case "$kind" in
fat)
    # Plain FAT32 file system on the whole disk (OVMF mounts a partitionless FAT disk).
    mkfs.vfat -C -F 32 -s 1 -n FWPT "$img" $((mb * 1024)) >/dev/null
    fill "$img"
    ;;
usb)
    # GPT: protective MBR + one ESP from sector 2048 (1 MiB) to the last usable sector.
    truncate -s "${mb}M" "$img"
    printf 'label: gpt\nstart=2048, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI System"\n' |
        sfdisk --quiet "$img"
    read -r start size < <(sfdisk --dump "$img" | sed -n 's/.*start= *\([0-9]*\), size= *\([0-9]*\).*/\1 \2/p' | head -n1)
    [ "$start" = 2048 ] || die "unexpected partition start '$start'"
    # FAT32 with 512-byte clusters: enough clusters for FAT32 from 33 MiB up.
    # (mkfs.vfat warns that the file is larger than the partition: the backup GPT follows it)
    err=$(mkfs.vfat -F 32 -s 1 -n FWPT --offset "$start" "$img" $((size / 2)) 2>&1 >/dev/null) ||
        die "mkfs.vfat failed: $err"
    [ -z "$err" ] || grep -v "block count mismatch" <<<"$err" >&2 || true
    fill "$img@@$((start * 512))"
    ;;
*) die "unknown image kind '$kind' (fat|usb)" ;;
esac
echo "mkimage: wrote $img ($kind, ${mb} MiB)"
