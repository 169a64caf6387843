#!/usr/bin/env bash
# fwpt flow --annotate and the report page's source lines end to end on the EDK2 DEBUG build of OVMF: `trace
# locate-handle` and the first 300000 instructions of `trace connect-all` (backend=soft) on that firmware, then
# tests/oracle/annotate_lines.py against binutils with DxeCore's full DWARF (from debug-full.tar.xz): the per-line
# counts of the three functions of DxeCore that ran most, of LShiftU64 (code inlined from Math64.c) and of
# OrderedCollectionFind (an LTO unit) equal addr2line's grouping of the listing's addresses, text and JSON lines;
# the source text through --source-root; --by time; an unknown name, no --symbols; the report page's section.
# Without the DEBUG build it fails saying NOT RUN. Prints "qemu-annotate: N passed, N failed".
set -u
. "$(dirname "$0")/lib.sh" qemu-annotate
need "$B/fwpt.efi" "$B/fwpt"
dbg=$(dirname "$OVMF_DEBUG")
if [ ! -f "$OVMF_DEBUG" ] || [ ! -f "$dbg/debug-full.tar.xz" ]; then
    bad "NOT RUN: no EDK2 DEBUG build with debug-full.tar.xz beside $OVMF_DEBUG (set FWPT_OVMF_DEBUG)"
    finish
fi
mkdir -p "$work/syms"
if ! tar -xJf "$dbg/debug-full.tar.xz" -C "$work/syms" ./DxeCore.debug; then
    bad "could not unpack DxeCore.debug from $dbg/debug-full.tar.xz"
    finish
fi
# check NAME N [FUNCTION...]: the oracle on boot NAME's trace, DxeCore's N top functions and those named
check() {
    local name=$1
    shift
    if [ "$rc" != 0 ] || [ ! -s "$work/$name/fwpt/trace.pt" ]; then
        bad "$name: exit $rc, no trace.pt"
        tail -n 3 "$work/$name.err"
        return
    fi
    ok
    local out sum
    out=$(python3 "$here/tests/oracle/annotate_lines.py" "$B/fwpt" "$work/$name/fwpt" "$work/syms" DxeCore \
        "$work/syms/DxeCore.debug" "$@")
    echo "$out" | grep -v '^annotate_lines: ' | sed "s/^/$name: /"
    sum=$(echo "$out" | sed -n 's/^annotate_lines: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
    if [ -z "$sum" ]; then
        bad "$name: annotate_lines.py printed no summary"
    else
        pass=$((pass + ${sum% *}))
        fail=$((fail + ${sum#* }))
    fi
}
# locate-handle with time (--by time); LShiftU64 holds code inlined from Math64.c
boot_fw debug 300 locate max -- trace locate-handle backend=soft profile=skylake time quiet shutdown
debug_clean locate
check locate 3 LShiftU64
# connect-all's first 300000 instructions: OrderedCollectionFind is in an LTO unit whose rows binutils names
# <artificial>
boot_fw debug 300 connect max -- trace connect-all backend=soft profile=skylake steps=300000 quiet shutdown
debug_clean connect
check connect 3 OrderedCollectionFind
finish
