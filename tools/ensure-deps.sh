#!/usr/bin/env bash
# Installs the Debian packages fwpt needs that are not installed yet (as root; apt-get update once).
# Usage: tools/ensure-deps.sh [build|test|run|all|peers]   (default: all; peers: make bench-peers only)
set -eu
what=${1:-all}
build=(gcc make binutils gnu-efi libzydis-dev libdw-dev libelf-dev)
testpk=(libipt-dev libzydis-dev clang llvm lld g++ pkgconf libclang-rt-14-dev ovmf qemu-system-x86 mtools dosfstools fdisk python3 chromium python3-pil)
run=(ovmf qemu-system-x86 mtools dosfstools fdisk)
peers=(libipt-dev libcapstone-dev ovmf qemu-system-x86 mtools dosfstools fdisk) # libxdc links capstone
case "$what" in
    build) want=("${build[@]}") ;;
    test) want=("${build[@]}" "${testpk[@]}") ;;
    run) want=("${build[@]}" "${run[@]}") ;;
    all) want=("${build[@]}" "${testpk[@]}" "${run[@]}") ;;
    peers) want=("${build[@]}" "${peers[@]}") ;;
    *) echo "ensure-deps: unknown set '$what' (build|test|run|all|peers)" >&2; exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "fwpt: installing missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "fwpt: not root: install them with: apt-get install ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
