#!/bin/bash
# Real firmware traces for make bench: boots OVMF under QEMU/TCG once per target with the software
# backend (backend=soft: the call single-stepped and encoded as the hardware would), and keeps what
# the app saved (trace.pt, img-BASE.bin, sideband.json) in OUT/TARGET/fwpt/. bench_packet and
# bench_flow decode these next to their synthetic inputs (FWPT_BENCH_FW=OUT).
#   tests/bench/firmware-traces.sh BUILD OUT [OVMF]
# OVMF: the firmware to boot (default Debian's, run-qemu.sh's); make bench also records the four on the EDK2
# DEBUG build ../shared/ovmf-debug/OVMF.fd, whose modules have symbol files, for the benches with real names.
# FWPT_FW_TRACE_OPTS: more app options for every target (make bench-peers: noretcomp, for libxdc, which decodes no
# compressed returns). A trace already there is kept (delete OUT to record again). Fails loudly: a bench that silently
# drops its real inputs would print ratios for the synthetic ones only.
set -u
B=${1:?usage: firmware-traces.sh BUILD OUT}
out=${2:?usage: firmware-traces.sh BUILD OUT [OVMF]}
fw=${3:-}
[ -z "$fw" ] || [ -f "$fw" ] || { echo "firmware-traces: no firmware at $fw" >&2; exit 1; }
here=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$B/fwpt.efi" ] || { echo "firmware-traces: $B/fwpt.efi missing (make B=$B all first)" >&2; exit 1; }
mkdir -p "$out"
# name|app options: code paths of different sizes and drivers (DxeCore, the FAT driver and the disk
# stack, the variable driver)
targets=(
    'read-file|trace read-file \EFI\BOOT\BOOTX64.EFI'
    'memory-map|trace memory-map'
    'locate-handle|trace locate-handle'
    'get-variable|trace get-variable'
)
for t in "${targets[@]}"; do
    name=${t%%|*}
    opts=${t#*|}
    if [ -s "$out/$name/fwpt/trace.pt" ]; then
        echo "firmware trace $name: kept ($out/$name/fwpt)"
        continue
    fi
    rm -rf "${out:?}/$name"
    t0=$SECONDS
    # shellcheck disable=SC2086 # opts is word-split on purpose (the PATH has no spaces)
    if ! OVMF=${fw:-${OVMF:-/usr/share/ovmf/OVMF.fd}} "$here/run-qemu.sh" --no-build --build "$B" --accel tcg --timeout 300 --out "$out/$name" \
        --log "$out/$name.log" -- $opts backend=soft ${FWPT_FW_TRACE_OPTS:-} shutdown >/dev/null 2>"$out/$name.err" ||
        [ ! -s "$out/$name/fwpt/trace.pt" ]; then
        echo "firmware-traces: $name: the run failed (console $out/$name.log, errors $out/$name.err)" >&2
        exit 1
    fi
    echo "firmware trace $name: $(stat -c %s "$out/$name/fwpt/trace.pt") bytes of trace," \
        "$(ls "$out/$name/fwpt" | grep -c '^img-') images, $((SECONDS - t0)) s"
done
