#!/usr/bin/env bash
# The libraries export the public API and nothing else (docs/api.md, "What is not public"):
#   - every global symbol defined in build/libfwpt.a and build/libfwpt-decode.a carries the fwpt_ prefix (one
#     check per library; libipt's pt_ and everything else stays free for the programs that link us);
#   - every symbol libfwpt-decode.a exports (default visibility: the objects are built -fvisibility=hidden) is a
#     function a public header declares FWPT_API (one check per symbol), and every such function is defined there
#     (one check per declaration).
# Prints "check_exports: N passed, N failed". Usage: tests/api/check_exports.sh [BUILD]  (default $FWPT_BUILD)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${FWPT_BUILD:-$root/build}}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "check_exports: $*"; fail=$((fail + 1)); }

for lib in "$build/libfwpt.a" "$build/libfwpt-decode.a"; do
    if [ ! -f "$lib" ]; then bad "$lib: missing (make $lib)"; continue; fi
    stray=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | grep -v '^fwpt_' | sort -u)
    if [ -n "$stray" ]; then bad "$(basename "$lib") defines global symbols without the fwpt_ prefix:" $stray; else ok; fi
done

lib=$build/libfwpt-decode.a
api=$(cat "$root"/include/fwpt/*.h | tr '\n' ' ' | grep -oE 'FWPT_API [^;(]*\(' | grep -oE 'fwpt_[a-z0-9_]+ *\($' |
      tr -d ' (' | sort -u)
[ -n "$api" ] || bad "no FWPT_API declaration found in include/fwpt/"
if [ -f "$lib" ]; then
    # readelf -s: Num Value Size Type Bind Vis Ndx Name
    exported=$(readelf -sW "$lib" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }' | sort -u)
    defined=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
    for s in $exported; do
        if grep -qx "$s" <<<"$api"; then ok; else bad "libfwpt-decode.a exports $s, which no public header declares FWPT_API (static, or hidden)"; fi
    done
    for s in $api; do
        if grep -qx "$s" <<<"$defined"; then ok; else bad "$s is declared FWPT_API in include/fwpt/ but libfwpt-decode.a does not define it"; fi
    done
fi
echo "check_exports: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
