#!/usr/bin/env bash
# fwpt test runner: runs each test (binary or script) given, shows its output, totals the
# "NAME: N passed, N failed" lines, and ends with one "total: N passed, N failed" line.
# A test that exits non-zero or prints no summary line counts as one failure.
set -u
total_pass=0
total_fail=0
failed_tests=()
for t in "$@"; do
    echo "=== $t"
    start=$(date +%s)
    out=$("$t" 2>&1)
    rc=$?
    printf '%s\n' "$out" | tail -n 40
    line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        echo "--- $t: no summary line (exit $rc): counted as 1 failure"
        total_fail=$((total_fail + 1)); failed_tests+=("$t")
        continue
    fi
    p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$line")
    f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    [ "$f" -ne 0 ] && failed_tests+=("$t")
    echo "--- $t: exit $rc, $(( $(date +%s) - start ))s"
done
echo
[ ${#failed_tests[@]} -gt 0 ] && echo "failed: ${failed_tests[*]}"
echo "total: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
