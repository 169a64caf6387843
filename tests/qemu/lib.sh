# The common prologue of the QEMU test scripts (sourced, not run; not a test_*.sh):
#   . "$(dirname "$0")/lib.sh" NAME
# sets $here (the checkout), $B (the build dir: $FWPT_BUILD or build), $work (a scratch dir removed
# on exit), the pass/fail counters with ok/bad, and finish, which prints the summary line
# "NAME: N passed, N failed" that tests/run.sh totals and exits with the verdict.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${FWPT_BUILD:-$here/build}
qemu_test_name=$1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: ${fw_label:+[$fw_label] }$*"; }
finish() {
    [ -n "${fw_not_run:-}" ] && echo "$fw_not_run"
    echo "$qemu_test_name: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# need FILE...: each must exist (build output), else one failure and the summary at once
need() {
    local f
    for f; do [ -e "$f" ] || { bad "missing $f (make B=$B first)"; finish; }; done
}

# flow_listing FLOW.TXT: the instruction listing of the app's flow.txt (the lines after its heading
# 'instructions and events in order'), to compare with the host tool's `fwpt flow --no-disasm`
flow_listing() { sed -n '/^instructions and events in order/,$p' "$1" | tail -n +2; }

# console_clean: QEMU serial output without CRs and terminal escapes (stdin -> stdout)
console_clean() { tr -d '\r' | sed 's/\x1b\[[0-9;=?]*[A-Za-z]//g'; }

# boot TIMEOUT NAME CPU [run-qemu options --] APP-OPTIONS...: run-qemu.sh under TCG; console in
# $work/NAME.log (clean), files in $work/NAME/fwpt, stderr in $work/NAME.err, exit status in rc.
boot_tcg() {
    local timeout=$1 name=$2 cpu=$3 t0=$SECONDS extra=()
    shift 3
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    "$here/run-qemu.sh" --no-build --build "$B" --accel tcg --cpu "$cpu" --timeout "$timeout" "${extra[@]}" \
        --out "$work/$name" --log "$work/$name.raw" -- "$@" >/dev/null 2>"$work/$name.err"
    rc=$?
    console_clean <"$work/$name.raw" >"$work/$name.log"
    echo "boot $name (-cpu $cpu, ${extra[*]}${extra[*]:+ -- }$*): exit $rc, $((SECONDS - t0)) s"
}

# The two firmwares the target tests run on: Debian's OVMF (a RELEASE build: no ASSERTs) and an EDK2 DEBUG build
# whose ASSERTs print and go on ($FWPT_OVMF_DEBUG, default ../shared/ovmf-debug/OVMF.fd beside the checkout; its
# debug port is kept with run-qemu.sh --debug-log). firmwares sets FIRMWARES: "release debug", or "release" when the
# DEBUG build
# is absent, after one loud line saying that half did not run (finish says it again beside the summary).
OVMF_RELEASE=${OVMF:-/usr/share/ovmf/OVMF.fd}
OVMF_DEBUG=${FWPT_OVMF_DEBUG:-$here/../shared/ovmf-debug/OVMF.fd}
fw_not_run=""
firmwares() {
    if [ -f "$OVMF_DEBUG" ]; then
        FIRMWARES="release debug"
    else
        FIRMWARES=release
        fw_not_run="NOT RUN: the DEBUG firmware half of $qemu_test_name: no $OVMF_DEBUG (set FWPT_OVMF_DEBUG)"
        echo "$fw_not_run"
    fi
}

# boot_fw FW TIMEOUT NAME CPU [run-qemu options --] APP-OPTIONS...: boot_tcg on firmware FW (release|debug); on the
# DEBUG build the firmware's debug port goes to $work/NAME.debug.
boot_fw() {
    local fw=$1
    shift
    if [ "$fw" = debug ]; then
        local t=$1 n=$2 c=$3
        shift 3
        local extra=()
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
        [ "${1:-}" = "--" ] && shift
        : >"$work/$n.debug"
        OVMF=$OVMF_DEBUG boot_tcg "$t" "$n" "$c" "${extra[@]}" --debug-log "$work/$n.debug" -- "$@"
    else
        OVMF=$OVMF_RELEASE boot_tcg "$@"
    fi
}

# debug_clean NAME: on the DEBUG firmware, the debug log of boot NAME exists and holds no ASSERT and no FATAL ERROR
# (one check; on the RELEASE firmware nothing is checked)
debug_clean() {
    [ -e "$work/$1.debug" ] || return 0
    if [ ! -s "$work/$1.debug" ]; then
        bad "$1: the DEBUG firmware's debug log is empty (no -debugcon output?)"
    elif grep -aqE 'ASSERT|FATAL ERROR' "$work/$1.debug"; then
        bad "$1: the DEBUG firmware's debug log holds $(grep -acE 'ASSERT|FATAL ERROR' "$work/$1.debug") ASSERT/FATAL ERROR lines; the first: $(grep -a -m1 -E 'ASSERT|FATAL ERROR' "$work/$1.debug" | tr -d '\r')"
    else
        ok "$1: the DEBUG firmware's debug log has no ASSERT or FATAL ERROR"
    fi
}
