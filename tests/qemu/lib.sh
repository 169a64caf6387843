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
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
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
